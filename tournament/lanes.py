"""Board streams: a worker's agents, built once, and the chunks of boards it plays with them.

Both backends of ``bridgebot match`` run streams: the local one in worker processes
(:func:`init_stream` is the pool's initialiser, :func:`play_chunk` its task), the Ray one in actors
(:mod:`tournament.distributed`) that call the same two functions; a single stream on the driver
plays with agents of its own (:func:`tcp_rooms`, ``tournament.ddmatch.play_dd_boards``).
"""

from __future__ import annotations

import asyncio
import atexit
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack

from bridgebot.engine.agent import AgentFactory
from bridgebot.laws.boards import BoardDeal
from bridgebot.tournament.config import MatchConfig, Watch
from bridgebot.tournament.ddmatch import RoomAgents, play_dd_boards, seated_agents
from bridgebot.tournament.records import BoardResult
from bridgebot.tournament.rooms import play_rooms
from bridgebot.tournament.seatings import THEM, US, seatings

_worker_agents: RoomAgents = {}
"""The agents of this process's stream, by room (N, E, S, W), built by :func:`init_stream`."""
_worker_stack = ExitStack()


def init_stream(make_agent: AgentFactory, us: str, them: str, fmt: str, seed: int) -> None:
    """Build this process's agents, once per stream, closed when the stream ends:
    :func:`close_stream` for a Ray actor, at exit for a worker process (which the pool lets
    finish, never terminates)."""
    from bridgebot.core.logs import configure_logging

    # A spawned worker starts with structlog's defaults (every wire line at debug): quiet it,
    # logging in the format the command chose (--log-format reaches it through the environment).
    configure_logging("warning")
    close_stream()
    _worker_agents.update(
        _worker_stack.enter_context(seated_agents(make_agent, us, them, seatings(fmt), seed))
    )
    atexit.register(close_stream)


def close_stream() -> None:
    """Close the stream's agents (again: nothing)."""
    _worker_agents.clear()
    _worker_stack.close()


def play_chunk(args: tuple[MatchConfig, list[BoardDeal]]) -> list[BoardResult]:
    """Play one chunk of boards with the agents :func:`init_stream` built."""
    cfg, deals = args
    if not cfg.use_tcp:
        return play_dd_boards(deals, cfg.fmt, cfg.us, cfg.them, _worker_agents)
    out: list[BoardResult] = []
    stream = f"-{os.getpid()}"  # each worker's table managers keep their own records
    asyncio.run(tcp_rooms(cfg, deals, _worker_agents, out.append, stderr_line, stream))
    return out


def chunks(deals: Sequence[BoardDeal], size: int) -> Iterator[list[BoardDeal]]:
    for i in range(0, len(deals), size):
        yield list(deals[i : i + size])


def stderr_line(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _stdout_line(text: str) -> None:
    print(text, flush=True)


async def tcp_rooms(
    cfg: MatchConfig,
    deals: list[BoardDeal],
    agents: RoomAgents,
    finish: Callable[[BoardResult], None],
    announce: Callable[[str], None],
    stream: str = "",
    watch: Watch | None = None,
) -> None:
    """Play ``deals`` in table-manager rooms; ``stream`` names a worker's own room directories;
    ``watch`` is told what happens at each room's table."""
    await play_rooms(
        deals,
        cfg.fmt,
        seatings(cfg.fmt),
        {US: cfg.us, THEM: cfg.them},
        agents,
        cfg.scoring,
        cfg.out / f"rooms{stream}",
        finish,
        external=cfg.external,
        announce=announce,
        timeout=cfg.seat_timeout,
        net=cfg.net,
        announce_json=_stdout_line,
        kept=None if stream else cfg.out / "rooms-kept.jsonl",  # worker streams never resume
        observe=None if watch is None else watch.observer,
        dd_cost=cfg.dd_cost,
    )
