"""The user's mistake, as one exception type every part can raise.

Why here: the command line (``bridgebot.cli``) prints a :class:`UserError` as one line and exits
with status 2, but the parts that find the mistake (a deal file in ``laws``, a board option in
``server``, a data file in ``models``) sit below it and must not import it; ``laws`` is the one
package every part imports. ``bridgebot.cli.UserError`` is this class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class UserError(ValueError):
    """A mistake in what the user asked for; the message says what and where, in one line."""


def validation_fault(error: ValidationError, limit: int = 1) -> str:
    """The first ``limit`` faults of a record that failed its schema, as ``field LOC: MESSAGE``
    (the loc is ``(the whole file)`` when the document itself is at fault: not JSON, or not an
    object), joined by ``; ``.

    Every reader of a project file (model cards, journals, standings, metrics) puts this after
    the file's name, so one message names both."""
    faults = []
    for fault in error.errors()[:limit]:
        where = ".".join(str(k) for k in fault["loc"]) or "(the whole file)"
        faults.append(f"field {where}: {fault['msg']}")
    return "; ".join(faults)
