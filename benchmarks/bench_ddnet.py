"""The learned double-dummy estimator against the solver: accuracy and speed, in one run.

Accuracy on the held-out deals (the last 2,000 of a development set of random deals, never trained on):
exact and within one trick, overall and per strain. Speed: full tables per second for the
estimator (batched through onnxruntime, and one deal at a time as a search would ask) and for
endplay's solver (``calc_all_tables``, DDS's own threads) on a sample of the same deals, with the
ratio. The solver's numbers on the sample are also checked against the stored tables.

    python benchmarks/bench_ddnet.py [--deals data/dd.npz] [--solver-boards 40]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import argparse
import json
import statistics
import time

import numpy as np
from bridgebot.engine.ddestimate import DDEstimator
from bridgebot.laws.cards import owners_pbn
from endplay.dds import calc_all_tables
from endplay.types import Deal

from bridgebot.options import benchmark_args, deal_file
from bridgebot.shipped import shipped_model

STRAINS = ["C", "D", "H", "S", "NT"]


def accuracy(pred: np.ndarray, truth: np.ndarray) -> dict[str, object]:
    diff = np.abs(pred.astype(np.int64) - truth.astype(np.int64))
    return {
        "exact": round(float((diff == 0).mean()), 4),
        "within1": round(float((diff <= 1).mean()), 4),
        "mae": round(float(diff.mean()), 4),
        "per_strain": {
            s: {
                "exact": round(float((diff[:, :, i] == 0).mean()), 4),
                "within1": round(float((diff[:, :, i] <= 1).mean()), 4),
            }
            for i, s in enumerate(STRAINS)
        },
    }


def solver_tables(owners: np.ndarray) -> np.ndarray:
    out = np.zeros((owners.shape[0], 4, 5), dtype=np.uint8)
    for start in range(0, owners.shape[0], 40):
        tables = calc_all_tables([Deal(owners_pbn(o)) for o in owners[start : start + 40]])
        for i, t in enumerate(tables):
            lst = t.to_list()  # [denom S, H, D, C, NT][player]
            out[start + i] = [[lst[d][p] for d in (3, 2, 1, 0, 4)] for p in range(4)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", default="data/dd.npz", help="DD deal file (default %(default)s)")
    ap.add_argument(
        "--held-out",
        type=int,
        default=2000,
        help="the last N deals of --deals (default %(default)s)",
    )
    ap.add_argument("--model", default=str(shipped_model("ddnet")), help="estimator directory")
    ap.add_argument(
        "--solver-boards", type=int, default=40, help="deals the solver times (default %(default)s)"
    )
    ap.add_argument("--threads", type=int, default=1, help="onnxruntime threads (default 1)")
    args = benchmark_args(ap, "bench_ddnet")
    deal_file(args.deals)

    z = np.load(args.deals)
    owners, dd = z["owners"][-args.held_out :], z["dd"][-args.held_out :]
    est = DDEstimator(args.model, threads=args.threads)

    t0 = time.perf_counter()
    pred = est.tables(owners)
    batch_s = time.perf_counter() - t0
    acc = accuracy(pred, dd)

    single = []
    for i in range(min(200, owners.shape[0])):
        t0 = time.perf_counter()
        est.tables(owners[i : i + 1])
        single.append(time.perf_counter() - t0)

    k = min(args.solver_boards, owners.shape[0])
    t0 = time.perf_counter()
    solved = solver_tables(owners[:k])
    solver_s = time.perf_counter() - t0
    solver_agrees = bool(np.array_equal(solved, dd[:k]))

    per_table_est = batch_s / owners.shape[0]
    per_table_solver = solver_s / k
    result = {
        "held_out_deals": int(owners.shape[0]),
        "accuracy": acc,
        "estimator_batched_s_per_table": per_table_est,
        "estimator_single_deal_median_s": statistics.median(single),
        "solver_deals": k,
        "solver_s_per_table": per_table_solver,
        "solver_agrees_with_stored_tables": solver_agrees,
        "speedup_batched": per_table_solver / per_table_est,
        "speedup_single": per_table_solver / statistics.median(single),
    }
    print(json.dumps(result, indent=2))
    print(
        f"estimator: exact {acc['exact']:.3f}, within one trick {acc['within1']:.3f} on "
        f"{owners.shape[0]} held-out deals; {per_table_est * 1e6:.0f} us/table batched, "
        f"{statistics.median(single) * 1e3:.2f} ms for one deal; solver "
        f"{per_table_solver * 1e3:.0f} ms/table: {result['speedup_batched']:.0f}x "
        f"(batched), {result['speedup_single']:.0f}x (single)"
    )


if __name__ == "__main__":
    main()
