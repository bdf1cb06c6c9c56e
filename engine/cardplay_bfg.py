"""bfgcardplay, the rule-based card play of bfg's family (``pip install bfgcardplay``; Bid for
Game's), driven in process as an outside reference for the card-play yardstick.

bfgcardplay decides from a ``bfgdealer.Board`` that holds all four hands: it reads partner's
and the opponents' cards where a player could not. :class:`BfgCardPlayer` never shows it the
real deal: the hands this seat cannot see come from one world drawn uniformly from those
consistent with what it has seen (``engine.worlds``, a new draw each card, seeded per board),
so it plays with no more knowledge than our players. It reads the auction (its opening lead
does) and the contract's level and strain (not a double). Where it answers no card or one that
is not legal, the baseline's card is played instead and counted in :attr:`fallbacks`.

The package is optional (not a dependency of bridgebot): :class:`BfgCardPlayer` raises
:class:`BfgCardPlayNotInstalled` where it is missing. On import it sets up logging of its own
(a DEBUG handler and a log file beside the package); that is undone here: its logger is
silenced and the root logger restored.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from bridgebot.engine.agent import AgentSpecError, PlayView
from bridgebot.engine.cardplay import baseline_card
from bridgebot.engine.worlds import Knowledge
from bridgebot.laws.cards import index_card
from bridgebot.laws.notation import call_text
from bridgebot.laws.play import trick_winner
from endplay.types import Card, Denom

#: bridgeobjects' seat letters in endplay's seat order, and its suit letters by endplay suit.
SEATS = "NESW"
SUITS = "SHDC"
_DENOMS = {Denom.spades: "S", Denom.hearts: "H", Denom.diamonds: "D", Denom.clubs: "C"}


class BfgCardPlayNotInstalled(AgentSpecError):
    """bfgcardplay (or bfgdealer) is not installed; one line saying how to install it."""


def _next_card() -> Any:
    """bfgcardplay's ``next_card``, imported with its logging set-up undone."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        from bfgcardplay.suggested_card import next_card
    except ImportError as exc:
        raise BfgCardPlayNotInstalled(
            f"card player bfg needs bfgcardplay and bfgdealer (pip install bfgcardplay): {exc}"
        ) from None
    finally:
        root.handlers[:], root.level = handlers, level
    quiet = logging.getLogger("bfgcardplay.logger")
    quiet.handlers.clear()
    quiet.disabled = True
    return next_card


class BfgCardPlayer:
    """bfgcardplay's card for each view, on one sampled world (see the module doc)."""

    name = "bfgcardplay"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._next_card = _next_card()
        self._rng = np.random.default_rng([seed, 0])
        #: Cards where bfgcardplay gave none or an illegal one, and the baseline's was played.
        self.fallbacks = 0

    def reset(self, board: int) -> None:
        self._rng = np.random.default_rng([self.seed, board])

    def close(self) -> None:
        return None

    def play(self, view: PlayView) -> Card:
        if len(view.legal) == 1:
            return view.legal[0]
        owners = Knowledge.from_view(view).sample(1, self._rng)[0]
        answer = self._next_card(_board(view, owners))
        card = None if answer is None else _card(answer.name)
        if card is None or card not in view.legal:
            self.fallbacks += 1
            return baseline_card(view)
        return card


def _card(name: str) -> Card | None:
    """The endplay card of a bridgeobjects name (rank then suit: ``TS``)."""
    if len(name) != 2 or name[1] not in SUITS:
        return None
    return Card(name[1] + name[0])


def _board(view: PlayView, owners: np.ndarray) -> Any:
    """A ``bfgdealer.Board`` of the world ``owners`` (the deal as dealt) at ``view``'s point."""
    from bfgbidding import Hand
    from bfgdealer import Board
    from bridgeobjects import Auction, Call, Contract, Trick
    from bridgeobjects import Card as BfgCard

    board = Board()
    board.hands = {}
    for seat in range(4):
        cards = [index_card(int(i)) for i in np.flatnonzero(owners == seat)]
        hand = Hand([BfgCard(c.rank.abbr + SUITS[c.suit.value]) for c in cards], board=board)
        board.hands[SEATS[seat]] = board.hands[seat] = hand
    dealer = SEATS[view.dealer.value]
    board.dealer = dealer
    calls = [Call("P" if call_text(c) == "Pass" else call_text(c)) for c in view.auction]
    board.auction = Auction(calls, dealer)
    contract = view.contract
    strain = "NT" if contract.denom == Denom.nt else _DENOMS[contract.denom]
    board.contract = Contract(f"{contract.level}{strain}", SEATS[contract.declarer.value])
    leader = contract.declarer.lho
    tricks: list[Any] = []
    played = [c for _, c in view.played]
    for start in range(0, len(played), 4):
        cards = played[start : start + 4]
        trick = Trick(
            [BfgCard(c.rank.abbr + SUITS[c.suit.value]) for c in cards], SEATS[leader.value]
        )
        if len(cards) == 4:
            trick.complete(board.contract.trump_suit)
            leader = trick_winner(leader, cards, contract.denom)
        tricks.append(trick)
    if not tricks or len(tricks[-1].cards) == 4:
        tricks.append(Trick(leader=SEATS[leader.value]))
    board.tricks = tricks
    board.get_unplayed_cards()
    return board
