"""Soak test of the table manager: hostile peers beside real seats, for as long as you like.

Not run by CI. Round after round, one in-process table manager serves four tables on one port of
127.0.0.1; sixteen real seats (our seat client with the ``random`` agent, team names ``NS`` and
``EW``) play ``--boards`` boards at each table, while up to ``--hostile`` concurrent strangers
attack the same port with every kind of bad behaviour below. Each round must end with every board
of every table journaled exactly once and none aborted; a handler that raised (an ``error`` log)
or a seat client that failed fails the soak.

Strangers (each bounded in time and bytes, loopback only):

* ``junk``: random bytes and random lines, then close;
* ``names``: ``Connecting`` with names the table refuses (outer spaces, too long, non-ASCII,
  quotes) or with a taken seat;
* ``silent``: connects and says nothing (the handshake limit drops it);
* ``squat``: seats itself under its own team name, then never says ``ready for teams``;
* ``dribble``: a ``Connecting`` line one byte at a time;
* ``flood``: an over-long first line with no terminator;
* ``storm``: a burst of connections opened and closed at once;
* ``burst``: a whole board of calls and cards in one write, in another team's name.

    python benchmarks/soak_tm.py --minutes 30 --out /tmp/soak   (prints one line per round and a
    summary; exit 0 when every round held)
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import structlog
from bridgebot.laws.board_sets import generate
from bridgebot.server.guard import Limits
from bridgebot.server.records import read_journal
from bridgebot.server.seat import SeatClient
from bridgebot.server.tm import TableManager, TableOptions
from endplay.types import Player

from bridgebot.agents import make_agent

TEAMS = {Player.north: "NS", Player.south: "NS", Player.east: "EW", Player.west: "EW"}
SEATS = ("North", "East", "South", "West", "ANYPL")
BAD_NAMES = ["Bots ", " Bots", "B" * 500, "Bötß", 'a"b', "", "NS", "EW", "x  y"]


class Counter:
    """What the strangers did and what the table manager logged, over the whole soak."""

    def __init__(self) -> None:
        self.kinds: collections.Counter[str] = collections.Counter()
        self.events: collections.Counter[str] = collections.Counter()
        self.errors: list[str] = []

    def processor(self, _logger: Any, method: str, event: dict[str, Any]) -> dict[str, Any]:
        self.events[str(event.get("event"))] += 1
        if method in ("error", "critical", "exception"):
            trace = traceback.format_exc() if event.get("exc_info") else ""
            self.errors.append(f"{event.get('event')}: {event}\n{trace}")
        raise structlog.DropEvent


async def stranger(port: int, rng: random.Random, count: Counter) -> None:
    kind = rng.choice(["junk", "names", "silent", "squat", "dribble", "flood", "storm", "burst"])
    count.kinds[kind] += 1
    with contextlib.suppress(ConnectionError, OSError, TimeoutError):
        async with asyncio.timeout(8):
            if kind == "storm":
                conns = [await asyncio.open_connection("127.0.0.1", port) for _ in range(5)]
                for _, w in conns:
                    w.close()
                return
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            try:
                await _act(kind, reader, writer, rng)
            finally:
                writer.close()


async def _act(
    kind: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, rng: random.Random
) -> None:
    seat = rng.choice(SEATS)
    if kind == "junk":
        for _ in range(rng.randint(1, 20)):
            writer.write(bytes(rng.randrange(256) for _ in range(rng.randint(1, 200))) + b"\r\n")
    elif kind == "names":
        name = rng.choice(BAD_NAMES)
        writer.write(f'Connecting "{name}" as {seat} using protocol version 18\r\n'.encode())
    elif kind == "silent":
        await asyncio.sleep(rng.uniform(0.5, 4))
    elif kind == "squat":
        writer.write(f'Connecting "Squat{rng.randrange(99)}" as {seat} using protocol version 18'
                     "\r\n".encode())  # fmt: skip
    elif kind == "dribble":
        for ch in f'Connecting "Drip" as {seat} using protocol version 18\r\n'.encode():
            writer.write(bytes([ch]))
            await writer.drain()
            await asyncio.sleep(0.05)
    elif kind == "flood":
        writer.write(b"C" * rng.choice([5000, 100_000, 1_000_000]))
    elif kind == "burst":
        who = rng.choice(SEATS[:4])
        lines = [f"{who} ready for deal", f"{who} ready for cards", f"{who} passes",
                 f"{who} bids 1C", f"{who} plays AS", f"{who} plays 2C",
                 f"{who} ready for dummy"]  # fmt: skip
        writer.write(("\r\n".join(lines) + "\r\n").encode())
    with contextlib.suppress(ConnectionError, OSError):
        await writer.drain()
        await asyncio.wait_for(reader.read(1 << 16), rng.uniform(0.1, 3))


async def real_seat(port: int, seat: Player, seed: int) -> int:
    """A real seat; a refusal while strangers hold the port is retried (as real clients do)."""
    for attempt in range(200):
        client = SeatClient("127.0.0.1", port, seat, TEAMS[seat], make_agent("random", seed))
        try:
            return (await client.run()).boards
        except Exception as exc:
            if "refused the connection" not in str(exc) and "closed the connection" not in str(exc):
                raise
            if client.machine.phase.value not in ("connecting", "await_teams"):
                raise  # lost after the boards began: that is a failure, not a refusal
            await asyncio.sleep(0.05 + 0.01 * attempt)
    raise RuntimeError(f"{seat.name} never got its seat")


async def one_round(
    n: int, args: argparse.Namespace, rng: random.Random, count: Counter
) -> tuple[int, float]:
    out = Path(args.out) / f"round-{n:04d}"
    boards = generate(args.seed + n, args.boards)
    tm = TableManager(
        boards, out, tables=4, options=TableOptions(timeout=60.0),
        limits=Limits(handshake_timeout=2.0, reconnect_timeout=30.0), keep_results=False,
    )  # fmt: skip
    _, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    start = time.monotonic()
    stop = asyncio.Event()

    async def strangers() -> None:
        pending: set[asyncio.Task[None]] = set()
        while not stop.is_set():
            while len(pending) < args.hostile:
                pending.add(asyncio.create_task(stranger(port, rng, count)))
            _, pending = await asyncio.wait(pending, timeout=0.2, return_when="FIRST_COMPLETED")
        for t in pending:
            t.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    attack = asyncio.create_task(strangers())
    seats = [real_seat(port, p, 1000 * n + 10 * t + p.value) for t in range(4) for p in Player]
    played = await asyncio.wait_for(asyncio.gather(*seats), 600)
    await asyncio.wait_for(serving, 60)
    stop.set()
    await attack
    elapsed = time.monotonic() - start
    entries = read_journal(out / "journal.jsonl").records
    keys = collections.Counter((e.table, e.board) for e in entries)
    want = {(t, b.number) for t in range(1, 5) for b in boards}
    problems = []
    if set(keys) != want or any(v != 1 for v in keys.values()):
        problems.append(f"journal has {sorted(keys.items())}, want each of {sorted(want)} once")
    aborted = [e for e in entries if e.aborted is not None]
    if aborted:
        problems.append(f"aborted: {[(e.table, e.board, e.aborted) for e in aborted]}")
    if any(p != args.boards for p in played):
        problems.append(f"seats played {played} boards, want {args.boards} each")
    if problems:
        raise AssertionError(f"round {n}: " + "; ".join(problems))
    return len(entries), elapsed


async def soak(args: argparse.Namespace) -> int:
    count = Counter()
    structlog.configure(processors=[count.processor])
    rng = random.Random(args.seed)
    deadline = time.monotonic() + 60 * args.minutes
    rounds = boards = 0
    seconds = 0.0
    n = 0
    while time.monotonic() < deadline and (args.rounds is None or n < args.rounds):
        n += 1
        got, elapsed = await one_round(n, args, rng, count)
        rounds, boards, seconds = rounds + 1, boards + got, seconds + elapsed
        strangers = sum(count.kinds.values())
        print(f"round {n}: {got} boards journaled once each in {elapsed:.1f} s; "
              f"{strangers} strangers so far; errors logged {len(count.errors)}",
              flush=True)  # fmt: skip
        if count.errors:
            break
    print(f"soak: {rounds} rounds, {boards} boards of the real seats finished and journaled "
          f"once each ({boards / max(seconds, 1e-9):.2f} boards/s), "
          f"{sum(count.kinds.values())} strangers: {dict(sorted(count.kinds.items()))}")  # fmt: skip
    keep = ("connection refused", "dropping seat", "bad line", "line too long",
            "protocol error", "board aborted", "connection handler failed")  # fmt: skip
    print("table manager events: " + ", ".join(f"{k} {count.events[k]}" for k in keep))
    for e in count.errors[:10]:
        print("ERROR", e)
    return 1 if count.errors else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--minutes", type=float, default=30.0, help="how long to soak (default 30)")
    p.add_argument("--rounds", type=int, default=None, help="stop after this many rounds too")
    p.add_argument("--boards", type=int, default=4, help="boards per table per round (default 4)")
    p.add_argument("--hostile", type=int, default=8, help="strangers at once (default 8)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True, help="directory for each round's records")
    args = p.parse_args()
    try:
        return asyncio.run(soak(args))
    except AssertionError as exc:
        print(f"soak failed: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
