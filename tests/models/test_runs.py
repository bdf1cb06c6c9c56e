"""Long runs keep their state under ``$BRIDGEBOT_RUNS`` (``--run NAME``): a run killed mid-way
resumes from its state folder with the same command, in a fresh work tree, and ends with the file
or the weights an uninterrupted run makes; a missing state folder starts clean, saying so in one
line. Each run is a real ``bridgebot`` process, killed with SIGKILL once its first checkpoint is
in the state folder (nothing of it runs after that: no handler, no save)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from bridgebot.models.teach import generate

from bridgebot.cli import main

BRIDGEBOT = [sys.executable, "-m", "bridgebot"]


def _load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _killed_after_first_checkpoint(argv: list[str], cwd: Path, runs: Path, checkpoint: Path) -> str:
    """Run ``bridgebot ARGV`` in ``cwd`` with the state folder ``runs``, SIGKILL it as soon as
    ``checkpoint`` exists, and return its stderr. Fails if it ends before."""
    cwd.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [*BRIDGEBOT, *argv],
        cwd=cwd,
        env=dict(os.environ, BRIDGEBOT_RUNS=str(runs)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    deadline = time.monotonic() + 300
    try:
        while not checkpoint.exists():
            assert proc.poll() is None, f"ended before its first checkpoint: {proc.stderr}"
            assert time.monotonic() < deadline, "no checkpoint in 300 s"
            time.sleep(0.01)
    finally:
        proc.kill()
        _, err = proc.communicate(timeout=60)
    return err


def _again(argv: list[str], cwd: Path, runs: Path) -> subprocess.CompletedProcess[str]:
    """The same command in a fresh work tree ``cwd`` (a new session), to its end."""
    cwd.mkdir(parents=True)
    return subprocess.run(
        [*BRIDGEBOT, *argv],
        cwd=cwd,
        env=dict(os.environ, BRIDGEBOT_RUNS=str(runs)),
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_killed_teach_run_resumes_from_its_state_folder_in_a_new_work_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "cache" / "runs"
    words = ["teach", "--boards", "1600", "--seed", "4", "--workers", "1", "--checkpoint", "200",
             "--quiet", "--run", "labels-1", "--out", "data/teach.npz"]  # fmt: skip
    state = runs / "labels-1" / "teach.npz"
    err = _killed_after_first_checkpoint(words, tmp_path / "session1", runs, state)
    assert err.splitlines()[0] == f"no state for run labels-1 under {runs}: starting clean"
    done = len(_load(state)["owners"])
    assert 0 < done < 1600  # killed mid-way
    assert not (tmp_path / "session1" / "data" / "teach.npz").exists()  # --out: when it ends
    again = _again(words, tmp_path / "session2", runs)  # the work tree laid anew
    assert again.returncode == 0, again.stderr
    assert again.stderr.splitlines()[0] == f"run labels-1: resuming from {state}"
    resumed = _load(tmp_path / "session2" / "data" / "teach.npz")
    # The same command never interrupted (another run name, so another state folder).
    monkeypatch.setenv("BRIDGEBOT_RUNS", str(runs))
    monkeypatch.chdir(tmp_path)
    assert main([*words[:-4], "--run", "whole", "--out", "whole.npz"]) == 0
    whole = _load(tmp_path / "whole.npz")
    assert resumed.keys() == whole.keys()
    for key in resumed:
        assert np.array_equal(resumed[key], whole[key]), key
    assert np.array_equal(_load(state)["auctions"], whole["auctions"])  # the state is the result


@pytest.mark.train
def test_a_killed_imitation_run_resumes_to_the_same_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    torch = pytest.importorskip("torch")  # the train extra
    from bridgebot.models.net import load_checkpoint

    teach = tmp_path / "teach.npz"
    generate(teach, 1200, seed=1, progress=False)
    runs = tmp_path / "cache"
    words = ["train", "imitation", "--data", str(teach), "--out", "runs/imi", "--run", "imi",
             "--epochs", "2", "--batch", "16", "--hidden", "32", "--layers", "1",
             "--holdout", "100", "--save-every", "100", "--threads", "1", "--quiet"]  # fmt: skip
    checkpoint = runs / "imi" / "imi" / "ckpt.pt"
    _killed_after_first_checkpoint(words, tmp_path / "session1", runs, checkpoint)
    _, state = load_checkpoint(str(checkpoint))
    killed_at = int(state["step"])
    again = _again(words, tmp_path / "session2", runs)
    assert again.returncode == 0, again.stderr
    assert again.stderr.splitlines()[0] == f"run imi: resuming from {checkpoint.parent}"
    out = tmp_path / "session2" / "runs" / "imi"
    assert sorted(p.name for p in out.iterdir()) == [
        "ckpt.pt", "log.jsonl", "metrics.json", "policy.pt"
    ]  # fmt: skip
    resumed, _ = load_checkpoint(str(out / "policy.pt"))
    monkeypatch.setenv("BRIDGEBOT_RUNS", str(runs))
    monkeypatch.chdir(tmp_path)
    whole_words = [w if w != "imi" else "whole" for w in words]
    assert main(whole_words) == 0
    whole, blob = load_checkpoint(str(tmp_path / "runs" / "imi" / "policy.pt"))
    assert 0 < killed_at < blob["meta"]["metrics"]["steps"]  # type: ignore[index]  # mid-way
    for (name, a), (_, b) in zip(
        resumed.state_dict().items(), whole.state_dict().items(), strict=True
    ):
        assert torch.equal(a, b), name
