"""What a match writes besides PBN files and reports: its journal's lines and ``summary.json``;
and what a tournament writes to say which it is (:class:`TournamentHeader`).

The journal is the single source of truth: summaries, PBN files and reports are all rebuilt from
its lines. Its first line is the :class:`MatchHeader`; every later line is a :class:`BoardResult`,
the table record (:class:`server.records.TableRecord`, the table manager's own journal line) of
each room and the IMPs they make together::

    {"type": "match", "us": "default", "them": "random", "format": "team", "scoring": "dd", ...}
    {"type": "board", "rooms": [{"board": 1, "dealer": "N", ..., "room": "open", ...}, ...], "imps": 5}

Match journals written before these models kept the deal once per line, beside the rooms; they are
read as well, and a resumed match appends lines of the new form after them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from bridgebot.server.records import TableRecord
from pydantic import BaseModel, ConfigDict, Field, model_validator

#: Fields of a table record that belong to the board, the same in every room.
BOARD_FIELDS = ("board", "dealer", "vul", "deal")


class MatchHeader(BaseModel):
    """The journal's first line: what identifies the match (``--resume`` refuses another)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal["match"] = "match"
    us: str
    them: str
    format: str
    scoring: str
    deals: str | None
    """The deal file, or None for seeded deals."""
    seed: int | None
    boards: int = Field(ge=1)
    """Boards in the match; the one field a resume may change (deal sets are prefixes)."""
    stream: str | None = None
    """The seeded deal stream (``laws.deals.STREAM``) when the deals come from ``seed``; None for a
    deal file. Journals written before streams were named read as None, so a seeded one of them
    is refused on resume: its boards came from an older generator."""

    def differences(self, other: MatchHeader) -> dict[str, tuple[Any, Any]]:
        """Fields other than ``boards`` that differ: name -> (ours, theirs)."""
        mine, theirs = self.model_dump(), other.model_dump()
        return {k: (v, theirs[k]) for k, v in mine.items() if k != "boards" and v != theirs[k]}


class BoardResult(BaseModel):
    """A board as the match saw it: every room's table record, and the IMPs for team ``us``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal["board"] = "board"
    rooms: tuple[TableRecord, ...] = Field(min_length=1)
    imps: int

    @model_validator(mode="before")
    @classmethod
    def _deal_beside_the_rooms(cls, data: Any) -> Any:
        """A line written before :class:`TableRecord` rooms: the board's fields once, beside rooms
        that lacked them."""
        if not isinstance(data, Mapping) or "deal" not in data:
            return data
        board = {k: data[k] for k in BOARD_FIELDS if k in data}
        rooms = [{**board, **r} if isinstance(r, Mapping) else r for r in data.get("rooms", ())]
        return {k: v for k, v in data.items() if k not in BOARD_FIELDS} | {"rooms": rooms}

    @model_validator(mode="after")
    def _one_board_scored_in_every_room(self) -> BoardResult:
        first = self.rooms[0]
        for r in self.rooms:
            if any(getattr(r, k) != getattr(first, k) for k in BOARD_FIELDS):
                raise ValueError(f"room {r.room!r} holds another board than room {first.room!r}")
            if not r.room or r.score_ns is None:
                raise ValueError(f"board {r.board}: every room has a name and a score")
        names = [r.room for r in self.rooms]
        if len(set(names)) != len(names):
            raise ValueError(f"board {first.board}: rooms {names} are not all different")
        return self

    @property
    def board(self) -> int:
        return self.rooms[0].board

    @property
    def dealer(self) -> str:
        return self.rooms[0].dealer

    @property
    def vul(self) -> str:
        return self.rooms[0].vul

    @property
    def deal(self) -> str:
        return self.rooms[0].deal

    def room(self, name: str) -> TableRecord:
        for r in self.rooms:
            if r.room == name:
                return r
        raise KeyError(f"board {self.board}: no room {name!r}")

    @property
    def passed_out(self) -> bool:
        """Every room passed the board out."""
        return all(r.contract is None for r in self.rooms)

    @property
    def same_contract(self) -> bool:
        """Every room reached the same contract by the same declarer."""
        return len({(r.contract, r.declarer) for r in self.rooms}) == 1


class MatchSummary(BaseModel):
    """``summary.json``: the match's result (the keys docs/design.md promises, plus the interval).

    ``imps_per_board``, ``stderr`` and the interval are None where they are undefined (no boards;
    one board for the error).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    us: str
    them: str
    format: str
    scoring: str
    deals: str | None
    seed: int | None
    boards: int
    imps_per_board: float | None
    stderr: float | None
    ci95: tuple[float | None, float | None]
    """The 95% bootstrap interval of IMPs per board."""
    total_imps: int
    passed_out: int
    """Boards passed out in every room."""
    same_contract: int
    """Boards with the same contract and declarer in every room."""


class TournamentEntrant(BaseModel):
    """An entrant as the tournament header names it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    spec: str
    """The agent spec, or ``external`` for an outside program."""


class TournamentHeader(BaseModel):
    """``bridgebot.tournament.json``: what identifies a tournament (``--resume`` refuses another)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal["tournament"] = "tournament"
    format: str
    entrants: tuple[TournamentEntrant, ...] = Field(min_length=1)
    boards_per_match: int = Field(ge=1)
    scoring: str
    deals: str | None
    """The deal file, or None for seeded deals."""
    seed: int

    def differences(self, other: TournamentHeader) -> dict[str, tuple[Any, Any]]:
        """Fields that differ: name -> (ours, theirs), as JSON values."""
        mine, theirs = self.model_dump(mode="json"), other.model_dump(mode="json")
        return {k: (v, theirs[k]) for k, v in mine.items() if v != theirs[k]}
