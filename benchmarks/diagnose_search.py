#!/usr/bin/env python3
"""Where the search's verdict goes wrong (issue 60, step 1): its value of each candidate call
against the truth, one source of error at a time.

The search (``--spec``, ``search`` by default) bids North-South against ``--them`` in one room on
``--boards`` deals of the seeded stream ``--seed``. At every decision where the search compared
two or more candidates, the same search is run again on the side (its own generator, so the
match's calls do not change) and each candidate's value is read five ways, as the paired mean
difference from the policy's own call (``cands[0]``), in points:

1. ``search``: the search's own estimate (its particles, its rollouts, its oracle, ``ddnet`` by
   default): what it decides by;
2. ``solver``: the same particles and the same rollouts, the tricks from the double-dummy solver
   (on the ``--solver-particles`` most drawn particles, so the two are paired): 1 minus 2 is the
   oracle's error;
3. ``true deal``: the real deal, the rollouts of each opponent model, the solver's tricks: 2 minus
   3 is the particles' error (the hidden hands they hold are not the real ones);
4. ``real bidders``: the real deal, the auction finished by the real opponents (``--them``) and
   our policy (the search's base, ``default`` for the search's partner), the solver's tricks:
   3 minus 4 is the rollouts' error (the opponent models are not the opponents);
5. ``imps``: column 4 in IMPs (what the team match pays).

With ``--real-play [PLAYER]`` (off by default; PLAYER is a card player as
:func:`bridgebot.card_players.named_card_player` reads it, ``auction`` by default, ``default``'s
own), the contracts that column 4 reached for the policy's call and for the other candidate are
each played out on the real deal by PLAYER in all four seats and scored by the tricks taken:

6. ``real play``: the paired difference other-minus-policy of those scores, in points (``play
   IMPs``: the same in IMPs);
7. ``play err``: 4 minus 6, what double dummy gets wrong about the two contracts' value when the
   cards are really played (``play err IMPs``: 5 minus 6's IMPs).

Each seat's player is seeded by ``--seed`` and the seat and re-seeded by the board
(``cardplay_match.Seats``, as ``bench_cardplay.py`` seats them), so the two contracts' plays draw
the same worlds as far as they can (common random numbers). Where both candidates reach the same
contract (level, strain, doubling) by the same declarer it is played once (the policy's auction
shown to the players) and reads exactly 0; a passed-out board scores 0 unplayed. It costs up to
two played boards per searched decision, about 5-10 CPU s each with ``auction``'s default budget.

Besides, ``near``: the share of the filter's weight on the tenth of the particles nearest the real
hidden hands (suit lengths and high-card points of the three hidden hands): a tenth is what the
filter would give if it knew nothing of the truth.

Positions are grouped by kind: a close call between two bids (the policy's call a bid, the other
candidate a bid with a prior of ``--close`` or more), other decisions, and whether the search
changed the policy's call. A line per position goes to ``--journal`` (JSON; a rerun with the same
journal skips the boards it holds, a line torn by a killed run is dropped and its board played
again), and the table is printed at the end::

    python benchmarks/diagnose_search.py --seed 9501 --boards 200 --them bfg \\
        --journal out/diagnose_9501.jsonl [--real-play]

The real-play columns are printed only where the positions have them. A journal written without
``--real-play`` is still read: its positions keep their five readings, and the real-play columns
are means over the positions that have them, ``n played`` saying how many (rerun into a new
journal to have them everywhere). A journal's positions are all played by one PLAYER: resuming
one with another is refused.

It costs one extra search and about ``--solver-particles`` x 2 solves per searched decision, and
with ``--real-play`` the played boards above.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling scripts

from bridgebot.core.argtypes import positive_int, seed_number
from bridgebot.engine.agent import Agent, AgentSpecError, BiddingView, bidding_view
from bridgebot.engine.search import BorelSearch
from bridgebot.engine.search.borel import close_bid_change
from bridgebot.engine.search.config import SearchResult
from bridgebot.engine.search.particles import resample
from bridgebot.engine.search.rollouts import Contracts, final_contracts, score_for_side
from bridgebot.laws.board_sets import generate
from bridgebot.laws.boards import BoardDeal
from bridgebot.laws.calls import ALL_CALLS, auction_over, bid_index, final_contract, to_call
from bridgebot.laws.cards import deal_owners
from bridgebot.laws.notation import contract_declarer_text
from bridgebot.laws.scoring import imps_array
from cardplay_match import Seats, play_room
from dd_rows import append_journal, journal_lines
from endplay.types import Bid

from bridgebot.agents import make_agent
from bridgebot.card_players import named_card_player

KINDS = ("close, changed", "close, kept", "other, changed", "other, kept")
COLUMNS = ("search", "solver", "true deal", "real bidders")
#: ``--real-play``'s card player when the flag names none: ``default``'s own.
REAL_PLAYER = "auction"

# -- the truth of one position ------------------------------------------------------------------


def shape_points(owners: npt.NDArray[np.uint8], seats: Sequence[int]) -> npt.NDArray[np.int64]:
    """Per deal row of ``owners`` [n, 52], the suit lengths and HCP of ``seats``: [n, 5 x seats].

    Cards are indexed suit-major, ranks from the ace down (docs/data.md)."""
    rank_points = np.zeros(13, dtype=np.int64)
    rank_points[:4] = (4, 3, 2, 1)  # A K Q J
    pts = np.tile(rank_points, 4)
    cols = []
    for s in seats:
        mine = owners == s
        cols.append(mine.reshape(-1, 4, 13).sum(axis=2))
        cols.append((mine * pts[None, :]).sum(axis=1, keepdims=True))
    return np.concatenate(cols, axis=1).astype(np.int64)


def near_share(
    particles: npt.NDArray[np.uint8],
    weights: npt.NDArray[np.float64],
    truth: npt.NDArray[np.uint8],
    seat: int,
) -> float:
    """The share of ``weights`` on the tenth of ``particles`` nearest ``truth`` (L1 over the three
    hidden hands' suit lengths and HCP)."""
    hidden = [s for s in range(4) if s != seat]
    d = np.abs(shape_points(particles, hidden) - shape_points(truth[None], hidden)).sum(axis=1)
    near = d <= np.quantile(d, 0.1)
    return float(weights[near].sum() / weights.sum())


def continue_real(
    deal: BoardDeal, auction: tuple[Bid, ...], ours: Agent, theirs: Agent, our_seat: int
) -> tuple[Bid, ...]:
    """``auction`` finished on the real deal: our side by ``ours``, the opponents by ``theirs``."""
    while not auction_over(auction):
        seat = to_call(deal.dealer, auction)
        view = bidding_view(deal.dealer, deal.vul, deal.deal[seat], auction, deal.number)
        agent = ours if seat.value % 2 == our_seat % 2 else theirs
        auction += (agent.bid(view),)
    return auction


def auction_contracts(auctions: Sequence[tuple[Bid, ...]], dealer: int) -> Contracts:
    """The final contract of each finished auction (dealer ``dealer``), as the search scores them."""
    width = max(len(a) for a in auctions)
    rows = np.full((len(auctions), width), -1, dtype=np.int64)
    for i, a in enumerate(auctions):
        rows[i, : len(a)] = [bid_index(c) for c in a]
    return final_contracts(rows, dealer)


def score_auctions(
    search: BorelSearch,
    truth: npt.NDArray[np.uint8],
    auctions: Sequence[tuple[Bid, ...]],
    dealer: int,
    vul: int,
    seat: int,
) -> npt.NDArray[np.float64]:
    """Our side's double-dummy score of each finished auction on the real deal."""
    contracts = auction_contracts(auctions, dealer)
    owners = np.repeat(truth[None], len(auctions), axis=0)
    tricks = np.zeros(len(auctions), dtype=np.int64)
    played = np.flatnonzero(contracts.level > 0)
    if played.size:
        tricks[played] = search.exact.tricks(
            owners[played], contracts.declarer[played], contracts.strain[played]
        )
    return score_for_side(contracts, tricks, vul, seat).astype(np.float64)


def play_auctions(
    seats: Seats, deal: BoardDeal, auctions: Sequence[tuple[Bid, ...]], seat: int
) -> dict[str, Any]:
    """Each finished auction's contract played out on ``deal`` by ``seats``' players in all four
    seats (each shown the auction that reached it), scored for ``seat``'s side by the tricks
    taken. A contract reached again (level, strain, doubling and declarer the same) is not played
    again: it takes the tricks of its first play; a passed-out auction scores 0 unplayed.

    Returns ``scores`` (points, one per auction), ``contracts`` (``4HXS``; ``passed out``),
    ``tricks`` (declarer's; None where passed out) and ``plays`` (boards played)."""
    contracts = auction_contracts(auctions, deal.dealer.value)
    tricks = np.zeros(len(auctions), dtype=np.int64)
    names: list[str] = []
    taken: list[int | None] = []
    played: dict[str, int] = {}
    for i, auction in enumerate(auctions):
        contract = final_contract(deal.dealer, auction)
        if contract is None:
            names.append("passed out")
            taken.append(None)
            continue
        name = contract_declarer_text(contract)
        if name not in played:
            played[name] = play_room(deal, auction, contract, seats, seats).tricks
        tricks[i] = played[name]
        names.append(name)
        taken.append(played[name])
    scores = score_for_side(contracts, tricks, deal.vul.value, seat).astype(np.float64)
    return {"scores": scores, "contracts": names, "tricks": taken, "plays": len(played)}


def diagnose(
    search: BorelSearch,
    view: BiddingView,
    result: SearchResult,
    deal: BoardDeal,
    real: tuple[Agent, Agent],
    solver_particles: int,
    close: float,
    rng: np.random.Generator,
    play: Seats | None = None,
) -> dict[str, Any]:
    """The five readings of the module docstring for one searched decision, as a journal row;
    with ``play``, the real-play readings too (its players' spec, ``play.spec``, as ``player``)."""
    cfg = search.config
    cands = list(result.candidates)
    prior, history = search.prior(view)
    seat, dealer, vul = view.seat.value, view.dealer.value, view.vul.value
    truth = deal_owners(deal.deal)
    hand = truth == seat
    particles = search.particles(view, hand.astype(np.uint8), cfg.particles, rng)
    weights = search.model_weights(particles, view, history)
    stats: dict[str, float] = {}
    per_model: dict[str, dict[str, Any]] = {}
    for i, (name, model) in enumerate(search.opponents):
        w = weights[i]
        draws = resample(w, cfg.rollouts, rng)
        unique, counts = np.unique(draws, return_counts=True)
        est = search.values(particles[unique], cands, view, history, model, rng, stats)
        top = np.argsort(-counts, kind="stable")[:solver_particles]
        exact = search.values(
            particles[unique[top]], cands, view, history, model, rng, stats, search.exact
        )
        cw, tw = counts / counts.sum(), counts[top] / counts[top].sum()
        on_truth = search.values(truth[None], cands, view, history, model, rng, stats, search.exact)
        per_model[name] = {
            "search": (est - est[0]) @ cw,
            "search_top": (est[:, top] - est[0, top]) @ tw,
            "solver": (exact - exact[0]) @ tw,
            "true deal": on_truth[:, 0] - on_truth[0, 0],
            "near": near_share(particles, w, truth, seat),
        }
    ours, theirs = real
    auctions = []
    for c in cands:
        ours.reset(deal.number)
        theirs.reset(deal.number)
        auctions.append(continue_real(deal, (*view.auction, ALL_CALLS[c]), ours, theirs, seat))
    real_scores = score_auctions(search, truth, auctions, dealer, vul, seat)
    real_diff = real_scores - real_scores[0]
    pick = bid_index(result.call)
    j = cands.index(pick) if pick in cands else 0
    second = cands[1] if j == 0 else pick
    is_close = bool(close_bid_change(cands[0], second, prior[second], close))
    changed = j != 0
    kind = f"{'close' if is_close else 'other'}, {'changed' if changed else 'kept'}"
    # The other candidate the verdict is about: the search's pick where it changed the call, the
    # likeliest other candidate where it kept it.
    k = j if changed else 1

    def mean(key: str) -> float:
        return float(np.mean([m[key][k] for m in per_model.values()]))

    row = {
        "board": deal.number,
        "auction": " ".join(map(str, view.auction)),
        "seat": view.seat.name,
        "candidates": [str(ALL_CALLS[c]) for c in cands],
        "prior": [round(float(prior[c]), 4) for c in cands],
        "pick": str(result.call),
        "kind": kind,
        "other": str(ALL_CALLS[cands[k]]),
        "search": mean("search"),
        "search_top": mean("search_top"),
        "solver": mean("solver"),
        "true deal": mean("true deal"),
        "real bidders": float(real_diff[k]),
        "imps": int(imps_array(np.array([real_diff[k]]))[0]),
        "near": float(np.mean([m["near"] for m in per_model.values()])),
        "real_auctions": [" ".join(map(str, a[len(view.auction) :])) for a in auctions],
    }
    if play is not None:
        cpu = time.process_time()
        got = play_auctions(play, deal, [auctions[0], auctions[k]], seat)
        diff = float(got["scores"][1] - got["scores"][0])
        row |= {
            "real play": diff,
            "play imps": int(imps_array(np.array([diff]))[0]),
            "play err": float(real_diff[k]) - diff,
            "player": play.spec,
            "play_contracts": got["contracts"],
            "play_tricks": got["tricks"],
            "plays": got["plays"],
            "play_cpu_s": round(time.process_time() - cpu, 2),
        }
    return row


# -- the run ----------------------------------------------------------------------------------


@contextmanager
def diagnosing(
    deals: dict[int, BoardDeal],
    real: tuple[Agent, Agent],
    args: argparse.Namespace,
    out: list[dict[str, Any]],
    play: Seats | None = None,
) -> Iterator[None]:
    """Every :meth:`BorelSearch.search` with two or more candidates is diagnosed on the side
    (its contracts played out by ``play``'s players where given)."""
    original = BorelSearch.search

    def search(self: BorelSearch, view: BiddingView, rng: np.random.Generator) -> SearchResult:
        result = original(self, view, rng)
        if result.searched and len(result.candidates) >= 2 and view.board in deals:
            side = np.random.default_rng([args.seed, view.board, len(view.auction)])
            out.append(
                diagnose(
                    self,
                    view,
                    result,
                    deals[view.board],
                    real,
                    args.solver_particles,
                    args.close,
                    side,
                    play,
                )
            )
        return result

    BorelSearch.search = search  # type: ignore[method-assign]
    try:
        yield
    finally:
        BorelSearch.search = original  # type: ignore[method-assign]


def fmt(a: npt.NDArray[np.float64]) -> str:
    """A column's mean with its standard error, in whole points."""
    se = a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float("nan")
    return f"{a.mean():+.0f} ({se:.0f})"


def table(rows: Sequence[dict[str, Any]]) -> str:
    """The markdown table of the journal's rows, by kind of decision. Where any row has the
    real-play readings (``--real-play``), five columns more: ``real play``, ``play IMPs``,
    ``play err`` and ``play err IMPs`` (``imps`` minus ``play imps``) over the rows that have
    them, and ``n played``, how many these are."""
    with_play = any("real play" in r for r in rows)
    head = ("| decisions | n | " + " | ".join(COLUMNS) + " | IMPs | oracle err | particle err | "
            "rollout err | sign right | near |")  # fmt: skip
    if with_play:
        head += " real play | play IMPs | play err | play err IMPs | n played |"
    lines = [head, "| --- " * (head.count(" | ") + 1) + "|"]
    for kind in (*KINDS, "all"):
        sel = [r for r in rows if kind == "all" or r["kind"] == kind]
        if not sel:
            continue
        col = {c: np.array([r[c] for r in sel], dtype=np.float64) for c in COLUMNS}
        imps = np.array([r["imps"] for r in sel], dtype=np.float64)
        top = np.array([r["search_top"] for r in sel], dtype=np.float64)
        right = np.mean(np.sign(col["search"]) == np.sign(col["real bidders"]))
        line = (
            f"| {kind} | {len(sel)} | "
            + " | ".join(fmt(col[c]) for c in COLUMNS)
            + f" | {imps.mean():+.2f} | {fmt(top - col['solver'])} | "
            f"{fmt(col['solver'] - col['true deal'])} | "
            f"{fmt(col['true deal'] - col['real bidders'])} | {right:.0%} | "
            f"{np.mean([r['near'] for r in sel]):.2f} |"
        )
        if with_play:
            played = [r for r in sel if "real play" in r]
            if played:
                real = np.array([r["real play"] for r in played], dtype=np.float64)
                err = np.array([r["play err"] for r in played], dtype=np.float64)
                imp = np.array([r["play imps"] for r in played], dtype=np.float64)
                err_imps = np.array([r["imps"] for r in played], dtype=np.float64) - imp
                line += (
                    f" {fmt(real)} | {imp.mean():+.2f} | {fmt(err)} | {err_imps.mean():+.2f} | "
                    f"{len(played)} |"
                )
            else:
                line += " - | - | - | - | 0 |"
        lines.append(line)
    return "\n".join(lines)


def read_journal(path: Path | None) -> tuple[list[dict[str, Any]], set[int]]:
    """The rows of the boards the journal ``path`` finished, and those boards. A board's rows
    without its ``done_board`` line (a run killed during the board) are dropped: it is played
    again. A torn line is skipped (``dd_rows.journal_lines``)."""
    entries = journal_lines(path)
    done = {e["done_board"] for e in entries if "done_board" in e}
    return [e for e in entries if "done_board" not in e and e["board"] in done], done


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default="search", help="the search agent (default: search)")
    ap.add_argument("--base", default="default", help="our side in the real continuations")
    ap.add_argument("--them", default="bfg", help="the opponents (default: bfg)")
    ap.add_argument("--seed", type=seed_number, default=9501, help="deal stream (default 9501)")
    ap.add_argument("--boards", type=positive_int, default=100)
    ap.add_argument("--solver-particles", type=positive_int, default=32,
                    help="particles the solver scores per model and decision (default 32)")  # fmt: skip
    ap.add_argument("--close", type=float, default=0.2,
                    help="least prior of the other bid of a close call (default 0.2)")  # fmt: skip
    ap.add_argument("--real-play", nargs="?", const=REAL_PLAYER, metavar="PLAYER",
                    help="also play both candidates' contracts out with this card player in all "
                    f"four seats (default {REAL_PLAYER}); a played board or two per decision")  # fmt: skip
    ap.add_argument("--journal", type=Path, help="JSON lines, one per decision; resumes")
    args = ap.parse_args(argv)
    rows, done = read_journal(args.journal)
    if args.real_play is not None:
        try:
            named_card_player(args.real_play, 0).close()
        except AgentSpecError as e:
            print(f"diagnose_search: --real-play: {e}", file=sys.stderr)
            return 2
        others = {r["player"] for r in rows if "player" in r} - {args.real_play}
        if others:
            print(f"diagnose_search: {args.journal} was played by {', '.join(sorted(others))}, "
                  f"not {args.real_play!r}: use another journal", file=sys.stderr)  # fmt: skip
            return 2
    deals = [d for d in generate(args.seed, args.boards) if d.number not in done]
    started = time.perf_counter()
    with ExitStack() as stack:
        north, south = (stack.enter_context(make_agent(args.spec, s)) for s in (1, 3))
        east, west = (stack.enter_context(make_agent(args.them, s)) for s in (2, 4))
        ours = stack.enter_context(make_agent(args.base, 5))
        theirs = stack.enter_context(make_agent(args.them, 6))
        play = None
        if args.real_play is not None:
            play = Seats(args.real_play, args.seed, named_card_player)
            stack.callback(play.close)
        seats = (north, east, south, west)
        for n, deal in enumerate(deals, 1):
            new: list[dict[str, Any]] = []
            with diagnosing({deal.number: deal}, (ours, theirs), args, new, play):
                for a in seats:
                    a.reset(deal.number)
                auction: tuple[Bid, ...] = ()
                while not auction_over(auction):
                    seat = to_call(deal.dealer, auction)
                    view = bidding_view(
                        deal.dealer, deal.vul, deal.deal[seat], auction, deal.number
                    )
                    auction += (seats[seat.value].bid(view),)
            rows.extend(new)
            for r in new:
                append_journal(args.journal, r)
            append_journal(args.journal, {"done_board": deal.number})
            print(
                f"\rboard {n}/{len(deals)}: {len(rows)} decisions, "
                f"{time.perf_counter() - started:.0f} s",
                end="", file=sys.stderr, flush=True,
            )  # fmt: skip
    print(file=sys.stderr)
    print(f"search {args.spec!r} (N-S) against {args.them!r}, seed {args.seed}, "
          f"{args.boards} boards; differences from the policy's call, points")  # fmt: skip
    played = [r for r in rows if "real play" in r]
    if played:
        players = sorted({r["player"] for r in played})
        print(f"real play by {', '.join(players)} on {len(played)} of {len(rows)} decisions "
              f"({sum(r['plays'] for r in played)} boards played)")  # fmt: skip
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
