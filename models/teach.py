"""Teacher auctions: bfg (or EPBot's training cards) bid all four seats on random deals (or on the
boards of a deal file).

The output is one ``.npz`` that imitation learning reads:

=================  ==================  ======================================================
array              dtype, shape        meaning
=================  ==================  ======================================================
``owners``         uint8 [N, 52]       who holds each card (seat 0..3 = N, E, S, W), the order
                                       of ``docs/data.md`` (S, H, D, C; A..2)
``dealer``         uint8 [N]           0..3 = N, E, S, W
``vul``            uint8 [N]           endplay ``Vul`` value: 0 none, 1 both, 2 N/S, 3 E/W
``auctions``       int8 [N, L]         :data:`laws.calls.ALL_CALLS` indices from the dealer's
                                       call, padded with -1 (every auction is complete)
``deal_index``     int64 [N]           which deal: k for random deals, the board's place in
                                       ``--deals``
``seed``           int64 scalar        the ``--seed`` (random deals)
``generator``      str scalar          :data:`TEACH_VERSION`
``bfg_version``    str scalar          the bfgbidding version that bid (where bfg taught)
``teacher``        uint8 [N]           with ``--teacher``: which of ``meta.teachers`` bid deal
                                       k, ``k % len(teachers)`` (:mod:`models.teach_epbot`)
``meta``           str scalar          JSON (:class:`~bridgebot.models.datameta.DataMeta`): the
                                       above plus source, deal count, teachers, the teachers'
                                       calls, bfg's errors and the illegal answers replaced
=================  ==================  ======================================================

Random deal k (counting from 0) is board k + 1 and takes its dealer and vulnerability from the
standard 16-board cycle (:mod:`bridgebot.laws.boards`), as docs/data.md prescribes; the boards of
a deal file (PBN, LIN or npz, read by :mod:`bridgebot.laws.board_sets`) keep the dealer and
vulnerability the file gives them, so ``teach`` bids the boards ``tm`` and ``match`` play. Random deal k is
:func:`bridgebot.laws.deals.random_owners` (seed, k), a function of (seed, k) alone, so
a run is reproducible whatever the number of workers, and a run stopped part way and resumed
(the file is checkpointed as it grows) gives the same file as one uninterrupted run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
from bridgebot.core.errors import UserError
from bridgebot.core.files import replace_file
from bridgebot.core.logs import progress_bar
from bridgebot.laws.boards import dealer_vul_arrays
from bridgebot.laws.deals import random_owners_batch
from bridgebot.models.data import TeachSet, load_teach
from bridgebot.models.datameta import TEACH_VERSION, DataMeta, continued_meta

#: What :class:`Chunk` counts of bfg's work, summed into the file's meta.
BFG_COUNTS = ("calls", "errors", "fallbacks")

J = TypeVar("J")
R = TypeVar("R")


class TeachError(UserError):
    """A teacher file that cannot be resumed or a deals file that cannot be used (names the file)."""


def bid_deal(bidder: Any, owners: npt.NDArray[np.uint8], dealer: int) -> list[int]:
    """A complete auction with ``bidder`` (a :class:`engine.bfg.BfgBidder`) in all four seats."""
    from bridgebot.engine.bfg import card_names_from_owners

    hands = [card_names_from_owners(owners.tolist(), seat) for seat in range(4)]
    auction: list[int] = []
    while len(auction) < 4 or auction[-3:] != [0, 0, 0]:
        auction.append(bidder.call(hands[(dealer + len(auction)) % 4], auction))
    return auction


@dataclass(frozen=True)
class GivenDeals:
    """The boards of a deal file, as arrays: who holds each card, dealer and ``Vul`` value."""

    owners: npt.NDArray[np.uint8]
    dealer: npt.NDArray[np.uint8]
    vul: npt.NDArray[np.uint8]

    def __len__(self) -> int:
        return len(self.owners)

    def rows(self, start: int, stop: int) -> GivenDeals:
        return GivenDeals(self.owners[start:stop], self.dealer[start:stop], self.vul[start:stop])


def given_deals(path: Path) -> GivenDeals:
    """The boards of a deal file (PBN, LIN or npz) as :class:`GivenDeals`."""
    from bridgebot.laws.board_sets import load_deal_file
    from bridgebot.laws.cards import deal_owners

    boards = load_deal_file(path)
    return GivenDeals(
        owners=np.stack([deal_owners(b.deal) for b in boards]),
        dealer=np.array([b.dealer.value for b in boards], dtype=np.uint8),
        vul=np.array([b.vul.value for b in boards], dtype=np.uint8),
    )


@dataclass
class Chunk:
    """A contiguous run of teacher deals made by one worker."""

    start: int
    owners: npt.NDArray[np.uint8]
    auctions: list[list[int]]
    dealer: npt.NDArray[np.uint8]
    vul: npt.NDArray[np.uint8]
    calls: int = 0
    errors: int = 0
    fallbacks: int = 0
    teacher: npt.NDArray[np.uint8] | None = None


#: One worker's job: seed, first deal, count, the given deals (or None), the teachers.
Job = tuple[int, int, int, GivenDeals | None, tuple[str, ...]]


def teach_chunk(job: Job) -> Chunk:
    """Worker: bid deals ``start .. start+count-1`` (random from ``seed``, or the given ones),
    deal k by ``teachers[k % len(teachers)]``."""
    from bridgebot.engine.bfg import BfgBidder
    from bridgebot.models.teach_epbot import BFG, EPBotTeacher

    seed, start, count, given, teachers = job
    bidder = BfgBidder()
    if given is None:
        owners = random_owners_batch(seed, start, count)
        cycle = dealer_vul_arrays(np.arange(start, start + count) + 1)  # k is board k + 1
        dealers, vuls = cycle[0].astype(np.uint8), cycle[1].astype(np.uint8)
    else:
        owners, dealers, vuls = given.owners, given.dealer, given.vul
    which = (np.arange(start, start + count) % len(teachers)).astype(np.uint8)
    epbots = {t: EPBotTeacher(t) for t in set(teachers) - {BFG}}
    try:
        auctions = [
            bid_deal(bidder, owners[i], int(dealers[i]))
            if teachers[which[i]] == BFG
            else epbots[teachers[which[i]]].bid_deal(
                owners[i], int(dealers[i]), int(vuls[i]), start + i + 1
            )
            for i in range(count)
        ]
    finally:
        for e in epbots.values():
            e.close()
    s = bidder.stats
    return Chunk(
        start,
        owners,
        auctions,
        dealers,
        vuls,
        s.calls + sum(e.calls for e in epbots.values()),
        s.errors,
        s.fallbacks + sum(e.illegal for e in epbots.values()),
        which,
    )


@dataclass
class TeachRun:
    """A run of ``teach`` in progress: its teacher deals accumulated in memory, saved as one
    teacher file (the format of :class:`models.data.TeachSet`, plus the run's record: the deal
    indices, the meta and, with several teachers, who bid each deal)."""

    meta: DataMeta
    owners: list[npt.NDArray[np.uint8]] = field(default_factory=list)
    auctions: list[list[int]] = field(default_factory=list)
    indices: list[npt.NDArray[np.int64]] = field(default_factory=list)
    dealers: list[npt.NDArray[np.uint8]] = field(default_factory=list)
    vuls: list[npt.NDArray[np.uint8]] = field(default_factory=list)
    teachers: list[npt.NDArray[np.uint8]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.auctions)

    def add(self, chunk: Chunk) -> None:
        self.owners.append(chunk.owners)
        self.auctions.extend(chunk.auctions)
        self.indices.append(np.arange(chunk.start, chunk.start + len(chunk.auctions)))
        self.dealers.append(chunk.dealer)
        self.vuls.append(chunk.vul)
        if chunk.teacher is not None:
            self.teachers.append(chunk.teacher)
        counts = {k: (getattr(self.meta, k) or 0) + int(getattr(chunk, k)) for k in BFG_COUNTS}
        self.meta = self.meta.model_copy(update=counts)

    def save(self, path: Path) -> None:
        """Write atomically (a temporary file renamed over ``path``), so a crash loses nothing."""
        n = len(self)
        length = max((len(a) for a in self.auctions), default=0)
        auctions = np.full((n, length), -1, dtype=np.int8)
        for i, a in enumerate(self.auctions):
            auctions[i, : len(a)] = a
        index = np.concatenate(self.indices) if self.indices else np.zeros(0, np.int64)
        dealer = np.concatenate(self.dealers) if self.dealers else np.zeros(0, np.uint8)
        vul = np.concatenate(self.vuls) if self.vuls else np.zeros(0, np.uint8)
        self.meta = self.meta.model_copy(update={"count": n})
        owners = np.concatenate(self.owners) if self.owners else np.zeros((0, 52), np.uint8)
        deals = TeachSet(
            owners=owners,
            dealer=dealer.astype(np.int64),
            vul=vul.astype(np.int64),
            auctions=auctions,
            path=str(path),
        )
        arrays: dict[str, Any] = dict(
            **deals.arrays(),
            deal_index=index.astype(np.int64),
            seed=np.int64(self.meta.seed),
            generator=np.str_(TEACH_VERSION),
            meta=self.meta.array(),
        )
        if self.meta.bfg_version is not None:
            arrays["bfg_version"] = np.str_(self.meta.bfg_version)
        if self.meta.teachers:
            arrays["teacher"] = np.concatenate(self.teachers).astype(np.uint8)
        replace_file(path, lambda tmp: np.savez_compressed(tmp, **arrays))

    @classmethod
    def load(cls, path: Path, run: DataMeta) -> TeachRun:
        """Reopen a partial file to append to; its identity must match this run's."""
        with np.load(path, allow_pickle=False) as z:
            meta = continued_meta(path, z, run, TeachError)
            index = z["deal_index"].astype(np.int64)
            teacher = [z["teacher"].astype(np.uint8)] if "teacher" in z.files else []
        deals = load_teach(path)  # the format's one reader and its checks
        owners, dealer, vul = (
            deals.owners,
            deals.dealer.astype(np.uint8),
            deals.vul.astype(np.uint8),
        )
        auctions = [[int(c) for c in row if c >= 0] for row in deals.auctions]
        if len(index) and not np.array_equal(index, np.arange(len(index))):
            raise TeachError(f"{path}: deal_index is not 0..N-1, cannot resume")
        out = cls(
            meta=meta,
            owners=[owners],
            auctions=auctions,
            indices=[index],
            dealers=[dealer],
            vuls=[vul],
            teachers=teacher,
        )
        return out


def jobs(
    seed: int,
    start: int,
    stop: int,
    chunk: int,
    source: GivenDeals | None,
    teachers: tuple[str, ...] = ("bfg",),
) -> Iterator[Job]:
    for s in range(start, stop, chunk):
        n = min(chunk, stop - s)
        yield seed, s, n, (None if source is None else source.rows(s, s + n)), teachers


def generate(
    out: Path,
    count: int,
    seed: int = 0,
    workers: int = 1,
    deals: Path | None = None,
    chunk: int = 200,
    checkpoint_every: int = 10_000,
    progress: bool = True,
    stop_after: int | None = None,
    teachers: tuple[str, ...] = ("bfg",),
) -> TeachRun:
    """Make (or extend) ``out`` to hold ``count`` teacher deals; returns what was saved.

    ``stop_after`` ends the run after that many new deals (a clean stand-in for an interrupted
    run, for tests). The file is rewritten every ``checkpoint_every`` new deals and at the end.
    ``teachers`` (checked by :func:`models.teach_epbot.teacher_specs`) bid deal k by
    ``teachers[k % len(teachers)]``; other than bfg alone they are the meta's ``teachers``.
    """
    from bridgebot.engine.bfg import bfg_version
    from bridgebot.models.teach_epbot import BFG, epbot_version

    source_deals: GivenDeals | None = None
    source = "random"
    if deals is not None:
        source_deals = given_deals(deals)
        source = f"deals:{deals.name}:{len(source_deals)}"
        count = min(count, len(source_deals))  # at most the file's boards
    who: dict[str, object] = {} if teachers == (BFG,) else {"teachers": teachers}
    if BFG in teachers:
        who["bfg_version"] = bfg_version()
    if set(teachers) - {BFG}:
        who["epbot_version"] = epbot_version()
    meta = DataMeta.model_validate(
        {"generator": TEACH_VERSION, "seed": seed, "count": 0, "source": source,
         **who, **dict.fromkeys(BFG_COUNTS, 0)}
    )  # fmt: skip
    teach = TeachRun.load(out, meta) if out.exists() else TeachRun(meta=meta)
    start = len(teach)
    stop = count if stop_after is None else min(count, start + stop_after)
    since_save = 0
    work = list(jobs(seed, start, stop, chunk, source_deals, teachers))
    with progress_bar(count, "deal", "teach", initial=start, show=progress) as bar:
        for result in run_jobs(teach_chunk, work, workers):
            since_save = _take(teach, result, bar, out, since_save, checkpoint_every)
        teach.save(out)
    return teach


def run_jobs(
    fn: Callable[[J], R], work: list[J], workers: int, initializer: Callable[[], None] | None = None
) -> Iterator[R]:
    """``fn`` over ``work``, results in order; in ``workers`` forked processes when it pays.

    Results come back in job order whatever the number of workers, which is what makes the
    generated files independent of ``--workers``.
    """
    if workers > 1 and len(work) > 1:
        from bridgebot.core.workers import fork_pool

        with fork_pool(workers, initializer) as pool:
            yield from pool.imap(fn, work)
    else:
        for job in work:
            yield fn(job)


def _take(teach: TeachRun, chunk: Chunk, bar: Any, out: Path, since: int, every: int) -> int:
    teach.add(chunk)
    bar.update(len(chunk.auctions))
    since += len(chunk.auctions)
    if since >= every:
        teach.save(out)
        return 0
    return since
