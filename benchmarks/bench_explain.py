"""``bridgebot explain`` end to end: wall seconds of the whole command per auction (target < 1 s).

Auctions: short and long, openings, responses, competitive ones, an ask and its answer (4NT read
from partner's answers: a second sample), and a call the policy never makes.
Each is run as a fresh process (``python -m bridgebot explain ...``: start-up, model load,
sampling, printing), ``--repeat`` times; the baseline measured in the same run is the same
process doing everything but the explaining (``bridgebot explain --help``: interpreter, imports of
the command). In-process figures separate the sampling from the start-up. The command is single-threaded,
so its CPU seconds are its wall seconds on an idle core; both are printed.

    python benchmarks/bench_explain.py --repeat 3
"""

from __future__ import annotations

import argparse
import os
import resource
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
    "1S Pass 3S Pass 4NT Pass 5H",
    "7NT",
)


def _run(args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``bridgebot`` process. On a shared machine the CPU
    time is the figure to read: wall time also counts the waits for a core."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bridgebot", *args], env=env, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"bridgebot {' '.join(args)} failed: {done.stderr.strip()}")
    return elapsed, cpu


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument(
        "--auctions", type=int, default=len(AUCTIONS), help="the first N auctions (default: all)"
    )
    args = p.parse_args()
    auctions = AUCTIONS[: args.auctions]

    base = [_run(["explain", "--help"]) for _ in range(args.repeat)]
    base_wall = statistics.median(b[0] for b in base)
    base_cpu = statistics.median(b[1] for b in base)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        f"baseline (process start and the command's imports, no explaining): "
        f"wall {base_wall:.3f} s, CPU {base_cpu:.3f} s"
    )
    print(f"{'auction':<36} {'calls':>5} {'wall s':>7} {'CPU s':>6} {'max CPU':>8} {'x base':>7}")
    worst = 0.0
    for auction in auctions:
        runs = [_run(["explain", auction]) for _ in range(args.repeat)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        worst = max(worst, max(r[1] for r in runs))
        n = len(auction.split())
        print(
            f"{auction:<36} {n:>5} {wall:>7.3f} {cpu:>6.3f} {max(r[1] for r in runs):>8.3f} "
            f"{cpu / base_cpu:>7.2f}"
        )

    from bridgebot.engine.explain import Explainer
    from bridgebot.engine.policy import Policy
    from endplay.types import Bid, Player, Vul

    from bridgebot.shipped import DEFAULT_MODEL_DIR

    explainer = Explainer(Policy(DEFAULT_MODEL_DIR), max_hands=16384)
    inproc = []
    for auction in auctions:
        t = time.perf_counter()
        explainer.explain(Player.north, Vul.none, [Bid(c) for c in auction.split()])
        inproc.append(time.perf_counter() - t)
    print(
        f"in process, sampling only: median {statistics.median(inproc):.3f} s, "
        f"max {max(inproc):.3f} s per auction"
    )
    verdict = "under" if worst < 1.0 else "NOT under"
    print(f"whole command, slowest run: {worst:.3f} CPU s ({verdict} one second per auction)")


if __name__ == "__main__":
    main()
