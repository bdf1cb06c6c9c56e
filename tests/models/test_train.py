"""Training: array-level contracts and scores against the rule engine, imitation, self-play, resume."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from bridgebot.laws.boards import BoardDeal, dealer_vul_arrays
from bridgebot.laws.calls import ALL_CALLS, final_contract
from bridgebot.laws.cards import owners_pbn
from bridgebot.laws.deals import random_owners_batch
from bridgebot.laws.scoring import PENALTY_ORDER, dd_tricks, ns_score
from bridgebot.models.config import ImitationConfig, SelfPlayConfig
from bridgebot.models.data import (
    DDSet,
    final_contracts,
    load_dd,
    load_teach,
    ns_scores,
    observe,
    run_auctions,
)
from bridgebot.models.imitation import encode_decisions, train_imitation
from bridgebot.models.net import load_checkpoint
from bridgebot.models.selfplay import duplicate_imps, train_selfplay
from endplay.dds import calc_all_tables
from endplay.types import Deal, Player, Vul

from bridgebot.services import AgentBuilder

pytestmark = pytest.mark.train

#: The match runner the composition root hands the trainers.
dd_match_imps = AgentBuilder().dd_match

#: Distinct deals solved by the real solver; larger sets repeat them (with other dealers and
#: vulnerabilities), which is plenty for mechanics and keeps the solver cost to a few seconds.
SOLVED = 16


@functools.cache
def _solved() -> tuple[np.ndarray, np.ndarray]:
    """SOLVED random deals and their tables from the real solver (once per test process)."""
    owners = random_owners_batch(11, 0, SOLVED)
    dd = np.zeros((SOLVED, 4, 5), dtype=np.uint8)
    for start in range(0, SOLVED, 16):
        chunk = [Deal(owners_pbn(o)) for o in owners[start : start + 16]]
        for i, table in enumerate(calc_all_tables(chunk)):
            by_strain = table.to_list()  # [S, H, D, C, NT][N, E, S, W]
            dd[start + i] = np.array(by_strain)[[3, 2, 1, 0, 4]].T
    return owners, dd


def small_dd(path: Path, n: int) -> Path:
    """A DD file in the format of docs/data.md: ``n`` boards over SOLVED real solved deals."""
    owners, dd = _solved()
    reps = -(-n // SOLVED)
    np.savez(path, owners=np.tile(owners, (reps, 1))[:n], dd=np.tile(dd, (reps, 1, 1))[:n])
    return path


def rule_teacher(rows: np.ndarray, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A tiny learnable bidding system: open one of the longest suit with 12+ HCP, else pass.

    Reads the hand from the OpenSpiel features (offset 428, card = rank * 4 + suit, deuce = 0).
    """
    hand = x[:, 428:480].reshape(-1, 13, 4)
    hcp = hand[:, 12] * 4 + hand[:, 11] * 3 + hand[:, 10] * 2 + hand[:, 9]
    longest = hand.sum(axis=1).argmax(axis=1)  # 0 clubs .. 3 spades, ties to the lower suit
    bid = 3 + longest
    unopened = mask[:, 3]  # 1C still legal: nobody has bid
    return np.where((hcp.sum(axis=1) >= 12) & unopened & mask[np.arange(len(x)), bid], bid, 0)


def random_chooser(seed: int):
    rng = np.random.default_rng(seed)

    def choose(rows: np.ndarray, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = np.zeros(len(rows), dtype=np.int64)
        for i in range(len(rows)):
            if rng.random() > 0.45:
                out[i] = rng.choice(np.nonzero(mask[i])[0])
        return out

    return choose


@pytest.fixture(scope="module")
def dd_path(tmp_path_factory) -> Path:
    return small_dd(tmp_path_factory.mktemp("dd") / "dd.npz", 2600)


@pytest.fixture(scope="module")
def dd(dd_path: Path) -> DDSet:
    return load_dd(dd_path)


@pytest.fixture(scope="module")
def teach_file(tmp_path_factory, dd) -> Path:
    """Teacher auctions of the rule teacher on 1,200 real deals, in the 'bridgebot teach' format."""
    n = 1200
    idx = np.arange(n)
    dealer, vul = dealer_vul_arrays(idx + 1)
    who = np.zeros((n, 4), dtype=np.int64)
    auctions = run_auctions(dd.owners[idx], dealer, vul, who, [rule_teacher])
    length = int((auctions >= 0).sum(axis=1).max())
    path = tmp_path_factory.mktemp("teach") / "teach.npz"
    np.savez(
        path,
        owners=dd.owners[idx],
        dealer=dealer.astype(np.uint8),
        vul=vul.astype(np.uint8),
        auctions=auctions[:, :length].astype(np.int8),
    )
    return path


def test_array_contracts_and_scores_equal_the_rule_engine(dd) -> None:
    """Vectorised final contract and DD score agree with laws.calls / laws.scoring."""
    n = 300
    idx = np.arange(n)
    dealer, vul = dealer_vul_arrays(idx + 1)
    who = np.zeros((n, 4), dtype=np.int64)
    auctions = run_auctions(dd.owners[idx], dealer, vul, who, [random_chooser(3)])
    level, _strain, penalty, declarer = final_contracts(auctions, dealer)
    ns = ns_scores(auctions, dealer, vul, dd.dd[idx])
    doubled = 0
    for i in range(n):
        calls = [ALL_CALLS[c] for c in auctions[i] if c >= 0]
        contract = final_contract(Player(int(dealer[i])), calls)
        if contract is None:
            assert level[i] == 0 and ns[i] == 0
            continue
        doubled += int(penalty[i] > 0)
        assert (level[i], declarer[i], penalty[i]) == (
            contract.level,
            contract.declarer.value,
            PENALTY_ORDER.index(contract.penalty),
        )
        tricks = dd_tricks(contract, dd.dd[i])
        assert ns[i] == ns_score(contract, tricks, Vul(int(vul[i])))
    assert doubled > 10  # the random caller doubles often enough to exercise penalties


def test_imitation_lowers_the_loss_and_learns_the_teacher(teach_file: Path, tmp_path: Path) -> None:
    cfg = ImitationConfig(
        data=str(teach_file),
        out=str(tmp_path / "imi"),
        epochs=6,
        batch=128,
        lr=2e-3,
        hidden=64,
        layers=2,
        holdout=200,
        save_every=10,
        threads=1,
    )
    metrics = train_imitation(cfg)
    log = [json.loads(line) for line in (tmp_path / "imi" / "log.jsonl").read_text().splitlines()]
    assert log[-1]["loss"] < log[0]["loss"] * 0.6
    assert metrics["heldout_accuracy"] > 0.9
    assert metrics["complete"] is True
    _net, blob = load_checkpoint(str(tmp_path / "imi" / "policy.pt"))
    assert blob["meta"]["kind"] == "imitation"  # type: ignore[index]


def test_imitation_resumes_from_its_checkpoint(teach_file: Path, tmp_path: Path) -> None:
    """A run stopped after its first checkpoint continues from that step, not from scratch."""
    base = dict(
        data=str(teach_file), out=str(tmp_path / "r"), batch=128, hidden=32, layers=1, holdout=200
    )
    train_imitation(ImitationConfig(**base, epochs=0.5, save_every=5))  # type: ignore[arg-type]
    first = [json.loads(s) for s in (tmp_path / "r" / "log.jsonl").read_text().splitlines()]
    metrics = train_imitation(ImitationConfig(**base, epochs=1, save_every=5))  # type: ignore[arg-type]
    log = [json.loads(s) for s in (tmp_path / "r" / "log.jsonl").read_text().splitlines()]
    resumed = log[len(first) :]
    assert resumed[0]["step"] > first[-1]["step"]  # continued, did not restart at step 5
    assert metrics["steps"] == 2 * first[-1]["step"] or metrics["complete"]


def test_encoded_decisions_equal_the_teacher_calls(teach_file: Path) -> None:
    teach = load_teach(teach_file)
    enc = encode_decisions(teach, np.arange(50))
    calls = teach.auctions[:50]
    assert len(enc) == int((calls >= 0).sum())
    assert list(enc.y[: int((calls[0] >= 0).sum())]) == [c for c in calls[0] if c >= 0]
    deal, pos = teach.decisions(np.arange(50))
    x, _ = observe(
        teach.owners[deal], teach.dealer[deal], teach.vul[deal], teach.auctions[deal], pos
    )
    assert np.array_equal(np.unpackbits(enc.x, axis=1, count=480), x.astype(np.uint8))


def test_duplicate_of_identical_pairs_is_zero_and_differs_from_passing(dd) -> None:
    """Same deterministic system in both pairs: both rooms bid alike, every board 0 IMPs."""
    idx = np.arange(200)
    dealer, vul = dealer_vul_arrays(idx + 1)
    imps, auctions, _ns = duplicate_imps(
        dd.owners[idx], dd.dd[idx], dealer, vul, rule_teacher, rule_teacher
    )
    assert np.all(imps == 0)
    assert np.array_equal(auctions[:200], auctions[200:])
    # Against a pair that always passes, the rooms differ, and the sign of each board follows
    # the North-South scores of the two rooms.
    imps2, _, ns2 = duplicate_imps(
        dd.owners[idx], dd.dd[idx], dealer, vul, rule_teacher, _always_pass
    )
    assert np.any(imps2 != 0)
    assert np.array_equal(np.sign(imps2), np.sign(ns2[:200] - ns2[200:]) * (imps2 != 0))


def _always_pass(rows: np.ndarray, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return np.zeros(len(rows), dtype=np.int64)


_CACHE: dict[str, object] = {}


def _tiny_trained(teach_file: Path):
    if "net" not in _CACHE:
        import tempfile

        out = tempfile.mkdtemp()
        train_imitation(
            ImitationConfig(data=str(teach_file), out=out, epochs=1, batch=128, hidden=32, layers=1)
        )
        _CACHE["net"] = load_checkpoint(str(Path(out) / "policy.pt"))
        _CACHE["path"] = str(Path(out) / "policy.pt")
    return _CACHE["net"]


def test_selfplay_runs_checkpoints_and_resumes(
    teach_file: Path, dd_path: Path, tmp_path: Path
) -> None:
    _tiny_trained(teach_file)
    init = str(_CACHE["path"])
    common = dict(
        init=init,
        dd=str(dd_path),
        out=str(tmp_path / "sp"),
        deals_per_iter=64,
        eval_every=2,
        eval_deals=100,
        eval_bfg_every=2,
        eval_bfg_deals=6,
        minibatch=256,
        threads=1,
    )
    train_selfplay(SelfPlayConfig(**common, iters=2), dd_match=dd_match_imps)  # type: ignore[arg-type]
    _, state = load_checkpoint(str(tmp_path / "sp" / "ckpt.pt"))
    assert state["iter"] == 2
    metrics = train_selfplay(SelfPlayConfig(**common, iters=3), dd_match=dd_match_imps)  # type: ignore[arg-type]
    assert metrics["iters"] == 3 and metrics["games"] == 3 * 2 * 64
    log = [json.loads(s) for s in (tmp_path / "sp" / "log.jsonl").read_text().splitlines()]
    assert [e["iter"] for e in log] == [1, 2, 3]
    assert all(np.isfinite(e["pg"]) and np.isfinite(e["vf"]) for e in log)
    assert "val_vs_init" in log[1]
    assert log[1]["val_vs_bfg"]["boards"] == 6  # the periodic match against the bfg pair


def test_selfplay_evaluates_through_the_match_runner_it_is_handed(tmp_path: Path) -> None:
    """``models`` imports no tournament: the evaluation against an agent plays through the
    match runner the composition root hands down (``bridgebot.services.AgentBuilder.dd_match``), with the
    network served from a policy directory; without a runner, self-play that evaluates against
    bfg is refused on entry."""
    from bridgebot.models.net import NetConfig, PolicyNet
    from bridgebot.models.selfplay import evaluate_against_agent

    owners, dd = _solved()
    seen: list[tuple[str, str, int, bool]] = []

    def runner(us: str, them: str, deals: Sequence[BoardDeal]) -> Sequence[int]:
        served = Path(us.removeprefix("policy:"), "policy.onnx").exists()
        seen.append((us.partition(":")[0], them, len(deals), served))
        return dd_match_imps(us, them, deals)

    net = PolicyNet(NetConfig(hidden=16, layers=1))
    summary = evaluate_against_agent(runner, net, "random", owners[:4], dd[:4], np.arange(1, 5))
    assert seen == [("policy", "random", 4, True)]
    assert summary["boards"] == 4.0 and np.isfinite(summary["imps_per_board"])
    dd_path = str(small_dd(tmp_path / "dd.npz", 64))
    cfg = SelfPlayConfig(dd=dd_path, out=str(tmp_path / "o"), init=str(tmp_path / "none.pt"))
    with pytest.raises(ValueError, match="match runner"):
        train_selfplay(cfg.model_copy(update={"eval_bfg_every": 1}), progress=False)
