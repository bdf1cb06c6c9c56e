"""League training: a learner that meets opponents who punish, plus the exploiters that find its holes.

Self-play against itself and its bfg-grown ancestor taught the shipped policy to sacrifice
recklessly, because none of those opponents doubles for penalty. The remedy of population
training (Lockhart et al. 2020 and Qiu et al. 2024 give the base): the learner meets, deal by deal,
a mixture of

- ``self``: its current self (greedy); ``selfx``: the same with the penalty-double layer
  (``engine.doubles``, the rule every ``doubles=on`` agent uses);
- ``init``: the model it started from; ``initx``: that model with the layer;
- ``snap``: a past generation's snapshot;
- ``oracle``: its current self with a doubler that sees all four hands and doubles whenever the
  contract goes down double-dummy (training only: an upper bound on punishment, never alone);
- ``exploit``: an exploiter of an earlier generation;
- ``bfg``, ``bfgx``: the bfg rule bidder, plain and with the layer. Every network above grew from
  bfg's imitation and sacrifices like our policy; without a sound bidder in the mix the learner
  learns to double everything (measured: the first generation trained without bfg lost to bfg).
  bfg runs in Python (about a millisecond a call), so it costs a few seconds per iteration.
- ``field``: EPBot with one of the ``--field`` cards per deal (:mod:`models.field`; the 16
  training cards by default, never the report cards WBridge5-Sayc and WBridge5-21GF), a bidder
  that plays a natural system well (issue 43). Not in the default mix, which runs without EPBot:
  ``FIELD_MIX`` (docs/evaluation.md) is the recommended one; a mix that asks for it without
  ``$BRIDGEBOT_EPBOT`` fails in one line. The cards are drawn per deal from
  (seed, generation, iteration), so a resumed run draws the same.

Each generation first trains an exploiter of the current learner (RL with a fixed budget against
the frozen learner, starting from its weights; its only aim is to beat it), then trains the
learner for a fixed number of iterations against the mixture, then freezes a snapshot. Doubles and
redoubles stay explored: the learner samples from its policy mixed with a floor ``explore`` on the
legal X/XX calls, decaying to zero over ``explore_gens`` generations (PPO's ratio is taken
against that behaviour distribution). Rewards are duplicate IMPs of DD-scored contracts, doubled
and redoubled ones scored by ``laws.scoring.score_array``. Per iteration the log records how
often the learner's contracts were doubled and what the failed ones cost.

With ``--convention SPEC`` the learner's pair, and every frozen copy of the network, plays the
slam layer and asking convention of that agent on top of the network; with ``--estimators-lr``
the layers' estimators learn in the loop too (:mod:`models.convention`).

Each generation's snapshot is read greedily on the validation deals (``eval`` in the log and in
``OUT/gen{g}.pt``): against its start (``vs_init``, ``vs_initx``), the last exploiter and, with
the field in the mix, against the field (``vs_field``, and ``field_gain``: minus its start on the
same deals and cards). Only the last two read what a model is chosen by, and at 1,000 deals
only coarsely: run 27 (docs/evaluation.md) saw ``vs_init`` climb by +0.10 to +0.38 while the
field read the learner 0.1 to 0.25 lower on validation, and ``field_gain`` sit 0.10 to 0.16
above validation; a generation is chosen there (``benchmarks/bench_field.py``).

``OUT/ckpt.pt`` holds everything (phase, weights, optimisers, pool, history) and is rewritten every
``save_minutes``; rerunning the same command resumes. ``OUT/gen{g}.pt`` and ``OUT/exploiter{g}.pt``
are loadable by ``bridgebot export``.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import structlog
import torch
from bridgebot.core.errors import UserError
from bridgebot.core.logs import progress_bar
from bridgebot.engine.agent import AgentFactory, AgentSpecError
from bridgebot.engine.doubles import DoublesModel, apply_doubles, standing_contract
from bridgebot.engine.features import HAND, auction_from_observation
from bridgebot.engine.tendencies import DoubleRate, policy_input
from bridgebot.laws.boards import dealer_vul_arrays
from bridgebot.laws.calls import final_contracts_array as final_contracts
from bridgebot.laws.cards import RANKS, SUITS
from bridgebot.models.config import LeagueConfig
from bridgebot.models.convention import Layers, Listeners, convention_chooser, layered, net_logits
from bridgebot.models.data import Chooser, IntArray, load_dd, load_dd_files
from bridgebot.models.doubles_fit import OPENSPIEL_TO_DATA, observer_seats
from bridgebot.models.field import Field
from bridgebot.models.net import PolicyNet, append_jsonl, load_checkpoint, save_checkpoint
from bridgebot.models.provenance import data_records
from bridgebot.models.selfplay import Recorder, duplicate_imps, imp_summary, net_chooser, ppo_update
from bridgebot.models.slam import slam_counts, slam_shortfall, strong_deals

log = structlog.get_logger(__name__)

KINDS = ("self", "selfx", "init", "initx", "snap", "oracle", "exploit", "bfg", "bfgx", "field")


class LeagueError(ValueError):
    """A league option or checkpoint that cannot be used (the message names it)."""


def parse_mix(text: str) -> dict[str, float]:
    """``self=1,selfx=2,...`` -> weights; unknown kinds or negative weights are refused."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, eq, value = part.partition("=")
        if not eq or kind not in KINDS:
            raise LeagueError(f"--mix: {part!r} is not KIND=WEIGHT with KIND in {', '.join(KINDS)}")
        try:
            w = float(value)
        except ValueError:
            raise LeagueError(f"--mix: weight of {kind} must be a number, not {value!r}") from None
        if w < 0:
            raise LeagueError(f"--mix: weight of {kind} must be >= 0")
        out[kind] = w
    if not out or sum(out.values()) <= 0:
        raise LeagueError("--mix: needs at least one positive weight")
    return out


def open_field(cfg: LeagueConfig, mix: dict[str, float]) -> Field | None:
    """The EPBot cards of ``--field`` where the mix plays them; None where it does not. Without
    EPBot, or with a card it lacks, a :class:`LeagueError` saying what to set."""
    if not mix.get("field"):
        return None
    try:
        return Field(cfg.field)
    except (UserError, AgentSpecError) as e:
        raise LeagueError(f"--mix asks for field (EPBot's training cards): {e}") from None


def opponents_of(mix: dict[str, float], field: Field | None) -> list[str]:
    """What the model card records as the run's opponents: the mix's kinds, then each EPBot card."""
    kinds = [k for k in KINDS if mix.get(k, 0) > 0]
    return kinds + (list(field.specs) if field is not None else [])


def load_policy(path: str) -> PolicyNet:
    """A network from a training checkpoint (``.pt``) or an exported model directory (ONNX)."""
    if path.endswith(".pt"):
        net, _ = load_checkpoint(path)
        return net
    from bridgebot.models.onnx_mlp import policy_from_onnx

    return policy_from_onnx(path)


def frozen(net: PolicyNet) -> PolicyNet:
    """A detached, evaluation-mode copy (an opponent's weights never change under it)."""
    c = copy.deepcopy(net).eval()
    for p in c.parameters():
        p.requires_grad_(False)
    return c


def learner_chooser(
    net: PolicyNet, device: torch.device, gen: torch.Generator, rec: Recorder, floor: float
) -> Chooser:
    """The learner: samples its calls, with a probability floor on the legal double/redouble."""
    return net_chooser(net, device, False, gen, rec, floor)


def bfg_chooser(doubles: DoublesModel | None = None) -> Chooser:
    """bfg as a chooser (one Python call per row), with the penalty-double layer of the model
    ``doubles`` where one is given."""
    from bridgebot.engine.bfg import BfgBidder

    bidder = BfgBidder()
    names = [RANKS[i % 13] + SUITS[i // 13] for i in OPENSPIEL_TO_DATA]

    def choose(rows: IntArray, x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> IntArray:
        calls = np.zeros(len(rows), dtype=np.int64)
        for i in range(len(rows)):
            cards = [names[j] for j in np.flatnonzero(x[i, HAND:] > 0)]
            calls[i] = bidder.call(cards, auction_from_observation(x[i]))
        return apply_doubles(calls, x, mask, doubles) if doubles is not None else calls

    return choose


def oracle_doubles(
    calls: IntArray,
    rows: IntArray,
    x: npt.NDArray[np.float32],
    mask: npt.NDArray[np.bool_],
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
) -> IntArray:
    """Passes turned into doubles wherever the standing contract goes down double-dummy."""
    c = np.asarray(calls, dtype=np.int64).copy()
    idx = np.nonzero((c == 0) & mask[:, 1])[0]
    if idx.size:
        con = standing_contract(x[idx])
        seat = observer_seats(owners[rows[idx]], x[idx])
        declarer = (seat + con.declarer_rel) % 4
        tricks = dd[rows[idx], declarer, con.strain].astype(np.int64)
        c[idx[tricks < con.level + 6]] = 1
    return c


def opponent_chooser(
    net: PolicyNet,
    device: torch.device,
    doubles: str = "none",
    owners2: npt.NDArray[np.uint8] | None = None,
    dd2: npt.NDArray[np.uint8] | None = None,
    ignore_their_doubles: bool = False,
    layers: Layers | None = None,
    layer_model: DoublesModel | None = None,
) -> Chooser:
    """A greedy frozen network, optionally with the penalty-double layer (``doubles="layer"``,
    the model ``layer_model``) or the DD oracle (``doubles="oracle"``).

    ``owners2``/``dd2`` are the deals of the batch as ``run_auctions`` rows see them (both tables),
    needed by the oracle only. With ``ignore_their_doubles`` the network reads the auction as if
    its opponents had passed where they doubled, our contract doubled excepted
    (:func:`engine.tendencies.policy_input`, the agents' ``policy_doubles``). With ``layers``
    the slam layer and the asking convention play on top of the network
    (:mod:`models.convention`), before the doubles.
    """
    if doubles == "layer" and layer_model is None:
        raise ValueError("the penalty-double layer needs its model (layer_model)")
    base = net_chooser(net, device, True)

    def plain(rows: IntArray, x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> IntArray:
        return base(rows, policy_input(x, ignore_their_doubles), mask)

    inner = (
        plain
        if layers is None
        else layered(layers, plain, net_logits(net, device, ignore_their_doubles))
    )

    def choose(rows: IntArray, x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> IntArray:
        calls = inner(rows, x, mask)
        if doubles == "layer":
            assert layer_model is not None  # checked above
            return apply_doubles(calls, x, mask, layer_model)
        if doubles == "oracle":
            assert owners2 is not None and dd2 is not None
            return oracle_doubles(calls, rows, x, mask, owners2, dd2)
        return calls

    return choose


def doubled_stats(
    auctions: IntArray,
    dealer: IntArray,
    dd: npt.NDArray[np.uint8],
    imps: IntArray,
) -> dict[str, float]:
    """How often the learner's contracts were doubled, how often they failed, their IMP cost.

    Rows 0..B-1 of ``auctions`` have the learner North-South, rows B..2B-1 East-West (as
    :func:`models.selfplay.duplicate_imps` bids them). Costs are IMPs per deal of the batch.
    """
    b = len(imps)
    d2 = np.concatenate([dealer, dealer])
    level, strain, penalty, declarer = final_contracts(auctions, d2)
    tricks = np.concatenate([dd, dd])[np.arange(2 * b), declarer, strain].astype(np.int64)
    learner_side = np.concatenate([np.zeros(b, np.int64), np.ones(b, np.int64)])
    ours = (level > 0) & (declarer % 2 == learner_side)
    theirs = (level > 0) & ~ours
    dbl = penalty > 0
    failed = tricks < level + 6
    ours_fail = (ours & dbl & failed).reshape(2, b).any(axis=0)
    theirs_fail = (theirs & dbl & failed).reshape(2, b).any(axis=0)
    return {
        "ours_declared": float(ours.sum()),
        "ours_doubled": float((ours & dbl).sum()),
        "ours_doubled_failed": float((ours & dbl & failed).sum()),
        "ours_doubled_imps": float(imps[ours_fail].sum()),
        "theirs_doubled": float((theirs & dbl).sum()),
        "theirs_doubled_failed": float((theirs & dbl & failed).sum()),
        "theirs_doubled_imps": float(-imps[theirs_fail].sum()),
        "deals": float(b),
    }


@dataclass
class Trainee:
    """A network being trained, with its optimiser."""

    net: PolicyNet
    opt: torch.optim.Optimizer

    @classmethod
    def start(cls, net: PolicyNet, lr: float, device: torch.device) -> Trainee:
        n = copy.deepcopy(net).to(device).train()
        for p in n.parameters():
            p.requires_grad_(True)
        return cls(n, torch.optim.Adam(n.parameters(), lr=lr))


def rl_iteration(
    trainee: Trainee,
    opponents: Sequence[Chooser],
    weights: npt.NDArray[np.float64],
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    rng: np.random.Generator,
    gen: torch.Generator,
    floor: float,
    cfg: LeagueConfig,
    device: torch.device,
    slam_weight: float = 0.0,
    slam_fail_weight: float = 1.0,
    layers: Layers | None = None,
    listeners: Listeners | None = None,
) -> dict[str, Any]:
    """One PPO iteration of ``trainee`` against the opponents, deal by deal drawn by ``weights``.

    The return of every decision is the deal's duplicate IMPs; with ``slam_weight`` > 0 each
    table's decisions also carry that weight times the table's slam term
    (:func:`models.slam.slam_shortfall`: what the learner's side gave up against a slam its cards
    make). With ``layers`` the learner's pair plays them on top of the network
    (:mod:`models.convention`); only the network's own calls are recorded. With ``listeners``
    (whose layers ``layers`` are) the layers' estimators then learn from the iteration's auctions.
    """
    b = len(owners)
    dealer = rng.integers(0, 4, size=b)
    vul = rng.integers(0, 4, size=b)
    opp = rng.choice(len(opponents), size=b, p=weights / weights.sum())
    rec = Recorder()
    t0 = time.perf_counter()
    trainee.net.eval()
    if layers is None:
        us = learner_chooser(trainee.net, device, gen, rec, floor)
    else:
        us = convention_chooser(layers, trainee.net, device, gen, rec, floor)
    imps, auctions, ns = duplicate_imps(owners, dd, dealer, vul, us, opponents, opp)
    trainee.net.train()
    t1 = time.perf_counter()
    heard = listeners.learn(owners, dd, dealer, vul, auctions, rng) if listeners else None
    shortfall = slam_shortfall(dd, vul, ns, auctions, dealer, slam_fail_weight)
    per_table = np.concatenate([imps, imps]) + slam_weight * shortfall
    reward = (per_table / 24.0).astype(np.float32)
    stats = ppo_update(trainee.net, trainee.opt, rec, reward, cfg, device, rng)
    by_opp = {int(k): float(imps[opp == k].mean()) for k in np.unique(opp)}
    return {
        "imps": float(imps.mean()),
        "double_share": learner_double_share(auctions, dealer),
        "imps_by_opponent": by_opp,
        "doubled": doubled_stats(auctions, dealer, dd, imps),
        "slams": {**slam_counts(auctions, dealer, dd), "shortfall": float(shortfall.mean())},
        "gen_s": t1 - t0,
        "iter_s": time.perf_counter() - t0,
        **({"estimators": heard} if heard is not None else {}),
        **stats,
    }


#: ALL_CALLS index of the double.
DOUBLE_INDEX = 1


def learner_double_share(auctions: IntArray, dealer: IntArray) -> float:
    """The share of doubles among the learner's calls in :func:`models.selfplay.duplicate_imps`'s
    auctions (rows 0..B-1 table 0, the learner North-South; B..2B-1 table 1, East-West)."""
    b = len(dealer)
    pos = np.arange(auctions.shape[1])[None, :]
    side = (np.concatenate([dealer, dealer])[:, None] + pos) % 2
    mine = (side == (np.arange(2 * b) >= b)[:, None]) & (auctions >= 0)
    return float((auctions[mine] == DOUBLE_INDEX).sum() / max(int(mine.sum()), 1))


def train_exploiter(
    target: PolicyNet,
    iters: int,
    data_owners: npt.NDArray[np.uint8],
    data_dd: npt.NDArray[np.uint8],
    train_idx: IntArray,
    cfg: LeagueConfig,
    seed: Sequence[int],
    device: torch.device,
    state: dict[str, Any] | None = None,
    on_save: Any = None,
    record: Any = None,
    layers: Layers | None = None,
) -> Trainee:
    """RL against the frozen ``target`` for ``iters`` iterations, starting from its own weights.

    ``state`` (``net``/``opt`` state dicts and ``it``) resumes an interrupted run; ``on_save`` is
    called with such a state every ``cfg.save_minutes``. With ``layers`` the target plays them
    on top of its network (:mod:`models.convention`).
    """
    tgt = frozen(target).to(device)
    ex = Trainee.start(target, cfg.exploiter_lr, device)
    it = 0
    if state is not None:
        ex.net.load_state_dict(state["net"])
        ex.opt.load_state_dict(state["opt"])
        it = int(state["it"])
    last_save = time.perf_counter()
    # policy_doubles=auto: the target reads the exploiter's doubles as passes after an iteration
    # in which the exploiter doubled wildly (the share at which the agents stop reading them).
    wild = DoubleRate().rate
    ignore = bool(state is not None and state.get("ignore", False))
    while it < iters:
        rng = np.random.default_rng([*seed, it])
        gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
        deals = rng.choice(train_idx, size=cfg.deals_per_iter, replace=True)
        entry = rl_iteration(
            ex, [opponent_chooser(tgt, device, ignore_their_doubles=ignore, layers=layers)],
            np.ones(1),
            data_owners[deals], data_dd[deals], rng, gen, cfg.exploiter_explore, cfg, device,
        )  # fmt: skip
        entry["target_ignores_doubles"] = ignore
        ignore = cfg.policy_doubles == "auto" and entry["double_share"] >= wild
        it += 1
        if record is not None:
            record({"phase": "exploit", "it": it, **entry})
        if on_save is not None and (
            time.perf_counter() - last_save > cfg.save_minutes * 60 or it == iters
        ):
            on_save(
                {"net": ex.net.state_dict(), "opt": ex.opt.state_dict(), "it": it, "ignore": ignore}
            )
            last_save = time.perf_counter()
    return ex


def train_league(
    cfg: LeagueConfig,
    command: str = "",
    progress: bool = True,
    make_agent: AgentFactory | None = None,
    doubles: DoublesModel | None = None,
) -> dict[str, object]:
    """Run (or resume) the league; see the module docstring for what ``OUT`` holds.

    ``command`` is recorded as the run's command line; ``progress`` shows a bar on a terminal;
    ``make_agent`` builds the agent of ``cfg.convention`` (needed only with it); ``doubles`` is
    the penalty-double layer's model of the opponents that double (``selfx``, ``initx``, ``bfgx``)
    and of the evaluation against the starting model with it (the command line hands down the
    shipped one, ``bridgebot.shipped.PENALTY_DOUBLES``; needed). Each generation
    is an exploit phase (:meth:`LeagueRun.exploit_phase`), then a learn phase and the
    generation's end (:meth:`LeagueRun.learn_phase`); ``OUT/ckpt.pt`` records where it is, so a
    rerun goes on from there.
    """
    if doubles is None:
        raise LeagueError(
            "the league needs the penalty-double model (doubles=; the command line hands down "
            "the shipped one)"
        )
    run = LeagueRun.open(cfg, command, progress, make_agent, doubles)
    while run.st["gen"] < cfg.gens:
        g = int(run.st["gen"])
        if run.out_of_time():
            log.warning("time budget reached, stopping (rerun to resume)", gen=g)
            break
        if run.st["phase"] == "exploit":
            run.exploit_phase(g)
        elif not run.learn_phase(g):
            break
    return run.finish()


@dataclass
class LeagueData:
    """The league's deals: every file's (``cfg.dd``, then ``cfg.slam_dd``) owners and tables, and
    the indices of the training, evaluation, slam-file and strong deals."""

    owners: npt.NDArray[np.uint8]
    dd: npt.NDArray[np.uint8]
    train: IntArray
    val: IntArray
    slam: IntArray
    strong: IntArray

    @classmethod
    def load(cls, cfg: LeagueConfig) -> LeagueData:
        owners, dd, train_idx, val_idx = league_data(cfg.dd, cfg.eval_deals)
        owners, dd, slam_idx, strong_idx = curriculum(owners, dd, train_idx, cfg)
        return cls(owners, dd, train_idx, val_idx, slam_idx, strong_idx)


def league_layers(
    cfg: LeagueConfig, make_agent: AgentFactory | None
) -> tuple[Layers | None, Listeners | None]:
    """The layers of ``cfg.convention`` (None without one) and, with ``cfg.estimators_lr``, the
    listeners that train their estimators in the loop; a :class:`LeagueError` naming the option
    where they cannot be had."""
    try:
        layers = None
        if cfg.convention:
            if make_agent is None:
                raise ValueError("needs an agent factory (make_agent)")
            layers = Layers.of_agent(make_agent, cfg.convention)
    except ValueError as e:
        raise LeagueError(f"--convention: {e}") from e
    listeners = None
    if cfg.estimators_lr > 0:
        if layers is None:
            raise LeagueError("--estimators-lr needs --convention (the layers it trains)")
        try:
            listeners = Listeners(layers, cfg.estimators_lr)
        except ValueError as e:
            raise LeagueError(f"--estimators-lr: {e}") from e
    return layers, listeners


def fresh_state(cfg: LeagueConfig, init: PolicyNet) -> dict[str, Any]:
    """The checkpoint of a run that has not begun: generation 0, its exploit phase."""
    return {
        "gen": 0,
        "phase": "exploit",
        "learner": init.state_dict(),
        "learner_opt": None,
        "learner_it": 0,
        "exploit_state": None,
        "snapshots": [],
        "exploiters": [],
        "history": [],
        "elapsed": 0.0,
        "config": cfg.model_dump(mode="json"),
    }


@dataclass
class LeagueRun:
    """One league run between its checkpoints: the state ``OUT/ckpt.pt`` holds (``st``) and what
    is rebuilt from the configuration on every start, with the steps :func:`train_league` takes.

    ``layers`` are the convention's layers as the agent plays them (the model the learner started
    from plays these); ``ours`` the learner pair's (the same, or the listeners' where the
    estimators learn in the loop)."""

    cfg: LeagueConfig
    device: torch.device
    mix: dict[str, float]
    field: Field | None
    out: Path
    data: LeagueData
    init: PolicyNet
    layers: Layers | None
    listeners: Listeners | None
    st: dict[str, Any]
    start: float
    learner: Trainee
    bar: Any
    meta: dict[str, Any]
    doubles: DoublesModel
    _init_field: IntArray | None = None
    """The starting model's IMPs against the field on the validation deals (:meth:`field_reads`)."""

    @classmethod
    def open(
        cls,
        cfg: LeagueConfig,
        command: str,
        progress: bool,
        make_agent: AgentFactory | None,
        doubles: DoublesModel,
    ) -> LeagueRun:
        """Set up: the deals, the starting model, the layers, and the state of ``OUT/ckpt.pt``
        where it exists (a resumed run), else a fresh one."""
        torch.set_num_threads(cfg.threads)
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        mix = parse_mix(cfg.mix)
        field = open_field(cfg, mix)
        out = Path(cfg.out)
        out.mkdir(parents=True, exist_ok=True)
        data = LeagueData.load(cfg)
        init = load_policy(cfg.init).to(device)
        layers, listeners = league_layers(cfg, make_agent)
        ckpt_path = out / "ckpt.pt"
        st: dict[str, Any]
        if ckpt_path.exists():
            st = torch.load(ckpt_path, map_location="cpu", weights_only=False)
            log.info("resuming", checkpoint=str(ckpt_path), gen=st["gen"], phase=st["phase"])
        else:
            st = fresh_state(cfg, init)
        start = time.perf_counter() - float(st["elapsed"])
        learner = Trainee.start(init, cfg.lr, device)
        learner.net.load_state_dict(st["learner"])
        if st["learner_opt"] is not None:
            learner.opt.load_state_dict(st["learner_opt"])
        if listeners is not None and st.get("listeners") is not None:
            listeners.load_state_dict(st["listeners"])
        per_gen = cfg.exploiter_iters + cfg.learner_iters
        in_gen = (
            cfg.exploiter_iters + st["learner_it"]
            if st["phase"] == "learn"
            else (st["exploit_state"] or {}).get("it", 0)
        )
        bar = progress_bar(
            cfg.gens * per_gen, "iter", "train league", initial=st["gen"] * per_gen + in_gen,
            show=progress,
        )  # fmt: skip
        meta = {"kind": "league", "command": command,
                "data": [d.model_dump(mode="json") for d in data_records((*cfg.dd, *cfg.slam_dd))],
                "seed": cfg.seed, "opponents": opponents_of(mix, field),
                "init": cfg.init, "config": cfg.model_dump(mode="json")}  # fmt: skip
        return cls(
            cfg, device, mix, field, out, data, init, layers, listeners, st, start, learner, bar,
            meta, doubles,
        )  # fmt: skip

    @property
    def ours(self) -> Layers | None:
        """The layers the learner's pair plays: its own where they learn in the loop, else the
        agent's."""
        return self.listeners.layers if self.listeners is not None else self.layers

    def out_of_time(self) -> bool:
        minutes = self.cfg.max_minutes
        return bool(minutes) and time.perf_counter() - self.start > minutes * 60

    def net_of(self, state: dict[str, Any]) -> PolicyNet:
        """A frozen network of the starting model's shape with the weights ``state``."""
        n = PolicyNet(self.init.config)
        n.load_state_dict(state)
        return frozen(n).to(self.device)

    def save(self) -> None:
        """Rewrite ``OUT/ckpt.pt`` (a temporary file renamed over it) with the learner now."""
        st = self.st
        st["learner"] = self.learner.net.state_dict()
        st["learner_opt"] = self.learner.opt.state_dict()
        st["listeners"] = self.listeners.state_dict() if self.listeners is not None else None
        st["elapsed"] = time.perf_counter() - self.start
        ckpt_path = self.out / "ckpt.pt"
        tmp = ckpt_path.with_suffix(".tmp")
        torch.save(st, tmp)
        tmp.replace(ckpt_path)

    def record(self, entry: dict[str, Any]) -> None:
        """One line of ``OUT/log.jsonl``; an iteration moves the bar, a phase's end is logged."""
        gen = self.st["gen"]
        entry = {"gen": gen, "wall_s": round(time.perf_counter() - self.start, 1), **entry}
        append_jsonl(self.out / "log.jsonl", entry)
        if entry["phase"] in ("exploit", "learn"):
            self.bar.update(1)
            d = entry.get("doubled", {})
            self.bar.set_postfix(
                gen=gen, phase=entry["phase"], imps=f"{entry.get('imps', 0):+.2f}",
                ours_doubled=int(d.get("ours_doubled", 0)),
            )  # fmt: skip
        else:
            log.info(entry["phase"], gen=gen, eval=entry.get("eval"))

    def exploit_phase(self, g: int) -> None:
        """Generation ``g``'s exploiter of the frozen learner, trained (or resumed) to its budget,
        evaluated, written to ``OUT/exploiter{g}.pt`` and added to the pool; then the learn phase."""
        cfg, st, data = self.cfg, self.st, self.data
        target = frozen(self.learner.net)

        def keep(state: dict[str, Any]) -> None:
            st["exploit_state"] = state
            self.save()

        ex = train_exploiter(
            target, cfg.exploiter_iters, data.owners, data.dd, data.train, cfg, [cfg.seed, g, 1],
            self.device, st["exploit_state"], keep, self.record, self.ours,
        )  # fmt: skip
        ex_res = evaluate_pair(
            ex.net, target, data.owners, data.dd, data.val, self.device, b_layers=self.ours
        )
        save_checkpoint(str(self.out / f"exploiter{g}.pt"), ex.net, {"meta": {**self.meta,
                        "gen": g, "role": "exploiter", "vs_target": ex_res}})  # fmt: skip
        st["exploiters"].append(frozen(ex.net).cpu().state_dict())
        st["history"].append({"gen": g, "exploiter_vs_learner": ex_res})
        self.record({"phase": "exploit-done", "it": cfg.exploiter_iters, "eval": ex_res})
        st["phase"], st["exploit_state"], st["learner_it"] = "learn", None, 0
        self.save()

    def learn_phase(self, g: int) -> bool:
        """Generation ``g``'s learner iterations against the mix (resumed where the checkpoint
        stopped), then the generation's end; False where the time budget stopped it first."""
        cfg, st, data = self.cfg, self.st, self.data
        pools = Pools(
            [self.net_of(s) for s in st["snapshots"]],
            [self.net_of(s) for s in st["exploiters"]],
            frozen(self.init),
            (bfg_chooser(), bfg_chooser(doubles=self.doubles))
            if self.mix.get("bfg") or self.mix.get("bfgx")
            else None,
        )
        last_save = time.perf_counter()
        while st["learner_it"] < cfg.learner_iters:
            it = int(st["learner_it"])
            rng = np.random.default_rng([cfg.seed, g, 2, it])
            gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
            deals = learner_deals(rng, cfg, data.train, data.slam, data.strong)
            o, d = data.owners[deals], data.dd[deals]
            table = self.opponents(g, it, rng, pools, o, d)
            w = np.array([self.mix[k] for k, _ in table], dtype=np.float64)
            floor = cfg.explore * max(0.0, 1.0 - g / max(cfg.explore_gens, 1))
            entry = rl_iteration(
                self.learner, [c for _, c in table], w, o, d, rng, gen, floor, cfg, self.device,
                cfg.slam_weight, cfg.slam_fail_weight, self.ours, self.listeners,
            )  # fmt: skip
            entry["imps_by_opponent"] = {
                table[k][0]: v for k, v in entry["imps_by_opponent"].items()
            }
            if self.field is not None:
                entry["field_illegal_calls"] = self.field.illegal_calls
            st["learner_it"] = it + 1
            self.record({"phase": "learn", "it": it + 1, "floor": floor, **entry})
            if time.perf_counter() - last_save > cfg.save_minutes * 60:
                self.save()
                last_save = time.perf_counter()
            if self.out_of_time():
                break
        if st["learner_it"] < cfg.learner_iters:
            self.save()
            log.warning("time budget reached, stopping (rerun to resume)", gen=g)
            return False
        self.end_generation(g, pools)
        return True

    def opponents(
        self,
        g: int,
        it: int,
        rng: np.random.Generator,
        pools: Pools,
        o: npt.NDArray[np.uint8],
        d: npt.NDArray[np.uint8],
    ) -> list[tuple[str, Chooser]]:
        """Iteration ``it``'s table of (kind, chooser), the kinds the mix weighs above 0: the
        snapshot and the exploiter drawn from their pools by ``rng``, the field's card per deal
        from (seed, generation, iteration)."""
        cfg, device, ours, layers = self.cfg, self.device, self.ours, self.layers
        model = self.doubles
        o2, d2 = np.concatenate([o, o]), np.concatenate([d, d])
        me = frozen(self.learner.net)
        table: list[tuple[str, Chooser]] = [
            ("self", opponent_chooser(me, device, layers=ours)),
            ("selfx", opponent_chooser(me, device, "layer", layers=ours, layer_model=model)),
            ("init", opponent_chooser(pools.init, device, layers=layers)),
            (
                "initx",
                opponent_chooser(pools.init, device, "layer", layers=layers, layer_model=model),
            ),
            ("oracle", opponent_chooser(me, device, "oracle", o2, d2, layers=ours)),
        ]
        if pools.bfgs is not None:
            table += [("bfg", pools.bfgs[0]), ("bfgx", pools.bfgs[1])]
        if self.field is not None:  # a card per deal, the same at both tables
            draw = np.random.default_rng([cfg.seed, g, 3, it])
            pick = draw.integers(len(self.field), size=len(o))
            table.append(("field", self.field.chooser(np.concatenate([pick, pick]))))
        if pools.snapshots:
            snap = pools.snapshots[rng.integers(len(pools.snapshots))]
            table.append(("snap", opponent_chooser(snap, device, layers=ours)))
        if pools.exploiters:
            ex = pools.exploiters[rng.integers(len(pools.exploiters))]
            table.append(("exploit", opponent_chooser(ex, device)))
        return [(k, c) for k, c in table if self.mix.get(k, 0) > 0]

    def end_generation(self, g: int, pools: Pools) -> None:
        """The learner's snapshot of generation ``g``: evaluated against its starting model
        (plain and with the penalty-double layer) and the last exploiter, written to
        ``OUT/gen{g}.pt`` (its layers' estimators to ``OUT/gen{g}_slam`` where they learn), kept
        in the pool; then generation ``g + 1``'s exploit phase."""
        data, st, device = self.data, self.st, self.device
        snap = frozen(self.learner.net)
        both = (self.ours, self.layers)  # the learner and its init, each with its layers
        owners, dd, val = data.owners, data.dd, data.val
        res: dict[str, dict[str, float]] = {
            "vs_init": evaluate_pair(snap, pools.init, owners, dd, val, device, "none", *both),
            "vs_initx": evaluate_pair(
                snap, pools.init, owners, dd, val, device, "layer", *both, self.doubles
            ),
        }
        if pools.exploiters:
            res["vs_last_exploiter"] = evaluate_pair(
                snap, pools.exploiters[-1], owners, dd, val, device, a_layers=self.ours
            )
        if self.field is not None:
            res.update(self.field_reads(snap, pools.init))
        save_checkpoint(
            str(self.out / f"gen{g}.pt"), snap, {"meta": {**self.meta, "gen": g, "eval": res}}
        )
        if self.listeners is not None:
            self.listeners.export(self.out / f"gen{g}_slam")
        st["snapshots"] = (st["snapshots"] + [snap.cpu().state_dict()])[-self.cfg.snapshots :]
        st["history"].append({"gen": g, "learner": res})
        self.record({"phase": "learn-done", "it": self.cfg.learner_iters, "eval": res})
        st["gen"], st["phase"] = g + 1, "exploit"
        self.save()

    def field_reads(self, snap: PolicyNet, init: PolicyNet) -> dict[str, dict[str, float]]:
        """Greedy ``snap`` against the field on the validation deals (card ``k mod cards`` on
        deal ``k``, at both tables): ``vs_field``, and ``field_gain``, ``snap`` minus the
        starting model on the same deals against the same cards (paired per deal).

        The league's other reads are against our own policies, and a run can climb them while
        the field reads it lower (docs/evaluation.md, run 27): this one reads what the choice of a
        model asks. The start's row is computed once per process (greedy nets and EPBot are
        deterministic, so a resumed run computes the same)."""
        owners, dd, val = self.data.owners, self.data.dd, self.data.val
        dealer, vul = dealer_vul_arrays(val + 1)
        assert self.field is not None
        field = self.field
        pick = np.arange(len(val)) % len(field)

        def against_field(net: PolicyNet, layers: Layers | None) -> IntArray:
            imps, _, _ = duplicate_imps(
                owners[val], dd[val], dealer, vul,
                opponent_chooser(net, self.device, layers=layers),
                field.chooser(np.concatenate([pick, pick])),
            )  # fmt: skip
            return imps

        if self._init_field is None:
            self._init_field = against_field(init, self.layers)
        ours = against_field(snap, self.ours)
        return {
            "vs_field": imp_summary(ours),
            "field_gain": imp_summary(ours - self._init_field),
        }

    def finish(self) -> dict[str, object]:
        """Close the bar and the field, save, and write the learner to ``OUT/policy.pt``."""
        self.bar.close()
        if self.field is not None:
            self.field.close()
        self.save()
        save_checkpoint(
            str(self.out / "policy.pt"),
            self.learner.net,
            {"meta": {**self.meta, "history": self.st["history"]}},
        )
        wall = time.perf_counter() - self.start
        return {"gens_done": self.st["gen"], "wall_s": wall, "history": self.st["history"]}


@dataclass
class Pools:
    """The frozen opponents of a learn phase: the snapshots and exploiters of the generations
    before, the starting model, and bfg (plain and with the penalty-double layer) where the mix
    plays it."""

    snapshots: list[PolicyNet]
    exploiters: list[PolicyNet]
    init: PolicyNet
    bfgs: tuple[Chooser, Chooser] | None


def league_data(
    paths: Sequence[str], eval_deals: int
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], IntArray, IntArray]:
    """All files concatenated; the last file's last 2,000 deals held out, ``eval_deals`` before
    them kept for evaluation; (owners, dd, training indices, evaluation indices)."""
    data, train, _held = load_dd_files(paths)
    n_train = len(train)
    return (
        data.owners,
        data.dd,
        np.arange(n_train - eval_deals),
        np.arange(n_train - eval_deals, n_train),
    )


def curriculum(
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    train_idx: IntArray,
    cfg: LeagueConfig,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], IntArray, IntArray]:
    """The deals with ``cfg.slam_dd`` appended; (owners, dd, slam indices, strong indices).

    The slam files' deals come after every other deal, so indices into the league's data keep
    their meaning (evaluation deals included); the strong deals are the training deals where one
    side holds 26+ HCP (:func:`models.slam.strong_deals`).
    """
    strong = train_idx[strong_deals(owners[train_idx])]
    if cfg.strong_frac > 0 and not len(strong):
        raise LeagueError("--strong-frac: no training deal has a side with 26+ HCP")
    if not cfg.slam_dd:
        if cfg.slam_frac > 0:
            raise LeagueError("--slam-frac needs --slam-deals (a slam-rich deal file)")
        return owners, dd, np.zeros(0, np.int64), strong
    sets = [load_dd(p) for p in cfg.slam_dd]
    extra_o = np.concatenate([s.owners for s in sets])
    extra_d = np.concatenate([s.dd for s in sets])
    slam = np.arange(len(owners), len(owners) + len(extra_o))
    return np.concatenate([owners, extra_o]), np.concatenate([dd, extra_d]), slam, strong


def learner_deals(
    rng: np.random.Generator,
    cfg: LeagueConfig,
    train_idx: IntArray,
    slam_idx: IntArray,
    strong_idx: IntArray,
) -> IntArray:
    """One iteration's deals: ``slam_frac`` from the slam files, ``strong_frac`` from the strong
    training deals, the rest from all training deals (each drawn with replacement)."""
    n = cfg.deals_per_iter
    n_slam = round(n * cfg.slam_frac) if len(slam_idx) else 0
    n_strong = min(round(n * cfg.strong_frac), n - n_slam)
    parts = [
        rng.choice(train_idx, size=n - n_slam - n_strong, replace=True),
        rng.choice(slam_idx, size=n_slam, replace=True) if n_slam else slam_idx[:0],
        rng.choice(strong_idx, size=n_strong, replace=True) if n_strong else strong_idx[:0],
    ]
    return np.concatenate(parts).astype(np.int64)


def evaluate_pair(
    a: PolicyNet,
    b: PolicyNet,
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    idx: IntArray,
    device: torch.device,
    b_doubles: str = "none",
    a_layers: Layers | None = None,
    b_layers: Layers | None = None,
    layer_model: DoublesModel | None = None,
) -> dict[str, float]:
    """Greedy ``a`` against greedy ``b`` (optionally with the penalty-double layer of
    ``layer_model``) on fixed deals; each with the slam layer and asking convention where its
    ``layers`` are set."""
    dealer, vul = dealer_vul_arrays(idx + 1)
    imps, auctions, _ = duplicate_imps(
        owners[idx], dd[idx], dealer, vul,
        opponent_chooser(a, device, layers=a_layers),
        opponent_chooser(b, device, b_doubles, layers=b_layers, layer_model=layer_model),
    )  # fmt: skip
    res = imp_summary(imps)
    res.update(
        {f"doubled_{k}": v for k, v in doubled_stats(auctions, dealer, dd[idx], imps).items()}
    )
    res.update({f"slams_{k}": v for k, v in slam_counts(auctions, dealer, dd[idx]).items()})
    return res


def exploit(
    target_path: str, cfg: LeagueConfig, command: str = "", progress: bool = True
) -> dict[str, object]:
    """``bridgebot train exploit``: one exploiter of a frozen policy, with the league's budget.

    The same code and hyper-parameters as a league generation's exploiter phase (so an
    exploiter of the final model and one of today's model trained this way are comparable);
    ``cfg.exploiter_iters`` is the budget. Resumes from ``OUT/ckpt.pt``.
    """
    torch.set_num_threads(cfg.threads)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt_path = out / "ckpt.pt"
    owners, dd, train_idx, val_idx = league_data(cfg.dd, cfg.eval_deals)
    target = load_policy(target_path).to(device)
    state = torch.load(ckpt_path, weights_only=False) if ckpt_path.exists() else None
    t0 = time.perf_counter()

    def keep(s: dict[str, Any]) -> None:
        tmp = ckpt_path.with_suffix(".tmp")
        torch.save(s, tmp)
        tmp.replace(ckpt_path)

    bar = progress_bar(
        cfg.exploiter_iters, "iter", "train exploit", initial=int((state or {}).get("it", 0)),
        show=progress,
    )  # fmt: skip

    def record(entry: dict[str, Any]) -> None:
        append_jsonl(out / "log.jsonl", entry)
        bar.update(1)
        bar.set_postfix(imps=f"{entry['imps']:+.2f}")

    ex = train_exploiter(
        target, cfg.exploiter_iters, owners, dd, train_idx, cfg, [cfg.seed, 0, 1], device,
        state, keep, record,
    )  # fmt: skip
    bar.close()
    res = evaluate_pair(ex.net, frozen(target), owners, dd, val_idx, device)
    meta = {"kind": "exploiter", "command": command,
            "data": [d.model_dump(mode="json") for d in data_records(cfg.dd)], "seed": cfg.seed,
            "init": target_path, "config": cfg.model_dump(mode="json"),
            "metrics": {"vs_target": res}}  # fmt: skip
    save_checkpoint(str(out / "policy.pt"), ex.net, {"meta": meta})
    return {"vs_target": res, "wall_s": time.perf_counter() - t0}
