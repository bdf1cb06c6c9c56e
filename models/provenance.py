"""Where a shipped model came from: recorded in every ``model.json`` (no torch needed here)."""

from __future__ import annotations

import subprocess


def git_commit() -> str:
    """The checkout's HEAD, with ``+dirty`` when models/ or engine/ have uncommitted changes."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True, timeout=10
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "models", "engine"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return out.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
