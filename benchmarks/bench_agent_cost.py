"""Time per call and memory per agent of this checkout against a baseline revision, in one run.

A refactor of the bidding pipeline must not make the agents slower or bigger. This benchmark
measures both sides on the same machine in the same run, alternating them ``--rounds`` times so
that a change in the machine's load hits both, and prints the medians and the ratios (this
checkout over the baseline):

- ``default``, one call at a time (the seat client's case) on the positions of ``--boards``
  seeded boards bid against bfg: median and p90 CPU seconds per call (the calling thread's
  CPU time, which another process's load does not inflate as it does the wall clock);
- ``search`` (the same positions, the first ``--search-calls`` of them): median CPU seconds per
  call (its solver or estimator work runs in this thread);
- memory: the resident set size a process grows by when it builds one ``default`` agent.

The baseline is a git revision, checked out with ``git worktree`` under ``--work`` and imported
through a tree of links in place of the installed namespace (the layout ``scripts/typecheck``
builds), so nothing is reinstalled::

    python benchmarks/bench_agent_cost.py --base 5db5cc4 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from namespace import namespace_tree  # noqa: E402  (scripts/namespace.py)

#: The measurement, run in a fresh process for each side (it prints one JSON line).
PROBE = r"""
import json, resource, sys, time
import numpy as np
from bridgebot.agents import make_agent
from bridgebot.engine.agent import bidding_view
from bridgebot.laws.board_sets import generate
from bridgebot.laws.calls import auction_over, to_call

boards, search_calls = int(sys.argv[1]), int(sys.argv[2])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
agent = make_agent("default")
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
views = []
with make_agent("bfg") as bfg:
    for b in generate(4242, boards):
        auction = []
        while not auction_over(auction):
            seat = to_call(b.dealer, auction)
            v = bidding_view(b.dealer, b.vul, b.deal[seat], auction, b.number)
            if seat.value % 2 == 0:
                views.append(v)
            auction.append((agent if seat.value % 2 == 0 else bfg).bid(v))
times = []
for v in views:
    t = time.thread_time()
    agent.bid(v)
    times.append(time.thread_time() - t)
search = make_agent("search,play=baseline")
stimes = []
for v in views[:search_calls]:
    search.reset(v.board)
    t = time.thread_time()
    search.bid(v)
    stimes.append(time.thread_time() - t)
print(json.dumps({
    "calls": len(times),
    "default_median_s": float(np.median(times)),
    "default_p90_s": float(np.quantile(times, 0.9)),
    "search_median_s": float(np.median(stimes)),
    "default_agent_kib": int(grown),
}))
"""


def baseline_tree(rev: str, work: Path) -> Path:
    """A checkout of ``rev`` and a tree of links laying it out as the ``bridgebot`` namespace
    (``scripts/namespace.py``); returns the folder to put on ``PYTHONPATH``."""
    checkout = work / f"base-{rev}"
    if not checkout.exists():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(checkout), rev],
            check=True,
            capture_output=True,
        )
    tree = work / f"tree-{rev}"
    namespace_tree(checkout, tree)
    return tree


def probe(pythonpath: str | None, boards: int, search_calls: int) -> dict[str, float]:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(boards), str(search_calls)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=str(ROOT.parent),  # not the checkout: its bridgebot/ folder would shadow the tree
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the baseline git revision")
    ap.add_argument("--rounds", type=int, default=3, help="alternations of the two sides")
    ap.add_argument("--boards", type=int, default=64, help="boards whose positions are bid")
    ap.add_argument("--search-calls", type=int, default=40, help="positions the search bids")
    ap.add_argument("--work", type=Path, default=ROOT / "build" / "bench_agent_cost")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args()
    tree = baseline_tree(args.base, args.work)
    runs: dict[str, list[dict[str, float]]] = {"base": [], "here": []}
    for r in range(args.rounds):
        for side, path in (("base", str(tree)), ("here", None)):
            runs[side].append(probe(path, args.boards, args.search_calls))
            print(f"round {r + 1} {side}: {runs[side][-1]}", flush=True)
    keys = ("default_median_s", "default_p90_s", "search_median_s", "default_agent_kib")
    med = {s: {k: statistics.median(x[k] for x in runs[s]) for k in keys} for s in runs}
    print(f"medians of {args.rounds} rounds ({runs['here'][0]['calls']:.0f} calls of default)")
    for k in keys:
        ratio = med["here"][k] / med["base"][k] if med["base"][k] else float("nan")
        print(f"  {k:20s} base {med['base'][k]:12.6g}  here {med['here'][k]:12.6g}  x{ratio:.3f}")
    if args.json:
        args.json.write_text(
            json.dumps({"base": args.base, "runs": runs, "medians": med}, indent=2)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
