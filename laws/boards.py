"""The board conventions of duplicate bridge: who deals and who is vulnerable.

Boards are numbered from 1. Board ``n`` takes its dealer and vulnerability from the standard
16-board cycle (board 1: North deals, nobody vulnerable; 2: East, N/S; 3: South, E/W; 4: West,
both; ...), as every duplicate event and the deal files of docs/data.md do. A stream of deals
addressed by a 0-based index (:func:`bridgebot.laws.deals.random_owners`) plays deal ``i`` as
board ``i + 1``.

The scalar functions ask endplay (``Player.from_board``, ``Vul.from_board``); the numpy twins
(:func:`dealer_vul_arrays`, :func:`side_vulnerable_arrays`) are tested equal to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt
from endplay.types import Deal, Player, Vul

IntArray = npt.NDArray[np.int64]

#: Dealer (0..3 = N, E, S, W) of board ``k`` is ``CYCLE_DEALER[(k - 1) % 16]``.
CYCLE_DEALER: IntArray = np.array(
    [Player.from_board(k).value for k in range(1, 17)], dtype=np.int64
)
#: Vulnerability (endplay ``Vul`` value) of board ``k`` is ``CYCLE_VUL[(k - 1) % 16]``.
CYCLE_VUL: IntArray = np.array([Vul.from_board(k).value for k in range(1, 17)], dtype=np.int64)


def _check(board: int) -> None:
    if board < 1:
        raise ValueError(f"board numbers start at 1, got {board}")


def dealer_of(board: int) -> Player:
    """Dealer of board ``board`` (1 North, 2 East, 3 South, 4 West, 5 North...)."""
    _check(board)
    return Player.from_board(board)


def vul_of(board: int) -> Vul:
    """Vulnerability of board ``board`` in the 16-board cycle."""
    _check(board)
    return Vul.from_board(board)


def side_vulnerable(vul: Vul, seat: Player) -> bool:
    """Whether ``seat``'s side is vulnerable on a board whose vulnerability is ``vul``."""
    return bool(seat.is_vul(vul))


def dealer_vul_arrays(boards: npt.ArrayLike) -> tuple[IntArray, IntArray]:
    """Dealer (0..3) and ``Vul`` value of each 1-based board number (twin of the two above)."""
    b = np.asarray(boards, dtype=np.int64)
    if b.size and int(b.min()) < 1:
        raise ValueError(f"board numbers start at 1, got {int(b.min())}")
    return CYCLE_DEALER[(b - 1) % 16], CYCLE_VUL[(b - 1) % 16]


#: ``_VUL_SIDES[vul value, side]``: whether side 0 (N/S) or 1 (E/W) is vulnerable.
_VUL_SIDES = np.zeros((4, 2), dtype=np.bool_)
for _v in Vul:
    for _side, _seat in enumerate((Player.north, Player.east)):
        _VUL_SIDES[_v.value, _side] = bool(_seat.is_vul(_v))


def side_vulnerable_arrays(vul: npt.ArrayLike, seats: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Twin of :func:`side_vulnerable` over arrays of ``Vul`` values and seats (0..3)."""
    v = np.asarray(vul, dtype=np.int64)
    s = np.asarray(seats, dtype=np.int64)
    out: npt.NDArray[np.bool_] = _VUL_SIDES[v, s % 2]
    return out


DDTable = npt.NDArray[np.uint8]
"""Tricks by declarer (N, E, S, W) x strain (C, D, H, S, NT): the layout of docs/data.md."""


@dataclass(frozen=True)
class BoardDeal:
    """One board, the one board type of every command (docs/design.md, "One board type").

    Its number, dealer and vulnerability are kept as a deal file wrote them (a ``Dealer`` tag
    that differs from the 16-board cycle is kept, not corrected), the four hands, and the
    double-dummy table when it is known (an npz deal file carries it; a match solves the rest)."""

    number: int
    dealer: Player
    vul: Vul
    deal: Deal
    dd: DDTable | None = field(default=None, compare=False, repr=False)

    @property
    def pbn(self) -> str:
        """The deal as a PBN string, ``N:`` first (hashable and JSON-friendly, unlike ``Deal``)."""
        return str(self.deal.to_pbn())

    def with_dd(self, dd: DDTable) -> BoardDeal:
        """The same board with its double-dummy table."""
        return replace(self, dd=dd)


def cycle_board(number: int, deal: Deal | str, dd: DDTable | None = None) -> BoardDeal:
    """Board ``number`` with the dealer and vulnerability of the 16-board cycle."""
    return BoardDeal(
        number=number,
        dealer=dealer_of(number),
        vul=vul_of(number),
        deal=Deal(deal) if isinstance(deal, str) else deal,
        dd=dd,
    )
