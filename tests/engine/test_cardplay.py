"""Card play: the baseline's habits, the shortcuts, and the Monte Carlo player's choices."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.agent import Agent, BiddingView, PlayView
from bridgebot.engine.cardplay import (
    DDCardPlayer,
    baseline_card,
    equivalence_classes,
    play_deal,
    play_state,
)
from bridgebot.engine.dds import Position, solve_positions
from bridgebot.engine.random_agent import RandomAgent
from bridgebot.engine.worlds import Knowledge
from bridgebot.laws.calls import PASS, bid_index
from bridgebot.laws.cards import card_index
from bridgebot.laws.play import legal_cards
from bridgebot.protocol.table import TableBoard
from bridgebot.server.seat import SeatClient
from bridgebot.server.tm import TableManager
from endplay.types import Bid, Card, Contract, ContractBid, Deal, Denom, Hand, Player, Vul

from bridgebot.agents import with_card_player


def view_of(
    hand: str,
    played: list[tuple[Player, str]],
    seat: Player = Player.east,
    contract: str = "4SN",
    dummy: str | None = None,
    auction: tuple[Bid, ...] = (),
) -> PlayView:
    """A hand-made view (North deals, none vulnerable): the seat's cards, the play and auction."""
    h = Hand(hand)
    cards = [Card(c) for _, c in played]
    trick = cards[len(cards) - len(cards) % 4 :]
    return PlayView(
        seat=seat,
        controller=seat,
        dealer=Player.north,
        vul=Vul.none,
        auction=auction,
        contract=Contract(contract),
        hand=h,
        dummy=Hand(dummy) if dummy else None,
        played=tuple((p, Card(c)) for p, c in played),
        legal=legal_cards(h, trick),
    )


def test_baseline_wins_cheaply_when_partner_is_not_winning() -> None:
    view = view_of("AK2.Q3..T98765", [(Player.north, "C4")])
    assert baseline_card(view) == Card("C5")
    view = view_of("AK2.Q3..QT9876", [(Player.north, "CJ")])
    assert baseline_card(view) == Card("CQ")


def test_baseline_plays_low_under_partner_and_when_it_cannot_win() -> None:
    # West (East's partner) leads the king; North plays low; East plays low.
    view = view_of("AK2.Q3..QT9876", [(Player.west, "CK"), (Player.north, "C4")], seat=Player.east)
    assert baseline_card(view) == Card("C6")
    view = view_of("AK2.Q3..QT9876", [(Player.north, "CA")])
    assert baseline_card(view) == Card("C6")


def test_baseline_ruffs_cheaply_overruffs_and_discards_sparing_trumps() -> None:
    # Spades are trumps (4S by North). East is void in clubs and ruffs North's ace low.
    view = view_of("AK2.Q3.AKQJT98.", [(Player.north, "CA")])
    assert baseline_card(view) == Card("S2")
    # South, over East's S5 ruff of partner's lead: the cheapest trump that wins is the king.
    view = view_of(
        "AK4.Q3.AKQJT98.", [(Player.north, "C2"), (Player.east, "S5")], seat=Player.south
    )
    assert baseline_card(view) == Card("SK")
    # West, with partner East's ruff winning: a low side card, not a trump.
    view = view_of("AK4.Q3.AKQJT98.", [(Player.north, "CA"), (Player.east, "S5")], seat=Player.west)
    assert baseline_card(view) == Card("H3")


def test_baseline_leads_low_from_its_longest_suit() -> None:
    view = view_of("AK2.Q3.T9.QJ8765", [], seat=Player.east)
    assert baseline_card(view) == Card("C5")


def test_touching_cards_form_one_class_also_through_played_cards() -> None:
    hand = Hand("KJ3.AK..")
    queen_gone = {card_index(Card("SQ"))}
    classes = equivalence_classes(list(hand), list(hand), queen_gone)
    assert sorted(classes, key=lambda c: card_index(c[0])) == [
        [Card("SJ"), Card("SK")],  # lowest first: the card played for the class
        [Card("S3")],
        [Card("HK"), Card("HA")],
    ]
    # With the queen still out (or on the table in this trick), K and J are separate.
    classes = equivalence_classes(list(hand), list(hand), set())
    assert sorted(len(c) for c in classes) == [1, 1, 1, 2]


def test_forced_cards_are_played_without_solving() -> None:
    player = DDCardPlayer(worlds=2, lead_worlds=1)
    deal = Deal("N:AKQ2.J32.K54.Q32 JT9.AK4.QJT9.K54 8765.Q765.A3.AJ6 43.T98.8762.T987")
    seen: list[tuple[PlayView, Card, int]] = []

    def chooser(view: PlayView) -> Card:
        card = player.play(view)
        seen.append((view, card, player.last_solved))
        return card

    play_deal(deal, Contract("3NTS"), [chooser] * 4)
    singletons = [(v, c, n) for v, c, n in seen if len(v.legal) == 1]
    assert singletons and all(n == 0 and c == v.legal[0] for v, c, n in singletons)
    # The last trick is always forced; trick one is always searched (more than one class).
    assert all(n == 0 for v, _, n in seen if v.trick_no == 13)
    assert seen[0][2] == 1
    # Every decision with one class of cards (e.g. KQ alone in the led suit) was not searched.
    for v, c, n in seen:
        state = play_state(v)
        holding = v.dummy if v.seat != v.controller and v.dummy is not None else v.hand
        classes = equivalence_classes(list(holding), v.legal, set(state.gone_before))
        assert (n == 0) == (len(classes) == 1)
        assert c in v.legal


# Boards found by playing random deals with the baseline: at these points the hidden cards are
# fully determined by the play (voids), so the Monte Carlo player sees the one real world and must
# find the double-dummy best card.
DETERMINED = [
    ("N:K5.KJT962.A3.K84 AJ976.5.QT6.Q532 Q83.873.KJ9.JT96 T42.AQ4.87542.A7", "2SE", 40),
    ("N:62.AQ6.873.KQT85 KT4.KJT3.KJT9.J2 Q3.9542.Q542.A96 AJ9875.87.A6.743", "3NTS", 40),
    ("N:6.AK872.KQ.Q9873 Q3.Q64.J9875.AT5 KJT9852.J9.AT4.4 A74.T53.632.KJ62", "5DW", 37),
    ("N:AQ.AK32.K.K86432 T8.T5.JT753.AJ75 95432.Q74.A984.T KJ76.J986.Q62.Q9", "4HN", 39),
]


@pytest.mark.parametrize(("pbn", "contract", "at"), DETERMINED)
def test_a_fully_determined_position_gets_the_double_dummy_best_card(
    pbn: str, contract: str, at: int
) -> None:
    deal = Deal(pbn)
    views: list[PlayView] = []

    def chooser(view: PlayView) -> Card:
        views.append(view)
        return baseline_card(view)

    play_deal(deal, Contract(contract), [chooser] * 4)
    view = views[at]
    assert Knowledge.from_view(view).count() == 1
    state = play_state(view)
    owners = [-1] * 52
    for p in Player:
        for c in deal[p]:
            owners[card_index(c)] = p.value
    for i in state.gone_before:
        owners[i] = -1
    truth = solve_positions(
        [
            Position(
                tuple(owners),
                view.contract.denom.value,
                state.leader.value,
                tuple(card_index(c) for c in state.trick),
            )
        ]
    )[0]
    scores = {c: int(truth[card_index(c)]) for c in view.legal}
    assert len(set(scores.values())) > 1  # the choice matters here
    player = DDCardPlayer(worlds=3, seed=1)
    card = player.play(view)
    assert scores[card] == max(scores.values())
    assert player.last_solved == 1  # three draws of the one layout merge into one world


def test_making_the_contract_outweighs_overtricks() -> None:
    """Card A: 11 tricks in 3 worlds of 4 and 9 in the other; card B: 10 tricks always. In 4S
    the expected score prefers B (420 vs 325) although A averages more tricks; as a defender
    against the same contract the choice flips to the card that beats it most often."""
    view = view_of("AK2.Q3.T9.QJ8765", [], seat=Player.north, contract="4SN")
    state = play_state(view)
    player = DDCardPlayer()
    a, b = Card("C5"), Card("HQ")
    classes = [[a], [b]]
    tricks = np.full((4, 52), -1, dtype=np.int8)
    tricks[:, card_index(a)] = [11, 11, 11, 9]
    tricks[:, card_index(b)] = [10, 10, 10, 10]
    weights = np.full(4, 0.25)
    assert player._choose(view, state, classes, tricks, weights) == b
    defender = view_of("AK2.Q3.T9.QJ8765", [], seat=Player.east, contract="4SN")
    # Now the tricks are the defenders': A beats 4S in one world of four, B never does.
    tricks[:, card_index(a)] = [2, 2, 2, 4]
    tricks[:, card_index(b)] = [3, 3, 3, 3]
    assert player._choose(defender, state, classes, tricks, weights) == a


def test_a_whole_board_with_the_dd_player_is_legal_and_scored() -> None:
    deal = Deal("N:98763.83.96.AQT8 AK5.QT95.KT2.K64 Q42.KJ62.753.J93 JT.A74.AQJ84.752")
    player = DDCardPlayer(worlds=2, lead_worlds=1, seed=3, workers=0)
    tricks, played = play_deal(deal, Contract("4HE"), [player.play] * 4)
    assert len(played) == 52
    assert len({card_index(c) for _, c in played}) == 52
    assert 0 <= tricks <= 13
    # Same seed, same board: the same play (no time limit, so nothing depends on the clock).
    again = DDCardPlayer(worlds=2, lead_worlds=1, seed=3)
    assert play_deal(deal, Contract("4HE"), [again.play] * 4)[1] == played


def test_with_card_player_bids_like_the_agent_and_plays_like_the_player() -> None:
    class Recorder:
        name = "recorder"

        def __init__(self) -> None:
            self.boards: list[int] = []
            self.closed = False

        def reset(self, board: int) -> None:
            self.boards.append(board)

        def play(self, view: PlayView) -> Card:
            return view.legal[-1]

        def close(self) -> None:
            self.closed = True

    recorder = Recorder()
    agent = with_card_player(RandomAgent(seed=1, pass_bias=1.0), recorder)
    agent.reset(7)
    assert recorder.boards == [7]
    assert agent.name == "random+recorder"
    bview = BiddingView(
        seat=Player.north,
        dealer=Player.north,
        vul=Vul.none,
        hand=Hand("AK2.Q3.T9.QJ8765"),
        auction=(),
        board=1,
        legal=(PASS,),
    )
    call: Bid = agent.bid(bview)
    assert call == PASS
    view = view_of("AK2.Q3.T9.QJ8765", [], seat=Player.north)
    assert agent.play(view) == view.legal[-1]
    agent.close()
    assert recorder.closed


class ThreeNotrumpBidder(Agent):
    """The dealer bids 3NT and everyone passes after it: a fixed auction for a play test."""

    name = "3nt"

    def reset(self, board: int) -> None:
        return None

    def bid(self, view: BiddingView) -> Bid:
        return ContractBid(3, Denom.nt) if not view.auction else PASS

    def play(self, view: PlayView) -> Card:
        raise AssertionError("the card player decides the cards")


async def test_a_whole_board_through_a_real_table_manager(tmp_path: Path) -> None:
    """Four seat clients on 127.0.0.1, each an agent whose cards come from a DDCardPlayer; the
    table manager's record must be the board that the same players play without it."""
    deal = Deal("N:AKQ2.J32.K54.Q32 JT9.AK4.QJT9.K54 8765.Q765.A3.AJ6 43.T98.8762.T987")
    board = TableBoard(number=1, dealer=Player.north, vul=Vul.none, deal=deal.copy())

    def player(p: Player) -> DDCardPlayer:
        return DDCardPlayer(worlds=2, lead_worlds=1, seed=10 + p.value)

    tm = TableManager([board], tmp_path)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    agents = {p: with_card_player(ThreeNotrumpBidder(), player(p)) for p in Player}
    clients = [
        SeatClient(host, port, p, ("NS", "EW")[p.value % 2], agents[p], connect_retries=0)
        for p in Player
    ]
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    ((result,),) = await asyncio.wait_for(serving, 10)
    assert result.aborted is None
    assert str(result.contract).startswith("3NTN")
    assert len(result.play) == 52
    for agent in agents.values():
        agent.close()

    offline = {p: player(p) for p in Player}
    for p in offline.values():
        p.reset(1)
    tricks, played = play_deal(deal, Contract("3NTN"), [offline[p].play for p in Player])
    assert [(p, str(c)) for p, c in result.play] == [(p, str(c)) for p, c in played]
    assert result.declarer_tricks == tricks


# -- the double-dummy cost of played cards (engine.cardplay_cost) ---------------------------------

# 1NT by South, West on lead. West's spades AKQJ are the defence's only tricks: a spade lead
# cashes four of them; after a club lead declarer takes all 13 (clubs 4, hearts 4, diamonds 5)
# and never gives West the lead.
LEAD_DEAL = "N:5432.AKQJ.AKQJT. T9876.T98.98765. .765432.432.AKQJ AKQJ...T98765432"


def test_the_double_dummy_cost_of_a_known_opening_lead() -> None:
    from bridgebot.engine.cardplay_cost import dd_costs, side_costs
    from bridgebot.laws.cards import deal_owners

    owners, contract = deal_owners(LEAD_DEAL), Contract("1NTS")
    club = dd_costs(owners, contract, [(Player.west, Card("C2"))])[0]
    assert (club.seat, club.card, club.cost, club.forced) == (Player.west, Card("C2"), 4, False)
    spade_lead = [(Player.west, Card("SA")), (Player.north, Card("S2")), (Player.east, Card("S6"))]
    costs = dd_costs(owners, contract, spade_lead)
    spade = costs[0]
    assert spade.cost == 0
    # North's and East's spades are all as good as each other here: no cost, none forced.
    assert [(c.cost, c.forced) for c in costs[1:]] == [(0, False), (0, False)]
    assert side_costs(costs, contract.declarer) == {"declarer": 0, "defence": 0, "lead": 0}
    # Played out by the baseline, which leads low from West's longest suit. The costs add up:
    # declarer's tricks are the double-dummy 9 at the start, plus what the defence's cards gave
    # away (the club lead's 4 first), minus what declarer's cards gave back.
    tricks, played = play_deal(Deal(LEAD_DEAL), contract, [baseline_card] * 4)
    full = dd_costs(owners, contract, played)
    by_role = side_costs(full, contract.declarer)
    assert played[0] == (Player.west, Card("C2")) and by_role["lead"] == 4
    assert tricks == 9 + by_role["defence"] - by_role["declarer"]
    assert any(c.forced for c in full) and all(c.cost == 0 for c in full if c.forced)


def test_dd_costs_refuse_a_card_out_of_turn() -> None:
    from bridgebot.engine.cardplay_cost import dd_costs
    from bridgebot.laws.cards import deal_owners

    with pytest.raises(ValueError, match="out of turn"):
        dd_costs(deal_owners(LEAD_DEAL), Contract("1NTS"), [(Player.north, Card("S2"))])


# -- reading the auction in card play (engine.cardplay_auction) ------------------------------------


def test_a_defender_whose_partner_bid_spades_finds_them_there() -> None:
    """North 1H, South 2H, West 2S, North 4H: East on lead finds more spades with West in worlds
    weighed by the shipped policy's reading of the auction than in uniform ones."""
    from bridgebot.engine.cardplay_auction import AuctionReader
    from bridgebot.engine.policy import Policy
    from bridgebot.engine.worlds import sample_worlds

    from bridgebot.shipped import DEFAULT_MODEL_DIR

    h, s = Denom.hearts, Denom.spades
    auction = (ContractBid(1, h), PASS, ContractBid(2, h), ContractBid(2, s), ContractBid(4, h))
    view = view_of("32.9872.QJ92.432", [], contract="4HN", auction=(*auction, PASS, PASS, PASS))
    knowledge = Knowledge.from_view(view)
    reader = AuctionReader(Policy(DEFAULT_MODEL_DIR, threads=1))
    spades = np.array([card_index(Card(f"S{r}")) for r in "AKQJT98765432"])

    def west_spades(owners: np.ndarray, weights: np.ndarray) -> float:
        return float(weights @ (owners[:, spades] == Player.west.value).sum(axis=1))

    uniform = sample_worlds(knowledge, 200, np.random.default_rng(1))
    read = sample_worlds(knowledge, 200, np.random.default_rng(1), reader(view))
    at_random = west_spades(uniform.owners, uniform.weights)
    assert 3.0 < at_random < 4.3  # 11 spades unseen, over three hands of 13: 11/3 each
    assert west_spades(read.owners, read.weights) > 11 / 3 + 1.0
    # No auction, nothing to read.
    assert reader(dataclasses.replace(view, auction=())) is None


def test_the_auction_is_read_once_per_hand_and_reads_as_the_likelihood_does() -> None:
    """The reader's weights are the tempered product of each hidden seat's calls' likelihood
    (engine.likelihood), and a hand read for one card is not read again for the next."""
    from bridgebot.engine.cardplay_auction import AuctionReader
    from bridgebot.engine.likelihood import auction_log_likelihood
    from bridgebot.engine.policy import Policy
    from bridgebot.engine.worlds import sample_worlds

    from bridgebot.shipped import DEFAULT_MODEL_DIR

    class Counting:
        """The real policy, counting the rows it is asked for."""

        def __init__(self, policy: Policy) -> None:
            self.policy = policy
            self.rows = 0

        def logits(self, x: np.ndarray) -> np.ndarray:
            self.rows += len(x)
            return self.policy.logits(x)

    h, s = Denom.hearts, Denom.spades
    auction = (ContractBid(1, h), PASS, ContractBid(2, h), ContractBid(2, s), ContractBid(4, h))
    view = view_of("32.9872.QJ92.432", [], contract="4HN", auction=(*auction, PASS, PASS, PASS))
    policy = Counting(Policy(DEFAULT_MODEL_DIR, threads=1))
    reader = AuctionReader(policy, power=0.5)
    worlds = sample_worlds(Knowledge.from_view(view), 64, np.random.default_rng(3)).owners
    weights = reader(view)(worlds)
    history = np.array([bid_index(c) for c in view.auction], dtype=np.int64)
    east = Player.east.value
    west, theirs = {Player.west.value}, {Player.north.value, Player.south.value}
    direct = 0.5 * (
        auction_log_likelihood(policy.policy, worlds, 0, 0, history, east, west, 0.05)
        + auction_log_likelihood(policy.policy, worlds, 0, 0, history, east, theirs, 0.2)
    )
    assert np.allclose(weights, np.exp(direct - direct.max()), rtol=1e-5, atol=1e-9)
    rows = policy.rows
    assert rows > 0
    again = reader(view)(worlds[::-1])  # the same hands, asked for again, in another order
    assert policy.rows == rows
    assert np.allclose(again, weights[::-1])


# -- bfgcardplay, an outside reference (engine.cardplay_bfg; skipped where not installed) ---------


def test_bfgcardplay_plays_legal_cards_and_never_sees_the_hidden_hands() -> None:
    pytest.importorskip("bfgcardplay", reason="bfgcardplay is not installed (optional)")
    from bridgebot.engine import cardplay_bfg
    from bridgebot.laws.cards import deal_owners

    player = cardplay_bfg.BfgCardPlayer(seed=3)
    real = deal_owners(LEAD_DEAL)
    shown: list[tuple[PlayView, list[str], bool]] = []
    board_of = cardplay_bfg._board

    def spy(view: PlayView, owners: np.ndarray) -> object:
        seats = [str(owners[card_index(c)]) for c in view.hand]
        shown.append((view, seats, bool((owners != real).any())))
        return board_of(view, owners)

    cardplay_bfg._board = spy  # type: ignore[assignment]
    try:
        player.reset(1)
        tricks, played = play_deal(Deal(LEAD_DEAL), Contract("1NTS"), [player.play] * 4)
    finally:
        cardplay_bfg._board = board_of  # type: ignore[assignment]
    assert len(played) == 52 and 0 <= tricks <= 13 and player.fallbacks == 0
    for view, seats, _ in shown:  # the seat's own cards are where they are
        assert set(seats) == {str(view.controller.value)}
    # It is shown a sampled world, not the deal: at the opening lead the hidden hands differ (the
    # play reveals them later, West's 9 clubs and the voids leaving one layout).
    assert shown[0][0].played == () and shown[0][2]
