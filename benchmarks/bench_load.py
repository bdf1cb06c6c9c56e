"""The table manager under load (issue 7): one ``bridgebot tm`` process serving many tables.

Starts ``bridgebot tm --tables N`` as a separate process (so its memory is its own), connects
four of our seat clients with random agents per table over TCP on 127.0.0.1 (all in this
process), plays every board, and prints:

* boards per second of the whole run, and as a ratio to a 1-table baseline run in the same
  invocation (how throughput scales with tables on this machine);
* relay latency: for every call and card, the time from the seat writing it to each other seat
  receiving the relayed line (both clocks are this process's), median and p99, with the same
  ratio to the baseline (a card is relayed to a seat once it said it is ready for it, so this
  is the delay a bot sees, table manager and peers included);
* the table manager's resident memory (VmRSS) when it starts listening, when half the boards
  are recorded, and when all are: the load must not grow it without bound;
* boards lost: journal and PBN entries checked against the boards that were dealt (must be 0).

Usage: ``python benchmarks/bench_load.py [--tables 32] [--boards 10]``. Runs in seconds to a
minute on a laptop; the figures are only comparable within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import structlog
from endplay.types import Player

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import endplay.parsers.pbn as pbn
from bridgebot.protocol.codec import Direction, parse
from bridgebot.protocol.errors import ParseError
from bridgebot.protocol.messages import CallMsg, Message, PlayMsg
from bridgebot.server.records import read_journal
from bridgebot.server.seat import SeatClient

from bridgebot.agents import make_agent

TEAMS = {Player.north: "NS", Player.south: "NS", Player.east: "EW", Player.west: "EW"}


class Relays:
    """Write and arrival times of calls and cards, matched per table and board: a card by the
    card itself (unique in a board), a call by its caller and its rank among that caller's calls
    (every other seat receives every call, in order)."""

    def __init__(self) -> None:
        self.sent: dict[tuple[Any, ...], list[float]] = defaultdict(list)
        self.got: dict[tuple[Any, ...], int] = defaultdict(int)
        self.latencies: list[float] = []

    @staticmethod
    def key(table: int, board: int, msg: Message) -> tuple[Any, ...] | None:
        if isinstance(msg, CallMsg):
            return (table, board, "call", msg.seat)
        if isinstance(msg, PlayMsg):
            return (table, board, "card", str(msg.card))
        return None

    def on_write(self, table: int, board: int, msg: Message, t: float) -> None:
        k = self.key(table, board, msg)
        if k is not None:
            self.sent[k].append(t)

    def on_line(self, table: int, board: int, me: Player, line: str, t: float) -> None:
        try:
            msg = parse(line, Direction.FROM_TM)
        except ParseError:
            return
        k = self.key(table, board, msg)
        if k is None:
            return
        i = self.got[(*k, me)] if k[2] == "call" else 0
        self.got[(*k, me)] = i + 1
        sent = self.sent[k]
        if i < len(sent):
            self.latencies.append(t - sent[i])


def instrumented_client(relays: Relays, table: int, seat: Player, port: int) -> SeatClient:
    client = SeatClient(
        "127.0.0.1", port, seat, TEAMS[seat], make_agent("random", 1000 * table + seat.value)
    )
    write = client._write
    lines = client._lines

    def board() -> int:
        b = client.machine.board
        return -1 if b is None else b.number

    async def timed_write(msg: Message) -> None:
        relays.on_write(table, board(), msg, time.perf_counter())
        await write(msg)

    put = lines.put_nowait

    def timed_put(item: Any) -> None:
        if isinstance(item, str):  # stamped on arrival, before the client looks at it
            relays.on_line(table, board(), seat, item, time.perf_counter())
        put(item)

    client._write = timed_write  # type: ignore[method-assign]
    lines.put_nowait = timed_put  # type: ignore[method-assign]
    return client


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def journal_count(out: Path) -> int:
    """Boards journaled so far (the session header on the first line is not a board)."""
    path = out / "journal.jsonl"
    if not path.exists():
        return 0
    return sum(1 for line in path.read_text().splitlines() if '"session"' not in line[:12])


async def run(tables: int, boards: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bridgebot", "tm", "--port", "0", "--seed", "7",
            "--boards", str(boards), "--tables", str(tables), "--out", str(out),
            "--log-level", "warning",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert proc.stdout is not None
        first = (await proc.stdout.readline()).decode()
        if not first.startswith("listening on"):
            raise RuntimeError(f"bridgebot tm did not start: {first!r}")
        port = int(first.strip().rsplit(":", 1)[1])
        rss = {"start": rss_kib(proc.pid)}
        cpu = {"start": cpu_seconds(proc.pid)}
        relays = Relays()
        total = tables * boards
        clients = []
        for t in range(tables):  # a table fills before the next one is offered seats
            clients += [instrumented_client(relays, t, p, port) for p in Player]
        begin = time.perf_counter()
        runs = [asyncio.ensure_future(c.run()) for c in clients]

        async def sample() -> None:
            while journal_count(out) < total // 2:
                await asyncio.sleep(0.02)
            rss["middle"] = rss_kib(proc.pid)
            while journal_count(out) < total:
                await asyncio.sleep(0.02)
            rss["end"] = rss_kib(proc.pid)  # all boards recorded; End of session not yet read
            cpu["end"] = cpu_seconds(proc.pid)

        sampler = asyncio.ensure_future(sample())
        summaries = await asyncio.gather(*runs)
        elapsed = time.perf_counter() - begin
        await sampler
        _, err = await proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"bridgebot tm exited {proc.returncode}: {err.decode()[-500:]}")
        # The journal's reader: a session header, then one record per board (issue 27: reading
        # every line as a board stopped this benchmark with KeyError 'table').
        entries = read_journal(out / "journal.jsonl").records
        keys = [(e.table, e.board) for e in entries]
        expected = {(t, b) for t in range(1, tables + 1) for b in range(1, boards + 1)}
        played = {k for k, e in zip(keys, entries, strict=True) if e.aborted is None}
        records = pbn.loads((out / "boards.pbn").read_text())
        pbn_keys = [(int(r.info["Table"]), r.board_num) for r in records]
        lost = len(expected - set(keys)) + len(played - set(pbn_keys))
        duplicated = (len(keys) - len(set(keys))) + (len(pbn_keys) - len(set(pbn_keys)))
        lat = sorted(relays.latencies)
        return {
            "tables": tables,
            "boards": total,
            "seats_played": sum(s.boards for s in summaries),
            "aborted": sum(1 for e in entries if e.aborted is not None),
            "seconds": elapsed,
            "boards_per_s": total / elapsed,
            "relays": len(lat),
            "median_ms": 1000 * statistics.median(lat),
            "p99_ms": 1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))],
            "rss_kib": rss,
            "tm_cpu_ms_per_board": 1000 * (cpu["end"] - cpu["start"]) / total,
            "tm_cpu_share": (cpu["end"] - cpu["start"]) / elapsed,
            "lost": lost,
            "duplicated": duplicated,
        }


def show(r: dict[str, Any], base: dict[str, Any] | None) -> None:
    rss = r["rss_kib"]
    print(f"{r['tables']:3d} tables: {r['boards']:4d} boards in {r['seconds']:6.1f} s = "
          f"{r['boards_per_s']:6.1f} boards/s; relay latency over {r['relays']} relays: "
          f"median {r['median_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms")  # fmt: skip
    print(f"            tm RSS start/middle/end: {rss['start'] / 1024:.1f} / "
          f"{rss['middle'] / 1024:.1f} / {rss['end'] / 1024:.1f} MiB; tm CPU "
          f"{r['tm_cpu_ms_per_board']:.1f} ms/board ({100 * r['tm_cpu_share']:.0f}% of one core); "
          f"aborted {r['aborted']}, "
          f"lost {r['lost']}, duplicated {r['duplicated']}")  # fmt: skip
    if base is not None:
        print(f"            vs 1 table: throughput x{r['boards_per_s'] / base['boards_per_s']:.2f}, "
              f"median latency x{r['median_ms'] / base['median_ms']:.2f}, "
              f"p99 x{r['p99_ms'] / base['p99_ms']:.2f}, "
              f"RSS growth start->end {rss['end'] / rss['start']:.2f} "
              f"(baseline {base['rss_kib']['end'] / base['rss_kib']['start']:.2f})")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--tables", type=int, default=32, help="tables served at once (default 32)")
    ap.add_argument("--boards", type=int, default=10, help="boards per table (default 10)")
    args = ap.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    print(f"cpus: {os.cpu_count()}; tm: one bridgebot tm process; seats: this process")
    base = asyncio.run(run(1, args.boards))
    show(base, None)
    load = asyncio.run(run(args.tables, args.boards))
    show(load, base)
    if load["lost"] or load["duplicated"] or base["lost"] or base["duplicated"]:
        raise SystemExit("boards lost or duplicated")


if __name__ == "__main__":
    main()
