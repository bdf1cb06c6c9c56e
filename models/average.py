"""``bridgebot train average``: one policy whose weights are the mean of several checkpoints'.

Checkpoint averaging (Polyak averaging over a run's saved generations): the generations of one
league run sit in one basin, and their mean plays like each of them on the field with less of
any one generation's drift (run 19 in docs/evaluation.md: gens 9-19 averaged keep the field rows of
gen 9 and the bfg row of gen 19). Only checkpoints of the same shape average; the result is a
``.pt`` that ``bridgebot export`` and ``--init`` read like any other.

The result's record (its ``meta``, which the export writes into ``model.json``) names the
command, every source with its sha256, and the sources' own records; every opponent and teacher
of any source is carried up, and an ``init`` that is a path to a model directory or checkpoint
on disk is replaced by that model's record, so the card says where the weights came from all the
way down (the league records its ``--init`` as a path). torch is imported inside the functions
(the ``train`` extra).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

HELP = "average the weights of checkpoints of one run (checkpoint averaging) into one .pt"
EXAMPLES = """examples:
  bridgebot train average --checkpoint runs/league/gen9.pt --checkpoint runs/league/gen10.pt \\
      --out runs/league_avg.pt
  bridgebot export --checkpoint runs/league_avg.pt --deals data/dd_2026b.npz --out models/mine
"""

#: How deep :func:`resolved` follows ``init`` paths (a chain is a handful of runs long).
MAX_DEPTH = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--checkpoint",
        dest="checkpoints",
        action="append",
        required=True,
        metavar="PT",
        help="a checkpoint (.pt) to average; give it two or more times",
    )
    parser.add_argument("--out", required=True, help="the averaged checkpoint to write (.pt)")


@cache  # the sources of one average share their init: read once
def record_of(path: str | Path) -> dict[str, Any] | None:
    """The training record of a model on disk: a model directory's ``model.json`` ``training``,
    or a checkpoint's ``meta``; None where ``path`` is neither (or cannot be read). Cached: the
    caller copies what it changes (:func:`resolved`)."""
    p = Path(path)
    try:
        if p.is_dir() and (p / "model.json").is_file():
            training = json.loads((p / "model.json").read_text()).get("training")
            return training if isinstance(training, dict) else None
        if p.is_file() and p.suffix == ".pt":
            import torch

            meta = torch.load(p, map_location="cpu", weights_only=False).get("meta")
            return meta if isinstance(meta, dict) else None
    except (OSError, ValueError, RuntimeError, AttributeError):
        return None
    return None


def resolved(record: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """``record`` with an ``init`` that names a model on disk replaced by that model's record
    (recursively, :data:`MAX_DEPTH` deep); an ``init`` that is not found stays the path it is."""
    out = dict(record)
    init = out.get("init")
    if isinstance(init, str) and depth < MAX_DEPTH:
        found = record_of(init)
        if found is not None:
            out["init"] = {"path": init, **resolved(found, depth + 1)}
    elif isinstance(init, dict) and depth < MAX_DEPTH:
        out["init"] = resolved(init, depth + 1)
    return out


def gathered(records: Sequence[dict[str, Any]], key: str) -> list[Any]:
    """Every distinct value of list field ``key`` across ``records`` and their ``init`` chains,
    in first-seen order."""
    seen: list[Any] = []
    stack = list(records)
    while stack:
        r = stack.pop(0)
        for v in r.get(key) or ():
            if v not in seen:
                seen.append(v)
        if isinstance(r.get("init"), dict):
            stack.append(r["init"])
    return seen


def _distinct(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sources' records once each: the generations of one run differ only in ``gen`` (and
    their ``eval``, left out), so they are kept once with the list of their ``gens``."""
    by_body: dict[str, dict[str, Any]] = {}
    for r in records:
        body = {k: v for k, v in r.items() if k not in ("gen", "eval")}
        key = json.dumps(body, sort_keys=True, default=str)
        entry = by_body.setdefault(key, {**body, "gens": []})
        if "gen" in r:
            entry["gens"].append(r["gen"])
    return list(by_body.values())


def average(paths: Sequence[str], out: str, command: str = "") -> dict[str, Any]:
    """Write to ``out`` the checkpoint whose weights are the mean of ``paths``' (two or more, of
    one network shape); return its record.

    Raises :class:`DataError` for fewer than two checkpoints or checkpoints of different shapes,
    ``FileNotFoundError`` for a missing one."""
    import torch
    from bridgebot.core.files import file_sha256
    from bridgebot.models.data import DataError
    from bridgebot.models.net import PolicyNet, load_checkpoint, save_checkpoint

    if len(paths) < 2:
        raise DataError(f"--checkpoint: give two or more to average (got {len(paths)})")
    nets: list[PolicyNet] = []
    records: list[dict[str, Any]] = []
    for p in paths:
        if not Path(p).is_file():
            raise FileNotFoundError(f"{p}: no such checkpoint")
        net, blob = load_checkpoint(p)
        if nets and net.config != nets[0].config:
            raise DataError(
                f"{p}: its network is {net.config.to_dict()}, {paths[0]}'s is "
                f"{nets[0].config.to_dict()}: only checkpoints of one shape average"
            )
        nets.append(net)
        meta = blob.get("meta")
        records.append(resolved(meta) if isinstance(meta, dict) else {})
    merged = PolicyNet(nets[0].config)
    states = [n.state_dict() for n in nets]
    with torch.no_grad():
        merged.load_state_dict(
            {k: torch.stack([s[k].float() for s in states]).mean(0) for k in states[0]}
        )
    data: list[Any] = []
    for r in records:
        for d in r.get("data") or ():
            if d not in data:
                data.append(d)
    meta_out: dict[str, Any] = {
        "kind": "average",
        "command": command,
        "seed": None,
        "data": data,
        "config": {
            "checkpoints": list(paths),
            "sha256": [file_sha256(Path(p)) for p in paths],
            "sources": _distinct(records),
        },
        # The last source is the run the average continues from; its record is the init.
        "init": {k: v for k, v in records[-1].items() if k != "eval"} or None,
        "teachers": gathered(records, "teachers"),
        "opponents": gathered(records, "opponents"),
    }
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    save_checkpoint(out, merged, {"meta": meta_out})
    return meta_out


def run(args: argparse.Namespace, command: str) -> int:
    meta = average(args.checkpoints, args.out, command)
    print(
        json.dumps(
            {"out": args.out, "checkpoints": meta["config"]["checkpoints"], "kind": "average"},
            indent=2,
        )
    )
    return 0
