"""Card play: a simple baseline and a double-dummy Monte Carlo player.

``baseline_card`` is the yardstick every stronger player is measured against (and a fallback when
there is no time to think): win the trick as cheaply as possible unless partner is already winning
it, otherwise play the lowest card; lead low from the longest suit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt
from bridgebot.engine.agent import PlayView, play_view
from bridgebot.engine.dds import DDSolver, Position, SolverError
from bridgebot.engine.worlds import (
    AuctionLikelihood,
    CallModel,
    Knowledge,
    policy_auction_likelihood,
    sample_worlds,
)
from bridgebot.laws.boards import side_vulnerable
from bridgebot.laws.cards import card_index
from bridgebot.laws.play import beats, trick_winner, winning_index
from bridgebot.laws.scoring import PENALTY_ORDER, score_array, strain_index
from endplay.types import Bid, Card, Contract, Deal, Denom, Hand, Player, Vul


def _lowest(cards: Sequence[Card], trump: Denom) -> Card:
    """The cheapest card to part with: lowest rank, sparing trumps when discarding."""
    return min(cards, key=lambda c: (c.suit == trump, c.rank.value, c.suit.value))


def baseline_card(view: PlayView) -> Card:
    """The simple baseline: cheapest winner when partner is not winning, else lowest; lead low
    from the longest suit (ties go to the non-trump suit, then to the lower suit)."""
    trump = view.contract.denom
    legal = list(view.legal)
    trick = view.current_trick
    if not trick:
        lengths: dict[Denom, int] = {}
        for c in legal:
            lengths[c.suit] = lengths.get(c.suit, 0) + 1
        suit = max(lengths, key=lambda s: (lengths[s], s != trump, -s.value))
        return min((c for c in legal if c.suit == suit), key=lambda c: c.rank.value)
    win_seat, win_card = trick[winning_index([card for _, card in trick], trump)]
    if win_seat == view.seat.partner:
        return _lowest(legal, trump)
    winners = [c for c in legal if beats(c, win_card, trump)]
    if winners:
        # Cheapest winner: a card of the led suit before a ruff, then the lowest rank.
        return min(winners, key=lambda c: (c.suit != win_card.suit, c.rank.value))
    return _lowest(legal, trump)


class BaselinePlayer:
    """:func:`baseline_card` as a card player: instant, and weak."""

    name = "baseline"

    def reset(self, board: int) -> None:
        return None

    def play(self, view: PlayView) -> Card:
        return baseline_card(view)

    def close(self) -> None:
        return None


# -- the double-dummy Monte Carlo player ----------------------------------------------------------

#: The default budget of :class:`DDCardPlayer`: worlds solved per card, and for the opening lead.
WORLDS = 32
LEAD_WORLDS = 16
#: The opening lead's worlds where the auction weighs them (``bridgebot.card_players``' ``auction``):
#: a lead is one card of a board, the dearest to get wrong, and read worlds are worth more.
AUCTION_LEAD_WORLDS = 32


def equivalence_classes(
    holding: Sequence[Card], legal: Sequence[Card], gone: set[int]
) -> list[list[Card]]:
    """Group ``legal`` into classes of interchangeable cards, each sorted lowest first.

    Two cards of one suit in the same hand are interchangeable when every rank between them has
    been played to an earlier trick or is also in that hand (K and J with the Q gone). Cards of the
    current trick do not count as gone: the Q on the table still separates the K from the J.
    """
    mine = {card_index(c) for c in holding}
    classes: list[list[Card]] = []
    for suit in range(4):
        suited = sorted((c for c in legal if c.suit.value == suit), key=card_index)  # high first
        current: list[Card] = []
        last = -1
        for c in suited:
            i = card_index(c)
            if current and all(j in gone or j in mine for j in range(last + 1, i)):
                current.append(c)
            else:
                if current:
                    classes.append(current[::-1])
                current = [c]
            last = i
        if current:
            classes.append(current[::-1])
    return classes


class Signaller(Protocol):
    """Chooses among cards of equal worth by a carding agreement (the signals partner reads):
    :class:`engine.cardplay_signals.StandardCarding` is one."""

    def choose(self, view: PlayView, tied: Sequence[Sequence[Card]]) -> Card | None:
        """A card of ``tied`` (classes of legal cards, each lowest first, all of the best expected
        score and tricks) to play for ``view``, or None for the player's own choice."""
        ...


@dataclass
class PlayState:
    """Facts about the play so far that every candidate card shares."""

    gone_before: list[int]
    """Card indices played to completed tricks."""
    declarer_tricks: int
    leader: Player
    trick: list[Card]
    trump: Denom

    def position(self, owners: npt.NDArray[np.integer]) -> Position:
        """The position now in the deal ``owners`` (seat per card index, as dealt)."""
        remaining = np.asarray(owners, dtype=np.int64).copy()
        remaining[self.gone_before] = -1
        return Position(
            remaining=tuple(int(x) for x in remaining),
            trump=self.trump.value,
            leader=self.leader.value,
            trick=tuple(card_index(c) for c in self.trick),
        )


def play_state(view: PlayView) -> PlayState:
    trump = view.contract.denom
    leader = view.declarer.lho
    declarer_tricks = 0
    complete = len(view.played) - len(view.played) % 4
    for start in range(0, complete, 4):
        cards = [card for _, card in view.played[start : start + 4]]
        leader = trick_winner(leader, cards, trump)
        if leader.value % 2 == view.declarer.value % 2:
            declarer_tricks += 1
    return PlayState(
        gone_before=[card_index(c) for _, c in view.played[:complete]],
        declarer_tricks=declarer_tricks,
        leader=leader,
        trick=[c for _, c in view.played[complete:]],
        trump=trump,
    )


class DDCardPlayer:
    """Chooses cards by solving sampled worlds double-dummy and maximising the expected score.

    For each card: sample ``worlds`` deals consistent with what the controller knows (resampled by
    how likely a bidding policy, ``auction_model``, finds the auction in each, when given, or by
    the likelihood ``auction_reader`` returns for the view, such as
    :class:`engine.cardplay_auction.AuctionReader`'s, from ``oversample`` times as many
    candidates; see :mod:`engine.worlds`; with ``distinct``, the ``worlds`` kept are distinct
    candidates weighed by priority sampling, not resampled), solve every legal card in every
    world (:class:`engine.dds.DDSolver`, in this process or ``workers`` processes), turn tricks into the duplicate score of the contract for our side
    (making or beating the contract outweighs an overtrick, as at the table), and play the lowest
    card of the class with the best weighted mean. Ties go to more tricks, then to the baseline's
    card; with a ``signaller``, the classes tied for the best score and tricks (to 1e-6) are
    offered to it first, and the card it picks among them is played (it never costs expected
    score; :mod:`engine.cardplay_signals`). A card with one class of legal cards (a singleton, or
    KQ alone in the led suit) is played at once, the signaller choosing within the class. The
    opening lead has its own budget (``lead_worlds``): trick-one solves are the dearest.

    The budget is counted in worlds, never in seconds: a seeded player plays the same cards on any
    machine and under any load, and a seat that waits for the solver's lock (several seats of one
    process share it, :mod:`engine.dds`) loses time, not strength.
    """

    name = "ddplay"

    def __init__(
        self,
        worlds: int = WORLDS,
        lead_worlds: int = LEAD_WORLDS,
        workers: int = 0,
        seed: int = 0,
        auction_model: CallModel | None = None,
        auction_reader: Callable[[PlayView], AuctionLikelihood | None] | None = None,
        oversample: int = 4,
        distinct: bool = False,
        signaller: Signaller | None = None,
    ) -> None:
        if worlds < 1 or lead_worlds < 1:
            raise ValueError(f"worlds ({worlds}) and lead_worlds ({lead_worlds}) must be >= 1")
        self.worlds = worlds
        self.lead_worlds = lead_worlds
        self.seed = seed
        self.auction_model = auction_model
        self.auction_reader = auction_reader
        #: Candidates drawn per world kept where the auction weighs them (``sample_worlds``).
        self.oversample = oversample
        #: Keep distinct weighted candidates rather than resampling them (``sample_worlds``).
        self.distinct = distinct
        #: Picks among equally good cards by the carding agreements; None: the lowest.
        self.signaller = signaller
        self.solver = DDSolver(workers=workers)
        self._rng = np.random.default_rng([seed, 0])
        #: Worlds solved for the last decision (0 for a forced card): for benchmarks and logs.
        self.last_solved = 0

    def reset(self, board: int) -> None:
        """Re-seed per board, so a board's play does not depend on the boards before it."""
        self._rng = np.random.default_rng([self.seed, board])

    def close(self) -> None:
        self.solver.close()

    def play(self, view: PlayView) -> Card:
        state = play_state(view)
        gone = set(state.gone_before)
        holding = (
            view.dummy if view.seat != view.controller and view.dummy is not None else view.hand
        )
        classes = equivalence_classes(list(holding), view.legal, gone)
        self.last_solved = 0
        if len(classes) == 1:
            signal = self._signalled(view, classes)
            return classes[0][0] if signal is None else signal
        opening = not view.played
        n = self.lead_worlds if opening else self.worlds
        knowledge = Knowledge.from_view(view)
        likelihood = None
        if self.auction_reader is not None:
            likelihood = self.auction_reader(view)
        elif self.auction_model is not None and view.auction:
            likelihood = policy_auction_likelihood(self.auction_model, view)
        worlds = sample_worlds(knowledge, n, self._rng, likelihood, self.oversample, self.distinct)
        positions = [state.position(owners) for owners in worlds.owners]
        tricks, done = self.solver.solve(positions)
        self.last_solved = int(done.sum())
        return self._choose(view, state, classes, tricks[done], worlds.weights[done])

    def _choose(
        self,
        view: PlayView,
        state: PlayState,
        classes: list[list[Card]],
        tricks: npt.NDArray[np.int8],
        weights: npt.NDArray[np.float64],
    ) -> Card:
        weights = weights / weights.sum()
        contract = view.contract
        vulnerable = side_vulnerable(view.vul, contract.declarer)
        table = score_array(
            contract.level,
            strain_index(contract.denom),
            PENALTY_ORDER.index(contract.penalty),
            int(vulnerable),
            np.arange(14),
        )
        we_declare = view.seat.value % 2 == contract.declarer.value % 2
        left = 13 - len(state.gone_before) // 4
        preferred = card_index(baseline_card(view))
        best: tuple[float, float, int] | None = None
        choice = classes[0][0]
        keys: list[tuple[float, float, int]] = []
        for cls in classes:
            idx = card_index(cls[0])
            ours = tricks[:, idx].astype(np.int64)
            if np.any(ours < 0):
                raise SolverError(f"solver gave no score for legal card {cls[0]}")
            decl = state.declarer_tricks + (ours if we_declare else left - ours)
            score = table[decl] if we_declare else -table[decl]
            key = (
                float(np.round(weights @ score, 6)),
                float(np.round(weights @ ours, 6)),
                int(any(card_index(c) == preferred for c in cls)),
            )
            keys.append(key)
            if best is None or key > best:
                best, choice = key, cls[0]
        if self.signaller is not None and best is not None:
            tied = [cls for cls, key in zip(classes, keys, strict=True) if key[:2] == best[:2]]
            signal = self._signalled(view, tied)
            return choice if signal is None else signal
        return choice

    def _signalled(self, view: PlayView, tied: list[list[Card]]) -> Card | None:
        """The signaller's card among ``tied`` (None without a signaller or a signal); a card
        outside them raises ``ValueError``: a signal must never cost expected score."""
        if self.signaller is None:
            return None
        card = self.signaller.choose(view, tied)
        if card is not None and not any(card in cls for cls in tied):
            raise ValueError(f"the signaller chose {card}, not one of the tied cards {tied}")
        return card


CardChooser = Callable[[PlayView], Card]


def play_deal(
    deal: Deal,
    contract: Contract,
    choosers: Sequence[CardChooser],
    vul: Vul = Vul.none,
    dealer: Player = Player.north,
    board: int = 1,
    auction: Sequence[Bid] = (),
) -> tuple[int, tuple[tuple[Player, Card], ...]]:
    """Play ``deal`` out in ``contract`` with ``choosers[seat]`` deciding for each seat (dummy's
    cards are decided by declarer's chooser, seeing what declarer sees), without a table manager;
    every view shows ``auction`` (the calls that led to ``contract``, from ``dealer``'s).

    Returns declarer's tricks and the cards played. For benchmarks and tests of card play alone;
    a chooser returning an illegal card raises ``ValueError`` naming the seat.
    """
    hands = {p: list(deal[p]) for p in Player}
    declarer, dummy = contract.declarer, contract.declarer.partner
    played: list[tuple[Player, Card]] = []
    leader = declarer.lho
    tricks = 0
    for _ in range(13):
        trick: list[Card] = []
        for k in range(4):
            seat = Player((leader.value + k) % 4)
            controller = declarer if seat == dummy else seat
            view = play_view(
                seat=seat,
                controller=controller,
                dealer=dealer,
                vul=vul,
                auction=tuple(auction),
                contract=contract,
                hand=_hand_of(hands[controller]),
                dummy=_hand_of(hands[dummy]) if played else None,
                played=played,
                board=board,
            )
            card = choosers[controller.value](view)
            if card not in view.legal:
                raise ValueError(
                    f"{controller.name} chose {card}, not a legal card for {seat.name}"
                )
            hands[seat].remove(card)
            trick.append(card)
            played.append((seat, card))
        leader = trick_winner(leader, trick, contract.denom)
        tricks += leader.value % 2 == declarer.value % 2
    return tricks, tuple(played)


def _hand_of(cards: Sequence[Card]) -> Hand:
    hand = Hand()
    for c in cards:
        hand.add(c)
    return hand
