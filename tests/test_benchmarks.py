"""Every benchmark has a smoke run (``benchmarks/smoke.py``, which ``scripts/check`` runs): a
benchmark added without one fails here, so none can rot unseen again (issue 27)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.smoke import SMOKE

ROOT = Path(__file__).resolve().parents[1]


def test_every_benchmark_has_a_smoke_run_and_check_runs_them() -> None:
    scripts = {p.stem for p in (ROOT / "benchmarks").glob("*.py")} - {"smoke", "__init__"}
    assert scripts == set(SMOKE), "add each new benchmark to benchmarks/smoke.py SMOKE"
    assert "python benchmarks/smoke.py" in (ROOT / "scripts" / "check").read_text()
