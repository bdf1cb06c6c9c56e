"""Control asking (engine.control_ask, control_estimator, control_layer; the agents' ``controls``): its rules on auctions, and the
shipped agents playing it at a table, as asker, as responder, and where an opponent doubles the
ask."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine import control_ask as A
from bridgebot.engine.agent import bidding_view
from bridgebot.engine.control_estimator import CONTROLS_DIR, ControlEstimator
from bridgebot.engine.control_layer import (
    ControlAsking,
    ConventionLayer,
    Reach,
    veto_direct,
    veto_own_ask,
)
from bridgebot.engine.explain import Explainer
from bridgebot.engine.features import encode, hand_to_array
from bridgebot.engine.parts import layer_of, parts_of
from bridgebot.engine.policy import Policy
from bridgebot.engine.slams import SlamEstimator, estimator_dir, slam_probs
from bridgebot.laws.boards import BoardDeal
from bridgebot.laws.calls import ALL_CALLS, bid_index, doubled_against_caller
from bridgebot.tournament.ddmatch import bid_room
from endplay.types import Bid, Deal, Hand, Player, Vul

from bridgebot.agents import AgentSpec, AgentSpecError, make_agent
from bridgebot.cli import main
from tests.policies import LAYERED, layered

ROOT = Path(__file__).resolve().parents[2]


def _calls(text: str) -> list[int]:
    return [bid_index(Bid(c)) for c in text.split()]


def _idx(call: str) -> int:
    return bid_index(Bid(call))


# -- the rules -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("auction", "expected"),
    [
        ("1S P 3S P 4NT P", "answer"),
        ("1S P 3S P 4NT X", "answer"),  # a double of the ask leaves it going
        ("1S P 3S P 4NT 5C", None),  # a bid over it ends the convention
        ("1NT P 4NT P", None),  # no suit bid by the asker's side: 4NT is not the ask
        ("1H 1S 2H P 4NT P", "answer"),  # the ask after a competitive start
        ("1S P 3S P 4NT P 5D P", "decide"),
        ("1S P 3S P 4NT P 5D X", "decide"),
        ("1S P 3S P 4NT P 5D 5NT", None),
        ("1S P 3S P 4NT P 5D P 6S P", "pass"),
        ("1S P 3S P 4NT P 5D P 5S P", "pass"),
        ("1S P 3S P 4S P", None),
        ("", None),
    ],
)
def test_role_is_a_function_of_the_auction(auction: str, expected: str | None) -> None:
    assert A.role(_calls(auction)) == expected


def _chances(**by_suit: float) -> np.ndarray:
    p = np.zeros(5, dtype=np.float32)
    for name, value in by_suit.items():
        p["CDHS".index(name)] = value
    return p


def _view(auction: str) -> object:
    deal = Deal("N:AKQ2.AK2.AK2.A32 543.543.543.5432 T987.QJT9.QJT.KQ J6.876.9876.JT98")
    calls = tuple(Bid(c) for c in auction.split())
    seat = Player((len(calls)) % 4)
    return bidding_view(Player.north, Vul.none, deal[seat], calls, 1)


def _policy_prefers(*calls: str) -> tuple[np.ndarray, np.ndarray]:
    """An all-legal mask and logits that rank ``calls`` first, second, ..."""
    logits = np.full((1, len(ALL_CALLS)), -10.0, dtype=np.float32)
    for rank, call in enumerate(calls):
        logits[0, _idx(call)] = -float(rank)
    return np.ones((1, len(ALL_CALLS)), dtype=bool), logits


def test_the_policy_s_own_4nt_yields_to_its_next_call_where_4nt_would_ask() -> None:
    mask, logits = _policy_prefers("4NT", "4S", "Pass")
    out = veto_own_ask([_view("1S P 3S P")], np.array([_idx("4NT")]), mask, logits)
    assert out.tolist() == [_idx("4S")]
    # No suit of ours yet: 4NT is not the ask, and stands.
    out = veto_own_ask([_view("1NT P")], np.array([_idx("4NT")]), mask, logits)
    assert out.tolist() == [_idx("4NT")]
    # Without the policy's logits there is nothing to choose from: the call stands.
    assert veto_own_ask([_view("1S P 3S P")], np.array([_idx("4NT")]), None, None).tolist() == [
        _idx("4NT")
    ]


@pytest.mark.parametrize(
    ("call", "chance", "direct", "expected"),
    [
        ("6S", 0.79, 0.8, "5S"),  # below direct: the policy's best call below the slam
        ("6S", 0.80, 0.8, "6S"),
        ("7S", 0.95, 0.8, "5S"),  # the grand reads the chance of 13 tricks (0.5 here)
        ("6S", 0.10, 0.0, "6S"),  # direct 0: any slam stands
        ("5S", 0.10, 0.8, "5S"),  # not a slam
    ],
)
def test_a_slam_without_the_ask_needs_direct(
    call: str, chance: float, direct: float, expected: str
) -> None:
    mask, logits = _policy_prefers(call, "5S", "4S")
    out = np.array([_idx(call)])
    level, strain = int(call[0]), "CDHSN".index(call[1])
    p12 = np.zeros((1, 5), dtype=np.float32)
    p12[0, strain] = chance
    p13 = np.full((1, 5), 0.5, dtype=np.float32)
    reach = Reach(np.array([0]), np.array([True]), np.array([level]), np.array([strain]), p12, p13)
    veto_direct(out, reach, mask, logits, direct)
    assert out.tolist() == [_idx(expected)]


# -- the shipped agents at the table ---------------------------------------------------------------

#: North-South hands of validation boards where the shipped pair asked (dealer, vulnerability,
#: PBN deal). The checks below hold whatever the model bids; that an ask happens at all is
#: checked on the lot.
ASK_DEALS = [
    (
        Player.north,
        Vul.both,
        "N:KJT32.QT3.AK7.T3 Q.854.J9643.Q854 A97654.K96..AK62 8.AJ72.QT852.J97",
    ),
    (Player.west, Vul.ew, "N:KT9876.AQ.5.KQ65 54.J982.QT9.T983 AQJ32.K543.A63.4 .T76.KJ8742.AJ72"),
    (Player.east, Vul.ns, "N:KQT64.J5.A63.QJ5 7.432.KQJ98.T874 AJ932.KT8.T.A962 85.AQ976.7542.K3"),
    (
        Player.west,
        Vul.none,
        "N:J643.93.K9543.T7 75.QJT42.AJ6.KQ2 KQT92.76.QT82.43 A8.AK85.7.AJ9865",
    ),
    (Player.west, Vul.ew, "N:A54.Q7.AK75.K732 KT96.3.JT98643.4 73.AK952.Q2.AJ86 QJ82.JT864..QT95"),
]


def _auctions(spec: str) -> tuple[list[BoardDeal], list[tuple[Bid, ...]]]:
    deals = [
        BoardDeal(number=i + 1, dealer=dealer, vul=vul, deal=Deal(pbn))
        for i, (dealer, vul, pbn) in enumerate(ASK_DEALS)
    ]
    agents = [make_agent(spec, seed) for seed in range(4)]
    try:
        return deals, bid_room(deals, agents, "open")
    finally:
        for a in agents:
            a.close()


def _estimate(deal: BoardDeal, auction: Sequence[Bid]) -> tuple[np.ndarray, np.ndarray]:
    found = estimator_dir(LAYERED)
    assert found is not None
    seat = Player((deal.dealer.value + len(auction)) % 4)
    view = bidding_view(deal.dealer, deal.vul, deal.deal[seat], tuple(auction), deal.number)
    p12, p13 = slam_probs(SlamEstimator(found).logits(encode(view)[None, :]))
    return p12[0], p13[0]


def _control_call(deal: BoardDeal, auction: Sequence[Bid]) -> int:
    """The asker's call after the answer that ends ``auction``, computed from the two shipped
    estimators directly."""
    found = estimator_dir(LAYERED)
    assert found is not None
    before = auction[:-4]
    seat = Player((deal.dealer.value + len(auction)) % 4)
    x = encode(bidding_view(deal.dealer, deal.vul, deal.deal[seat], tuple(before), deal.number))
    p12, _ = slam_probs(SlamEstimator(found).logits(x[None, :]))
    suit = A.best_suit(p12[0], A.STRAINS)
    answer = bid_index(auction[-2])
    c12, c13 = ControlEstimator(found / CONTROLS_DIR).chances(
        x[None, :], np.array([answer - A.FIVE_C])
    )
    level = A.ControlRule().level(float(c12[0, suit]), float(c13[0, suit]))
    return A.control_call(level, suit, answer)


#: Per convention: the answer of a hand, the asker's decision (computed here from the
#: shipped estimators directly), the least number of asks on ASK_DEALS.
PLAYS = {
    "controls=on": (
        lambda hand: A.FIVE_C + int(A.control_step(A.controls(hand))),
        lambda deal, auction, hand: _control_call(deal, auction),
        1,
    ),
}


@pytest.mark.parametrize(
    ("agent", "convention"),
    [(a, "controls=on") for a in ("default", "search")],
)
def test_the_shipped_pair_plays_the_convention_through(agent: str, convention: str) -> None:
    answer, decision, least = PLAYS[convention]
    deals, auctions = _auctions(layered(f"{agent},{convention}"))
    asks = 0
    for deal, auction in zip(deals, auctions, strict=True):
        calls = [bid_index(c) for c in auction]
        for i in range(len(calls)):
            hand = hand_to_array(deal.deal[Player((deal.dealer.value + i) % 4)])
            what = A.role(calls[:i])
            if what == "answer":
                assert calls[i] == answer(hand), (deal.number, auction)
            elif what == "pass":
                assert calls[i] == 0, (deal.number, auction)
            elif what == "decide":
                assert calls[i] == decision(deal, auction[:i], hand), (deal.number, auction)
            asks += A.is_ask(calls, i)
    assert asks >= least, auctions


def test_control_asking_is_on_by_default_and_can_be_turned_off() -> None:
    _, auctions = _auctions(layered("default"))
    assert auctions == _auctions(layered("default,controls=on"))[1]
    assert auctions != _auctions(layered("default,controls=off"))[1]


@pytest.mark.parametrize("double", [False, True])
def test_the_responder_answers_a_doubled_ask(double: bool) -> None:
    # West doubles North's 4NT: South's side holds a doubled contract, where `default` hands the
    # call to its search; the answer is the convention's all the same.
    hand = Hand("AQJ32.K543.A63.4")  # two aces and a king: 5 controls
    auction = tuple(Bid(c) for c in ["1S", "Pass", "3S", "Pass", "4NT", "X" if double else "Pass"])
    with make_agent(layered("default"), 1) as agent:
        agent.reset(1)
        call = agent.bid(bidding_view(Player.north, Vul.none, hand, auction, 1))
    assert call == Bid("5NT")
    assert doubled_against_caller(auction) is double  # both of `default`'s routes are covered


def test_alerts_explain_the_convention_only_where_the_bot_plays_it() -> None:
    policy = Policy(LAYERED)
    answered = [Bid(c) for c in ["1S", "Pass", "3S", "Pass", "4NT", "Pass"]]
    off = Explainer(policy, target=100, max_hands=1024)
    text = off.alert(Player.north, Vul.none, answered, Bid("5D"))
    assert text is None or "Control" not in text
    on = Explainer(policy, target=100, max_hands=1024, conventions=A.CONTROLS)
    assert on.alert(Player.north, Vul.none, answered, Bid("5D")) == "Control answer, 2 controls."


def _convention(agent: object) -> ControlAsking | None:
    """The asking convention an agent says it plays (its parts' convention layer)."""
    found = layer_of(parts_of(agent), ConventionLayer)
    return None if found is None else found.convention


def test_agent_asks_follows_the_option() -> None:
    for spec, expected in [
        (layered("default"), "controls"),  # the model has the control estimator
        (layered("default,controls=off"), None),
        (layered("default,controls=on"), "controls"),
        (layered("default,slams=off"), None),  # it reads the slam estimator: none, no convention
        (layered("default,doubles=on"), "controls"),
        (layered("search"), "controls"),
        (f"policy:{LAYERED}/policy.onnx,controls=off", None),
        ("default", None),  # the shipped model is a policy alone: no slam estimator
        ("bfg", None),
    ]:
        with make_agent(spec) as agent:
            assert parts_of(agent).convention is expected, spec


@pytest.mark.parametrize(
    ("agent", "plays"),
    [("default", True), ("default,controls=off", False), ("default,slams=off", False)],
)
def test_explain_command_reads_the_convention_of_its_agent(
    agent: str, plays: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["explain", "1S P 3S P 4NT P 5H", "--agent", layered(agent), "--hands", "1024"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    ask = "4NT: Control ask: asks for controls (ace 2, king 1) (artificial)"
    assert (lines[4] == ask) is plays, lines[4]
    assert (lines[6] == "5H: Control answer, 3 controls (artificial)") is plays, lines[6]


# -- control asking --------------------------------------------------------------------------------


def test_controls_count_aces_two_and_kings_one_in_seven_steps() -> None:
    hand = hand_to_array(Hand("AK32.K5.A63.432"))  # two aces, two kings: 6
    assert int(A.controls(hand)) == 6
    assert A.control_step(np.arange(13)).tolist() == [0, 0, 1, 2, 3, 4, 5, 6, 6, 6, 6, 6, 6]
    texts = [A.meaning(_calls("1S P 3S P 4NT P"), A.FIVE_C + k) for k in range(8)]
    assert texts[:7] == [
        f"Control answer, {shown}"
        for shown in ("0-1 controls", "2 controls", "3 controls", "4 controls", "5 controls",
                      "6 controls", "7 or more controls")
    ]  # fmt: skip
    assert texts[7] is None  # 6H: above the answers
    assert A.meaning(_calls("1S P 3S P"), _idx("4NT")) == (
        "Control ask: asks for controls (ace 2, king 1)"
    )
    assert A.meaning(_calls("1NT P"), _idx("4NT")) is None  # no suit of ours: not the ask


@pytest.mark.parametrize(
    ("auction", "expected"),
    [
        ("1S P 3S P 4NT P 5NT P", "decide"),  # 5 controls
        ("1S P 3S P 4NT P 6D P", "decide"),
        ("1S P 3S P 4NT P 5D P", "decide"),
        ("1S P 3S P 4NT P 6C P 6S P", "pass"),
        ("1S P 3S P 4NT P 6H P", None),  # above the answers: no say
    ],
)
def test_the_control_answers_reach_6d(auction: str, expected: str | None) -> None:
    assert A.role(_calls(auction)) == expected


@pytest.mark.parametrize(
    ("level", "suit", "answer", "expected"),
    [
        (5, 3, "5H", "5S"),  # stop: five of the suit, above the answer
        (5, 3, "5S", "Pass"),  # the answer is the suit at five
        (5, 2, "5NT", "6H"),  # the answer passed five hearts: the small slam all the same
        (5, 4, "5S", "5NT"),  # a stop in notrump
        (6, 0, "6C", "Pass"),
        (6, 3, "6D", "6S"),
        (7, 1, "6D", "7D"),
    ],
)
def test_the_asker_bids_the_level_it_wants(
    level: int, suit: int, answer: str, expected: str
) -> None:
    assert ALL_CALLS[A.control_call(level, suit, _idx(answer))] == Bid(expected)


def test_the_asker_asks_only_where_every_answer_leaves_its_level() -> None:
    # Spades: stops wanted after 0-4 controls (answers 5C-5S), slams after 5+ (5NT-6D): fine.
    assert A.control_can_ask(3, 4, [5, 5, 5, 5, 6, 6, 6])
    # A stop wanted after 5 controls, whose answer (5NT) is above 5S: no ask.
    assert not A.control_can_ask(3, 4, [5, 5, 5, 5, 5, 6, 6])
    # Clubs: the 7+ answer (6D) passes 6C; with 6 controls of one's own partner cannot hold 7.
    assert not A.control_can_ask(0, 4, [5, 6, 6, 6, 6, 6, 6])
    assert A.control_can_ask(0, 6, [5, 6, 6, 6, 6, 6, 6])
    # A stop wanted after 2 controls (5D) is out of reach in clubs, unless partner cannot hold
    # 2 (the asker's own 11 of the 12 leave it 1 at most).
    assert not A.control_can_ask(0, 6, [5, 5, 6, 6, 6, 6, 6])
    assert A.control_can_ask(0, 11, [5, 5, 6, 6, 6, 6, 6])
    with pytest.raises(ValueError, match="control rule"):
        A.ControlRule(ask=0.7, ask_high=0.6)


@pytest.mark.parametrize(
    ("spec", "section"),
    [
        ("default,aces=on", "Ace asking (`aces=on`, `engine/aces.py`)"),
        ("search,ace_direct=0.9", "Ace asking (`aces=on`, `engine/aces.py`)"),
        ("default,controls_dd=64", "Control asking (`controls`, `engine/aces.py`; on in the"),
    ],
)
def test_removed_options_fail_naming_where_their_measurement_stays(spec: str, section: str) -> None:
    with pytest.raises(AgentSpecError) as caught:
        AgentSpec.parse(spec)
    line = str(caught.value)
    assert "\n" not in line and "removed" in line and section in line, line
    named = line.split('docs/evaluation.md, "')[1].rstrip('"')
    headings = (ROOT / "docs" / "evaluation.md").read_text().splitlines()
    assert f"### {named}" in headings, named


def test_control_alerts_and_explain_name_the_steps(capsys: pytest.CaptureFixture[str]) -> None:
    policy = Policy(LAYERED)
    auction = [Bid(c) for c in ["1S", "Pass", "3S", "Pass", "4NT", "Pass"]]
    on = Explainer(policy, target=100, max_hands=1024, conventions=A.CONTROLS)
    assert on.alert(Player.north, Vul.none, auction, Bid("5NT")) == "Control answer, 5 controls."
    assert (
        main(
            [
                "explain",
                "1S P 3S P 4NT P 6C",
                "--agent",
                layered("default,controls=on"),
                "--hands",
                "1024",
            ]
        )
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[4] == "4NT: Control ask: asks for controls (ace 2, king 1) (artificial)", lines
    assert lines[6] == "6C: Control answer, 6 controls (artificial)", lines


def test_control_asking_without_its_estimator_is_refused(tmp_path: Path) -> None:
    import shutil

    model = tmp_path / "model"
    shutil.copytree(LAYERED, model)
    shutil.rmtree(model / "slam" / CONTROLS_DIR)
    with pytest.raises(AgentSpecError, match="partner-controls"):
        make_agent(f"default:{model},controls=on")
    # The shipped model is a policy alone: no slam estimator for the convention to sit beside.
    with pytest.raises(AgentSpecError, match="controls=on needs the slam estimator"):
        make_agent("default,controls=on")
    with make_agent("default,controls=off") as agent:
        assert parts_of(agent).convention is None


def test_estimates_that_ignore_their_doubles_read_them_as_passes() -> None:
    """``their_doubles=ignore`` (the default): both shipped estimators, on observations where
    the opponents doubled, give what they give where those doubles were passes; where only our
    side doubled, what they give reading them. The agent option reaches both."""
    from bridgebot.engine.features import without_their_doubles

    found = estimator_dir(LAYERED)
    assert found is not None
    dealer, hand = Player.north, Hand("AKQ2.KQ43.A63.A4")
    theirs = [Bid(c) for c in ("1S", "X", "2S", "X")]  # East and West double
    ours = [Bid(c) for c in ("Pass", "1D", "X", "2C")]  # we (North) double
    x = np.stack(
        [encode(bidding_view(dealer, Vul.none, hand, tuple(a), 1)) for a in (theirs, ours)]
    )
    blind, read = SlamEstimator(found, their_doubles=False), SlamEstimator(found)
    assert np.array_equal(blind.logits(x), read.logits(without_their_doubles(x)))
    assert not np.allclose(blind.logits(x[:1]), read.logits(x[:1]))
    assert np.array_equal(blind.logits(x[1:]), read.logits(x[1:]))
    steps = np.array([3, 4])
    c_blind = ControlEstimator(found / CONTROLS_DIR, their_doubles=False)
    c_read = ControlEstimator(found / CONTROLS_DIR)
    assert np.array_equal(
        c_blind.chances(x, steps)[0], c_read.chances(without_their_doubles(x), steps)[0]
    )
    for spec, reads in (
        ("default", False),
        ("search", False),
        ("default,their_doubles=read", True),
    ):
        with make_agent(layered(spec), 1) as agent:
            convention = _convention(agent)
            assert isinstance(convention, ControlAsking), spec
            assert convention.estimator.their_doubles is reads, spec
            assert convention.controls.their_doubles is reads, spec
    with pytest.raises(AgentSpecError, match="their_doubles"):
        make_agent("default,their_doubles=maybe", 1)
