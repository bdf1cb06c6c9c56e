"""The numpy array types the parts name, each defined once.

``FloatArray`` is float32, the dtype of observations, logits and every network's input and
output; a float64 array (probabilities summed over many rows, training statistics) is
``Float64Array``, never ``FloatArray``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]
Float64Array = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
U8Array = npt.NDArray[np.uint8]
