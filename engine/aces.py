"""The old home of control asking, kept for the callers not yet moved: new code imports from the
modules by job, :mod:`engine.control_ask` (the convention on auctions and the asker's rule),
:mod:`engine.control_estimator` (the estimator's ONNX serving) and :mod:`engine.control_asking`
(the asking policy and its pipeline layer).

Ace asking (``aces=on``) and the deals at the decision (``controls_dd``) were removed: the
project's measurements found neither profitable (docs/evaluation.md, "Ace asking (`aces=on`,
`engine/aces.py`)" and "Control asking"). The callers still here: ``engine.policy``,
``engine.search.agent``, ``engine.explain`` and ``models.convention`` (and the record's recorder,
``scripts/record_calls.py``, run on the code before issue 42); once they import from the modules
above, this module goes.
"""

from __future__ import annotations

from collections.abc import Sequence

from bridgebot.engine import control_ask
from bridgebot.engine.control_ask import CONTROLS, ControlRule, control_step, controls, is_ask
from bridgebot.engine.control_asking import ControlAsking, Convention, ConventionLayer
from bridgebot.engine.control_estimator import (
    CONTROLS_DIR,
    CONTROLS_OUTPUT_VERSION,
    ControlEstimator,
    controls_dir,
)

__all__ = [
    "CONTROLS",
    "CONTROLS_DIR",
    "CONTROLS_OUTPUT_VERSION",
    "ControlAsking",
    "ControlEstimator",
    "ControlRule",
    "Convention",
    "ConventionLayer",
    "control_step",
    "controls",
    "controls_dir",
    "is_ask",
    "meaning",
    "role",
]


def meaning(calls: Sequence[int], call: int, scheme: str = CONTROLS) -> str | None:
    """:func:`engine.control_ask.meaning` where ``scheme`` is control asking, else None."""
    return control_ask.meaning(calls, call) if scheme == CONTROLS else None


def role(calls: Sequence[int], scheme: str = CONTROLS) -> str | None:
    """:func:`engine.control_ask.role` where ``scheme`` is control asking, else None."""
    return control_ask.role(calls) if scheme == CONTROLS else None
