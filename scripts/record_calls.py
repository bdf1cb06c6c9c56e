#!/usr/bin/env python3
"""Record every call (and, with ``--cards``, every card) the shipped agents make, so that a
refactor of the bidding pipeline can be proven to change none of them (issue 42).

What it records, against ``bfg,doubles=on`` in both rooms of a team match on the seeded deal
stream ``--seed`` (boards 1..``--boards``):

- the auctions of ``default``, ``default,doubles=on``, ``default,controls=off`` and ``search``
  (``--search-boards`` of them: the search costs about a second a call), every agent built with
  the model directory passed explicitly (``--model``);
- which stage of the pipeline changed a call of ours, per board: the slam layer (``slam``), the
  asking convention's ask and vetoes (``ask``), its forced calls (``answer``: the answers; ``decide``:
  the asker's decision and partner's pass), the search where our contract was doubled
  (``doubled``) and, since the penalty doubles became a layer (issue 62), their doubles
  (``doubles``); attributed by instrumenting the pipeline of the code it runs on;
- with ``--cards N``, every card of ``default`` against ``bfg,doubles=on`` on N boards played over
  TCP (``bridgebot match --scoring play``).

The record names the commit it was made on and the sha256 of the model's files; the test
``tests/engine/test_pipeline_record.py`` replays a slice of it. Run it once per base::

    python scripts/record_calls.py --out tests/engine/data/pipeline_record.json.gz \\
        --boards 2000 --search-boards 2000 --cards 32

It prints the number of boards each stage changed for each agent.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bridgebot.laws.board_sets import generate
from bridgebot.laws.boards import BoardDeal
from bridgebot.laws.notation import auction_texts
from bridgebot.tournament.ddmatch import bid_room, seated_agents
from bridgebot.tournament.seatings import seatings

from bridgebot.agents import AgentSpec, make_agent
from bridgebot.shipped import DEFAULT_MODEL_DIR

OPPONENT = "bfg,doubles=on"
AGENTS = ("default", "default,doubles=on", "default,controls=off")
SEARCH = "search"
STAGES = ("slam", "ask", "answer", "decide", "doubled", "doubles")
#: The stage a layer's changes are noted under, by the layer's name (engine.pipeline.Decision).
LAYER_STAGES = {"slam": "slam", "controls": "ask", "doubles": "doubles"}


def model_digest(directory: Path) -> dict[str, str]:
    """sha256 of every file under a model directory (relative path -> hex digest)."""
    return {
        str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and p.suffix in {".onnx", ".json"}
    }


def spec_with_model(spec: str, model: Path) -> str:
    """``spec`` with the model directory written into it (``default:DIR,...``)."""
    return str(AgentSpec.parse(spec).with_path(model))


class Tracer:
    """Which stage changed which call: the pipeline's functions are wrapped for the run (the
    code being recorded is not changed), and each change is noted by board."""

    def __init__(self) -> None:
        self.changed: dict[str, set[int]] = {s: set() for s in STAGES}
        self._local = threading.local()

    def views(self) -> Sequence[Any]:
        return getattr(self._local, "views", ())

    @contextmanager
    def current(self, views: Sequence[Any]) -> Iterator[None]:
        old = self.views()
        self._local.views = views
        try:
            yield
        finally:
            self._local.views = old

    def note(self, stage: str, board: int) -> None:
        if not getattr(self._local, "muted", False):
            self.changed.setdefault(stage, set()).add(board)

    @contextmanager
    def muted(self) -> Iterator[None]:
        """Changes made inside are not noted (the tracer's own second look at a call)."""
        self._local.muted = True
        try:
            yield
        finally:
            self._local.muted = False


@contextmanager
def instrumented_before(tracer: Tracer) -> Iterator[None]:
    """Wrap the pipeline as it was before issue 42 (three copies: engine.policy,
    engine.search.agent, engine.slams and engine.aces)."""
    import numpy as np
    from bridgebot.engine import aces, slams
    from bridgebot.engine.policy import PolicyAgent
    from bridgebot.engine.search.agent import SearchAgent, SearchWhereDoubled
    from bridgebot.laws.calls import bid_index, doubled_against_caller, same_call

    saved: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, make: Callable[[Any], Any]) -> None:
        original = owner.__dict__[name]
        saved.append((owner, name, original))
        setattr(owner, name, make(original))

    def choose(original: Any) -> Any:
        def wrapped(self: Any, views: Sequence[Any]) -> Any:
            with tracer.current(views):
                return original(self, views)

        return wrapped

    def search_bid(original: Any) -> Any:
        def wrapped(self: Any, view: Any) -> Any:
            with tracer.current([view]):
                return original(self, view)

        return wrapped

    def slam_apply(original: Any) -> Any:
        def wrapped(self: Any, x: Any, mask: Any, logits: Any, calls: Any) -> Any:
            out = original(self, x, mask, logits, calls)
            views = tracer.views()
            for r in np.flatnonzero(np.asarray(out) != np.asarray(calls)).tolist():
                tracer.note("slam", views[r].board)
            return out

        return wrapped

    def conv_apply(original: Any) -> Any:
        def wrapped(self: Any, views: Any, x: Any, calls: Any, *rest: Any) -> Any:
            out = original(self, views, x, calls, *rest)
            for r in np.flatnonzero(np.asarray(out) != np.asarray(calls)).tolist():
                tracer.note("ask", views[r].board)
            return out

        return wrapped

    def conv_forced(original: Any) -> Any:
        def wrapped(self: Any, view: Any) -> Any:
            out = original(self, view)
            if out is not None:
                calls = [bid_index(c) for c in view.auction]
                what = aces.role(calls, self.scheme)
                tracer.note("answer" if what == "answer" else "decide", view.board)
            return out

        return wrapped

    def doubled_batch(original: Any) -> Any:
        def wrapped(self: Any, views: Sequence[Any]) -> Any:
            out = original(self, views)
            for view, call in zip(views, out, strict=True):
                if not doubled_against_caller(view.auction):
                    continue
                with tracer.muted():
                    forced = self.agent.aces.forced(view) if self.agent.aces else None
                    policy_call = forced if forced is not None else self.agent._choose([view])[0]
                if not same_call(policy_call, call):
                    tracer.note("doubled", view.board)
            return out

        return wrapped

    patch(PolicyAgent, "_choose", choose)
    patch(SearchAgent, "bid", search_bid)
    patch(slams.SlamEstimator, "apply", slam_apply)
    patch(aces._Asking, "apply", conv_apply)
    patch(aces._Asking, "forced", conv_forced)
    patch(SearchWhereDoubled, "bid_batch", doubled_batch)
    try:
        yield
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)


@contextmanager
def instrumented(tracer: Tracer) -> Iterator[None]:
    """Wrap the pipeline of the code it runs on: the one layered bidder where there is one
    (``engine.pipeline``), else the copies before it."""
    try:
        from bridgebot.engine.pipeline import LayeredBidder
    except ImportError:
        with instrumented_before(tracer):
            yield
        return
    import numpy as np
    from bridgebot.engine import control_ask
    from bridgebot.engine.pipeline import Subset
    from bridgebot.engine.search.agent import WhereDoubled
    from bridgebot.laws.calls import bid_index, doubled_against_caller

    decide, propose = LayeredBidder.decide, WhereDoubled.propose

    def traced_decide(self: Any, views: Sequence[Any], *rest: Any, **kw: Any) -> Any:
        out = decide(self, views, *rest, **kw)
        for view, d in zip(views, out, strict=True):
            if d.forced_by is not None:
                calls = [bid_index(c) for c in view.auction]
                what = control_ask.role(calls)
                tracer.note("answer" if what == "answer" else "decide", view.board)
            for layer in d.changed_by:
                tracer.note(LAYER_STAGES.get(layer, layer), view.board)
        return out

    def traced_propose(self: Any, views: Any, x: Any, mask: Any, rows: Any) -> Any:
        out = propose(self, views, x, mask, rows)
        hit = [i for i, v in enumerate(views) if doubled_against_caller(v.auction)]
        if hit:
            plain = self.plain.propose(Subset(views, hit), x[hit], mask[hit], rows[hit])
            for i, call in zip(hit, plain.calls, strict=True):
                if int(call) != int(np.asarray(out.calls)[i]):
                    tracer.note("doubled", views[i].board)
        return out

    LayeredBidder.decide = traced_decide  # type: ignore[method-assign]
    WhereDoubled.propose = traced_propose  # type: ignore[method-assign]
    try:
        yield
    finally:
        LayeredBidder.decide = decide  # type: ignore[method-assign]
        WhereDoubled.propose = propose  # type: ignore[method-assign]


def record_agent(spec: str, deals: Sequence[BoardDeal], seed: int) -> dict[str, Any]:
    """The auctions of ``spec`` against :data:`OPPONENT` on ``deals`` (both rooms), and the
    boards each stage changed."""
    tracer = Tracer()
    rooms = seatings("team")
    started = time.perf_counter()
    with instrumented(tracer), seated_agents(make_agent, spec, OPPONENT, rooms, seed) as agents:
        auctions = {s.room: bid_room(deals, agents[s.room], s.room) for s in rooms}
    return {
        "seconds": round(time.perf_counter() - started, 1),
        "boards": [
            {
                "board": d.number,
                **{room: " ".join(auction_texts(a[i])) for room, a in auctions.items()},
            }
            for i, d in enumerate(deals)
        ],
        "changed": {stage: sorted(b) for stage, b in tracer.changed.items()},
    }


def record_cards(spec: str, boards: int, seed: int) -> dict[str, Any]:
    """Every card of ``spec`` against :data:`OPPONENT` over ``boards`` boards played over TCP
    (the match command's journal)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            sys.executable, "-m", "bridgebot", "match", "--us", spec, "--them", OPPONENT,
            "--seed", str(seed), "--boards", str(boards), "--scoring", "play", "--out", tmp,
            "--log-level", "warning",
        ]  # fmt: skip
        started = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        lines = (Path(tmp) / "journal.jsonl").read_text().splitlines()
    played = []
    for line in lines:
        entry = json.loads(line)
        for room in entry.get("rooms", ()):
            played.append(
                {
                    "board": room["board"],
                    "room": room["room"],
                    "auction": " ".join(room["auction"]),
                    "cards": " ".join(room.get("play") or ()),
                }
            )
    return {"seconds": round(time.perf_counter() - started, 1), "rooms": played}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="record file (.json.gz)")
    ap.add_argument("--seed", type=int, default=4242, help="deal stream (default 4242)")
    ap.add_argument("--boards", type=int, default=2000)
    ap.add_argument("--search-boards", type=int, default=2000)
    ap.add_argument("--cards", type=int, default=32, help="boards played over TCP (0: none)")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL_DIR)
    ap.add_argument("--agents", default=";".join(AGENTS), help="';'-separated specs")
    args = ap.parse_args(argv)
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    deals = generate(args.seed, args.boards)
    record: dict[str, Any] = {
        "commit": commit,
        "model": str(args.model),
        "model_sha256": model_digest(args.model),
        "seed": args.seed,
        "opponent": OPPONENT,
        "agents": {},
    }
    specs = [s for s in args.agents.split(";") if s]
    jobs = [(s, args.boards) for s in specs] + [(SEARCH, args.search_boards)]
    for spec, n in jobs:
        if n <= 0:
            continue
        entry = record_agent(spec_with_model(spec, args.model), deals[:n], args.seed)
        record["agents"][spec] = entry
        counts = ", ".join(f"{k} {len(v)}" for k, v in entry["changed"].items())
        print(f"{spec}: {n} boards in {entry['seconds']} s; boards changed: {counts}", flush=True)
    if args.cards:
        spec = spec_with_model("default", args.model)
        record["cards"] = {"spec": "default", **record_cards(spec, args.cards, args.seed)}
        print(f"cards: {args.cards} boards in {record['cards']['seconds']} s", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out, "wt") as f:
        json.dump(record, f, separators=(",", ":"))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
