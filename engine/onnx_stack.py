"""The Gemm/Relu stack every shipped network's graph is (no torch): its nodes and initializers
from the weights, for the exporter (:func:`models.onnx_mlp.mlp_graph`) and for the graphs
derived from a shipped one at run time (:func:`engine.policy.hand_split_graph`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt


def gemm_relu_stack(
    layers: Sequence[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]],
    input_name: str,
    output_name: str,
    first: int = 0,
) -> tuple[list[Any], list[Any]]:
    """(nodes, initializers) applying ``layers`` (weight [out, in], bias [out]) in order to
    ``input_name`` with a ReLU between each two, the last writing ``output_name``. Layer ``i``
    (counted from ``first``) keeps its weights in ``w{i}``, ``b{i}``; its outputs are ``h{i}``
    and ``r{i}``. Needs the ``onnx`` package."""
    from onnx import helper, numpy_helper

    nodes: list[Any] = []
    inits: list[Any] = []
    current = input_name
    for k, (w, b) in enumerate(layers):
        i = first + k
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        last = k == len(layers) - 1
        out = output_name if last else f"h{i}"
        nodes.append(helper.make_node("Gemm", [current, f"w{i}", f"b{i}"], [out], transB=1))
        if not last:
            nodes.append(helper.make_node("Relu", [out], [f"r{i}"]))
            out = f"r{i}"
        current = out
    return nodes, inits
