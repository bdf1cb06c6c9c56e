"""scripts/search_teach.py and ``bridgebot train distill`` (distilling the search into the policy):
the search bids one side against a real EPBot card on the committed ddgen deals, a rerun extends
the file without touching what is there, the report cards are refused, and the fine-tune writes a
checkpoint that ``bridgebot export`` turns into a model whose card names the search as teacher."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bridgebot.engine.search.config import SearchConfig

from bridgebot.shipped import shipped_model
from scripts import search_teach
from tests.engine.test_epbot import epbot  # noqa: F401 (the fixture)
from tests.in_process import bridgebot, run_main

ROOT = Path(__file__).resolve().parents[1]
DEALS = ROOT / "tests" / "datafiles" / "ddgen-v1.npz"
SPEC = "search,particles=16,rollouts=4"


def _teach(*args: str) -> subprocess.CompletedProcess[str]:
    """``python scripts/search_teach.py ARGS``, by its ``main``."""
    return run_main(search_teach.main, args)


def _distill(*args: str) -> subprocess.CompletedProcess[str]:
    """``bridgebot train distill ARGS``, by the CLI's own ``main``."""
    return bridgebot("train", "distill", *args)


def test_distill_refuses_a_file_that_is_not_search_labels(tmp_path: Path) -> None:
    pytest.importorskip("torch")  # the train extra
    from bridgebot.models.net import NetConfig, PolicyNet, save_checkpoint

    init = tmp_path / "init.pt"
    save_checkpoint(str(init), PolicyNet(NetConfig(hidden=32, layers=2)), {"meta": {"kind": "t"}})
    run = _distill("--init", str(init), "--data", str(DEALS), "--out", str(tmp_path / "x.pt"))
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"bridgebot train distill: {DEALS}: not a file of scripts/search_teach.py (no our_side)"
    ]
    missing = _distill("--init", str(init), "--data", "nope.npz", "--out", str(tmp_path / "x.pt"))
    assert missing.returncode == 2 and "nope.npz: no such file" in missing.stderr
    for shape, says in (("5x512", "at most 4x512"), ("4x1024", "at most 4x512"),
                        ("wide", "is not LAYERSxHIDDEN")):  # fmt: skip
        big = _distill("--init", str(init), "--data", str(DEALS), "--grow", shape,
                       "--out", str(tmp_path / "x.pt"))  # fmt: skip
        assert big.returncode == 2 and says in big.stderr.strip().splitlines()[-1], big.stderr
    assert not (tmp_path / "x.pt").exists()


def test_the_report_cards_are_refused(tmp_path: Path) -> None:
    run = _teach("--deals", str(DEALS), "--boards", "1",
        "--cards", "Acol,WBridge5-Sayc", "--out", str(tmp_path / "st.npz"),
    )  # fmt: skip
    assert run.returncode == 2
    assert "WBridge5-Sayc are report cards, never used in training" in run.stderr
    assert not (tmp_path / "st.npz").exists()


def test_search_labels_resume_and_distil_into_an_exportable_model(
    epbot: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)  # the shipped model is named as users name it, models/default
    torch = pytest.importorskip("torch")  # the train extra
    from bridgebot.models.net import NetConfig, PolicyNet, load_checkpoint, save_checkpoint

    init = tmp_path / "init.pt"
    torch.manual_seed(0)  # the same starting net every run
    save_checkpoint(str(init), PolicyNet(NetConfig(hidden=32, layers=2)), {"meta": {"kind": "t"}})
    out = tmp_path / "st.npz"
    common = ("--deals", str(DEALS), "--spec", SPEC, "--chunk", "1", "--cards", "Acol,WJ")
    first = _teach(*common, "--boards", "1", "--out", str(out))
    assert first.returncode == 0, first.stderr
    with np.load(out) as z:
        before = {k: z[k] for k in z.files}
    assert int(before["boards_done"]) == 1 and before["owners"].shape == (2, 52)
    assert sorted(before["our_side"].tolist()) == [0, 1]  # the search North-South, then East-West
    again = _teach(*common, "--boards", "3", "--out", str(out))
    assert again.returncode == 0, again.stderr
    with np.load(out) as z:
        after = {k: z[k] for k in z.files}
    assert int(after["boards_done"]) == 3 and after["owners"].shape == (6, 52)
    assert (after["owners"][:2] == before["owners"]).all()
    width = before["auctions"].shape[1]
    assert (after["auctions"][:2, :width] == before["auctions"]).all()
    assert after["card"].tolist() == [0, 0, 1, 1, 0, 0]  # chunk k meets card k mod 2
    assert json.loads(str(after["meta"]))["spec"] == SPEC
    # The file names the command that made it (its words, whoever called main).
    assert json.loads(str(before["meta"]))["command"] == shlex.join(
        ["python", "scripts/search_teach.py", *common, "--boards", "1", "--out", str(out)]
    )
    # A smaller --boards cuts the file back: the same arrays as the one-board run, and the
    # command that makes them recorded (one not at a whole chunk is refused in one line).
    cut = tmp_path / "cut.npz"
    cut.write_bytes(out.read_bytes())
    partial = _teach(*common, "--chunk", "2", "--boards", "1", "--out", str(cut))
    assert partial.returncode == 2 and "a multiple of --chunk 2" in partial.stderr
    back = _teach(*common, "--boards", "1", "--out", str(cut))
    assert back.returncode == 0, back.stderr
    with np.load(cut) as z:
        shorter = {k: z[k] for k in z.files}
    assert shorter.keys() == before.keys()
    for k in set(before) - {"meta"}:
        assert np.array_equal(shorter[k], before[k]), k
    recorded = json.loads(str(shorter["meta"]))["command"]
    assert recorded == json.loads(str(before["meta"]))["command"].replace(str(out), str(cut))
    # The file records every setting of its agents, defaults included; a file whose spec meant
    # another agent when it was made (a default since changed) is not resumed under that spec.
    meta = json.loads(str(before["meta"]))
    assert meta["settings"]["spec"]["close_bids"] == SearchConfig().close_bids
    meta["settings"]["spec"]["close_bids"] = 1.0
    old = tmp_path / "old.npz"
    np.savez_compressed(old, **{**before, "meta": np.array(json.dumps(meta))})
    refused = _teach(*common, "--boards", "2", "--out", str(old))
    assert refused.returncode == 2
    assert f"spec.close_bids: 1.0 -> {SearchConfig().close_bids!r}" in refused.stderr
    # A file made when settings named the shipped models by this checkout's folders resumes.
    meta = json.loads(str(before["meta"]))
    assert meta["settings"]["spec"]["ddnet"] == "bridgebot.models/ddnet"
    meta["settings"]["spec"]["ddnet"] = str(shipped_model("ddnet"))
    np.savez_compressed(old, **{**before, "meta": np.array(json.dumps(meta))})
    assert _teach(*common, "--boards", "1", "--out", str(old)).returncode == 0
    # Every searched call of the search's side has a target: a distribution over the 38 calls
    # whose best call, where the search's safety rules did not keep the policy's, is the call made.
    rows, pos, target = after["soft_row"], after["soft_pos"], after["soft_target"].astype(float)
    assert len(rows) > 0 and np.allclose(target.sum(axis=1), 1.0, atol=1e-2)
    seats = (after["dealer"][rows] + pos) % 4
    assert ((seats % 2) == after["our_side"][rows]).all()
    # Each searched call keeps the search's estimated gain over the policy's best: 0 where it
    # kept that call, more than 0 where it changed it (every model must agree to a change).
    gain = after["soft_gain"]
    assert gain.shape == rows.shape and gain.dtype == np.float32
    made = after["auctions"][rows, pos]
    assert (gain[np.isfinite(gain)] >= 0).all() and (gain == 0).any()  # most calls are kept
    changed = gain > 0  # a change is a candidate the search weighed: it holds target mass
    assert (target[changed, made[changed]] > 0).all()
    # A file made before the gains were kept resumes, its rows' gains unknown (NaN).
    older = tmp_path / "older.npz"
    np.savez_compressed(older, **{k: v for k, v in before.items() if k != "soft_gain"})
    assert _teach(*common, "--boards", "2", "--out", str(older)).returncode == 0
    with np.load(older) as z:
        first = int((z["soft_row"] < 2).sum())  # the first board's two auctions
        assert z["soft_gain"].shape == z["soft_row"].shape
        assert np.isnan(z["soft_gain"][:first]).all()

    ckpt = tmp_path / "distilled.pt"
    train = _distill(
        "--init", str(init),
        "--data", str(out), "--out", str(ckpt), "--epochs", "1", "--holdout", "0.3",
    )  # fmt: skip
    assert train.returncode == 0, train.stderr
    report = json.loads(train.stdout)  # the summary: what was learnt from, held-out figures
    assert report["kind"] == "distill" and report["out"] == str(ckpt)
    words = ["train", "distill", "--init", str(init), "--data", str(out), "--out", str(ckpt),
             "--epochs", "1", "--holdout", "0.3"]  # fmt: skip
    assert load_checkpoint(str(ckpt))[1]["meta"]["command"] == "bridgebot " + shlex.join(words)
    assert report["decisions"] == report["training"] + report["held_out"] > 0
    assert 0 < report["soft_targets"] <= len(rows)

    def relabelled(name: str, option: str, value: str, counted: str) -> dict[str, Any]:
        """Distil with ``option value``: the changes it labels with the start's call are counted
        under ``counted`` (none without it) and leave the share of changes by as many; the
        checkpoint's recorded config."""
        run = _distill(
            "--init", str(init), "--data", str(out), "--out", str(tmp_path / f"{name}.pt"),
            "--epochs", "1", "--holdout", "0.3", option, value,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        got = json.loads(run.stdout)
        assert report[counted] == 0  # without the option
        assert got[counted] > 0
        assert got["search_changed_share"] == pytest.approx(
            report["search_changed_share"] - got[counted] / got["decisions"], abs=2e-4
        )
        config: dict[str, Any] = load_checkpoint(str(tmp_path / f"{name}.pt"))[1]["meta"]["config"]
        return config

    # --close-bids P: a change from the start's best bid to another bid of prior P or more is
    # labelled with the start's call. At P = 0 every bid-to-bid change is (the tiny random start
    # disagrees with the search at nearly every call); P = 0.5 keeps them all (a call that is not
    # the best has less than half the prior).
    close = relabelled("close", "--close-bids", "0", "close_bid_changes_kept_as_the_start")
    assert close["close_bids"] == 0.0
    # --least-gain G: a change whose soft_gain (the search's own estimate) is under G is labelled
    # with the start's call; a file made before the gains were kept is refused in one line.
    small = relabelled("small", "--least-gain", "1", "small_changes_kept_as_the_start")
    assert small["least_gain"] == 1.0
    ancient = tmp_path / "ancient.npz"
    np.savez_compressed(ancient, **{k: v for k, v in before.items() if k != "soft_gain"})
    refused = _distill(
        "--init", str(init), "--data", str(ancient), "--out", str(tmp_path / "no.pt"),
        "--least-gain", "1",
    )  # fmt: skip
    assert refused.returncode != 0 and "no soft_gain" in refused.stderr
    everything = _distill(
        "--init", str(init), "--data", str(out), "--out", str(tmp_path / "all.pt"),
        "--epochs", "1", "--holdout", "0.3", "--close-bids", "0.5",
    )  # fmt: skip
    assert everything.returncode == 0, everything.stderr
    assert json.loads(everything.stdout)["close_bid_changes_kept_as_the_start"] == 0
    # Grown first (--grow): a larger net that starts with the same calls, and says so.
    grow = _distill(
        "--init", str(init), "--data", str(out), "--out", str(tmp_path / "grown.pt"),
        "--epochs", "1", "--holdout", "0.3", "--grow", "3x48",
    )  # fmt: skip
    assert grow.returncode == 0, grow.stderr
    assert json.loads(grow.stdout)["init_agreement_held_out"] == report["init_agreement_held_out"]
    grown_net, grown_blob = load_checkpoint(str(tmp_path / "grown.pt"))
    assert (grown_net.config.layers, grown_net.config.hidden) == (3, 48)
    assert grown_blob["meta"]["config"]["grow"] == "3x48"
    soft = _distill(
        "--init", str(init), "--data", str(out), "--target", "soft",
        "--out", str(tmp_path / "soft.pt"), "--epochs", "1", "--holdout", "0.3",
    )  # fmt: skip
    assert soft.returncode == 0, soft.stderr
    assert (tmp_path / "soft.pt").is_file()
    # The search's changes counted five times: another net, and the card says so. (Small
    # batches: Adam's first step is the gradient's sign, the same for any weight; nothing held
    # out, so every changed call is trained on.)
    nets = {}
    for w in ("1", "5"):
        run = _distill(
            "--init", str(init), "--data", str(out), "--changed-weight", w, "--batch", "4",
            "--out", str(tmp_path / f"w{w}.pt"), "--epochs", "2", "--holdout", "0",
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["search_changed_share"] > 0  # there is something to weigh
        nets[w] = load_checkpoint(str(tmp_path / f"w{w}.pt"))
    assert nets["5"][1]["meta"]["config"]["changed_weight"] == 5.0
    plain, weighted = (nets[w][0].state_dict().values() for w in ("1", "5"))
    assert not all(torch.equal(a, b) for a, b in zip(plain, weighted, strict=True))
    # An exported model directory starts a fine-tune as well (its ONNX read back, its card's
    # training record the init's): the shipped default, whose checkpoint is not in the repository.
    shipped = json.loads((ROOT / "models" / "default" / "model.json").read_text())["training"]
    from_dir = _distill(
        "--init", "models/default", "--data", str(out), "--out", str(tmp_path / "dir.pt"),
        "--epochs", "1", "--holdout", "0.3",
    )  # fmt: skip
    assert from_dir.returncode == 0, from_dir.stderr
    assert json.loads(from_dir.stdout)["init_agreement_held_out"] > 0.5  # a trained start
    meta = load_checkpoint(str(tmp_path / "dir.pt"))[1]["meta"]
    assert meta["init"]["path"] == "models/default"
    assert meta["init"]["command"] == shipped["command"]
    assert set(shipped["opponents"]) <= set(meta["opponents"])
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = _distill("--init", str(empty), "--data", str(out), "--out", str(tmp_path / "e.pt"))
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        f"bridgebot train distill: {empty}: a directory without policy.onnx (not a model)"
    ]
    model = tmp_path / "model"
    export = bridgebot(
        "export", "--checkpoint", str(ckpt), "--deals", str(DEALS), "--out", str(model)
    )
    assert export.returncode == 0, export.stderr
    card = json.loads((model / "model.json").read_text())["training"]
    assert card["kind"] == "distill" and card["teachers"] == [SPEC]
    # The card's record of the label file holds the settings its search ran with, as the file
    # recorded them: the regenerating command's spec text is read as it was meant.
    assert card["data"][0]["settings"] == json.loads(str(after["meta"]))["settings"]
    assert card["data"][0]["settings"]["spec"]["close_bids"] == SearchConfig().close_bids
    assert card["opponents"] == ["epbot:Acol", "epbot:WJ"]


def test_the_search_asked_at_the_positions_its_follower_reaches(
    epbot: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """``--follow``: the auctions are the follower's own (the same as the follower's file
    without a search), the labels differ from them only at the side's positions, the search
    asked while following itself labels every call as bid, and ``train distill`` reads the
    labels, not the auctions' calls."""
    pytest.importorskip("torch")  # read_labels encodes with the train extra's code
    from bridgebot.models.distill import read_labels

    common = ("--deals", str(DEALS), "--chunk", "1", "--cards", "Acol", "--boards", "2")

    def labels(name: str, *args: str) -> dict[str, np.ndarray]:
        run = _teach(*common, *args, "--out", str(tmp_path / name))
        assert run.returncode == 0, run.stderr
        with np.load(tmp_path / name) as z:
            return {k: z[k] for k in z.files}

    plain = labels("plain.npz", "--spec", "default")
    asked = labels("asked.npz", "--spec", SPEC, "--follow", "default")
    assert np.array_equal(asked["auctions"], plain["auctions"]) and "labels" not in plain
    assert json.loads(str(asked["meta"]))["follow"] == "default"
    lab, auc = asked["labels"], asked["auctions"]
    assert lab.shape == auc.shape and ((lab >= 0) == (auc >= 0)).all()
    rows, pos = np.nonzero(lab != auc)
    assert (((asked["dealer"][rows] + pos) % 4) % 2 == asked["our_side"][rows]).all()
    seats = (asked["dealer"][asked["soft_row"]] + asked["soft_pos"]) % 4
    assert len(seats) > 0 and ((seats % 2) == asked["our_side"][asked["soft_row"]]).all()
    # The search following itself: the search's own auctions, each call its label.
    itself = labels("itself.npz", "--spec", SPEC, "--follow", SPEC)
    searched = labels("searched.npz", "--spec", SPEC)
    assert np.array_equal(itself["labels"], itself["auctions"])
    assert np.array_equal(itself["auctions"], searched["auctions"])
    # The file's labels are what training reads: change one of the side's calls to another.
    doctored = dict(asked)
    r = int(np.flatnonzero(asked["our_side"] == 0)[0])
    p = next(q for q in range(auc.shape[1]) if (asked["dealer"][r] + q) % 2 == 0)
    doctored["labels"] = lab.copy()
    doctored["labels"][r, p] = 37 if lab[r, p] != 37 else 0
    np.savez(tmp_path / "doctored.npz", **doctored)
    before, after = read_labels(tmp_path / "asked.npz"), read_labels(tmp_path / "doctored.npz")
    i = int(np.flatnonzero(before["auction"] == r)[0])  # the auction's first call of the side
    assert before["calls"][i] == lab[r, p] and after["calls"][i] == doctored["labels"][r, p]
    assert np.array_equal(np.delete(before["calls"], i), np.delete(after["calls"], i))
    assert np.array_equal(before["features"], after["features"])
    # A rerun with another follower would mix two kinds of labels in one file: refused.
    other = _teach(*common[:-1], "3", "--spec", SPEC, "--follow", SPEC,
        "--out", str(tmp_path / "asked.npz"),
    )  # fmt: skip
    assert other.returncode == 2 and "another --spec or --follow" in other.stderr


def test_search_labels_under_a_run_name_resume_in_a_new_work_tree_on_any_workers(
    epbot: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--run NAME`` keeps the label file under ``$BRIDGEBOT_RUNS/NAME``: the command in a new
    work tree (its ``--out`` gone) goes on from there, and ends with the file of one run made
    without stopping, whatever ``--workers``."""
    runs = tmp_path / "runs"
    monkeypatch.setenv("BRIDGEBOT_RUNS", str(runs))
    common = ("--deals", str(DEALS), "--spec", SPEC, "--chunk", "1", "--cards", "Acol,WJ")
    first = _teach(*common, "--boards", "1", "--run", "st", "--out", str(tmp_path / "a" / "st.npz"))
    assert first.returncode == 0, first.stderr
    assert first.stderr.splitlines()[0] == f"no state for run st under {runs}: starting clean"
    state = runs / "st" / "st.npz"
    assert int(_load(state)["boards_done"]) == 1
    out = tmp_path / "b" / "st.npz"  # a new session: the work tree laid anew
    again = _teach(*common, "--boards", "3", "--run", "st", "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert again.stderr.splitlines()[0] == f"run st: resuming from {state}"
    assert again.stderr.splitlines()[1].startswith("search_teach: 2/3 boards")  # from board 2
    whole = tmp_path / "whole.npz"
    run = _teach(*common, "--boards", "3", "--workers", "2", "--out", str(whole))
    assert run.returncode == 0, run.stderr
    resumed, one = _load(out), _load(whole)
    assert resumed.keys() == one.keys()
    for k in set(one) - {"meta"}:  # the meta records each command's words
        assert np.array_equal(resumed[k], one[k]), k


def _load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}
