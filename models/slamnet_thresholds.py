"""The slam layer's thresholds, chosen on validation deals (``bridgebot train slamnet``,
:mod:`models.slamnet`): the DD team match of the policy with the layer against an opponent for
each candidate of a grid, and the rule that picks one (or none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from bridgebot.core.stats import mean_stderr
from bridgebot.engine.policy import Policy
from bridgebot.engine.slams import Thresholds
from bridgebot.models.data import Chooser
from bridgebot.models.slam import slam_counts
from bridgebot.models.slamnet_data import policy_chooser


def match_with_layer(
    policy: Policy,
    slam: Any,
    thresholds: Thresholds | None,
    opponent: Chooser,
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
) -> dict[str, Any]:
    """The DD team match of the policy (with the layer when ``slam`` is given) against
    ``opponent`` on the deals (board k's dealer and vulnerability from the 16-board cycle): IMPs
    per board with its standard error, and the slam counts of :func:`models.slam.slam_counts`."""
    from bridgebot.laws.boards import dealer_vul_arrays
    from bridgebot.models.selfplay import duplicate_imps, imp_summary  # torch: the train extra

    n = len(owners)
    dealer, vul = dealer_vul_arrays(np.arange(1, n + 1))
    imps, auctions, _ = duplicate_imps(
        owners, dd, dealer, vul, policy_chooser(policy, slam, thresholds), opponent
    )
    summary = imp_summary(imps)
    return {
        "imps": summary["imps_per_board"],
        "se": summary["stderr"],
        **slam_counts(auctions, dealer, dd),
        "imps_per_board": imps.astype(np.float64).tolist(),
    }


def threshold_sweep(
    policy: Policy,
    slam: Any,
    opponent: Chooser,
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    grid: Sequence[Thresholds],
) -> list[dict[str, Any]]:
    """:func:`match_with_layer` for each thresholds of ``grid``, and the plain policy first."""
    rows = [{"thresholds": None, **match_with_layer(policy, None, None, opponent, owners, dd)}]
    for t in grid:
        rows.append({"thresholds": t, **match_with_layer(policy, slam, t, opponent, owners, dd)})
    return rows


def parse_grid(text: str) -> list[Thresholds]:
    """``"small,grand,keep;..."`` -> thresholds; a malformed entry is a ``ValueError`` naming it."""
    out = []
    for part in text.split(";"):
        try:
            small, grand, keep = (float(v) for v in part.split(","))
        except ValueError:
            raise ValueError(f"--grid: {part!r} is not 'small,grand,keep'") from None
        out.append(Thresholds(small, grand, keep))
    return out


def choose_thresholds(
    sweep: list[dict[str, Any]], min_making: float
) -> tuple[Thresholds | None, str]:
    """The grid point that bids a slam on the most slam chances, among those whose slams make at
    least ``min_making`` of the time double dummy and that lose nothing to the plain policy
    beyond two paired standard errors; ``None`` (no layer) when none qualifies. Also says why."""
    base = np.asarray(sweep[0]["imps_per_board"])
    best: tuple[float, float, Thresholds] | None = None
    for row in sweep[1:]:
        gain, se = mean_stderr((np.asarray(row["imps_per_board"]) - base).tolist())
        making = row["made"] / row["bid"] if row["bid"] else 0.0
        if making < min_making or gain < -2 * se:
            continue
        key = (row["bid_on_chance"], gain, row["thresholds"])
        if best is None or key[:2] > best[:2]:
            best = key
    if best is None:
        return None, f"no threshold made {min_making:.0%} of its slams without losing IMPs"
    return best[2], f"most slams bid on chance with at least {min_making:.0%} making"


def sweep_row(row: dict[str, Any]) -> dict[str, Any]:
    """A sweep row for the card: the thresholds and the figures, not the per-board IMPs."""
    from dataclasses import asdict

    t = row["thresholds"]
    keys = ("imps", "se", "chances", "bid_on_chance", "bid", "made", "grand_chances", "grands_bid")
    return {"thresholds": None if t is None else asdict(t), **{k: row[k] for k in keys}}
