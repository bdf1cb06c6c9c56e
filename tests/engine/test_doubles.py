"""The penalty doubles: what they read from the observation, when they double, the agent option
(a layer of the pipeline where the agent has one, a wrapper where it has none)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.agent import Agent, BatchBidder, BiddingView, PlayView
from bridgebot.engine.doubles import (
    FEATURE_NAMES,
    BatchPenaltyDoublesWrapper,
    DoublesModel,
    DoublesModelError,
    PenaltyDoublesLayer,
    PenaltyDoublesWrapper,
    observable_features,
    penalty_doubles,
)
from bridgebot.engine.features import encode, legal_mask
from bridgebot.engine.parts import layer_of, parts_of
from bridgebot.engine.policy import PolicyAgent
from bridgebot.laws.calls import PASS, auction_over, is_double, is_pass, legal_calls, to_call
from endplay.types import Bid, Card, Deal, Player, Vul

from bridgebot.agents import AgentSpecError, make_agent
from bridgebot.shipped import PENALTY_DOUBLES

#: The shipped model, as the composition root hands it down.
MODEL = DoublesModel.load(PENALTY_DOUBLES)

DEAL = Deal("N:AKQJ.AKQ.AK2.A32 5432.5432.543.54 T98.T98.T98.KQJT 76.J76.QJ76.9876")


def view(auction: str, dealer: Player = Player.north, deal: Deal = DEAL) -> BiddingView:
    calls = tuple(Bid(c) for c in auction.split()) if auction else ()
    seat = to_call(dealer, calls)
    return BiddingView(
        seat=seat,
        dealer=dealer,
        vul=Vul.none,
        hand=deal[seat],
        auction=calls,
        board=1,
        legal=legal_calls(dealer, calls),
    )


def obs(v: BiddingView) -> tuple[np.ndarray, np.ndarray]:
    return encode(v)[None, :], legal_mask(v.dealer, v.auction)[None, :]


def test_features_read_own_hand_and_partners_calls() -> None:
    # West holds 76.J76.QJ76.9876; partner East passed throughout.
    f, _ = observable_features(obs(view("1H P 2C P 2H P 4H"))[0])
    col = dict(zip(FEATURE_NAMES, f[0], strict=True))
    assert col["own_hcp"] == 4  # J, Q, J
    assert col["own_trump_len"] == 3
    assert col["partner_bids"] == 0 and col["opp_bids"] == 4
    assert col["level"] == 4 and col["nt"] == 0


def test_doubles_a_hopeless_grand_slam_and_not_a_sound_partscore() -> None:
    # North (the 29-count) is to call after West opened 7NT: a double is worth it.
    v = view("7NT", dealer=Player.west)
    assert v.seat is Player.north
    x, m = obs(v)
    assert penalty_doubles(x, m, MODEL)[0]
    # South opened 1C after two passes; West, 4 HCP and a silent partner, passes.
    w = view("P P 1C", dealer=Player.north)
    assert w.seat is Player.west
    x, m = obs(w)
    assert not penalty_doubles(x, m, MODEL)[0]


def test_never_doubles_where_a_double_is_illegal() -> None:
    x, m = obs(view("1NT"))  # East may double, but take the mask away
    m[0, 1] = False
    assert not penalty_doubles(x, m, MODEL)[0]


class Passer(Agent):
    """A peer that always passes (the wrapped agent; the layer is what is tested)."""

    name = "passer"

    def reset(self, board: int) -> None:
        pass

    def bid(self, view: BiddingView) -> Bid:
        return PASS

    def play(self, view: PlayView) -> Card:
        raise AssertionError("bidding only")


def random_views(n: int, seed: int) -> list[BiddingView]:
    """Up to ``n`` views of random legal auctions on :data:`DEAL` (North deals, both vulnerable)."""
    rng = np.random.default_rng(seed)
    views = []
    for _ in range(n):
        calls: tuple[Bid, ...] = ()
        target = int(rng.integers(1, 12))
        while len(calls) < target and not auction_over(calls):
            legal = legal_calls(Player.north, calls)
            calls += (legal[int(rng.integers(len(legal)))],)
        if auction_over(calls):
            continue
        seat = to_call(Player.north, calls)
        views.append(
            BiddingView(
                seat, Player.north, Vul.both, DEAL[seat], calls, 1, legal_calls(Player.north, calls)
            )
        )
    return views


def test_agent_batch_path_equals_call_by_call() -> None:
    agent = make_agent("policy:models/default,doubles=on")
    assert isinstance(agent, BatchBidder)
    views = random_views(40, 3)
    batch = agent.bid_batch(views)
    single = [agent.bid(v) for v in views]
    assert [str(c) for c in batch] == [str(c) for c in single]


def test_an_agent_with_a_pipeline_plays_them_as_its_last_layer() -> None:
    """``doubles=on`` of a learned agent is the last layer of its pipeline, and doubles where
    the wrapper would over the same agent without it (the rule it replaced), call for call."""
    # policy_doubles=read: the two agents keep no count of the doubles they see, which would
    # make the second look (decide) read the views otherwise than the first.
    with make_agent("policy:models/default,doubles=on,policy_doubles=read") as layered:
        assert isinstance(layered, PolicyAgent)
        assert [x.name for x in layered.bidder.layers] == ["doubles"]
        layer = layer_of(parts_of(layered), PenaltyDoublesLayer)
        assert layer is not None and layer.model == MODEL
        plain = make_agent("policy:models/default,policy_doubles=read")
        assert isinstance(plain, PolicyAgent)
        wrapped = BatchPenaltyDoublesWrapper(plain, "wrapped", MODEL)
        # Auctions where the opponents bid on and a pass leaves them a contract to double.
        views = [
            v for v in random_views(400, 5) if v.auction and legal_mask(v.dealer, v.auction)[1]
        ]
        got, want = layered.bid_batch(views), wrapped.bid_batch(views)
        assert [str(c) for c in got] == [str(c) for c in want]
        assert wrapped.doubles > 0  # the comparison covers doubles made
        decided = layered.decide(views)
        doubled = [d for d in decided if d.changed_by == ("doubles",)]
        assert len(doubled) == wrapped.doubles and all(is_double(d.call) for d in doubled)


def test_wrapper_turns_only_passes_into_doubles() -> None:
    agent = PenaltyDoublesWrapper(Passer(), "passer,doubles=on", MODEL)
    assert not isinstance(agent, BatchBidder)  # batching only over a batch bidder
    assert is_double(agent.bid(view("7NT", dealer=Player.west)))
    assert is_pass(agent.bid(view("P P 1C")))
    assert agent.doubles == 1


def test_spec_option() -> None:
    assert isinstance(make_agent("bfg,doubles=on"), PenaltyDoublesWrapper)
    assert not isinstance(make_agent("bfg,doubles=off"), PenaltyDoublesWrapper)
    with pytest.raises(AgentSpecError, match="doubles must be 'on' or 'off'"):
        make_agent("bfg,doubles=maybe")
    with pytest.raises(AgentSpecError, match="bfg takes no path and no options"):
        make_agent("bfg,doubles=on,x=1")


def test_model_file_with_other_features_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "m.json"
    p.write_text(json.dumps({"features": ["bias"], "weights": [1.0], "sd": 1, "margin": 0}))
    with pytest.raises(DoublesModelError, match=rf"{p}: .*field features: .*not the ones this"):
        DoublesModel.load(p)


def test_the_shipped_model_is_found_by_the_composition_root_from_any_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bridgebot/shipped.py finds the file (engine.doubles finds none by itself: a model is
    handed to the layer), and a doubles=on agent built from another directory doubles by it."""
    import bridgebot.engine.doubles as module

    assert not hasattr(module, "DEFAULT_MODEL") and not hasattr(module, "default_model")
    monkeypatch.chdir(tmp_path)
    assert PENALTY_DOUBLES.is_absolute() and PENALTY_DOUBLES.is_file()
    with make_agent("bfg,doubles=on") as agent:
        assert isinstance(agent, PenaltyDoublesWrapper) and agent.model == MODEL


def test_the_shipped_model_reads_and_writes_back_byte_for_byte(tmp_path: Path) -> None:
    good = DoublesModel.load(PENALTY_DOUBLES)
    assert good.meta is not None and good.meta.training.kind == "doubles"
    assert set(good.meta.metrics) == {"calibration", "wall_s"}
    good.save(tmp_path / "copy.json")
    assert (tmp_path / "copy.json").read_bytes() == PENALTY_DOUBLES.read_bytes()
    assert DoublesModel.load(tmp_path / "copy.json") == good


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"sd": 0}, "sd"),
        ({"weights": [1.0, 2.0]}, "(the whole file)"),  # not one weight per feature
        ({"margin": "high"}, "margin"),
        ({"meta": {"training": {"kind": "doubles", "seed": "one"}}}, "meta.training.seed"),
        ({"meta": {"training": {"kind": "doubles"}, "fitted": True}}, "meta.fitted"),
        ({"weight": []}, "weight"),
    ],
)
def test_a_malformed_model_file_names_the_file_and_field(
    change: dict[str, object], field: str, tmp_path: Path
) -> None:
    blob = json.loads(PENALTY_DOUBLES.read_text()) | change
    p = tmp_path / "m.json"
    p.write_text(json.dumps(blob))
    with pytest.raises(DoublesModelError, match=rf"^{p}: .*field {re.escape(field)}: "):
        DoublesModel.load(p)
    p.write_text("{not json")
    with pytest.raises(DoublesModelError, match=rf"^{p}: .*field \(the whole file\): Invalid JSON"):
        DoublesModel.load(p)
