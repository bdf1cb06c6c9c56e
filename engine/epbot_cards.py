"""EPBot's convention cards: the ``CC/*.bbsa`` files of the EPBot folder.

A card is text: the first line ``System type = N``, then one line per convention, ``Name = 0|1``.
A card is named by its file name without ``.bbsa`` (``WBridge5-Sayc``). In an agent spec a name
with a space (``Micro Bridge 13.4``) may be written with underscores for its spaces
(``Micro_Bridge_13.4``); names match without regard to case.

Two cards are the report rows (issue 43): :data:`REPORT_CARDS` are read once per model one would
ship and stay out of every training run, opponent model and choice of a model. Every training
command and configuration that takes EPBot cards passes them through :func:`training_cards`,
which refuses those two in one line; :data:`TRAINING_CARDS` are the other sixteen.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bridgebot.core.errors import UserError
from bridgebot.core.files import note_read
from bridgebot.engine.agent import AgentSpecError

SUFFIX = ".bbsa"

#: The report cards: never in training (issue 43, "the field in training").
REPORT_CARDS = ("WBridge5-Sayc", "WBridge5-21GF")
#: The cards of EPBot's folder that training may use: all but :data:`REPORT_CARDS`.
TRAINING_CARDS = (
    "Acol", "BBA-21GF", "BBA-Sayc", "BEN-21GF", "BEN-SAYC", "BEN-UCBC", "BlueChip-Sayc",
    "LIA-21GF", "Meadowlark", "Meckwell", "Micro Bridge 13.4", "QPlus-21GF", "Robo-Sayc",
    "Shark-Sayc", "WJ", "default",
)  # fmt: skip
#: The rule, as every refusal states it.
RULE = f"{' and '.join(REPORT_CARDS)} are the report cards and stay out of every training run"


class UnknownCard(AgentSpecError):
    """A card name with no file in ``CC/``; the message lists the cards there."""


class BadCard(AgentSpecError):
    """A card file that does not read as a card; the message names the file and line."""


class ReportCardInTraining(UserError):
    """A report card asked for in training; the message names the card and the rule."""


def _plain(name: str) -> str:
    """``name`` without case, spaces, underscores or hyphens (``wbridge5sayc``)."""
    return re.sub(r"[\s_-]", "", name).lower()


def is_report_card(name: str) -> bool:
    """Whether ``name`` (a card as written in a spec: any case, underscores for spaces, with or
    without ``epbot:``) is one of :data:`REPORT_CARDS`."""
    card = name.strip().removeprefix("epbot:").partition(",")[0]
    return _plain(card) in {_plain(c) for c in REPORT_CARDS}


def training_cards(written: Iterable[str], what: str) -> tuple[str, ...]:
    """The card names of ``written`` (each may hold several, comma-separated), in order; a
    report card is :class:`ReportCardInTraining`, naming ``what`` asked for it and the rule."""
    names = tuple(n.strip() for text in written for n in text.split(",") if n.strip())
    for name in names:
        if is_report_card(name):
            raise ReportCardInTraining(f"{what}: {name} is refused: {RULE} (issue 43)")
    return names


def names_report_card(text: str) -> str | None:
    """The first report card ``text`` names (any case, spaces or underscores), else None: the
    test that no model card under ``models/`` was trained with one."""
    plain = _plain(text)
    return next((c for c in REPORT_CARDS if _plain(c) in plain), None)


@dataclass(frozen=True)
class ConventionCard:
    """One convention card: its name, system number and conventions, in file order."""

    name: str
    system: int
    conventions: tuple[tuple[str, bool], ...]


def convention_card_names(folder: Path) -> list[str]:
    """The names of the cards in ``folder/CC``, sorted."""
    return sorted(p.name[: -len(SUFFIX)] for p in (folder / "CC").glob(f"*{SUFFIX}"))


def find_card(folder: Path, written: str) -> Path:
    """The file of the card ``written`` names in ``folder/CC`` (exactly, else without regard to
    case, else with underscores read as spaces); :class:`UnknownCard` lists the known ones."""
    names = convention_card_names(folder)
    wanted = written.strip()
    for guess in (wanted, wanted.replace("_", " ")):
        found = [n for n in names if n == guess] or [n for n in names if n.lower() == guess.lower()]
        if len(found) == 1:
            return folder / "CC" / f"{found[0]}{SUFFIX}"
    known = ", ".join(n.replace(" ", "_") for n in names) or "(none)"
    if not wanted:
        raise UnknownCard(f"name a card, epbot:CARD; the cards in {folder / 'CC'}: {known}")
    raise UnknownCard(f"unknown EPBot card {written!r} in {folder / 'CC'}; known cards: {known}")


def read_convention_card(path: Path) -> ConventionCard:
    """Read a card file (reported as read, :func:`core.files.note_read`: an agent's marks name
    the cards it bids by); :class:`BadCard` names the file and line of a fault."""
    try:
        data = path.read_bytes()
        note_read(path, data)
        lines = data.decode("ascii", errors="replace").splitlines()
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
