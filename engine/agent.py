"""The narrow interface between the seat client (or the tournament) and a bot.

An ``Agent`` answers two questions, both synchronously and deterministically given its own seeded
RNG: which call to make (``bid``) and which card to play (``play``). The seat client runs these in an
executor so the event loop never blocks. One agent serves one seat for a whole session; ``reset`` is
called at the start of every board (including a board restarted by the table manager).

Views carry only what the seat may legally know. Bridge vocabulary comes from ``endplay.types``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from endplay.types import Bid, Card, Contract, Hand, Player, Vul


@dataclass(frozen=True)
class BiddingView:
    """What ``seat`` knows when it is its turn to call."""

    seat: Player
    dealer: Player
    vul: Vul
    hand: Hand
    auction: tuple[Bid, ...]
    """Every call so far, starting with the dealer's."""
    board: int = 1
    legal: tuple[Bid, ...] = ()
    """The legal calls at this point (filled in by whoever builds the view)."""


@dataclass(frozen=True)
class PlayView:
    """What the controller of ``seat``'s card knows when that card is due.

    ``seat`` is the player whose card is due; ``controller`` is who decides it (declarer when
    ``seat`` is dummy). ``hand`` is the controller's own remaining cards; ``dummy`` is dummy's
    remaining cards once they are visible (after the opening lead), else ``None``.
    """

    seat: Player
    controller: Player
    dealer: Player
    vul: Vul
    auction: tuple[Bid, ...]
    contract: Contract
    hand: Hand
    dummy: Hand | None
    played: tuple[tuple[Player, Card], ...]
    """Every card played so far, in order, with the player who played it."""
    legal: tuple[Card, ...]
    board: int = 1
    extra: dict[str, object] = field(default_factory=dict, compare=False)

    @property
    def declarer(self) -> Player:
        return self.contract.declarer

    @property
    def dummy_seat(self) -> Player:
        return self.contract.declarer.partner

    @property
    def trick_no(self) -> int:
        """1-based number of the trick this card belongs to."""
        return len(self.played) // 4 + 1

    @property
    def current_trick(self) -> tuple[tuple[Player, Card], ...]:
        return self.played[len(self.played) - len(self.played) % 4 :]


@runtime_checkable
class Agent(Protocol):
    """A bot for one seat. Construct with :func:`engine.agents.make_agent`."""

    name: str

    def reset(self, board: int) -> None:
        """Forget per-board state; called before every board (also a restarted one)."""

    def bid(self, view: BiddingView) -> Bid:
        """Return one of ``view.legal``."""

    def play(self, view: PlayView) -> Card:
        """Return one of ``view.legal``."""
