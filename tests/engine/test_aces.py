"""The ace-asking convention (engine.aces, the agents' ``aces=on``): its rules on auctions, and the
shipped agents playing it at a table, as asker, as responder, and where an opponent doubles the
ask."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine import aces as A
from bridgebot.engine.agent import bidding_view
from bridgebot.engine.explain import Explainer
from bridgebot.engine.features import encode, hand_to_array
from bridgebot.engine.parts import layer_of, parts_of
from bridgebot.engine.policy import Policy
from bridgebot.engine.slams import SlamEstimator, estimator_dir, slam_probs
from bridgebot.laws.boards import BoardDeal
from bridgebot.laws.calls import ALL_CALLS, bid_index, doubled_against_caller
from bridgebot.tournament.ddmatch import bid_room
from endplay.types import Bid, Deal, Hand, Player, Vul

from bridgebot.agents import AgentSpecError, make_agent
from bridgebot.cli import main
from bridgebot.shipped import DEFAULT_MODEL_DIR


def _calls(text: str) -> list[int]:
    return [bid_index(Bid(c)) for c in text.split()]


def _idx(call: str) -> int:
    return bid_index(Bid(call))


# -- the rules -------------------------------------------------------------------------------------


def test_answers_count_aces_in_steps() -> None:
    assert [ALL_CALLS[A.answer(k)] for k in range(5)] == [
        Bid(c) for c in ["5C", "5D", "5H", "5S", "5C"]
    ]
    assert A.shown(_idx("5C"), asker_aces=0) == 4  # 0 or 4: the asker's own aces tell which
    assert A.shown(_idx("5C"), asker_aces=1) == 0
    assert A.shown(_idx("5H"), asker_aces=1) == 2


def test_the_asker_needs_a_sign_off_below_every_bad_answer() -> None:
    # With no ace, the answer showing two (5H) must leave 5 of the suit: hearts or spades only.
    assert [A.can_ask(s, 0) for s in range(4)] == [False, False, True, True]
    assert [A.can_ask(s, 1) for s in range(4)] == [False, True, True, True]
    assert all(A.can_ask(s, own) for s in range(4) for own in (2, 3, 4))


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


RULE = A.AskRule(ask=0.5, one_missing=0.55, grand=0.22)


@pytest.mark.parametrize(
    ("auction", "own", "p12", "p13", "expected"),
    [
        # Two aces missing: the sign-off at five, or a pass where the answer is the suit.
        ("1S P 3S P 4NT P 5C P", 2, 0.6, 0.1, "5S"),
        ("1S P 3S P 4NT P 5D P", 1, 0.6, 0.1, "5S"),
        ("1H P 3H P 4NT P 5H P", 0, 0.6, 0.1, "Pass"),
        # One missing: the small slam from ``one_missing`` up, else the sign-off.
        ("1S P 3S P 4NT P 5D P", 2, 0.6, 0.1, "6S"),
        ("1S P 3S P 4NT P 5D P", 2, 0.5, 0.1, "5S"),
        # All four: the grand from ``grand`` up, else the small slam.
        ("1S P 3S P 4NT P 5H P", 2, 0.6, 0.3, "7S"),
        ("1S P 3S P 4NT P 5H P", 2, 0.6, 0.1, "6S"),
        ("1S P 3S P 4NT P 5C P", 0, 0.6, 0.1, "6S"),  # 5C with no ace of one's own shows four
    ],
)
def test_the_asker_decides_by_aces_and_its_estimate(
    auction: str, own: int, p12: float, p13: float, expected: str
) -> None:
    calls = _calls(auction)
    suit = auction.split()[0][1]  # the opened suit is the best one
    other = "H" if suit == "S" else "S"
    chances = {suit: p12, other: p12 - 0.1}
    call = A.decide(calls, own, _chances(**chances), _chances(**{suit: p13}), RULE)
    assert ALL_CALLS[call] == Bid(expected)


def test_a_sign_off_above_the_answer_goes_to_the_best_suit_still_open() -> None:
    # Clubs estimated best, but partner's 5H answer is above 5C: sign off in spades, next best.
    calls = _calls("1C P 1S P 3C P 4NT P 5H P")
    p12 = _chances(C=0.6, D=0.1, H=0.2, S=0.4)
    assert ALL_CALLS[A.decide(calls, 0, p12, _chances(), RULE)] == Bid("5S")


def test_the_seat_asks_only_in_its_zone() -> None:
    calls = _calls("1S P 3S P")
    p12 = _chances(S=0.55)
    assert A.wants_ask(calls, _idx("4S"), 4, True, 2, p12, RULE)
    assert not A.wants_ask(calls, _idx("4S"), 4, True, 2, _chances(S=0.45), RULE)
    assert not A.wants_ask(calls, _idx("4S"), 4, False, 2, p12, RULE)  # not our contract
    assert not A.wants_ask(calls, _idx("3NT"), 2, True, 2, p12, RULE)  # below the zone
    assert not A.wants_ask(_calls("1NT P 3NT P"), _idx("Pass"), 3, True, 2, p12, RULE)
    assert not A.wants_ask(_calls("1S P 3S P 5C P"), _idx("5S"), 5, True, 2, p12, RULE)
    # With no ace, only where the two-ace answer (5H) leaves a sign-off: not in diamonds.
    assert not A.wants_ask(_calls("1D P 3D P"), _idx("5D"), 5, True, 0, _chances(D=0.6), RULE)


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
    out = A.veto_own_ask([_view("1S P 3S P")], np.array([_idx("4NT")]), mask, logits)
    assert out.tolist() == [_idx("4S")]
    # No suit of ours yet: 4NT is not the ask, and stands.
    out = A.veto_own_ask([_view("1NT P")], np.array([_idx("4NT")]), mask, logits)
    assert out.tolist() == [_idx("4NT")]
    # Without the policy's logits there is nothing to choose from: the call stands.
    assert A.veto_own_ask([_view("1S P 3S P")], np.array([_idx("4NT")]), None, None).tolist() == [
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
    reach = A.Reach(
        np.array([0]), np.array([True]), np.array([level]), np.array([strain]), p12, p13
    )
    A.veto_direct(out, reach, mask, logits, direct)
    assert out.tolist() == [_idx(expected)]


def test_ace_direct_is_an_agent_option() -> None:
    convention = _convention(make_agent("default,aces=on,ace_direct=0.9"))
    assert isinstance(convention, A.AceAsking)
    assert convention.rule.direct == 0.9
    assert _convention(make_agent("default,aces=on")).rule == A.AskRule()  # type: ignore[union-attr]
    with pytest.raises(AgentSpecError):
        make_agent("default,aces=on,ace_direct=2")


def test_meaning_names_the_ask_and_the_answers() -> None:
    calls = _calls("1S P 3S P")
    assert A.meaning(calls, _idx("4NT")) == "Blackwood, asks for aces"
    assert A.meaning([*calls, _idx("4NT"), 0], _idx("5C")) == "Blackwood answer, 0 or 4 aces"
    assert A.meaning([*calls, _idx("4NT"), 0], _idx("5D")) == "Blackwood answer, 1 ace"
    assert A.meaning([*calls, _idx("4NT"), 0], _idx("5S")) == "Blackwood answer, 3 aces"
    assert A.meaning([*calls, _idx("4NT"), 0], _idx("5NT")) is None
    assert A.meaning(_calls("1NT P"), _idx("4NT")) is None
    with pytest.raises(ValueError, match="ask rule"):
        A.AskRule(ask=0.7, ask_high=0.6)


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
    found = estimator_dir(DEFAULT_MODEL_DIR)
    assert found is not None
    seat = Player((deal.dealer.value + len(auction)) % 4)
    view = bidding_view(deal.dealer, deal.vul, deal.deal[seat], tuple(auction), deal.number)
    p12, p13 = slam_probs(SlamEstimator(found).logits(encode(view)[None, :]))
    return p12[0], p13[0]


def _control_call(deal: BoardDeal, auction: Sequence[Bid]) -> int:
    """The asker's call after the answer that ends ``auction``, computed from the two shipped
    estimators directly."""
    found = estimator_dir(DEFAULT_MODEL_DIR)
    assert found is not None
    before = auction[:-4]
    seat = Player((deal.dealer.value + len(auction)) % 4)
    x = encode(bidding_view(deal.dealer, deal.vul, deal.deal[seat], tuple(before), deal.number))
    p12, _ = slam_probs(SlamEstimator(found).logits(x[None, :]))
    suit = A.best_suit(p12[0], A.STRAINS)
    answer = bid_index(auction[-2])
    c12, c13 = A.ControlEstimator(found / A.CONTROLS_DIR).chances(
        x[None, :], np.array([answer - A.FIVE_C])
    )
    level = A.ControlRule().level(float(c12[0, suit]), float(c13[0, suit]))
    return A.control_call(level, suit, answer)


def _ace_decision(deal: BoardDeal, auction: Sequence[Bid], hand: np.ndarray) -> int:
    p12, p13 = _estimate(deal, auction[:-4])
    calls = [bid_index(c) for c in auction]
    return A.decide(calls, A.aces(hand), p12, p13, A.AskRule())


#: Per convention: its name, the answer of a hand, the asker's decision (computed here from the
#: shipped estimators directly), the least number of asks on ASK_DEALS.
PLAYS = {
    "aces=on": (A.ACES, lambda hand: A.answer(A.aces(hand)), _ace_decision, 2),
    "controls=on": (
        A.CONTROLS,
        lambda hand: A.FIVE_C + int(A.control_step(A.controls(hand))),
        lambda deal, auction, hand: _control_call(deal, auction),
        1,
    ),
}


@pytest.mark.parametrize(
    ("agent", "convention"),
    [(a, c) for a in ("default", "search") for c in ("aces=on", "controls=on")],
)
def test_the_shipped_pair_plays_the_convention_through(agent: str, convention: str) -> None:
    scheme, answer, decision, least = PLAYS[convention]
    deals, auctions = _auctions(f"{agent},{convention}")
    asks = 0
    for deal, auction in zip(deals, auctions, strict=True):
        calls = [bid_index(c) for c in auction]
        for i in range(len(calls)):
            hand = hand_to_array(deal.deal[Player((deal.dealer.value + i) % 4)])
            what = A.role(calls[:i], scheme)
            if what == "answer":
                assert calls[i] == answer(hand), (deal.number, auction)
            elif what == "pass":
                assert calls[i] == 0, (deal.number, auction)
            elif what == "decide":
                assert calls[i] == decision(deal, auction[:i], hand), (deal.number, auction)
            asks += A.is_ask(calls, i)
    assert asks >= least, auctions


def test_ace_asking_is_off_by_default() -> None:
    _, auctions = _auctions("default")
    _, with_it = _auctions("default,aces=on")
    assert auctions != with_it  # the pair bids differently where it asks


def test_control_asking_is_on_by_default_and_can_be_turned_off() -> None:
    _, auctions = _auctions("default")
    assert auctions == _auctions("default,controls=on")[1]
    assert auctions != _auctions("default,controls=off")[1]


@pytest.mark.parametrize("double", [False, True])
def test_the_responder_answers_a_doubled_ask(double: bool) -> None:
    # West doubles North's 4NT: South's side holds a doubled contract, where `default` hands the
    # call to its search; the answer is the convention's all the same.
    hand = Hand("AQJ32.K543.A63.4")  # two aces
    auction = tuple(Bid(c) for c in ["1S", "Pass", "3S", "Pass", "4NT", "X" if double else "Pass"])
    with make_agent("default,aces=on", 1) as agent:
        agent.reset(1)
        call = agent.bid(bidding_view(Player.north, Vul.none, hand, auction, 1))
    assert call == Bid("5H")
    assert doubled_against_caller(auction) is double  # both of `default`'s routes are covered


def test_alerts_explain_the_convention_only_where_the_bot_plays_it() -> None:
    policy = Policy(DEFAULT_MODEL_DIR)
    auction = [Bid(c) for c in ["1S", "Pass", "3S", "Pass"]]
    on = Explainer(policy, target=100, max_hands=1024, conventions=A.ACES)
    assert on.alert(Player.north, Vul.none, auction, Bid("4NT")) == "Blackwood, asks for aces."
    answered = [*auction, Bid("4NT"), Bid("Pass")]
    assert on.alert(Player.north, Vul.none, answered, Bid("5D")) == "Blackwood answer, 1 ace."
    (e,) = on.explain(Player.north, Vul.none, [*answered, Bid("5D")], seats=[Player.south])[-1:]
    assert e.text() == "5D: Blackwood answer, 1 ace (artificial)"
    off = Explainer(policy, target=100, max_hands=1024)
    text = off.alert(Player.north, Vul.none, answered, Bid("5D"))
    assert text is None or "Blackwood" not in text


def _convention(agent: object) -> A.Convention | None:
    """The asking convention an agent says it plays (its parts' convention layer)."""
    found = layer_of(parts_of(agent), A.ConventionLayer)
    return None if found is None else found.convention


def test_agent_asks_follows_the_option() -> None:
    for spec, expected in [
        ("default", "controls"),  # the shipped model has the control estimator
        ("default,controls=off", None),
        ("default,aces=on", "aces"),
        ("default,aces=on,slams=off", None),  # it reads the slam estimator: none, no convention
        ("search,aces=on", "aces"),
        ("default,aces=on,doubles=on", "aces"),
        ("default,controls=on", "controls"),
        ("search", "controls"),
        ("policy:models/default/policy.onnx,controls=off", None),
        ("bfg", None),
    ]:
        with make_agent(spec) as agent:
            assert parts_of(agent).convention is expected, spec


@pytest.mark.parametrize(
    ("agent", "blackwood"),
    [("default,aces=on", True), ("default", False), ("default,aces=on,slams=off", False)],
)
def test_explain_command_reads_the_convention_of_its_agent(
    agent: str, blackwood: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explain", "1S P 3S P 4NT P 5H", "--agent", agent, "--hands", "1024"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert (lines[4] == "4NT: Blackwood, asks for aces (artificial)") is blackwood, lines[4]
    assert (lines[6] == "5H: Blackwood answer, 2 aces (artificial)") is blackwood, lines[6]


# -- control asking --------------------------------------------------------------------------------


def test_controls_count_aces_two_and_kings_one_in_seven_steps() -> None:
    hand = hand_to_array(Hand("AK32.K5.A63.432"))  # two aces, two kings: 6
    assert int(A.controls(hand)) == 6
    assert A.control_step(np.arange(13)).tolist() == [0, 0, 1, 2, 3, 4, 5, 6, 6, 6, 6, 6, 6]
    texts = [A.meaning(_calls("1S P 3S P 4NT P"), A.FIVE_C + k, A.CONTROLS) for k in range(8)]
    assert texts[:7] == [
        f"Control answer, {shown}"
        for shown in ("0-1 controls", "2 controls", "3 controls", "4 controls", "5 controls",
                      "6 controls", "7 or more controls")
    ]  # fmt: skip
    assert texts[7] is None  # 6H: above the answers
    assert A.meaning(_calls("1S P 3S P"), _idx("4NT"), A.CONTROLS) == (
        "Control ask: asks for controls (ace 2, king 1)"
    )
    assert A.meaning(_calls("1S P 3S P 4NT P"), _idx("5NT"), A.ACES) is None  # no ace answer


@pytest.mark.parametrize(
    ("auction", "aces", "controls"),
    [
        ("1S P 3S P 4NT P 5NT P", None, "decide"),  # 5 controls: an answer only here
        ("1S P 3S P 4NT P 6D P", None, "decide"),
        ("1S P 3S P 4NT P 5D P", "decide", "decide"),
        ("1S P 3S P 4NT P 6C P 6S P", None, "pass"),
        ("1S P 3S P 4NT P 6H P", None, None),  # above the answers: no say
    ],
)
def test_the_control_answers_reach_6d(auction: str, aces: str | None, controls: str | None) -> None:
    assert A.role(_calls(auction), A.ACES) == aces
    assert A.role(_calls(auction), A.CONTROLS) == controls


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


def test_both_conventions_at_once_are_refused() -> None:
    with pytest.raises(AgentSpecError, match="aces=on and controls=on"):
        make_agent("default,aces=on,controls=on")


def test_control_alerts_and_explain_name_the_steps(capsys: pytest.CaptureFixture[str]) -> None:
    policy = Policy(DEFAULT_MODEL_DIR)
    auction = [Bid(c) for c in ["1S", "Pass", "3S", "Pass", "4NT", "Pass"]]
    on = Explainer(policy, target=100, max_hands=1024, conventions=A.CONTROLS)
    assert on.alert(Player.north, Vul.none, auction, Bid("5NT")) == "Control answer, 5 controls."
    assert (
        main(["explain", "1S P 3S P 4NT P 6C", "--agent", "default,controls=on", "--hands", "1024"])
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[4] == "4NT: Control ask: asks for controls (ace 2, king 1) (artificial)", lines
    assert lines[6] == "6C: Control answer, 6 controls (artificial)", lines


def test_control_asking_without_its_estimator_is_refused(tmp_path: Path) -> None:
    import shutil

    model = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL_DIR, model)
    shutil.rmtree(model / "slam" / A.CONTROLS_DIR)
    with pytest.raises(AgentSpecError, match="partner-controls"):
        make_agent(f"default:{model},controls=on")


def test_estimates_that_ignore_their_doubles_read_them_as_passes() -> None:
    """``their_doubles=ignore`` (the default): both shipped estimators, on observations where
    the opponents doubled, give what they give where those doubles were passes; where only our
    side doubled, what they give reading them. The agent option reaches both."""
    from bridgebot.engine.features import without_their_doubles

    found = estimator_dir(DEFAULT_MODEL_DIR)
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
    c_blind = A.ControlEstimator(found / A.CONTROLS_DIR, their_doubles=False)
    c_read = A.ControlEstimator(found / A.CONTROLS_DIR)
    assert np.array_equal(
        c_blind.chances(x, steps)[0], c_read.chances(without_their_doubles(x), steps)[0]
    )
    for spec, reads in (
        ("default", False),
        ("search", False),
        ("default,their_doubles=read", True),
    ):
        with make_agent(spec, 1) as agent:
            convention = _convention(agent)
            assert isinstance(convention, A.ControlAsking), spec
            assert convention.estimator.their_doubles is reads, spec
            assert convention.controls.their_doubles is reads, spec
    with pytest.raises(AgentSpecError, match="their_doubles"):
        make_agent("default,their_doubles=maybe", 1)


class _CountingSolver:
    """The real solver, with the deals it was asked about kept."""

    def __init__(self) -> None:
        from bridgebot.engine.search import SolverOracle

        self.solver = SolverOracle()
        self.asked: list[np.ndarray] = []

    def tricks(self, owners: np.ndarray, declarer: np.ndarray, strain: np.ndarray) -> np.ndarray:
        self.asked.append(np.array(owners))
        return self.solver.tricks(owners, declarer, strain)


def _belief() -> A.ObservationSampler:
    from bridgebot.engine.belief import BeliefNet, BeliefSampler

    from bridgebot.shipped import shipped_model

    return BeliefSampler(BeliefNet(shipped_model("belief")))


def _asker(hand: str, auction: str) -> tuple[np.ndarray, np.ndarray]:
    """The asker's observation before its 4NT (North, dealer) and its hand."""
    calls = [Bid(c) for c in auction.split()]
    view = bidding_view(Player.north, Vul.none, Hand(hand), calls, 1)
    return encode(view)[None, :], hand_to_array(view.hand)


def test_a_deal_check_solves_only_deals_where_partner_holds_the_answer_and_repeats() -> None:
    x, hand = _asker("AKQ73.KQ4.A2.K52", "1S P 3S P")
    solver = _CountingSolver()
    check = A.DealCheck(_belief(), solver, particles=12, pool=400)
    first = check.chances(x, hand, step=2, strain=3)  # partner shows 3 controls
    assert first is not None and 0.0 <= first[1] <= first[0] <= 1.0
    deals, again = solver.asked  # the same deals, declared by each of our two seats
    assert (deals == again).all() and 0 < len(deals) <= 12
    assert (A.control_step(A.controls((deals == 2).astype(np.uint8))) == 2).all()
    assert (deals[:, hand == 1] == 0).all()  # our cards stay ours
    assert check.chances(x, hand, step=2, strain=3) == first  # seeded by what it decides on


def test_thirteen_trumps_make_the_grand_on_every_deal() -> None:
    x, hand = _asker("AKQJT98765432...", "1S P 3S P")
    check = A.DealCheck(_belief(), _CountingSolver(), particles=8, pool=400)
    assert check.chances(x, hand, step=1, strain=3) == (1.0, 1.0)


def test_controls_dd_is_an_agent_option_and_off_by_default() -> None:
    assert _convention(make_agent("default")).deals is None  # type: ignore[union-attr]
    checked = _convention(make_agent("default,controls_dd=8"))
    assert isinstance(checked, A.ControlAsking) and checked.deals is not None
    assert checked.deals.particles == 8
