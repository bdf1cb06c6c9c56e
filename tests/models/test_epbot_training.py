"""EPBot's training cards in training (issue 43): the report cards refused everywhere, EPBot as
``teach``'s teacher (resumable, recorded), imitation on its auctions recording the teachers, and
no shipped model card naming a report card.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.epbot_cards import (
    REPORT_CARDS,
    TRAINING_CARDS,
    ReportCardInTraining,
    convention_card_names,
    names_report_card,
    training_cards,
)
from bridgebot.laws.calls import ALL_CALLS, auction_over
from bridgebot.laws.deals import random_owners_batch
from bridgebot.models.teach import generate

from bridgebot.cli import main
from tests.engine.test_epbot import epbot  # noqa: F401 (the fixture)

ROOT = Path(__file__).resolve().parents[2]
TEACHERS = ("epbot:BBA-Sayc", "epbot:Micro_Bridge_13.4")


def load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def test_no_model_card_names_a_report_card() -> None:
    cards = sorted(ROOT.glob("models/**/model.json"))
    assert cards, "no model card under models/"
    named = {str(p.relative_to(ROOT)): names_report_card(p.read_text()) for p in cards}
    assert {p: c for p, c in named.items() if c} == {}
    # The scan sees a card however it is spelled.
    assert names_report_card('{"opponents": ["epbot:wbridge5_21gf"]}') == "WBridge5-21GF"
    assert names_report_card('{"teachers": ["epbot:BBA-Sayc"]}') is None


@pytest.mark.parametrize(
    "spelled", ["WBridge5-Sayc", "epbot:wbridge5_21gf", "BBA-Sayc,WBridge5 Sayc"]
)
def test_the_guard_refuses_a_report_card_in_one_line(spelled: str) -> None:
    with pytest.raises(ReportCardInTraining) as caught:
        training_cards([spelled], "--field")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("--field: ")
    assert "WBridge5-Sayc and WBridge5-21GF are the report cards" in message
    assert training_cards(["BBA-Sayc,Acol", "WJ"], "--field") == ("BBA-Sayc", "Acol", "WJ")


def test_the_training_cards_are_the_folder_but_the_report_cards(epbot: Path) -> None:  # noqa: F811
    assert sorted(TRAINING_CARDS) == sorted(set(convention_card_names(epbot)) - set(REPORT_CARDS))
    assert len(TRAINING_CARDS) == 16


def test_teach_refuses_a_report_card_teacher(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t.npz"
    argv = ["teach", "--boards", "4", "--out", str(out), "--quiet"]
    assert main([*argv, "--teacher", "epbot:BBA-Sayc,epbot:WBridge5_Sayc"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--teacher: epbot:WBridge5_Sayc is refused" in err
    assert not out.exists()


def test_teach_without_epbot_says_what_to_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BRIDGEBOT_EPBOT", raising=False)
    argv = ["teach", "--boards", "4", "--out", str(tmp_path / "t.npz"), "--quiet"]
    assert main([*argv, "--teacher", "epbot:BBA-Sayc"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "set BRIDGEBOT_EPBOT" in err


def test_epbot_teaches_resumably_and_imitation_records_the_teachers(
    epbot: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    whole, part = tmp_path / "whole.npz", tmp_path / "part.npz"
    argv = ["teach", "--boards", "24", "--seed", "4", "--workers", "1", "--quiet"]
    argv += ["--teacher", "epbot:bba-sayc", "--teacher", "epbot:Micro_Bridge_13.4"]
    assert main([*argv, "--out", str(whole)]) == 0
    assert "teachers epbot:BBA-Sayc, epbot:Micro_Bridge_13.4" in capsys.readouterr().out
    z = load(whole)
    meta = json.loads(str(z["meta"]))
    assert tuple(meta["teachers"]) == TEACHERS and meta["epbot_version"] > 0
    assert "bfg_version" not in z and "bfg_version" not in meta
    np.testing.assert_array_equal(z["teacher"], np.arange(24) % 2)
    np.testing.assert_array_equal(z["owners"], random_owners_batch(4, 0, 24))
    assert meta["calls"] == int((z["auctions"] >= 0).sum()) and meta["fallbacks"] == 0
    for row in z["auctions"]:
        assert auction_over([ALL_CALLS[c] for c in row if c >= 0])
    # The two cards bid differently somewhere: the deals really went to both.
    assert (z["auctions"][0::2] >= 0).sum() != (z["auctions"][1::2] >= 0).sum()
    # Stopped part way (after 10 deals), then the same command: the same file.
    generate(part, 24, seed=4, chunk=8, progress=False, stop_after=10, teachers=TEACHERS)
    assert load(part)["owners"].shape[0] == 10
    assert main([*argv, "--out", str(part)]) == 0
    for key in ("owners", "dealer", "vul", "auctions", "deal_index", "teacher", "meta"):
        np.testing.assert_array_equal(load(part)[key], z[key], err_msg=key)
    # Another set of teachers does not continue the file.
    assert main([*argv[:-4], "--teacher", "epbot:Acol", "--out", str(part)]) == 2
    assert "its teachers is" in capsys.readouterr().err
    # Imitation trains on it, and the run's card says who taught it and how to remake the file.
    pytest.importorskip("torch")
    from bridgebot.models.config import ImitationConfig
    from bridgebot.models.imitation import train_imitation
    from bridgebot.models.net import load_checkpoint

    cfg = ImitationConfig(
        data=str(whole), out=str(tmp_path / "run"), epochs=1, batch=32, hidden=16, layers=1,
        holdout=4,
    )  # fmt: skip
    metrics = train_imitation(cfg, command="bridgebot train imitation ...", progress=False)
    assert metrics["complete"] is True
    _, blob = load_checkpoint(str(tmp_path / "run" / "policy.pt"))
    card = blob["meta"]  # type: ignore[index]
    assert tuple(card["teachers"]) == TEACHERS  # type: ignore[index]
    assert "--teacher epbot:BBA-Sayc,epbot:Micro_Bridge_13.4" in card["data"][0]["regenerate"]  # type: ignore[index]


def test_imitation_refuses_a_file_taught_by_a_report_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    path = tmp_path / "t.npz"
    meta = {"generator": "teach-v1", "seed": 1, "count": 1, "source": "random",
            "teachers": ["epbot:BBA-Sayc", "epbot:WBridge5-21GF"]}  # fmt: skip
    np.savez(
        path, owners=random_owners_batch(1, 0, 1), dealer=np.zeros(1, np.uint8),
        vul=np.zeros(1, np.uint8), auctions=np.zeros((1, 4), np.int8), meta=json.dumps(meta),
    )  # fmt: skip
    argv = ["train", "imitation", "--data", str(path), "--out", str(tmp_path / "run"), "--quiet"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"{path}: its teachers: epbot:WBridge5-21GF is refused" in err
    assert not (tmp_path / "run" / "ckpt.pt").exists()
