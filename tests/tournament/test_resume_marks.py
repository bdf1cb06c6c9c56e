"""A resumed match never mixes two agents under one spec text: the journal's header holds each
side's settings and everything its builder read (``bridgebot.marks``: each network and model
card, the penalty-double model, EPBot's library and cards, each with the sha256 of the bytes
read; bfg's package versions; and, apart, the policy file's sha256), and ``--resume`` refuses a
file, package or default that changed since the match started, naming what changed; a journal
whose marks predate the files read is refused too, saying so. A benchmark's fingerprint follows
any of those files (issue 62, item 5)."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

from bridgebot.core.files import file_sha256
from bridgebot.tournament.config import MatchConfig
from bridgebot.tournament.journal import read_journal
from bridgebot.tournament.records import AgentMarks
from bridgebot.tournament.rooms import ExternalSeat
from endplay.types import Player

from bridgebot import marks
from bridgebot.agents import make_agent
from bridgebot.shipped import DEFAULT_MODEL_DIR, PENALTY_DOUBLES, record_name, shipped_model
from tests.in_process import bridgebot
from tests.policies import raise_policy


def _match(out: Path, us: str, boards: int, *more: str) -> tuple[int, str]:
    done = bridgebot(
        "match", "--us", us, "--them", "random", "--boards", str(boards), "--seed", "5",
        "--out", str(out), *more,
    )  # fmt: skip
    return done.returncode, done.stderr


def test_marks_name_the_policy_file_and_every_setting() -> None:
    assert marks.agent_marks("default").policy == file_sha256(DEFAULT_MODEL_DIR / "policy.onnx")
    assert marks.agent_marks("bfg").policy is None and marks.fingerprint("random") is None
    assert marks.settings("search")["close_bids"] == 0.2  # a default, never written in the spec
    assert marks.settings("search,close_bids=1")["close_bids"] == 1.0
    assert marks.settings_digest("search") != marks.settings_digest("search,close_bids=1")
    assert marks.settings_digest("search") == marks.settings_digest("search,close_bids=0.2")


def test_settings_name_a_shipped_model_the_same_in_every_checkout() -> None:
    """A shipped model is recorded by its package's path, never by this checkout's folder, so a
    journal or label file made in one folder resumes in another; a spec's model path, relative
    or absolute, reads the same; a model of one's own keeps its resolved path."""
    named = marks.settings("search")
    assert (
        named["ddnet"] == "bridgebot.models/ddnet" and named["belief"] == "bridgebot.models/belief"
    )
    checkout = str(Path(__file__).resolve().parents[2])
    assert checkout not in json.dumps(marks.agent_marks("default").model_dump(mode="json"))
    absolute = marks.settings(f"default:{DEFAULT_MODEL_DIR}")
    assert absolute == marks.settings(f"default:{os.path.relpath(DEFAULT_MODEL_DIR)}")
    assert absolute["path"] == "bridgebot.models/default"
    assert marks.named_setting("path", str(DEFAULT_MODEL_DIR)) == "bridgebot.models/default"
    assert marks.named_setting("opponents", "epbotnet+self") == "epbotnet+self"


def test_default_settings_name_its_doubled_stage_as_built() -> None:
    """``default`` builds a search for the positions where its contract is doubled: that
    search's settings, defaults included, are among ``default``'s, as the agent built them (so a
    default changed in the stage changes ``default``'s marks)."""
    built = make_agent("default", 0)
    try:
        config = dataclasses.asdict(built.search.base.search.config)  # type: ignore[attr-defined]
    finally:
        built.close()
    named = marks.settings("default")
    for key in ("particles", "rollouts", "p_min", "close_bids", "doubled_close_bids", "punish"):
        assert named[f"doubled.{key}"] == config[key], key
    assert named["doubled.opponents"] != marks.settings("search")["opponents"]  # its own models
    assert not any(k.startswith("doubled.") for k in marks.settings("default,doubled=policy"))


def test_a_side_of_outside_programs_holds_no_marks(tmp_path: Path) -> None:
    """Where outside programs take every seat of a side, its name is a team name, not a spec."""
    seats = tuple(
        ExternalSeat(room, seat)
        for room, pair in (("open", (Player.east, Player.west)), ("closed", (Player.north, Player.south)))
        for seat in pair
    )  # fmt: skip
    header = MatchConfig(
        make_agent=make_agent, agent_marks=marks.agent_marks, us="default", them="random",
        out=tmp_path, boards=2, seed=1, external=seats,
    ).header()  # fmt: skip
    assert header.us_agent == marks.agent_marks("default") and header.them_agent is None


def test_resume_refuses_a_policy_file_changed_since_the_match_started(tmp_path: Path) -> None:
    model = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL_DIR, model)
    spec = f"default:{model}"
    journal = tmp_path / "m" / "journal.jsonl"
    assert _match(tmp_path / "m", spec, 2)[0] == 0
    header = json.loads(journal.read_text().splitlines()[0])
    assert header["us_agent"]["policy"] == file_sha256(model / "policy.onnx")
    assert header["them_agent"] == {
        "policy": None, "settings": marks.settings("random"), "files": {}, "packages": {}
    }  # fmt: skip
    before = journal.read_bytes()

    shutil.rmtree(model)
    raise_policy(model)  # another policy under the same spec text
    code, err = _match(tmp_path / "m", spec, 4, "--resume")
    assert code == 2
    old, new = header["us_agent"]["policy"][:8], file_sha256(model / "policy.onnx")[:8]
    assert f"us {spec}: policy file sha256 {old}… -> {new}…" in err
    assert "finish it with the model and code that started it" in err
    assert journal.read_bytes() == before  # nothing played, nothing written

    shutil.rmtree(model)
    shutil.copytree(DEFAULT_MODEL_DIR, model)  # the model that started it: the match finishes
    assert _match(tmp_path / "m", spec, 4, "--resume")[0] == 0
    assert [b.board for b in read_journal(journal).boards] == [1, 2, 3, 4]


def test_resume_refuses_a_default_changed_since_the_match_started(tmp_path: Path) -> None:
    """A journal whose header recorded another value of a default (as the code before a change
    of that default wrote it) is refused, naming the option; the same spec text now means
    another agent."""
    journal = tmp_path / "m" / "journal.jsonl"
    assert _match(tmp_path / "m", "search,particles=64,rollouts=8", 1)[0] == 0
    lines = journal.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["us_agent"]["settings"]["close_bids"] == 0.2
    header["us_agent"]["settings"]["close_bids"] = 1.0  # the default before run 26
    journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    code, err = _match(tmp_path / "m", "search,particles=64,rollouts=8", 2, "--resume")
    assert code == 2 and "us search,particles=64,rollouts=8: close_bids 1.0 -> 0.2" in err
    assert len(read_journal(journal).boards) == 1


def test_a_journal_from_before_the_marks_resumes_and_keeps_its_header(tmp_path: Path) -> None:
    """Journals written before headers held marks cannot be checked: they resume as before, and
    their header line stays as it was written."""
    journal = tmp_path / "m" / "journal.jsonl"
    assert _match(tmp_path / "m", "random", 1)[0] == 0
    lines = journal.read_text().splitlines()
    header = {k: v for k, v in json.loads(lines[0]).items() if k not in ("us_agent", "them_agent")}
    journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert _match(tmp_path / "m", "random", 2, "--resume")[0] == 0
    assert json.loads(journal.read_text().splitlines()[0]) == header
    assert len(read_journal(journal).boards) == 2


def test_a_tournament_resume_refuses_an_entrant_whose_model_changed(tmp_path: Path) -> None:
    """The tournament's header holds each entrant's marks: matches not yet played would be
    played by another agent than the finished ones, so the resume is refused, naming it."""
    model = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL_DIR, model)
    out = tmp_path / "t"
    words = ("tournament", "--entrant", f"v={'default:' + str(model)}", "--entrant", "random",
             "--boards-per-match", "2", "--seed", "3", "--out", str(out))  # fmt: skip
    assert bridgebot(*words).returncode == 0
    header = (out / "bridgebot.tournament.json").read_text()
    recorded = json.loads(header)["entrants"][0]["agent"]
    assert recorded == marks.agent_marks(f"default:{model}").model_dump(mode="json")
    shutil.rmtree(model)
    raise_policy(model)
    refused = bridgebot(*words, "--resume")
    assert refused.returncode == 2
    assert f"v default:{model}: policy file sha256 " in refused.stderr
    assert "cannot resume: the same specs now build other agents" in refused.stderr
    assert (out / "bridgebot.tournament.json").read_text() == header  # left as it was


def test_an_option_recorded_on_one_side_only_is_a_change() -> None:
    """Code that adds an option may add a behaviour with its default: a journal that did not
    record it is not taken for the same agent."""
    was = AgentMarks(policy=None, settings={"pass_bias": 0.6})
    now = AgentMarks(policy=None, settings={"pass_bias": 0.6, "new_rule": True})
    assert was.changes(now) == ["new_rule (not recorded) -> True"]
    assert now.changes(now) == []


def test_the_marks_name_every_file_and_package_the_builder_read() -> None:
    files, packages = marks.reads("default")
    nets = {"default": "policy", "bfgnet": "policy", "ddnet": "ddnet", "belief": "belief"}
    for model, onnx in nets.items():
        for name in ("model.json", f"{onnx}.onnx"):
            path = shipped_model(model) / name
            assert files[f"bridgebot.models/{model}/{name}"] == file_sha256(path)
    assert packages == {}
    files, packages = marks.reads("bfg,doubles=on")
    assert files == {"bridgebot.engine/penalty_doubles.json": file_sha256(PENALTY_DOUBLES)}
    assert set(packages) == {"bfgbidding", "bridgeobjects"}
    assert marks.reads("random") == ({}, {}) and marks.fingerprint("random") is None


def test_a_resume_whose_agent_now_reads_a_changed_file_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    opponent = tmp_path / "opponent"
    shutil.copytree(shipped_model("bfgnet"), opponent)
    spec = f"search,particles=64,rollouts=8,opponents={opponent}+self"
    net = opponent / "policy.onnx"
    journal = tmp_path / "m" / "journal.jsonl"
    before_fingerprint = marks.fingerprint(spec)
    assert _match(tmp_path / "m", spec, 1)[0] == 0
    header = json.loads(journal.read_text().splitlines()[0])
    was = file_sha256(net)
    assert header["us_agent"]["files"][record_name(net)] == was
    assert header["us_agent"]["policy"] != was  # the opponent net, not the policy it bids with
    before = journal.read_bytes()

    shutil.rmtree(opponent)
    raise_policy(opponent)  # another opponent model under the same spec text
    assert marks.fingerprint(spec) != before_fingerprint  # a benchmark's row is played again
    code, err = _match(tmp_path / "m", spec, 2, "--resume")
    assert code == 2, err
    now = file_sha256(net)
    assert f"us {spec}: " in err and f"{net} sha256 {was[:8]}… -> {now[:8]}…" in err
    assert "policy file sha256" not in err  # its own policy did not change
    assert journal.read_bytes() == before  # nothing played, nothing written

    shutil.rmtree(opponent)
    shutil.copytree(shipped_model("bfgnet"), opponent)  # the file that started it: it finishes
    assert _match(tmp_path / "m", spec, 2, "--resume")[0] == 0
    assert [b.board for b in read_journal(journal).boards] == [1, 2]


def test_a_journal_whose_marks_predate_the_files_read_is_refused_saying_so(
    tmp_path: Path,
) -> None:
    """Marks written before they named the files read cannot tell whether a file changed: the
    match is not resumed with agents that may differ, and the line says why."""
    journal = tmp_path / "m" / "journal.jsonl"
    assert _match(tmp_path / "m", "bfg", 1)[0] == 0
    lines = journal.read_text().splitlines()
    header = json.loads(lines[0])
    for side in ("us_agent", "them_agent"):
        header[side] = {k: header[side][k] for k in ("policy", "settings")}  # as written before
    journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    code, err = _match(tmp_path / "m", "bfg", 2, "--resume")
    assert code == 2
    assert "us bfg: the files it reads (not recorded: marks made before they named them)" in err
    assert "them random: the files it reads (not recorded" in err
    assert len(read_journal(journal).boards) == 1
