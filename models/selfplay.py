"""Self-play policy improvement: PPO on duplicate IMPs against a frozen opponent, DD-scored.

Gong et al. 2019 and Qiu et al. 2024 (docs/papers.md) improve a bidding policy with
actor-critic self-play where every deal is bid at two tables with the pairs swapped and the reward
is the IMP difference of the two double-dummy results, normalised to [-1, 1]. We do the same with a
vectorised environment: thousands of auctions advance one call at a time as numpy arrays, each
step encoding every waiting player at once (``engine.features.encode_arrays``) and running one
forward pass per network, so no Python code runs per call.

The learner starts from the imitation policy and sits North-South at table 0 and East-West at
table 1; a frozen copy of the starting policy (greedy, like the deterministic rule-based bidder it
imitates) sits in the other seats. Both tables' decisions by the learner share the deal's IMP
result as their return; a value head on the same trunk is the baseline. Deals come from the DD file
minus its last 2,000 (held out for evaluation); dealer and vulnerability are drawn at random per
deal during training (the tables do not depend on them) and follow the 16-board cycle in evaluation.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt
import structlog
import torch
from bridgebot.core.logs import progress_bar
from bridgebot.core.stats import mean_stderr
from bridgebot.laws.boards import BoardDeal, dealer_vul_arrays
from bridgebot.laws.scoring import imps_array
from bridgebot.models.config import SelfPlayConfig
from bridgebot.models.data import (
    Chooser,
    IntArray,
    load_dd,
    ns_scores,
    run_auctions,
)
from bridgebot.models.net import (
    PolicyNet,
    append_jsonl,
    load_checkpoint,
    masked_logits,
    save_checkpoint,
)
from bridgebot.models.provenance import data_record
from bridgebot.models.resume import resumed, save_run

log = structlog.get_logger(__name__)


@dataclass
class Recorder:
    """Decisions one chooser made, for the policy-gradient update."""

    rows: list[IntArray] = field(default_factory=list)
    x: list[npt.NDArray[np.float32]] = field(default_factory=list)
    mask: list[npt.NDArray[np.bool_]] = field(default_factory=list)
    action: list[IntArray] = field(default_factory=list)
    logp: list[npt.NDArray[np.float32]] = field(default_factory=list)
    value: list[npt.NDArray[np.float32]] = field(default_factory=list)


def net_chooser(
    net: PolicyNet,
    device: torch.device,
    greedy: bool,
    generator: torch.Generator | None = None,
    recorder: Recorder | None = None,
    floor: float = 0.0,
) -> Chooser:
    """A chooser backed by a torch network: greedy argmax or a sample over the legal calls.

    ``floor`` > 0 samples from ``(1 - floor) * policy + floor * uniform(legal X/XX)`` on rows where
    a double or redouble is legal (the league keeps them explored); the recorded log-probability
    is then that behaviour distribution's, which is what PPO's ratio divides by.
    """

    def choose(rows: IntArray, x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> IntArray:
        with torch.no_grad():
            xt = torch.from_numpy(x).to(device)
            mt = torch.from_numpy(mask).to(device)
            logits, value = net.forward_both(xt)
            logits = masked_logits(logits, mt)
            if greedy:
                action = logits.argmax(dim=1)
            else:
                probs = torch.softmax(logits, dim=1)
                if floor > 0:
                    u = torch.zeros_like(probs)
                    u[:, 1:3] = mt[:, 1:3].to(probs.dtype)
                    k = u.sum(dim=1, keepdim=True)
                    probs = torch.where(
                        k > 0, (1 - floor) * probs + floor * u / k.clamp(min=1.0), probs
                    )
                action = torch.multinomial(probs.cpu(), 1, generator=generator).squeeze(1)
                action = action.to(device)
            if recorder is not None:
                if floor > 0 and not greedy:
                    logp = torch.log(probs.gather(1, action[:, None]).squeeze(1).clamp(min=1e-12))
                else:
                    logp = torch.log_softmax(logits, dim=1).gather(1, action[:, None]).squeeze(1)
                recorder.rows.append(rows)
                recorder.x.append(x)
                recorder.mask.append(mask)
                recorder.action.append(action.cpu().numpy())
                recorder.logp.append(logp.cpu().numpy())
                recorder.value.append(value.cpu().numpy())
        out: IntArray = action.cpu().numpy().astype(np.int64)
        return out

    return choose


def duplicate_imps(
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    dealer: IntArray,
    vul: IntArray,
    us: Chooser,
    them: Chooser | Sequence[Chooser],
    opponent: IntArray | None = None,
) -> tuple[IntArray, IntArray, IntArray]:
    """Bid each deal twice with the pairs swapped; (IMPs for ``us`` per deal, auctions, NS scores).

    Rows 0..B-1 of the returned auctions are table 0 (``us`` North-South), rows B..2B-1 table 1.
    ``them`` may be a list of choosers, ``opponent[b]`` naming the one that meets ``us`` on deal b
    at both tables (a league's mixture of opponents in one batch).
    """
    b = owners.shape[0]
    thems = [them] if callable(them) else list(them)
    opp = np.zeros(b, dtype=np.int64) if opponent is None else np.asarray(opponent, np.int64)
    opp2 = np.concatenate([opp, opp])[:, None] + 1
    who = np.zeros((2 * b, 4), dtype=np.int64)
    who[:b, 1::2] = opp2[:b]  # table 0: them East-West
    who[b:, 0::2] = opp2[b:]  # table 1: them North-South
    o2 = np.concatenate([owners, owners])
    d2 = np.concatenate([dealer, dealer])
    v2 = np.concatenate([vul, vul])
    auctions = run_auctions(o2, d2, v2, who, [us, *thems])
    ns = ns_scores(auctions, d2, v2, np.concatenate([dd, dd]))
    return imps_array(ns[:b] - ns[b:]), auctions, ns


def evaluate_nets(
    a: PolicyNet,
    b: PolicyNet,
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    boards: IntArray,
    device: torch.device | None = None,
) -> dict[str, float]:
    """Greedy ``a`` against greedy ``b`` on fixed deals, board numbers setting dealer and vul."""
    dev = device or torch.device("cpu")
    dealer, vul = dealer_vul_arrays(boards)
    imps, _, _ = duplicate_imps(
        owners, dd, dealer, vul, net_chooser(a, dev, True), net_chooser(b, dev, True)
    )
    return imp_summary(imps)


class DDMatch(Protocol):
    """Plays agent spec ``us`` against agent spec ``them`` on ``deals`` (each with its
    double-dummy table), scored double dummy, and returns ``us``'s IMPs on each board.

    The composition root hands one down (``bridgebot.services.AgentBuilder.dd_match``, over
    ``tournament.ddmatch``), so ``models`` evaluates a network by matches without importing
    the tournament (docs/design.md, "Dependency direction")."""

    def __call__(self, us: str, them: str, deals: Sequence[BoardDeal]) -> Sequence[int]: ...


def evaluate_against_agent(
    dd_match: DDMatch,
    net: PolicyNet,
    them: str,
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    boards: IntArray,
) -> dict[str, float]:
    """Greedy ``net`` against any agent spec (e.g. ``bfg``) through ``dd_match``.

    The network goes through the serving path (an ONNX model in a temporary directory, agent
    ``policy:DIR``), so this also exercises what a user runs; ``them`` is driven call by call.
    """
    import tempfile

    import onnx
    from bridgebot.engine.modelcard import Export, Training
    from bridgebot.laws.boards import cycle_board
    from bridgebot.laws.cards import owners_pbn
    from bridgebot.models.onnx_mlp import policy_card, policy_graph

    deals = [
        cycle_board(int(b), owners_pbn(o), t) for b, o, t in zip(boards, owners, dd, strict=True)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        onnx.save(policy_graph(net), f"{tmp}/policy.onnx")
        training = Training(kind="selfplay", command="the network being trained, mid-run")
        policy_card(net, training, {}, Export()).write(tmp)
        imps = dd_match(f"policy:{tmp}", them, deals)
    return imp_summary(np.array(imps))


def imp_summary(imps: npt.NDArray[np.integer]) -> dict[str, float]:
    """Mean IMPs per board, its standard error and the board count."""
    mean, se = mean_stderr(np.asarray(imps, dtype=np.float64).tolist())
    return {"boards": float(len(imps)), "imps_per_board": mean, "stderr": se}


class PPOSettings(Protocol):
    """The PPO hyper-parameters :func:`ppo_update` reads (self-play's and the league's configs)."""

    @property
    def ppo_epochs(self) -> int: ...
    @property
    def minibatch(self) -> int: ...
    @property
    def clip(self) -> float: ...
    @property
    def entropy(self) -> float: ...
    @property
    def value_coef(self) -> float: ...


def ppo_update(
    net: PolicyNet,
    opt: torch.optim.Optimizer,
    rec: Recorder,
    returns_per_row: npt.NDArray[np.float32],
    cfg: PPOSettings,
    device: torch.device,
    rng: np.random.Generator,
) -> dict[str, float]:
    rows = np.concatenate(rec.rows)
    x = torch.from_numpy(np.concatenate(rec.x)).to(device)
    mask = torch.from_numpy(np.concatenate(rec.mask)).to(device)
    action = torch.from_numpy(np.concatenate(rec.action)).to(device)
    old_logp = torch.from_numpy(np.concatenate(rec.logp)).to(device)
    old_v = torch.from_numpy(np.concatenate(rec.value)).to(device)
    ret = torch.from_numpy(returns_per_row[rows]).to(device)
    adv = ret - old_v
    adv = (adv - adv.mean()) / (adv.std() + 1e-6)
    n = x.shape[0]
    stats = {"pg": 0.0, "vf": 0.0, "ent": 0.0, "n": 0.0}
    for _ in range(cfg.ppo_epochs):
        perm = torch.from_numpy(rng.permutation(n)).to(device)
        for i in range(0, n, cfg.minibatch):
            idx = perm[i : i + cfg.minibatch]
            logits, v = net.forward_both(x[idx])
            logp_all = torch.log_softmax(masked_logits(logits, mask[idx]), dim=1)
            logp = logp_all.gather(1, action[idx, None]).squeeze(1)
            ratio = torch.exp(logp - old_logp[idx])
            a = adv[idx]
            pg = -torch.min(ratio * a, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * a).mean()
            ent = -(logp_all.exp() * logp_all).sum(dim=1).mean()
            vf = ((v - ret[idx]) ** 2).mean()
            loss = pg + cfg.value_coef * vf - cfg.entropy * ent
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            stats["pg"] += float(pg.detach())
            stats["vf"] += float(vf.detach())
            stats["ent"] += float(ent.detach())
            stats["n"] += 1
    k = max(stats.pop("n"), 1.0)
    return {key: val / k for key, val in stats.items()}


def _fresh_learner(init: str) -> PolicyNet:
    """The learner at the start of a run: the policy of ``init`` with its value head at zero.
    Imitation never trains the value head: started at zero, its first errors are the size of
    the rewards (|r| <= 1) and do not swamp the trunk the policy relies on."""
    net, _ = load_checkpoint(init)
    with torch.no_grad():
        net.value.weight.zero_()
        net.value.bias.zero_()
    return net


def train_selfplay(
    cfg: SelfPlayConfig,
    command: str = "",
    progress: bool = True,
    dd_match: DDMatch | None = None,
) -> dict[str, object]:
    """Run (or resume) self-play; writes ``OUT/ckpt.pt``, ``OUT/policy.pt``, ``OUT/log.jsonl``.

    ``command`` is recorded as the run's command line; ``progress`` shows a bar on a terminal;
    ``dd_match`` plays the evaluation against bfg (``cfg.eval_bfg_every``).
    """
    if cfg.eval_bfg_every and dd_match is None:
        raise ValueError("self-play evaluated against bfg needs a match runner (dd_match)")
    torch.set_num_threads(cfg.threads)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt_path = out / "ckpt.pt"
    data = load_dd(cfg.dd)
    train_idx, _held_out = data.split()
    # Model selection and periodic evaluation use validation deals just before the held-out
    # block, so the held-out deals that the benchmarks report on never steer training.
    val_idx = train_idx[-cfg.eval_deals :]
    train_idx = train_idx[: -cfg.eval_deals]
    init_net, init_meta = load_checkpoint(cfg.init)
    opponent = init_net.to(device).eval()
    for p in opponent.parameters():
        p.requires_grad_(False)
    net, opt, state = resumed(ckpt_path, device, cfg.lr, lambda: _fresh_learner(cfg.init))
    it = int(state.get("iter", 0))  # type: ignore[call-overload]
    history: list[dict[str, object]] = list(state.get("history", []))  # type: ignore[call-overload]
    elapsed = float(state.get("elapsed", 0.0))  # type: ignore[arg-type]
    games = int(state.get("games", 0))  # type: ignore[call-overload]
    if state:
        log.info("resuming", checkpoint=str(ckpt_path), iteration=it)
    rng = np.random.default_rng([cfg.seed, it])
    gen = torch.Generator().manual_seed(cfg.seed * 1_000_003 + it)
    val_boards = val_idx + 1
    log_path = out / "log.jsonl"
    start = time.perf_counter() - elapsed
    gen_time = 0.0
    best = max((float(h["val_vs_init"]["imps_per_board"]) for h in history), default=float("-inf"))  # type: ignore[index]
    meta: dict[str, object] = {
        "kind": "selfplay",
        "command": command,
        "data": [data_record(cfg.dd).model_dump(mode="json")],
        "seed": cfg.seed,
        "init": init_meta.get("meta"),
        "config": cfg.model_dump(mode="json"),
    }

    def evaluate() -> dict[str, float]:
        net.eval()
        res = evaluate_nets(
            net, opponent, data.owners[val_idx], data.dd[val_idx], val_boards, device
        )
        net.train()
        return res

    def save() -> None:
        save_run(ckpt_path, net, opt, start, meta, iter=it, history=history, games=games)

    bar = progress_bar(cfg.iters, "iter", "train selfplay", initial=it, show=progress)
    while it < cfg.iters:
        if cfg.max_minutes and (time.perf_counter() - start) > cfg.max_minutes * 60:
            log.warning("time budget reached, stopping", iteration=it, max_minutes=cfg.max_minutes)
            break
        t0 = time.perf_counter()
        deals = rng.choice(train_idx, size=cfg.deals_per_iter, replace=True)
        dealer = rng.integers(0, 4, size=len(deals))
        vul = rng.integers(0, 4, size=len(deals))
        rec = Recorder()
        net.eval()
        imps, _, _ = duplicate_imps(
            data.owners[deals],
            data.dd[deals],
            dealer,
            vul,
            net_chooser(net, device, False, gen, rec),
            net_chooser(opponent, device, True),
        )
        net.train()
        t1 = time.perf_counter()
        gen_time += t1 - t0
        games += 2 * len(deals)
        reward = (imps / 24.0).astype(np.float32)
        returns = np.concatenate([reward, reward])
        stats = ppo_update(net, opt, rec, returns, cfg, device, rng)
        it += 1
        entry: dict[str, object] = {
            "iter": it,
            "train_imps": float(imps.mean()),
            "games": games,
            "gen_games_per_s": 2 * len(deals) / (t1 - t0),
            "iter_s": time.perf_counter() - t0,
            **stats,
        }
        if it % cfg.eval_every == 0 or it == cfg.iters:
            val = evaluate()
            entry["val_vs_init"] = val
            if cfg.eval_bfg_every and it % cfg.eval_bfg_every == 0:
                net.eval()
                bfg_idx = val_idx[: cfg.eval_bfg_deals]
                assert dd_match is not None  # checked on entry
                entry["val_vs_bfg"] = evaluate_against_agent(
                    dd_match, net, "bfg", data.owners[bfg_idx], data.dd[bfg_idx], bfg_idx + 1
                )
                net.train()
            history.append(entry)
            save()
            if val["imps_per_board"] > best:
                best = val["imps_per_board"]
                meta["best_val_imps"] = best
                save_checkpoint(str(out / "best.pt"), net, {"meta": {**meta, "iter": it}})
        append_jsonl(log_path, entry)
        bar.update(1)
        bar.set_postfix(train_imps=f"{entry['train_imps']:+.2f}", best_val=f"{best:+.2f}")
        if "val_vs_init" in entry:
            log.info(
                "validated",
                iteration=it,
                vs_init=entry["val_vs_init"],
                vs_bfg=entry.get("val_vs_bfg"),
            )
    bar.close()
    final_eval = evaluate()
    wall = time.perf_counter() - start
    metrics = {
        "val_vs_init": final_eval,
        "iters": it,
        "games": games,
        "wall_s": wall,
        "games_per_s_overall": games / max(wall, 1e-9),
    }
    meta["metrics"] = metrics
    save()
    save_checkpoint(str(out / "policy.pt"), net, {"meta": meta})
    return metrics
