"""What a finished board leaves behind: one record per room, and the IMPs they make together.

Records are plain frozen dataclasses with a lossless JSON form, because the journal is the single
source of truth: summaries, PBN files and reports are all rebuilt from journal lines.
Calls, contracts and vulnerability are text in the forms of :mod:`bridgebot.laws.notation`: calls
as PBN writes them (``Pass``, ``X``, ``XX``, ``1C`` .. ``7NT``), contracts with their declarer
(``4SN``, ``3NTXS``, ``2HXXW``; journals written before it, with ``3NTxS``, still read back).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class RecordError(ValueError):
    """A journal line that does not describe a board (names the line when read from a file)."""


@dataclass(frozen=True)
class RoomResult:
    """One room's play of one board."""

    room: str
    seats: tuple[str, str, str, str]
    """Agent spec at North, East, South, West."""
    auction: tuple[str, ...]
    contract: str | None
    tricks: int | None
    """Tricks taken by declarer (double-dummy or real play); ``None`` when passed out."""
    ns_score: int
    play: tuple[str, ...] = ()
    """Cards in the order played (``SA``, ``H7`` ...), empty when the play was not recorded."""

    def to_json(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "seats": list(self.seats),
            "auction": list(self.auction),
            "contract": self.contract,
            "tricks": self.tricks,
            "ns_score": self.ns_score,
            "play": list(self.play),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RoomResult:
        seats = tuple(d["seats"])
        if len(seats) != 4:
            raise RecordError(f"room {d.get('room')!r}: four seats expected")
        return cls(
            room=str(d["room"]),
            seats=(seats[0], seats[1], seats[2], seats[3]),
            auction=tuple(d["auction"]),
            contract=d["contract"],
            tricks=d["tricks"],
            ns_score=int(d["ns_score"]),
            play=tuple(d.get("play", ())),
        )


@dataclass(frozen=True)
class BoardResult:
    """A board as the match saw it: the deal, every room, and the IMPs for team ``us``."""

    board: int
    dealer: str
    vul: str
    deal: str
    rooms: tuple[RoomResult, ...]
    imps: int

    def room(self, name: str) -> RoomResult:
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
        return len({r.contract for r in self.rooms}) == 1

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "board",
            "board": self.board,
            "dealer": self.dealer,
            "vul": self.vul,
            "deal": self.deal,
            "rooms": [r.to_json() for r in self.rooms],
            "imps": self.imps,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> BoardResult:
        try:
            return cls(
                board=int(d["board"]),
                dealer=str(d["dealer"]),
                vul=str(d["vul"]),
                deal=str(d["deal"]),
                rooms=tuple(RoomResult.from_json(r) for r in d["rooms"]),
                imps=int(d["imps"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"not a board record ({exc!r})") from exc
