"""The Ray backend of ``bridgebot match``: board streams on a Ray cluster, one journal on the driver.

Each board stream is a Ray actor that builds its agents once, exactly as a worker process of the
local backend does, and plays the chunks of boards it is handed with the same code
(:mod:`tournament.lanes`). Ray's ``ActorPool`` hands chunks to whichever stream is free; their
records come back to the driver, which writes them to ``DIR/journal.jsonl`` as each chunk finishes, before
anything else. A match killed at any moment therefore loses at most the chunks still in flight, and
``--resume`` (with either backend) plays only the missing boards.

Streams keep their agents between chunks and a single stream takes its chunks in order, so with
``workers=1`` even agents whose random stream runs across boards give the same records as the local
backend; with more streams every deterministic agent does.

Ray is optional (the ``distributed`` extra): it is imported only when this backend runs, and a
missing install is a :class:`RayUnavailableError` that says how to get it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import replace
from types import ModuleType

from bridgebot.engine.agent import AgentFactory
from bridgebot.laws.boards import BoardDeal
from bridgebot.tournament.config import MatchConfig, MatchError
from bridgebot.tournament.lanes import close_stream, init_stream, play_chunk
from bridgebot.tournament.records import BoardResult

INSTALL_HINT = "install the distributed extra: pip install -e .[distributed]"


class RayUnavailableError(MatchError):
    """The ray backend was asked for but Ray is not installed (or cannot be imported)."""


class RayClusterError(MatchError):
    """The Ray cluster cannot host the match: unreachable, or fewer CPUs than board streams."""


def import_ray() -> ModuleType:
    """The ``ray`` module, or a :class:`RayUnavailableError` naming the extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise RayUnavailableError(f"--backend ray needs Ray ({exc}); {INSTALL_HINT}") from exc
    return ray


class _Stream:
    """One board stream: agents built once (as in a local worker process), chunks played in turn."""

    def __init__(self, make_agent: AgentFactory, us: str, them: str, fmt: str, seed: int) -> None:
        init_stream(make_agent, us, them, fmt, seed)

    def close(self) -> None:
        close_stream()

    def play(self, cfg: MatchConfig, deals: list[BoardDeal]) -> list[BoardResult]:
        return play_chunk((cfg, deals))


def _connect(ray: ModuleType, address: str | None) -> bool:
    """Join the cluster at ``address`` (or start a local one); True when this call started Ray."""
    if ray.is_initialized():
        return False
    try:
        if address is None:
            ray.init(include_dashboard=False, logging_level=logging.WARNING)
        else:
            ray.init(address=address, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = address if address is not None else "a new local cluster"
        raise RayClusterError(f"--ray-address {where}: cannot start or join Ray ({exc})") from exc
    return True


def play_ray(
    cfg: MatchConfig,
    chunks: Iterator[list[BoardDeal]],
    seed: int,
    finish: Callable[[BoardResult], None],
) -> None:
    """Play ``chunks`` on ``cfg.workers`` Ray actors; ``finish`` each board as its chunk returns.

    Uses the Ray instance already initialised in this process if there is one, otherwise joins
    ``cfg.ray_address`` (or starts a local cluster) and shuts it down again at the end.
    """
    ray = import_ray()
    from ray.util import ActorPool

    started = _connect(ray, cfg.ray_address)
    try:
        streams = max(cfg.workers, 1)
        cpus = float(ray.cluster_resources().get("CPU", 0))
        if streams > cpus:
            raise RayClusterError(
                f"--workers {streams}: the Ray cluster has {cpus:g} CPUs, one per board stream "
                "is needed; use fewer workers or a larger cluster"
            )
        # Table managers of a stream write under the output directory: make it absolute, since an
        # actor does not necessarily run in the driver's working directory.
        remote_cfg = replace(cfg, out=cfg.out.resolve())
        actor = ray.remote(num_cpus=1)(_Stream)
        actors = [
            actor.remote(cfg.make_agent, cfg.us, cfg.them, cfg.fmt, seed) for _ in range(streams)
        ]
        pool = ActorPool(actors)
        # Unordered: a chunk is journaled as soon as it is back, whichever stream played it.
        play = pool.map_unordered(lambda s, chunk: s.play.remote(remote_cfg, chunk), list(chunks))
        for boards in play:
            for board in boards:
                finish(board)
        # Each stream closes its agents; after a failure the actors go down with their agents.
        ray.get([a.close.remote() for a in actors])
    finally:
        if started:
            ray.shutdown()
