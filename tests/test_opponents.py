"""benchmarks/opponents.py: the cross-table's manifest is well formed, a build puts each opponent
after what it needs, and an opponent rebuilt from git is a model the agents play."""

from __future__ import annotations

from pathlib import Path

import pytest
from bridgebot.engine.agent import bidding_view
from bridgebot.laws.deals import random_deal
from endplay.types import Player, Vul

from benchmarks import opponents
from bridgebot.agents import make_agent


def test_the_manifest_names_every_opponent_of_the_documented_cross_table() -> None:
    manifest = opponents.load_manifest()
    assert {"def", "default_old", "default_k4s2", "ex_final", "ex_s22", "ex_s24"} <= set(manifest)
    for o in manifest.values():
        assert o.about, o.name
        assert o.git or o.made_at, f"{o.name}: a trained opponent names its original's commit"
        for step in o.steps:
            # every training or export command is one the CLI has
            assert step.run.split()[:2] in (["bridgebot", "train"], ["bridgebot", "export"])
            assert "{runs}" in step.creates or "{cand}" in step.creates


def test_a_build_puts_what_an_opponent_needs_first_and_each_once() -> None:
    manifest = opponents.load_manifest()
    order = opponents.build_order(manifest, ["ex_s22", "ex_final", "default_old"])
    assert order == ["default_old", "ex_s22", "ex_final"]


def test_a_manifest_with_a_loop_or_a_missing_need_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text('[[opponent]]\nname = "a"\ngit = "HEAD"\nneeds = ["b"]\n')
    with pytest.raises(opponents.ManifestError, match="needs 'b'"):
        opponents.load_manifest(path)
    path.write_text(
        '[[opponent]]\nname = "a"\ngit = "HEAD"\nneeds = ["b"]\n'
        '[[opponent]]\nname = "b"\ngit = "HEAD"\nneeds = ["a"]\n'
    )
    with pytest.raises(opponents.ManifestError, match="need each other"):
        opponents.build_order(opponents.load_manifest(path), ["a"])
    path.write_text('[[opponent]]\nname = "a"\n')
    with pytest.raises(opponents.ManifestError, match="exactly one of git and steps"):
        opponents.load_manifest(path)


def test_an_opponent_built_from_git_is_the_model_that_commit_shipped_and_it_bids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cand = tmp_path / "cand"
    assert opponents.main(["build", "def", "--cand", str(cand)]) == 0
    assert "models/default at 4858097" in capsys.readouterr().out
    assert (cand / "def" / "model.json").is_file()
    assert opponents.main(["list", "--spec", "--cand", str(cand)]) == 0
    assert f"policy:{cand / 'def'}" in capsys.readouterr().out
    # A second build finds it built and leaves it.
    assert opponents.main(["build", "def", "--cand", str(cand)]) == 0
    assert "def: built" in capsys.readouterr().out
    agent = make_agent(f"policy:{cand / 'def'}")
    deal = random_deal(7, 0)
    view = bidding_view(Player.north, Vul.none, deal[Player.north], (), 1)
    agent.reset(1)
    assert agent.bid(view) in view.legal


def test_a_half_built_opponent_is_named_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cand" / "def").mkdir(parents=True)
    (tmp_path / "cand" / "def" / "notes.txt").write_text("mine")
    assert opponents.main(["build", "def", "--cand", str(tmp_path / "cand")]) == 1
    assert "exists but holds no policy.onnx" in capsys.readouterr().err
    assert (tmp_path / "cand" / "def" / "notes.txt").read_text() == "mine"
