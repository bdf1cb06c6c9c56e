"""The user's mistake, as one exception type every part can raise.

Why here: the command line (``bridgebot.cli``) prints a :class:`UserError` as one line and exits
with status 2, but the parts that find the mistake (a deal file in ``laws``, a board option in
``server``, a data file in ``models``) sit below it and must not import it; ``laws`` is the one
package every part imports. ``bridgebot.cli.UserError`` is this class.
"""

from __future__ import annotations


class UserError(ValueError):
    """A mistake in what the user asked for; the message says what and where, in one line."""
