"""Every benchmark, run at a tiny size: it must finish and print its figures (issue 27).

Nothing ran the benchmarks, so they rotted unseen (``bench_load.py`` stopped with a KeyError on
the journal's session header while the README still quoted it). ``scripts/check`` (what CI runs)
runs this after the tests: each script of :data:`SMOKE` as its own process, a few at a time, on a
small double-dummy file made here with ``bridgebot ddgen``; a script fails the run when it exits
non-zero or its output lacks the figure it exists to print. The figures of a smoke run mean
nothing; the point is that the benchmark still works. ``tests/test_benchmarks.py`` checks that
every benchmark in this folder has an entry, so a new one cannot be left out.

    python benchmarks/smoke.py            # all of them
    python benchmarks/smoke.py bench_load  # some of them
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: script -> (arguments, a pattern its output must hold). ``{dd}`` is a small DD deal file of
#: :data:`DEALS` deals, ``{tmp}`` a scratch directory of the script's own.
SMOKE: dict[str, tuple[list[str], str]] = {
    "bench_agent_cost": (
        [
            "--base",
            "HEAD",
            "--rounds",
            "1",
            "--boards",
            "1",
            "--search-calls",
            "1",
            "--work",
            "{tmp}",
        ],
        r"medians of 1 rounds",
    ),
    "bench_bidding_strength": (
        ["--imitation", "models/bfgnet", "--deals", "{dd}", "--boards", "4", "--them", "random"],
        r"IMPs",
    ),
    "bench_cardplay": (
        ["--boards", "1", "--deals", "{dd}", "--worlds", "2", "--lead-worlds", "2"],
        r"\d",
    ),
    "bench_crosstable": (
        ["--candidate", "random", "--opponents", "random", "--deals", "{dd}", "--boards", "2"],
        r"\d",
    ),
    "bench_ddnet": (["--deals", "{dd}", "--held-out", "6", "--solver-boards", "2"], r"\d"),
    "diagnose_search": (
        [
            "--spec",
            "search,particles=64,rollouts=16",
            "--boards",
            "2",
            "--solver-particles",
            "2",
            "--journal",
            "{tmp}/d.jsonl",
        ],
        r"\| all \||\| decisions \|",
    ),
    "bench_epbot": (["--boards", "2", "--reps", "1"], r"ms per call|skipped: EPBot"),
    "bench_field": (
        ["--candidate", "random", "--cards", "Acol", "--deals", "{dd}", "--boards", "2"],
        r"worst of 2 field rows",
    ),
    "bench_explain": (["--repeat", "1", "--auctions", "1"], r"slowest run: [\d.]+ CPU s"),
    "bench_load": (["--tables", "2", "--boards", "1"], r"lost 0, duplicated 0"),
    "bench_match": (["--deals", "{dd}", "--boards", "4", "--tcp-boards", "1"], r"\d"),
    "bench_play": (["--agent", "random", "--boards", "1"], r"cards: \d+, median \d+ ms"),
    "bench_policy": (["--deals", "{dd}", "--boards", "4", "--reps", "10"], r"\d"),
    "bench_search": (
        [
            "--deals",
            "{dd}",
            "--boards",
            "2",
            "--held-out",
            "6",
            "--budgets",
            "particles=8,rollouts=2",
            "--workers",
            "1",
            "--journal",
            "{tmp}/journal.jsonl",
        ],
        r"\d",
    ),
    "bench_slam": (
        ["--deals", "{dd}", "--boards", "4", "--baseline", "random", "--yardstick"],
        r"\d",
    ),
    "bench_slam_information": (
        [
            "--train-deals",
            "{dd}",
            "--slam-deals",
            "{dd}",
            "--deals",
            "{dd}",
            "--epochs",
            "1",
            "--rows",
            "hcp",
        ],
        r"recall at 75%",
    ),
    "bench_spectator": (["--boards", "2"], r"\d"),
    "bench_table": (["--boards", "1", "--repeat", "2"], r"\d"),
    "opponents": (
        [
            "build",
            "shipped",
            "--manifest",
            "tests/datafiles/opponents-head.toml",
            "--cand",
            "{tmp}/cand",
            "--runs",
            "{tmp}/runs",
        ],
        r"shipped: models/default at HEAD",
    ),
    # Seeded by another file's hash (LICENSE), so that no smoke run reads the report's deals.
    "report_field": (
        [
            "--candidate",
            "default",
            "--policy",
            "LICENSE",
            "--boards",
            "2",
            "--deals-dir",
            "{tmp}",
            "--log",
            "{tmp}/reads.jsonl",
        ],
        r"\| bar \|",
    ),
    "bench_teacher": (["--boards", "4", "--solver-boards", "2"], r"dd tables"),
    "soak_tm": (
        [
            "--minutes",
            "0.05",
            "--rounds",
            "1",
            "--boards",
            "1",
            "--hostile",
            "1",
            "--out",
            "{tmp}/soak",
        ],
        r"\d",
    ),
}
#: The benchmarks that play EPBot: without it (no $BRIDGEBOT_EPBOT) they are skipped with a
#: reason, except under CI, which has it (.ci/run) and fails without it.
NEEDS_EPBOT = frozenset({"bench_field", "report_field"})
#: Modules of this folder that are no benchmark: the libraries the scripts share, with no
#: command of their own (the scripts that import them run them).
LIBRARIES = frozenset({"dd_rows", "cardplay_match"})
#: Deals of the DD file the smoke runs share.
DEALS = 12


def make_deals(directory: Path) -> Path:
    path = directory / "dd.npz"
    cmd = [sys.executable, "-m", "bridgebot", "ddgen", "--boards", str(DEALS), "--seed", "20270"]
    cmd += ["--out", str(path), "--workers", "1", "--quiet"]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    return path


def run_one(name: str, dd: Path, scratch: Path) -> tuple[str, bool, float, str]:
    """Run one benchmark; (name, passed, seconds, why it failed or its last line)."""
    args, expected = SMOKE[name]
    if name in NEEDS_EPBOT and not os.environ.get("BRIDGEBOT_EPBOT") and not os.environ.get("CI"):
        return name, True, 0.0, "skipped: EPBot is not here (set BRIDGEBOT_EPBOT)"
    tmp = scratch / name
    tmp.mkdir()
    argv = [a.replace("{dd}", str(dd)).replace("{tmp}", str(tmp)) for a in args]
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(HERE / f"{name}.py"), *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    seconds = time.perf_counter() - start
    output = done.stdout + done.stderr
    if done.returncode != 0:
        return name, False, seconds, f"exit {done.returncode}: {output.strip()[-800:]}"
    if not re.search(expected, done.stdout):
        return name, False, seconds, f"no /{expected}/ in its output: {done.stdout.strip()[-800:]}"
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    return name, True, seconds, last


def main(argv: list[str]) -> int:
    names = argv or sorted(SMOKE)
    unknown = [n for n in names if n not in SMOKE]
    if unknown:
        print(f"smoke: no benchmark {unknown}; known: {', '.join(sorted(SMOKE))}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        dd = make_deals(scratch)
        with ThreadPoolExecutor(max(1, min(4, os.cpu_count() or 1))) as pool:
            results = list(pool.map(lambda n: run_one(n, dd, scratch), names))
    failed = 0
    for name, ok, seconds, note in results:
        print(f"{'ok  ' if ok else 'FAIL'} {name:<24} {seconds:6.1f} s  {note}")
        failed += not ok
    print(f"benchmark smoke: {len(results) - failed} of {len(results)} ran and printed figures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
