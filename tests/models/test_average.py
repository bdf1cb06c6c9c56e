"""``bridgebot train average``: the mean of checkpoints' weights, with a record that carries the
sources' teachers and opponents up (the league records its ``--init`` as a path), exported like
any checkpoint; a bad request is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from bridgebot.engine.modelcard import load_model
from bridgebot.engine.policy import POLICY_MODEL
from bridgebot.models.net import NetConfig, PolicyNet, load_checkpoint, save_checkpoint

from bridgebot.cli import main
from tests.models.test_train import small_dd

pytestmark = pytest.mark.train


def _checkpoint(path: Path, seed: int, meta: dict[str, object], hidden: int = 32) -> Path:
    torch.manual_seed(seed)
    save_checkpoint(str(path), PolicyNet(NetConfig(hidden=hidden, layers=2)), {"meta": meta})
    return path


def test_the_average_is_the_mean_of_the_weights_and_says_where_they_came_from(
    tmp_path: Path,
) -> None:
    # The imitation the league started from: a model directory with its card, named by path.
    init_dir = tmp_path / "imit"
    init_dir.mkdir()
    teacher = {"kind": "imitation", "command": "bridgebot train imitation ...", "seed": 1,
               "teachers": ["epbot:BEN-SAYC"]}  # fmt: skip
    (init_dir / "model.json").write_text(json.dumps({"training": teacher}))
    league = {"kind": "league", "command": "bridgebot train league ...", "seed": 47,
              "init": str(init_dir), "opponents": ["self", "epbot:WJ"]}  # fmt: skip
    a = _checkpoint(tmp_path / "gen1.pt", 1, {**league, "gen": 1, "eval": {"x": 1}})
    b = _checkpoint(tmp_path / "gen2.pt", 2, {**league, "gen": 2, "eval": {"x": 2}})
    c = _checkpoint(tmp_path / "gen3.pt", 3, {**league, "gen": 3})
    out = tmp_path / "avg.pt"
    argv = ["train", "average", "--checkpoint", str(a), "--checkpoint", str(b)]
    assert main([*argv, "--checkpoint", str(c), "--out", str(out)]) == 0

    nets = [load_checkpoint(str(p))[0].state_dict() for p in (a, b, c)]
    got, blob = load_checkpoint(str(out))
    for key, value in got.state_dict().items():
        want = (nets[0][key] + nets[1][key] + nets[2][key]) / 3
        assert torch.allclose(value, want, atol=1e-6), key
    meta = blob["meta"]
    assert meta["kind"] == "average" and meta["command"].startswith("bridgebot ")
    assert meta["config"]["checkpoints"] == [str(a), str(b), str(c)]
    assert len(meta["config"]["sha256"]) == 3
    # The three generations differ only in gen and eval: kept once, with their gens.
    assert [s["gens"] for s in meta["config"]["sources"]] == [[1, 2, 3]]
    # The league's init path is replaced by the imitation's record: the teacher reaches the top.
    assert meta["init"]["init"]["kind"] == "imitation"
    assert meta["init"]["init"]["path"] == str(init_dir)
    assert meta["teachers"] == ["epbot:BEN-SAYC"]
    assert meta["opponents"] == ["self", "epbot:WJ"]

    # Exported like any checkpoint: the card records the average and the chain.
    dd = small_dd(tmp_path / "dd.npz", 32)
    assert main(["export", "--checkpoint", str(out), "--out", str(tmp_path / "m"),
                 "--deals", str(dd), "--states", "32"]) == 0  # fmt: skip
    card = load_model(tmp_path / "m", POLICY_MODEL).card
    assert card.training.kind == "average"
    assert card.training.teachers == ("epbot:BEN-SAYC",)
    assert "epbot:WJ" in card.training.opponents


def test_a_bad_request_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _checkpoint(tmp_path / "a.pt", 1, {"kind": "league"})
    wide = _checkpoint(tmp_path / "wide.pt", 2, {"kind": "league"}, hidden=48)
    out = tmp_path / "avg.pt"
    cases = [
        (["--checkpoint", str(a)], "give two or more to average (got 1)"),
        (["--checkpoint", str(a), "--checkpoint", str(wide)], "only checkpoints of one shape"),
        (["--checkpoint", str(a), "--checkpoint", str(tmp_path / "no.pt")], "no such checkpoint"),
    ]
    for args, message in cases:
        assert main(["train", "average", *args, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
        assert not out.exists()
