"""Cross-table: one candidate bidder against every opponent, on the same deals, DD-scored.

Each row is a team match (``tournament.ddmatch``, both rooms, pairs swapped) of the candidate
against one opponent spec, every row on the same boards (paired), with its mean IMPs/board, the
standard error, and the doubled-contract cost by side (``tournament.doubled``: contracts declared
doubled, how many went down, the side's IMPs on those boards). Candidates are chosen by their
WORST row on a validation set, never by the bfg row alone.

Rows are journaled in ``--journal`` (one JSON line per finished row, keyed by candidate, opponent,
deal file and board range, and counted only for the same policy files and settings: each row
holds both sides' policy sha256 and settings digest, ``dd_rows.row_marks``), so a rerun of the
same command skips rows already done, and plays again a row of another model or another default
under the same spec text.

    python benchmarks/bench_crosstable.py --candidate default --deals data/val_9001.npz \\
        --opponents "bfg;bfg,doubles=on;policy:models/default;default,doubles=on" \\
        --journal out/xt.jsonl --json out/xt.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling scripts
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from bridgebot.laws.board_sets import load_npz
from bridgebot.tournament.ddmatch import run_dd_match
from dd_rows import (
    append_journal,
    counted_rows,
    match_figures,
    read_journal,
    row_marks,
    side_marks,
)

from bridgebot.agents import make_agent

DEFAULT_OPPONENTS = "bfg;bfg,doubles=on;default;default,doubles=on"


def row(candidate: str, opponent: str, deals: list[Any]) -> dict[str, Any]:
    """One row of the table: the candidate against ``opponent`` on ``deals``."""
    t = time.perf_counter()
    result = run_dd_match(candidate, opponent, deals, make_agent=make_agent)
    return match_figures(candidate, opponent, result.boards, time.perf_counter() - t)


def show(r: dict[str, Any]) -> str:
    d = r["doubled"]
    worst = r["imps_per_board"] + 2 * r["stderr"]
    return (
        f"{r['opponent']:<34} {r['imps_per_board']:+.3f} se {r['stderr']:.3f}"
        f"{'  BELOW 0' if worst < 0 else ''}  | doubled us {d['us']['failed']}/"
        f"{d['us']['declared']} {d['us']['imps_per_board']:+.2f}/bd, them "
        f"{d['them']['failed']}/{d['them']['declared']} {d['them']['imps_per_board']:+.2f}/bd"
        f"  ({r['wall_s']:.0f}s)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--candidate", action="append", required=True, help="agent spec (repeatable)")
    ap.add_argument("--opponents", default=DEFAULT_OPPONENTS, help="';'-separated agent specs")
    ap.add_argument("--deals", required=True, help="DD deal file (.npz)")
    ap.add_argument("--first", type=int, default=0, help="first deal used")
    ap.add_argument("--boards", type=int, default=None, help="boards (default: all from --first)")
    ap.add_argument("--journal", default=None, help="JSONL of finished rows (resume)")
    ap.add_argument("--json", default=None, help="write the whole table here")
    args = ap.parse_args()
    if not Path(args.deals).exists():
        sys.exit(f"{args.deals}: no such deal file; make one with "
                 f"`bridgebot ddgen --seed N --deals M --out {args.deals}` (docs/data.md)")  # fmt: skip
    deals = load_npz(Path(args.deals), boards=args.boards, first=args.first)
    key = {"deals": str(args.deals), "first": args.first, "boards": len(deals)}
    journal = Path(args.journal) if args.journal else None
    specs = {*args.candidate, *filter(None, (o.strip() for o in args.opponents.split(";")))}
    marks = side_marks(specs)
    done = counted_rows(read_journal(journal, key), marks)
    table: dict[str, list[dict[str, Any]]] = {}
    for cand in args.candidate:
        print(f"candidate {cand} on {args.deals} [{args.first}, +{len(deals)})")
        rows = []
        for opp in filter(None, (o.strip() for o in args.opponents.split(";"))):
            r = done.get((cand, opp))
            if r is None:
                r = {**row(cand, opp, deals), **key}
                r.update(row_marks(marks, cand, opp))
                append_journal(journal, r)
            rows.append(r)
            print("  " + show(r), flush=True)
        worst = min(rows, key=lambda r: r["imps_per_board"])
        print(f"  worst row: {worst['opponent']} {worst['imps_per_board']:+.3f}")
        table[cand] = rows
    if args.json:
        slim = {
            c: [{k: v for k, v in r.items() if k != "imps"} for r in rs] for c, rs in table.items()
        }
        Path(args.json).write_text(json.dumps({**key, "table": slim}, indent=1) + "\n")


if __name__ == "__main__":
    main()
