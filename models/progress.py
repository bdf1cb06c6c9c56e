"""Progress of the long commands (teach, ddgen, train ...): tqdm bars on stderr.

A bar draws only when stderr is a terminal (tqdm's ``disable=None``) and not at all when the
command was asked to be quiet, so logs and pipes never fill with redrawn lines.
"""

from __future__ import annotations

import sys
from typing import Any

from tqdm import tqdm


def progress_bar(total: int, unit: str, desc: str, *, initial: int = 0, show: bool = True) -> Any:
    """A bar counting ``unit`` from ``initial`` to ``total`` (a resumed run starts part way)."""
    return tqdm(
        total=total,
        initial=initial,
        unit=unit,
        desc=desc,
        file=sys.stderr,
        dynamic_ncols=True,
        disable=None if show else True,
    )
