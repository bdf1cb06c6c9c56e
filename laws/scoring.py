"""Duplicate scores and IMPs: the numbers a match result and a self-play reward are made of.

Two layers, kept equal by tests over every input:

- scalar functions on ``endplay.types`` (the reference: :func:`contract_score` asks endplay's own
  ``Contract.score``, so our numbers are the ones bridge software agrees on);
- vectorised numpy functions (:func:`score_array`, :func:`imps_array`) written from the Laws'
  arithmetic, for rewards over thousands of deals at once and for the double-dummy match.

Integer encodings used by the array functions (the same orders as ``laws.calls.ALL_CALLS`` and the
double-dummy tables of docs/data.md):

- ``strain``: 0 clubs, 1 diamonds, 2 hearts, 3 spades, 4 notrump (``STRAIN_ORDER``);
- ``penalty``: 0 undoubled, 1 doubled, 2 redoubled;
- ``vul``: whether the *declaring side* is vulnerable;
- ``tricks``: tricks taken by the declaring side, 0..13.

Scores are from the declaring side's point of view; :func:`ns_score` turns a contract and a trick
count into North-South's score, the convention of duplicate score sheets.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from bridgebot.laws.boards import side_vulnerable
from endplay.types import Contract, Denom, Penalty, Player, Vul

#: Strain index -> endplay Denom, in bidding order (clubs lowest), as in the DD tables.
STRAIN_ORDER: tuple[Denom, ...] = (
    Denom.clubs,
    Denom.diamonds,
    Denom.hearts,
    Denom.spades,
    Denom.nt,
)
#: Penalty index -> endplay Penalty.
PENALTY_ORDER: tuple[Penalty, ...] = (Penalty.passed, Penalty.doubled, Penalty.redoubled)

#: WBF IMP scale (Law 78B): the smallest score difference worth 1, 2, ..., 24 IMPs.
IMP_THRESHOLDS: tuple[int, ...] = (
    20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600,
    750, 900, 1100, 1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000,
)  # fmt: skip

IntArray = npt.NDArray[np.int64]


def strain_index(denom: Denom) -> int:
    """Index of an endplay ``Denom`` in :data:`STRAIN_ORDER` (the DD table's strain axis)."""
    return STRAIN_ORDER.index(denom)


def contract_score(
    level: int, strain: Denom, penalty: Penalty, vulnerable: bool, tricks: int
) -> int:
    """Duplicate score for the declaring side, exactly as endplay computes it."""
    if not 1 <= level <= 7:
        raise ValueError(f"contract level {level} is not 1..7")
    if not 0 <= tricks <= 13:
        raise ValueError(f"trick count {tricks} is not 0..13")
    contract = Contract(
        level=level, denom=strain, declarer=Player.north, penalty=penalty, result=tricks - level - 6
    )
    return int(contract.score(Vul.ns if vulnerable else Vul.none))


def ns_score(contract: Contract | None, tricks: int, vul: Vul) -> int:
    """North-South's score for ``contract`` (``None`` = passed out) making ``tricks`` tricks."""
    if contract is None:
        return 0
    score = contract_score(
        contract.level,
        contract.denom,
        contract.penalty,
        side_vulnerable(vul, contract.declarer),
        tricks,
    )
    return score if contract.declarer in (Player.north, Player.south) else -score


def dd_tricks(contract: Contract, dd: npt.NDArray[np.integer]) -> int:
    """Tricks the declarer takes double-dummy, from a ``[4 declarer, 5 strain]`` table.

    The table layout is docs/data.md's: declarer N, E, S, W on the first axis and strains
    C, D, H, S, NT on the second.
    """
    return int(dd[contract.declarer.value, strain_index(contract.denom)])


def imps(diff: int) -> int:
    """IMPs for a score difference on the WBF scale (Law 78B); the sign follows ``diff``."""
    magnitude = abs(diff)
    won = 0
    for threshold in IMP_THRESHOLDS:
        if magnitude < threshold:
            break
        won += 1
    return won if diff >= 0 else -won


# -- vectorised -----------------------------------------------------------------------------------

_TRICK_VALUE = np.array([20, 20, 30, 30, 30], dtype=np.int64)  # per odd trick, by strain index
_NT_FIRST_EXTRA = np.array([0, 0, 0, 0, 10], dtype=np.int64)
_MULTIPLIER = np.array([1, 2, 4], dtype=np.int64)  # contract points by penalty index
_INSULT = np.array([0, 50, 100], dtype=np.int64)


def _undertrick_penalty(down: IntArray, penalty: IntArray, vul: IntArray) -> IntArray:
    """Points lost for ``down`` (>= 1) undertricks, positive numbers."""
    undoubled = np.where(vul == 1, 100, 50) * down
    # Doubled, not vulnerable: 100, 300, 500, then 300 each; vulnerable: 200, then 300 each.
    doubled_nv = np.where(
        down <= 1, 100 * down, np.where(down <= 3, 200 * down - 100, 300 * down - 400)
    )
    doubled_v = 300 * down - 100
    doubled = np.where(vul == 1, doubled_v, doubled_nv)
    return np.where(penalty == 0, undoubled, doubled * np.where(penalty == 2, 2, 1))


def score_array(
    level: npt.ArrayLike,
    strain: npt.ArrayLike,
    penalty: npt.ArrayLike,
    vul: npt.ArrayLike,
    tricks: npt.ArrayLike,
) -> IntArray:
    """Element-wise :func:`contract_score` over broadcastable integer arrays (see module doc).

    Level 0 means a passed-out board and scores 0 whatever the other arguments say.
    """
    lv, st, pe, vu, tr = (
        np.asarray(a, dtype=np.int64) for a in (level, strain, penalty, vul, tricks)
    )
    lv, st, pe, vu, tr = np.broadcast_arrays(lv, st, pe, vu, tr)
    if np.any((lv < 0) | (lv > 7)) or np.any((st < 0) | (st > 4)) or np.any((pe < 0) | (pe > 2)):
        raise ValueError("score_array: level must be 0..7, strain 0..4, penalty 0..2")
    if np.any((tr < 0) | (tr > 13)):
        raise ValueError("score_array: tricks must be 0..13")
    vu = (vu != 0).astype(np.int64)
    odd = tr - 6
    over = odd - lv
    base = (_TRICK_VALUE[st] * lv + _NT_FIRST_EXTRA[st]) * _MULTIPLIER[pe]
    game = np.where(base >= 100, np.where(vu == 1, 500, 300), 50)
    slam = np.where(lv == 6, np.where(vu == 1, 750, 500), 0) + np.where(
        lv == 7, np.where(vu == 1, 1500, 1000), 0
    )
    per_over = np.where(
        pe == 0, _TRICK_VALUE[st], np.where(vu == 1, 200, 100) * np.where(pe == 2, 2, 1)
    )
    made = base + game + slam + _INSULT[pe] + per_over * np.maximum(over, 0)
    down = -_undertrick_penalty(np.maximum(-over, 1), pe, vu)
    out = np.where(over >= 0, made, down)
    return np.where(lv == 0, 0, out).astype(np.int64)


def imps_array(diff: npt.ArrayLike) -> IntArray:
    """Element-wise :func:`imps` over an array of score differences."""
    d = np.asarray(diff)
    won = np.searchsorted(np.asarray(IMP_THRESHOLDS), np.abs(d), side="right")
    signed: IntArray = np.sign(d).astype(np.int64) * np.asarray(won, dtype=np.int64)
    return signed
