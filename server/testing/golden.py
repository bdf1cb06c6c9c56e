"""The golden board of docs/protocol.md section 6.1 (ComputerBridge's transcript of one board).

Its transcript lives with the tests (``tests/peers/transcript_6_1.txt``); the board itself is what
a table manager needs to replay it: North deals, nobody vulnerable, 3S by South making ten tricks.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from bridgebot.protocol.table import TableBoard
from bridgebot.server.testing.clock import FakeClock
from endplay.types import Deal, Player, Vul

GOLDEN_DEAL = "N:AT43.T853.KT.KT6 J7.Q76.Q85.QJ873 K985.A.AJ76.9542 Q62.KJ942.9432.A"
GOLDEN_BOARD = TableBoard(
    number=1, dealer=Player.north, vul=Vul.none, deal=Deal.from_pbn(GOLDEN_DEAL)
)
#: Thinking time in the transcript's Timing line: West 8 s over the opening lead (``West plays
#: AC``), South 14 s over the last card (played from dummy: ``North plays 3S``).
GOLDEN_THINKING = {Player.west: ("West plays AC", 8.0), Player.south: ("North plays 3S", 14.0)}


def thinking(clock: FakeClock) -> dict[Player, dict[str, Callable[[], object]]]:
    """``ScriptedSeat(before=...)`` hooks per seat that advance ``clock`` by the transcript's
    thinking time just before the seat writes the line it thought over."""
    return {
        seat: {line: functools.partial(clock.advance, seconds)}
        for seat, (line, seconds) in GOLDEN_THINKING.items()
    }
