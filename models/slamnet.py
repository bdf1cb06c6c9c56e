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
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt
from bridgebot.core.stats import mean_stderr
from bridgebot.engine.control_ask import control_step, controls
from bridgebot.engine.features import FEATURE_VERSION, N_FEATURES
from bridgebot.engine.policy import Policy
from bridgebot.engine.slams import N_OUTPUTS, Thresholds, slam_calls, trick_classes
from bridgebot.models.data import Chooser, observe, run_auctions
from bridgebot.models.slam import slam_counts

if TYPE_CHECKING:
    from bridgebot.models.config import SlamNetConfig
    from torch import nn

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def policy_chooser(
    policy: Policy,
    slam: Any = None,
    thresholds: Thresholds | None = None,
) -> Chooser:
    """The ONNX policy, greedy, as a chooser of :func:`models.data.run_auctions`; with ``slam``
    (a callable features -> slam logits) and ``thresholds``, the slam layer on top."""

    def choose(rows: IntArray, x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> IntArray:
        logits = policy.logits(x)
        calls = policy.choose(x, mask, logits=logits)
        if slam is None:
            return calls
        out: IntArray = slam_calls(x, mask, logits, calls, slam(x), thresholds or Thresholds())
        return out

    return choose


class SelfPlayCall(NamedTuple):
    """The calls at one position of a batch of the policy's self-play auctions."""

    owners: npt.NDArray[np.uint8]
    """[n, 52] the deals of the auctions still running at ``pos``."""
    dealer: IntArray
    auctions: IntArray
    """[n, MAX_CALLS] the finished auctions (-1 padded)."""
    pos: int
    seat: IntArray
    """The absolute seat calling at ``pos``."""
    x: npt.NDArray[np.float32]
    """The caller's observation before its call."""
    classes: npt.NDArray[np.int8]
    """[n, 5] per strain: 0 (11 or fewer), 1 (12) or 2 (13) tricks DD for our would-be declarer."""
    deal: IntArray
    """[n] the index of each auction's deal in the deals given."""


def self_play_calls(
    policy: Policy,
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    rng: np.random.Generator,
    batch: int = 4096,
    auctions: int = 1,
) -> Iterator[SelfPlayCall]:
    """Every call of the policy's greedy self-play auctions on the deals, one position of one
    batch at a time. Each deal is bid ``auctions`` times: the first from a dealer and
    vulnerability drawn at random, each later one from the next dealer round the table, with a
    vulnerability of its own."""
    for start in range(0, len(owners), batch):
        o, d = owners[start : start + batch], dd[start : start + batch]
        b = len(o)
        first = rng.integers(0, 4, size=b)
        vul = rng.integers(0, 4, size=b)
        for k in range(auctions):
            dealer = (first + k) % 4
            if k:
                vul = rng.integers(0, 4, size=b)
            calls = run_auctions(
                o, dealer, vul, np.zeros((b, 4), np.int64), [policy_chooser(policy)]
            )
            length = (calls >= 0).sum(axis=1)
            for pos in range(int(length.max())):
                rows = np.flatnonzero(length > pos)
                x, _ = observe(
                    o[rows], dealer[rows], vul[rows], calls[rows], np.full(len(rows), pos)
                )
                seat = (dealer[rows] + pos) % 4
                classes = trick_classes(x, seat, d[rows])
                yield SelfPlayCall(
                    o[rows], dealer[rows], calls[rows], pos, seat, x, classes, start + rows
                )


class States(NamedTuple):
    """The estimator's examples: one per call of the policy's self-play auctions."""

    x: npt.NDArray[np.uint8]
    """[N, 480] the caller's observation before its call."""
    y: npt.NDArray[np.int8]
    """[N, 5] the trick classes of :attr:`SelfPlayCall.classes`."""
    deal: IntArray
    """[N] the index of the example's deal in the deals given."""
    partner_controls: IntArray
    """[N] the caller's partner's controls (ace 2, king 1: :func:`engine.control_ask.controls`)."""


def self_play_states(
    policy: Policy,
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    rng: np.random.Generator,
    batch: int = 4096,
    auctions: int = 1,
) -> States:
    """The examples of every call of the policy's self-play auctions on the deals
    (:func:`self_play_calls`)."""
    xs, ys, deals, partner = [], [], [], []
    for call in self_play_calls(policy, owners, dd, rng, batch, auctions):
        xs.append(call.x.astype(np.uint8))
        ys.append(call.classes)
        deals.append(call.deal)
        partner.append(controls(call.owners == ((call.seat + 2) % 4)[:, None]))
    return States(
        np.concatenate(xs), np.concatenate(ys), np.concatenate(deals), np.concatenate(partner)
    )


def deal_kinds(owners: npt.NDArray[np.uint8], dd: npt.NDArray[np.uint8]) -> IntArray:
    """Each deal's kind, 0-3: 2 if it passes the slam filter (:func:`models.dealfilter.slam_deals`,
    judged from the cards), plus 1 if some side takes 12+ tricks in some strain double dummy."""
    from bridgebot.models.dealfilter import slam_deals

    made = np.asarray(dd).reshape(len(dd), -1).max(axis=1) >= 12
    kinds: IntArray = 2 * slam_deals(owners).astype(np.int64) + made.astype(np.int64)
    return kinds


def kind_shares(uniform: IntArray, extra: IntArray) -> FloatArray:
    """[4] the weight of a deal of each kind (:func:`deal_kinds`) when the added slam-rich deals
    of kinds ``extra`` join the uniform deals of kinds ``uniform``: n_u / (n_u + n_x), n_u and
    n_x that kind's uniform and added deals, so each kind weighs in all what its uniform deals
    did (1 for a kind nothing is added to). A ValueError where an added kind has no uniform deal,
    whose share would then be unknown."""
    n_u = np.bincount(uniform, minlength=4)
    n_x = np.bincount(extra, minlength=4)
    missing = [k for k in range(4) if n_x[k] and not n_u[k]]
    if missing:
        raise ValueError(
            f"--slam-deals: the uniform deals hold no deal of kind {missing[0]} (filter passed: "
            f"{bool(missing[0] & 2)}, slam made: {bool(missing[0] & 1)}), so the added deals "
            "of that kind cannot be weighted; add uniform deals (--deals)"
        )
    shares: FloatArray = np.where(n_x > 0, n_u / np.maximum(n_u + n_x, 1), 1.0)
    return shares


class SlamRich(NamedTuple):
    """Slam-rich deals to add to uniform ones, and the weight of every deal of both."""

    owners: npt.NDArray[np.uint8]
    dd: npt.NDArray[np.uint8]
    uniform_weights: FloatArray
    """[n_u] each uniform deal's weight."""
    weights: FloatArray
    """[n_x] each added deal's weight."""
    shares: FloatArray
    """[4] the weight of a deal of each kind (:func:`kind_shares`)."""


def slam_rich(
    owners: npt.NDArray[np.uint8], dd: npt.NDArray[np.uint8], paths: Sequence[str]
) -> SlamRich:
    """The deals of the slam-rich files ``paths`` and the weights that let them join the uniform
    deals ``owners``, ``dd`` (:func:`kind_shares`; its ValueError where a kind cannot be
    weighted, :func:`models.data.load_dd`'s DataError for a file that is not a DD file)."""
    from bridgebot.models.data import load_dd

    sets = [load_dd(path) for path in paths]
    so = np.concatenate([s.owners for s in sets])
    sd = np.concatenate([s.dd for s in sets])
    kinds_u, kinds_s = deal_kinds(owners, dd), deal_kinds(so, sd)
    shares = kind_shares(kinds_u, kinds_s)
    return SlamRich(so, sd, shares[kinds_u], shares[kinds_s], shares)


def slam_net(hidden: Sequence[int] = (256, 256), inputs: int = N_FEATURES) -> nn.Sequential:
    """MLP: 480 features (or ``inputs``) -> 5 strains x 3 trick classes (logits), ReLU between
    layers."""
    from bridgebot.models.ddnet import build_net

    net: nn.Sequential = build_net(tuple(hidden), inputs, N_OUTPUTS)
    return net


def fit(
    x: npt.NDArray[np.uint8],
    y: npt.NDArray[np.int8],
    hidden: Sequence[int],
    epochs: int,
    lr: float,
    seed: int,
    minibatch: int = 1024,
    progress: Any = None,
    weights: npt.NDArray[np.floating[Any]] | None = None,
) -> nn.Sequential:
    """Cross-entropy over the five strains' classes, Adam, ``epochs`` passes; each example
    weighted by ``weights`` (default: all equal)."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = slam_net(hidden, x.shape[1])
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    steps = epochs * (len(x) // minibatch)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(steps, 1))
    net.train()
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        total, t0 = 0.0, time.perf_counter()
        for i in range(len(x) // minibatch):
            idx = order[i * minibatch : (i + 1) * minibatch]
            xb = torch.from_numpy(x[idx].astype(np.float32))
            yb = torch.from_numpy(y[idx].astype(np.int64))
            logits = net(xb).reshape(-1, 5, 3)
            each = nn.functional.cross_entropy(
                logits.reshape(-1, 3), yb.reshape(-1), reduction="none"
            ).reshape(-1, 5)
            if weights is None:
                loss = each.mean()
            else:
                wb = torch.from_numpy(weights[idx].astype(np.float32))
                loss = (each.mean(dim=1) * wb).sum() / wb.sum()
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            sched.step()
            total += float(loss.detach())
        if progress is not None:
            progress(epoch, total / max(len(x) // minibatch, 1), time.perf_counter() - t0)
    net.eval()
    return net


def torch_logits(net: nn.Module) -> Any:
    """features -> logits, numpy in and out (for choosers before export)."""
    import torch

    def run(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        with torch.no_grad():
            out: npt.NDArray[np.float32] = net(torch.from_numpy(x.astype(np.float32))).numpy()
        return out

    return run


def match_with_layer(
    policy: Policy,
    slam: Any,
    thresholds: Thresholds | None,
    opponent: Chooser,
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
) -> dict[str, Any]:
    """The DD team match of the policy (with the layer when ``slam`` is given) against
    ``opponent`` on the deals (board k's dealer and vulnerability from the 16-board cycle): IMPs
    per board with its standard error, and the slam counts of :func:`models.slam.slam_counts`."""
    from bridgebot.laws.boards import dealer_vul_arrays
    from bridgebot.models.selfplay import duplicate_imps, imp_summary  # torch: the train extra

    n = len(owners)
    dealer, vul = dealer_vul_arrays(np.arange(1, n + 1))
    imps, auctions, _ = duplicate_imps(
        owners, dd, dealer, vul, policy_chooser(policy, slam, thresholds), opponent
    )
    summary = imp_summary(imps)
    return {
        "imps": summary["imps_per_board"],
        "se": summary["stderr"],
        **slam_counts(auctions, dealer, dd),
        "imps_per_board": imps.astype(np.float64).tolist(),
    }


def threshold_sweep(
    policy: Policy,
    slam: Any,
    opponent: Chooser,
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    grid: Sequence[Thresholds],
) -> list[dict[str, Any]]:
    """:func:`match_with_layer` for each thresholds of ``grid``, and the plain policy first."""
    rows = [{"thresholds": None, **match_with_layer(policy, None, None, opponent, owners, dd)}]
    for t in grid:
        rows.append({"thresholds": t, **match_with_layer(policy, slam, t, opponent, owners, dd)})
    return rows


# -- the run: data, fit, thresholds, export ------------------------------------------------------


def parse_grid(text: str) -> list[Thresholds]:
    """``"small,grand,keep;..."`` -> thresholds; a malformed entry is a ``ValueError`` naming it."""
    out = []
    for part in text.split(";"):
        try:
            small, grand, keep = (float(v) for v in part.split(","))
        except ValueError:
            raise ValueError(f"--grid: {part!r} is not 'small,grand,keep'") from None
        out.append(Thresholds(small, grand, keep))
    return out


def choose_thresholds(
    sweep: list[dict[str, Any]], min_making: float
) -> tuple[Thresholds | None, str]:
    """The grid point that bids a slam on the most slam chances, among those whose slams make at
    least ``min_making`` of the time double dummy and that lose nothing to the plain policy
    beyond two paired standard errors; ``None`` (no layer) when none qualifies. Also says why."""
    base = np.asarray(sweep[0]["imps_per_board"])
    best: tuple[float, float, Thresholds] | None = None
    for row in sweep[1:]:
        gain, se = mean_stderr((np.asarray(row["imps_per_board"]) - base).tolist())
        making = row["made"] / row["bid"] if row["bid"] else 0.0
        if making < min_making or gain < -2 * se:
            continue
        key = (row["bid_on_chance"], gain, row["thresholds"])
        if best is None or key[:2] > best[:2]:
            best = key
    if best is None:
        return None, f"no threshold made {min_making:.0%} of its slams without losing IMPs"
    return best[2], f"most slams bid on chance with at least {min_making:.0%} making"


def _sweep_row(row: dict[str, Any]) -> dict[str, Any]:
    """A sweep row for the card: the thresholds and the figures, not the per-board IMPs."""
    from dataclasses import asdict

    t = row["thresholds"]
    keys = ("imps", "se", "chances", "bid_on_chance", "bid", "made", "grand_chances", "grands_bid")
    return {"thresholds": None if t is None else asdict(t), **{k: row[k] for k in keys}}


def train_slamnet(cfg: SlamNetConfig, command: str, progress: bool = True) -> dict[str, Any]:
    """``bridgebot train slamnet``: see the module docstring. Returns the card's metrics."""
    from dataclasses import asdict

    import torch
    from bridgebot.engine.slams import OUTPUT_VERSION, SLAM_DIR
    from bridgebot.models.data import load_dd
    from bridgebot.models.league import bfg_chooser, league_data

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
        "sweep": [_sweep_row(r) for r in sweep],
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
