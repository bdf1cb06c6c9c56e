"""The league's run (``bridgebot train league``): generations of an exploit phase and a learn
phase between checkpoints (``OUT/ckpt.pt``), the pools of frozen opponents, and the reads at each
generation's end."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import structlog
import torch
from bridgebot.core.logs import progress_bar
from bridgebot.engine.agent import AgentFactory
from bridgebot.engine.doubles import DoublesModel
from bridgebot.laws.boards import dealer_vul_arrays
from bridgebot.models.config import LeagueConfig
from bridgebot.models.convention import Layers, Listeners
from bridgebot.models.data import Chooser, IntArray
from bridgebot.models.field import Field
from bridgebot.models.league.choosers import bfg_chooser, frozen, load_policy, opponent_chooser
from bridgebot.models.league.data import LeagueData, learner_deals
from bridgebot.models.league.evaluation import evaluate_pair
from bridgebot.models.league.exploiters import train_exploiter
from bridgebot.models.league.mix import LeagueError, open_field, opponents_of, parse_mix
from bridgebot.models.league.rl import Trainee, rl_iteration
from bridgebot.models.net import PolicyNet, append_jsonl, save_checkpoint
from bridgebot.models.provenance import data_records
from bridgebot.models.selfplay import duplicate_imps, imp_summary

log = structlog.get_logger(__name__)


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
