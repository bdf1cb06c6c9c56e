"""Issue 27, one vocabulary: one deal file deals the same boards in every command, a flag means
one thing everywhere, old spellings warn and work, every command logs and fails the same way.

Every command runs in process through the dispatcher, as a user types it.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import pytest
from bridgebot.laws.board_sets import generate, load_deal_file
from bridgebot.laws.cards import deal_owners
from bridgebot.laws.notation import parse_vul
from bridgebot.protocol.table import TableResult
from bridgebot.server.records import RecordWriter
from bridgebot.server.tm_cli import session_of
from bridgebot.tournament.journal import read_journal
from endplay.types import Player, Vul

from bridgebot.cli import COMMANDS, build_parser, main

#: Three boards whose numbers, dealers and vulnerabilities are not the 16-board cycle's
#: (board 5 would be North, N/S; 6 East, E/W; 9 North, E/W).
OFF_CYCLE = [(5, "W", "None"), (6, "N", "All"), (9, "E", "NS")]


def _off_cycle_file(path: Path) -> Path:
    deals = [b.pbn for b in generate(31, len(OFF_CYCLE))]
    path.write_text(
        "\n".join(
            f'[Board "{n}"]\n[Dealer "{d}"]\n[Vulnerable "{v}"]\n[Deal "{deal}"]\n'
            for (n, d, v), deal in zip(OFF_CYCLE, deals, strict=True)
        )
    )
    return path


def test_a_deal_file_deals_the_same_boards_in_tm_match_tournament_and_teach(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pbn = _off_cycle_file(tmp_path / "off.pbn")
    want = [
        (n, Player.find(d), {"None": Vul.none, "All": Vul.both, "NS": Vul.ns}[v])
        for n, d, v in OFF_CYCLE
    ]
    owners = np.stack([deal_owners(b.deal) for b in load_deal_file(pbn)])

    # match: a 3-board file plays its 3 boards (no --boards: all of them), as written.
    spec = ["--us", "random", "--them", "random", "--deals", str(pbn)]
    assert main(["match", *spec, "--out", str(tmp_path / "m")]) == 0, capsys.readouterr().err
    played = read_journal(tmp_path / "m" / "journal.jsonl").boards
    assert [(b.board, Player.find(b.dealer), parse_vul(b.vul)) for b in played] == want
    np.testing.assert_array_equal(np.stack([deal_owners(b.deal) for b in played]), owners)

    # tournament: one round of the file's boards.
    argv = ["tournament", "--entrant", "random", "--entrant", "r2=random", "--deals", str(pbn)]
    argv += ["--boards-per-match", "3", "--out", str(tmp_path / "t")]
    assert main(argv) == 0, capsys.readouterr().err
    (match_dir,) = (tmp_path / "t" / "matches").iterdir()
    played = read_journal(match_dir / "journal.jsonl").boards
    assert sorted((b.board, Player.find(b.dealer), parse_vul(b.vul)) for b in played) == want

    # teach: the file's dealers and vulnerabilities, not the cycle's.
    teach = tmp_path / "teach.npz"
    argv = ["teach", "--deals", str(pbn), "--out", str(teach), "--workers", "1", "--quiet"]
    assert main(argv) == 0
    with np.load(teach) as z:
        np.testing.assert_array_equal(z["owners"], owners)
        assert [
            (Player(int(d)), Vul(int(v))) for d, v in zip(z["dealer"], z["vul"], strict=True)
        ] == [w[1:] for w in want]

    # tm: a finished session of exactly these boards (its header holds their digest: number,
    # dealer, vulnerability, deal) is accepted on --resume only if --deals gives the same boards.
    boards = load_deal_file(pbn)
    assert [(b.number, b.dealer, b.vul) for b in boards] == want
    tm_dir = tmp_path / "tm"
    writer = RecordWriter(
        tm_dir, session_of(argparse.Namespace(deals=str(pbn), seed=None, tables=1), boards)
    )
    for b in boards:
        writer.write(TableResult(board=b), 1)
    writer.close()
    capsys.readouterr()
    assert main(["tm", "--deals", str(pbn), "--out", str(tm_dir), "--resume"]) == 0
    assert "is complete" in capsys.readouterr().err


def test_a_file_numbering_two_boards_alike_is_refused_by_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deal = generate(1, 1)[0].pbn
    twice = tmp_path / "twice.pbn"
    twice.write_text(f'[Board "4"]\n[Deal "{deal}"]\n\n[Board "4"]\n[Deal "{deal}"]\n')
    line = f"{twice}: records 1 and 2 are both board 4"
    out = str(tmp_path / "o")
    for argv in (
        ["tm", "--deals", str(twice), "--out", out],
        ["match", "--deals", str(twice), "--out", out],
        ["tournament", "--entrant", "random", "--entrant", "r=random", "--deals", str(twice),
         "--boards-per-match", "1", "--out", out],
        ["teach", "--deals", str(twice), "--out", str(tmp_path / "t.npz")],
    ):  # fmt: skip
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"bridgebot {argv[0]}: {line}"], argv


@pytest.mark.parametrize(
    ("argv", "old", "new"),
    [
        (["tm", "--boards", "{pbn}"], "--boards FILE", "--deals FILE"),
        (["tm", "--seed", "1", "--count", "2"], "--count N", "--boards N"),
        (["ddgen", "--deals", "2"], "--deals N", "--boards N"),
        (["teach", "--count", "2"], "--count N", "--boards N"),
        (["tm", "--seed", "1", "--scoring", "IMP"], "--scoring IMP|MP", "--teams-scoring IMP|MP"),
    ],
)
def test_old_spellings_work_with_one_line_naming_the_new_one(
    argv: list[str], old: str, new: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bridgebot.options import modernize

    pbn = str(_off_cycle_file(tmp_path / "d.pbn"))
    args = [a.replace("{pbn}", pbn) for a in argv]
    rewritten = modernize(args[0], args[1:])
    assert capsys.readouterr().err == f"bridgebot {args[0]}: {old} is deprecated; use {new}\n"
    parsed = build_parser(args[0]).parse_args([args[0], *rewritten, "--out", str(tmp_path)])
    if "--scoring" in args:
        assert parsed.teams_scoring == "IMP"
    elif args[0] == "tm" and "--count" not in args:
        assert parsed.deals == pbn and parsed.boards is None
    else:
        assert parsed.boards == 2
    # The new spellings pass through untouched and silent.
    assert modernize("tm", ["--boards", "32", "--deals", pbn]) == ["--boards", "32", "--deals", pbn]
    assert modernize("ddgen", ["--boards=8"]) == ["--boards=8"]
    assert capsys.readouterr().err == ""


def test_an_old_spelling_runs_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "dd.npz"
    assert main(["ddgen", "--deals", "2", "--seed", "3", "--out", str(out), "--quiet"]) == 0
    assert "bridgebot ddgen: --deals N is deprecated; use --boards N" in capsys.readouterr().err
    with np.load(out) as z:
        assert len(z["owners"]) == 2


def test_every_command_shows_log_level_and_log_format_and_its_own_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in sub._choices_actions}
    assert len(set(helps.values())) == len(COMMANDS), helps  # export no longer shows train's
    for name, command in sub.choices.items():
        parsers = [command]
        modes = [a for a in command._actions if isinstance(a, argparse._SubParsersAction)]
        if modes:
            parsers = list(modes[0].choices.values())
        for p in parsers:
            text = p.format_help()
            assert "--log-level" in text and "--log-format" in text, (name, p.prog)


def test_reconnect_timeout_has_one_default_and_one_meaning_of_zero() -> None:
    from bridgebot.options import RECONNECT_TIMEOUT

    tm = build_parser("tm").parse_args(["tm", "--seed", "1", "--out", "x"])
    match = build_parser("match").parse_args(["match", "--out", "x"])
    assert tm.reconnect_timeout == match.reconnect_timeout == RECONNECT_TIMEOUT
    for name in ("tm", "match"):
        argv = [name, "--seed", "1", "--out", "x", "--reconnect-timeout", "0"]
        assert build_parser(name).parse_args(argv).reconnect_timeout is None  # for ever


def test_board_options_mean_the_same_in_every_command() -> None:
    """--boards is a number, --deals a file, --seed the stream, wherever they are taken."""
    for name in COMMANDS:
        parser = build_parser(name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        options = {o: a for a in sub.choices[name]._actions for o in a.option_strings}
        if "--boards" in options:
            assert options["--boards"].metavar == "N", name
        if "--deals" in options:
            assert options["--deals"].metavar == "FILE", name


def test_user_mistakes_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv, expected in (
        (["explain", "8NT"], "bridgebot explain: call 1 '8NT' is not a call"),
        (["match", "--boards", "0", "--out", "x"], "--boards: must be at least 1, got 0"),
        (["ddgen", "--out", str(tmp_path / "d.npz")], "give --boards N"),
        (["teach", "--out", str(tmp_path / "t.npz")], "give --boards N"),
    ):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's own errors, one line too
            code = int(exc.code or 0)
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and expected in err[0], (argv, err)


def _benchmark_flags() -> dict[str, dict[str, dict[str, str]]]:
    """Every benchmark's ``add_argument`` flags: script -> flag -> {keyword: source text}."""
    import ast

    root = Path(__file__).resolve().parents[1] / "benchmarks"
    out: dict[str, dict[str, dict[str, str]]] = {}
    for script in sorted(root.glob("*.py")):
        flags: dict[str, dict[str, str]] = {}
        for node in ast.walk(ast.parse(script.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                flags[str(node.args[0].value)] = {
                    k.arg: ast.unparse(k.value) for k in node.keywords if k.arg
                }
        out[script.stem] = flags
    return out


def test_the_benchmarks_speak_the_command_lines_vocabulary() -> None:
    """A deal file is ``--deals FILE`` and a count of boards ``--boards N`` in the benchmarks
    too: no ``--data``, no ``--dd FILE``, no ``--deals N``."""
    flags = _benchmark_flags()
    assert "bench_search" in flags and "bench_slam" in flags
    for script, own in flags.items():
        assert "--data" not in own, f"{script}: --data FILE is --deals FILE"
        assert "--slam-dd" not in own, f"{script}: --slam-dd FILE is --slam-deals FILE"
        if "--deals" in own:
            assert own["--deals"].get("type") in (None, "Path"), f"{script}: --deals is a file"
        if "--boards" in own:
            assert own["--boards"].get("type") in ("int", "positive_int"), script
        if "--dd" in own:  # only the search's rollout scoring (the agent option dd=net|solver)
            assert "choices" in own["--dd"], f"{script}: a DD deal file is --deals FILE"


@pytest.mark.parametrize(
    ("script", "argv", "new", "line"),
    [
        ("bench_search", ["--data", "x.npz"], ["--deals", "x.npz"], "--data FILE ... --deals FILE"),
        (
            "bench_policy",
            ["--dd", "x.npz", "--deals", "4"],
            ["--deals", "x.npz", "--boards", "4"],
            "--dd FILE ... --deals FILE",
        ),
        (
            "bench_teacher",
            ["--deals", "4", "--dd", "2"],
            ["--boards", "4", "--solver-boards", "2"],
            "--deals N ... --boards N",
        ),
        (
            "bench_ddnet",
            ["--solver-deals", "2"],
            ["--solver-boards", "2"],
            "--solver-deals N ... --solver-boards N",
        ),
        (
            "bench_slam_information",
            ["--slam-dd", "x.npz"],
            ["--slam-deals", "x.npz"],
            "--slam-dd FILE ... --slam-deals FILE",
        ),
    ],
)
def test_a_benchmarks_old_spellings_work_with_one_line(
    script: str, argv: list[str], new: list[str], line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from bridgebot.options import modernize

    assert modernize(script, argv, program=f"benchmarks/{script}.py") == new
    old, _, use = line.partition(" ... ")
    err = capsys.readouterr().err.splitlines()
    assert f"benchmarks/{script}.py: {old} is deprecated; use {use}" == err[0]
    # What the benchmark's parser then reads: every new flag is one it declares.
    declared = _benchmark_flags()[script]
    assert all(a in declared for a in new if a.startswith("--"))


@pytest.mark.parametrize(
    ("argv", "said", "parsed"),
    [
        (["train", "doubles", "--dd", "d.npz", "--deals", "9", "--out", "o.json"],
         ["bridgebot train: --dd FILE is deprecated; use --deals FILE",
          "bridgebot train doubles: --deals N is deprecated; use --boards N"],
         {"dd": "d.npz", "deals": 9}),
        (["train", "ddnet", "--data", "a.npz", "--data=b.npz", "--out", "m"],
         ["bridgebot train ddnet: --data FILE is deprecated; use --deals FILE"],
         {"data": ["a.npz", "b.npz"]}),
        (["train", "belief", "--data", "a.npz", "--out", "m"],
         ["bridgebot train belief: --data FILE is deprecated; use --deals FILE"],
         {"data": "a.npz"}),
        (["train", "slamnet", "--dd", "a.npz", "--slam-dd", "s.npz", "--val", "v.npz"],
         ["bridgebot train: --dd FILE is deprecated; use --deals FILE",
          "bridgebot train: --slam-dd FILE is deprecated; use --slam-deals FILE",
          "bridgebot train slamnet: --val FILE is deprecated; use --val-deals FILE"],
         {"dd": ["a.npz"], "slam_dd": ["s.npz"], "val": "v.npz"}),
        (["train", "league", "--init", "m", "--dd", "a.npz", "--slam-dd", "s.npz", "--out", "r"],
         ["bridgebot train: --dd FILE is deprecated; use --deals FILE",
          "bridgebot train: --slam-dd FILE is deprecated; use --slam-deals FILE"],
         {"dd": ["a.npz"], "slam_dd": ["s.npz"]}),
        (["train", "selfplay", "--init", "p.pt", "--dd", "a.npz", "--out", "r"],
         ["bridgebot train: --dd FILE is deprecated; use --deals FILE"], {"dd": "a.npz"}),
        (["export", "--checkpoint", "c.pt", "--dd", "d.npz", "--out", "m"],
         ["bridgebot export: --dd FILE is deprecated; use --deals FILE"], {"dd": "d.npz"}),
        (["seat", "--seed", "3", "--port", "2000", "--seat", "North", "--team", "T"],
         ["bridgebot seat: --seed N is deprecated; use --agent-seed N"], {"agent_seed": 3}),
        # imitation's --data is the teacher's file of `teach`, not a deal file: it stays.
        (["train", "imitation", "--data", "t.npz", "--out", "r"], [], {"data": "t.npz"}),
    ],
)  # fmt: skip
def test_train_export_and_seat_speak_the_vocabulary_and_their_old_spellings_still_work(
    argv: list[str], said: list[str], parsed: dict[str, object]
) -> None:
    """Train's deal files are ``--deals FILE`` (``--val-deals``, ``--slam-deals``), a count of
    boards ``--boards N``, and ``seat``'s agent seed ``--agent-seed N``: the old spellings
    parse to the same options, with one line each naming the new one; the new ones are silent."""
    from bridgebot.options import modernize

    lines: list[str] = []
    new = modernize(argv[0], argv[1:], warn=lines.append)
    assert lines == said
    args = build_parser(argv[0]).parse_args([argv[0], *new])
    assert {k: getattr(args, k) for k in parsed} == parsed
    again: list[str] = []
    assert modernize(argv[0], new, warn=again.append) == new and again == []


#: The texts whose ``bridgebot ...`` commands must speak today's vocabulary (docs/evaluation.md
#: and the model cards record commands as they were run, in the spellings of their day).
CURRENT_DOCS = ("README.md", "docs/design.md", "docs/data.md", "benchmarks/opponents.toml")


def test_the_repositorys_own_commands_use_no_old_spelling() -> None:
    """Every ``bridgebot COMMAND ...`` the README, the design, the opponents' manifest and the
    commands' own ``--help`` examples show parses without a deprecation line."""
    from bridgebot.core.errors import UserError

    from bridgebot.options import modernize
    from tests.test_docs import every_parser

    root = Path(__file__).resolve().parents[1]
    texts = {name: (root / name).read_text() for name in CURRENT_DOCS}
    texts |= {p.prog: p.epilog or "" for p in every_parser()}
    pattern = re.compile(rf"bridgebot ({'|'.join(COMMANDS)})\b([^`#\n|]*)")
    old: list[tuple[str, str]] = []
    for name, text in texts.items():
        for m in pattern.finditer(re.sub(r"\\+\n\s*", " ", text)):
            lines: list[str] = []
            try:
                modernize(m.group(1), m.group(2).split(), warn=lines.append)
            except UserError as e:
                lines.append(str(e))
            old += [(name, line) for line in lines]
    assert old == []
