"""The ``bfg`` agent: the Acol bidder of the PyPI package ``bfgbidding`` (Bid for Game, MIT).

It is our teacher for imitation learning and a fixed opponent in matches. ``bfgbidding`` decides
from the bidder's 13 cards and the auction alone (it reads neither dealer nor vulnerability); it
takes the auction as a list of call names (``'P'``, ``'D'`` for double, ``'R'`` for redouble,
``'1C'`` .. ``'7NT'``) on a ``bridgeobjects.Board`` and returns a ``Bid`` whose ``name`` uses the
same spelling.

The package is a human-facing program: it prints diagnostics and installs ``icecream``'s ``ic``
into builtins. We switch ``ic`` off and shadow ``print``/``cprint`` inside its own modules only, so
that nothing else in the process (for instance a table manager printing its port) loses output.

``bfgbidding`` raises on some auctions it does not know and occasionally answers with a call that
is not legal; both become a pass, counted in :class:`BfgStats`, so one strange auction never stops a
match or a teacher run.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from bridgebot.core.files import note_package
from bridgebot.engine.agent import Agent, BiddingView, PlayView
from bridgebot.engine.cardplay import baseline_card
from bridgebot.engine.features import hand_to_array
from bridgebot.laws.calls import ALL_CALLS, bid_index, is_legal_call
from bridgebot.laws.cards import RANKS, SUITS
from endplay.types import Bid, Card, Hand, Player

#: Call names bfgbidding reads and writes, in :data:`laws.calls.ALL_CALLS` order.
CALL_NAMES: tuple[str, ...] = (
    "P",
    "D",
    "R",
    *(f"{level}{strain}" for level in range(1, 8) for strain in ("C", "D", "H", "S", "NT")),
)
_NAME_TO_INDEX = {name: i for i, name in enumerate(CALL_NAMES)}


def _quiet(*args: object, **kwargs: object) -> None:
    """Stands in for print/cprint inside bfgbidding's modules."""


def _load_bfg() -> tuple[Any, Any, Any, str]:
    """Import bfgbidding with its console output switched off; returns (Board, Hand, Player, version)."""
    import bfgbidding
    from bridgeobjects import Board

    try:
        from icecream import ic

        ic.disable()
    except ImportError:  # pragma: no cover - icecream is a dependency of bfgbidding
        pass
    for name, module in list(sys.modules.items()):
        if module is not None and name.startswith(("bfgbidding", "bridgeobjects")):
            module.print = _quiet  # type: ignore[attr-defined]
            if hasattr(module, "cprint"):
                module.cprint = _quiet  # type: ignore[attr-defined]
    return Board, bfgbidding.Hand, bfgbidding.Player, str(bfgbidding.__version__)


_BFG: tuple[Any, Any, Any, str] | None = None


def _bfg() -> tuple[Any, Any, Any, str]:
    global _BFG
    if _BFG is None:
        _BFG = _load_bfg()
    return _BFG


@functools.cache
def _versions() -> dict[str, str]:
    """The installed versions of bfgbidding and of bridgeobjects, whose objects it bids by."""
    from importlib.metadata import version

    return {"bfgbidding": bfg_version(), "bridgeobjects": version("bridgeobjects")}


def bfg_version() -> str:
    """The installed bfgbidding version (recorded in teacher data)."""
    return _bfg()[3]


def card_names_from_owners(owners: Sequence[int], seat: int) -> list[str]:
    """bridgeobjects card names (``'AS'``, ``'TD'``) of ``seat``'s cards in a data-file deal."""
    return [RANKS[i % 13] + SUITS[i // 13] for i in range(52) if owners[i] == seat]


def card_names(hand: Hand) -> list[str]:
    """bridgeobjects card names of an endplay hand."""
    return [RANKS[i % 13] + SUITS[i // 13] for i in np.flatnonzero(hand_to_array(hand))]


@dataclass
class BfgStats:
    """Counts over an agent's lifetime: calls asked, bfg exceptions, illegal answers."""

    calls: int = 0
    errors: int = 0
    fallbacks: int = 0
    last_problem: str = ""


class BfgBidder:
    """bfgbidding on plain indices: hand as card names, auction as :data:`ALL_CALLS` indices.

    The teacher generator uses this directly (no endplay objects on the hot path); the agent
    wraps it.
    """

    def __init__(self) -> None:
        board_cls, self._hand_cls, self._player_cls, self.version = _bfg()
        for package, version in _versions().items():  # what decides its calls, for the marks
            note_package(package, version)
        self._board = board_cls()
        self._hands: dict[tuple[str, ...], Any] = {}
        self.stats = BfgStats()

    def _hand(self, cards: Sequence[str]) -> Any:
        """bfg's Hand for ``cards``, cached: building one is a third of a call's cost, and bfg
        reads only its cards and point count (it builds its own working copies)."""
        key = tuple(cards)
        hand = self._hands.get(key)
        if hand is None:
            if len(self._hands) >= 8:
                self._hands.clear()
            hand = self._hands[key] = self._hand_cls(list(cards))
        return hand

    def call(self, cards: Sequence[str], auction: Sequence[int]) -> int:
        """bfg's call (an :data:`ALL_CALLS` index), or pass if it fails or answers illegally."""
        self.stats.calls += 1
        self._board.bid_history = [CALL_NAMES[c] for c in auction]
        try:
            hand = self._hand(cards)
            name = (
                self._player_cls(board=self._board, hand=hand)
                .make_bid(update_bid_history=False)
                .name
            )
        except Exception as exc:  # bfgbidding raises assorted errors on auctions it lacks
            self.stats.errors += 1
            self.stats.last_problem = f"{type(exc).__name__}: {exc} after {self._board.bid_history}"
            return 0
        index = _NAME_TO_INDEX.get(str(name))
        if index is None or not _is_legal(auction, index):
            self.stats.fallbacks += 1
            self.stats.last_problem = f"illegal {name!r} after {self._board.bid_history}"
            return 0
        return index


def _is_legal(auction: Sequence[int], index: int) -> bool:
    # The rules module on endplay objects costs ~0.1 ms, a tenth of a bfg call; a numpy mask for
    # a single row costs more.
    calls = [ALL_CALLS[c] for c in auction]
    return is_legal_call(Player.north, calls, ALL_CALLS[index])


class BfgAgent(Agent):
    """Agent ``bfg``: bids with bfgbidding; plays with ``engine.cardplay.baseline_card``.

    ``stats`` counts calls, bfg exceptions and illegal answers (each of the latter two became a
    pass).
    """

    name = "bfg"

    def __init__(self) -> None:
        self._bidder = BfgBidder()
        self.stats = self._bidder.stats

    def reset(self, board: int) -> None:
        """bfg keeps no state between calls."""

    def bid(self, view: BiddingView) -> Bid:
        index = self._bidder.call(card_names(view.hand), [bid_index(c) for c in view.auction])
        return ALL_CALLS[index]

    def play(self, view: PlayView) -> Card:
        return baseline_card(view)
