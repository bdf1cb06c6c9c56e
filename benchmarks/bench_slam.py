"""Slam benchmark: the slams each pair finds, misses and fails, against any opponent, DD-scored.

Every row is a double-dummy team match (``tournament.ddmatch``: both rooms, pairs swapped, final
contracts scored from the board's DD table) of one of our agents against one opponent spec, all
rows on the same deals. For each side of the table, our pair and the opponents' pair
(``tournament.slams``, whose docstring defines every figure), it reports:

- slam chances (the side makes 12+ tricks DD in some strain with either declarer) and grand
  chances (13); slams bid on a slam chance; slams bid and how many make DD; grands bid (making);
  of the slams that fail, how many its cards make in another strain or with the other declarer;
- the IMPs per board its final contracts give up against the best contract its side could reach
  double dummy (the best making undoubled contract above the other side's last bid, or passing
  it), split into missed slams, failed slams and the rest, with standard errors;
- and for our pair, the IMPs per board on the boards where only one room bid a slam.

The two rates (slam on chance, making) print with their binomial standard errors in points: at
2,000 deals a making rate near 75% on 80-odd slams is known to about 5 points, a slam rate near
30% of 250 chances to about 3. With more than one opponent, the table ends with each of our
pairs' lowest row in IMPs/board, slam on chance and making: a bar that must hold "in each row"
holds where that line meets it.

The baseline (``--baseline``, the shipped ``default``) and the candidate (``--candidate``) each
play every opponent on the same boards; the candidate's rows print the difference from the
baseline's (paired standard errors). ``--yardstick`` adds, reported apart, a row against a pair
that sees all four hands and the DD table and bids its side's best contract directly (this
benchmark's own agent, for evaluation only: it is no agent spec and never ships).

    python benchmarks/bench_slam.py --deals data/slam_9101.npz --opponents "bfg;bfg,doubles=on" \\
        --yardstick --workers 2 --json out/slam.json
    python benchmarks/bench_slam.py --deals data/val_9001.npz --candidate policy:runs/slam/onnx \\
        --opponents "bfg;bfg,doubles=on;policy:runs/exploiter_gen5b/onnx" --yardstick
    python benchmarks/bench_slam.py --deals data/test_9003.npz --boards 300 --baseline default \\
        --candidate search --opponents "bfg;bfg,doubles=on"

Progress goes to stderr, the table to stdout, every figure (and per-board IMPs) to ``--json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from bridgebot.core.stats import mean_stderr
from bridgebot.engine.agent import Agent, AgentSpecError, BiddingView, PlayView
from bridgebot.laws.board_sets import BoardSetError, load_npz
from bridgebot.laws.boards import BoardDeal, cycle_board, side_vulnerable
from bridgebot.laws.calls import PASS, auction_over, bid_rank, final_contract
from bridgebot.laws.scoring import STRAIN_ORDER, score_array
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
from bridgebot.marks import settings_digest  # a row of a default since changed is played again

YARDSTICK = "yardstick"
DEFAULT_OPPONENTS = "bfg;bfg,doubles=on"


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


def policy_file(spec: str) -> Path | None:
    """The policy file a spec bids with (:func:`bridgebot.marks.policy_file`); None for the
    yardstick, which has none."""
    return None if spec == YARDSTICK else marks.policy_file(spec)


def fingerprint(spec: str) -> str | None:
    """The sha256 of ``spec``'s policy file (None without one: :func:`bridgebot.marks.fingerprint`):
    a journaled row counts only for the model that played it."""
    return None if spec == YARDSTICK else marks.fingerprint(spec)


def side_marks(specs: Iterable[str]) -> dict[str, tuple[str | None, str]]:
    """Per spec, its policy sha256 (:func:`fingerprint`) and settings digest
    (:func:`settings_digest`), read once for a run's journal."""
    return {spec: (fingerprint(spec), settings_digest(spec)) for spec in specs}


def row_marks(
    marks: Mapping[str, tuple[str | None, str]], us: str, them: str
) -> dict[str, list[str | None]]:
    """What a journaled row of ``us`` against ``them`` counts for, as its ``policies`` and
    ``settings`` fields: a row whose fields differ (another model, another default, or a row made
    before it held them) is played again."""
    return {
        "policies": [marks[us][0], marks[them][0]],
        "settings": [marks[us][1], marks[them][1]],
    }


def counted_rows(
    rows: Mapping[tuple[str, str], dict[str, Any]], marks: Mapping[str, tuple[str | None, str]]
) -> dict[tuple[str, str], dict[str, Any]]:
    """The journaled ``rows`` (by (us, them)) that count for this run: both sides among
    ``marks`` (:func:`side_marks`) and the row's :func:`row_marks` fields theirs."""
    return {
        (us, them): r
        for (us, them), r in rows.items()
        if us in marks
        and them in marks
        and all(r.get(k) == v for k, v in row_marks(marks, us, them).items())
    }


class PolicyChangedError(RuntimeError):
    """A policy file changed while a benchmark chunk read it: its rows would mix two models."""


def check_policies(job: Mapping[str, Any], when: str) -> None:
    """Raise :class:`PolicyChangedError` where ``job``'s ``policies`` (the sha256 of each side's
    policy file when the run started, :func:`fingerprint`) no longer match the files on disk."""
    for spec, want in zip((job["us"], job["them"]), job.get("policies") or (), strict=False):
        got = fingerprint(spec)
        if want is not None and got != want:
            raise PolicyChangedError(
                f"{spec}: its policy file {policy_file(spec)} changed {when} boards "
                f"[{job['offset']}, +{job['n']}) (sha256 {str(got)[:12]}, the run started with "
                f"{want[:12]}): nothing may change a model directory while a benchmark reads it"
            )


def _chunk(job: dict[str, Any]) -> list[dict[str, Any]]:
    """Worker: boards [first, first + n) of the deal file, ``us`` against ``them``; the boards'
    results as JSON. Board k of the set is board k whichever chunk plays it (dealer,
    vulnerability and agent seeds do not depend on ``--workers``)."""
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


def _paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
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


def show_delta(r: dict[str, Any], base: dict[str, Any]) -> str:
    """The candidate's row minus the baseline's on the same boards (paired standard errors)."""
    a, b = r["per_board"], base["per_board"]
    imps, imps_se = _paired(a["imps"], b["imps"])
    missed, missed_se = _paired(a[f"missed_{US}"], b[f"missed_{US}"])
    one, one_se = _paired(a["one_room_slam"], b["one_room_slam"])
    sa, sb = r["sides"][US], base["sides"][US]
    rate = sa["bid_on_chance"] / max(sa["chances"], 1) - sb["bid_on_chance"] / max(sb["chances"], 1)
    ratio = f"{sa['slams'] / sb['slams']:.2f}x" if sb["slams"] else "-"
    return (
        f"  {r['us']} minus {base['us']}: {imps:+.2f} ± {imps_se:.2f} IMPs/board; missed slams "
        f"{missed:+.2f} ± {missed_se:.2f}; one-room slam boards {one:+.2f} ± {one_se:.2f} (paired); "
        f"slam on chance {100 * rate:+.0f} points; slams bid {ratio}"
    )


def lowest_rows(rows: Mapping[tuple[str, str], dict[str, Any]], us: str) -> str:
    """Our pair ``us``'s lowest row (yardstick apart) in IMPs/board, slam on chance and making:
    a bar that holds "in each row" holds where these hold."""
    real = [r for (ours, them), r in rows.items() if ours == us and them != YARDSTICK]

    def low(key: Callable[[dict[str, Any]], float | None], text: str) -> str:
        values = [(v, r["them"]) for r in real if (v := key(r)) is not None]
        if not values:
            return "-"
        v, them = min(values)
        return f"{text.format(v)} ({them})"

    return (
        f"  {us}, its lowest of {len(real)} rows: "
        f"{low(lambda r: r['imps_per_board'], '{:+.2f} IMPs/board')}; slam on chance "
        f"{low(lambda r: r['sides'][US]['rates']['slam_on_chance'], '{:.0%}')}; making "
        f"{low(lambda r: r['sides'][US]['rates']['making'], '{:.0%}')}"
    )


def run_rows(
    pairs: Sequence[tuple[str, str]],
    deals_path: Path,
    first: int,
    boards: int,
    workers: int,
    seed: int,
    chunk: int,
) -> dict[tuple[str, str], list[BoardResult]]:
    """Every (us, them) match over the boards, in chunks spread over ``workers`` processes.

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
            f"bench_slam: {done}/{len(pairs) * boards} boards ({job['us']} vs {job['them']} "
            f"[{job['offset']}, +{job['n']}) done, {time.monotonic() - t0:.0f} s)",
            file=sys.stderr,
            flush=True,
        )

    if workers == 1:
        for job in jobs:
            take(job, _chunk(job))
    else:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            for job, part in zip(jobs, pool.map(_chunk, jobs), strict=True):
                take(job, part)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=Path, required=True, help="DD deal file (.npz, docs/data.md)")
    ap.add_argument("--first", type=int, default=0, help="first deal used (default 0)")
    ap.add_argument("--boards", type=int, default=None, help="boards (default: all from --first)")
    ap.add_argument("--baseline", default="default", help="the baseline spec (default: default)")
    ap.add_argument("--candidate", default=None, help="the spec under test, e.g. policy:DIR")
    ap.add_argument(
        "--opponents", default=DEFAULT_OPPONENTS, help=f"';'-separated specs ({DEFAULT_OPPONENTS})"
    )
    ap.add_argument("--yardstick", action="store_true", help="add the DD yardstick's row, apart")
    ap.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--chunk", type=int, default=100, help="boards per job (default 100)")
    ap.add_argument("--seed", type=int, default=1, help="agents' seed (default 1)")
    ap.add_argument("--json", type=Path, default=None, help="write every figure here")
    args = ap.parse_args(argv)
    if args.workers < 1 or args.chunk < 1 or args.first < 0 or (args.boards or 1) < 1:
        print(
            "bench_slam: --workers, --chunk and --boards must be >= 1, --first >= 0",
            file=sys.stderr,
        )
        return 2
    opponents = [o.strip() for o in args.opponents.split(";") if o.strip()]
    if YARDSTICK in opponents or YARDSTICK in (args.baseline, args.candidate):
        print(
            "bench_slam: the yardstick is no spec; ask for its row with --yardstick",
            file=sys.stderr,
        )
        return 2
    try:
        deals = load_npz(args.deals, boards=args.boards, first=args.first)
        if args.boards is not None and len(deals) < args.boards:  # a benchmark's size is exact
            raise BoardSetError(
                f"{args.deals}: {args.boards} boards asked for, {len(deals)} from deal {args.first}"
            )
    except (BoardSetError, FileNotFoundError) as exc:
        print(f"bench_slam: {exc} (make one with `bridgebot ddgen`, docs/data.md)", file=sys.stderr)
        return 2
    ours = [args.baseline] + (
        [args.candidate] if args.candidate not in (None, args.baseline) else []
    )
    rows_of = opponents + ([YARDSTICK] if args.yardstick else [])
    if not rows_of:
        print("bench_slam: no opponent (--opponents or --yardstick)", file=sys.stderr)
        return 2
    try:  # build each agent once, so that a bad spec or a missing model stops here
        for spec in ours + opponents:
            with contextlib.redirect_stdout(sys.stderr), make_agent(spec):
                pass
    except AgentSpecError as exc:
        print(f"bench_slam: {exc}", file=sys.stderr)
        return 2
    pairs = [(us, them) for them in rows_of for us in ours]
    played = run_rows(
        pairs, args.deals, args.first, len(deals), args.workers, args.seed, args.chunk
    )
    rows = {p: row_figures(*p, played[p], deals) for p in pairs}

    print(
        f"slam benchmark: {args.deals} deals [{args.first}, +{len(deals)}), team matches DD-scored"
    )
    print("IMPs/board: the match; chances: slam/grand chances; the last three: IMPs/board the")
    print("pair's contracts gave up against the best contract its side could reach (DD), ± se")
    for them in rows_of:
        if them == YARDSTICK:
            print("\nagainst the yardstick (sees all hands; evidence apart from the real bidders):")
        print(f"\nvs {them}")
        print(HEADER)
        for us in ours:
            print("\n".join(show_row(rows[(us, them)])))
        if len(ours) > 1:
            print(show_delta(rows[(ours[1], them)], rows[(ours[0], them)]))
    if len(opponents) > 1:
        print()
        for us in ours:
            print(lowest_rows(rows, us))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        out = {
            "deals": str(args.deals), "first": args.first, "boards": len(deals),
            "baseline": args.baseline, "candidate": args.candidate, "seed": args.seed,
            "rows": [rows[p] for p in pairs],
        }  # fmt: skip
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
