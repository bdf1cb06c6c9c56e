"""Training the slam estimator of :mod:`engine.slams` (``bridgebot train slamnet``).

The estimator reads the observation the policy reads and says how many tricks our side takes
double dummy in each strain (11 or fewer, 12, 13), by the player of our side who would declare it.
Its data are the policy's own auctions: every training deal is bid once by four copies of the
policy (greedy, as it bids at the table), and every call of every auction gives one example, the
observation before the call and, from the deal's DD table, the tricks of each strain's would-be
declarer (:func:`engine.slams.declarer_rel`). The deals are the uniform training deals (the
league's split; the validation and held-out deals never enter), so the estimate keeps the real odds
of a slam. Two things give it more to learn from without bending those odds:

- every deal may be bid several times (``--auctions``), the dealer rotating, so each hand is seen
  from other positions and behind other auctions;
- slam-rich files (``--slam-deals``, e.g. ``bridgebot ddgen --filter slam``) add deals of the rare
  kinds, weighted (:func:`slam_rich`, :func:`kind_shares`) so that each kind of deal (the slam
  filter passed or not, a slam made or not) keeps the share it has among the uniform deals.
  Unweighted, such a file would teach the estimator that strong hands always make a slam.

The layer's thresholds are then chosen on validation deals (:func:`threshold_sweep`): the team
match of the policy with the layer against bfg, DD-scored, for each candidate threshold; the
export records the choice and the sweep in the card.

The modules, by job: the data (:mod:`models.slamnet_data`), the network and its fit
(:mod:`models.slamnet_fit`), the thresholds (:mod:`models.slamnet_thresholds`); this one is the
run (:func:`train_slamnet`: data, fit, thresholds, export) and the command line.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from bridgebot.engine.control_ask import control_step
from bridgebot.engine.features import FEATURE_VERSION, N_FEATURES
from bridgebot.engine.policy import Policy
from bridgebot.engine.slams import Thresholds
from bridgebot.models.slamnet_data import self_play_states, slam_rich
from bridgebot.models.slamnet_fit import fit, torch_logits
from bridgebot.models.slamnet_thresholds import (
    choose_thresholds,
    parse_grid,
    sweep_row,
    threshold_sweep,
)

if TYPE_CHECKING:
    from bridgebot.models.config import SlamNetConfig
    from torch import nn


def train_slamnet(cfg: SlamNetConfig, command: str, progress: bool = True) -> dict[str, Any]:
    """``bridgebot train slamnet``: see the module docstring. Returns the card's metrics."""
    from dataclasses import asdict

    import torch
    from bridgebot.engine.slams import OUTPUT_VERSION, SLAM_DIR
    from bridgebot.models.data import load_dd
    from bridgebot.models.league.choosers import bfg_chooser
    from bridgebot.models.league.data import league_data

    def say(text: str) -> None:
        if progress:
            print(f"train slamnet: {text}", flush=True)

    torch.set_num_threads(max(1, cfg.threads))
    grid = parse_grid(cfg.grid)
    policy = Policy(cfg.policy)
    owners, dd, train_idx, _ = league_data(cfg.dd, 1000)
    if cfg.max_deals is not None:
        train_idx = train_idx[: cfg.max_deals]
    rng = np.random.default_rng(cfg.seed)
    t0 = time.perf_counter()
    o, d = owners[train_idx], dd[train_idx]
    states = self_play_states(policy, o, d, rng, auctions=cfg.auctions)
    x, y, weights, partner = states.x, states.y, None, states.partner_controls
    extra = f"{len(train_idx)} deals"
    kind_weights: list[float] = []
    if cfg.slam_dd:
        try:
            rich = slam_rich(o, d, cfg.slam_dd)
        except ValueError as e:
            raise SlamNetError(str(e)) from None
        more = self_play_states(policy, rich.owners, rich.dd, rng, auctions=cfg.auctions)
        x, y = np.concatenate([x, more.x]), np.concatenate([y, more.y])
        partner = np.concatenate([partner, more.partner_controls])
        weights = np.concatenate([rich.uniform_weights[states.deal], rich.weights[more.deal]])
        kind_weights = [round(float(v), 5) for v in rich.shares]
        extra += f" and {len(rich.owners)} slam-rich deals (weights by kind {kind_weights})"
    w = np.ones(len(y)) if weights is None else weights
    counts = np.bincount(y.ravel().astype(np.int64), minlength=3, weights=np.repeat(w, 5))
    share = counts / (5 * w.sum())
    say(f"{len(x)} decisions from {extra} ({time.perf_counter() - t0:.0f} s)")
    if cfg.partner_controls:
        # The control asking's estimator: partner's control step is the last input.
        step = control_step(partner).astype(np.uint8)
        x = np.concatenate([x, step[:, None]], axis=1)
    net = fit(
        x, y, cfg.hidden, cfg.epochs, cfg.lr, cfg.seed, cfg.batch,
        (lambda e, loss, sec: say(f"epoch {e + 1}: loss {loss:.4f} ({sec:.0f} s)"))
        if progress else None,
        weights,
    )  # fmt: skip
    metrics: dict[str, Any] = {
        "decisions": len(x),
        "class_share": [round(float(v), 5) for v in share],
        "slam_dd_weights_by_kind": kind_weights,
    }
    if cfg.partner_controls:
        return _write_controls(cfg, command, net, x, {**metrics, "deals": len(train_idx)}, say)
    val = load_dd(cfg.val)
    sweep = threshold_sweep(policy, torch_logits(net), bfg_chooser(), val.owners, val.dd, grid)
    chosen, why = choose_thresholds(sweep, cfg.min_making)
    for row in sweep:
        t = row["thresholds"]
        say(
            f"{'plain policy' if t is None else asdict(t)}: {row['imps']:+.3f} "
            f"({row['se']:.3f}) vs bfg; slams on {row['bid_on_chance']:.0f} of "
            f"{row['chances']:.0f} chances; {row['made']:.0f} of {row['bid']:.0f} make"
        )
    say(f"chosen: {chosen} ({why})")
    metrics["validation"] = {
        "deals": cfg.val,
        "opponent": "bfg",
        "sweep": [sweep_row(r) for r in sweep],
        "chosen_because": why,
    }
    # No threshold qualified: the layer is written but never acts (thresholds above 1).
    t = chosen or Thresholds(small=1.01, grand=1.01, keep=0.0)
    _export(
        cfg, command, net, x, cfg.out or str(Path(cfg.policy) / SLAM_DIR), OUTPUT_VERSION,
        metrics, {"thresholds": asdict(t)}, (*cfg.dd, *cfg.slam_dd, cfg.val), say,
    )  # fmt: skip
    return metrics


def _write_controls(
    cfg: SlamNetConfig,
    command: str,
    net: nn.Module,
    x: npt.NDArray[np.uint8],
    metrics: dict[str, Any],
    say: Any,
) -> dict[str, Any]:
    """Export the control asking's estimator (``--partner-controls``) beside the slam layer's,
    in ``policy/slam/controls``; its thresholds are the agents' options (``controls_*``), chosen
    with ``benchmarks/bench_slam.py``, so no sweep here."""
    from bridgebot.engine.control_estimator import CONTROLS_DIR, CONTROLS_OUTPUT_VERSION
    from bridgebot.engine.slams import SLAM_DIR

    inputs = (
        f"the {N_FEATURES} features, then partner's control step 0-6 (engine.control_ask.control_step: "
        "0-1 controls, 2, 3, 4, 5, 6, 7 or more)"
    )
    _export(
        cfg, command, net, x, cfg.out or str(Path(cfg.policy) / SLAM_DIR / CONTROLS_DIR),
        CONTROLS_OUTPUT_VERSION, metrics, {"inputs": inputs}, (*cfg.dd, *cfg.slam_dd), say,
    )  # fmt: skip
    return metrics


def _export(
    cfg: SlamNetConfig,
    command: str,
    net: nn.Module,
    x: npt.NDArray[np.uint8],
    out: str,
    output_version: str,
    metrics: dict[str, Any],
    notes: dict[str, Any],
    data: Sequence[str],
    say: Any,
) -> None:
    """Write ``net`` to ``out`` (ONNX and its card: the run's command, seed, config and data
    files, ``metrics``, ``notes``)."""
    from bridgebot.engine.modelcard import Training
    from bridgebot.engine.slams import SLAM_ONNX
    from bridgebot.models.ddnet import write_mlp
    from bridgebot.models.provenance import data_records

    training = Training(
        kind="slamnet",
        command=command,
        seed=cfg.seed,
        data=data_records(data),
        config=cfg.model_dump(mode="json"),
        init=None,
    )
    card = {
        "feature_version": FEATURE_VERSION,
        "output_version": output_version,
        "training": training,
        "metrics": metrics,
        "notes": {
            **notes,
            "policy": cfg.policy,
            "classes": "per strain C, D, H, S, NT: our side takes <=11, 12, 13 tricks DD",
        },
    }
    written = write_mlp(net, out, SLAM_ONNX, x[:256].astype(np.float32), card)
    say(f"wrote {out} (onnx parity {written.export.parity_max_abs_diff:.1e})")


HELP = "train the slam estimator of a policy (engine/slams.py) and choose its thresholds"
EXAMPLES = """examples:
  bridgebot ddgen --boards 2000 --seed 9001 --out data/val_9001.npz
  bridgebot train slamnet --policy models/default --deals data/dd_2026.npz --deals data/dd_2026b.npz \\
      --val-deals data/val_9001.npz
  bridgebot train slamnet --policy models/default --deals data/dd_2026.npz --deals data/dd_2026b.npz \\
      --slam-deals data/dd_slam_2026.npz --val-deals data/val_9001.npz
  bridgebot train slamnet --policy runs/NEW/onnx --deals data/dd_2026b.npz \\
      --val-deals data/val_9001.npz --max-deals 2000 --epochs 1 --auctions 1 --out runs/small_slam
  bridgebot train slamnet --policy models/default --deals data/dd_2026.npz --deals data/dd_2026b.npz \\
      --slam-deals data/dd_slam_2026.npz --partner-controls    # control asking's estimator
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bridgebot.models.config import SlamNetConfig, add_config_arguments

    add_config_arguments(parser, SlamNetConfig)
    parser.add_argument("--quiet", action="store_true", help="no progress lines")


class SlamNetError(Exception):
    """A run that cannot start as asked: the message says why."""


def run(args: argparse.Namespace, command: str) -> int:
    from bridgebot.models.config import SlamNetConfig, config_from_args

    cfg = config_from_args(SlamNetConfig, args)
    try:
        parse_grid(cfg.grid)
    except ValueError as e:
        print(f"bridgebot train slamnet: {e}", file=sys.stderr)
        return 2
    if not cfg.val and not cfg.partner_controls:
        print(
            "bridgebot train slamnet: --val-deals is needed (validation deals that choose the "
            "thresholds, e.g. 'bridgebot ddgen --seed 9001'), but with --partner-controls",
            file=sys.stderr,
        )
        return 2
    try:
        train_slamnet(cfg, command, progress=not args.quiet)
    except SlamNetError as e:
        print(f"bridgebot train slamnet: {e}", file=sys.stderr)
        return 2
    return 0
