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
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from endplay.types import Card, Contract, Deal, Penalty, Player

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridgebot.core.stats import mean_stderr
from bridgebot.engine.agent import PlayView
from bridgebot.engine.cardplay import (
    LEAD_WORLDS,
    WORLDS,
    DDCardPlayer,
    baseline_card,
    play_deal,
    play_state,
)
from bridgebot.engine.dds import solve_positions
from bridgebot.laws.boards import dealer_of, side_vulnerable, vul_of
from bridgebot.laws.cards import index_card, owners_pbn
from bridgebot.laws.scoring import STRAIN_ORDER, contract_score, imps, ns_score

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
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--seats", type=int, default=2, help="seats at once, as threads and as processes (0: off)"
    )
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = benchmark_args(ap, "bench_cardplay")
    deal_file(args.deals)

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


if __name__ == "__main__":
    raise SystemExit(main())
