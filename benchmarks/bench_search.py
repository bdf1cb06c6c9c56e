"""Search strength and speed: the search agent against the same policy without search, and against bfg.

Double-dummy-scored team matches (``tournament.ddmatch``: every board bid in two rooms with the
pairs swapped, the final contracts scored from the board's DD table) on held-out deals (the last
2,000 of a development set of random deals, never trained on), mean IMPs/board with standard error. For
each search budget in ``--budgets`` it prints the gain over the plain policy and the seconds per
searched decision (median, p95), so the table "particles x rollouts -> gain, time" comes from one
run on one machine. A budget may name any other search option too (``sampler=belief``,
``filter=0``); every budget after the first is compared with the first on the same boards (paired
standard error). ``--vs-bfg`` adds every budget vs bfg and policy vs bfg on the same boards (the
difference of the two is the search gain measured against a third party).

    python benchmarks/bench_search.py --model models/default --boards 200 \\
        --budgets "particles=128,rollouts=16;particles=256,rollouts=32" --dd net --vs-bfg

``--profile N`` says where the time of a searched call goes: the ``--spec`` agent (default
``search``, the shipped model) bids held-out boards against the bare policy, in this process, until
it has searched N calls; then the same boards again under cProfile. It prints the median and p95
seconds per searched call (of the first pass, which no profiler slows), the time of each stage
(particle sampling, particle weighting, rollouts, the trick oracle: ``ddnet``, or the solver of
the slam stage; and the policy networks' inference inside them), and the top entries by
cumulative time.

    python benchmarks/bench_search.py --deals data/dd_2026.npz --profile 20

``--opponents`` instead prints the cross-table: for each opponent spec, the plain policy and the
search agent ``--spec`` against it on the same deals, search minus policy with its paired standard
error, and the median and p95 seconds per searched call (``--baseline`` compares with another
agent, e.g. ``default``). Chunks of 50 boards are journaled (``--journal``); rerunning the same
command resumes.

    nice -n 10 python benchmarks/bench_search.py --deals data/test_9002.npz --boards 2000 \\
        --opponents "bfg;bfg,doubles=on;policy:runs/exploiter_gen5b/onnx" --spec search
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling scripts
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import argparse
import functools
import json
import math
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

import numpy as np
from bridgebot.core.stats import mean_stderr
from dd_rows import check_policies, fingerprint

from bridgebot.marks import settings_digest
from bridgebot.options import benchmark_args, deal_file
from bridgebot.shipped import shipped_model

DATA = "data/dd.npz"  # a DD file made by `bridgebot ddgen` (docs/data.md)


def _chunk_match(job: dict[str, Any]) -> dict[str, Any]:
    """Play boards [first, first + n) of the held-out set; return IMPs and decision timings.

    Raises :class:`dd_rows.PolicyChangedError` where ``job["policies"]`` (each side's policy
    sha256 when the run started) no longer matches the files, before or after the boards."""
    from bridgebot.engine.search import SearchAgent, SearchResult
    from bridgebot.laws.board_sets import load_npz
    from bridgebot.laws.boards import cycle_board
    from bridgebot.tournament.ddmatch import play_dd_boards, seated_agents
    from bridgebot.tournament.seatings import seatings

    from bridgebot.agents import make_agent

    # Board k of the held-out set is board k whichever chunk plays it, so that its dealer and
    # vulnerability (and the agents' per-board seeds) do not depend on --workers.
    deals = [
        cycle_board(d.number + job["offset"], d.deal, d.dd)
        for d in load_npz(Path(job["data"]), boards=job["n"], first=job["first"])
    ]
    check_policies(job, "before")
    start = time.perf_counter()
    results, made, board_changed, board_changes = [], [], [], []
    with seated_agents(make_agent, job["us"], job["them"], seatings("team"), job["seed"]) as agents:
        searchers = [a for room in agents.values() for a in room if isinstance(a, SearchAgent)]
        for deal in deals:  # a search agent keeps one board's decisions: collect them per board
            results += play_dd_boards([deal], "team", job["us"], job["them"], agents)
            board = [d for a in searchers for d in a.results]
            made += board
            board_changed.append(sum(int(d.searched and d.changed) for d in board))
            board_changes.append([_change(d) for d in board if d.searched and d.changed])
    check_policies(job, "after")
    done: list[SearchResult] = [d for d in made if d.searched]
    seconds = [d.seconds for d in done]
    searched, changed = len(done), sum(board_changed)
    decisions = len(made)
    return {
        "imps": [b.imps for b in results],
        "changed_per_board": board_changed,
        "changes_per_board": board_changes,
        "seconds": seconds,
        "decisions": decisions,
        "searched": searched,
        "changed": changed,
        "wall": time.perf_counter() - start,
    }


def _change(d: Any) -> list[float]:
    """A changed call as the journal keeps it: [the policy's call, the call made (ALL_CALLS
    indices), the prior of the call made, the search's estimate of its gain over the policy's
    call (``SearchResult.gain``: the least over the opponent models; NaN where a layer made the
    call)]."""
    from bridgebot.laws.calls import bid_index

    call = bid_index(d.call)
    return [int(np.argmax(d.prior)), call, float(d.prior[call]), d.gain]


#: The kinds of change :func:`change_kind` names, in the order they are printed.
CHANGE_KINDS = ("bid, not pass", "pass, not bid", "double", "not double", "higher bid",
                "lower bid", "other")  # fmt: skip


def change_kind(policy: int, call: int) -> str:
    """What kind of change the search made of the policy's call (ALL_CALLS indices: 0 pass, 1
    double, 2 redouble, then the bids from 1C up): one of :data:`CHANGE_KINDS`."""
    if call >= 3 and policy == 0:
        return "bid, not pass"
    if call == 0 and policy >= 3:
        return "pass, not bid"
    if call in (1, 2):
        return "double"
    if policy in (1, 2):
        return "not double"
    if call >= 3 and policy >= 3:
        return "higher bid" if call > policy else "lower bid"
    return "other"


def by_kind(diff: np.ndarray, changes: list[list[list[float]]]) -> list[dict[str, Any]]:
    """The paired difference per board (``diff``: the search minus its baseline) by what the
    search changed there (``changes``, per board, :func:`_change`'s rows): the boards it changed
    nothing on, those with one change by its kind, and those with several. A board's difference
    is the whole board's, later calls included (a change moves the rest of the auction)."""
    groups: dict[str, list[float]] = {}
    for d, board in zip(diff, changes, strict=True):
        if not board:
            key = "no change"
        elif len(board) > 1:
            key = "several changes"
        else:
            key = change_kind(int(board[0][0]), int(board[0][1]))
        groups.setdefault(key, []).append(float(d))
    rows = []
    for key in ("no change", *CHANGE_KINDS, "several changes"):
        if key in groups:
            mean, se = mean_stderr(groups[key])
            total = float(np.sum(groups[key])) / len(diff)
            rows.append({"kind": key, "boards": len(groups[key]), "mean": mean, "se": se,
                         "per_board": total})  # fmt: skip
    return rows


def match(
    us: str, them: str, data: str, first: int, boards: int, workers: int, seed: int
) -> dict[str, Any]:
    per = math.ceil(boards / workers)
    jobs = [
        {"us": us, "them": them, "data": data, "first": first + s, "n": min(per, boards - s),
         "offset": s, "seed": seed, "policies": [_policy_sha(us), _policy_sha(them)]}
        for s in range(0, boards, per)
    ]  # fmt: skip
    if workers == 1:
        parts = [_chunk_match(j) for j in jobs]
    else:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            parts = list(pool.map(_chunk_match, jobs))
    imps = [x for p in parts for x in p["imps"]]
    secs = sorted(x for p in parts for x in p["seconds"])
    mean = float(np.mean(imps))
    se = mean_stderr(list(imps))[1]
    out: dict[str, Any] = {
        "us": us,
        "them": them,
        "boards": len(imps),
        "imps_per_board": round(mean, 3),
        "stderr": round(se, 3),
        "decisions": sum(p["decisions"] for p in parts),
        "searched": sum(p["searched"] for p in parts),
        "changed_by_search": sum(p["changed"] for p in parts),
        "wall_s": round(max(p["wall"] for p in parts), 1),
        "imps": imps,
    }
    if secs:
        out["search_s_median"] = round(statistics.median(secs), 4)
        out["search_s_p95"] = round(secs[min(len(secs) - 1, int(0.95 * len(secs)))], 4)
    return out


#: Each spec's policy sha256, read once per run (:func:`dd_rows.fingerprint`).
_policy_sha = functools.cache(fingerprint)
#: Each spec's settings digest (:func:`bridgebot.marks.settings_digest`), once per run.
_digest = functools.cache(settings_digest)


def _chunk_key(us: str, them: str, data: str, first: int, n: int, offset: int, seed: int) -> str:
    """A journaled chunk's key: the match, the deal file, its boards, the seed, the sha256 of
    each side's policy file and the digest of each side's settings, so a chunk played by another
    model under the same spec text (the shipped ``default`` before a new one shipped), or by
    other defaults (``search`` before ``close_bids=0.2``), is played again, never reused."""
    sides = [_policy_sha(us), _policy_sha(them), _digest(us), _digest(them)]
    return json.dumps([us, them, data, first, n, offset, seed, *sides])


def journaled_match(
    us: str,
    them: str,
    data: str,
    first: int,
    boards: int,
    workers: int,
    seed: int,
    journal: Path,
    chunk: int = 50,
) -> dict[str, Any]:
    """:func:`match` in chunks of ``chunk`` boards, each journaled (one JSON line) when done.

    A rerun with the same journal skips the chunks already there (the key, :func:`_chunk_key`:
    the match, the deal file, its boards, the seed, both sides' policy files' sha256 and
    settings), so a run of hours survives an interruption.
    """
    done: dict[str, dict[str, Any]] = {}
    if journal.is_file():
        for line in journal.read_text().splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line: that chunk is played again
            done[rec["key"]] = rec
    jobs = []
    for s in range(0, boards, chunk):
        job: dict[str, Any] = {"us": us, "them": them, "data": data, "first": first + s,
               "n": min(chunk, boards - s), "offset": s, "seed": seed,
               "policies": [_policy_sha(us), _policy_sha(them)]}  # fmt: skip
        job["key"] = _chunk_key(us, them, data, job["first"], job["n"], s, seed)
        if job["key"] not in done:
            jobs.append(job)
    if jobs:
        with (
            journal.open("a") as out,
            ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool,
        ):
            for job, part in zip(jobs, pool.map(_chunk_match, jobs), strict=True):
                rec = dict(part, key=job["key"])
                out.write(json.dumps(rec) + "\n")
                out.flush()
                done[job["key"]] = rec
    keys = [
        _chunk_key(us, them, data, first + s, min(chunk, boards - s), s, seed)
        for s in range(0, boards, chunk)
    ]
    parts = [done[k] for k in keys]
    imps = [x for p in parts for x in p["imps"]]
    secs = sorted(x for p in parts for x in p["seconds"])
    out_: dict[str, Any] = {
        "us": us, "them": them, "boards": len(imps), "imps": imps,
        "changed_per_board": [x for p in parts for x in p.get("changed_per_board", [])],
        "changes_per_board": (
            [x for p in parts for x in p["changes_per_board"]]
            if all("changes_per_board" in p for p in parts) else None
        ),
        "imps_per_board": float(np.mean(imps)),
        "stderr": mean_stderr(list(imps))[1],
        "decisions": sum(p["decisions"] for p in parts),
        "searched": sum(p["searched"] for p in parts),
        "changed_by_search": sum(p["changed"] for p in parts),
    }  # fmt: skip
    if secs:
        out_["search_s_median"] = statistics.median(secs)
        out_["search_s_p95"] = secs[min(len(secs) - 1, int(0.95 * len(secs)))]
    return out_


def cross_table(args: argparse.Namespace, search: str, policy: str, first: int) -> None:
    """Search minus ``policy`` (the baseline) against every opponent of ``--opponents``, paired
    on the same deals; the JSON's ``policy`` figures are the baseline's."""
    base = "policy" if policy.startswith("policy:") else policy
    journal = Path(args.journal)
    journal.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    for them in [o.strip() for o in args.opponents.split(";") if o.strip()]:
        run = [
            journaled_match(
                us,
                them,
                args.deals,
                first,
                args.boards,
                args.workers,
                args.seed,
                journal,
                args.chunk,
            )
            for us in (policy, search)
        ]
        diff = np.array(run[1]["imps"]) - np.array(run[0]["imps"])
        row = {
            "them": them, "boards": len(diff), "policy": run[0]["imps_per_board"],
            "policy_se": run[0]["stderr"], "search": run[1]["imps_per_board"],
            "search_se": run[1]["stderr"], "gain": float(diff.mean()),
            "gain_se": _paired_se(diff), "searched": run[1]["searched"],
            "changed": run[1]["changed_by_search"],
            "median_s": run[1].get("search_s_median", 0.0),
            "p95_s": run[1].get("search_s_p95", 0.0),
        }  # fmt: skip
        rows.append(row)
        print(
            f"vs {them:40s} {base} {row['policy']:+.3f} +- {row['policy_se']:.3f}, {search} "
            f"{row['search']:+.3f} +- {row['search_se']:.3f}; {search} minus {base} "
            f"{row['gain']:+.3f} +- {row['gain_se']:.3f} IMPs/board (paired, {row['boards']} "
            f"boards); searched {row['searched']} calls, {row['changed']} changed; median "
            f"{row['median_s']:.3f} s, p95 {row['p95_s']:.3f} s per searched call",
            flush=True,
        )
        changes = run[1]["changes_per_board"]
        if args.by_kind and changes is not None:
            row["by_kind"] = by_kind(diff, changes)
            for k in row["by_kind"]:
                print(
                    f"    {k['kind']:16s} {k['boards']:5d} boards  {k['mean']:+.2f} +- "
                    f"{k['se']:.2f} IMPs a board  ({k['per_board']:+.3f} of the IMPs/board)",
                    flush=True,
                )
        elif args.by_kind:
            print(f"    (by kind: {search}'s chunks in the journal predate the kinds)", flush=True)
    if args.out:
        summary = {"search": search, "baseline": policy, "rows": rows}
        Path(args.out).write_text(json.dumps(summary, indent=1) + "\n")


def _searched_boards(spec: str, them: str, deals: list[Any], calls: int, seed: int) -> list[float]:
    """Bid ``deals`` in turn (team match against ``them``) until ``spec``'s search agents have
    searched ``calls`` calls; the seconds of each searched call."""
    from bridgebot.engine.search import SearchAgent
    from bridgebot.tournament.ddmatch import play_dd_boards, seated_agents
    from bridgebot.tournament.seatings import seatings

    from bridgebot.agents import make_agent

    seconds: list[float] = []
    with seated_agents(make_agent, spec, them, seatings("team"), seed) as agents:
        searchers = [a for room in agents.values() for a in room if isinstance(a, SearchAgent)]
        for deal in deals:
            play_dd_boards([deal], "team", spec, them, agents)
            seconds += [d.seconds for a in searchers for d in a.results if d.searched]
            if len(seconds) >= calls:
                break
    return seconds


def _stages() -> dict[tuple[str, int, str], str]:
    """The search's stages by the profiler's key of the function that does each (file, first
    line, name); a function the search no longer has is left out."""
    from bridgebot.engine.policy import Policy
    from bridgebot.engine.search import borel, oracles, rollouts

    where = {
        "search": (borel.BorelSearch, "search"),
        "particles: sampling": (borel.BorelSearch, "particles"),
        "particles: weighting (auction likelihood)": (borel.BorelSearch, "model_weights"),
        "rollouts": (rollouts, "rollout"),
        "oracle: ddnet": (getattr(oracles, "EstimatorOracle", None), "trick_probs"),
        "oracle: solver (slam stage)": (getattr(oracles, "SolverOracle", None), "trick_probs"),
        "slam stage (its rollouts and solves too)": (borel.BorelSearch, "slam_stage"),
        "policy networks": (Policy, "logits"),
        "policy networks (tiled)": (Policy, "tiled_logits"),
    }
    out = {}
    for stage, (owner, name) in where.items():
        code = getattr(getattr(owner, name, None), "__code__", None)
        if code is not None:
            out[(code.co_filename, code.co_firstlineno, code.co_name)] = stage
    return out


def profile(args: argparse.Namespace, first: int) -> dict[str, Any]:
    """``--profile N``: the timings and the stages of N searched calls (module doc)."""
    import cProfile
    import io
    import pstats

    from bridgebot.laws.board_sets import load_npz

    them = f"policy:{args.model}"
    # A searched call or more a board, most boards: read the boards before the clock starts.
    deals = load_npz(Path(args.deals), boards=min(args.held_out, 4 * args.profile), first=first)
    seconds = sorted(_searched_boards(args.spec, them, deals, args.profile, args.seed))
    if not seconds:
        sys.exit(f"{args.spec} searched no call on the held-out boards of {args.deals}")
    load = os.getloadavg()[0]  # the wall times' context: other processes on the cores
    # CPU seconds (this process's), so that other work on the machine does not move the shares.
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    _searched_boards(args.spec, them, deals, args.profile, args.seed)
    profiler.disable()
    stats = pstats.Stats(profiler)
    table: dict[tuple[str, int, str], Any] = stats.stats  # type: ignore[attr-defined]
    stages = _stages()
    cumulative = dict.fromkeys(stages.values(), 0.0)
    for key, stage in stages.items():
        if key in table:
            cumulative[stage] += table[key][3]
            # tiled_logits falls back on logits where the graph has no hand split: once.
            for caller, (_, _, _, within) in table[key][4].items():
                if stage == "policy networks" and stages.get(caller) == "policy networks (tiled)":
                    cumulative[stage] -= within
    total = cumulative.pop("search") or 1e-9
    policy = cumulative.pop("policy networks") + cumulative.pop("policy networks (tiled)", 0.0)
    slam = cumulative.pop("slam stage (its rollouts and solves too)", 0.0)
    rest = total - sum(cumulative.values())
    n = len(seconds)
    out: dict[str, Any] = {
        "spec": args.spec,
        "searched_calls": n,
        "median_s": statistics.median(seconds),
        "p95_s": seconds[min(n - 1, int(0.95 * n))],
        "load_average": load,
        "profiled_cpu_s_per_call": total / n,
        "stages_share": {
            **{k: v / total for k, v in cumulative.items()},
            "the rest (prior, scoring, the verdict)": rest / total,
        },
        "within them: policy networks": policy / total,
        "within them: slam stage": slam / total,
    }
    print(
        f"{args.spec}: {n} searched calls on the held-out boards of {args.deals}: median "
        f"{out['median_s']:.3f} s, p95 {out['p95_s']:.3f} s per searched call (wall, load "
        f"average {load:.1f}); under the profiler {total / n:.3f} CPU s a call:"
    )
    for stage, share in out["stages_share"].items():
        print(f"  {stage:45s} {share * total / n:7.3f} CPU s/call {share:6.1%}")
    for what, secs in (
        ("within them: policy networks (ONNX)", policy),
        ("within them: the slam stage", slam),
    ):
        print(f"  {what:45s} {secs / n:7.3f} CPU s/call {secs / total:6.1%}")
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(25)
    print(text.getvalue())
    return out


def _paired_se(diff: np.ndarray) -> float:
    """Standard error of the mean of per-board differences (nan for fewer than two boards)."""
    return mean_stderr(list(diff))[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--model",
        default=str(shipped_model("default")),
        help="policy model directory (default: the shipped one)",
    )
    ap.add_argument("--deals", default=DATA, help="DD deal file (default %(default)s)")
    ap.add_argument(
        "--boards", type=int, default=200, help="boards per match (default %(default)s)"
    )
    ap.add_argument(
        "--held-out",
        type=int,
        default=2000,
        help="the boards are the last N deals of --deals (default %(default)s)",
    )
    ap.add_argument(
        "--budgets",
        default="particles=256,rollouts=32",
        help="';'-separated search budgets, each comma-separated search options",
    )
    ap.add_argument(
        "--dd", default="net", choices=["net", "solver"], help="the search's rollout scoring"
    )
    ap.add_argument("--extra", default="", help="more search options, e.g. p_min=0.05")
    ap.add_argument("--vs-bfg", action="store_true", help="also every budget and the policy vs bfg")
    ap.add_argument("--only-bfg", action="store_true", help="only the matches against bfg")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--seed", type=int, default=1, help="agents' seed (default 1)")
    ap.add_argument("--out", default=None, help="write the JSON results here")
    ap.add_argument(
        "--opponents",
        default="",
        help="';'-separated opponent specs: the cross-table of search minus policy against each "
        "(e.g. 'bfg;bfg,doubles=on;policy:DIR'); uses --spec, journals to --journal",
    )
    ap.add_argument("--spec", default="search", help="the search agent of --opponents")
    ap.add_argument(
        "--baseline",
        default=None,
        help="what --opponents compares the search with (default: policy:MODEL, the bare "
        "policy; 'default' is the shipped agent, which searches doubled positions too)",
    )
    ap.add_argument(
        "--journal",
        default="out/bench_search/journal.jsonl",
        help="finished chunks of --opponents; the same command resumes (default %(default)s)",
    )
    ap.add_argument("--chunk", type=int, default=50, help="boards per journaled chunk")
    ap.add_argument(
        "--by-kind",
        action="store_true",
        help="with --opponents, also the paired difference by what the search changed on each "
        "board (nothing, one change by its kind, several)",
    )
    ap.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="where the time of N searched calls of --spec goes (cProfile, by stage); no match",
    )
    args = benchmark_args(ap, "bench_search")
    deal_file(args.deals)

    with np.load(args.deals) as z:
        first = len(z["owners"]) - args.held_out
    if first < 0 or args.boards > args.held_out:
        sys.exit(
            f"{args.deals} has {first + args.held_out} deals: --held-out {args.held_out} (the "
            f"last N deals) must be at most that, and --boards {args.boards} at most --held-out"
        )
    policy = f"policy:{args.model}"
    if args.profile:
        summary = profile(args, first)
        if args.out:
            Path(args.out).write_text(json.dumps(summary, indent=1) + "\n")
        return
    if args.opponents:
        cross_table(args, args.spec, args.baseline or policy, first)
        return
    results: list[dict[str, Any]] = []
    extra = f",{args.extra}" if args.extra else ""
    budgets = [b.strip() for b in args.budgets.split(";") if b.strip()]
    specs = {b: f"search:{args.model},dd={args.dd},{b}{extra}" for b in budgets}
    if not args.only_bfg:
        for budget in budgets:
            r = match(
                specs[budget], policy, args.deals, first, args.boards, args.workers, args.seed
            )
            r["budget"] = budget
            results.append(r)
            print(
                f"{budget:32s} vs policy: {r['imps_per_board']:+.3f} +- {r['stderr']:.3f} "
                f"IMPs/board ({r['boards']} boards); searched {r['searched']}/{r['decisions']} "
                f"decisions, {r['changed_by_search']} changed; median "
                f"{r.get('search_s_median', 0):.3f} s, p95 {r.get('search_s_p95', 0):.3f} s per "
                "searched decision",
                flush=True,
            )
        for r in results[1:]:
            diff = np.array(r["imps"]) - np.array(results[0]["imps"])
            print(
                f"{r['budget']:32s} minus {results[0]['budget']}: {diff.mean():+.3f} +- "
                f"{_paired_se(diff):.3f} IMPs/board (paired, same boards)",
                flush=True,
            )
    if args.vs_bfg or args.only_bfg:
        # Every budget against bfg, and the plain policy against bfg on the same boards: the
        # difference is the search gain measured against a third party.
        rp = match(policy, "bfg", args.deals, first, args.boards, args.workers, args.seed)
        print(
            f"policy vs bfg: {rp['imps_per_board']:+.3f} +- {rp['stderr']:.3f} IMPs/board "
            f"({rp['boards']} boards)",
            flush=True,
        )
        results.append(dict(rp, role="policy_vs_bfg"))
        for budget in budgets:
            rs = match(
                specs[budget], "bfg", args.deals, first, args.boards, args.workers, args.seed
            )
            diff = np.array(rs["imps"]) - np.array(rp["imps"])
            print(
                f"{budget:32s} vs bfg: {rs['imps_per_board']:+.3f} +- {rs['stderr']:.3f} "
                f"IMPs/board; gain over the policy against bfg {diff.mean():+.3f} +- "
                f"{_paired_se(diff):.3f} (paired); median {rs.get('search_s_median', 0):.3f} s, "
                f"p95 {rs.get('search_s_p95', 0):.3f} s per searched decision",
                flush=True,
            )
            results.append(dict(rs, role="search_vs_bfg", budget=budget))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
