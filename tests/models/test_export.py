"""Export: ONNX-vs-torch parity, the sidecar, refusal on mismatch, and serving = training evaluation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from bridgebot.engine.features import FEATURE_VERSION
from bridgebot.engine.modelcard import load_model
from bridgebot.engine.policy import POLICY_MODEL, Policy
from bridgebot.laws.board_sets import load_npz
from bridgebot.laws.boards import dealer_vul_arrays
from bridgebot.models.data import MAX_CALLS, load_dd
from bridgebot.models.export import ExportError, export, real_states
from bridgebot.models.net import NetConfig, PolicyNet, save_checkpoint
from bridgebot.models.selfplay import duplicate_imps, net_chooser
from bridgebot.tournament.ddmatch import run_dd_match

from bridgebot.agents import make_agent
from bridgebot.cli import main
from tests.models.test_train import small_dd

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def dd_path(tmp_path_factory) -> Path:
    return small_dd(tmp_path_factory.mktemp("dd") / "dd.npz", 64)


def _checkpoint(path: Path, seed: int, meta: dict[str, object] | None = None) -> Path:
    torch.manual_seed(seed)
    net = PolicyNet(NetConfig(hidden=48, layers=2))  # untrained: greedy auctions stay short
    save_checkpoint(str(path), net, {"meta": meta or {"kind": "test", "seed": seed}})
    return path


def test_export_writes_a_model_that_matches_torch(tmp_path: Path, dd_path: Path) -> None:
    ckpt = _checkpoint(tmp_path / "a.pt", 1, {"kind": "imitation", "seed": 1, "data": "x.npz"})
    card = export(str(ckpt), str(tmp_path / "model"), str(dd_path), states=128, command="t")
    assert load_model(tmp_path / "model", POLICY_MODEL).card == card
    assert card.feature_version == FEATURE_VERSION
    assert card.input.shape == ("batch", 480) and card.output.shape == ("batch", 38)
    assert card.training.kind == "imitation" and card.training.data[0].name == "x.npz"
    assert card.export.parity_max_abs_diff is not None and card.export.parity_max_abs_diff <= 1e-4
    # Independent check on other real states, through the runtime class the agents use.
    from bridgebot.models.net import load_checkpoint

    net, _ = load_checkpoint(str(ckpt))
    x = real_states(net, str(dd_path), 64, seed=5)
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy()
    got = Policy(tmp_path / "model").logits(x)
    assert np.abs(got - want).max() < 1e-4
    assert (
        load_model(tmp_path / "model" / "policy.onnx", POLICY_MODEL).card.input.name == "features"
    )


def test_export_records_the_metrics_file(tmp_path: Path, dd_path: Path) -> None:
    ckpt = _checkpoint(tmp_path / "a.pt", 1, {"kind": "imitation", "metrics": {"acc": 0.5}})
    metrics = tmp_path / "metrics.json"
    metrics.write_text(json.dumps({"imps": {"vs_bfg": 1.25, "boards": [64, None]}}))
    argv = ["export", "--checkpoint", str(ckpt), "--out", str(tmp_path / "m"), "--deals"]
    assert main([*argv, str(dd_path), "--states", "32", "--metrics", str(metrics)]) == 0
    card = load_model(tmp_path / "m", POLICY_MODEL).card
    assert card.metrics == {"acc": 0.5, "imps": {"vs_bfg": 1.25, "boards": [64, None]}}


def test_export_refuses_on_parity_failure_and_writes_nothing(tmp_path: Path, dd_path: Path) -> None:
    ckpt = _checkpoint(tmp_path / "a.pt", 2)
    with pytest.raises(ExportError, match=r"differ by .* --tol sets the bound"):
        export(str(ckpt), str(tmp_path / "model"), str(dd_path), states=32, tol=-1.0)
    assert not (tmp_path / "model" / "policy.onnx").exists()
    assert not (tmp_path / "model" / "model.json").exists()


def test_serving_match_equals_training_evaluation(tmp_path: Path, dd_path: Path) -> None:
    """tournament.ddmatch over the ONNX agents gives the same IMPs, board by board, as the
    vectorised torch evaluation used in training: the two encoders and scorers agree."""
    for name, seed in (("a", 3), ("b", 4)):
        export(str(_checkpoint(tmp_path / f"{name}.pt", seed)), str(tmp_path / name), str(dd_path))
    boards = 48
    result = run_dd_match(
        f"policy:{tmp_path / 'a'}",
        f"policy:{tmp_path / 'b'}",
        load_npz(dd_path),
        boards=boards,
        make_agent=make_agent,
    )
    from bridgebot.models.net import load_checkpoint

    net_a, _ = load_checkpoint(str(tmp_path / "a.pt"))
    net_b, _ = load_checkpoint(str(tmp_path / "b.pt"))
    data = load_dd(dd_path)
    idx = np.arange(boards)
    dealer, vul = dealer_vul_arrays(idx + 1)
    cpu = torch.device("cpu")
    imps, auctions, _ = duplicate_imps(
        data.owners[idx],
        data.dd[idx],
        dealer,
        vul,
        net_chooser(net_a, cpu, True),
        net_chooser(net_b, cpu, True),
    )
    assert (auctions >= 0).sum(axis=1).max() < MAX_CALLS - 3  # no forced passes
    assert result.imps == [int(v) for v in imps]
    assert any(v != 0 for v in result.imps)


def test_policy_agent_bids_only_legal_calls(tmp_path: Path, dd_path: Path) -> None:
    export(str(_checkpoint(tmp_path / "a.pt", 5)), str(tmp_path / "m"), str(dd_path))
    spec = f"policy:{tmp_path / 'm'},greedy=0,temperature=3"
    with make_agent(spec) as agent:
        assert agent.name.startswith("policy:")
    result = run_dd_match(spec, "random", load_npz(dd_path), boards=16, make_agent=make_agent)
    assert len(result.boards) == 16  # ddmatch raises IllegalCallError on any illegal call
