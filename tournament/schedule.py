"""Who meets whom: entrants, the schedule of a round robin or gauntlet, and which match may start.

Pure functions of names, kept apart from running matches (:mod:`tournament.event`) so that a
benchmark or a report can lay out the same schedule.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bridgebot.tournament.config import MatchError

FORMATS = ("round-robin", "double-round-robin", "gauntlet")


class TournamentError(MatchError):
    """A tournament that cannot start or resume: bad entrants, format or output directory."""


@dataclass(frozen=True)
class Entrant:
    """A team of the tournament: an agent spec, or an outside program (``spec`` is ``None``)."""

    name: str
    spec: str | None
    instances: int = 1
    """How many matches an outside program can play at once (four seats each)."""

    @property
    def external(self) -> bool:
        return self.spec is None

    @classmethod
    def parse(cls, text: str) -> Entrant:
        """``SPEC`` or ``NAME=SPEC``: ``default``, ``bfg,doubles=on``, ``v2=policy:models/v2``."""
        head = re.split(r"[,:]", text, maxsplit=1)[0]
        name, _, spec = text.partition("=") if "=" in head else (text, "", text)
        name, spec = name.strip(), spec.strip()
        if not name or not spec:
            raise TournamentError(f"entrant {text!r} is not SPEC or NAME=SPEC")
        return cls(name, spec)

    @classmethod
    def parse_external(cls, text: str) -> Entrant:
        """``NAME`` or ``NAME:INSTANCES``: an outside program seated through the match's flow."""
        name, sep, count = text.partition(":")
        name = name.strip()
        try:
            instances = int(count) if sep else 1
        except ValueError:
            instances = 0
        if not name or instances < 1:
            raise TournamentError(f"outside entrant {text!r} is not NAME or NAME:INSTANCES")
        return cls(name, None, instances)


@dataclass(frozen=True)
class Pairing:
    """One match of the schedule: ``home`` plays as the match's ``us`` team."""

    round: int
    home: str
    away: str

    @property
    def key(self) -> str:
        """The match's directory name under ``OUT/matches``."""
        return f"r{self.round:02d}-{_slug(self.home)}-v-{_slug(self.away)}"


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", name)


def schedule(names: Sequence[str], fmt: str) -> list[Pairing]:
    """Every match of format ``fmt`` between ``names``, in round order."""
    if fmt not in FORMATS:
        raise TournamentError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    if len(names) < 2:
        raise TournamentError("a tournament needs at least two entrants")
    if fmt == "gauntlet":
        return [Pairing(1, names[0], other) for other in names[1:]]
    circle: list[str | None] = [*names, None] if len(names) % 2 else list(names)
    n = len(circle)
    out: list[Pairing] = []
    for r in range(n - 1):
        for i in range(n // 2):
            a, b = circle[i], circle[n - 1 - i]
            if a is None or b is None:
                continue  # a bye
            home, away = (a, b) if (r + i) % 2 == 0 else (b, a)
            out.append(Pairing(r + 1, home, away))
        circle = [circle[0], circle[-1], *circle[1:-1]]  # the circle method: all but one turn
    if fmt == "double-round-robin":
        out += [Pairing(p.round + n - 1, p.away, p.home) for p in out]
    return out


def next_matches(
    pending: Sequence[Pairing],
    running: Sequence[Pairing],
    slots: int,
    instances: Mapping[str, int],
) -> list[Pairing]:
    """The pending matches to start now, in schedule order: no more than ``slots`` running, and
    no outside program (``instances``: name -> sets of seats) in more matches than it has sets.
    A match waiting for an outside program lets a later match go first."""
    busy = Counter(n for p in running for n in (p.home, p.away) if n in instances)
    out: list[Pairing] = []
    for p in pending:
        if len(running) + len(out) >= slots:
            break
        outside = [n for n in (p.home, p.away) if n in instances]
        if any(busy[n] >= instances[n] for n in outside):
            continue
        busy.update(outside)
        out.append(p)
    return out
