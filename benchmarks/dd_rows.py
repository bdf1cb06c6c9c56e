"""Rows of double-dummy team matches: the library the row benchmarks share.

A row is a team match (``tournament.ddmatch``: both rooms, pairs swapped, final contracts scored
from each board's DD table) of one of our agents (``us``) against one opponent spec (``them``),
every row of a run on the same boards. This module holds what ``bench_slam.py``,
``bench_field.py``, ``bench_crosstable.py``, ``bench_search.py`` and ``report_field.py`` share:

- the yardstick pair (:class:`Yardstick`, bidding only), a row of its own in ``bench_slam``;
- what a journaled row counts for (:func:`side_marks`, :func:`row_marks`,
  :func:`counted_rows`): both sides' policy sha256 and settings digest, so a row of another
  model or another default is played again; the journal itself (:func:`read_journal`,
  :func:`append_journal`); and the check that no policy file changes under a running chunk
  (:func:`check_policies`, :class:`PolicyChangedError`);
- playing rows in chunks over worker processes (:func:`run_rows`);
- a row's figures (:func:`match_figures`: IMPs and the doubled-contract cost;
  :func:`row_figures`: IMPs and both sides' slams, ``tournament.slams``), paired differences
  (:func:`paired`) and binomial rates (:func:`rate`);
- the slam table's lines (:data:`HEADER`, :func:`show_row`).

The scripts import it as a sibling (their folder is on ``sys.path`` when they run, and spawned
workers inherit it, so they find :func:`play_chunk` by name).
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from bridgebot.core.stats import mean_stderr
from bridgebot.engine.agent import Agent, BiddingView, PlayView
from bridgebot.laws.board_sets import BoardSetError, load_npz
from bridgebot.laws.boards import BoardDeal, cycle_board, side_vulnerable
from bridgebot.laws.calls import PASS, auction_over, bid_rank, final_contract
from bridgebot.laws.scoring import STRAIN_ORDER, score_array
from bridgebot.tournament.doubled import doubled_costs
from bridgebot.tournament.records import BoardResult
from bridgebot.tournament.seatings import THEM, US
from bridgebot.tournament.slams import (
    Reach,
    TeamSlams,
    passing_score,
    reference,
    side_of,
    slam_figures,
)
from endplay.types import Bid, Card, ContractBid, Player

from bridgebot import marks
from bridgebot.agents import make_agent

#: The yardstick's name in a run's rows (no agent spec: ``bench_slam --yardstick`` asks for it).
YARDSTICK = "yardstick"


class Yardstick(Agent):
    """A pair that bids its side's best double-dummy contract at once: it reads the board's DD
    table (``deals``, by board number), so it finds every slam its two hands make.

    On each turn it takes :func:`tournament.slams.reference` after the auction so far: passing
    when that is passing (or the contract already bid), else bidding that contract. When partner
    is the better declarer of a strain neither has named, it passes first if its pass does not
    end the auction, so partner names it; otherwise it bids the highest-scoring contract that
    makes with the declarer its bid gives, if that beats passing. It never doubles. Bidding
    only; it cannot play.
    """

    name = YARDSTICK

    def __init__(self, deals: Mapping[int, BoardDeal]) -> None:
        self.deals = deals

    def reset(self, board: int) -> None:
        return None

    def bid(self, view: BiddingView) -> Bid:
        deal = self.deals[view.board]
        assert deal.dd is not None
        side = side_of(view.seat)
        target = reference(deal.dd, view.vul, side, view.dealer, view.auction)
        current = final_contract(view.dealer, (*view.auction, PASS, PASS, PASS))
        top = -1 if current is None else bid_rank(current.level, STRAIN_ORDER.index(current.denom))
        if target.level == 0 or bid_rank(target.level, target.strain) <= top:
            return PASS
        if self._declarer(view, target.strain) != target.declarer:
            if not auction_over((*view.auction, PASS)):
                return PASS  # partner names the strain
            # Partner will not call again: the best contract this seat's bid makes, with the
            # declarer that bid gives, against passing.
            floor, _ = passing_score(deal.dd, view.vul, side, view.dealer, view.auction)
            vulnerable = side_vulnerable(view.vul, view.seat)
            best = (floor, 0, 0)
            for level in range(1, 8):
                for strain in range(5):
                    tricks = int(deal.dd[self._declarer(view, strain).value, strain])
                    if bid_rank(level, strain) > top and tricks >= level + 6:
                        score = int(score_array(level, strain, 0, vulnerable, tricks))
                        best = max(best, (score, -level, strain))
            if best[1] == 0:
                return PASS
            target = Reach(best[0], -best[1], best[2])
        return ContractBid(target.level, STRAIN_ORDER[target.strain])

    @staticmethod
    def _declarer(view: BiddingView, strain: int) -> Player:
        """Who declares ``strain`` if ``view.seat`` bids it now."""
        for i, call in enumerate(view.auction):
            seat = Player((view.dealer.value + i) % 4)
            if (
                isinstance(call, ContractBid)
                and side_of(seat) == side_of(view.seat)
                and STRAIN_ORDER.index(call.denom) == strain
            ):
                return seat
        return view.seat

    def play(self, view: PlayView) -> Card:
        raise NotImplementedError("the slam yardstick bids only (double-dummy matches)")


# -- what a journaled row counts for ---------------------------------------------------------------


def policy_file(spec: str) -> Path | None:
    """The policy file a spec bids with (:func:`bridgebot.marks.policy_file`); None for the
    yardstick, which has none."""
    return None if spec == YARDSTICK else marks.policy_file(spec)


def fingerprint(spec: str) -> str | None:
    """The digest of every file and package ``spec``'s agent reads (None for the yardstick:
    :func:`bridgebot.marks.fingerprint`): a journaled row counts only for the agent that
    played it."""
    return None if spec == YARDSTICK else marks.fingerprint(spec)


def side_marks(specs: Iterable[str]) -> dict[str, tuple[str | None, str]]:
    """Per spec, its policy sha256 (:func:`fingerprint`) and settings digest
    (:func:`bridgebot.marks.settings_digest`), read once for a run's journal."""
    return {spec: (fingerprint(spec), marks.settings_digest(spec)) for spec in specs}


def row_marks(
    held: Mapping[str, tuple[str | None, str]], us: str, them: str
) -> dict[str, list[str | None]]:
    """What a journaled row of ``us`` against ``them`` counts for, as its ``policies`` and
    ``settings`` fields, from ``held`` (:func:`side_marks`): a row whose fields differ (another
    model, another default, or a row made before it held them) is played again."""
    return {
        "policies": [held[us][0], held[them][0]],
        "settings": [held[us][1], held[them][1]],
    }


def counted_rows(
    rows: Mapping[tuple[str, str], dict[str, Any]], held: Mapping[str, tuple[str | None, str]]
) -> dict[tuple[str, str], dict[str, Any]]:
    """The journaled ``rows`` (by (us, them)) that count for this run: both sides among
    ``held`` (:func:`side_marks`) and the row's :func:`row_marks` fields theirs."""
    return {
        (us, them): r
        for (us, them), r in rows.items()
        if us in held
        and them in held
        and all(r.get(k) == v for k, v in row_marks(held, us, them).items())
    }


class PolicyChangedError(RuntimeError):
    """A policy file changed while a benchmark chunk read it: its rows would mix two models."""


def check_policies(job: Mapping[str, Any], when: str) -> None:
    """Raise :class:`PolicyChangedError` where ``job``'s ``policies`` (each side's
    :func:`fingerprint` when the run started) no longer match the files on disk."""
    for spec, want in zip((job["us"], job["them"]), job.get("policies") or (), strict=False):
        got = fingerprint(spec)
        if want is not None and got != want:
            raise PolicyChangedError(
                f"{spec}: its policy file {policy_file(spec)} changed {when} boards "
                f"[{job['offset']}, +{job['n']}) (sha256 {str(got)[:12]}, the run started with "
                f"{want[:12]}): nothing may change a model directory while a benchmark reads it"
            )


# -- the journal of finished rows ---------------------------------------------------------------


def read_journal(
    path: Path | None, key: Mapping[str, Any]
) -> dict[tuple[str, str], dict[str, Any]]:
    """The finished rows of the journal ``path`` (none where it is None or absent) whose fields
    match ``key`` (deal file, range and whatever else the caller keys on), by (candidate,
    opponent); a later line replaces an earlier one."""
    done: dict[tuple[str, str], dict[str, Any]] = {}
    for r in journal_lines(path):
        if all(r.get(k) == v for k, v in key.items()):
            done[(r["candidate"], r["opponent"])] = r
    return done


def append_journal(path: Path | None, r: Mapping[str, Any]) -> None:
    """Append the finished row ``r`` to the journal ``path`` as one JSON line (None: no journal),
    on a line of its own even after a torn last line (a run killed while writing)."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        torn = False
        if path.exists() and path.stat().st_size > 0:
            with open(path, "rb") as f:
                f.seek(-1, 2)  # the last byte alone, not the whole journal
                torn = f.read(1) != b"\n"
        with open(path, "a") as f:
            f.write(("\n" if torn else "") + json.dumps(r) + "\n")


def journal_lines(path: Path | None) -> list[dict[str, Any]]:
    """The decoded lines of the journal ``path`` (none where it is None or absent), less a line
    torn by a run killed while writing it (its row or chunk is played again)."""
    out: list[dict[str, Any]] = []
    if path is not None and path.exists():
        for line in path.read_text().splitlines():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


# -- playing rows ----------------------------------------------------------------------------------


def play_chunk(job: dict[str, Any]) -> list[dict[str, Any]]:
    """Worker: boards [first, first + n) of the deal file ``job["deals"]``, ``us`` against
    ``them`` with agents seeded by ``job["seed"]``; the boards' results as JSON. Board k of the
    set is board k whichever chunk plays it (dealer, vulnerability and agent seeds do not depend
    on ``--workers``). Raises :class:`PolicyChangedError` where a side's policy file is not the
    one of ``job["policies"]``, before or after it played."""
    from bridgebot.tournament.ddmatch import play_dd_boards, seated_agents
    from bridgebot.tournament.seatings import seatings

    deals = [
        cycle_board(d.number + job["offset"], d.deal, d.dd)
        for d in load_npz(Path(job["deals"]), boards=job["n"], first=job["first"])
    ]
    by_board = {d.number: d for d in deals}
    check_policies(job, "before")

    def factory(spec: str, seed: int = 0) -> Agent:
        return Yardstick(by_board) if spec == YARDSTICK else make_agent(spec, seed)

    # Agents' own chatter (bfgbidding prints "Missing json file" on stdout) stays off the table.
    with (
        contextlib.redirect_stdout(sys.stderr),
        seated_agents(factory, job["us"], job["them"], seatings("team"), job["seed"]) as agents,
    ):
        results = play_dd_boards(deals, "team", job["us"], job["them"], agents)
    check_policies(job, "while it played")
    return [b.model_dump(mode="json") for b in results]


def run_rows(
    pairs: Sequence[tuple[str, str]],
    deals_path: Path,
    first: int,
    boards: int,
    workers: int,
    seed: int,
    chunk: int,
    *,
    name: str,
) -> dict[tuple[str, str], list[BoardResult]]:
    """Every (us, them) match over ``boards`` boards of ``deals_path`` from deal ``first``, in
    chunks of ``chunk`` boards spread over ``workers`` processes, agents seeded by ``seed``; a
    progress line per chunk on stderr, headed ``name`` (the script's).

    Each chunk checks, before and after it plays, that both sides' policy files are the ones
    the run started with (:func:`check_policies`); raises :class:`PolicyChangedError` if not."""
    prints = {spec: fingerprint(spec) for pair in pairs for spec in pair}
    jobs = [
        {"us": us, "them": them, "deals": str(deals_path), "first": first + s,
         "n": min(chunk, boards - s), "offset": s, "seed": seed,
         "policies": [prints[us], prints[them]]}
        for us, them in pairs
        for s in range(0, boards, chunk)
    ]  # fmt: skip
    out: dict[tuple[str, str], list[BoardResult]] = {p: [] for p in pairs}
    done, t0 = 0, time.monotonic()

    def take(job: dict[str, Any], part: list[dict[str, Any]]) -> None:
        nonlocal done
        out[(job["us"], job["them"])] += [BoardResult.model_validate(b) for b in part]
        done += job["n"]
        print(
            f"{name}: {done}/{len(pairs) * boards} boards ({job['us']} vs {job['them']} "
            f"[{job['offset']}, +{job['n']}) done, {time.monotonic() - t0:.0f} s)",
            file=sys.stderr,
            flush=True,
        )

    if workers == 1:
        for job in jobs:
            take(job, play_chunk(job))
    else:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            for job, part in zip(jobs, pool.map(play_chunk, jobs), strict=True):
                take(job, part)
    return out


# -- a row's figures -------------------------------------------------------------------------------


def paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of the per-board differences ``a - b``."""
    return mean_stderr([x - y for x, y in zip(a, b, strict=True)])


def _estimate(values: Sequence[float]) -> dict[str, float]:
    per_board, se = mean_stderr(values)
    return {"imps": float(sum(values)), "per_board": per_board, "se": se}


def rate(part: int, whole: int) -> tuple[float, float]:
    """The share ``part / whole`` and its binomial standard error (NaN for both where ``whole`` is
    0): each slam chance, and each slam bid, counts as one trial."""
    if not whole:
        return math.nan, math.nan
    p = part / whole
    return p, math.sqrt(p * (1 - p) / whole)


def side_rates(side: dict[str, Any]) -> dict[str, float | None]:
    """A side's slam on chance and making rates, with their standard errors (None where the side
    had no chance, or bid no slam)."""
    chance, chance_se = rate(side["bid_on_chance"], side["chances"])
    making, making_se = rate(side["slams_made"], side["slams"])
    figures = {
        "slam_on_chance": chance, "slam_on_chance_se": chance_se,
        "making": making, "making_se": making_se,
    }  # fmt: skip
    return {k: None if math.isnan(v) else v for k, v in figures.items()}


def row_figures(
    us: str, them: str, boards: Sequence[BoardResult], deals: Sequence[BoardDeal]
) -> dict[str, Any]:
    """One row: the match's IMPs, both sides' slam figures, the boards with a slam in one room."""
    tables = []
    for d in deals:
        if d.dd is None:
            raise BoardSetError(f"board {d.number} has no DD table")
        tables.append(d.dd)
    figures = slam_figures(boards, tables)
    teams: dict[str, TeamSlams] = figures.teams
    imps_mean, imps_se = mean_stderr(figures.imps)
    return {
        "us": us,
        "them": them,
        "boards": len(boards),
        "imps_per_board": imps_mean,
        "stderr": imps_se,
        "one_room_slam": {"boards": sum(figures.one_room), **_estimate(figures.one_room_imps)},
        "sides": {
            team: {**side, "rates": side_rates(side)}
            for team, side in ((US, teams[US].as_dict()), (THEM, teams[THEM].as_dict()))
        },
        "per_board": {
            "imps": figures.imps,
            "one_room_slam": figures.one_room_imps,
            **{
                f"{kind}_{team}": getattr(teams[team], kind)
                for team in (US, THEM)
                for kind in ("missed", "failed", "rest", "total")
            },
        },
    }


def match_figures(
    candidate: str, opponent: str, boards: Sequence[BoardResult], wall_s: float
) -> dict[str, Any]:
    """A row from the played ``boards`` of a team match: IMPs/board, its standard error, the
    doubled-contract cost by side, the per-board IMPs (``imps``) and the time it took."""
    imps = np.array([b.imps for b in boards], dtype=float)
    costs = doubled_costs(boards)
    return {
        "candidate": candidate,
        "opponent": opponent,
        "boards": len(imps),
        "imps_per_board": float(imps.mean()),
        "stderr": mean_stderr(imps.tolist())[1],
        "doubled": {
            side: {
                "declared": c.declared,
                "failed": c.failed,
                "imps": c.imps,
                "imps_per_board": c.imps_per_board,
            }
            for side, c in costs.items()
        },
        "imps": [int(v) for v in imps],
        "wall_s": wall_s,
    }


# -- the slam table --------------------------------------------------------------------------------


def _pct_se(part: int, whole: int) -> str:
    """``27% ± 3``: a share in percent with its standard error in points."""
    p, se = rate(part, whole)
    return "-" if math.isnan(p) else f"{100 * p:.0f}% ± {100 * se:.0f}"


def _pm(x: dict[str, Any]) -> str:
    se = x["se"]
    return f"{x['per_board']:+.2f}" + ("" if math.isnan(se) else f" ± {se:.2f}")


HEADER = (
    f"  {'pair':<30} {'IMPs/board':>14}  {'chances':>9}  {'slam on chance':>16}  {'slams':>5}  "
    f"{'making':>8}  {'grands':>6}  {'missed slams':>13}  {'failed slams':>13}  {'rest':>13}"
)


def side_line(name: str, side: dict[str, Any], imps: str) -> str:
    """One pair's figures in the table: counts, then IMPs/board given up by kind."""
    return (
        f"  {name[:30]:<30} {imps:>14}  {side['chances']:>4}/{side['grand_chances']:<4}  "
        f"{side['bid_on_chance']:>5} ({_pct_se(side['bid_on_chance'], side['chances']):>8})  "
        f"{side['slams']:>5}  {_pct_se(side['slams_made'], side['slams']):>8}  "
        f"{side['grands']:>2} ({side['grands_made']:>1})  {_pm(side['missed']):>13}  "
        f"{_pm(side['failed']):>13}  {_pm(side['rest']):>13}"
    )


def _misplaced(side: dict[str, Any]) -> str:
    """How many of a pair's slams failed, and how many of those its cards make in another strain
    or with the other declarer."""
    failed = side["slams"] - side["slams_made"]
    return f"{failed}, {side.get('slams_misplaced', 0)} making in another strain or hand"


def show_row(r: dict[str, Any]) -> list[str]:
    """The table's lines for one row: our pair, the opponents' pair, the one-room slams."""
    ours = f"{r['imps_per_board']:+.2f} ± {r['stderr']:.2f}"
    one = r["one_room_slam"]
    sides = r["sides"]
    return [
        side_line(r["us"], sides[US], ours),
        side_line(f"  ({r['them']})", sides[THEM], ""),
        f"  {'':<30} failed slams: ours {_misplaced(sides[US])}; theirs {_misplaced(sides[THEM])}",
        f"  {'':<30} boards with a slam in one room only: {one['boards']}, {one['imps']:+.0f} "
        f"IMPs for {r['us']}, {_pm(one)} per board",
    ]
