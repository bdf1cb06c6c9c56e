"""Fakes shipped with the package, so every test layer (and anyone debugging a bot against a
transcript) reuses the same ones:

* :mod:`.peers`: scripted peers (a scripted table manager, a scripted seat, a scripted agent),
  proxies that tamper with one seat's lines or bytes, and honest seats;
* :mod:`.styles`: scripted seats in the style of every known client (canonical, WBridge5, Ben,
  Ben after a board restart, bridge-player, GIB, the ComputerBridge client), sans-IO and over
  TCP, for liveness tests and for ``conform seat``'s;
* :mod:`.clock`: a hand-moved clock for the Timing line and an event loop whose clock skips idle
  time, so timeouts are tested in virtual time;
* :mod:`.golden`: the golden board of docs/protocol.md section 6.1.
"""

from bridgebot.server.testing.clock import FakeClock, VirtualClockLoop
from bridgebot.server.testing.golden import GOLDEN_BOARD, GOLDEN_DEAL, GOLDEN_THINKING, thinking
from bridgebot.server.testing.peers import (
    TEAMS,
    LineProxy,
    RawProxy,
    ScriptedAgent,
    ScriptedSeat,
    ScriptedTableManager,
    ScriptMismatch,
    ScriptStep,
    agent_script,
    canonical_client_script,
    connecting,
    random_seat,
    seat_script,
)

__all__ = [
    "GOLDEN_BOARD",
    "GOLDEN_DEAL",
    "GOLDEN_THINKING",
    "TEAMS",
    "FakeClock",
    "LineProxy",
    "RawProxy",
    "ScriptMismatch",
    "ScriptStep",
    "ScriptedAgent",
    "ScriptedSeat",
    "ScriptedTableManager",
    "VirtualClockLoop",
    "agent_script",
    "canonical_client_script",
    "connecting",
    "random_seat",
    "seat_script",
    "thinking",
]
