"""Alerts of our seat client, as the other three seats receive them through our table manager.

Our real seat client sits South with a policy agent and the learned explanations of that policy
(``engine.explain``); North, East and West are scripted peers over real TCP on 127.0.0.1, each
asserting every line the table manager sends it, in order. Only the auction is scripted.

- 1S (North) Pass 2S: a test policy (``tests.policies.raise_policy``) bids it with any three
  hearts, so fewer than half of its hands hold four spades (artificial by our definition): East and
  West, the opponents, get ``Alert.`` with the meaning; North, the partner, gets the bare call
  (the relay rule). A test policy, so that the test does not depend on what the shipped one bids.
- 1C (North) Pass: the shipped ``default`` answers naturally (its answer is read from the agent
  and checked unalerted by the explainer first): nobody gets an alert.
- ``--no-alerts`` (no alerter): the same 2S goes out bare.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from bridgebot.engine.agent import bidding_view
from bridgebot.engine.explain import Explainer
from bridgebot.engine.parts import parts_of
from bridgebot.protocol.table import TableBoard
from bridgebot.server.seat import Alerter, SeatClient, TableConnectionError
from bridgebot.server.testing import ScriptedSeat
from bridgebot.server.tm import TableManager
from endplay.types import Bid, Deal, Player, Vul

from bridgebot.agents import make_agent
from tests.policies import layered, raise_policy

RAISE_DEAL = "N:KQ92.Q.KQT62.AKT A63.A64.A9753.54 T84.KJ985.J4.Q73 J75.T732.8.J9862"
NATURAL_DEAL = "N:AQ54.Q3.9632.AQ6 T87.A8.AQT4.9754 KJ93.JT95.K7.JT8 62.K7642.J85.K32"

CARDS = {
    RAISE_DEAL: {
        "North": "North's cards : S K Q 9 2. H Q. D K Q T 6 2. C A K T.",
        "East": "East's cards : S A 6 3. H A 6 4. D A 9 7 5 3. C 5 4.",
        "West": "West's cards : S J 7 5. H T 7 3 2. D 8. C J 9 8 6 2.",
    },
    NATURAL_DEAL: {
        "North": "North's cards : S A Q 5 4. H Q 3. D 9 6 3 2. C A Q 6.",
        "East": "East's cards : S T 8 7. H A 8. D A Q T 4. C 9 7 5 4.",
        "West": "West's cards : S 6 2. H K 7 6 4 2. D J 8 5. C K 3 2.",
    },
}


def _start(seat: str, team: str, cards: str) -> list[tuple[str, str]]:
    """("says" | "hears", line) up to the cards, as docs/protocol.md section 3 orders them."""
    return [
        ("says", f'Connecting "{team}" as {seat} using protocol version 18'),
        ("hears", f'{seat} ("{team}") seated'),
        ("says", f"{seat} ready for teams"),
        ("hears", 'Teams : N/S : "Bots" E/W : "Peers"'),
        ("says", f"{seat} ready to start"),
        ("hears", "Start of board"),
        ("says", f"{seat} ready for deal"),
        ("hears", "Board number 1. Dealer North. Neither vulnerable."),
        ("says", f"{seat} ready for cards"),
        ("hears", cards),
    ]


def _scripts(deal: str, opening: str, south: str, to_opponents: str) -> dict[str, list]:
    """The three peers' whole auction: North opens, East passes, South (ours) answers."""
    cards = CARDS[deal]
    return {
        "North": [
            *_start("North", "Bots", cards["North"]),
            ("says", f"North bids {opening}"),
            ("says", "North ready for East's bid"),
            ("hears", "East passes"),
            ("says", "North ready for South's bid"),
            ("hears", south),  # partner: never the alert
        ],
        "East": [
            *_start("East", "Peers", cards["East"]),
            ("says", "East ready for North's bid"),
            ("hears", f"North bids {opening}"),
            ("says", "East passes"),
            ("says", "East ready for South's bid"),
            ("hears", to_opponents),
        ],
        "West": [
            *_start("West", "Peers", cards["West"]),
            ("says", "West ready for North's bid"),
            ("hears", f"North bids {opening}"),
            ("says", "West ready for East's bid"),
            ("hears", "East passes"),
            ("says", "West ready for South's bid"),
            ("hears", to_opponents),
        ],
    }


def _south(spec: str, deal: str, opening: str) -> tuple[str, str | None]:
    """South's call after ``opening`` and Pass (the agent's own), and the explainer's alert."""
    agent = make_agent(spec, seed=0)
    policy = parts_of(agent).policy
    assert policy is not None
    auction = [Bid(opening), Bid("Pass")]
    view = bidding_view(Player.north, Vul.none, Deal(deal)[Player.south], auction, 1)
    call = agent.bid(view)
    text = Explainer(policy, target=200, max_hands=8192).alert(
        Player.north, Vul.none, auction, call
    )
    return str(call).replace("♠", "S").replace("♥", "H").replace("♦", "D").replace("♣", "C"), text


async def _auction(
    tmp_path: Path,
    deal: str,
    scripts: dict[str, list],
    alerts: bool,
    spec: str = "default",
    alerter: Alerter | None = None,
) -> None:
    board = TableBoard(number=1, dealer=Player.north, vul=Vul.none, deal=Deal.from_pbn(deal))
    tm = TableManager([board], tmp_path)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    agent = make_agent(spec, seed=0)
    if alerter is None and alerts:
        policy = parts_of(agent).policy
        assert policy is not None
        alerter = Explainer(policy, target=200, max_hands=8192).alert_for
    peers: list[ScriptedSeat] = []
    for name in ("North", "East", "West"):
        seat = ScriptedSeat(host, port, name=name, timeout=10.0, expect_close=False)
        for kind, line in scripts[name]:
            (seat.says if kind == "says" else seat.hears)(line)
        peers.append(seat)
    ours = SeatClient(host, port, Player.south, "Bots", agent, connect_retries=0, alerter=alerter)
    client = asyncio.create_task(ours.run())
    try:
        await asyncio.wait_for(asyncio.gather(*(p.run() for p in peers)), 20)
    finally:
        for p in peers:
            await p.close()
        await tm.close()
        serving.cancel()
        client.cancel()
        # Our client is the thing under test: it may only have been cancelled here, or have seen
        # the table manager close; any other exception of its own is a failure.
        with contextlib.suppress(asyncio.CancelledError, TableConnectionError):
            await client
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await serving


async def test_artificial_raise_alerted_to_opponents_only(tmp_path: Path) -> None:
    spec = f"policy:{raise_policy(tmp_path / 'raise')},play=baseline"
    call, text = _south(spec, RAISE_DEAL, "1S")
    assert call == "2S" and text is not None
    scripts = _scripts(RAISE_DEAL, "1S", "South bids 2S", f"South bids 2S Alert. {text}")
    await _auction(tmp_path, RAISE_DEAL, scripts, alerts=True, spec=spec)


async def test_natural_response_not_alerted(tmp_path: Path) -> None:
    call, text = _south("default", NATURAL_DEAL, "1C")
    assert text is None, text
    scripts = _scripts(NATURAL_DEAL, "1C", f"South bids {call}", f"South bids {call}")
    await _auction(tmp_path, NATURAL_DEAL, scripts, alerts=True)


async def test_alerts_off(tmp_path: Path) -> None:
    spec = f"policy:{raise_policy(tmp_path / 'raise')},play=baseline"
    scripts = _scripts(RAISE_DEAL, "1S", "South bids 2S", "South bids 2S")
    await _auction(tmp_path, RAISE_DEAL, scripts, alerts=False, spec=spec)


def test_alerts_come_from_learned_policies_only() -> None:
    from bridgebot.server.seat_cli import _alerter

    assert _alerter(make_agent("random"), 8192) is None
    assert _alerter(make_agent("bfg"), 8192) is None
    assert callable(_alerter(make_agent("default,play=baseline"), 8192))
    assert callable(_alerter(make_agent("search,particles=16,rollouts=4"), 8192))


# -- a wrapped agent alerts its asking convention ----------------------------------------------

#: North opens 1S and later asks with 4NT; South (ours) holds DA and HK: 3 controls.
ASK_DEAL = "N:AKQJ5.A2.KQ4.A32 T7.JT98.JT9.KQJT 9843.KQ3.A52.654 62.7654.8763.987"


def _cards_line(seat: str, hand: str) -> str:
    suits = " ".join(
        f"{s} {' '.join(cards)}." for s, cards in zip("SHDC", hand.split("."), strict=True)
    )
    return f"{seat}'s cards : {suits}"


def _bid_line(seat: str, call: str) -> str:
    return f"{seat} passes" if call == "Pass" else f"{seat} bids {call}"


def _long_scripts(deal: str, auction: list[tuple[str, str, str | None]]) -> dict[str, list]:
    """North, East and West's lines for ``auction`` (seat, call, South's alert text): the
    callers say their calls, the others hear them, South's alert reaching East and West only."""
    hands = dict(zip(("North", "East", "South", "West"), deal[2:].split(), strict=True))
    teams = {"North": "Bots", "East": "Peers", "West": "Peers"}
    out = {s: list(_start(s, teams[s], _cards_line(s, hands[s]))) for s in teams}
    for caller, call, alert in auction:
        for seat in out:
            if seat == caller:
                out[seat].append(("says", _bid_line(seat, call)))
                continue
            out[seat].append(("says", f"{seat} ready for {caller}'s bid"))
            heard = _bid_line(caller, call)
            if alert is not None and seat != "North":
                heard += f" Alert. {alert}"
            out[seat].append(("hears", heard))
    return out


async def test_a_wrapped_agent_alerts_its_control_answer_over_tcp(tmp_path: Path) -> None:
    """``default,doubles=on`` over a model with its control estimator (``tests.policies.LAYERED``:
    the shipped one is a policy alone) plays control asking inside the penalty-double wrapper: its seat's
    alerter reads the convention through the wrapper, so partner's 4NT is answered with the
    alert 'Control answer, 3 controls.' (before: the alerter found no policy and the answer went
    out bare)."""
    from bridgebot.server.seat_cli import _alerter

    spec = layered("default,doubles=on,play=baseline")
    first, first_alert = _south(layered("default"), ASK_DEAL, "1S")
    agent = make_agent(spec, seed=0)
    calls = [Bid("1S"), Bid("Pass"), Bid(first), Bid("Pass"), Bid("4NT"), Bid("Pass")]
    view = bidding_view(Player.north, Vul.none, Deal(ASK_DEAL)[Player.south], calls, 1)
    answer = str(agent.bid(view)).replace("♥", "H").replace("♦", "D").replace("♠", "S")
    assert answer == "5H", answer  # the control answer: 3 controls
    alerter = _alerter(agent, 8192)
    assert alerter is not None
    scripts = _long_scripts(
        ASK_DEAL,
        [
            ("North", "1S", None),
            ("East", "Pass", None),
            ("South", first, first_alert),
            ("West", "Pass", None),
            ("North", "4NT", None),
            ("East", "Pass", None),
            ("South", answer, "Control answer, 3 controls."),
        ],
    )
    await _auction(tmp_path, ASK_DEAL, scripts, alerts=True, spec=spec, alerter=alerter)
