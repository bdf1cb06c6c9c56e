"""scripts/check and scripts/demo find the virtual environment themselves, or stop with a
sentence saying how to make one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BARE = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}  # nothing activated


def _copy_scripts(repo: Path) -> None:
    (repo / "scripts").mkdir()
    for name in ("venv.sh", "check", "demo"):
        shutil.copy2(ROOT / "scripts" / name, repo / "scripts" / name)


def test_both_scripts_use_the_helper() -> None:
    for name in ("check", "demo"):
        text = (ROOT / "scripts" / name).read_text()
        assert "source scripts/venv.sh" in text and f"find_venv scripts/{name}" in text


def test_the_repository_venv_is_found_without_activation(tmp_path: Path) -> None:
    _copy_scripts(tmp_path)
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    proc = subprocess.run(
        ["bash", "-c", 'source scripts/venv.sh && find_venv t && echo "$VIRTUAL_ENV" && '
         "command -v python"],
        cwd=tmp_path, env=BARE, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [str(tmp_path / ".venv"), str(tmp_path / ".venv/bin/python")]


def test_without_a_venv_the_scripts_say_so_in_one_sentence(tmp_path: Path) -> None:
    _copy_scripts(tmp_path)
    for name in ("check", "demo"):
        proc = subprocess.run(
            [str(tmp_path / "scripts" / name)],
            cwd=tmp_path, env=BARE, capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        assert proc.returncode == 1
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"scripts/{name}: no virtual environment")
        assert "python3 -m venv .venv" in lines[0]


def test_a_venv_without_the_dev_tools_is_named(tmp_path: Path) -> None:
    _copy_scripts(tmp_path)
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    proc = subprocess.run(
        [str(tmp_path / "scripts" / "check")],
        cwd=tmp_path, env=BARE, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert proc.returncode == 1
    assert "'ruff' is not installed" in proc.stderr and "pip install -e '.[dev]'" in proc.stderr
