"""core.runs: where the state folder is, what a run name may be, and what a run works on: its
state where there is one, ``--out`` copied in where there is none, ``--out`` itself without a
name; the result copied to ``--out``, each file whole."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest
from bridgebot.core.runs import ENV, add_run, open_run, reads_log, run_name, runs_root


def test_the_state_folder_is_the_variable_else_the_users_cache() -> None:
    home = Path.home()
    assert runs_root({}) == home / ".cache" / "bridgebot" / "runs"
    assert runs_root({"XDG_CACHE_HOME": ""}) == home / ".cache" / "bridgebot" / "runs"
    assert runs_root({"XDG_CACHE_HOME": "/c"}) == Path("/c/bridgebot/runs")
    assert runs_root({ENV: "/r", "XDG_CACHE_HOME": "/c"}) == Path("/r")
    assert runs_root({ENV: "~/r"}) == home / "r"
    assert reads_log({ENV: "/r"}) == Path("/r/field_reads.jsonl")


def test_a_run_name_is_a_folder_name_never_a_path() -> None:
    assert run_name("labels-2026.a_1") == "labels-2026.a_1"
    for bad in ("", "..", "a/b", "/abs", ".hidden", "a b"):
        with pytest.raises(argparse.ArgumentTypeError, match="is not a run name"):
            run_name(bad)
    parser = argparse.ArgumentParser()
    add_run(parser)
    assert parser.parse_args([]).run is None
    assert parser.parse_args(["--run", "x"]).run == "x"


def test_without_a_name_a_command_works_on_out(tmp_path: Path) -> None:
    told = io.StringIO()
    state = open_run(None, tmp_path / "x.npz", told)
    assert state.path == state.out == tmp_path / "x.npz" and not state.kept
    assert told.getvalue() == "" and state.note == ""
    state.publish()  # nothing to do
    assert not (tmp_path / "x.npz").exists()


def test_a_missing_state_starts_clean_or_from_out_and_a_kept_one_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs"
    monkeypatch.setenv(ENV, str(runs))
    told = io.StringIO()
    state = open_run("r", tmp_path / "tree" / "x.npz", told)
    assert told.getvalue() == f"no state for run r under {runs}: starting clean\n"
    assert state.path == runs / "r" / "x.npz" and state.path.parent.is_dir()
    state.publish()  # the run wrote nothing: nothing to copy
    assert not state.out.exists()
    state.path.write_bytes(b"one")
    state.publish()
    assert state.out.read_bytes() == b"one"
    again = open_run("r", tmp_path / "other" / "x.npz")  # another work tree, the same name
    assert again.note == f"run r: resuming from {runs / 'r' / 'x.npz'}"
    other = open_run("r", tmp_path / "other" / "y.npz")  # the run's second file
    assert other.note == f"no y.npz in run r under {runs}: starting clean"
    # A file made before the run had a name: the state starts as its copy.
    old = tmp_path / "old.npz"
    old.write_bytes(b"old")
    seeded = open_run("s", old)
    assert seeded.note == f"no state for run s under {runs}: starting from {old}"
    assert seeded.path.read_bytes() == b"old"
    # A training run's folder, its half-written save left out of the copy.
    folder = runs / "t" / "imi"
    (folder / "sub").mkdir(parents=True)
    (folder / "ckpt.pt").write_bytes(b"c")
    (folder / "sub" / "log.jsonl").write_text("{}\n")
    (folder / "ckpt.pt.tmp.pt").write_bytes(b"half")
    run = open_run("t", tmp_path / "tree" / "imi")
    assert run.note == f"run t: resuming from {folder}"
    run.publish()
    copied = sorted(p.relative_to(run.out).as_posix() for p in run.out.rglob("*"))
    assert copied == ["ckpt.pt", "sub", "sub/log.jsonl"]
