"""EPBot's convention cards: the ``CC/*.bbsa`` files of the EPBot folder.

A card is text: the first line ``System type = N``, then one line per convention, ``Name = 0|1``.
A card is named by its file name without ``.bbsa`` (``WBridge5-Sayc``). In an agent spec a name
with a space (``Micro Bridge 13.4``) may be written with underscores for its spaces
(``Micro_Bridge_13.4``); names match without regard to case.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bridgebot.engine.agent import AgentSpecError

SUFFIX = ".bbsa"


class UnknownCard(AgentSpecError):
    """A card name with no file in ``CC/``; the message lists the cards there."""


class BadCard(AgentSpecError):
    """A card file that does not read as a card; the message names the file and line."""


@dataclass(frozen=True)
class ConventionCard:
    """One convention card: its name, system number and conventions, in file order."""

    name: str
    system: int
    conventions: tuple[tuple[str, bool], ...]


def card_names(folder: Path) -> list[str]:
    """The names of the cards in ``folder/CC``, sorted."""
    return sorted(p.name[: -len(SUFFIX)] for p in (folder / "CC").glob(f"*{SUFFIX}"))


def find_card(folder: Path, written: str) -> Path:
    """The file of the card ``written`` names in ``folder/CC`` (exactly, else without regard to
    case, else with underscores read as spaces); :class:`UnknownCard` lists the known ones."""
    names = card_names(folder)
    wanted = written.strip()
    for guess in (wanted, wanted.replace("_", " ")):
        found = [n for n in names if n == guess] or [n for n in names if n.lower() == guess.lower()]
        if len(found) == 1:
            return folder / "CC" / f"{found[0]}{SUFFIX}"
    known = ", ".join(n.replace(" ", "_") for n in names) or "(none)"
    if not wanted:
        raise UnknownCard(f"name a card, epbot:CARD; the cards in {folder / 'CC'}: {known}")
    raise UnknownCard(f"unknown EPBot card {written!r} in {folder / 'CC'}; known cards: {known}")


def read_card(path: Path) -> ConventionCard:
    """Read a card file; :class:`BadCard` names the file and line of a fault."""
    try:
        lines = path.read_text(encoding="ascii", errors="replace").splitlines()
    except OSError as exc:
        raise BadCard(f"{path}: cannot read the card ({exc.strerror or exc})") from None
    system: int | None = None
    conventions: list[tuple[str, bool]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        key, eq, value = (part.strip() for part in line.rpartition("="))
        if not eq or not key or (value not in {"0", "1"} and system is not None):
            raise BadCard(f"{path}:{number}: not 'Name = 0|1': {line.strip()!r}")
        if system is None:
            if key != "System type" or not value.isdigit():
                raise BadCard(f"{path}:{number}: the first line must be 'System type = N'")
            system = int(value)
        else:
            conventions.append((key, value == "1"))
    if system is None:
        raise BadCard(f"{path}: an empty card")
    return ConventionCard(path.name[: -len(SUFFIX)], system, tuple(conventions))
