"""The control asking's estimator: the chances of 12 and 13 tricks once partner's controls are
known, served from its ONNX file (``slam/controls/`` beside the slam estimator, trained by
``bridgebot train slamnet --partner-controls``). The rule that reads it is
:class:`engine.control_ask.ControlRule`; the policy that asks, :mod:`engine.control_layer`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from bridgebot.core.arrays import FloatArray, IntArray
from bridgebot.engine.features import FEATURE_VERSION, N_FEATURES, without_their_doubles
from bridgebot.engine.modelcard import Expected, cpu_session, load_model
from bridgebot.engine.slams import N_OUTPUTS, SLAM_ONNX, slam_probs

#: The control estimator's directory inside the slam estimator's (``policy/slam/controls``).
CONTROLS_DIR = "controls"
#: The control estimator's card ``output_version``: the slam estimator's classes, from the
#: observation with partner's control step appended.
CONTROLS_OUTPUT_VERSION = "slam-tricks3-partner-controls-v1"
#: What the control asking needs of its estimator's model directory.
CONTROLS_MODEL = Expected(
    onnx=SLAM_ONNX,
    feature_versions=frozenset({FEATURE_VERSION}),
    inputs=N_FEATURES + 1,
    outputs=N_OUTPUTS,
    remedy="retrain it with 'bridgebot train slamnet --partner-controls'",
    output_version=CONTROLS_OUTPUT_VERSION,
)


def controls_dir(slam_dir: Path) -> Path | None:
    """The control estimator's directory inside the slam estimator's ``slam_dir``, if there is
    one."""
    d = slam_dir / CONTROLS_DIR
    return d if (d / SLAM_ONNX).is_file() else None


class ControlEstimator:
    """The slam estimator's chances with partner's control step as one more input (one ONNX
    session, opened here); ``their_doubles=False`` reads the observation as
    :class:`engine.slams.SlamEstimator` then does, as if the opponents had not doubled."""

    def __init__(self, path: str | Path, threads: int = 1, their_doubles: bool = True) -> None:
        self.their_doubles = their_doubles
        self.model = load_model(path, CONTROLS_MODEL)
        self.session = cpu_session(self.model.onnx_path, threads)

    def chances(self, x: FloatArray, steps: IntArray) -> tuple[FloatArray, FloatArray]:
        """(P(12+), P(13)) per strain, [B, 5] each, for observations ``x`` [B, 480] and
        partner's control steps ``steps`` [B]."""
        seen = np.asarray(x, np.float32) if self.their_doubles else without_their_doubles(x)
        rows = np.concatenate([seen, np.asarray(steps, np.float32)[:, None]], axis=1)
        out = self.session.run(None, {self.model.card.input.name: rows})[0]
        return slam_probs(np.asarray(out, dtype=np.float32))
