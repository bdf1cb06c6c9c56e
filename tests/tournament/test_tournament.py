"""``bridgebot tournament``: schedules, standings and tie-breaks, a whole small tournament, errors."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from bridgebot.laws.event_scoring import victory_points
from bridgebot.server.records import TableRecord
from bridgebot.server.seat import SeatClient
from bridgebot.tournament.event import (
    HEADER_FILE,
    TournamentConfig,
    match_config,
    read_header,
    run_tournament,
    write_header,
)
from bridgebot.tournament.journal import read_journal
from bridgebot.tournament.records import BoardResult
from bridgebot.tournament.schedule import Entrant, Pairing, TournamentError, next_matches, schedule
from bridgebot.tournament.standings import (
    PlayedMatch,
    Standings,
    StandingsError,
    build_standings,
    cross_table,
    load_standings,
    markdown_standings,
    write_standings,
)
from endplay.types import Player

from bridgebot.agents import make_agent
from bridgebot.cli import main
from tests.tournament import rooms_helper


def test_round_robin_meets_every_pair_once_per_cycle() -> None:
    names = ["a", "b", "c", "d"]
    rr = schedule(names, "round-robin")
    assert sorted({p.round for p in rr}) == [1, 2, 3]
    assert Counter(frozenset((p.home, p.away)) for p in rr) == Counter(
        frozenset((x, y)) for i, x in enumerate(names) for y in names[i + 1 :]
    )
    for r in (1, 2, 3):  # every entrant plays once a round
        assert sorted(n for p in rr if p.round == r for n in (p.home, p.away)) == names
    double = schedule(names, "double-round-robin")
    assert len(double) == 12 and max(p.round for p in double) == 6
    assert {(p.home, p.away) for p in double} == {(p.home, p.away) for p in rr} | {
        (p.away, p.home) for p in rr
    }


def test_round_robin_with_a_bye_and_gauntlet() -> None:
    rr = schedule(["a", "b", "c", "d", "e"], "round-robin")
    assert max(p.round for p in rr) == 5 and len(rr) == 10
    for r in range(1, 6):  # two matches a round, one entrant sits out
        assert len([p for p in rr if p.round == r]) == 2
    g = schedule(["hero", "x", "y", "z"], "gauntlet")
    assert g == [Pairing(1, "hero", o) for o in ("x", "y", "z")]
    with pytest.raises(TournamentError, match="unknown format"):
        schedule(["a", "b"], "swiss")
    with pytest.raises(TournamentError, match="at least two"):
        schedule(["a"], "round-robin")


def test_entrant_names() -> None:
    assert Entrant.parse("default") == Entrant("default", "default")
    assert Entrant.parse("bfg,doubles=on") == Entrant("bfg,doubles=on", "bfg,doubles=on")
    assert Entrant.parse("v2=policy:models/v2,seed=3") == Entrant("v2", "policy:models/v2,seed=3")
    assert Entrant.parse_external("WBridge5:2") == Entrant("WBridge5", None, 2)
    for bad in ("=default", "x="):
        with pytest.raises(TournamentError):
            Entrant.parse(bad)
    for bad in ("", "w:0", "w:two"):
        with pytest.raises(TournamentError):
            Entrant.parse_external(bad)


def test_outside_entrant_takes_all_four_seats_of_its_team(tmp_path: Path) -> None:
    cfg = TournamentConfig(
        make_agent=make_agent,
        entrants=(Entrant("bot", "random"), Entrant.parse_external("wb")),
        out=tmp_path,
    )
    home = match_config(cfg, Pairing(1, "wb", "bot"), tmp_path / "r.pbn")
    away = match_config(cfg, Pairing(1, "bot", "wb"), tmp_path / "r.pbn")
    as_text = sorted(f"{s.room}:{s.seat.abbr}" for s in home.external)
    assert as_text == ["closed:E", "closed:W", "open:N", "open:S"]
    assert sorted(f"{s.room}:{s.seat.abbr}" for s in away.external) == [
        "closed:N", "closed:S", "open:E", "open:W",
    ]  # fmt: skip
    assert home.use_tcp and home.workers == 1


def _board(number: int, imps: int, open_ns: int = 0, closed_ns: int = 0) -> BoardResult:
    def scored(name: str, score: int) -> TableRecord:
        return rooms_helper.room(
            name, ("a", "b", "c", "d"), ("Pass",) * 4, score=score, board=number
        )

    return rooms_helper.board(imps, scored("open", open_ns), scored("closed", closed_ns))


def _match(rnd: int, home: str, away: str, *imps: int) -> PlayedMatch:
    return PlayedMatch(rnd, home, away, tuple(_board(i + 1, x) for i, x in enumerate(imps)))


ENTRANTS = [("a", "random"), ("b", "bfg"), ("c", "default")]


def test_standings_tie_broken_by_the_match_between_the_tied() -> None:
    # a beats b by 10, c beats a by 10, b beats c by 10: a circle, every tie-break level
    matches = [
        _match(1, "a", "b", 5, 5),  # a +10 over b
        _match(2, "c", "a", 10, 0),  # c +10 over a
        _match(3, "b", "c", 10, 0),  # b +10 over c
    ]
    s = build_standings(
        entrants=ENTRANTS, matches=matches, scheduled=3, fmt="round-robin", scoring="dd",
        boards_per_match=2,
    )  # fmt: skip
    # level on VPs, on the VPs between them (all three) and on the quotient: one shared rank
    assert {e.vps for e in s.entrants} == {20.0}
    assert [e.rank for e in s.entrants] == [1, 1, 1]
    matches[2] = _match(3, "b", "c", 12, 0)  # b now wins by 12: b first, then a and c level
    s = build_standings(
        entrants=ENTRANTS, matches=matches, scheduled=3, fmt="round-robin", scoring="dd",
        boards_per_match=2,
    )  # fmt: skip
    assert s.entrants[0].name == "b"
    vp_b = victory_points(2, 12, 0)[0] + victory_points(2, 0, 10)[0]
    assert s.entrants[0].vps == pytest.approx(vp_b)
    # a lost by 10, c by 12: a ahead of c on VPs
    a, c = (next(e for e in s.entrants if e.name == n) for n in "ac")
    assert a.vps > c.vps


def test_standings_head_to_head_then_quotient() -> None:
    entrants = [("a", "x"), ("b", "y"), ("c", "z"), ("d", "w")]
    # a and b both beat c and d by the same margins and draw each other: level on VPs and h2h;
    # a lost fewer IMPs (quotient higher).
    matches = [
        _match(1, "a", "b", 3, -3),
        _match(2, "a", "c", 10, 0),
        _match(2, "b", "d", 12, -2),
        _match(3, "a", "d", 10, 0),
        _match(3, "b", "c", 12, -2),
        _match(1, "c", "d", 0, 0),
    ]
    s = build_standings(
        entrants=entrants, matches=matches, scheduled=6, fmt="round-robin", scoring="dd",
        boards_per_match=2,
    )  # fmt: skip
    top = s.entrants[:2]
    assert top[0].vps == top[1].vps
    assert [e.name for e in top] == ["a", "b"] and [e.rank for e in top] == [1, 2]
    assert top[0].quotient == pytest.approx(23 / 3, abs=1e-4)
    assert top[1].quotient == pytest.approx(27 / 7, abs=1e-4)
    # head to head decides before the quotient: let b beat a; b is first despite a worse quotient
    matches[0] = _match(1, "a", "b", 0, -1)
    s = build_standings(
        entrants=entrants, matches=matches, scheduled=6, fmt="round-robin", scoring="dd",
        boards_per_match=2,
    )  # fmt: skip
    assert s.entrants[0].name == "b"


def test_standings_file_round_trip_and_errors(tmp_path: Path) -> None:
    s = build_standings(
        entrants=ENTRANTS, matches=[_match(1, "a", "b", 3, -7)], scheduled=3, fmt="round-robin",
        scoring="dd", boards_per_match=2,
    )  # fmt: skip
    path = tmp_path / "standings.json"
    write_standings(path, s)
    assert load_standings(path) == s
    assert not s.complete and s.matches_played == 1
    assert [(p.entrant, p.opponent, p.imps_per_board) for p in s.pairs] == [
        ("a", "b", -2.0), ("b", "a", 2.0),
    ]  # fmt: skip
    table = cross_table(s)
    assert table.cells[("b", "a")][0].imps_for == 7 and table.cells[("a", "b")][0].imps_for == 3
    assert "| b | x | 7-3 (" in markdown_standings(s)  # b ranks first: its row, a's column
    path.write_text('{"format": "round-robin"}')
    with pytest.raises(StandingsError, match=r"standings\.json: not a standings file"):
        load_standings(path)
    with pytest.raises(StandingsError, match="cannot read"):
        load_standings(tmp_path / "missing.json")


def _check_complete(out: Path, boards: int) -> dict[str, list[BoardResult]]:
    """Every scheduled match's journal holds each board exactly once; return them by match.

    Round R plays the next ``boards`` boards of the deal set, numbered as the set numbers them
    (issue 27: a file's numbers are kept, so seeded rounds are not renumbered either)."""
    standings = load_standings(out / "standings.json")
    assert standings.complete
    played: dict[str, list[BoardResult]] = {}
    for d in sorted((out / "matches").iterdir()):
        lines = (d / "journal.jsonl").read_text().splitlines()
        assert len(lines) == 1 + boards, d  # header + one line per board, nothing twice
        played[d.name] = read_journal(d / "journal.jsonl").boards
        first = (int(d.name[1:3]) - 1) * boards + 1  # matches/rRR-HOME-v-AWAY
        assert sorted(b.board for b in played[d.name]) == list(range(first, first + boards))
    assert len(played) == standings.matches_scheduled
    return played


def test_round_robin_dd_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rr"
    argv = ["tournament", "--entrant", "r1=random,seed=1", "--entrant", "r2=random,seed=2",
            "--entrant", "r3=random,pass_bias=0.3", "--boards-per-match", "3", "--seed", "5",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.err.count("IMPs/board over 3 boards") == 3  # a progress line per match
    assert "| rank | entrant |" in captured.out
    played = _check_complete(out, 3)
    standings = load_standings(out / "standings.json")
    # three entrants: a bye each round, three rounds of one match
    assert sorted(m.round for m in standings.matches) == [1, 2, 3]
    for m in standings.matches:
        boards = played[Pairing(m.round, m.home, m.away).key]
        won = sum(max(b.imps, 0) for b in boards)
        lost = sum(max(-b.imps, 0) for b in boards)
        assert (m.imps_home, m.imps_away) == (won, lost)
        assert (m.vp_home, m.vp_away) == victory_points(3, won, lost)
    for e in standings.entrants:
        assert e.vps == pytest.approx(
            sum(m.vp_home for m in standings.matches if m.home == e.name)
            + sum(m.vp_away for m in standings.matches if m.away == e.name)
        )
    # rounds have their own boards, taken in order from the seeded deal set
    deals = {r: [b.deal for b in boards] for r, boards in
             ((int(k[1:3]), v) for k, v in played.items())}  # fmt: skip
    assert len({tuple(v) for v in deals.values()}) == 3
    report = (out / "report.md").read_text()
    assert "## Cross-table" in report and "## Pairs view" in report

    # the same command again refuses to overwrite; --resume with other entrants refuses too
    assert main(argv) == 2
    assert "pass --resume" in capsys.readouterr().err
    assert main([*argv[:-2], "--entrant", "r4=random", "--out", str(out), "--resume"]) == 2
    assert "cannot resume a different tournament" in capsys.readouterr().err
    # --resume of a finished tournament plays nothing and changes no journal
    before = {d.name: (d / "journal.jsonl").read_bytes() for d in (out / "matches").iterdir()}
    assert main([*argv, "--resume"]) == 0
    assert "resuming: 3 of 3 matches already played" in capsys.readouterr().err
    assert before == {
        d.name: (d / "journal.jsonl").read_bytes() for d in (out / "matches").iterdir()
    }


def test_ctrl_c_while_a_match_writes_its_outputs_then_resume_finishes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 62: a tournament stopped by Ctrl-C while its last match wrote its outputs (every
    board journaled) resumed with "3 of 3 matches already played" and left that match without
    report.md, report.html and running_mean.svg. A resume finishes every output of a finished
    match, from its journal, and plays nothing again; so it does for a folder an older version
    left with its summary written first and the rest missing."""
    import bridgebot.tournament.outputs as outputs

    cfg = TournamentConfig(make_agent=make_agent,
        entrants=tuple(Entrant.parse(s) for s in ("a=random,seed=1", "b=random,seed=2",
                                                  "c=random,seed=3")),
        out=tmp_path / "t", boards_per_match=2, seed=6,
    )  # fmt: skip
    calls = {"n": 0}
    report = outputs.markdown_report

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:  # the third match's report: Ctrl-C
            raise KeyboardInterrupt
        return report(*args, **kwargs)

    monkeypatch.setattr(outputs, "markdown_report", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_tournament(cfg, progress=lambda _: None)
    monkeypatch.setattr(outputs, "markdown_report", report)
    matches = sorted((cfg.out / "matches").iterdir())
    journals = {d.name: (d / "journal.jsonl").read_bytes() for d in matches}
    assert all(data.count(b"\n") == 3 for data in journals.values())  # every board journaled
    unfinished = [d.name for d in matches if not (d / "report.md").exists()]
    assert len(unfinished) == 1
    # A match folder as the version before wrote it: the summary first, the rest missing.
    older = next(d for d in matches if d.name not in unfinished)
    for name in ("report.html", "report.md", "running_mean.svg"):
        (older / name).unlink()

    lines: list[str] = []
    standings = run_tournament(replace(cfg, resume=True), progress=lines.append)
    assert "resuming: 3 of 3 matches already played" in lines and standings.complete
    for d in matches:
        rooms = [r.room for r in read_journal(d / "journal.jsonl").boards[0].rooms]
        names = [f"room-{room}.{kind}" for room in rooms for kind in ("pbn", "lin")]
        for name in (*names, "summary.json", "report.md", "report.html", "running_mean.svg"):
            assert (d / name).is_file() and (d / name).stat().st_size > 0, (d.name, name)
        assert (d / "journal.jsonl").read_bytes() == journals[d.name]  # nothing played again


def test_gauntlet_rows_share_the_boards(tmp_path: Path) -> None:
    cfg = TournamentConfig(make_agent=make_agent,
        entrants=tuple(Entrant.parse(s) for s in ("hero=random,seed=9", "random", "random,seed=3")),
        out=tmp_path / "g", fmt="gauntlet", boards_per_match=2, seed=4,
    )  # fmt: skip
    lines: list[str] = []
    standings = run_tournament(cfg, progress=lines.append)
    assert len(lines) == 2 and standings.complete
    played = _check_complete(cfg.out, 2)
    boards = [[b.deal for b in v] for v in played.values()]
    assert boards[0] == boards[1]  # paired rows: the same deals for every opponent
    assert all(m.home == "hero" and m.round == 1 for m in standings.matches)
    # the rows differenced board by board
    rows = {k.split("-v-")[1]: {b.board: b.imps for b in v} for k, v in played.items()}
    (paired,) = standings.paired
    assert (paired.entrant, paired.first, paired.second) == ("hero", "random", "random,seed=3")
    diffs = [rows["random"][k] - rows["random_seed=3"][k] for k in (1, 2)]
    assert paired.difference == pytest.approx(sum(diffs) / 2) and paired.boards == 2
    assert "## Gauntlet rows, paired" in (cfg.out / "report.md").read_text()


def test_play_scored_tournament(tmp_path: Path) -> None:
    """Real play over TCP rooms (table managers and seat clients) with random agents."""
    cfg = TournamentConfig(make_agent=make_agent,
        entrants=(Entrant.parse("a=random,seed=1"), Entrant.parse("b=random,seed=2"),
                  Entrant.parse("c=random,seed=3")),
        out=tmp_path / "p", scoring="play", boards_per_match=1, seed=2, seat_timeout=20,
    )  # fmt: skip
    standings = run_tournament(cfg, progress=lambda _: None)
    played = _check_complete(cfg.out, 1)
    for boards in played.values():
        for room in boards[0].rooms:
            assert room.contract is None or len(room.play) == 52  # every card was played
    assert standings.scoring == "play" and len(standings.matches) == 3
    header = json.loads((cfg.out / "bridgebot.tournament.json").read_text())
    assert header["scoring"] == "play"


def _journal_lines(out: Path) -> dict[str, int]:
    return {
        d.name: (d / "journal.jsonl").read_bytes().count(b"\n")
        for d in (out / "matches").glob("r*")
        if (d / "journal.jsonl").exists()
    }


def test_kill_mid_round_then_resume_plays_every_match_once(big_npz: Path, tmp_path: Path) -> None:
    out = tmp_path / "k"
    k = 40
    argv = [sys.executable, "-m", "bridgebot", "tournament", "--deals", str(big_npz),
            "--boards-per-match", str(k), "--workers", "2", "--out", str(out)]  # fmt: skip
    argv += [a for i in range(4) for a in ("--entrant", f"r{i}=random,seed={i}")]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120  # a bound on waiting, not a timing assertion
        while time.monotonic() < deadline and proc.poll() is None:
            lines = _journal_lines(out) if (out / "matches").exists() else {}
            if any(n == k + 1 for n in lines.values()) and any(2 < n < k for n in lines.values()):
                break  # one match finished, another half played: kill now
            time.sleep(0.005)
        assert proc.poll() is None, "the tournament finished before it could be interrupted"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    time.sleep(0.3)
    at_kill = {d.name: (d / "journal.jsonl").read_bytes() for d in (out / "matches").glob("r*")
               if (d / "journal.jsonl").exists()}  # fmt: skip
    time.sleep(0.5)
    # the worker processes died with the tournament: nothing is still writing a journal
    assert at_kill == {n: (out / "matches" / n / "journal.jsonl").read_bytes() for n in at_kill}
    finished = {n for n, data in at_kill.items() if data.count(b"\n") == k + 1}
    assert finished and len(finished) < 6
    assert main([*argv[3:], "--resume"]) == 0
    played = _check_complete(out, k)
    assert len(played) == 6
    for name, data in at_kill.items():
        after = (out / "matches" / name / "journal.jsonl").read_bytes()
        if name in finished:
            assert after == data  # a finished match is never replayed
        else:
            assert after.startswith(data[: data.rfind(b"\n") + 1])  # resumed, not restarted


def test_outside_entrant_is_seated_through_the_match_flow(solved_npz: Path, tmp_path: Path) -> None:
    """An outside program (here four of our seat clients, connected as a stranger would, from
    the announced ports) plays every seat of its team; the standings name it."""
    cfg = TournamentConfig(make_agent=make_agent,
        entrants=(Entrant.parse("bot=random,seed=1"), Entrant.parse_external("wb")),
        out=tmp_path / "x", boards_per_match=2, deals=solved_npz, seat_timeout=30,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    result: dict[str, Standings] = {}
    runner = threading.Thread(target=lambda: result.update(s=run_tournament(cfg, lines.put)))
    runner.start()
    seats: list[tuple[str, Player, str, int]] = []
    pattern = r"room (\w+).*?(North|East|South|West).*?team (\w+).*?port (\d+)"
    while len(seats) < 4:  # the match says where each of the program's four seats connects
        found = re.search(pattern, lines.get(timeout=60))
        if found:
            seats.append((found[1], Player.find(found[2]), found[3], int(found[4])))

    async def outside_program() -> None:
        clients = [SeatClient("127.0.0.1", port, seat, team, make_agent("random", i))
                   for i, (_, seat, team, port) in enumerate(seats)]  # fmt: skip
        await asyncio.gather(*(c.run() for c in clients))

    asyncio.run(asyncio.wait_for(outside_program(), 60))
    runner.join(60)
    standings = result["s"]
    assert standings.complete and {e.name: e.spec for e in standings.entrants}["wb"] == "external"
    # bot is home (the match's us): wb sits East-West in the open room, North-South in the closed
    assert sorted((room, seat.abbr) for room, seat, _, _ in seats) == [
        ("closed", "N"), ("closed", "S"), ("open", "E"), ("open", "W"),
    ]  # fmt: skip
    for board in _check_complete(cfg.out, 2)[Pairing(1, "bot", "wb").key]:
        # the outside program's seats are recorded by its entrant (team) name
        assert {team for _, _, team, _ in seats} == {"wb"}
        assert board.room("open").seats == ("random,seed=1", "wb") * 2
        assert board.room("closed").seats == ("wb", "random,seed=1") * 2


def test_matches_of_an_outside_program_wait_for_its_free_seats() -> None:
    g = schedule(["wb", "a", "b", "c"], "gauntlet")  # wb in every match
    assert next_matches(g, [], 4, {"wb": 1}) == g[:1]
    assert next_matches(g[1:], g[:1], 4, {"wb": 1}) == []
    assert next_matches(g, [], 4, {"wb": 2}) == g[:2]
    assert next_matches(g, [], 4, {}) == g  # agents only: as many as there are slots
    assert next_matches(g, [], 2, {}) == g[:2]
    rr = schedule(["wb", "a", "b", "c"], "round-robin")
    first = next_matches(rr, [], 2, {"wb": 1})
    assert len(first) == 2 and sum("wb" in (p.home, p.away) for p in first) == 1
    # wb's match still running: a later match without wb goes ahead of wb's next one
    waiting = [p for p in rr if p not in first]
    wb_running = [p for p in first if "wb" in (p.home, p.away)]
    started = next_matches(waiting, wb_running, 2, {"wb": 1})
    assert started and all("wb" not in (p.home, p.away) for p in started)


def test_two_tournaments_never_share_a_directory(tmp_path: Path) -> None:
    import fcntl

    tmp_path.joinpath("t").mkdir()
    with open(tmp_path / "t" / ".lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a running tournament holds it
        cfg = TournamentConfig(
            make_agent=make_agent,
            entrants=(Entrant.parse("random"), Entrant.parse("random,seed=2")),
            out=tmp_path / "t",
        )
        with pytest.raises(TournamentError, match="another tournament is running there"):
            run_tournament(cfg)
    assert not (tmp_path / "t" / "bridgebot.tournament.json").exists()


def _header_config(tmp_path: Path, **changes: object) -> TournamentConfig:
    entrants = (Entrant.parse("a=random"), Entrant.parse("b=random,seed=2"), Entrant("wb", None))
    cfg = TournamentConfig(make_agent=make_agent, entrants=entrants, out=tmp_path / "t", seed=1)
    return replace(cfg, **changes)


#: ``bridgebot.tournament.json`` as the code before the pydantic header wrote it.
TODAYS_HEADER = {
    "type": "tournament",
    "format": "round-robin",
    "entrants": [
        {"name": "a", "spec": "random"},
        {"name": "b", "spec": "random,seed=2"},
        {"name": "wb", "spec": "external"},
    ],
    "boards_per_match": 32,
    "scoring": "dd",
    "deals": None,
    "seed": 1,
}


def test_the_tournament_header_round_trips_and_reads_todays_file(tmp_path: Path) -> None:
    header = _header_config(tmp_path).header()
    path = tmp_path / HEADER_FILE
    write_header(path, header)
    assert read_header(path) == header
    path.write_text(json.dumps(TODAYS_HEADER, indent=2) + "\n")
    assert read_header(path) == header


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"boards_per_match": 0}, "boards_per_match"),
        ({"entrants": [{"name": "a", "spec": None}]}, "entrants.0.spec"),
        ({"seed": None}, "seed"),
        ({"type": "match"}, "type"),
        ({"rounds": 3}, "rounds"),
    ],
)
def test_a_malformed_tournament_header_names_the_file_and_field(
    change: dict[str, object], field: str, tmp_path: Path
) -> None:
    path = tmp_path / HEADER_FILE
    path.write_text(json.dumps(TODAYS_HEADER | change))
    with pytest.raises(
        TournamentError, match=rf"^{path}: not a tournament header: field {field}: "
    ):
        read_header(path)


def test_resume_names_the_fields_that_differ(tmp_path: Path) -> None:
    first = _header_config(tmp_path)
    first.out.mkdir()
    write_header(first.out / HEADER_FILE, first.header())
    other = _header_config(tmp_path, seed=2, boards_per_match=4, resume=True)
    with pytest.raises(
        TournamentError, match=r"\(boards_per_match: was 32, now 4, seed: was 1, now 2\)$"
    ):
        run_tournament(other, progress=lambda _: None)
    assert read_header(first.out / HEADER_FILE) == first.header()  # left as it was


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--entrant", "nosuch", "--entrant", "random"], "--entrant nosuch: unknown agent"),
        (["--entrant", "random", "--entrant", "random"], "names must differ: random twice"),
        (["--entrant", "random"], "at least two entrants"),
        (["--entrant", "a=random", "--entrant", "bfg", "--boards-per-match", "0"],
         "--boards-per-match must be at least 1"),
        (["--entrant", "random", "--external", "wb", "--backend", "ray"], "use --backend local"),
        (["--entrant", "random", "--external", "wb:0"], "is not NAME or NAME:INSTANCES"),
        (["--entrant", "random", "--entrant", "bfg", "--deals", "nowhere.pbn"],
         "nowhere.pbn: no such deal file"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_leaves_nothing(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    assert main(["tournament", *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bridgebot tournament: ") and message in err
    assert err.count("\n") == 1
    assert not out.exists()  # a corrected command can run without --resume
