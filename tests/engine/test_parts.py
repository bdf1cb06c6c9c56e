"""An agent says what it plays (engine.parts): the factory assembles it once, every wrapper
forwards its parts, each model file is opened once per agent, and no code outside an agent walks
its attributes to find out (a check that fails on a planted walk)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from bridgebot.engine.control_layer import ControlAsking, ConventionLayer
from bridgebot.engine.explain import PolicyReader, reader_of
from bridgebot.engine.modelcard import forget_model_files
from bridgebot.engine.parts import layer_of, parts_of
from bridgebot.engine.slams import SlamLayer

from bridgebot.agents import make_agent
from tests.policies import LAYERED, layered

ROOT = Path(__file__).resolve().parents[2]


def opened(spec: str, monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The ONNX files ``make_agent(spec)`` opens, with how often, relative to the repository.

    The process's model files are forgotten first (``engine.modelcard`` reads each once a
    process and shares its session), so the count is what this one agent needs."""
    forget_model_files()
    seen: Counter[str] = Counter()
    real = Path.open

    def counting(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self.suffix == ".onnx":
            seen[str(self.resolve().relative_to(ROOT))] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", counting)
    with make_agent(spec):
        pass
    return seen


@pytest.mark.parametrize(
    ("spec", "model"),
    [("default", "models/default"), (layered("default"), "tests/layered_default")],
)
def test_default_opens_each_model_file_once(
    spec: str, model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One stack: the search where doubled shares the policy agent's policy and estimators
    (before: 9 sessions, the policy and both estimators twice). The shipped model is a policy
    alone; the layered one has the slam and control estimators."""
    got = opened(spec, monkeypatch)
    estimators = (
        {f"{model}/slam/slam.onnx": 1, f"{model}/slam/controls/slam.onnx": 1}
        if model != "models/default"
        else {}
    )
    assert got == {
        f"{model}/policy.onnx": 1,
        **estimators,
        "models/ddnet/ddnet.onnx": 1,
        "models/belief/belief.onnx": 1,
        "models/bfgnet/policy.onnx": 1,
    }, got


@pytest.mark.parametrize(
    ("spec", "sessions"),
    [
        ("default,doubled=policy", 1),
        ("search", 4),
        (layered("default,doubled=policy"), 3),
        (layered("search"), 6),
        (layered("default,slams=off,doubled=policy"), 1),
    ],
)
def test_other_agents_open_what_they_bid_with(
    spec: str, sessions: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    got = opened(spec, monkeypatch)
    assert sum(got.values()) == sessions and set(got.values()) == {1}, got


@pytest.mark.parametrize(
    "spec",
    [
        *map(layered, ["default", "default,doubles=on", "default,play=baseline", "search"]),
        f"policy:{LAYERED}",
    ],
)
def test_every_wrapper_forwards_the_parts(spec: str) -> None:
    with make_agent(spec) as agent:
        parts = parts_of(agent)
        assert parts.policy is not None
        doubles = ["doubles"] if "doubles=on" in spec else []
        assert [layer.name for layer in parts.layers] == ["slam", "controls", *doubles]
        assert isinstance(layer_of(parts, SlamLayer), SlamLayer)
        conv = layer_of(parts, ConventionLayer)
        assert conv is not None and isinstance(conv.convention, ControlAsking)
        assert parts.convention == "controls"
        assert isinstance(reader_of(agent), PolicyReader)


@pytest.mark.parametrize(
    "spec", ["default", "default,doubles=on", "search", "policy:models/default"]
)
def test_the_shipped_policy_alone_has_no_layers(spec: str) -> None:
    """No layer but the penalty doubles, where the spec asks for them."""
    with make_agent(spec) as agent:
        parts = parts_of(agent)
        names = [layer.name for layer in parts.layers]
        assert names == (["doubles"] if "doubles=on" in spec else [])
        assert parts.policy is not None and parts.convention is None
        assert isinstance(reader_of(agent), PolicyReader)


@pytest.mark.parametrize("spec", ["bfg", "random", "bfg,doubles=on"])
def test_rule_bidders_say_nothing(spec: str) -> None:
    with make_agent(spec) as agent:
        assert parts_of(agent).policy is None and reader_of(agent) is None


# -- no attribute walks --------------------------------------------------------------------------

#: Attributes that hold an agent's insides: reading them by name from outside is a walk.
INSIDES = frozenset(
    {"agent", "inner", "search", "policy", "aces", "slam", "convention", "bidder", "base", "layers"}
)


def walks(source: str, where: str) -> list[str]:
    """``getattr(x, "<an inside>")`` anywhere in ``source``: finding an agent's parts by probing
    its attributes instead of asking :func:`engine.parts.parts_of`."""
    found = []
    for node in ast.walk(ast.parse(source, where)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in INSIDES
        ):
            found.append(f"{where}:{node.lineno}: {node.func.id}(..., {node.args[1].value!r})")
    return found


def project_sources() -> list[Path]:
    folders = ("bridgebot", "engine", "server", "tournament", "models", "laws", "protocol")
    return [p for f in folders for p in sorted((ROOT / f).rglob("*.py"))]


def test_no_code_walks_an_agents_attributes() -> None:
    found = [w for p in project_sources() for w in walks(p.read_text(), str(p.relative_to(ROOT)))]
    assert found == []


def test_a_planted_walk_is_found() -> None:
    planted = (
        "def policy_of(agent):\n"
        "    for holder in (agent, getattr(agent, 'search', None)):\n"
        "        if hasattr(holder, 'policy'):\n"
        "            return holder.policy\n"
    )
    assert walks(planted, "planted.py") == [
        "planted.py:2: getattr(..., 'search')",
        "planted.py:3: hasattr(..., 'policy')",
    ]
