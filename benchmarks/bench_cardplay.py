"""Card play strength and speed: the double-dummy Monte Carlo player against the baseline.

Deals come from the end of ``../shared/data/dd_2026.npz`` (held out: training reads from the
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
  per board.

Usage: ``python benchmarks/bench_cardplay.py [--boards 12] [--worlds 32] [--time-limit 1.0]``;
the default size takes about ten minutes of this 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from endplay.types import Card, Contract, Deal, Penalty, Player

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.agent import PlayView
from engine.cardplay import DDCardPlayer, baseline_card, play_deal, play_state
from engine.dds import hands_pbn, index_card, solve_positions
from engine.scoring import STRAIN_ORDER, contract_score, imps, ns_score, side_vulnerable
from server.boards import dealer_of, vul_of

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "dd_2026.npz"
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=12)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--worlds", type=int, default=None)
    ap.add_argument("--lead-worlds", type=int, default=None)
    ap.add_argument("--time-limit", type=float, default=None)
    ap.add_argument("--lead-time-limit", type=float, default=None)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args()

    z = np.load(args.data)
    owners_all, dd_all = z["owners"], z["dd"]
    n_total = len(owners_all)
    options: dict[str, float | int] = {}
    for key in ("worlds", "lead_worlds", "time_limit", "lead_time_limit"):
        if getattr(args, key) is not None:
            options[key] = getattr(args, key)
    ours = DDCardPlayer(workers=args.workers, seed=args.seed, **options)  # type: ignore[arg-type]

    lost = {"ours": {"decl": [], "def": []}, "base": {"decl": [], "def": []}}
    imp_list: list[int] = []
    lat: list[tuple[float, int]] = []
    per_board: list[float] = []
    start_all = time.perf_counter()
    for k in range(args.boards):
        i = n_total - 1 - k
        board = k + 1
        owners = owners_all[i].astype(np.int64)
        deal = Deal(hands_pbn(owners))
        contract = contract_for(owners, dd_all[i], board)
        optimum = int(dd_all[i, contract.declarer.value, STRAIN_ORDER.index(contract.denom)])
        vul = vul_of(board)
        dd_play = oracle(owners)
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
        mine = timed(ours, lat)
        room1 = play([mine if p.value % 2 == 0 else baseline_card for p in Player])
        room2 = play([baseline_card if p.value % 2 == 0 else mine for p in Player])
        per_board.append(time.perf_counter() - t)
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

    figures = {
        "boards": n,
        "player": {
            "worlds": ours.worlds,
            "lead_worlds": ours.lead_worlds,
            "time_limit": ours.time_limit,
            "lead_time_limit": ours.lead_time_limit,
            "workers": args.workers,
        },
        "tricks_lost_declarer": {
            "ours": mean(lost["ours"]["decl"]),
            "base": mean(lost["base"]["decl"]),
        },
        "tricks_lost_defence": {
            "ours": mean(lost["ours"]["def"]),
            "base": mean(lost["base"]["def"]),
        },
        "imps_per_board": float(imp_arr.mean()),
        "imps_stderr": float(imp_arr.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan"),
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
        assert isinstance(f, dict)
        f["ratio_ours_to_base"] = f["ours"] / f["base"] if f["base"] else float("nan")
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
