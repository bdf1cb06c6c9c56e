"""Every user error of a command (``tm`` has its own tests) is one line on stderr and a non-zero
exit status, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bridgebot.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_train_without_the_train_extra_names_the_extra(tmp_path: Path) -> None:
    """A machine without torch: ``sys.modules['torch'] = None`` makes every import of it fail as
    a missing package does."""
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from bridgebot.cli import main\n"
        "sys.exit(main(sys.argv[1:]))"
    )
    for argv in (["train", "imitation", "--data", "x.npz", "--out", "run"],
                 ["export", "--checkpoint", "x.pt", "--out", "m", "--dd", "dd.npz"]):  # fmt: skip
        proc = subprocess.run(
            [sys.executable, "-c", code, *argv],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 2
        line = _one_line(proc.stderr)
        assert "needs the 'train' extra" in line and "pip install -e '.[train]'" in line


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["ddgen", "--boards", "2", "--out", "{tmp}/no/such/dir/d.npz"], "No such file"),
        (["match", "--boards", "1", "--out", "{tmp}/file"], "cannot create the directory"),
        (["match", "--deals", "{tmp}/none.pbn", "--out", "{tmp}/m"], "no such deal file"),
        (["match", "--us", "nosuch", "--out", "{tmp}/m"], "unknown agent 'nosuch'"),
        (["match", "--us", "default,worlds=x", "--out", "{tmp}/m"], "worlds must be an integer"),
        (["match", "--room-port", "open=99999", "--out", "{tmp}/m"], "not 1..65535"),
        (["match", "--allow-address", "10.0.0.300", "--out", "{tmp}/m"], "not an address"),
        (["match", "--us-name", "x", "--them-name", "x", "--out", "{tmp}/m"], "must differ"),
        (["seat", "--agent", "nosuch", "--port", "2000", "--seat", "north", "--team", "t"],
         "unknown agent"),
        (["seat", "--port", "99999", "--seat", "north", "--team", "t"], "not a port number"),
        (["export", "--checkpoint", "x.pt", "--out", "{tmp}/m", "--dd", "d.npz",
          "--metrics", "{tmp}/file"], "file: not a JSON object of metrics: field (the whole file)"),
        (["export", "--checkpoint", "x.pt", "--out", "{tmp}/m", "--dd", "d.npz",
          "--metrics", "{tmp}/metrics.json"], "metrics.json: not a JSON object of metrics: "
         "field (the whole file): Input should be an object"),
        (["export", "--checkpoint", "x.pt", "--out", "{tmp}/m", "--dd", "d.npz",
          "--metrics", "{tmp}/none.json"], "none.json: cannot read the metrics"),
    ],
)  # fmt: skip
def test_user_errors_are_one_line_and_a_nonzero_exit(
    argv: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("a file where a directory is wanted")
    (tmp_path / "metrics.json").write_text('[{"imps": 1.25}]')
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's own errors: usage, then one error line
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert code != 0
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    if not err.startswith("usage:"):
        _one_line(err)
    assert expected in last, err
