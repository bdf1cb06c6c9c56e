"""benchmarks/bench_field.py and benchmarks/report_field.py (issue 43, "Choose by the field" and
"Done when"): tiny runs end to end on 8 fresh ddgen boards with 2 cards, their resumption from
the journal, the refusal of the report cards in the field, and the report's seed from the policy
file's hash. Runs that need EPBot take the ``epbot`` fixture (skip without it, fail under CI)."""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from bridgebot.cli import main as bridgebot
from bridgebot.marks import settings_digest
from tests.engine.test_epbot import epbot  # noqa: F401 (the fixture)

ROOT = Path(__file__).resolve().parents[1]
DEALS = ROOT / "tests" / "datafiles" / "ddgen-v1.npz"
CARDS = "Acol,Meckwell"


@pytest.fixture(scope="module")
def scripts() -> Iterator[tuple[ModuleType, ModuleType]]:
    """The two scripts as modules; their folder on sys.path, which spawned workers inherit."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        yield importlib.import_module("bench_field"), importlib.import_module("report_field")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


@pytest.fixture(scope="module")
def deals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8 fresh boards with DD tables, made by ddgen."""
    out = tmp_path_factory.mktemp("field") / "d8.npz"
    args = ["ddgen", "--seed", "5", "--boards", "8", "--out", str(out), "--workers", "1", "--quiet"]
    assert bridgebot(args) == 0
    return out


def no_play(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("a journaled row was played again")


def test_the_field_table_runs_pairs_the_baseline_and_resumes(
    scripts: tuple[ModuleType, ModuleType],
    epbot: Path,  # noqa: F811
    deals: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench, _ = scripts
    journal, out = tmp_path / "field.jsonl", tmp_path / "field.json"
    argv = ["--candidate", "default", "--baseline", "default:models/default", "--deals", str(deals),
            "--cards", CARDS, "--opponents", "bfg,doubles=on", "--workers", "2", "--chunk", "4",
            "--journal", str(journal)]  # fmt: skip
    assert bench.main([*argv, "--json", str(out)]) == 0
    text = capsys.readouterr().out
    field = ("epbot:Acol", "epbot:Meckwell", "bfg")
    for row in (*field, "bfg,doubles=on"):
        assert text.count(f"  {row} ") == 2  # a row for each of the two
    assert "worst of 3 field rows:" in text and "mean of the 2 cards:" in text
    assert "minus default:models/default +0.00 ± 0.00" in text  # the same agent: exactly 0
    assert "does not beat default:models/default's" in text and "does not ship" in text
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    assert len(rows) == 8 and all(r["boards"] == 8 and len(r["imps"]) == 8 for r in rows)
    by = {(r["candidate"], r["opponent"]): r for r in rows}
    cards = [by[("default", o)]["imps"] for o in field[:2]]
    mean = np.mean(np.mean(cards, axis=0))
    assert f"mean of the 2 cards: {mean:+.2f}" in text
    assert json.loads(out.read_text())["boards"] == 8

    monkeypatch.setattr(bench, "run_rows", no_play)  # every row from the journal now
    assert bench.main(argv) == 0
    assert capsys.readouterr().out == text
    assert len(journal.read_text().splitlines()) == 8


@pytest.mark.parametrize(
    "flags",
    [
        ["--opponents", "epbot:WBridge5-Sayc"],
        ["--opponents", "bfg;epbot:wbridge5_21gf"],
        ["--cards", "Acol,WBridge5-21GF"],
        ["--baseline", "epbot:WBridge5-Sayc"],
    ],
)
def test_the_field_refuses_the_report_cards(
    scripts: tuple[ModuleType, ModuleType], flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    bench, _ = scripts
    assert bench.main(["--candidate", "default", "--deals", str(DEALS), *flags]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("bench_field: ")
    assert "are the report cards and stay out of every training run" in err


def test_the_report_seed_is_the_policy_hash(
    scripts: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    _, report = scripts
    policy = tmp_path / "policy.onnx"
    policy.write_bytes(b"abc")  # sha256 ba7816bf8f01cfea...
    assert report.deal_seed(policy) == 0xBA7816BF == 3128432319
    shipped = ROOT / "models" / "default" / "policy.onnx"
    assert report.deal_seed(shipped) == int(
        hashlib.sha256(shipped.read_bytes()).hexdigest()[:8], 16
    )


def test_the_report_makes_its_deals_reads_logs_and_resumes(
    scripts: tuple[ModuleType, ModuleType],
    epbot: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench, report = scripts
    shipped = ROOT / "models" / "default" / "policy.onnx"
    seed = int(hashlib.sha256(shipped.read_bytes()).hexdigest()[:8], 16)
    log = tmp_path / "reads.jsonl"
    argv = ["--boards", "8", "--deals-dir", str(tmp_path), "--log", str(log), "--chunk", "4"]
    assert report.main(argv) == 0
    text = capsys.readouterr().out
    made = tmp_path / f"field_{seed}.npz"
    assert f"bridgebot ddgen --seed {seed} --boards 8 --out {made}" in text
    with np.load(made) as z:
        assert json.loads(str(z["meta"]))["seed"] == seed and len(z["owners"]) == 8
    for row in ("epbot:WBridge5-Sayc", "epbot:WBridge5-21GF"):
        assert f"| `{row}` | " in text and f"| {row} >= +0.5 and > 2 s.e. | " in text
    assert "slam in one room only vs epbot:WBridge5-Sayc" in text and "| bfg " not in text
    entry = json.loads(log.read_text())
    assert entry["seed"] == seed and set(entry["rows"]) == {
        "epbot:WBridge5-Sayc",
        "epbot:WBridge5-21GF",
    }
    assert set(entry["bars"].values()) <= {"PASS", "FAIL"} and len(entry["bars"]) == 3

    monkeypatch.setattr(bench, "run_rows", no_play)  # the rows from the journal
    assert report.main(argv) == 0
    again = capsys.readouterr().out
    assert "this policy's deals were read 1 time(s) before" in again
    assert len(log.read_text().splitlines()) == 2


def test_a_journaled_row_counts_for_its_deals_and_its_model_only(
    scripts: tuple[ModuleType, ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench, _ = scripts
    journal, deals = tmp_path / "j.jsonl", bench.load_deals(DEALS, 0, None)
    pair = ("policy:models/default", "bfg")
    first = bench.play_rows(*[[p] for p in pair], DEALS, 0, deals, journal=journal)
    monkeypatch.setattr(bench, "run_rows", no_play)
    copy = tmp_path / "elsewhere.npz"  # the same deals under another name: resumed
    copy.write_bytes(DEALS.read_bytes())
    assert bench.play_rows([pair[0]], [pair[1]], copy, 0, deals, journal=journal) == first
    row = json.loads(journal.read_text())
    journal.write_text(json.dumps({**row, "policies": ["another model", None]}) + "\n")
    with pytest.raises(AssertionError, match="played again"):  # another model's row: played
        bench.play_rows([pair[0]], [pair[1]], DEALS, 0, deals, journal=journal)


def test_a_journaled_row_counts_for_the_settings_that_played_it(
    scripts: tuple[ModuleType, ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each row holds both sides' settings digests (every option as the code read it, defaults
    included): a row whose digests differ (made before a default changed) or that holds none
    (made before rows held them) is played again, not counted for today's agent."""
    bench, _ = scripts
    journal, deals = tmp_path / "j.jsonl", bench.load_deals(DEALS, 0, None)
    pair = ("policy:models/default", "bfg")
    bench.play_rows(*[[p] for p in pair], DEALS, 0, deals, journal=journal)
    row = json.loads(journal.read_text())
    assert row["settings"] == [settings_digest(p) for p in pair]
    monkeypatch.setattr(bench, "run_rows", no_play)
    for stale in ({**row, "settings": ["another default", row["settings"][1]]},
                  {k: v for k, v in row.items() if k != "settings"}):  # fmt: skip
        journal.write_text(json.dumps(stale) + "\n")
        with pytest.raises(AssertionError, match="played again"):
            bench.play_rows([pair[0]], [pair[1]], DEALS, 0, deals, journal=journal)
