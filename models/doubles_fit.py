"""``bridgebot train doubles``: fit and calibrate the penalty-double layer (``engine.doubles``).

Positions come from auctions the shipped policy bids on training deals (greedy and sampled, so
reckless sacrifices appear as well as sound contracts): every decision where a double of the
opponents' contract is legal. The target is the number of tricks our side takes in defence of the
standing contract, double-dummy, from the deal's DD table; the features are the observable ones of
``engine.doubles.observable_features``. A least-squares fit gives the mean, the residual spread
gives the normal around it, and the margin (points of expected gain needed to double) is the one
that maximises the realised IMPs of doubling over passing on the positions where the policy
passed. The calibration report says how often the chosen doubles set the contract.

No torch: the policy runs through onnxruntime, so this works in the runtime environment too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np
import numpy.typing as npt
from bridgebot.engine.doubles import (
    FEATURE_NAMES,
    DoublesMeta,
    DoublesModel,
    expected_gain,
    observable_features,
)
from bridgebot.engine.features import DATA_TO_OPENSPIEL, decode_hand
from bridgebot.engine.modelcard import Training
from bridgebot.engine.policy import Policy
from bridgebot.laws.scoring import imps_array, score_array
from bridgebot.models.config import DoublesConfig, add_config_arguments, config_from_args
from bridgebot.models.data import IntArray, load_dd, run_auctions
from bridgebot.models.provenance import data_record
from pydantic import JsonValue

HELP = "fit the penalty-double layer (doubles=on) on training deals with DD tables"
EXAMPLES = """examples:
  bridgebot ddgen --boards 42336 --seed 20261123 --out data/dd_2026b.npz
  bridgebot train doubles --deals data/dd_2026b.npz --boards 20000 --out engine/penalty_doubles.json
"""
#: OpenSpiel card index -> data-file card index.
OPENSPIEL_TO_DATA: IntArray = np.argsort(DATA_TO_OPENSPIEL).astype(np.int64)
MARGINS = (-50.0, 0.0, 25.0, 50.0, 75.0, 100.0, 150.0, 200.0, 300.0)


def observer_seats(owners: npt.NDArray[np.uint8], x: npt.NDArray[np.float32]) -> IntArray:
    """Absolute seat of each observation's player: the owner of a card in its hand."""
    card = np.argmax(decode_hand(x), axis=1)
    seats: IntArray = owners[np.arange(len(x)), card].astype(np.int64)
    return seats


def collect(
    policy: Policy, owners: npt.NDArray[np.uint8], seed: int, greedy: bool
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_], IntArray, IntArray]:
    """Positions (x, mask, row, policy's call) where a double is legal, the policy bidding all seats."""
    rng = np.random.default_rng(seed)
    n = len(owners)
    dealer = rng.integers(0, 4, n)
    vul = rng.integers(0, 4, n)
    xs: list[Any] = []
    ms: list[Any] = []
    rs: list[Any] = []
    cs: list[Any] = []

    def choose(rows: IntArray, x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> IntArray:
        calls = policy.choose(x, mask, greedy, rng)
        keep = mask[:, 1]
        xs.append(x[keep])
        ms.append(mask[keep])
        rs.append(rows[keep])
        cs.append(calls[keep])
        return calls

    run_auctions(owners, dealer, vul, np.zeros((n, 4), np.int64), [choose])
    return np.concatenate(xs), np.concatenate(ms), np.concatenate(rs), np.concatenate(cs)


def fit(dd_path: str, deals: int, model_dir: str, seed: int) -> tuple[DoublesModel, dict[str, Any]]:
    data = load_dd(dd_path)
    n = min(deals, len(data) - 2000)  # never the held-out block
    policy = Policy(model_dir)
    parts = [collect(policy, data.owners[:n], seed, True)]
    parts.append(collect(policy, data.owners[:n], seed + 1, False))
    x = np.concatenate([p[0] for p in parts])
    rows = np.concatenate([p[2] for p in parts])
    calls = np.concatenate([p[3] for p in parts])
    feats, c = observable_features(x)
    seat = observer_seats(data.owners[rows], x)
    declarer = (seat + c.declarer_rel) % 4
    decl_tricks = data.dd[rows, declarer, c.strain].astype(np.int64)
    target = 13.0 - decl_tricks
    half = len(x) // 2  # fit on the greedy positions' first part, calibrate on the rest too
    fit_idx = np.arange(len(x)) % 2 == 0
    w, *_ = np.linalg.lstsq(feats[fit_idx].astype(np.float64), target[fit_idx], rcond=None)
    resid = target - feats.astype(np.float64) @ w
    sd = float(resid[~fit_idx].std())
    vul = feats[:, FEATURE_NAMES.index("decl_vul")] > 0
    plain = score_array(c.level, c.strain, 0, vul, decl_tricks)
    doubled = score_array(c.level, c.strain, 1, vul, decl_tricks)
    realised = imps_array(plain - doubled)  # IMPs our side gains by doubling, if the auction ended
    cal = ~fit_idx & (calls == 0)
    table = []
    best = (float("-inf"), 0.0)
    fitted = DoublesModel(weights=tuple(w.tolist()), sd=sd, margin=0.0)
    for margin in MARGINS:
        model = fitted.model_copy(update={"margin": margin})
        dbl = cal & (expected_gain(feats, c, model) > margin)
        k = int(dbl.sum())
        gain = float(realised[dbl].sum() / max(int(cal.sum()), 1))
        sets = float((decl_tricks[dbl] < c.level[dbl] + 6).mean()) if k else 0.0
        table.append({"margin": margin, "doubles": k, "set_rate": sets, "imps_per_position": gain})
        if gain > best[0]:
            best = (gain, margin)
    chosen = next(t for t in table if t["margin"] == best[1])
    report = {
        "positions": len(x),
        "fit_positions": int(fit_idx.sum()),
        "calibration_positions_policy_passed": int(cal.sum()),
        "residual_sd": sd,
        "mean_abs_error": float(np.abs(resid[~fit_idx]).mean()),
        "margins": table,
        "chosen": chosen,
        "greedy_half": half,
    }
    return fitted.model_copy(update={"margin": best[1]}), report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_arguments(parser, DoublesConfig)


def run(args: argparse.Namespace, command: str) -> int:
    cfg = config_from_args(DoublesConfig, args)
    t0 = time.monotonic()
    model, report = fit(cfg.dd, cfg.deals, cfg.model, cfg.seed)
    training = Training(
        kind="doubles",
        command=command,
        seed=cfg.seed,
        data=(data_record(cfg.dd),),
        config=cfg.model_dump(mode="json"),
    )
    metrics: dict[str, JsonValue] = {
        "calibration": report,
        "wall_s": round(time.monotonic() - t0, 1),
    }
    model.model_copy(update={"meta": DoublesMeta(training=training, metrics=metrics)}).save(cfg.out)
    print(json.dumps(report, indent=1), file=sys.stderr)
    print(f"{cfg.out}: margin {model.margin:g} points, sd {model.sd:.2f} tricks")
    return 0
