"""``bridgebot explain`` end to end: wall seconds of the whole command per auction (target < 1 s).

Auctions: short and long, openings, responses, competitive ones, and a call the policy never makes.
Each is run as a fresh process (``python -m bridgebot explain ...``: start-up, model load,
sampling, printing), ``--repeat`` times; the baseline measured in the same run is the same
process doing everything but the explaining (``bridgebot explain --help``: interpreter, imports of
the command). In-process figures separate the sampling from the start-up.

    python benchmarks/bench_explain.py --repeat 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout

AUCTIONS = (
    "1NT",
    "1NT Pass 2C",
    "1H Pass 2H Pass 4H",
    "1S 2H 3H",
    "Pass Pass 1S Pass 3S",
    "1C Pass 1H Pass 1NT Pass 3NT",
    "1D 1S X 2S 3D Pass Pass 3S",
    "2D X Pass 2S Pass Pass 3D",
    "7NT",
)


def _run(args: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bridgebot", *args], env=env, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"bridgebot {' '.join(args)} failed: {done.stderr.strip()}")
    return elapsed


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()

    base = [_run(["explain", "--help"]) for _ in range(args.repeat)]
    base_s = statistics.median(base)
    print(f"baseline (process start, imports, no explaining): median {base_s:.3f} s")
    print(f"{'auction':<36} {'calls':>5} {'median s':>9} {'max s':>7} {'x baseline':>10}")
    worst = 0.0
    for auction in AUCTIONS:
        times = [_run(["explain", auction]) for _ in range(args.repeat)]
        med = statistics.median(times)
        worst = max(worst, max(times))
        n = len(auction.split())
        print(f"{auction:<36} {n:>5} {med:>9.3f} {max(times):>7.3f} {med / base_s:>10.2f}")

    from endplay.types import Bid, Player, Vul

    from engine.explain import Explainer
    from engine.policy import DEFAULT_MODEL_DIR, Policy

    explainer = Explainer(Policy(DEFAULT_MODEL_DIR, threads=2))
    inproc = []
    for auction in AUCTIONS:
        t = time.perf_counter()
        explainer.explain(Player.north, Vul.none, [Bid(c) for c in auction.split()])
        inproc.append(time.perf_counter() - t)
    print(
        f"in process, sampling only: median {statistics.median(inproc):.3f} s, "
        f"max {max(inproc):.3f} s per auction"
    )
    verdict = "under" if worst < 1.0 else "NOT under"
    print(f"whole command, slowest run: {worst:.3f} s ({verdict} one second per auction)")


if __name__ == "__main__":
    main()
