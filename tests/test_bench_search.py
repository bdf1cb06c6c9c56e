"""benchmarks/bench_search.py: the cross-table against another baseline, and a deal file too short
for the boards asked, on the committed ddgen file (three deals)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
        "--by-kind",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "search,particles=16,rollouts=4 minus default" in run.stdout  # each side by its spec
    summary = json.loads(out.read_text())
    row = summary["rows"][0]
    assert summary["baseline"] == "default" and row["boards"] == 2
    # the boards by what the search changed on them: every board once, the parts add up
    assert sum(k["boards"] for k in row["by_kind"]) == 2
    assert sum(k["per_board"] for k in row["by_kind"]) == pytest.approx(row["gain"])
    journal = [json.loads(line) for line in (tmp_path / "j.jsonl").read_text().splitlines()]
    assert {json.loads(r["key"])[0] for r in journal} == {
        "default",
        "search,particles=16,rollouts=4",
    }


def test_a_change_is_named_by_what_the_search_made_of_the_policys_call() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from bench_search import change_kind
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    from bridgebot.laws.calls import call_index

    one_club, two_spades, four_hearts = call_index(1, 0), call_index(2, 3), call_index(4, 2)
    assert change_kind(0, one_club) == "bid, not pass"
    assert change_kind(four_hearts, 0) == "pass, not bid"
    assert change_kind(two_spades, 1) == change_kind(0, 2) == "double"
    assert change_kind(1, 0) == change_kind(1, two_spades) == "not double"
    assert change_kind(two_spades, four_hearts) == "higher bid"
    assert change_kind(four_hearts, two_spades) == "lower bid"


def test_more_held_out_deals_than_the_file_has_is_one_line() -> None:
    run = _run("--boards", "2", "--held-out", "4")
    assert run.returncode == 1
    assert run.stderr.strip().splitlines() == [
        f"{DEALS} has 3 deals: --held-out 4 (the last N deals) must be at most that, "
        "and --boards 2 at most --held-out"
    ]


def test_a_journaled_chunk_counts_only_for_the_model_that_played_it(tmp_path: Path) -> None:
    """The journal keys each chunk by both sides' fingerprints (every file each builder reads,
    ``bridgebot.marks.fingerprint``) as well as their spec text: the same spec over another
    model (a new ``default`` shipped into the same directory) plays the chunk again instead of
    reusing the old model's IMPs."""
    import shutil

    from bridgebot import marks

    model = tmp_path / "model"
    shutil.copytree(ROOT / "models" / "default", model)
    journal = tmp_path / "j.jsonl"
    args = (
        "--boards", "2", "--held-out", "3", "--workers", "1", "--chunk", "2",
        "--opponents", "random", "--spec", f"search:{model},particles=16,rollouts=4",
        "--baseline", f"default:{model}", "--journal", str(journal),
    )  # fmt: skip
    assert _run(*args).returncode == 0
    first = [json.loads(line)["key"] for line in journal.read_text().splitlines()]
    assert _run(*args).returncode == 0  # the same model: every chunk is reused
    assert [json.loads(line)["key"] for line in journal.read_text().splitlines()] == first
    shutil.rmtree(model)
    shutil.copytree(ROOT / "tests" / "layered_default", model)  # another policy, same path
    run = _run(*args)
    assert run.returncode == 0, run.stderr
    keys = [json.loads(json.loads(line)["key"]) for line in journal.read_text().splitlines()]
    assert len(keys) == 2 * len(first)  # both sides played again
    assert all(k[7] == marks.fingerprint(k[0]) for k in keys[len(first) :])
    assert all(k[7] != marks.fingerprint(k[0]) for k in keys[: len(first)])


def test_a_chunk_refuses_a_policy_file_changed_since_the_run_started(tmp_path: Path) -> None:
    """Each chunk of the search's matches checks both sides' policy files against the sha256 the
    run started with (as the rows of ``dd_rows`` do): a model directory changed mid-run stops it
    in one line instead of mixing two models' boards into one row."""
    import shutil

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_search
        import dd_rows
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    model = tmp_path / "model"
    shutil.copytree(ROOT / "models" / "default", model)
    spec = f"default:{model}"
    job = {
        "us": spec, "them": "random", "data": str(DEALS), "first": 0, "n": 1, "offset": 0,
        "seed": 1, "policies": [dd_rows.fingerprint(spec), None],
    }  # fmt: skip
    assert len(bench_search._chunk_match(job)["imps"]) == 1  # unchanged: it plays
    shutil.copy(ROOT / "tests" / "layered_default" / "policy.onnx", model / "policy.onnx")
    with pytest.raises(dd_rows.PolicyChangedError, match=r"changed before boards \[0, \+1\)"):
        bench_search._chunk_match(job)


def test_a_journaled_chunk_counts_only_for_the_settings_that_played_it() -> None:
    """The key holds each side's settings digest (every option as the code reads it, defaults
    included), so a chunk of ``search`` played before one of its defaults changed (``close_bids``
    in run 26) is played again: the digest follows the settings, not the spec's text."""
    from bridgebot.marks import settings_digest as digest

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_search
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert digest("search") == digest("search,close_bids=0.2")  # today's default, written out
    assert digest("search") != digest("search,close_bids=1")  # the search before run 26
    assert digest("default") != digest("default,doubles=on")
    key = json.loads(bench_search._chunk_key("search", "random", str(DEALS), 0, 1, 0, 1))
    assert key[-2:] == [digest("search"), digest("random")]


def test_the_profile_says_where_a_searched_calls_time_goes(tmp_path: Path) -> None:
    """``--profile N``: the wall seconds of the searched calls, and every stage's share of their
    CPU time, the stages adding up to the whole call."""
    out = tmp_path / "profile.json"
    run = _run("--boards", "3", "--held-out", "3", "--profile", "2",
               "--spec", "search,particles=64,rollouts=8",
               "--out", str(out))  # fmt: skip
    assert run.returncode == 0, run.stderr
    summary = json.loads(out.read_text())
    assert summary["searched_calls"] >= 2 and 0 < summary["median_s"] <= summary["p95_s"]
    shares = summary["stages_share"]
    assert {"particles: sampling", "particles: weighting (auction likelihood)", "rollouts",
            "oracle: ddnet"} <= set(shares)  # fmt: skip
    assert sum(shares.values()) == pytest.approx(1.0)
    assert all(v >= 0 for v in shares.values()) and shares["rollouts"] > 0
    assert 0 < summary["within them: policy networks"] < 1
    first = run.stdout.splitlines()[0]
    assert first.startswith("search,particles=64,rollouts=8: ") and "median" in first
    assert "cumulative" in run.stdout  # the profiler's own table follows
