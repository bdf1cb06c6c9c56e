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
The rows are played, figured and shown by ``dd_rows.py``, the library the row benchmarks share.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling scripts
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from bridgebot.engine.agent import AgentSpecError
from bridgebot.laws.board_sets import BoardSetError, load_npz
from bridgebot.tournament.seatings import US
from dd_rows import HEADER, YARDSTICK, paired, row_figures, run_rows, show_row

from bridgebot.agents import make_agent

DEFAULT_OPPONENTS = "bfg;bfg,doubles=on"


def show_delta(r: dict[str, Any], base: dict[str, Any]) -> str:
    """The candidate's row minus the baseline's on the same boards (paired standard errors)."""
    a, b = r["per_board"], base["per_board"]
    imps, imps_se = paired(a["imps"], b["imps"])
    missed, missed_se = paired(a[f"missed_{US}"], b[f"missed_{US}"])
    one, one_se = paired(a["one_room_slam"], b["one_room_slam"])
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
        pairs,
        args.deals,
        args.first,
        len(deals),
        args.workers,
        args.seed,
        args.chunk,
        name="bench_slam",
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
