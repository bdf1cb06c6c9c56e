"""Models loaded once, specs parsed once (issue 62, item 4): one ``bridgebot match --us default``
builds ``default`` six times (the check of the spec, its marks, four seats, the report) and
``bfg`` as often, one agent per seat as before, but opens each model file once in the process
(``engine.modelcard.read_model_file``; the onnxruntime sessions are shared) and parses each spec
once (``bridgebot.services.AgentBuilder``); its calls and cards are those of agents that each
open their own files.

Opens are counted by Python's audit hook (the ``open`` event of every file Python opens, in any
thread); onnxruntime is handed the bytes read, so it opens nothing itself.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from bridgebot.engine import modelcard
from bridgebot.engine.modelcard import forget_model_files

from bridgebot.shipped import DEFAULT_MODEL_DIR, PENALTY_DOUBLES, record_name
from bridgebot.specs import AgentSpec
from tests.in_process import bridgebot

#: Where the files an agent reads are: the shipped models and the penalty-double model.
WATCHED = (DEFAULT_MODEL_DIR.parent.resolve(), PENALTY_DOUBLES.resolve())

_COUNTERS: list[Counter[str]] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event != "open" or not _COUNTERS or not isinstance(args[0], str | os.PathLike):
        return
    path = Path(os.fsdecode(args[0])).resolve()
    if any(path == root or path.is_relative_to(root) for root in WATCHED):
        for counter in _COUNTERS:
            counter[record_name(path)] += 1


sys.addaudithook(_audit)  # a hook cannot be removed: it counts only while a test watches


@contextmanager
def opens() -> Iterator[Counter[str]]:
    """The watched files Python opens inside the block, by record name, with how often."""
    counter: Counter[str] = Counter()
    _COUNTERS.append(counter)
    try:
        yield counter
    finally:
        _COUNTERS.remove(counter)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every :meth:`AgentSpec.parse` from here on, by spec text."""
    counted: Counter[str] = Counter()
    parse: Callable[[str], AgentSpec] = AgentSpec.parse

    def counting(cls: type[AgentSpec], text: str) -> AgentSpec:
        counted[text] += 1
        return parse(text)

    monkeypatch.setattr(AgentSpec, "parse", classmethod(counting))
    return counted


def _match(out: Path) -> list[tuple[Any, ...]]:
    """``match --us default --them bfg`` on two boards played out over TCP: every room's calls
    and cards."""
    done = bridgebot(
        "match", "--us", "default", "--them", "bfg", "--boards", "2", "--seed", "3",
        "--scoring", "play", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = (out / "journal.jsonl").read_text().splitlines()[1:]
    rooms = [room for line in lines for room in json.loads(line)["rooms"]]
    return [(r["board"], r["room"], r["auction"], r["play"], r["score_ns"]) for r in rooms]


def test_a_match_opens_each_model_file_once_and_parses_each_spec_once(
    tmp_path: Path, parses: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    forget_model_files()  # what earlier tests of this process read
    with opens() as opened:
        played = _match(tmp_path / "once")
    nets = {
        "default": "policy", "bfgnet": "policy", "ddnet": "ddnet", "belief": "belief",
        "epbotnet": "policy",  # the card player's model of the opponents' calls (play=auction)
    }  # fmt: skip
    shipped = {
        f"bridgebot.models/{model}/{name}"
        for model, onnx in nets.items()
        for name in ("model.json", f"{onnx}.onnx")
    }
    assert set(opened) == shipped  # default's policy, the search's where doubled, the cards'
    assert set(opened.values()) == {1}, opened
    assert parses == {"default": 1, "bfg": 1}
    assert len(played) == 4 and all(r[3] for r in played)  # two boards in two rooms, played out

    # As before: nothing kept, each agent opens its own files. The same calls and cards.
    forget_model_files()
    monkeypatch.setattr(modelcard, "CACHE_SIZE", 0)
    with opens() as opened:
        assert _match(tmp_path / "each") == played
    assert set(opened) == shipped, opened
    cards = {f for f in opened if "epbotnet" in f}  # the card players' own: one per seat of
    assert min(opened[f] for f in cards) >= 4, opened  # default's four, built at the first card
    assert min(n for f, n in opened.items() if f not in cards) >= 6, opened
