"""benchmarks/bench_search.py: the cross-table against another baseline, and a deal file too short
for the boards asked, on the committed ddgen file (three deals)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEALS = ROOT / "tests" / "datafiles" / "ddgen-v1.npz"
SCRIPT = ROOT / "benchmarks" / "bench_search.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--deals", str(DEALS), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )


def test_the_cross_table_compares_search_with_the_baseline_asked(tmp_path: Path) -> None:
    out = tmp_path / "bs.json"
    run = _run(
        "--boards", "2", "--held-out", "3", "--workers", "1", "--chunk", "2",
        "--opponents", "random", "--spec", "search,particles=16,rollouts=4",
        "--baseline", "default", "--journal", str(tmp_path / "j.jsonl"), "--out", str(out),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "search minus default" in run.stdout
    summary = json.loads(out.read_text())
    assert summary["baseline"] == "default" and summary["rows"][0]["boards"] == 2
    journal = [json.loads(line) for line in (tmp_path / "j.jsonl").read_text().splitlines()]
    assert {json.loads(r["key"])[0] for r in journal} == {
        "default",
        "search,particles=16,rollouts=4",
    }


def test_more_held_out_deals_than_the_file_has_is_one_line() -> None:
    run = _run("--boards", "2", "--held-out", "4")
    assert run.returncode == 1
    assert run.stderr.strip().splitlines() == [
        f"{DEALS} has 3 deals: --held-out 4 (the last N deals) must be at most that, "
        "and --boards 2 at most --held-out"
    ]
