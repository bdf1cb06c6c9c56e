"""Match formats: who sits where in each room, and how the rooms' scores become IMPs.

- ``team`` (awaw against wawa): the open room has team ``us`` North-South, the closed room has it
  East-West; the board is worth IMP(S(open) - S(closed)) to us, S being North-South's score.
- ``compatible`` (Lockhart et al. 2020, section 4.2; docs/evaluation.md): our bot replaces one
  member of the reference pair, in each of the four seats in turn, and is compared with the
  reference four (``ref``, all ``them``):
  IMP(S(awww) - S(wwww)) - IMP(S(waww) - S(wwww)) + IMP(S(wwaw) - S(wwww)) - IMP(S(wwwa) - S(wwww)).
  (The paper's text prints the third term as S(wwww) - S(wwww), which is always zero; the symmetric
  reading with our bot South is the one that makes the metric seat-balanced.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bridgebot.laws.scoring import imps

US, THEM = "us", "them"


@dataclass(frozen=True)
class Seating:
    """One room: its name and which team (``us``/``them``) sits North, East, South, West."""

    room: str
    teams: tuple[str, str, str, str]


FORMATS: dict[str, tuple[Seating, ...]] = {
    "team": (
        Seating("open", (US, THEM, US, THEM)),
        Seating("closed", (THEM, US, THEM, US)),
    ),
    "compatible": (
        Seating("ref", (THEM, THEM, THEM, THEM)),
        Seating("N", (US, THEM, THEM, THEM)),
        Seating("E", (THEM, US, THEM, THEM)),
        Seating("S", (THEM, THEM, US, THEM)),
        Seating("W", (THEM, THEM, THEM, US)),
    ),
}


class FormatError(ValueError):
    """An unknown match format name."""


def seatings(fmt: str) -> tuple[Seating, ...]:
    try:
        return FORMATS[fmt]
    except KeyError:
        raise FormatError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}") from None


def board_imps(fmt: str, ns_scores: Mapping[str, int]) -> int:
    """IMPs for team ``us`` given North-South's score in every room of format ``fmt``."""
    if fmt == "team":
        return imps(ns_scores["open"] - ns_scores["closed"])
    if fmt == "compatible":
        ref = ns_scores["ref"]
        return (
            imps(ns_scores["N"] - ref)
            - imps(ns_scores["E"] - ref)
            + imps(ns_scores["S"] - ref)
            - imps(ns_scores["W"] - ref)
        )
    raise FormatError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
