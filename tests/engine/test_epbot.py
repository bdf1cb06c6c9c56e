"""The ``epbot`` agent (issue 43): EPBot bids through ctypes, every call checked, alerts from its
meanings, and one-line errors where EPBot or a card is missing.

EPBot is an outside program: the tests that need it take the ``epbot`` fixture, which skips with
the reason where ``$BRIDGEBOT_EPBOT`` names no folder with ``libEPBot.so``, and fails instead where
``$CI`` is set (``.ci/run`` sets the variable where the machine has EPBot).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from bridgebot.engine.agent import AgentSpecError, BiddingView, bidding_view
from bridgebot.engine.epbot import EPBotAgent, from_epbot
from bridgebot.laws.calls import ALL_CALLS, PASS, is_pass, same_call
from bridgebot.laws.notation import parse_call
from endplay.types import Bid, Hand, Player, Vul

from bridgebot.agents import AgentSpec, make_agent
from bridgebot.cli import main

ROOT = Path(__file__).resolve().parents[2]
ENV = "BRIDGEBOT_EPBOT"


@pytest.fixture
def epbot() -> Path:
    """The EPBot folder; skips (fails under ``$CI``) where there is none."""
    where = os.environ.get(ENV, "")
    if not where or not (Path(where) / "libEPBot.so").is_file():
        reason = f"EPBot not here: set {ENV} to a folder holding libEPBot.so and CC/"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI is set, so the epbot tests must run)")
        pytest.skip(reason)
    return Path(where)


def calls(text: str) -> list[Bid]:
    return [parse_call(c) for c in text.split()]


def transfer_view(board: int = 1) -> BiddingView:
    """The README's check: North deals, none vulnerable, 1NT Pass; South holds clubs 432,
    diamonds K32, hearts QJ432, spades A2."""
    hand = Hand("A2.QJ432.K32.432")
    return bidding_view(Player.north, Vul.none, hand, calls("1NT Pass"), board)


def epbot_agent(spec: str) -> EPBotAgent:
    agent = make_agent(spec)
    assert isinstance(agent, EPBotAgent)
    return agent


def test_the_transfer_check_bids_2d(epbot: Path) -> None:
    with epbot_agent("epbot:WBridge5-Sayc") as agent:
        view = transfer_view()
        call = agent.bid(view)
        assert same_call(call, parse_call("2D"))
        assert agent.bid(view) == call  # deterministic: the same view gives the same call
        assert (agent.calls, agent.illegal_calls) == (2, 0)
        alert = agent.alert_for(view, call)
        assert alert == "Transfer, 0 to 25 total points, 5+ cards in hearts."
        assert agent.alert_for(view, parse_call("3NT")) is None  # natural: no alert
        assert agent.explain(view, parse_call("2C")) == "Stayman: 7-37 HCP"
        assert agent.explain_auction(view)[0] == "NT style: 15-17 HCP"


def test_every_card_loads_and_opens_legally(epbot: Path) -> None:
    cards = sorted(p.stem for p in (epbot / "CC").glob("*.bbsa"))
    assert len(cards) >= 18
    hand = Hand("AK2.KQ3.A432.Q32")  # 18 HCP: every system opens it
    for card in cards:
        spec = "epbot:" + card.replace(" ", "_")
        with epbot_agent(spec) as agent:
            view = bidding_view(Player.east, Vul.ns, hand, [], 2)
            call = agent.bid(view)
            assert not is_pass(call) and any(same_call(call, c) for c in view.legal), card
            assert agent.card.name == card


def test_a_card_with_a_space_is_written_either_way(epbot: Path) -> None:
    view = transfer_view()
    answers = []
    for spec in ("epbot:Micro_Bridge_13.4", "epbot:Micro Bridge 13.4", "epbot:micro_bridge_13.4"):
        with epbot_agent(spec) as agent:
            assert agent.card.name == "Micro Bridge 13.4"
            answers.append(agent.bid(view))
    assert len({str(a) for a in answers}) == 1


def test_an_unknown_card_fails_in_one_line_listing_the_cards(epbot: Path) -> None:
    for spec in ("epbot:Nope", "epbot", "epbot:Acol,opponents=Nope"):
        with pytest.raises(AgentSpecError) as info:
            make_agent(spec)
        message = str(info.value)
        assert "\n" not in message
        assert "WBridge5-Sayc" in message and "Micro_Bridge_13.4" in message


def test_a_missing_epbot_fails_in_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(
        AgentSpecError, match=f"^agent epbot:WBridge5-Sayc: EPBot not found: set {ENV}"
    ):
        make_agent("epbot:WBridge5-Sayc")
    with pytest.raises(AgentSpecError, match=r"has no libEPBot\.so"):
        make_agent(f"epbot:WBridge5-Sayc,path={tmp_path}")
    env = {k: v for k, v in os.environ.items() if k != ENV}
    done = subprocess.run(
        [sys.executable, "-m", "bridgebot", "match", "--them", "epbot:WBridge5-Sayc",
         "--boards", "1", "--out", str(tmp_path / "m")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and ENV in done.stderr


def test_options_that_do_not_apply_are_refused() -> None:
    for option in ("slams=off", "threads=2", "particles=8", "controls=off"):
        with pytest.raises(AgentSpecError, match=r"^agent epbot: unknown options \[") as info:
            AgentSpec.parse(f"epbot:WBridge5-Sayc,{option}")
        assert "\n" not in str(info.value)
    spec = AgentSpec.parse("epbot:Micro Bridge 13.4,play=dd,opponents=Acol")
    assert (spec.path, str(spec)) == (
        "Micro Bridge 13.4",
        "epbot:Micro Bridge 13.4,play=dd,opponents=Acol",
    )


def test_an_illegal_call_becomes_a_pass_and_is_counted(
    epbot: Path, logs: list[dict[str, object]]
) -> None:
    """The table manager refused 2D: EPBot still answers it, and the agent passes instead."""
    with epbot_agent("epbot:WBridge5-Sayc") as agent:
        view = transfer_view()
        refused = bidding_view(
            view.dealer, view.vul, view.hand, view.auction, 1, [parse_call("2D")]
        )
        assert agent.bid(refused) == PASS
        assert agent.illegal_calls == 1
    assert [e["event"] for e in logs if e["log_level"] == "warning"] == ["epbot_illegal_call"]


def test_calls_map_both_ways() -> None:
    ids = [0, 1, 2, *range(5, 40)]
    assert [str(from_epbot(i)) for i in ids] == [str(c) for c in ALL_CALLS]
    assert [from_epbot(i) for i in (3, 4, 40, -1)] == [None] * 4


def test_it_pickles_and_seat_alerts_use_it(epbot: Path) -> None:
    from bridgebot.server.seat_cli import _alerter

    with epbot_agent("epbot:WBridge5-Sayc") as agent:
        view = transfer_view()
        first = agent.bid(view)
        copy = pickle.loads(pickle.dumps(agent))
        assert copy.bid(view) == first
        copy.close()
        alerter = _alerter(agent, 8)
        assert alerter is not None and alerter(view, first) == agent.alert_for(view, first)


def test_a_dd_match_against_default_runs_to_the_end(
    epbot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    out = tmp_path / "m"
    code = main(
        ["match", "--us", "default", "--them", "epbot:WBridge5-Sayc", "--boards", "8",
         "--workers", "1", "--out", str(out)]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["boards"], summary["them"]) == (8, "epbot:WBridge5-Sayc")
