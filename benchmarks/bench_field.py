"""The field cross-table: candidates against the real bidders, on the same deals, DD-scored.

A candidate ships only if, on validation, its WORST row among the real bidders is better than
today's ``default``'s worst row, paired on the same deals (issue 43, "Choose by the field";
docs/evaluation.md). The real bidders are EPBot with each of the 16 training cards
(``engine.epbot_cards.TRAINING_CARDS``, spec ``epbot:CARD``, underscores for spaces) and bfg;
``--opponents`` adds rows (the cross-table's own, say) that are printed but are not the field.

Every row is a team match (both rooms, pairs swapped; ``dd_rows.run_rows``, ``--workers``
processes) scored double dummy on the same boards, printed as IMPs/board ± its standard error
with the doubled-contract cost (``dd_rows.match_figures``) and the boards with a slam in one
room only (``tournament.slams``). Each candidate ends with its worst field row and the mean of
its card rows (the per-board mean over the cards, so its standard error is paired). With
``--baseline``, every candidate's row prints its difference from the baseline's (per-board
IMPs subtracted, with their own standard error), and whether its worst field row beats the
baseline's: the rule for shipping.

The report cards (``REPORT_CARDS``: WBridge5-Sayc, WBridge5-21GF) are refused in any spec: no
choice ever sees them (``benchmarks/report_field.py`` reads them, once per model).

Finished rows go to ``--journal`` (one JSON line each, keyed by the sha256 of the deal file, the
range, the agents' seed, the sha256 of each side's policy file and the digest of each side's
settings), so a rerun resumes, from any folder, and a row never counts for other deals, another
model or another default of the same spec.

    BRIDGEBOT_EPBOT=/path/to/epbot python benchmarks/bench_field.py --candidate default \\
        --deals data/val_9001.npz --workers 2 --journal out/field.jsonl --json out/field.json
    python benchmarks/bench_field.py --candidate policy:data/runs/field1/onnx --baseline default \\
        --deals data/val_9001.npz --workers 2 --journal out/field.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling scripts
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from bridgebot.core.errors import UserError
from bridgebot.core.files import file_sha256
from bridgebot.core.stats import mean_stderr
from bridgebot.engine.agent import AgentSpecError
from bridgebot.engine.epbot_cards import TRAINING_CARDS, training_cards
from bridgebot.laws.board_sets import BoardSetError, load_npz
from bridgebot.laws.boards import BoardDeal
from dd_rows import (
    append_journal,
    counted_rows,
    match_figures,
    paired,
    read_journal,
    row_figures,
    row_marks,
    run_rows,
    side_marks,
)

from bridgebot.agents import AgentSpec, make_agent

BFG = "bfg"


def card_spec(card: str) -> str:
    """The agent spec of EPBot playing ``card`` (``Micro Bridge 13.4``: ``epbot:Micro_Bridge_13.4``)."""
    return "epbot:" + card.replace(" ", "_")


#: The field: EPBot with every training card, then bfg.
FIELD = (*(card_spec(c) for c in TRAINING_CARDS), BFG)


def refuse_report_cards(specs: Sequence[str], what: str) -> None:
    """:class:`ReportCardInTraining` (one line, the rule) where an ``epbot`` spec of ``specs``
    plays a report card: choosing by the field never sees them."""
    for spec in specs:
        parsed = AgentSpec.parse(spec)
        if parsed.name == "epbot":
            training_cards([parsed.path or ""], f"{what}: {spec}")


def field_rows(cards: str | None, bfg: bool = True) -> list[str]:
    """The field's specs: EPBot with ``cards`` (comma-separated names; None: the 16 training
    cards, refused where one is a report card), then bfg."""
    names = TRAINING_CARDS if cards is None else training_cards([cards], "--cards")
    return [card_spec(c) for c in names] + ([BFG] if bfg else [])


def figure_row(
    us: str, them: str, played: Sequence[Any], deals: Sequence[BoardDeal], wall_s: float
) -> dict[str, Any]:
    """A row: the cross-table's figures and per-board IMPs (:func:`dd_rows.match_figures`), with
    the slam figures (:func:`dd_rows.row_figures`: both sides' slam counts; the boards with a slam in one room only, in total and
    per board as ``one_room_imps``)."""
    slams = row_figures(us, them, played, deals)
    return {
        **match_figures(us, them, played, wall_s),
        **{k: slams[k] for k in ("us", "them", "one_room_slam", "sides")},
        "one_room_imps": slams["per_board"]["one_room_slam"],
    }


def play_rows(
    candidates: Sequence[str],
    opponents: Sequence[str],
    deals_path: Path,
    first: int,
    deals: Sequence[BoardDeal],
    *,
    workers: int = 1,
    chunk: int = 250,
    seed: int = 1,
    journal: Path | None = None,
) -> dict[tuple[str, str], dict[str, Any]]:
    """Every (candidate, opponent) row on ``deals`` (rows [first, first + len) of ``deals_path``),
    taken from ``journal`` where a row with the same key (the deal file's sha256, the range, the
    seed, and :func:`dd_rows.row_marks`: both policies' sha256 and settings digests) is there,
    else played (all candidates against one opponent at a time, over ``workers`` processes) and
    appended to it."""
    key = {
        "deals_sha256": file_sha256(deals_path),
        "first": first,
        "boards": len(deals),
        "seed": seed,
    }
    marks = side_marks({*candidates, *opponents})
    done = counted_rows(read_journal(journal, key), marks)
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for them in opponents:
        todo = [(us, them) for us in candidates if (us, them) not in done]
        t0 = time.perf_counter()
        played = (
            run_rows(todo, deals_path, first, len(deals), workers, seed, chunk, name="bench_field")
            if todo
            else {}
        )
        for us in candidates:
            r = done.get((us, them))
            if r is None:
                wall = (time.perf_counter() - t0) / len(todo)
                r = {**figure_row(us, them, played[(us, them)], deals, wall), **key}
                r["deals"] = str(deals_path)
                r.update(row_marks(marks, us, them))
                append_journal(journal, r)
            out[(us, them)] = r
    return out


def pm(mean: float, se: float) -> str:
    """``+0.42 ± 0.13``."""
    return f"{mean:+.2f} ± {se:.2f}"


def mean_of_rows(rows: Sequence[Mapping[str, Any]]) -> tuple[float, float]:
    """The mean of ``rows``' IMPs/board and its standard error, paired: the per-board mean over
    the rows (all on the same boards), then its mean and standard error."""
    per_board = [sum(b) / len(b) for b in zip(*(r["imps"] for r in rows), strict=True)]
    return mean_stderr(per_board)


def worst(rows: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The row with the lowest IMPs/board."""
    return min(rows, key=lambda r: r["imps_per_board"])


def row_line(r: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> str:
    """One row: IMPs/board ± se, doubled contracts by side, one-room slams; with ``base`` (the
    baseline's row on the same boards) the paired difference."""
    d, one = r["doubled"], r["one_room_slam"]
    flag = "  BELOW 0" if r["imps_per_board"] + 2 * r["stderr"] < 0 else ""
    text = (
        f"  {r['opponent'][:28]:<28} {pm(r['imps_per_board'], r['stderr']):>14}{flag:<9}"
        f" doubled us {d['us']['failed']}/{d['us']['declared']} {d['us']['imps_per_board']:+.2f},"
        f" them {d['them']['failed']}/{d['them']['declared']} {d['them']['imps_per_board']:+.2f};"
        f" one-room slams {one['boards']} {one['per_board']:+.2f}/bd"
    )
    if base is not None:
        text += f"; minus {base['candidate']} {pm(*paired(r['imps'], base['imps']))}"
    return text


def summary(cand: str, rows: Mapping[str, Mapping[str, Any]], field: Sequence[str]) -> list[str]:
    """A candidate's worst field row and the mean of its card rows."""
    real = [rows[o] for o in field]
    low = worst(real)
    lines = [
        f"  worst of {len(real)} field rows: {low['opponent']} {pm(low['imps_per_board'], low['stderr'])}"
    ]
    cards = [rows[o] for o in field if o != BFG]
    if cards:
        lines.append(f"  mean of the {len(cards)} cards: {pm(*mean_of_rows(cards))} (paired)")
    return lines


def verdict(
    new: Mapping[str, Mapping[str, Any]],
    base: Mapping[str, Mapping[str, Any]],
    field: Sequence[str],
) -> tuple[bool, str]:
    """Whether the candidate's worst field row beats the baseline's (the rule for shipping), and
    a line saying so with the difference of the two worst rows (per board, paired)."""
    a, b = worst([new[o] for o in field]), worst([base[o] for o in field])
    diff = paired(a["imps"], b["imps"])
    ok = a["imps_per_board"] > b["imps_per_board"]
    return ok, (
        f"{a['candidate']}'s worst row ({a['opponent']} {a['imps_per_board']:+.2f}) "
        f"{'beats' if ok else 'does not beat'} {b['candidate']}'s ({b['opponent']} "
        f"{b['imps_per_board']:+.2f}): {pm(*diff)} (paired): "
        f"{'may ship' if ok else 'does not ship'} by the field rule"
    )


def load_deals(path: Path, first: int, boards: int | None) -> list[BoardDeal]:
    """The boards of ``path``; exactly ``boards`` of them where given (BoardSetError else)."""
    deals = load_npz(path, boards=boards, first=first)
    if boards is not None and len(deals) < boards:
        raise BoardSetError(f"{path}: {boards} boards asked for, {len(deals)} from deal {first}")
    return deals


def check_specs(specs: Sequence[str]) -> None:
    """Build each agent once, so that a bad spec or a missing model (or EPBot) stops here."""
    for spec in specs:
        with contextlib.redirect_stdout(sys.stderr), make_agent(spec):
            pass


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--candidate", action="append", required=True, help="agent spec (repeatable)")
    ap.add_argument("--baseline", default=None, help="spec the candidates are compared with")
    ap.add_argument("--deals", type=Path, required=True, help="DD deal file (.npz)")
    ap.add_argument("--first", type=int, default=0, help="first deal used (default 0)")
    ap.add_argument("--boards", type=int, default=None, help="boards (default: all from --first)")
    ap.add_argument("--cards", default=None, help="comma-separated cards (default: the 16)")
    ap.add_argument("--opponents", default="", help="';'-separated extra rows (not the field)")
    ap.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--chunk", type=int, default=250, help="boards per job (default 250)")
    ap.add_argument("--seed", type=int, default=1, help="agents' seed (default 1)")
    ap.add_argument("--journal", type=Path, default=None, help="JSONL of finished rows (resume)")
    ap.add_argument("--json", type=Path, default=None, help="write the whole table here")
    args = ap.parse_args(argv)
    try:
        if args.workers < 1 or args.chunk < 1 or args.first < 0 or (args.boards or 1) < 1:
            raise UserError("--workers, --chunk and --boards must be >= 1, --first >= 0")
        field = field_rows(args.cards)
        extra = [o.strip() for o in args.opponents.split(";") if o.strip()]
        ours = ([args.baseline] if args.baseline else []) + [
            c for c in args.candidate if c != args.baseline
        ]
        refuse_report_cards([*ours, *extra], "bench_field")
        deals = load_deals(args.deals, args.first, args.boards)
        check_specs([*ours, *field, *extra])
    except (UserError, AgentSpecError, BoardSetError, FileNotFoundError) as exc:
        print(f"bench_field: {exc}", file=sys.stderr)
        return 2
    rows_of = [*field, *extra]
    table = play_rows(
        ours, rows_of, args.deals, args.first, deals, workers=args.workers, chunk=args.chunk,
        seed=args.seed, journal=args.journal,
    )  # fmt: skip
    print(f"field cross-table: {args.deals} [{args.first}, +{len(deals)}), team matches DD-scored")
    by: dict[str, dict[str, dict[str, Any]]] = {
        us: {them: table[(us, them)] for them in rows_of} for us in ours
    }
    for us in ours:
        print(f"\n{us}")
        base = by[args.baseline] if args.baseline and us != args.baseline else None
        for them in rows_of:
            print(row_line(by[us][them], None if base is None else base[them]))
        print("\n".join(summary(us, by[us], field)))
        if base is not None:
            print("  " + verdict(by[us], base, field)[1])
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        slim = {us: [{k: v for k, v in r.items() if k not in ("imps", "one_room_imps")}
                     for r in rows.values()] for us, rows in by.items()}  # fmt: skip
        out = {"deals": str(args.deals), "first": args.first, "boards": len(deals), "table": slim}
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
