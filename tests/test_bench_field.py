"""benchmarks/bench_field.py and benchmarks/report_field.py (issues 43 and 60, "Choose by the
field" and "Done when"): tiny runs end to end on 8 fresh ddgen boards with 2 cards, their
resumption from the journal, the refusal of the report cards in the field, the report's seed from
the agent's marks (issue 43's from a policy file's hash under ``--policy``), both issues' bars on
hand-made rows, the log of reads counted by marks (an entry of before issue 60 read too), and
``--over``'s paired differences. Runs that need EPBot take the ``epbot`` fixture (skip without it,
fail under CI)."""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import onnx
import pytest
from bridgebot.core.stats import mean_stderr

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


def test_the_report_seed_follows_the_marks(
    scripts: tuple[ModuleType, ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seed is the first eight hex digits of the marks' digest: the same for the same spec,
    in any folder; another for another setting, and for a model file changed in place."""
    _, report = scripts
    seed, digest = report.marks_seed("default")
    assert len(digest) == 64 and seed == int(digest[:8], 16)
    monkeypatch.chdir(tmp_path)  # shipped models are named alike from anywhere
    assert report.marks_seed("default") == (seed, digest)
    assert report.canonical_settings("search")["ddnet"] == "bridgebot.models/ddnet"
    assert report.marks_seed("default,play=dd")[0] != seed  # a setting of the card player
    search = report.marks_seed("search")[0]
    assert report.marks_seed("search,close_bids=0.5")[0] != search  # the search's setting alone
    model = tmp_path / "model"
    shutil.copytree(ROOT / "models" / "default", model)
    before = report.marks_seed(f"policy:{model}")
    assert before == report.marks_seed(f"policy:{model}") and before[0] != seed
    settings = report.canonical_settings(f"policy:{model}")
    network = onnx.load(model / "policy.onnx")
    network.doc_string = "the same network, other bytes"
    onnx.save(network, model / "policy.onnx")
    assert report.canonical_settings(f"policy:{model}") == settings
    assert report.marks_seed(f"policy:{model}")[0] != before[0]


def test_issue_43s_seed_is_a_policy_files_hash(
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


def hand_row(opponent: str, mean: float, se: float, slam: float = 0.0) -> dict[str, Any]:
    """A row of 100 boards whose IMPs alternate about ``mean`` so that their standard error is
    ``se``, with ``slam`` IMPs/board on the boards with a slam in one room only."""
    spread = se * math.sqrt(99)
    imps = [mean + spread, mean - spread] * 50
    m, s = mean_stderr(imps)
    one = {"boards": 10, "imps": slam * 100, "per_board": slam, "se": 0.05}
    return {"opponent": opponent, "imps": imps, "imps_per_board": m, "stderr": s,
            "one_room_slam": one}  # fmt: skip


def verdicts(checked: list[tuple[str, str, bool]]) -> dict[str, bool]:
    return {bar: ok for bar, _, ok in checked}


def test_the_bars_of_issue_60_and_of_issue_43(scripts: tuple[ModuleType, ModuleType]) -> None:
    """On hand-made rows: each bar at its issue's figure, the WBridge5 rows more than two
    standard errors above zero, no card below the floor by more than two standard errors, and
    the bar over ``default``, paired."""
    bench, report = scripts
    sayc, gf = "epbot:WBridge5-Sayc", "epbot:WBridge5-21GF"
    cards = [c for c in bench.FIELD if c != "bfg"]
    rows = {sayc: hand_row(sayc, 0.7, 0.1), gf: hand_row(gf, 0.65, 0.4, slam=-0.1)}
    rows |= {c: hand_row(c, 0.8, 0.1) for c in cards[1:]}
    rows |= {cards[0]: hand_row(cards[0], 0.1, 0.08), "bfg": hand_row("bfg", 1.4, 0.2)}
    i60, i43 = report.BARS[60], report.BARS[43]
    assert (i60.wbridge5_min("default"), i60.wbridge5_min("search,particles=64")) == (0.6, 0.9)
    assert i43.wbridge5_min("search") == 0.5
    got = verdicts(report.bars(rows, i60, 0.6))
    assert got == {
        f"{sayc} >= +0.6 and > 2 s.e.": True,
        f"{gf} >= +0.6 and > 2 s.e.": False,  # +0.65, but not two standard errors above 0
        "mean of the 16 cards >= +0.6": True,  # (15 x 0.8 + 0.1) / 16 = 0.76
        "no card below +0.3 by > 2 s.e.": False,  # 0.1 + 2 x 0.08 < 0.3
        "bfg >= +1.5": False,
        f"slam in one room only vs {sayc} >= 0.0": True,  # Sayc's; 21GF's -0.1 is not read
    }
    assert not verdicts(report.bars(rows, i60, 0.9))[f"{sayc} >= +0.9 and > 2 s.e."]
    rows[cards[0]] = hand_row(cards[0], 0.1, 0.11)  # 0.1 + 2 x 0.11 >= 0.3: within two s.e.
    assert verdicts(report.bars(rows, i60, 0.6))["no card below +0.3 by > 2 s.e."]
    rows[cards[0]] = hand_row(cards[0], -0.3, 0.1)  # 16 x 0.76 - 0.4 = mean 0.725
    old = verdicts(report.bars(rows, i43, 0.5))
    assert old == {
        f"{sayc} >= +0.5 and > 2 s.e.": True,
        f"{gf} >= +0.5 and > 2 s.e.": False,
        "mean of the 16 cards >= +0.4": True,
        "no card below +0.0 by > 2 s.e.": False,  # -0.3 + 2 x 0.1 < 0
        "bfg >= +1.0": True,
        f"slam in one room only vs {sayc} >= 0.0": True,
    }
    rows[sayc] = hand_row(sayc, 0.7, 0.1, slam=-0.01)
    assert not verdicts(report.bars(rows, i60, 0.6))[f"slam in one room only vs {sayc} >= 0.0"]
    over = {sayc: (0.35, 0.1), gf: (0.35, 0.2)}  # 21GF's: not two standard errors above 0
    assert {
        b: ok for b, ok in verdicts(report.bars(rows, i60, 0.9, over)).items() if "over" in b
    } == {
        f"{sayc}: over default >= +0.3 and > 2 s.e. (paired)": True,
        f"{gf}: over default >= +0.3 and > 2 s.e. (paired)": False,
    }
    assert not verdicts(report.bars(rows, i60, 0.9, {sayc: (0.25, 0.05), gf: (0.4, 0.1)}))[
        f"{sayc}: over default >= +0.3 and > 2 s.e. (paired)"
    ]
    assert report.is_shipped_default("default")
    assert not any(
        map(report.is_shipped_default, ["default,play=dd", "search", "policy:models/default"])
    )


def test_the_log_counts_the_reads_of_the_same_deals(
    scripts: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    """A read counts where its seed came from the same marks (or, under ``--policy``, the same
    policy file: every entry written before issue 60, which names no source); a torn line is
    skipped."""
    _, report = scripts
    log = tmp_path / "reads.jsonl"
    assert report.reads_before(log, ("marks", "m1")) == 0  # no log yet
    entries = [
        {"candidate": "default", "policy_sha256": "p1", "seed": 1},  # issue 43's format
        {"seed_from": "marks", "marks_sha256": "m1", "policy_sha256": "p1", "seed": 2},
        {"seed_from": "marks", "marks_sha256": "m1", "policy_sha256": "p1", "seed": 2},
        {"seed_from": "marks", "marks_sha256": "m2", "policy_sha256": "p1", "seed": 3},
        {"seed_from": "policy", "marks_sha256": "m1", "policy_sha256": "p2", "seed": 4},
    ]
    log.write_text("".join(json.dumps(e) + "\n" for e in entries) + '{"seed_from": "mar')
    assert report.reads_before(log, ("marks", "m1")) == 2
    assert report.reads_before(log, ("marks", "m2")) == 1
    assert report.reads_before(log, ("marks", "p1")) == 0
    assert report.reads_before(log, ("policy", "p1")) == 1  # the old entry's seed
    assert report.reads_before(log, ("policy", "p2")) == 1


def test_the_report_makes_its_deals_reads_logs_and_resumes(
    scripts: tuple[ModuleType, ModuleType],
    epbot: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench, report = scripts
    shipped = ROOT / "models" / "default" / "policy.onnx"
    sha = hashlib.sha256(shipped.read_bytes()).hexdigest()
    seed, mark = report.marks_seed("default")
    log = tmp_path / "reads.jsonl"
    old = {"candidate": "default", "policy_sha256": sha, "seed": int(sha[:8], 16)}
    log.write_text(json.dumps(old) + "\n")  # a read of issue 43's deals for this policy
    argv = ["--boards", "8", "--deals-dir", str(tmp_path), "--log", str(log), "--chunk", "4"]
    assert report.main(argv) == 0
    text = capsys.readouterr().out
    made = tmp_path / f"field_{seed}.npz"
    assert f"bridgebot ddgen --seed {seed} --boards 8 --out {made}" in text
    assert "time(s) before" not in text and "read 1 of these deals" in text  # not the old deals
    with np.load(made) as z:
        assert json.loads(str(z["meta"]))["seed"] == seed and len(z["owners"]) == 8
    for row in ("epbot:WBridge5-Sayc", "epbot:WBridge5-21GF"):
        assert f"| `{row}` | " in text and f"| {row} >= +0.6 and > 2 s.e. | " in text
    assert "slam in one room only vs epbot:WBridge5-Sayc" in text and "| bfg " not in text
    entry = json.loads(log.read_text().splitlines()[1])
    assert (entry["seed"], entry["seed_from"], entry["marks_sha256"]) == (seed, "marks", mark)
    assert entry["policy_sha256"] == sha and entry["bars_of_issue"] == 60
    assert set(entry["rows"]) == {"epbot:WBridge5-Sayc", "epbot:WBridge5-21GF"}
    assert set(entry["bars"].values()) <= {"PASS", "FAIL"} and len(entry["bars"]) == 3

    monkeypatch.setattr(bench, "run_rows", no_play)  # the rows from the journal
    assert report.main([*argv, "--bars", "43"]) == 0
    again = capsys.readouterr().out
    assert "these deals were read 1 time(s) before" in again
    assert "| epbot:WBridge5-Sayc >= +0.5 and > 2 s.e. | " in again
    assert len(log.read_text().splitlines()) == 3


def test_the_report_over_another_agent_pairs_its_rows(
    scripts: tuple[ModuleType, ModuleType],
    epbot: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--over SPEC`` plays SPEC's rows on the candidate's deals and prints and logs each row's
    candidate minus SPEC, per board; issue 60's bar over ``default`` is checked for a
    ``search`` candidate ``--over default`` only."""
    _, report = scripts
    cand, other = "search,particles=64,rollouts=16", "bfg"
    sayc, gf = "epbot:WBridge5-Sayc", "epbot:WBridge5-21GF"
    log, journal = tmp_path / "reads.jsonl", tmp_path / "rows.jsonl"
    argv = ["--candidate", cand, "--boards", "8", "--deals-dir", str(tmp_path), "--log",
            str(log), "--journal", str(journal), "--chunk", "4"]  # fmt: skip
    assert report.main([*argv, "--over", other]) == 0
    text = capsys.readouterr().out
    rows = {
        (r["candidate"], r["opponent"]): r
        for r in map(json.loads, journal.read_text().splitlines())
    }
    assert len(rows) == 4 and {us for us, _ in rows} == {cand, other}
    entry = json.loads(log.read_text())
    assert entry["seed"] == report.marks_seed(cand)[0] and entry["wbridge5_min"] == 0.9
    assert entry["over"]["spec"] == other and not any("over" in b for b in entry["bars"])
    assert f"| `{other}` | minus `{other}` (paired) |" in text
    for them in (sayc, gf):
        diff = np.subtract(rows[(cand, them)]["imps"], rows[(other, them)]["imps"])
        assert diff.any()  # the two agents differ on some board, so the pairing is read
        mean, se = entry["over"]["minus"][them]
        assert (mean, se) == pytest.approx((diff.mean(), diff.std(ddof=1) / math.sqrt(8)))
        base = rows[(other, them)]
        assert entry["over"]["rows"][them] == [base["imps_per_board"], base["stderr"]]
        line = text.split(f"| `{them}` |")[1].splitlines()[0]
        assert line.endswith(f"| {report.pm(mean, se)} |")

    assert report.main([*argv, "--over", "default"]) == 0  # the candidate's rows journaled
    capsys.readouterr()
    entry = json.loads(log.read_text().splitlines()[1])
    assert entry["over"]["marks_sha256"] == report.marks_seed("default")[1]
    rows = {(r["candidate"], r["opponent"]): r for r in report.journal_lines(journal)}
    for them in (sayc, gf):
        mean, se = report.paired(rows[(cand, them)]["imps"], rows[("default", them)]["imps"])
        bar = f"{them}: over default >= +0.3 and > 2 s.e. (paired)"
        assert entry["bars"][bar] == ("PASS" if mean >= 0.3 and mean > 2 * se else "FAIL")
    assert report.main([*argv, "--over", cand]) == 2  # the candidate itself
    assert capsys.readouterr().err.startswith("report_field: --over")


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
