"""Output dialects: the few lines where no single form satisfies every known peer.

docs/protocol.md section 2.8 gives the canonical output; section 7 shows why two lines need options:
table-master-parser (and so bridge-player) rejects the spec's parenthesised seated line, and Ben
crashes on the spec's Teams line with a full stop after the N/S name. Everything the table manager
or seat client may want to vary per peer lives here, so the codec stays one function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SeatedForm = Literal["paren", "quoted", "bare"]
TeamsForm = Literal["canonical", "spec", "colonless"]


@dataclass(frozen=True)
class Dialect:
    """How to render the lines peers disagree on. The defaults suit the most peers (section 2.8).

    seated: ``paren`` = ``North ("T") seated`` (spec, ComputerBridge, OpenSpiel, WBridge5);
        ``quoted`` = ``North "T" seated`` (ZBridge; bridge-player accepts it);
        ``bare`` = ``North T seated`` (bridge_env, Bridge Moniteur; bridge-player accepts it).
    teams: ``canonical`` = ``Teams : N/S : "A" E/W : "B"`` (ComputerBridge, bridge_env; Ben needs it);
        ``spec`` = ``Teams : N/S : "A". E/W : "B"`` (the v18 text; breaks Ben and bridge-player);
        ``colonless`` = ``Teams: N/S "A" E/W "B"`` (OpenSpiel towards WBridge5).
    playing_suffix: append ``. Playing IMP``/``. Playing MP`` when ``Teams.scoring`` is set, as
        ComputerBridge does; off drops it for peers that only take the plain line.
    board_final_stop: the final full stop of the board line; bridge_env requires it, ZBridge
        rejects it (it wants exactly two full stops).
    timing_final_stop: the final full stop of the Timing line (ComputerBridge adds one, the spec and
        Bridge Moniteur do not).
    early_dummy: seat side, send ``ready for dummy`` right after the auction instead of after the
        opening lead (bridge-player's order). Rendering does not use it; the seat machine does.
    """

    seated: SeatedForm = "paren"
    teams: TeamsForm = "canonical"
    playing_suffix: bool = True
    board_final_stop: bool = True
    timing_final_stop: bool = True
    early_dummy: bool = False


DEFAULT_DIALECT = Dialect()
#: What bridge-player (table-master-parser) needs from a table manager.
BRIDGE_PLAYER_DIALECT = Dialect(seated="quoted")
#: What OpenSpiel's wrapper sent to WBridge5 (which accepted it).
OPENSPIEL_DIALECT = Dialect(teams="colonless")
#: ZBridge: quoted seated line, no final full stop on the board line.
ZBRIDGE_DIALECT = Dialect(seated="quoted", board_final_stop=False)
