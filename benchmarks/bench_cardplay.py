"""Card play strength and speed: the double-dummy Monte Carlo player against the baseline.

Deals come from the end of a DD file (docs/data.md) (held out: training reads from the
start), each played in one contract: the best double-dummy contract for the side with more high
card points (the highest-scoring contract that side makes double-dummy, its better declarer;
the cheapest one-level contract when it makes nothing). Board k takes dealer and vulnerability
from the standard cycle. Figures, each for ``DDCardPlayer`` (defaults unless overridden) and for
``baseline_card`` in the same run:

* tricks lost to the double-dummy optimum as declarer (against double-dummy defenders, who see
  all four hands and play a best card) and as defenders (against a double-dummy declarer);
* duplicate on the same contracts: ours N/S + baseline E/W in one room, swapped in the other;
  IMPs per board for ours with its standard error;
* latency per card of ours (median and p95, over all its decisions and over searched ones) and
  per board;
* several seats in one process (``--seats K``): the duplicate rooms of the boards played again,
  K boards at once, once by K threads of this process (K card players sharing the solver's one
  door, :mod:`engine.dds`) and once by K processes of one seat each (how seats ran before the
  door). The budget is counted in worlds, so every card must be the same as when played alone
  (no weaker, by construction, and checked); the figures are seconds per card and per board of
  each, and the ratio threads / processes (at most 1 means the door costs nothing).

Usage: ``python benchmarks/bench_cardplay.py [--boards 12] [--worlds 32] [--seats 2]``;
the default size takes about a quarter of an hour of this 2-core machine.

**The yardstick between two card players** (``--candidate``, repeatable): contracts fixed by the
auctions of ``--bidding`` (default ``default``) in all four seats on the boards of a DD deal file
(from ``--first``), each board played by the candidate declaring against the ``--reference``
(default ``pimc``, today's player) and by the reference declaring against the candidate, with
the reference's own room beside them (``cardplay_match``: rooms, role split and common random
numbers). Card players are named as :func:`bridgebot.card_players.named_card_player` reads them
(``pimc``, ``dd``, ``auction``, ``baseline``, with ``,worlds=N`` and such). Printed per candidate:
IMPs/board with its paired standard error, in total and by role (declarer; defence; the opening
lead on its own line), the double-dummy cost of each role's cards for both players and their
paired difference, and the CPU seconds per card of both (median, p95) over the same decisions (each
player's 52 of rooms AB and BA of every board). Chunks of boards go to
``--workers`` processes and to ``--journal`` (one JSON line per finished chunk, keyed by the deal
file's sha256, the range, the bidding spec, the seed, the players and the chunk), so a rerun
resumes::

    nice -n 10 python benchmarks/bench_cardplay.py --candidate auction --reference pimc \\
        --deals /tmp/screen.npz --boards 400 --workers 1 --journal out/cardplay.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np
from endplay.types import Bid, Card, Contract, Deal, Penalty, Player

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling scripts
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridgebot.core.errors import UserError
from bridgebot.core.stats import mean_stderr
from bridgebot.engine.agent import AgentSpecError, PlayView
from bridgebot.engine.cardplay import (
    LEAD_WORLDS,
    WORLDS,
    DDCardPlayer,
    baseline_card,
    play_deal,
    play_state,
)
from bridgebot.engine.dds import one_solver_thread, solve_positions
from bridgebot.laws.board_sets import BoardSetError, load_npz
from bridgebot.laws.boards import BoardDeal, dealer_of, side_vulnerable, vul_of
from bridgebot.laws.calls import final_contract
from bridgebot.laws.cards import index_card, owners_pbn
from bridgebot.laws.notation import auction_texts, parse_call
from bridgebot.laws.scoring import STRAIN_ORDER, contract_score, imps, ns_score
from bridgebot.models.provenance import file_sha256
from cardplay_match import Seats, leads_board, paired_board, reference_room

from bridgebot.agents import make_agent
from bridgebot.card_players import named_card_player
from bridgebot.options import benchmark_args, deal_file

DATA = Path("data/dd.npz")  # a DD file made by `bridgebot ddgen` (docs/data.md)
HCP = np.array(([4, 3, 2, 1] + [0] * 9) * 4)

Chooser = Callable[[PlayView], Card]


def contract_for(owners: np.ndarray, dd: np.ndarray, board: int) -> Contract:
    """The best double-dummy contract of the side with more HCP (see the module doc)."""
    points = [int(HCP[owners == s].sum()) for s in range(4)]
    side = 0 if points[0] + points[2] >= points[1] + points[3] else 1
    vul = vul_of(board)
    best: tuple[int, Contract] | None = None
    for seat in (side, side + 2):
        declarer = Player(seat)
        for j, strain in enumerate(STRAIN_ORDER):
            tricks = int(dd[seat, j])
            level = max(1, tricks - 6)
            score = contract_score(
                level, strain, Penalty.passed, side_vulnerable(vul, declarer), tricks
            )
            if best is None or score > best[0]:
                c = Contract(level=level, denom=strain, declarer=declarer, penalty=Penalty.passed)
                best = (score, c)
    assert best is not None
    return best[1]


def oracle(owners: np.ndarray) -> Chooser:
    """A double-dummy player: sees the whole deal, plays a card that keeps the most tricks."""

    def choose(view: PlayView) -> Card:
        if len(view.legal) == 1:
            return view.legal[0]
        tricks = solve_positions([play_state(view).position(owners)])[0]
        return index_card(int(np.argmax(tricks)))

    return choose


def timed(player: DDCardPlayer, latencies: list[tuple[float, int]]) -> Chooser:
    def choose(view: PlayView) -> Card:
        t = time.perf_counter()
        card = player.play(view)
        latencies.append((time.perf_counter() - t, player.last_solved))
        return card

    return choose


Options = dict[str, int]
Played = tuple[tuple[Player, Card], ...]


def make_player(options: Options) -> DDCardPlayer:
    return DDCardPlayer(
        worlds=options.get("worlds", WORLDS),
        lead_worlds=options.get("lead_worlds", LEAD_WORLDS),
        workers=options["workers"],
        seed=options["seed"],
    )


def held_out(data: Path, k: int) -> tuple[np.ndarray, np.ndarray, Contract, int]:
    """Board ``k + 1``: the ``k``-th deal from the end of ``data``, its DD table and contract."""
    with np.load(data) as z:
        i = len(z["owners"]) - 1 - k
        owners, dd = z["owners"][i].astype(np.int64), z["dd"][i]
    board = k + 1
    return owners, dd, contract_for(owners, dd, board), board


def duplicate(
    player: DDCardPlayer, owners: np.ndarray, contract: Contract, board: int, lat: list[Any]
) -> tuple[tuple[int, int], tuple[Played, Played]]:
    """Ours N/S against the baseline in one room, E/W in the other: tricks and cards of each."""
    deal = Deal(owners_pbn(owners))
    mine = timed(player, lat)
    rooms = []
    for ours_side in (0, 1):
        player.reset(board)
        choosers = [mine if p.value % 2 == ours_side else baseline_card for p in Player]
        rooms.append(
            play_deal(
                deal, contract, choosers, vul=vul_of(board), dealer=dealer_of(board), board=board
            )
        )
    return (rooms[0][0], rooms[1][0]), (rooms[0][1], rooms[1][1])


def duplicate_job(job: tuple[Path, int, Options]) -> tuple[tuple[Played, Played], list[Any]]:
    """One board's duplicate by a fresh player (a thread's or a process's own seat)."""
    data, k, options = job
    owners, _, contract, board = held_out(data, k)
    player = make_player(options)
    lat: list[tuple[float, int]] = []
    try:
        _, plays = duplicate(player, owners, contract, board, lat)
    finally:
        player.close()
    return plays, lat


def shared(
    pool: Executor, jobs: list[tuple[Path, int, Options]]
) -> tuple[list[tuple[Played, Played]], list[float], float]:
    """Run the duplicate jobs on ``pool``: cards per board, seconds per card, wall seconds."""
    t = time.perf_counter()
    results = list(pool.map(duplicate_job, jobs))
    wall = time.perf_counter() - t
    return [r[0] for r in results], [x for r in results for x, _ in r[1]], wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=12, help="boards (default %(default)s)")
    ap.add_argument("--deals", type=Path, default=DATA, help="DD deal file (default %(default)s)")
    ap.add_argument("--worlds", type=int, default=None)
    ap.add_argument("--lead-worlds", type=int, default=None)
    ap.add_argument(
        "--workers",
        type=int,
        default=None,
        help="solver processes of the player (default 0); with --candidate, processes over "
        "chunks of boards (default 1)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--seats", type=int, default=2, help="seats at once, as threads and as processes (0: off)"
    )
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    yard = ap.add_argument_group("the yardstick between two card players (see the module doc)")
    yard.add_argument("--candidate", action="append", default=[], help="card player (repeatable)")
    yard.add_argument("--reference", default=REFERENCE, help="paired against (default %(default)s)")
    yard.add_argument("--bidding", default="default", help="agent spec bidding all four seats")
    yard.add_argument("--first", type=int, default=0, help="first deal used (default 0)")
    yard.add_argument("--chunk", type=int, default=20, help="boards per job (default 20)")
    yard.add_argument("--journal", type=Path, default=None, help="JSONL of finished chunks")
    yard.add_argument(
        "--leads-only",
        action="store_true",
        help="only the opening leads: each player's lead from the same view, costed double "
        "dummy on the real deal (a 26th of a board's work; no IMPs)",
    )
    args = benchmark_args(ap, "bench_cardplay")
    deal_file(args.deals)
    if args.candidate:
        return yardstick(args)
    args.workers = args.workers or 0

    options: Options = {"workers": args.workers, "seed": args.seed}
    for key in ("worlds", "lead_worlds"):
        if getattr(args, key) is not None:
            options[key] = getattr(args, key)
    ours = make_player(options)

    lost: dict[str, dict[str, list[int]]] = {
        "ours": {"decl": [], "def": []},
        "base": {"decl": [], "def": []},
    }
    imp_list: list[int] = []
    lat: list[tuple[float, int]] = []
    per_board: list[float] = []
    alone: list[tuple[Played, Played]] = []
    start_all = time.perf_counter()
    for k in range(args.boards):
        owners, dd, contract, board = held_out(args.deals, k)
        optimum = int(dd[contract.declarer.value, STRAIN_ORDER.index(contract.denom)])
        vul = vul_of(board)
        dd_play = oracle(owners)
        deal = Deal(owners_pbn(owners))
        decl_side = contract.declarer.value % 2

        def seats(declaring: Chooser, defending: Chooser, side: int = decl_side) -> list[Chooser]:
            return [declaring if p.value % 2 == side else defending for p in Player]

        def play(
            choosers: list[Chooser],
            board: int = board,
            deal: Deal = deal,
            contract: Contract = contract,
        ) -> int:
            ours.reset(board)
            result = play_deal(
                deal, contract, choosers, vul=vul_of(board), dealer=dealer_of(board), board=board
            )
            return result[0]

        for name, chooser in (("ours", timed(ours, [])), ("base", baseline_card)):
            lost[name]["decl"].append(optimum - play(seats(chooser, dd_play)))
            lost[name]["def"].append(play(seats(dd_play, chooser)) - optimum)
        # Duplicate: ours N/S in room 1, E/W in room 2; baseline in the other seats.
        t = time.perf_counter()
        (room1, room2), plays = duplicate(ours, owners, contract, board, lat)
        per_board.append(time.perf_counter() - t)
        alone.append(plays)
        diff = ns_score(contract, room1, vul) - ns_score(contract, room2, vul)
        imp_list.append(imps(diff))
        print(
            f"board {board:3d} {contract!s:8} dd {optimum:2d}  lost decl ours "
            f"{lost['ours']['decl'][-1]} base {lost['base']['decl'][-1]}  def ours "
            f"{lost['ours']['def'][-1]} base {lost['base']['def'][-1]}  rooms {room1}/{room2} "
            f"imps {imp_list[-1]:+d}  ({time.perf_counter() - start_all:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
    ours.close()

    n = args.boards
    all_lat = [t for t, _ in lat]
    searched = [t for t, s in lat if s > 0]
    imp_arr = np.array(imp_list, dtype=float)

    def mean(xs: list[int]) -> float:
        return float(np.mean(xs))

    figures: dict[str, Any] = {
        "boards": n,
        "player": {"worlds": ours.worlds, "lead_worlds": ours.lead_worlds, **options},
        "tricks_lost_declarer": {
            "ours": mean(lost["ours"]["decl"]),
            "base": mean(lost["base"]["decl"]),
        },
        "tricks_lost_defence": {
            "ours": mean(lost["ours"]["def"]),
            "base": mean(lost["base"]["def"]),
        },
        "imps_per_board": float(imp_arr.mean()),
        "imps_stderr": mean_stderr(imp_arr.tolist())[1],
        "latency_card_median_s": statistics.median(all_lat),
        "latency_card_p95_s": float(np.percentile(all_lat, 95)),
        "latency_searched_median_s": statistics.median(searched) if searched else 0.0,
        "latency_searched_p95_s": float(np.percentile(searched, 95)) if searched else 0.0,
        "cards": len(all_lat),
        "searched_cards": len(searched),
        "seconds_per_board_ours_two_rooms": statistics.mean(per_board),
    }
    for side in ("declarer", "defence"):
        f = figures[f"tricks_lost_{side}"]
        f["ratio_ours_to_base"] = f["ours"] / f["base"] if f["base"] else float("nan")
    if args.seats > 0:
        figures["seats_at_once"] = seats_at_once(args, options, alone)
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


def seats_at_once(
    args: argparse.Namespace, options: Options, alone: list[tuple[Played, Played]]
) -> dict[str, Any]:
    """The duplicate rooms again, ``args.seats`` boards at once: threads sharing the solver's
    door against processes of one seat each (see the module doc)."""
    jobs = [(args.deals, k, options) for k in range(args.boards)]
    out: dict[str, Any] = {"seats": args.seats}
    spawn = multiprocessing.get_context("spawn")
    pools: list[tuple[str, Callable[[], Executor]]] = [
        ("threads_one_process", lambda: ThreadPoolExecutor(args.seats)),
        ("one_seat_per_process", lambda: ProcessPoolExecutor(args.seats, mp_context=spawn)),
    ]
    for name, make in pools:
        with make() as pool:
            if name == "one_seat_per_process":
                list(pool.map(time.sleep, [0.0] * args.seats))  # start-up is not play
            plays, lat, wall = shared(pool, jobs)
        out[name] = {
            "same_cards_as_alone": plays == alone,
            "card_median_s": statistics.median(lat),
            "card_mean_s": statistics.mean(lat),
            "card_p95_s": float(np.percentile(lat, 95)),
            "wall_s_per_board": wall / args.boards,
        }
        print(f"{name}: {out[name]}", file=sys.stderr, flush=True)
    threads, procs = out["threads_one_process"], out["one_seat_per_process"]
    for key in ("card_median_s", "card_mean_s", "wall_s_per_board"):
        out[f"ratio_threads_to_processes_{key}"] = threads[key] / procs[key]
    return out


# -- the yardstick between two card players ---------------------------------------------------

#: The card player every new figure is paired against: today's (``DDCardPlayer``, blind to the
#: auction).
REFERENCE = "pimc"
#: A job's fields that are not its journal key: the reference records it is handed, and the
#: deal file's path (its sha256 is the key, so a run resumes from any folder).
UNKEYED = ("refs", "deals")


def bid_chunk(deals: list[BoardDeal], bidding: str, seed: int) -> list[tuple[Bid, ...]]:
    """The auctions of ``deals`` with ``bidding`` in all four seats (seeded per seat)."""
    from bridgebot.tournament.ddmatch import agent_seed, bid_room

    with ExitStack() as stack:
        agents = [
            stack.enter_context(make_agent(bidding, agent_seed(seed, 0, s))) for s in range(4)
        ]
        return bid_room(deals, agents, "yardstick")


def chunk_job(job: dict[str, Any]) -> list[dict[str, Any]]:
    """One job: boards ``[lo, hi)`` of the run. Without ``candidate``: bid them and play the
    reference room (records with the auction, contract and ``reference``); with it: the paired
    boards of the candidate against the reference, given the reference records (``refs``)."""
    one_solver_thread()
    deals = load_npz(Path(job["deals"]), boards=job["hi"], first=job["first"])[job["lo"] :]
    ref = Seats(job["reference"], job["seed"], named_card_player)
    leads_only = job.get("leads_only", False)
    try:
        if job["candidate"] is None:
            out = []
            for deal, auction in zip(
                deals, bid_chunk(deals, job["bidding"], job["seed"]), strict=True
            ):
                contract = final_contract(deal.dealer, auction)
                rec: dict[str, Any] = {
                    "board": deal.number,
                    "auction": list(auction_texts(auction)),
                }
                if contract is not None and not leads_only:
                    rec["reference"] = reference_room(deal, auction, contract, ref)
                out.append(rec)
            return out
        cand = Seats(job["candidate"], job["seed"], named_card_player)
        try:
            out = []
            for deal, rec in zip(deals, job["refs"], strict=True):
                auction = tuple(parse_call(c) for c in rec["auction"])
                contract = final_contract(deal.dealer, auction)
                if contract is None:
                    continue
                if leads_only:
                    out.append(leads_board(deal, auction, contract, cand, ref))
                    continue
                out.append(paired_board(deal, auction, contract, cand, ref, rec["reference"]))
            return [{"boards": out, "cpu": {"A": cand.times, "B": ref.times}}]
        finally:
            cand.close()
    finally:
        ref.close()


def run_jobs(jobs: list[dict[str, Any]], workers: int, journal: Path | None) -> list[Any]:
    """Each job's result: from ``journal`` where a line has its key, else run (on ``workers``
    processes) and appended there."""
    from dd_rows import append_journal, journal_lines

    done: dict[str, Any] = {r["key"]: r["result"] for r in journal_lines(journal)}
    keys = [
        json.dumps({k: v for k, v in j.items() if k not in UNKEYED}, sort_keys=True) for j in jobs
    ]
    todo = [(k, j) for k, j in zip(keys, jobs, strict=True) if k not in done]
    t0 = time.monotonic()

    def take(key: str, job: dict[str, Any], result: Any) -> None:
        done[key] = result
        append_journal(journal, {"key": key, "result": result})
        print(
            f"bench_cardplay: {job['candidate'] or job['reference'] + ' (reference)'} boards "
            f"[{job['lo']}, {job['hi']}) done ({time.monotonic() - t0:.0f} s)",
            file=sys.stderr,
            flush=True,
        )

    if workers <= 1:
        for key, job in todo:
            take(key, job, chunk_job(job))
    else:
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=spawn) as pool:
            for (key, job), result in zip(
                todo, pool.map(chunk_job, [j for _, j in todo]), strict=True
            ):
                take(key, job, result)
    return [done[k] for k in keys]


def pm(mean: float, se: float) -> str:
    return f"{mean:+.3f} ± {se:.3f}"


ROLES = ("total", "declarer", "defence", "lead")


def summary(
    cand: str, ref: str, boards: list[dict[str, Any]], cpu: dict[str, list[float]]
) -> dict[str, Any]:
    """The figures of one candidate against the reference (see the module doc)."""
    out: dict[str, Any] = {"candidate": cand, "reference": ref, "boards": len(boards)}
    out["imps"] = {r: mean_stderr([b["imps"][r] for b in boards]) for r in ROLES}
    out["leads_differ"] = sum(b["leads"]["A"] != b["leads"]["B"] for b in boards)
    out["dd_cost"] = {
        role: {
            "A": mean_stderr([b["cost"]["A"][role] for b in boards]),
            "B": mean_stderr([b["cost"]["B"][role] for b in boards]),
            "A_minus_B": mean_stderr([b["cost"]["A"][role] - b["cost"]["B"][role] for b in boards]),
        }
        for role in ("declarer", "defence", "lead")
    }
    out["cpu_per_card_s"] = {
        who: {
            "cards": len(t),
            "median": statistics.median(t) if t else float("nan"),
            "p95": float(np.percentile(t, 95)) if t else float("nan"),
        }
        for who, t in cpu.items()
    }
    return out


def show(f: dict[str, Any]) -> list[str]:
    """The lines printed for one candidate's figures."""
    a, b = f["candidate"], f["reference"]
    lines = [
        f"\n{a} against {b}: {f['boards']} boards played twice (IMPs/board for {a}, paired s.e.)"
    ]
    labels = {
        "total": "total",
        "declarer": "declarer (against the reference declaring)",
        "defence": "defence, the opening lead included (against the reference defending)",
        "lead": f"opening lead alone ({f['leads_differ']} boards lead differently)",
    }
    for role in ROLES:
        lines.append(f"  {labels[role]:<72} {pm(*f['imps'][role])}")
    lines.append(f"  double-dummy cost, tricks/board: {a:>14} {b:>14} {'difference':>16}")
    for role, c in f["dd_cost"].items():
        lines.append(
            f"    {role:<29} {c['A'][0]:>14.3f} {c['B'][0]:>14.3f} {pm(*c['A_minus_B']):>16}"
        )
    ca, cb = f["cpu_per_card_s"]["A"], f["cpu_per_card_s"]["B"]
    lines.append(
        f"  CPU s per card (median, p95): {a} {ca['median']:.4f}, {ca['p95']:.4f}; "
        f"{b} {cb['median']:.4f}, {cb['p95']:.4f} ({ca['cards']} and {cb['cards']} cards)"
    )
    return lines


#: Each player's decisions in rooms AB and BA of a board: 13 for each of the two seats it
#: controls in each room (A declares in AB and defends in BA, B the other way round).
PAIRED_DECISIONS = 52


def paired_times(parts: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Each player's CPU seconds per decision over the same decisions: rooms AB and BA of every
    board. A chunk's ``cpu`` lists each player's decisions in the order played, board by board:
    AB's, BA's, then room BL's where the leads differ (A's opening lead again, B's 51 other
    cards), which are left out here, so that neither player's figure counts another mix of cards
    (B's late cards of BL, A's leads twice)."""
    out: dict[str, list[float]] = {"A": [], "B": []}
    for part in parts:
        at = {"A": 0, "B": 0}
        for board in part["boards"]:
            differ = board["leads"]["A"] != board["leads"]["B"]
            for who, extra in (("A", 1), ("B", 51)):
                out[who] += part["cpu"][who][at[who] : at[who] + PAIRED_DECISIONS]
                at[who] += PAIRED_DECISIONS + (extra if differ else 0)
        for who in at:
            if at[who] != len(part["cpu"][who]):
                raise ValueError(f"a chunk's timings do not match its boards ({who})")
    return out


def final_contract_of(rec: dict[str, Any]) -> Contract | None:
    """The contract a reference record's auction ends in (None: passed out)."""
    dealer = dealer_of(rec["board"])
    return final_contract(dealer, tuple(parse_call(c) for c in rec["auction"]))


def leads_summary(
    cand: str, ref: str, boards: list[dict[str, Any]], cpu: dict[str, list[float]]
) -> dict[str, Any]:
    """``--leads-only``'s figures: each player's leads' double-dummy cost, their paired
    difference, how often they lead alike, and the CPU seconds per lead."""
    return {
        "candidate": cand,
        "reference": ref,
        "boards": len(boards),
        "leads_differ": sum(b["leads"]["A"] != b["leads"]["B"] for b in boards),
        "lead_cost": {
            "A": mean_stderr([b["cost"]["A"] for b in boards]),
            "B": mean_stderr([b["cost"]["B"] for b in boards]),
            "A_minus_B": mean_stderr([b["cost"]["A"] - b["cost"]["B"] for b in boards]),
        },
        "cpu_per_lead_s": {
            who: {"leads": len(t), "median": statistics.median(t) if t else float("nan")}
            for who, t in cpu.items()
        },
    }


def show_leads(f: dict[str, Any]) -> list[str]:
    """The lines printed for one candidate's ``--leads-only`` figures."""
    a, b, c = f["candidate"], f["reference"], f["lead_cost"]
    ca, cb = f["cpu_per_lead_s"]["A"], f["cpu_per_lead_s"]["B"]
    return [
        f"\n{a} against {b}: the opening leads of {f['boards']} boards "
        f"({f['leads_differ']} differ)",
        f"  double-dummy cost of the lead, tricks/board: {a} {c['A'][0]:.3f}, {b} {c['B'][0]:.3f}"
        f", difference {pm(*c['A_minus_B'])}",
        f"  CPU s per lead (median): {a} {ca['median']:.3f}, {b} {cb['median']:.3f}",
    ]


def yardstick(args: argparse.Namespace) -> int:
    """The yardstick's run (see the module doc); 2 on a bad argument, in one line."""
    workers = 1 if args.workers is None else args.workers
    try:
        if workers < 1 or args.chunk < 1 or args.first < 0 or (args.boards or 1) < 1:
            raise UserError("--workers, --chunk and --boards must be >= 1, --first >= 0")
        for spec in [*args.candidate, args.reference]:
            named_card_player(spec, 0).close()
        with contextlib.redirect_stdout(sys.stderr), make_agent(args.bidding):
            pass
        n = len(load_npz(args.deals, boards=args.boards, first=args.first))
    except (UserError, AgentSpecError, BoardSetError) as exc:
        print(f"bench_cardplay: {exc}", file=sys.stderr)
        return 2
    base = {"deals": str(args.deals), "deals_sha256": file_sha256(args.deals),
            "first": args.first, "bidding": args.bidding, "seed": args.seed,
            "reference": args.reference}  # fmt: skip
    if args.leads_only:
        base["leads_only"] = True
    spans = [(lo, min(lo + args.chunk, n)) for lo in range(0, n, args.chunk)]

    def ref_job(lo: int, hi: int) -> dict[str, Any]:
        return {**base, "candidate": None, "lo": lo, "hi": hi}

    def cand_job(c: str, lo: int, hi: int, refs: Any) -> dict[str, Any]:
        return {**base, "candidate": c, "lo": lo, "hi": hi, "refs": refs}

    if workers == 1:  # span by span, so that a run stopped early has every player's boards
        refs, results = [], []
        for lo, hi in spans:
            refs += run_jobs([ref_job(lo, hi)], 1, args.journal)
            jobs = [cand_job(c, lo, hi, refs[-1]) for c in args.candidate]
            results.append(run_jobs(jobs, 1, args.journal))
        per_cand = [[r[k] for r in results] for k in range(len(args.candidate))]
    else:
        refs = run_jobs([ref_job(lo, hi) for lo, hi in spans], workers, args.journal)
        jobs = [
            cand_job(c, lo, hi, r)
            for c in args.candidate
            for (lo, hi), r in zip(spans, refs, strict=True)
        ]
        results = run_jobs(jobs, workers, args.journal)
        per_cand = [
            results[k * len(spans) : (k + 1) * len(spans)] for k in range(len(args.candidate))
        ]
    passed = sum(final_contract_of(rec) is None for r in refs for rec in r)
    print(
        f"card-play yardstick: {args.deals} [{args.first}, +{n}), contracts bid by "
        f"{args.bidding} in all four seats ({passed} passed out), reference {args.reference}"
    )
    figures = []
    for cand, done in zip(args.candidate, per_cand, strict=True):
        parts = [p[0] for p in done]
        boards = [b for p in parts for b in p["boards"]]
        if args.leads_only:
            cpu = {w: [t for p in parts for t in p["cpu"][w]] for w in ("A", "B")}
            f = leads_summary(cand, args.reference, boards, cpu)
            figures.append(f)
            print("\n".join(show_leads(f)))
            continue
        f = summary(cand, args.reference, boards, paired_times(parts))
        figures.append(f)
        print("\n".join(show(f)))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        out = {**base, "boards": n, "candidates": figures}
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
