"""What a table manager tells an observer while it plays: the narrow hook the live tables
(``server.web.spectator``) subscribe to, without the table manager knowing about the web.

:class:`server.tm.TableManager` takes ``observer(table, event)`` and calls it, on its own event loop
and in order, with one of these events as each thing happens at a table: a seat joins or leaves,
a board starts (with the four hands), a call is relayed (with its alert), a card is played, a
board is finished (after it is recorded and after ``on_board``), the session ends. Every field is
plain immutable data (text, tuples, the journal's :class:`~server.records.TableRecord`), so an
observer may keep an event or hand it to another thread as it is.

An observer must return at once and must not raise: the table manager logs an exception from
it and goes on, but time spent in it is time the table waits. A web page is never written to
from here: the spectator copies the event into its own state and returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bridgebot.server.records import TableRecord


@dataclass(frozen=True)
class SeatJoined:
    """A connection took ``seat`` (``N``, ``E``, ``S``, ``W``) for ``team``."""

    seat: str
    team: str


@dataclass(frozen=True)
class SeatLeft:
    """The connection of ``seat`` went away (its seat is held for the same team)."""

    seat: str


@dataclass(frozen=True)
class BoardStarted:
    """``Start of board`` went out; ``restart`` when a suspended board starts over."""

    board: int
    dealer: str
    vul: str
    """``None``, ``NS``, ``EW`` or ``All`` (PBN's Vulnerable tag)."""
    deal: str
    """The four hands in PBN, North's first (``N:AK.QJ... ...``)."""
    restart: bool = False


@dataclass(frozen=True)
class CallMade:
    """Call number ``index`` (0-based) of ``board``'s auction was relayed to the table."""

    board: int
    index: int
    seat: str
    call: str
    """``Pass``, ``X``, ``XX``, ``1C`` ... ``7NT``."""
    alert: str | None
    """The alert text ("" for a bare alert), or None when the call was not alerted."""


@dataclass(frozen=True)
class CardPlayed:
    """Card number ``index`` (0-based, of 52) of ``board``'s play, by ``seat``: ``SA``, ``HT``."""

    board: int
    index: int
    seat: str
    card: str


@dataclass(frozen=True)
class BoardFinished:
    """A board ended (played, passed out or aborted) and is recorded: its journal line."""

    record: TableRecord


@dataclass(frozen=True)
class SessionEnded:
    """``End of session`` went out: no more boards at this table."""


TableEvent = (
    SeatJoined | SeatLeft | BoardStarted | CallMade | CardPlayed | BoardFinished | SessionEnded
)

#: ``observer(table, event)``: ``table`` is the table's number (1, 2, ...) in its table manager.
Observer = Callable[[int, TableEvent], None]
