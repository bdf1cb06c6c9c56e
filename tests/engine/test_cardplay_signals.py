"""The carding agreements (engine.cardplay_signals): the signals the card player gives where they
cost nothing double dummy, and the signals read back by partner, with the real solver."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from bridgebot.engine.agent import AgentSpecError, PlayView
from bridgebot.engine.cardplay import DDCardPlayer, play_deal
from bridgebot.engine.cardplay_cost import dd_costs
from bridgebot.engine.cardplay_signals import (
    SignalReader,
    StandardCarding,
    product_reader,
    signals_of,
)
from bridgebot.engine.worlds import Knowledge, OwnersArray, sample_worlds
from bridgebot.laws.calls import PASS
from bridgebot.laws.cards import card_index, deal_owners
from endplay.types import Bid, Card, Contract, ContractBid, Deal, Denom, Player

from bridgebot.card_players import named_card_player

# 4H by South, West on lead with the AK of spades. East holds the queen (ENCOURAGE) or not
# (DISCOURAGE); dummy's S7 keeps East's spot cards apart, so which of them ties is the solver's
# word, not the classes'.
ENCOURAGE = "N:T97.KQJ6.AK5.KQ5 Q863.54.JT7.J973 52.AT987.Q43.AT2 AKJ4.32.9862.864"
DISCOURAGE = "N:T97.KQJ6.AK5.KQ5 8643.54.JT7.J973 52.AT987.Q43.AT2 AKQJ.32.9862.864"
# Two rounds of spades (East's S8 encouraging), a trump to South's H7: South leads clubs next.
THREE_TRICKS = ["SA", "S7", "S8", "S2", "SK", "S9", "S3", "S5", "H2", "H6", "H4", "H7"]


class _Stop(Exception):
    pass


def view_at(pbn: str, script: list[str], auction: tuple[Bid, ...] = ()) -> PlayView:
    """The view of the seat due after ``script`` (the first cards of the play) in 4H by South."""
    cards = [Card(c) for c in script]
    seen: list[PlayView] = []

    def chooser(view: PlayView) -> Card:
        if len(view.played) == len(cards):
            seen.append(view)
            raise _Stop
        return cards[len(view.played)]

    with pytest.raises(_Stop):
        play_deal(Deal(pbn), Contract("4HS"), [chooser] * 4, auction=auction)
    return seen[0]


def cost(pbn: str, view: PlayView, card: Card) -> int:
    """The double-dummy cost of ``card`` for ``view``'s seat in the real deal."""
    return dd_costs(deal_owners(pbn), view.contract, [*view.played, (view.seat, card)])[-1].cost


def test_attitude_a_high_spot_with_the_queen_the_lowest_without() -> None:
    """East follows to partner's SA: every spade costs nothing double dummy; the player without
    signals plays its lowest, with them its highest spot card under the queen, and its lowest
    again without the queen."""
    view = view_at(ENCOURAGE, ["SA", "S7"])
    assert view.seat == Player.east and all(cost(ENCOURAGE, view, c) == 0 for c in view.legal)
    plain = DDCardPlayer(worlds=32, seed=1).play(view)
    signal = DDCardPlayer(worlds=32, seed=1, signaller=StandardCarding()).play(view)
    assert plain == Card("S3")
    assert signal == Card("S8")
    view = view_at(DISCOURAGE, ["SA", "S7"])
    assert all(cost(DISCOURAGE, view, c) == 0 for c in view.legal)
    assert DDCardPlayer(worlds=32, seed=1, signaller=StandardCarding()).play(view) == Card("S3")


def test_count_high_with_an_even_number_lowest_with_an_odd_one() -> None:
    """South leads a club: West (864, three) plays its lowest; East (J973, four) plays a higher
    spot than the player without signals does, at no double-dummy cost."""
    carding = StandardCarding()
    west = view_at(ENCOURAGE, [*THREE_TRICKS, "C2"])
    assert DDCardPlayer(worlds=32, seed=1, signaller=carding).play(west) == Card("C4")
    east = view_at(ENCOURAGE, [*THREE_TRICKS, "C2", "C4", "CK"])
    plain = DDCardPlayer(worlds=32, seed=1).play(east)
    signal = DDCardPlayer(worlds=32, seed=1, signaller=carding).play(east)
    assert plain == Card("C3")
    assert signal.suit == Denom.clubs and signal.rank.value > plain.rank.value
    assert cost(ENCOURAGE, east, signal) == 0


def test_which_cards_carry_a_signal() -> None:
    """East's first spade to West's lead is attitude, its second spade nothing; leads and trumps
    carry none; each defender's first discard is one, the second not."""
    trumps = ["HA", "H3", "HJ", "H5", "H8", "D2", "HQ", "C3", "HK", "S6", "H9", "D6"]
    played = view_at(ENCOURAGE, [*THREE_TRICKS, *trumps]).played
    east = signals_of(played, Player.east, Denom.hearts)
    assert [(s.card, s.kind) for s in east] == [(Card("S8"), "attitude"), (Card("C3"), "discard")]
    west = signals_of(played, Player.west, Denom.hearts)
    assert [(s.card, s.kind) for s in west] == [(Card("D2"), "discard")]
    # South leads a club: West's first club is count.
    played = view_at(ENCOURAGE, [*THREE_TRICKS, "C2", "C4", "CK"]).played
    assert [(s.card, s.kind) for s in signals_of(played, Player.west, Denom.hearts)] == [
        (Card("C4"), "count")
    ]
    # East's H4 on West's heart lead: no signal in trumps, attitude in notrumps.
    assert Card("H4") not in [s.card for s in signals_of(played, Player.east, Denom.hearts)]
    assert (Card("H4"), "attitude") in [
        (s.card, s.kind) for s in signals_of(played, Player.east, Denom.nt)
    ]


def _worlds(view: PlayView, weighed: bool, n: int = 400) -> tuple[OwnersArray, npt.NDArray]:
    knowledge = Knowledge.from_view(view)
    reader = SignalReader()(view) if weighed else None
    worlds = sample_worlds(knowledge, n, np.random.default_rng(1), reader)
    return worlds.owners, worlds.weights


def test_the_signals_read_back_by_partner() -> None:
    """West reads East's S8 (high) on its ace as the queen: in the worlds it weighs by the signal
    East holds the SQ more often than in uniform ones, and less often after East's S3 (its
    lowest). And East's C9 (high) on South's club lead reads as an even number of clubs."""
    queen = card_index(Card("SQ"))

    def east_queen(view: PlayView, weighed: bool) -> float:
        owners, weights = _worlds(view, weighed)
        return float(weights @ (owners[:, queen] == Player.east.value))

    high = view_at(ENCOURAGE, ["SA", "S7", "S8", "S2"])
    assert high.controller == Player.west
    at_random = east_queen(high, weighed=False)
    assert 0.4 < at_random < 0.65  # four spades unseen (Q 6 5 3) between East and South
    assert east_queen(high, weighed=True) > at_random + 0.15
    low = view_at(ENCOURAGE, ["SA", "S7", "S3", "S2"])
    assert east_queen(low, weighed=True) < east_queen(low, weighed=False) - 0.08

    clubs = np.arange(39, 52)

    def east_even(view: PlayView, weighed: bool) -> float:
        owners, weights = _worlds(view, weighed)
        length = (owners[:, clubs] == Player.east.value).sum(axis=1)
        return float(weights @ (length % 2 == 0))

    rest = ["HK", "H5", "H8"]  # a trump from dummy: no signal
    even = view_at(ENCOURAGE, [*THREE_TRICKS, "C2", "C4", "CK", "C9", *rest])
    assert even.controller == Player.west
    assert east_even(even, weighed=True) > east_even(even, weighed=False) + 0.15
    odd = view_at(ENCOURAGE, [*THREE_TRICKS, "C2", "C4", "CK", "C3", *rest])
    assert east_even(odd, weighed=True) < east_even(odd, weighed=False) - 0.08
    # Declarer reads nothing; nor does a defender before partner has signalled.
    south = view_at(ENCOURAGE, ["SA", "S7", "S8"])
    assert SignalReader()(south) is None
    assert SignalReader()(view_at(ENCOURAGE, ["SA", "S7"])) is None


def test_the_auction_and_the_signals_read_together() -> None:
    """``product_reader`` multiplies the shipped policy's reading of the auction by the
    signals' in every world; with nothing to read it reads nothing."""
    from bridgebot.engine.cardplay_auction import AuctionReader
    from bridgebot.engine.policy import Policy

    from bridgebot.shipped import DEFAULT_MODEL_DIR

    h = Denom.hearts
    auction = (PASS, PASS, ContractBid(1, h), PASS, ContractBid(3, h), PASS, ContractBid(4, h))
    auction += (PASS, PASS, PASS)
    view = view_at(ENCOURAGE, ["SA", "S7", "S8", "S2"], auction)
    auctions = AuctionReader(Policy(DEFAULT_MODEL_DIR, threads=1))
    both = product_reader(auctions, SignalReader())(view)
    by_auction, by_signals = auctions(view), SignalReader()(view)
    assert both is not None and by_auction is not None and by_signals is not None
    owners = Knowledge.from_view(view).sample(64, np.random.default_rng(2))
    product = np.asarray(by_auction(owners)) * np.asarray(by_signals(owners))
    assert np.allclose(np.asarray(both(owners)), product)
    assert len(set(np.round(product, 6))) > 2  # both tell worlds apart here
    assert product_reader(None, SignalReader())(view_at(ENCOURAGE, ["SA"])) is None


# The old player's cards (engine.cardplay.DDCardPlayer before signals, worlds=4, lead_worlds=2,
# seed 11, board 3) on this board, as card indices.
OLD_BOARD = "N:98763.83.96.AQT8 AK5.QT95.KT2.K64 Q42.KJ62.753.J93 JT.A74.AQJ84.752"
OLD_CARDS = [2, 4, 11, 1, 9, 12, 3, 8, 36, 34, 30, 37, 22, 21, 13, 24, 23, 19, 18, 16, 14, 20]
OLD_CARDS += [31, 17, 50, 48, 39, 49, 7, 0, 10, 51, 15, 25, 46, 43, 38, 35, 32, 6, 26, 45, 27]
OLD_CARDS += [33, 29, 5, 47, 44, 28, 41, 40, 42]


def test_signals_off_is_the_old_player_card_for_card() -> None:
    """``signals=off`` (and no ``signals``) plays the old player's cards on a seeded board;
    ``signals=on`` plays others there."""

    def cards(spec: str) -> list[int]:
        player = named_card_player(spec, 11)
        try:
            player.reset(3)
            _, played = play_deal(Deal(OLD_BOARD), Contract("4HE"), [player.play] * 4, board=3)
        finally:
            player.close()
        return [card_index(c) for _, c in played]

    budget = "worlds=4,lead_worlds=2"
    assert cards(f"pimc,{budget}") == OLD_CARDS
    assert cards(f"pimc,{budget},signals=off") == OLD_CARDS
    assert cards(f"dd,{budget},signals=on") != OLD_CARDS


def test_a_bad_signals_key_and_a_signaller_that_cheats() -> None:
    with pytest.raises(AgentSpecError, match="signals must be one of off, on"):
        named_card_player("pimc,signals=yes", 1)
    with pytest.raises(AgentSpecError, match="unknown key"):
        named_card_player("baseline,signals=on", 1)

    class Cheat:
        def choose(self, view: PlayView, tied: object) -> Card:
            return Card("C2")  # not even a legal card: never the signaller's to play

    player = DDCardPlayer(worlds=2, seed=1, signaller=Cheat())
    with pytest.raises(ValueError, match="not one of the tied cards"):
        player.play(view_at(ENCOURAGE, ["SA", "S7"]))
