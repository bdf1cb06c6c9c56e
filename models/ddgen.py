"""``bridgebot ddgen``: random deals with their full double-dummy tables (docs/data.md).

The file has the two arrays of ``docs/data.md`` (``owners`` uint8[N, 52], ``dd``
uint8[N, 4, 5]: tricks for declarer N, E, S, W in strains C, D, H, S, NT), so files concatenate
(docs/data.md, "Joining two files"), plus one extra scalar ``meta`` (JSON: generator, seed,
count; :class:`bridgebot.models.datameta.DataMeta`) that makes a file resumable. Deal k is :func:`bridgebot.laws.deals.random_owners` (seed,
k), the stream every ``--seed`` deals from (``bridgebot teach``, ``tm``, ``match``), so teacher
auctions and DD tables line up deal for deal.

Tables come from DDS through endplay's ``calc_all_tables`` in batches, in worker processes (each
worker asks DDS for one thread, so ``--workers`` is the number of cores used). The file is
rewritten atomically every ``--checkpoint`` deals; rerunning the same command continues it, and
the result equals one uninterrupted run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from bridgebot.core.argtypes import add_workers, positive_int
from bridgebot.core.errors import UserError
from bridgebot.core.files import replace_file
from bridgebot.core.runs import add_run, open_run
from bridgebot.engine.dds import dd_tables, one_solver_thread
from bridgebot.laws.deals import random_owners_batch
from bridgebot.models.datameta import DDGEN_VERSION, DataMeta, continued_meta
from bridgebot.models.dealfilter import FILTERS, dd_picked, passing_deals

HELP = "generate random deals with full double-dummy tables (the npz format of docs/data.md)"
EXAMPLES = """examples:
  bridgebot ddgen --boards 42336 --seed 20261123 --out data/dd_2026b.npz   # the shipped models' set
  bridgebot ddgen --boards 100000 --out data/dd_more.npz --seed 7
  bridgebot ddgen --boards 100000 --out data/dd_more.npz --seed 7   # continues an interrupted run
  bridgebot ddgen --boards 20000 --seed 5 --filter slam --out data/dd_slam.npz   # slam curriculum
  bridgebot ddgen --boards 100000 --seed 7 --run dd7 --out data/dd_more.npz
      # state in $BRIDGEBOT_RUNS/dd7: the same command resumes it in a later session

Join two files (docs/data.md):
  a, b = np.load("data/dd.npz"), np.load("data/dd_more.npz")
  np.savez("all.npz", owners=np.concatenate([a["owners"], b["owners"]]),
           dd=np.concatenate([a["dd"], b["dd"]]))
"""


class DDGenError(UserError):
    """A file that cannot be continued by this run (names the file and the mismatch)."""


def dd_chunk(job: tuple[int, int, int]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """Worker: deals ``start .. start+count-1`` of stream ``seed`` and their tables."""
    seed, start, count = job
    owners = random_owners_batch(seed, start, count)
    return owners, dd_tables(owners)


def _save(path: Path, owners: list[Any], dd: list[Any], meta: DataMeta) -> None:
    o = np.concatenate(owners) if owners else np.zeros((0, 52), np.uint8)
    d = np.concatenate(dd) if dd else np.zeros((0, 4, 5), np.uint8)
    meta = meta.model_copy(update={"count": len(o)})
    replace_file(path, lambda tmp: np.savez_compressed(tmp, owners=o, dd=d, meta=meta.array()))


def generate(
    out: Path,
    count: int,
    seed: int = 0,
    workers: int = 1,
    chunk: int = 32,
    checkpoint_every: int = 2_000,
    progress: bool = True,
    stop_after: int | None = None,
    keep: str | None = None,
) -> int:
    """Make (or extend) ``out`` to ``count`` deals with DD tables; returns the deals in the file.

    ``stop_after`` ends the run after that many new deals, leaving the file as an interrupted
    run would at a checkpoint (used by tests). ``keep`` names a filter of
    :data:`models.dealfilter.FILTERS`: the file then holds the stream's deals that pass it.
    """
    from bridgebot.core.logs import progress_bar
    from bridgebot.models.teach import run_jobs

    meta = DataMeta(generator=DDGEN_VERSION, seed=seed, count=0)
    if keep is not None:
        meta = DataMeta(generator=DDGEN_VERSION, seed=seed, count=0, filter=keep, scanned=0)
    owners: list[Any] = []
    dd: list[Any] = []
    if out.exists():
        with np.load(out, allow_pickle=False) as z:
            meta = continued_meta(out, z, meta, DDGenError)
            owners, dd = [z["owners"]], [z["dd"]]
    start = sum(len(o) for o in owners)
    stop = count if stop_after is None else min(count, start + stop_after)
    work: list[Any] = [(seed, s, min(chunk, stop - s)) for s in range(start, stop, chunk)]
    solve: Any = dd_chunk
    if keep is not None:
        picked = passing_deals(seed, meta.scanned or 0, stop - start, FILTERS[keep])
        work = [(seed, picked[s : s + chunk]) for s in range(0, len(picked), chunk)]
        solve = dd_picked
    since = 0

    with progress_bar(count, "deal", "ddgen", initial=start, show=progress) as bar:
        for job, (new_owners, new_dd) in zip(
            work, run_jobs(solve, work, workers, initializer=one_solver_thread), strict=True
        ):
            if keep is not None:
                meta = meta.model_copy(update={"scanned": job[1][-1] + 1})
            owners.append(new_owners)
            dd.append(new_dd)
            since += len(new_owners)
            bar.update(len(new_owners))
            if since >= checkpoint_every:
                _save(out, owners, dd, meta)
                since = 0
        _save(out, owners, dd, meta)
    return sum(len(o) for o in owners)


#: The shared flags (``bridgebot/options.py`` adds them): --boards N (deals wanted in --out,
#: required), --seed N, --log-level. ``--deals N``, the old spelling of --boards, still works.
SHARED_OPTIONS = {"boards": None, "seed": 0}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="the .npz to write or continue")
    add_run(parser)
    add_workers(parser)
    parser.add_argument(
        "--batch", type=positive_int, default=32, help="deals per solver call (default 32)"
    )
    parser.add_argument(
        "--checkpoint", type=positive_int, default=2_000, help="save every N new deals"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--filter",
        choices=sorted(FILTERS),
        default=None,
        help="keep only deals that pass this test, before solving (slam: a side with 29+ HCP, "
        "or 26+ and a 9-card fit; models/dealfilter.py)",
    )


def run(args: argparse.Namespace) -> int:
    if args.boards is None:
        raise UserError("give --boards N, the number of deals wanted in --out")
    state = open_run(args.run, args.out, sys.stderr)
    t0 = time.monotonic()
    n = generate(
        state.path,
        args.boards,
        seed=args.seed,
        workers=args.workers,
        chunk=args.batch,
        checkpoint_every=args.checkpoint,
        progress=not args.quiet,
        keep=args.filter,
    )
    state.publish()
    print(f"{args.out}: {n} deals with DD tables ({time.monotonic() - t0:.0f} s this run)")
    return 0
