"""What a match writes besides PBN files and reports: its journal's lines and ``summary.json``;
and what a tournament writes to say which it is (:class:`TournamentHeader`).

The journal is the single source of truth: summaries, PBN files and reports are all rebuilt from
its lines. Its first line is the :class:`MatchHeader`; every later line is a :class:`BoardResult`,
the table record (:class:`server.records.TableRecord`, the table manager's own journal line) of
each room and the IMPs they make together::

    {"type": "match", "us": "default", "them": "random", "format": "team", "scoring": "dd", ...}
    {"type": "board", "rooms": [{"board": 1, "dealer": "N", ..., "room": "open", ...}, ...], "imps": 5}

Match journals written before these models kept the deal once per line, beside the rooms; they are
read as well, and a resumed match appends lines of the new form after them. A match run with
``--dd-cost`` adds ``"dd_cost": {"open": {"declarer": 1, "defence": 0, "lead": 0}, ...}`` to each
board line (:class:`RoleCost`); lines without it (any other match, or one written before it) read
as boards not costed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from bridgebot.server.records import TableRecord
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

#: Fields of a table record that belong to the board, the same in every room.
BOARD_FIELDS = ("board", "dealer", "vul", "deal")


class AgentMarks(BaseModel):
    """What made a side's calls beyond its spec text (``bridgebot.marks.agent_marks``): the same
    text names another agent after a default changes, a new model ships or any file it reads
    changes, and a resumed match must not mix the two."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    policy: str | None
    """The sha256 of the policy file the side bids with; None for an agent without one."""
    settings: dict[str, JsonValue]
    """Every option as the code read it, defaults included, with the model path."""
    files: dict[str, str] | None = None
    """Every file the side's builder read (``bridgebot.marks.reads``: each network and model
    card, EPBot's library and cards, the penalty-double model), by name (a shipped file by its
    package's path), with the sha256 of the bytes read; None in marks made before they held
    it."""
    packages: dict[str, str] | None = None
    """The packages whose code decides the side's calls (bfg's), with their versions; None as
    for :attr:`files`."""

    def changes(self, now: AgentMarks) -> list[str]:
        """What differs from ``now``, in words: ``policy file sha256 af98d664… -> 0c1d2e3f…``,
        ``close_bids 1.0 -> 0.2``, ``bridgebot.models/bfgnet/policy.onnx sha256 5e1f… ->
        77a0…``, ``bfgbidding 0.3 -> 0.4``. An option or file only one side recorded differs too
        (``(not recorded)``, ``(not read)``): code that added it may have added a behaviour.
        Marks made before they named the files read differ from any that name them: what those
        agents read cannot be told."""
        out = []
        if self.policy != now.policy:
            out.append(f"policy file sha256 {_short(self.policy)} -> {_short(now.policy)}")
        for key in sorted(self.settings.keys() | now.settings.keys()):
            was, new = (_setting(s, key) for s in (self.settings, now.settings))
            if was != new:
                out.append(f"{key} {was} -> {new}")
        if self.files is None or self.packages is None or now.files is None or now.packages is None:
            if (self.files, self.packages) != (now.files, now.packages):
                out.append("the files it reads (not recorded: marks made before they named them)")
            return out
        for name in sorted(self.files.keys() | now.files.keys()):
            was_sha, new_sha = self.files.get(name), now.files.get(name)
            if was_sha != new_sha and (was_sha, new_sha) != (self.policy, now.policy):
                out.append(f"{name} sha256 {_read(was_sha)} -> {_read(new_sha)}")
        for name in sorted(self.packages.keys() | now.packages.keys()):
            was_version, new_version = self.packages.get(name), now.packages.get(name)
            if was_version != new_version:
                out.append(f"{name} {was_version or '(not used)'} -> {new_version or '(not used)'}")
        return out


def changed_agent(label: str, was: AgentMarks | None, now: AgentMarks | None) -> str | None:
    """``label: what changed`` where both marks are known and differ (:meth:`AgentMarks.changes`);
    None where they agree or one was not recorded (a record made before marks, an outside
    program)."""
    if was is None or now is None:
        return None
    changes = was.changes(now)
    return f"{label}: {', '.join(changes)}" if changes else None


def rebuilt_agents(path: object, changed: list[str], played: str) -> str:
    """The one line that refuses a resume whose specs now build other agents: ``changed`` are
    :func:`changed_agent` phrases, ``played`` what the record holds (``its boards were bid``)."""
    return (
        f"{path}: cannot resume: the same specs now build other agents ({'; '.join(changed)}); "
        f"{played} by the agents it recorded, so finish it with the model and code that started "
        "it, or start anew in another --out"
    )


def _setting(settings: Mapping[str, Any], key: str) -> str:
    return repr(settings[key]) if key in settings else "(not recorded)"


def _short(sha: str | None) -> str:
    return "none" if sha is None else sha[:8] + "…"


def _read(sha: str | None) -> str:
    return "(not read)" if sha is None else sha[:8] + "…"


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

    us_agent: AgentMarks | None = None
    """What made our side's calls (:class:`AgentMarks`); None for a side that outside programs
    play, a match run without marks, or a journal written before headers held them."""
    them_agent: AgentMarks | None = None
    """The same for the opponents."""

    def differences(self, other: MatchHeader) -> dict[str, tuple[Any, Any]]:
        """Fields other than ``boards`` and the agents' marks that differ: name -> (ours,
        theirs). The marks are compared apart, in words (:meth:`agent_changes`)."""
        skip = {"boards", "us_agent", "them_agent"}
        mine, theirs = self.model_dump(), other.model_dump()
        return {k: (v, theirs[k]) for k, v in mine.items() if k not in skip and v != theirs[k]}

    def agent_changes(self, now: MatchHeader) -> list[str]:
        """How the agents of ``now`` differ from those this header recorded, one phrase a side
        (``us search: close_bids 1.0 -> 0.2``); a side recorded without marks is not compared."""
        phrases = (
            changed_agent(f"us {self.us}", self.us_agent, now.us_agent),
            changed_agent(f"them {self.them}", self.them_agent, now.them_agent),
        )
        return [p for p in phrases if p is not None]


class RoleCost(BaseModel):
    """One room's real play costed double-dummy (``match --dd-cost``,
    :func:`engine.cardplay_cost.side_costs`): the tricks each role's cards gave away against
    double-dummy play from the positions they were played in."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    declarer: int = Field(ge=0)
    """Declarer's and dummy's cards."""
    defence: int = Field(ge=0)
    """Both defenders' cards, the opening lead included."""
    lead: int = Field(ge=0)
    """The opening lead alone (a part of ``defence``)."""


def _omit_none(
    record: BaseModel, handler: SerializerFunctionWrapHandler, *names: str
) -> dict[str, Any]:
    """``record`` as ``handler`` dumps it, without the fields ``names`` that are None: lines and
    files of a match run without ``--dd-cost`` stay byte for byte what they were before it."""
    out: dict[str, Any] = handler(record)
    for name in names:
        if out.get(name, 0) is None:
            del out[name]
    return out


class BoardResult(BaseModel):
    """A board as the match saw it: every room's table record, and the IMPs for team ``us``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal["board"] = "board"
    rooms: tuple[TableRecord, ...] = Field(min_length=1)
    imps: int
    dd_cost: dict[str, RoleCost] | None = None
    """``match --dd-cost``: each room's play costed double-dummy, by room name (a room without a
    contract has no entry); None where the board was not costed (the flag off, a journal written
    before it). Left out of the journal line when None."""

    @model_serializer(mode="wrap")
    def _without_missing_costs(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _omit_none(self, handler, "dd_cost")

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
        if self.dd_cost is not None:
            played = {r.room for r in self.rooms if r.contract is not None}
            if set(self.dd_cost) != played:
                raise ValueError(
                    f"board {first.board}: costs for rooms {sorted(self.dd_cost)}, contracts "
                    f"played in rooms {sorted(played)}"
                )
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


class MeanError(BaseModel):
    """A mean and its standard error (:func:`core.stats.mean_stderr`); None where undefined (no
    values; one value for the error)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mean: float | None
    stderr: float | None


class RoleMeans(BaseModel):
    """Double-dummy cost per board, in tricks, of each role's cards (:class:`RoleCost`), and of
    declarer's and the defence's together (``total``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    declarer: MeanError
    defence: MeanError
    lead: MeanError
    total: MeanError


class SideCost(RoleMeans):
    """One side's double-dummy cost per board, and how many times it played each role."""

    declared: int
    """Rooms in which the side declared."""
    defended: int
    """Rooms in which it defended (and made the opening lead)."""


class CostSummary(BaseModel):
    """``summary.json``'s ``dd_cost`` (``match --dd-cost``; ``tournament.ddcost.cost_summary``).

    On each board a side's cost in a role is the sum over the rooms where it played that role
    (0 where it played it in none), so the two sides are paired board by board.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    boards: int
    """Boards costed: played to a contract in one room at least (passed out everywhere: none)."""
    us: SideCost
    them: SideCost
    difference: RoleMeans
    """Us minus them, paired by board: a negative mean is our cards giving away fewer tricks."""


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
    dd_cost: CostSummary | None = None
    """Each side's double-dummy cost per role (``match --dd-cost``) where every board of the
    match was costed; else None, and the key is left out of ``summary.json``."""

    @model_serializer(mode="wrap")
    def _without_missing_costs(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _omit_none(self, handler, "dd_cost")


class TournamentEntrant(BaseModel):
    """An entrant as the tournament header names it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    spec: str
    """The agent spec, or ``external`` for an outside program."""
    agent: AgentMarks | None = None
    """What the spec built when the tournament started (:class:`AgentMarks`); None for an
    outside program, a tournament run without marks, or a header written before it held them."""


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
        """Fields that differ, the entrants' marks apart (:meth:`agent_changes`): name ->
        (ours, theirs), as JSON values."""
        skip: Any = {"entrants": {"__all__": {"agent"}}}
        mine = self.model_dump(mode="json", exclude=skip)
        theirs = other.model_dump(mode="json", exclude=skip)
        return {k: (v, theirs[k]) for k, v in mine.items() if v != theirs[k]}

    def agent_changes(self, now: TournamentHeader) -> list[str]:
        """How the entrants' agents ``now`` differ from those this header recorded, one phrase
        an entrant (``v2 default:models/v2: policy file sha256 af98d664… -> 0c1d2e3f…``); an
        entrant recorded without marks is not compared."""
        was = {e.name: e.agent for e in self.entrants}
        phrases = (
            changed_agent(f"{e.name} {e.spec}", was.get(e.name), e.agent) for e in now.entrants
        )
        return [p for p in phrases if p is not None]
