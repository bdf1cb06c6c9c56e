"""The report: a model one would ship against WBridge5's system, on fresh deals, read once.

Issues 43 and 60, "Done when". The deals are fresh for each agent: ``bridgebot ddgen`` with the
seed taken from the candidate's marks (issue 60; :func:`marks_seed`): the first eight hex digits,
read as an integer, of the sha256 of ``{"reads": fingerprint, "settings": settings}`` as JSON
with its keys sorted, where ``fingerprint`` is :func:`bridgebot.marks.fingerprint` (the sha256 of
every file the agent's builder reads, each model and model card, with the versions of the
packages whose code decides) and ``settings`` is :func:`bridgebot.marks.settings` (every option,
defaults included). A change of a model file, of a setting or of a default (the search's alone
included) reads new deals. A setting that names a file or folder (the spec's path, ``ddnet``'s
directory) is hashed under :func:`bridgebot.shipped.record_name`, so a shipped model gets the
same seed in every checkout; a model outside the package is named by its resolved path there
(and in the fingerprint), so read a candidate where it will stay, or ship it first.
``--boards`` (2,000 by default) go into ``--deals-dir``, made here when the file is missing (the
command printed).

``--policy FILE`` seeds by issue 43's rule instead: the first eight hex digits of FILE's sha256.
It is kept to read again the deals of a read made before issue 60 (with the policy file that
read them), and so that a smoke run (``benchmarks/smoke.py``, ``--policy LICENSE``) never reads
a report's deals; the agent read is ``--candidate`` all the same.

On the deals, team matches scored double dummy (``bench_field.play_rows``) of the candidate
(default: the shipped ``default``, the spec with no options) against ``epbot:WBridge5-Sayc`` and
``epbot:WBridge5-21GF`` (EPBot's pair assumes WBridge5-Sayc for its opponents: the agent's
default), and with ``--all`` the 16 training cards and bfg; the slam figures against
WBridge5-Sayc (``dd_rows``' slam table: the boards with a slam in one room only). With ``--over
SPEC``, SPEC plays the same rows on the same deals with the same agents' seed, and each row also
prints the candidate minus SPEC, per board (``dd_rows.paired``).

It prints a markdown table (IMPs/board ± standard error per row) and checks one issue's bars
(``--bars``, 60 by default), PASS or FAIL each. An IMP row's bar passes where the figure is at
least the bar and more than two standard errors above zero:

- each WBridge5 row at least ``--wbridge5-min`` IMPs/board: by default +0.6 under issue 60
  (+0.9 for a ``search`` candidate), +0.5 under issue 43;
- (``--all``) the mean of the 16 cards (paired) at least +0.6 (issue 43: +0.4), and no card
  below +0.3 (issue 43: 0) by more than two standard errors (the card's figure plus two
  standard errors at least that); bfg at least +1.5 (issue 43: +1.0);
- the boards with a slam in one room only, against WBridge5-Sayc: IMPs/board (over all boards)
  no worse than 0;
- for a ``search`` candidate ``--over default`` (the shipped one, every setting at its
  default): at least +0.3 over it on each WBridge5 row, paired, and more than two standard
  errors above zero (both issues).

The mean of the cards and bfg are checked on the figure alone, as issue 43's were.

Every read is appended to ``--log`` (one JSON line: when, the commit, the candidate, its marks'
digest, its policy file's sha256, where the seed came from and the seed, every row, the ``--over``
rows and differences, every bar), so that every read of a test set goes in the note; the script
says how often these deals were read before: the earlier reads whose seed came from the same
marks (or, under ``--policy``, from the same policy file; the entries written before issue 60,
which hold no marks, are such reads). The log's default is in the state folder,
``$BRIDGEBOT_RUNS/field_reads.jsonl`` (``core.runs.reads_log``), outside the work tree, so the
reads of earlier sessions count too. Rows are journaled (``--journal``, default next to the
deals) so that a killed read resumes with the same command.

    BRIDGEBOT_EPBOT=/path/to/epbot python benchmarks/report_field.py --all --workers 2
    BRIDGEBOT_EPBOT=/path/to/epbot python benchmarks/report_field.py --candidate search \\
        --over default --workers 2
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
from dd_rows import HEADER, append_journal, journal_lines, paired, policy_file, show_row

from bridgebot import marks
from bridgebot.specs import AgentSpec

#: The report rows: EPBot with each report card, assuming WBridge5-Sayc for its opponents.
REPORT = tuple(card_spec(c) for c in REPORT_CARDS)
SAYC = REPORT[0]


@dataclass(frozen=True)
class Bars:
    """One issue's bars, in IMPs/board: each WBridge5 row (``wbridge5``; ``wbridge5_search`` for
    a ``search`` candidate), the mean of the 16 cards, the floor no card may be below by more
    than two standard errors, bfg, the boards with a slam in one room only against
    WBridge5-Sayc, and ``search`` over ``default`` on each WBridge5 row, paired."""

    issue: int
    wbridge5: float
    wbridge5_search: float
    cards_mean: float
    cards_floor: float
    bfg: float
    one_room: float
    over_default: float

    def wbridge5_min(self, candidate: str) -> float:
        """The WBridge5 rows' bar for ``candidate`` (a spec that parses)."""
        return self.wbridge5_search if is_search(candidate) else self.wbridge5


#: The bars of each issue's "Done when", by the issue's number.
BARS = {
    43: Bars(43, 0.5, 0.5, 0.4, 0.0, 1.0, 0.0, 0.3),
    60: Bars(60, 0.6, 0.9, 0.6, 0.3, 1.5, 0.0, 0.3),
}

#: Where a read's seed comes from: the candidate's marks (issue 60), or a policy file (issue 43,
#: ``--policy``; every entry logged before issue 60).
FROM_MARKS, FROM_POLICY = "marks", "policy"


def is_search(spec: str) -> bool:
    """Whether ``spec`` is the ``search`` agent (any options)."""
    return AgentSpec.parse(spec).name == "search"


def is_shipped_default(spec: str) -> bool:
    """Whether ``spec`` is the shipped ``default`` with every setting at its default."""
    parsed = AgentSpec.parse(spec)
    return parsed.name == "default" and parsed.settings() == AgentSpec.parse("default").settings()


def canonical_settings(spec: str) -> dict[str, Any]:
    """:func:`bridgebot.marks.settings` of ``spec``, which names each setting that names a file
    or folder by its :func:`bridgebot.shipped.record_name`: the same for a shipped model in
    every checkout."""
    return marks.settings(spec)


def marks_seed(spec: str) -> tuple[int, str]:
    """``spec``'s ``ddgen`` seed and the digest it is taken from: the sha256, in hex, of
    ``{"reads": fingerprint, "settings": settings}`` as JSON with its keys sorted
    (:func:`bridgebot.marks.fingerprint`, :func:`canonical_settings`), and its first eight hex
    digits read as an integer. Raises :class:`AgentSpecError` for a spec that does not build."""
    text = json.dumps(
        {"reads": marks.fingerprint(spec), "settings": canonical_settings(spec)}, sort_keys=True
    )
    digest = hashlib.sha256(text.encode()).hexdigest()
    return int(digest[:8], 16), digest


def deal_seed(policy: Path) -> int:
    """Issue 43's ``ddgen`` seed (``--policy``): the first eight hex digits of the policy file's
    sha256."""
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


def imp_bar(mean: float, se: float, least: float) -> bool:
    """An IMP row's bar: ``mean`` at least ``least`` and more than two standard errors above 0."""
    return mean >= least and mean > 2 * se


def differences(
    rows: Mapping[str, Mapping[str, Any]], base: Mapping[str, Mapping[str, Any]]
) -> dict[str, tuple[float, float]]:
    """Per opponent, ``rows`` minus ``base`` (the same opponents on the same boards): the mean
    of the per-board differences and its standard error (:func:`dd_rows.paired`)."""
    return {them: paired(r["imps"], base[them]["imps"]) for them, r in rows.items()}


def bars(
    rows: Mapping[str, Mapping[str, Any]],
    limits: Bars,
    wbridge5_min: float,
    over_default: Mapping[str, tuple[float, float]] | None = None,
) -> list[tuple[str, str, bool]]:
    """``limits``' bars that ``rows`` (by opponent) can be read against, each WBridge5 row's at
    ``wbridge5_min``, as (bar, figure, passed); with ``over_default`` (the candidate minus the
    shipped ``default`` per opponent, paired: :func:`differences`) the bar over it on each
    WBridge5 row too."""
    out = []
    for spec in REPORT:
        m, se = rows[spec]["imps_per_board"], rows[spec]["stderr"]
        out.append(
            (f"{spec} >= +{wbridge5_min} and > 2 s.e.", pm(m, se), imp_bar(m, se, wbridge5_min))
        )
    cards = [rows[s] for s in FIELD if s != BFG and s in rows]
    if cards:
        m, se = mean_of_rows(cards)
        out.append(
            (
                f"mean of the {len(cards)} cards >= +{limits.cards_mean}",
                pm(m, se),
                m >= limits.cards_mean,
            )
        )
        low = min(cards, key=lambda r: r["imps_per_board"] + 2 * r["stderr"])
        lm, lse = low["imps_per_board"], low["stderr"]
        out.append(
            (
                f"no card below {limits.cards_floor:+} by > 2 s.e.",
                f"{low['opponent']} {pm(lm, lse)}",
                lm + 2 * lse >= limits.cards_floor,
            )
        )
    if BFG in rows:
        m, se = rows[BFG]["imps_per_board"], rows[BFG]["stderr"]
        out.append((f"bfg >= +{limits.bfg}", pm(m, se), m >= limits.bfg))
    one = rows[SAYC]["one_room_slam"]
    out.append(
        (
            f"slam in one room only vs {SAYC} >= {limits.one_room}",
            f"{pm(one['per_board'], one['se'])} ({one['boards']} boards)",
            one["per_board"] >= limits.one_room,
        )
    )
    if over_default is not None:
        for spec in REPORT:
            d, se = over_default[spec]
            out.append(
                (
                    f"{spec}: over default >= +{limits.over_default} and > 2 s.e. (paired)",
                    pm(d, se),
                    imp_bar(d, se, limits.over_default),
                )
            )
    return out


def markdown(
    rows: Mapping[str, Mapping[str, Any]],
    checked: Sequence[tuple[str, str, bool]],
    over: (
        tuple[str, Mapping[str, Mapping[str, Any]], Mapping[str, tuple[float, float]]] | None
    ) = None,
) -> str:
    """The report's table of rows (with ``over``, (SPEC, its rows, the candidate minus them:
    :func:`differences`): SPEC's figure and the candidate minus SPEC, paired, in two more
    columns), then its table of bars."""
    head = "| row | IMPs/board | boards with a slam in one room only |"
    if over is not None:
        head += f" `{over[0]}` | minus `{over[0]}` (paired) |"
    lines = [head, "|" + " --- |" * (head.count(" | ") + 1)]
    for spec, r in rows.items():
        one = r["one_room_slam"]
        line = (
            f"| `{spec}` | {pm(r['imps_per_board'], r['stderr'])} | {one['boards']}: "
            f"{pm(one['per_board'], one['se'])} per board |"
        )
        if over is not None:
            o = over[1][spec]
            line += f" {pm(o['imps_per_board'], o['stderr'])} | {pm(*over[2][spec])} |"
        lines.append(line)
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


def seed_source(entry: Mapping[str, Any]) -> tuple[str, str | None]:
    """Where a logged read's seed came from: (:data:`FROM_MARKS`, the marks' digest) or
    (:data:`FROM_POLICY`, the policy file's sha256), the latter for an entry that names no
    source (written before issue 60)."""
    if entry.get("seed_from") == FROM_MARKS:
        return FROM_MARKS, entry.get("marks_sha256")
    return FROM_POLICY, entry.get("policy_sha256")


def reads_before(log: Path, source: tuple[str, str]) -> int:
    """How many reads ``log`` holds whose seed came from ``source`` (:func:`seed_source`): the
    earlier reads of these deals, entries of both formats counted, a torn line skipped."""
    return sum(seed_source(e) == source for e in journal_lines(log) if isinstance(e, dict))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--candidate", default="default", help="the spec read (default: default)")
    ap.add_argument(
        "--policy", type=Path, default=None,
        help="seed by this file's sha256 (issue 43's rule) instead of the candidate's marks:\n"
        "to read again a read made before issue 60; the agent read is --candidate all the same",
    )  # fmt: skip
    ap.add_argument("--over", default=None, help="also play this spec's rows; print the difference")
    ap.add_argument("--bars", type=int, choices=sorted(BARS), default=60, help="whose bars (60)")
    ap.add_argument(
        "--wbridge5-min", type=float, default=None,
        help="each WBridge5 row's bar (default: issue 60's 0.9 for search, 0.6 else; 43's 0.5)",
    )  # fmt: skip
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
        if args.over is not None and args.over == args.candidate:
            raise UserError(f"--over {args.over} is the candidate: name another spec")
        if args.policy is not None and not args.policy.is_file():
            raise UserError(f"{args.policy}: no such policy file")
        limits = BARS[args.bars]
        wbridge5_min = args.wbridge5_min
        if wbridge5_min is None:
            wbridge5_min = limits.wbridge5_min(args.candidate)
        opponents = [*REPORT, *(FIELD if args.all else ())]
        ours = [args.candidate, *([args.over] if args.over else [])]
        check_specs([*ours, *opponents])
        seed, mark = marks_seed(args.candidate)
        over_mark = None if args.over is None else marks_seed(args.over)[1]
        policy = args.policy or policy_file(args.candidate)
        sha = None if policy is None else file_sha256(policy)
        if args.policy is not None:
            seed, source = deal_seed(args.policy), (FROM_POLICY, file_sha256(args.policy))
        else:
            source = (FROM_MARKS, mark)
        deals_path = args.deals_dir / f"field_{seed}.npz"
        command = ddgen_command(seed, args.boards, deals_path)
        print(f"{args.candidate}: marks sha256 {mark}\npolicy {policy} sha256 {sha}")
        print(f"seed {seed} (0x{seed:08x}, from the {source[0]}): {' '.join(command)}")
        before = reads_before(args.log, source)
        if before:
            print(f"NOTE: these deals were read {before} time(s) before ({args.log})")
        if not deals_path.exists() or len(load_npz(deals_path)) < args.boards:
            make_deals(command, args.workers)  # ddgen continues a shorter file of the same seed
        deals = load_deals(deals_path, 0, args.boards)
    except (UserError, AgentSpecError, BoardSetError, FileNotFoundError) as exc:
        print(f"report_field: {exc}", file=sys.stderr)
        return 2
    journal = args.journal or deals_path.with_suffix(".jsonl")
    played = play_rows(
        ours, opponents, deals_path, 0, deals, workers=args.workers, chunk=args.chunk, seed=1,
        journal=journal,
    )  # fmt: skip
    rows = {them: played[(args.candidate, them)] for them in opponents}
    read_over = None  # (SPEC, its rows, the candidate minus them)
    if args.over is not None:
        over = {them: played[(args.over, them)] for them in opponents}
        read_over = (args.over, over, differences(rows, over))
    checks_over = (
        read_over is not None and is_search(args.candidate) and is_shipped_default(args.over)
    )
    checked = bars(rows, limits, wbridge5_min, read_over[2] if read_over and checks_over else None)
    print(f"\n{args.candidate} on {deals_path} ({len(deals)} boards, team matches DD-scored)")
    print(f"issue {args.bars}'s bars\n")
    print(markdown(rows, checked, read_over))
    print(f"\nslams against {SAYC}:\n{HEADER}\n" + "\n".join(show_row(rows[SAYC])))
    entry = {
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": commit(), "candidate": args.candidate, "marks_sha256": mark,
        "policy": None if policy is None else str(policy), "policy_sha256": sha,
        "seed_from": source[0], "seed": seed, "deals": str(deals_path), "boards": len(deals),
        "rows": {s: [r["imps_per_board"], r["stderr"]] for s, r in rows.items()},
        "one_room_slam_vs_sayc": rows[SAYC]["one_room_slam"],
        "bars_of_issue": args.bars, "wbridge5_min": wbridge5_min,
        "bars": {bar: "PASS" if ok else "FAIL" for bar, _, ok in checked},
    }  # fmt: skip
    if read_over is not None:
        _, over, minus = read_over
        entry["over"] = {
            "spec": args.over, "marks_sha256": over_mark,
            "rows": {s: [r["imps_per_board"], r["stderr"]] for s, r in over.items()},
            "minus": {s: list(d) for s, d in minus.items()},
        }  # fmt: skip
    append_journal(args.log, entry)
    print(f"\nread {before + 1} of these deals, logged in {args.log}; journal {journal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
