"""benchmarks/opponents.py: the cross-table's manifest is well formed, a build puts each opponent
after what it needs, and an opponent rebuilt from git is a model the agents play."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from bridgebot.engine.agent import bidding_view
from bridgebot.engine.modelcard import ModelCard
from bridgebot.laws.deals import random_deal
from endplay.types import Player, Vul

from benchmarks import opponents
from bridgebot.agents import make_agent

ROOT = Path(__file__).resolve().parents[1]


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


def _shallow() -> bool:
    """Whether this checkout is a shallow clone (it lacks the revisions the manifest names)."""
    out = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--is-shallow-repository"],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.strip() != "false"


def test_an_opponent_built_from_git_is_the_model_that_commit_shipped_and_it_bids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "m.toml"
    manifest.write_text('[[opponent]]\nname = "now"\nabout = "this commit"\ngit = "HEAD"\n')
    cand, how = tmp_path / "cand", ["--manifest", str(manifest), "--cand", str(tmp_path / "cand")]
    assert opponents.main(["build", "now", *how]) == 0
    assert "models/default at HEAD" in capsys.readouterr().out
    shipped = subprocess.run(
        ["git", "-C", str(ROOT), "show", "HEAD:models/default/policy.onnx"],
        capture_output=True,
        check=True,
    ).stdout
    assert (cand / "now" / "policy.onnx").read_bytes() == shipped
    assert opponents.main(["list", "--spec", *how]) == 0
    assert f"policy:{cand / 'now'}" in capsys.readouterr().out
    # A second build finds it built and leaves it.
    assert opponents.main(["build", "now", *how]) == 0
    assert "now: built" in capsys.readouterr().out
    agent = make_agent(f"policy:{cand / 'now'}")
    deal = random_deal(7, 0)
    view = bidding_view(Player.north, Vul.none, deal[Player.north], (), 1)
    agent.reset(1)
    assert agent.bid(view) in view.legal


def test_a_card_of_format_1_is_read_as_today_s(tmp_path: Path) -> None:
    """The format-1 card (commit 4858097's) as f6bc126 rewrote the shipped ones: made here from
    today's card, so that the test needs no old revision."""
    card = json.loads((ROOT / "models" / "default" / "model.json").read_text())
    old = {k: v for k, v in card.items() if k not in ("onnx", "output_version", "input", "output")}
    old.update(format=1, inputs=[card["input"]], outputs=[card["output"]], calls="ALL_CALLS")
    (tmp_path / "model.json").write_text(json.dumps(old))
    opponents.upgrade_card(tmp_path)
    upgraded = ModelCard.read(tmp_path / "model.json")
    assert upgraded == ModelCard.model_validate(card)


@pytest.mark.skipif(_shallow(), reason="a shallow clone lacks the manifest's old revisions")
def test_every_revision_the_manifest_names_is_in_the_repository_and_def_builds(
    tmp_path: Path,
) -> None:
    for o in opponents.load_manifest().values():
        for rev in filter(None, (o.git, o.made_at)):
            found = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{rev}^{{commit}}"])
            assert found.returncode == 0, f"{o.name}: no commit {rev}"
    assert opponents.main(["build", "def", "--cand", str(tmp_path / "cand")]) == 0
    assert make_agent(f"policy:{tmp_path / 'cand' / 'def'}") is not None


def test_a_half_built_opponent_is_named_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cand" / "def").mkdir(parents=True)
    (tmp_path / "cand" / "def" / "notes.txt").write_text("mine")
    assert opponents.main(["build", "def", "--cand", str(tmp_path / "cand")]) == 1
    assert "exists but holds no policy.onnx" in capsys.readouterr().err
    assert (tmp_path / "cand" / "def" / "notes.txt").read_text() == "mine"
