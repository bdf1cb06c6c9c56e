"""Every user error of a command (``tm`` has its own tests) is one line on stderr and a non-zero
exit status, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bridgebot.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_train_without_the_train_extra_names_the_extra(tmp_path: Path) -> None:
    """A machine without torch: ``sys.modules['torch'] = None`` makes every import of it fail as
    a missing package does."""
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from bridgebot.cli import main\n"
        "sys.exit(main(sys.argv[1:]))"
    )
    for argv in (["train", "imitation", "--data", "x.npz", "--out", "run"],
                 ["export", "--checkpoint", "x.pt", "--out", "m", "--deals", "dd.npz"]):  # fmt: skip
        proc = subprocess.run(
            [sys.executable, "-c", code, *argv],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 2
        line = _one_line(proc.stderr)
        assert "needs the 'train' extra" in line and "pip install -e '.[train]'" in line
        # The torch pin the README uses, before the extra (issue 62: the hint left it out).
        assert "pip install torch==2.13.0 && pip install -e '.[train]'" in line


_DISTILL = ["train", "distill", "--init", "i.pt", "--data", "d.npz", "--out", "o.pt"]


@pytest.mark.parametrize(
    ("argv", "flag", "expected"),
    [
        ([*_DISTILL, "--seed", "-1"], "--seed", "a seed is 0 or more, got -1"),
        ([*_DISTILL, "--batch", "0"], "--batch", "must be at least 1, got 0"),
        ([*_DISTILL, "--threads", "0"], "--threads", "must be at least 1, got 0"),
        ([*_DISTILL, "--epochs", "0"], "--epochs", "must be above 0, got 0"),
        ([*_DISTILL, "--lr", "nan"], "--lr", "must be a finite number, got nan"),
        ([*_DISTILL, "--beta", "-1"], "--beta", "must be at least 0, got -1"),
        ([*_DISTILL, "--holdout", "1"], "--holdout", "must be at least 0 and below 1, got 1"),
        ([*_DISTILL, "--changed-weight", "0"], "--changed-weight", "must be above 0, got 0"),
        ([*_DISTILL, "--batch", "x"], "--batch", "'x' is not a whole number"),
        (
            ["export", "--checkpoint", "c.pt", "--out", "m", "--deals", "d.npz", "--states", "0"],
            "--states",
            "must be at least 1, got 0",
        ),
        (
            ["ddgen", "--boards", "1", "--out", "d.npz", "--checkpoint", "0"],
            "--checkpoint",
            "must be at least 1, got 0",
        ),
        (
            ["teach", "--boards", "1", "--out", "t.npz", "--workers", "0"],
            "--workers",
            "must be at least 1, got 0",
        ),
        (
            ["train", "imitation", "--data", "t.npz", "--out", "r", "--seed", "-1"],
            "--seed",
            "must be at least 0, got -1",
        ),
        (
            ["train", "belief", "--deals", "d.npz", "--out", "r", "--seed", "-1"],
            "--seed",
            "must be at least 0, got -1",
        ),
        (
            ["train", "league", "--init", "m", "--deals", "d.npz", "--out", "r", "--lr", "0"],
            "--lr",
            "must be above 0, got 0",
        ),
        (
            [
                "train",
                "selfplay",
                "--init",
                "m",
                "--deals",
                "d.npz",
                "--out",
                "r",
                "--minibatch",
                "0",
            ],
            "--minibatch",
            "must be at least 1, got 0",
        ),
        (
            ["train", "imitation", "--data", "t.npz", "--out", "r", "--batch", "1.5"],
            "--batch",
            "'1.5' is not a whole number",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) and v.startswith("--") else "",
)
def test_the_trainers_numbers_are_checked_before_anything_runs(
    argv: list[str], flag: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A negative seed, a batch of 0, a share of 1 were numpy's, torch's or a division's
    traceback in ``train distill`` and ``export``: each is one line naming the flag, exit 2,
    before any file is read (the files named here do not exist)."""
    assert _exit(argv) == 2
    line = _one_line(capsys.readouterr().err)
    assert f"{flag}: {expected}" in line, line


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["ddgen", "--boards", "2", "--out", "{tmp}/no/such/dir/d.npz"], "No such file"),
        (["match", "--boards", "1", "--out", "{tmp}/file"], "cannot create the directory"),
        (["match", "--deals", "{tmp}/none.pbn", "--out", "{tmp}/m"], "no such deal file"),
        (["match", "--us", "nosuch", "--out", "{tmp}/m"], "unknown agent 'nosuch'"),
        (["match", "--us", "default,worlds=x", "--out", "{tmp}/m"], "worlds must be an integer"),
        (["match", "--room-port", "open=99999", "--out", "{tmp}/m"], "not 1..65535"),
        (["match", "--allow-address", "10.0.0.300", "--out", "{tmp}/m"], "not an address"),
        (["match", "--us-name", "x", "--them-name", "x", "--out", "{tmp}/m"], "must differ"),
        (["seat", "--agent", "nosuch", "--port", "2000", "--seat", "north", "--team", "t"],
         "unknown agent"),
        (["seat", "--port", "99999", "--seat", "north", "--team", "t"], "not a port number"),
        (["export", "--checkpoint", "x.pt", "--out", "{tmp}/m", "--deals", "d.npz",
          "--metrics", "{tmp}/file"], "file: not a JSON object of metrics: field (the whole file)"),
        (["export", "--checkpoint", "x.pt", "--out", "{tmp}/m", "--deals", "d.npz",
          "--metrics", "{tmp}/metrics.json"], "metrics.json: not a JSON object of metrics: "
         "field (the whole file): Input should be an object"),
        (["export", "--checkpoint", "x.pt", "--out", "{tmp}/m", "--deals", "d.npz",
          "--metrics", "{tmp}/none.json"], "none.json: cannot read the metrics"),
    ],
)  # fmt: skip
def test_user_errors_are_one_line_and_a_nonzero_exit(
    argv: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("a file where a directory is wanted")
    (tmp_path / "metrics.json").write_text('[{"imps": 1.25}]')
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's own errors: usage, then one error line
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert code != 0
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    if not err.startswith("usage:"):
        _one_line(err)
    assert expected in last, err


def _without_extras(tmp_path: Path) -> dict[str, str]:
    """An environment where ``import torch`` and ``import ray`` fail as on the README's install
    (no extras): a package of each name on PYTHONPATH that raises what a missing one raises.
    CI installs both, so only this makes the missing extras visible there."""
    for name in ("torch", "ray"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(
            f"raise ModuleNotFoundError(\"No module named '{name}'\", name={name!r})\n"
        )
    return {**os.environ, "PYTHONPATH": os.pathsep.join((str(tmp_path), str(ROOT)))}


#: Runs ``bridgebot.cli.main`` on each argv of the JSON list argv[1]; prints {argv: [code, out,
#: err]} (argparse's help and errors exit through SystemExit).
_EACH = """
import contextlib, io, json, sys
try:
    import torch
except ModuleNotFoundError:
    pass
else:
    sys.exit("torch is importable: the test would see nothing")
from bridgebot.cli import main
seen = {}
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    seen[" ".join(argv)] = [code, out.getvalue(), err.getvalue()]
print(json.dumps(seen))
"""

#: Every train mode and command: their help needs no extra.
_HELPS = [["--help"], ["-h"], ["train", "--help"], ["export", "--help"], ["match", "--help"]] + [
    ["train", mode, "--help"]
    for mode in ("imitation", "selfplay", "league", "exploit", "doubles", "ddnet", "belief",
                 "slamnet")
]  # fmt: skip


_TRAIN = ["train", "imitation", "--data", "x.npz", "--out", "run"]


def test_help_and_usage_mistakes_need_no_optional_extra(tmp_path: Path) -> None:
    """``--help`` of every command, a bare ``bridgebot`` and a mistyped command work on an
    install without torch and ray: help never needs an extra, only running a command does."""
    import json

    argvs = [*_HELPS, [], ["mtach", "--out", "x"], _TRAIN]
    proc = subprocess.run(
        [sys.executable, "-c", _EACH, json.dumps(argvs)],
        cwd=tmp_path,
        env=_without_extras(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    for argv in _HELPS:
        code, out, err = seen[" ".join(argv)]
        assert (code, err) == (0, ""), (argv, err)
        assert out.startswith("usage: bridgebot"), argv
    code, _, err = seen[""]
    assert code == 2 and "required: COMMAND" in _one_line(err)
    code, _, err = seen["mtach --out x"]
    assert code == 2 and "invalid choice: 'mtach'" in _one_line(err)
    # Running a training command still says which extra it needs.
    code, _, err = seen[" ".join(_TRAIN)]
    assert code == 2 and "needs the 'train' extra" in _one_line(err)


def test_python_m_bridgebot_help_needs_no_optional_extra(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bridgebot", "--help"],
        cwd=tmp_path,
        env=_without_extras(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.startswith("usage: bridgebot") and "train" in proc.stdout


def _exit(argv: list[str]) -> int:
    """``main(argv)``'s exit status, argparse's own exits included."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


@pytest.mark.parametrize(
    "argv",
    [
        ["match", "--boards", "1", "--out", "{tmp}/m"],
        ["tm", "--port", "0", "--boards", "1", "--out", "{tmp}/tm"],
        ["play", "--boards", "1", "--out", "{tmp}/p", "--no-browser"],
        ["teach", "--boards", "1", "--out", "{tmp}/t.npz"],
        ["ddgen", "--boards", "1", "--out", "{tmp}/d.npz"],
        ["explain", "1NT"],
        ["conform", "seat", "--port", "0"],
    ],
    ids=lambda argv: argv[0],
)
def test_a_negative_seed_is_one_line_and_exit_2(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44: numpy's generators take no negative seed, and ``--seed -1`` was a traceback."""
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert _exit([*args, "--seed", "-1"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "--seed" in line and "0 or more" in line, line
    assert line.startswith(f"bridgebot {' '.join(argv[:2] if argv[0] == 'conform' else argv[:1])}")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        # Issue 44: "Nowhere" was North (endplay reads a seat from its first letter) and the
        # match waited for a program to take it.
        (["match", "--scoring", "play", "--external", "open:Nowhere", "--wait-external", "1",
          "--boards", "1", "--out", "{tmp}/m"], "'Nowhere'"),
        (["match", "--scoring", "play", "--external", "open:NE", "--wait-external", "1",
          "--boards", "1", "--out", "{tmp}/m"], "'NE'"),
        (["play", "--seat", "Sud", "--boards", "1", "--out", "{tmp}/p"], "'Sud'"),
        (["seat", "--port", "2000", "--seat", "Westward", "--team", "t"], "'Westward'"),
        (["explain", "1NT", "--dealer", "Nobody"], "'Nobody'"),
    ],
    ids=lambda a: a.strip("'") if isinstance(a, str) else a[0],
)  # fmt: skip
def test_a_seat_is_a_name_or_an_initial_and_nothing_else(
    argv: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "not a seat (North, East, South, West or N, E, S, W)" in line and expected in line


@pytest.mark.parametrize("auction", ["", "  ", ", ,"])
def test_explain_without_a_call_is_one_line_and_exit_2(
    auction: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44: ``explain ""`` exited 0 and printed nothing."""
    assert _exit(["explain", auction]) == 2
    assert "holds no call" in _one_line(capsys.readouterr().err)


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    """``bridgebot --version``: the installed distribution's version, which is pyproject's."""
    import tomllib
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert version(project["name"]) == project["version"]
    assert capsys.readouterr().out == f"bridgebot {project['version']}\n"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        # Issue 44: the root parser answered "bridgebot: unrecognized arguments: --deals ...".
        (["ddgen", "--deals", "{pbn}", "--out", "{tmp}/d.npz"],
         "bridgebot ddgen: unrecognized arguments: --deals {pbn} (see 'bridgebot ddgen --help')"),
        (["conform", "seat", "--port", "0", "--frob"],
         "bridgebot conform seat: unrecognized arguments: --frob"),
        # Issue 44: "--count FILE is deprecated; use --boards FILE".
        (["teach", "--count", "abc", "--out", "{tmp}/t.npz"],
         "bridgebot teach: --count 'abc': not a whole number (--count N is deprecated; use "
         "--boards N)"),
        (["tm", "--count=x", "--out", "{tmp}/tm"], "bridgebot tm: --count 'x': not a whole number"),
    ],
    ids=["ddgen --deals FILE", "conform seat --frob", "teach --count abc", "tm --count=x"],
)  # fmt: skip
def test_a_mistake_is_named_by_its_command(
    argv: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pbn = str(ROOT / "tournament" / "examples" / "deals.pbn")
    args = [a.replace("{tmp}", str(tmp_path)).replace("{pbn}", pbn) for a in argv]
    assert _exit(args) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith(expected.replace("{pbn}", pbn)), line


def test_tournament_takes_boards_as_its_own_flag(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 44: ``tournament --boards`` worked only as argparse's abbreviation of
    ``--boards-per-match`` and was not in the help."""
    import argparse

    from bridgebot.cli import build_parser, command_parser

    assert _exit(["tournament", "--help"]) == 0
    assert "--boards N, --boards-per-match N" in capsys.readouterr().out
    chosen = argparse.Namespace(command="tournament")
    tournament = command_parser(build_parser("tournament"), chosen)
    tournament.allow_abbrev = False  # the flag itself, not a prefix of another
    for flag in ("--boards", "--boards-per-match"):
        args = tournament.parse_args(["--entrant", "a", "--out", "o", flag, "3"])
        assert args.boards_per_match == 3


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["seat", "--port", "1", "--seat", "N", "--team", "t", "--retries", "0",
          "--agent-seed", "-1"], "bridgebot seat: --agent 'default': seed -1: a seed is 0 or more"),
        (["match", "--us", "default,seed=-1", "--boards", "1", "--out", "{tmp}/m"],
         "bridgebot match: --us: seed -1: a seed is 0 or more"),
    ],
    ids=["seat --agent-seed -1", "match --us default,seed=-1"],
)  # fmt: skip
def test_a_negative_agent_seed_is_one_line_and_exit_2(
    argv: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44: the seed of an agent, like a deal stream's, is 0 or more (a traceback before)."""
    assert _exit([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    assert _one_line(capsys.readouterr().err) == expected
