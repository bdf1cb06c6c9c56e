"""Every benchmark has a smoke run (``benchmarks/smoke.py``, which ``scripts/check`` runs): a
benchmark added without one fails here, so none can rot unseen again (issue 27). The libraries
the scripts share (``smoke.LIBRARIES``) run inside them."""

from __future__ import annotations

from pathlib import Path

from benchmarks.smoke import LIBRARIES, SMOKE

ROOT = Path(__file__).resolve().parents[1]


def test_every_benchmark_has_a_smoke_run_and_check_runs_them() -> None:
    scripts = {p.stem for p in (ROOT / "benchmarks").glob("*.py")} - {"smoke", "__init__"}
    assert scripts - LIBRARIES == set(SMOKE), "add each new benchmark to benchmarks/smoke.py SMOKE"
    # A library is no benchmark hiding from its smoke run: it has no command of its own.
    for name in LIBRARIES:
        assert "__main__" not in (ROOT / "benchmarks" / f"{name}.py").read_text(), name
    assert "python benchmarks/smoke.py" in (ROOT / "scripts" / "check").read_text()
