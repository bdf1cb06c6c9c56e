"""The report: a model one would ship against WBridge5's system, on fresh deals, read once.

Issue 43, "Done when". The deals are fresh for each model: ``bridgebot ddgen`` with the seed that
is the first eight hex digits of the sha256 of the candidate's ``policy.onnx`` read as an integer
(``--boards``, 2,000 by default, into ``--deals-dir``; made here when the file is missing, and the
command printed). On them, team matches scored double dummy (``bench_field.play_rows``) of the
candidate (default: the shipped ``default``, the spec with no options) against
``epbot:WBridge5-Sayc`` and ``epbot:WBridge5-21GF`` (EPBot's pair assumes WBridge5-Sayc for its
opponents: the agent's default), and with ``--all`` the 16 training cards and bfg; the slam
figures against WBridge5-Sayc (``dd_rows``' slam table: the boards with a slam in one room only).

It prints a markdown table (IMPs/board ± standard error per row) and checks the issue's bars,
PASS or FAIL each:

- each WBridge5 row: at least +0.5 IMPs/board and more than two standard errors above zero;
- (``--all``) the mean of the 16 cards (paired) at least +0.4, and no card below zero by more
  than two standard errors; bfg at least +1.0;
- the boards with a slam in one room only, against WBridge5-Sayc: IMPs/board (over all boards)
  no worse than 0.

Every read is appended to ``--log`` (one JSON line: when, the commit, the candidate, the policy's
sha256, the seed, every row and every bar), so that every read of a test set goes in the note;
the script says how often this policy's deals were read before. The log's default is in the state
folder, ``$BRIDGEBOT_RUNS/field_reads.jsonl`` (``core.runs.reads_log``), outside the work tree, so
the reads of earlier sessions count too. Rows are journaled
(``--journal``, default next to the deals) so that a killed read resumes with the same command.

    BRIDGEBOT_EPBOT=/path/to/epbot python benchmarks/report_field.py --all --workers 2
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling scripts
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from bench_field import (
    BFG,
    FIELD,
    card_spec,
    check_specs,
    load_deals,
    mean_of_rows,
    play_rows,
    pm,
)
from bridgebot.core.errors import UserError
from bridgebot.core.files import file_sha256
from bridgebot.core.runs import reads_log
from bridgebot.engine.agent import AgentSpecError
from bridgebot.engine.epbot_cards import REPORT_CARDS
from bridgebot.laws.board_sets import BoardSetError, load_npz
from dd_rows import HEADER, policy_file, show_row

#: The report rows: EPBot with each report card, assuming WBridge5-Sayc for its opponents.
REPORT = tuple(card_spec(c) for c in REPORT_CARDS)
SAYC = REPORT[0]
#: The issue's bars.
WBRIDGE5_MIN, CARDS_MEAN_MIN, BFG_MIN, ONE_ROOM_MIN = 0.5, 0.4, 1.0, 0.0


def deal_seed(policy: Path) -> int:
    """The report's ``ddgen`` seed: the first eight hex digits of the policy file's sha256."""
    return int(file_sha256(policy)[:8], 16)


def ddgen_command(seed: int, boards: int, out: Path) -> list[str]:
    """The ``bridgebot ddgen`` command that makes the report's deals."""
    return ["bridgebot", "ddgen", "--seed", str(seed), "--boards", str(boards), "--out", str(out)]


def make_deals(command: Sequence[str], workers: int) -> None:
    """Run ``command`` (``ddgen_command``) with ``workers`` solver processes; UserError where it
    fails (ddgen said why on stderr)."""
    Path(command[-1]).parent.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "bridgebot", *command[1:], "--workers", str(workers), "--quiet"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    sys.stderr.write(done.stdout + done.stderr)
    if done.returncode != 0:
        raise UserError(f"`{' '.join(command)}` failed (its message is above)")


def bars(rows: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, str, bool]]:
    """The issue's bars that ``rows`` (by opponent) can be read against: (bar, figure, passed)."""
    out = []
    for spec in REPORT:
        r = rows[spec]
        m, se = r["imps_per_board"], r["stderr"]
        out.append(
            (f"{spec} >= +{WBRIDGE5_MIN} and > 2 s.e.", pm(m, se), m >= WBRIDGE5_MIN and m > 2 * se)
        )
    cards = [rows[s] for s in FIELD if s != BFG and s in rows]
    if cards:
        m, se = mean_of_rows(cards)
        out.append(
            (f"mean of the {len(cards)} cards >= +{CARDS_MEAN_MIN}", pm(m, se), m >= CARDS_MEAN_MIN)
        )
        low = min(cards, key=lambda r: r["imps_per_board"] + 2 * r["stderr"])
        lm, lse = low["imps_per_board"], low["stderr"]
        out.append(
            ("no card below 0 by > 2 s.e.", f"{low['opponent']} {pm(lm, lse)}", lm + 2 * lse >= 0)
        )
    if BFG in rows:
        m, se = rows[BFG]["imps_per_board"], rows[BFG]["stderr"]
        out.append((f"bfg >= +{BFG_MIN}", pm(m, se), m >= BFG_MIN))
    one = rows[SAYC]["one_room_slam"]
    out.append(
        (f"slam in one room only vs {SAYC} >= {ONE_ROOM_MIN}",
         f"{pm(one['per_board'], one['se'])} ({one['boards']} boards)", one["per_board"] >= ONE_ROOM_MIN)
    )  # fmt: skip
    return out


def markdown(
    rows: Mapping[str, Mapping[str, Any]], checked: Sequence[tuple[str, str, bool]]
) -> str:
    """The report's table of rows, then its table of bars."""
    lines = ["| row | IMPs/board | boards with a slam in one room only |", "| --- | --- | --- |"]
    for spec, r in rows.items():
        one = r["one_room_slam"]
        lines.append(
            f"| `{spec}` | {pm(r['imps_per_board'], r['stderr'])} | {one['boards']}: "
            f"{pm(one['per_board'], one['se'])} per board |"
        )
    lines += ["", "| bar | figure | |", "| --- | --- | --- |"]
    lines += [f"| {bar} | {fig} | {'PASS' if ok else 'FAIL'} |" for bar, fig, ok in checked]
    return "\n".join(lines)


def commit() -> str | None:
    """The checkout's commit, where git can say (a read is logged with it)."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False,
            cwd=Path(__file__).resolve().parent,
        )  # fmt: skip
    except OSError:
        return None
    return done.stdout.strip() or None


def reads_before(log: Path, sha: str) -> int:
    """How many reads of the policy with sha256 ``sha`` ``log`` holds."""
    if not log.exists():
        return 0
    return sum(
        json.loads(line).get("policy_sha256") == sha
        for line in log.read_text().splitlines()
        if line.strip()
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--candidate", default="default", help="the spec read (default: default)")
    ap.add_argument(
        "--policy", type=Path, default=None, help="its policy.onnx (default: the spec's)"
    )
    ap.add_argument("--boards", type=int, default=2000, help="boards (default 2000)")
    ap.add_argument("--all", action="store_true", help="also the 16 training cards and bfg")
    ap.add_argument(
        "--deals-dir", type=Path, default=Path("data"), help="where the deals go (data)"
    )
    ap.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--chunk", type=int, default=250, help="boards per job (default 250)")
    ap.add_argument(
        "--journal", type=Path, default=None, help="JSONL of rows (default: by the deals)"
    )
    ap.add_argument(
        "--log", type=Path, default=reads_log(), help="every read (default: %(default)s)"
    )
    args = ap.parse_args(argv)
    try:
        if args.workers < 1 or args.chunk < 1 or args.boards < 1:
            raise UserError("--workers, --chunk and --boards must be >= 1")
        policy = args.policy or policy_file(args.candidate)
        if policy is None:
            raise UserError(f"{args.candidate} has no policy file: give --policy FILE")
        if not policy.is_file():
            raise UserError(f"{policy}: no such policy file")
        sha = file_sha256(policy)
        seed = deal_seed(policy)
        deals_path = args.deals_dir / f"field_{seed}.npz"
        command = ddgen_command(seed, args.boards, deals_path)
        print(f"policy {policy} sha256 {sha}\nseed {seed} (0x{sha[:8]}): {' '.join(command)}")
        before = reads_before(args.log, sha)
        if before:
            print(f"NOTE: this policy's deals were read {before} time(s) before ({args.log})")
        opponents = [*REPORT, *(FIELD if args.all else ())]
        check_specs([args.candidate, *opponents])
        if not deals_path.exists() or len(load_npz(deals_path)) < args.boards:
            make_deals(command, args.workers)  # ddgen continues a shorter file of the same seed
        deals = load_deals(deals_path, 0, args.boards)
    except (UserError, AgentSpecError, BoardSetError, FileNotFoundError) as exc:
        print(f"report_field: {exc}", file=sys.stderr)
        return 2
    journal = args.journal or deals_path.with_suffix(".jsonl")
    played = play_rows(
        [args.candidate], opponents, deals_path, 0, deals, workers=args.workers,
        chunk=args.chunk, seed=1, journal=journal,
    )  # fmt: skip
    rows = {them: played[(args.candidate, them)] for them in opponents}
    checked = bars(rows)
    print(f"\n{args.candidate} on {deals_path} ({len(deals)} boards, team matches DD-scored)\n")
    print(markdown(rows, checked))
    print(f"\nslams against {SAYC}:\n{HEADER}\n" + "\n".join(show_row(rows[SAYC])))
    entry = {
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": commit(), "candidate": args.candidate, "policy": str(policy),
        "policy_sha256": sha, "seed": seed, "deals": str(deals_path), "boards": len(deals),
        "rows": {s: [r["imps_per_board"], r["stderr"]] for s, r in rows.items()},
        "one_room_slam_vs_sayc": rows[SAYC]["one_room_slam"],
        "bars": {bar: "PASS" if ok else "FAIL" for bar, _, ok in checked},
    }  # fmt: skip
    args.log.parent.mkdir(parents=True, exist_ok=True)
    with open(args.log, "a") as f:
        f.write(json.dumps(entry) + "\n")
    print(f"\nread {before + 1} of this policy's deals, logged in {args.log}; journal {journal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
