"""benchmarks/bench_crosstable.py: its journal resumes a command and counts a row only for the
policy files and settings that played it, on the committed ddgen file (three deals)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEALS = ROOT / "tests" / "datafiles" / "ddgen-v1.npz"
SCRIPT = ROOT / "benchmarks" / "bench_crosstable.py"


def _run(journal: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--candidate", "policy:models/default", "--deals",
         str(DEALS), "--opponents", "bfg;random", "--journal", str(journal)],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip


def test_a_journaled_row_counts_only_for_the_model_and_settings_that_played_it(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "xt.jsonl"
    assert _run(journal).returncode == 0
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [r["opponent"] for r in rows] == ["bfg", "random"]
    assert all(len(r["policies"]) == 2 and len(r["settings"]) == 2 for r in rows)
    assert all(r["policies"][0] is not None for r in rows)
    assert rows[0]["policies"][1] is not None  # bfg: what its package versions say
    assert rows[1]["policies"][1] is None  # random reads nothing
    assert _run(journal).returncode == 0  # the same command: both rows from the journal
    assert len(journal.read_text().splitlines()) == 2
    # A row of another default (its settings digest differs), one of another model, and one
    # journaled before rows held either: each is played again, and the fresh row appended.
    for stale in (
        {**rows[0], "settings": ["another default", rows[0]["settings"][1]]},
        {**rows[0], "policies": ["another model", None]},
        {k: v for k, v in rows[0].items() if k not in ("policies", "settings")},
    ):
        journal.write_text(json.dumps(stale) + "\n" + json.dumps(rows[1]) + "\n")
        run = _run(journal)
        assert run.returncode == 0, run.stderr
        again = [json.loads(line) for line in journal.read_text().splitlines()]
        assert len(again) == 3 and again[2]["opponent"] == "bfg"
        assert again[2]["imps"] == rows[0]["imps"]  # the same boards, played again
