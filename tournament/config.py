"""What a match is asked to play: :class:`MatchConfig`, read by the match, by every board stream
(worker process or Ray actor) and by the tournament that runs matches."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from bridgebot.engine.agent import AgentFactory
from bridgebot.laws.deals import STREAM
from bridgebot.server.records import TableRecord
from bridgebot.server.table_events import Observer
from bridgebot.tournament.records import AgentMarks, MatchHeader
from bridgebot.tournament.rooms import ExternalSeat, Network
from bridgebot.tournament.seatings import THEM, US, seatings
from endplay.types import Player

SCORINGS = ("dd", "play")
#: Seeded boards in a match when ``--boards`` is not given.
DEFAULT_BOARDS = 64
BACKENDS = ("local", "ray")


class Watch(Protocol):
    """Who shows a match live (``server.web.spectator.SpectatorServer``, ``match --web-port``):
    each TCP room's table manager tells ``observer(room)`` what happens at its table, and every
    finished board goes to ``match_board`` with its IMPs. Both return at once."""

    def observer(self, label: str | None = None) -> Observer: ...

    def match_board(self, board: int, imps: int, rooms: Sequence[TableRecord]) -> None: ...


class MatchError(ValueError):
    """A match that cannot start: bad options, or a scoring mode this build cannot run."""


@dataclass(frozen=True)
class MatchConfig:
    us: str
    them: str
    out: Path
    boards: int | None = None
    """At most this many of the deal file's boards (all by default), or this many seeded
    boards (:data:`DEFAULT_BOARDS` by default)."""
    deals: Path | None = None
    seed: int | None = None
    fmt: str = "team"
    scoring: str = "dd"
    resume: bool = False
    workers: int = 1
    chunk: int = 8
    rooms: str = "auto"
    """``inprocess`` (bidding only, DD scoring), ``tcp`` (table managers and seat clients), or
    ``auto``: in-process for DD scoring without external seats, TCP otherwise."""
    external: tuple[ExternalSeat, ...] = ()
    seat_timeout: float | None = None
    backend: str = "local"
    """``local`` (worker processes on this machine) or ``ray`` (:mod:`tournament.distributed`)."""
    ray_address: str | None = None
    """The Ray cluster to join (``None``: the one already started here, or a new local one)."""
    net: Network = field(default_factory=Network)
    """Where TCP rooms listen, whom they admit, how long they wait for outside seats."""
    dd_cost: bool = False
    """Cost every card of real play double-dummy (``match --dd-cost``: a solve per card, in the
    board stream that plays the board; :mod:`tournament.ddcost`); needs ``scoring="play"`` and
    the team format."""
    make_agent: AgentFactory = field(kw_only=True)
    """Builds the agents from ``us`` and ``them`` (the composition root's ``make_agent``)."""
    agent_marks: Callable[[str], AgentMarks] | None = field(default=None, kw_only=True)
    """What identifies the agent a spec builds, for the journal's header (the composition
    root's ``bridgebot.marks.agent_marks``); None records no marks, and ``--resume`` then cannot
    tell a changed model or default."""

    @property
    def use_tcp(self) -> bool:
        if self.rooms == "auto":
            return self.scoring == "play" or bool(self.external)
        return self.rooms == "tcp"

    def header(self, boards: int | None = None) -> MatchHeader:
        """What identifies the match in the journal; ``--resume`` refuses a different one.
        ``boards``: how many the match deals (the deal file's count when ``--boards`` is not
        given)."""
        return MatchHeader(
            us=self.side_name(US),
            them=self.side_name(THEM),
            format=self.fmt,
            scoring=self.scoring,
            deals=str(self.deals) if self.deals is not None else None,
            seed=self.seed,
            boards=boards or self.boards or DEFAULT_BOARDS,
            stream=STREAM if self.deals is None else None,
            us_agent=self.marks(US),
            them_agent=self.marks(THEM),
        )

    def marks(self, side: str) -> AgentMarks | None:
        """The marks of ``side``'s agent (:attr:`agent_marks`); None where outside programs play
        every seat of it or no marks are asked."""
        if self.agent_marks is None or self.outside(side):
            return None
        return self.agent_marks(self.us if side == US else self.them)

    def outside(self, side: str) -> bool:
        """Outside programs play every seat of ``side`` (none of our agents bids for it)."""
        seats = [
            ExternalSeat(s.room, Player(i))
            for s in seatings(self.fmt)
            for i, team in enumerate(s.teams)
            if team == side
        ]
        return bool(seats) and all(e in self.external for e in seats)

    def side_name(self, side: str) -> str:
        """How results name a side: its agent spec, or its team name (``--us-name`` or
        ``--them-name``) when outside programs play every one of its seats."""
        if self.outside(side):
            return self.net.us_name if side == US else self.net.them_name
        return self.us if side == US else self.them
