"""Outside programs in a match: announced where to connect, waited for with reminders, a seat that
dies mid-match ends the match cleanly, ``--resume`` finishes it; rooms bound to an address with an
allow-list. The outside programs are ``bridgebot seat`` processes and raw sockets (peers)."""

from __future__ import annotations

import asyncio
import json
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest
from bridgebot.server.guard import parse_networks
from bridgebot.server.seat import SeatClient
from bridgebot.tournament.config import MatchConfig
from bridgebot.tournament.journal import read_journal
from bridgebot.tournament.match import run_match
from bridgebot.tournament.rooms import ExternalSeat, MatchStopped, Network, wire_teams
from bridgebot.tournament.seatings import seatings
from endplay.parsers import pbn
from endplay.types import Player

from bridgebot.agents import make_agent
from bridgebot.cli import main

THEIR_SEATS = ("open:East", "open:West", "closed:North", "closed:South")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Lines:
    """Lines of a child's stream, read by a thread so a test can wait for one with a bound."""

    def __init__(self, stream: IO[str]) -> None:
        self.all: list[str] = []
        self._q: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        with stream:  # closed here, at the end of the child's output
            for line in stream:
                self._q.put(line.rstrip("\n"))

    def wait_for(self, pred: Callable[[str], bool], seconds: float = 60.0) -> str:
        deadline = time.monotonic() + seconds  # a bound on waiting, not a timing assertion
        while time.monotonic() < deadline:
            try:
                line = self._q.get(timeout=0.05)
            except queue.Empty:
                continue
            self.all.append(line)
            if pred(line):
                return line
        raise AssertionError(f"no such line within {seconds} s; got {self.all[-5:]!r}")

    def rest(self) -> str:
        while not self._q.empty():
            self.all.append(self._q.get())
        return "\n".join(self.all)


def _start_match(argv: list[str]) -> tuple[subprocess.Popen[str], _Lines, _Lines]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bridgebot", "match", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    return proc, _Lines(proc.stdout), _Lines(proc.stderr)


def _outside_seats(out: _Lines, n: int) -> dict[str, subprocess.Popen[bytes]]:
    """Read the ``n`` JSON announcements and start a ``bridgebot seat`` for each."""
    seats: dict[str, subprocess.Popen[bytes]] = {}
    for _ in range(n):
        w = json.loads(out.wait_for(lambda s: s.startswith('{"external"')))["external"]
        argv = [sys.executable, "-m", "bridgebot", "seat", "--host", w["host"],
                "--port", str(w["port"]), "--seat", w["seat"], "--team", w["team"],
                "--agent", "random", "--seed", "9"]  # fmt: skip
        seats[f"{w['room']}:{w['seat']}"] = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    return seats


def _played(out_dir: Path, room: str) -> list[int]:
    """The boards a room's journal holds as finished (not aborted), in journal order."""
    path = out_dir / "rooms" / room / "journal.jsonl"
    entries = [json.loads(e) for e in path.read_text().splitlines()] if path.exists() else []
    return [e["board"] for e in entries if e["aborted"] is None]


def _stop(procs: list[subprocess.Popen[Any]]) -> None:
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()


def test_outside_seats_come_after_a_reminder_one_dies_and_resume_finishes(tmp_path: Path) -> None:
    out_dir = tmp_path / "m"
    ports = {"open": _free_port(), "closed": _free_port()}
    argv = ["--us", "random", "--them", "random", "--seed", "4", "--boards", "24",
            "--scoring", "play", "--them-name", "wb5", "--out", str(out_dir),
            "--room-port", f"open={ports['open']}", "--room-port", f"closed={ports['closed']}",
            "--remind-every", "0.5", "--wait-external", "60", "--reconnect-timeout", "1"]  # fmt: skip
    for e in THEIR_SEATS:
        argv += ["--external", e]
    journal = out_dir / "journal.jsonl"
    proc, out, err = _start_match(argv)
    seats: dict[str, subprocess.Popen[bytes]] = {}
    try:
        err.wait_for(lambda s: s.startswith("still waiting"))  # the first reminder
        announced = json.loads((out_dir / "external.json").read_text())
        assert {(w["room"], w["seat"], w["port"], w["team"]) for w in announced} == {
            ("open", "East", ports["open"], "wb5"), ("open", "West", ports["open"], "wb5"),
            ("closed", "North", ports["closed"], "wb5"), ("closed", "South", ports["closed"], "wb5"),
        }  # fmt: skip
        seats = _outside_seats(out, 4)
        deadline = time.monotonic() + 120  # a bound on waiting, not a timing assertion
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.exists() and journal.read_bytes().count(b"\n") >= 3:  # header + 2 boards
                break
            time.sleep(0.005)
        seats["open:East"].send_signal(signal.SIGKILL)
        code = proc.wait(timeout=60)
    finally:
        _stop([proc, *seats.values()])
    errors = err.rest()
    assert code == 3, errors
    assert "Traceback" not in errors
    assert "stopped: room open" in errors and "--resume" in errors
    first = read_journal(journal).boards
    numbers = [b.board for b in first]
    assert 2 <= len(numbers) < 24 and len(set(numbers)) == len(numbers)

    # A room that finished all 24 boards before the stop (the closed room can, on a fast
    # machine, while the open room waits out its dead seat) needs no seats on resume and
    # announces none: start one for each seat of the rooms still playing.
    unfinished = [room for room in ("open", "closed") if len(_played(out_dir, room)) < 24]
    assert "open" in unfinished  # the room whose seat died
    proc, out, err = _start_match([*argv, "--resume"])
    try:
        seats = _outside_seats(out, 2 * len(unfinished))
        code = proc.wait(timeout=120)
    finally:
        _stop([proc, *seats.values()])
    assert code == 0, err.rest()
    assert "Traceback" not in err.rest()
    boards = read_journal(journal).boards
    assert sorted(b.board for b in boards) == list(range(1, 25))  # each board once
    assert boards[: len(first)] == first
    for room in ("open", "closed"):  # a board one room finished before the stop is not replayed
        assert sorted(_played(out_dir, room)) == list(range(1, 25)), room
    assert "random v wb5:" in out.rest()
    summary = json.loads((out_dir / "summary.json").read_text())
    assert (summary["us"], summary["them"], summary["seed"]) == ("random", "wb5", 4)
    assert all(b.room("open").seats == ("random", "wb5", "random", "wb5") for b in boards)
    with open(out_dir / "room-closed.pbn") as f:
        record = pbn.load(f)[0]
    assert (record.info["North"], record.info["East"]) == ("wb5", "random")


async def _hello(host: str, port: int, source: str) -> list[str]:
    """Connect from ``source`` as North of team bridgebot; the lines the table manager answers."""
    reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    writer.write(b'Connecting "bridgebot" as North using protocol version 18\r\n')
    await writer.drain()
    lines = []
    while line := await asyncio.wait_for(reader.readline(), 10):
        lines.append(line.decode().strip())
        if "seated" in lines[-1]:
            break
    writer.close()
    return lines


def test_rooms_bound_to_an_address_admit_only_allowed_addresses(tmp_path: Path) -> None:
    """Linux routes all of 127.0.0.0/8 to the loopback: 127.0.0.2 serves, 127.0.0.3 is let in,
    127.0.0.1 is not. Our own seats connect from the served address and are admitted."""
    where: queue.Queue[tuple[str, int]] = queue.Queue()

    def announce(text: str) -> None:
        if text.startswith("room open: waiting for North"):
            host, port = text.split(" to connect to ")[1].split(" port ")
            where.put((host, int(port)))

    net = Network(host="127.0.0.2", allow_addresses=parse_networks(["127.0.0.3"]),
                  remind_every=30, wait_external=60)  # fmt: skip
    cfg = MatchConfig(make_agent=make_agent, us="random", them="random", out=tmp_path, boards=1, seed=2,
                      scoring="play", external=(ExternalSeat.parse("open:North"),), net=net)  # fmt: skip
    result: list[Any] = []
    match = threading.Thread(
        target=lambda: result.append(run_match(cfg, progress=lambda b: None, announce=announce))
    )
    match.start()
    host, port = where.get(timeout=60)
    assert host == "127.0.0.2"

    async def peers() -> tuple[list[str], list[str]]:
        refused = await _hello(host, port, "127.0.0.1")
        seated = await _hello(host, port, "127.0.0.3")  # then leaves; the seat is held for it
        agent = make_agent("random", 9)
        await SeatClient(host, port, Player.north, "bridgebot", agent, local_host="127.0.0.3").run()
        return refused, seated

    refused, seated = asyncio.run(peers())
    match.join(timeout=60)
    assert len(refused) == 1 and "127.0.0.1 is not allowed" in refused[0]
    assert seated[-1] == 'North ("bridgebot") seated'
    assert result and result[0].boards == 1


def test_outside_seats_that_never_come_end_the_match_with_a_sentence(tmp_path: Path) -> None:
    """Waiting is bounded (here a second, with reminders every 0.2 s); the end names the seat and
    where it should have connected, and how to continue."""
    said: list[str] = []
    net = Network(wait_external=1.0, remind_every=0.2, them_name="wb5")
    cfg = MatchConfig(make_agent=make_agent, us="random", them="random", out=tmp_path, boards=2, seed=2, scoring="play",
                      external=(ExternalSeat.parse("closed:West"),), net=net)  # fmt: skip
    with pytest.raises(MatchStopped) as exc:
        run_match(cfg, progress=lambda b: None, announce=said.append)
    assert said[0].startswith("room closed: waiting for West (team bridgebot) to connect to")
    assert any(s.startswith("still waiting") and "closed:West" in s for s in said[1:])
    text = str(exc.value)
    assert "did not connect within 1 s: closed:West (team bridgebot)" in text
    assert "0 of 2 boards" in text and "--resume" in text


def test_wire_team_names_and_reachable_address() -> None:
    net = Network(us_name="bots", them_name="wb5")
    open_room, closed_room = seatings("team")
    assert wire_teams(open_room, net) == ("bots", "wb5")
    assert wire_teams(closed_room, net) == ("wb5", "bots")
    ref = seatings("compatible")[0]  # all four seats of one side: two names still differ
    assert wire_teams(ref, net) == ("wb5-ns", "wb5-ew")
    assert Network(host="10.1.2.3").reachable() == "10.1.2.3"
    anywhere = Network(host="0.0.0.0").reachable()
    assert anywhere != "0.0.0.0" and socket.inet_aton(anywhere)
    assert Network(host="0.0.0.0").local == "127.0.0.1"


def test_the_seed_is_recorded_and_settable_with_a_deal_file(
    solved_npz: Path, tmp_path: Path
) -> None:
    assert main(["match", "--us", "random", "--them", "random", "--deals", str(solved_npz),
                 "--seed", "5", "--boards", "2", "--out", str(tmp_path)]) == 0  # fmt: skip
    assert json.loads((tmp_path / "summary.json").read_text())["seed"] == 5
