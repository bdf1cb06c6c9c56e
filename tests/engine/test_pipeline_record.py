"""The bidding pipeline's refactor changes no call: a slice of the record made on the code before
it (``scripts/record_calls.py``, issue 42) is bid again and compared call for call.

The record holds every call of ``default``, ``default,doubles=on``, ``default,controls=off`` and
``search`` against ``bfg,doubles=on`` on 2,000 boards of a seeded deal stream, with the commit it
was made on and the sha256 of the model it used (the shipped model then, kept with its layers as
``tests/layered_default`` since issue 43 shipped a policy alone); the suite replays 64 boards of
``default`` and 8 of ``search`` (both rooms), the model directory passed explicitly.
"""

from __future__ import annotations

import gzip
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from bridgebot.laws.board_sets import generate
from bridgebot.laws.notation import auction_texts
from bridgebot.tournament.ddmatch import bid_room, seated_agents
from bridgebot.tournament.seatings import seatings

from bridgebot.agents import make_agent
from tests.policies import LAYERED

RECORD = Path(__file__).parent / "data" / "pipeline_record.json.gz"
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from record_calls import model_digest, spec_with_model  # noqa: E402


@cache
def record() -> dict[str, Any]:
    with gzip.open(RECORD, "rt") as f:
        out: dict[str, Any] = json.load(f)
    return out


def model_dir() -> Path:
    """The model the record was made with: the shipped ``default`` of issue 42, kept with its
    layers for the tests (``tests.policies.LAYERED``), as long as its files are the same."""
    if model_digest(LAYERED) != record()["model_sha256"]:
        pytest.fail(
            f"{LAYERED} is not the model {RECORD.name} was recorded with: re-record it "
            "with scripts/record_calls.py --model, or keep that model for this test"
        )
    return LAYERED


def replay(spec: str, boards: int) -> list[dict[str, Any]]:
    """The auctions of ``spec`` against the record's opponent on its first ``boards`` boards."""
    rec = record()
    deals = generate(rec["seed"], boards)
    rooms = seatings("team")
    us = spec_with_model(spec, model_dir())
    with seated_agents(make_agent, us, rec["opponent"], rooms, rec["seed"]) as agents:
        auctions = {s.room: bid_room(deals, agents[s.room], s.room) for s in rooms}
    return [
        {"board": d.number, **{room: " ".join(auction_texts(a[i])) for room, a in auctions.items()}}
        for i, d in enumerate(deals)
    ]


#: The record's agents as they were when it was made: the search's default opponent models were
#: ``bfgnet+self`` until issue 43 made them ``epbotnet+self``, and it took every close change
#: between two bids until run 26 made ``close_bids=0.2`` its default.
AS_RECORDED = {"default": "default", "search": "search,opponents=bfgnet+self,close_bids=1"}


@pytest.mark.parametrize(("spec", "boards"), [("default", 64), ("search", 8)])
def test_the_pipeline_bids_what_the_record_says(spec: str, boards: int) -> None:
    expected = record()["agents"][spec]["boards"][:boards]
    got = replay(AS_RECORDED[spec], boards)
    differ = [(e["board"], e, g) for e, g in zip(expected, got, strict=True) if e != g]
    assert not differ, f"{len(differ)} boards bid otherwise than recorded, first: {differ[0]}"


def test_the_record_covers_every_stage() -> None:
    """The record is worth its name: every stage of the pipeline changed calls in it."""
    changed = record()["agents"]["default"]["changed"]
    for stage in ("slam", "ask", "answer", "decide", "doubled"):
        assert len(changed[stage]) >= 20, (stage, len(changed[stage]))
