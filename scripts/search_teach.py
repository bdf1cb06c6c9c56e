"""Search-labelled auctions for distilling the search into the policy (expert iteration).

The search agent (``--spec``, default ``search``) bids one side of each board against an EPBot
training card, in both rooms of a team match (the search North-South in the open room, East-West
in the closed one), so every auction holds the search's calls for one side and the card's for the
other. The output is a teacher file (``docs/data.md``: owners, dealer, vul, auctions) plus
``our_side`` [N] (0: North-South bid by the search, 1: East-West) and ``card`` [N] (index into
the file's ``cards``), and for every call the search searched ``soft_row``, ``soft_pos`` (the
auction and the call's position in it) and ``soft_target`` [M, 38] (the policy's prior, with the
searched candidates' share of it divided as the search's posterior: the improved policy of
Lockhart et al.'s search) and ``soft_gain`` [M] (``SearchResult.gain``: the search's estimate of
the gain of the call it made over the policy's best, the least over its opponent models, in
points; NaN too for the rows of a file made before it was kept), so that a distillation can learn
the clear changes alone; ``bridgebot train distill`` (:mod:`models.distill`) trains on them.

With ``--follow SPEC`` the search is asked, not followed: ``SPEC`` (for example ``default``) bids
the side's calls, so the auctions are the ones that agent reaches, and at each of the side's
positions the search is asked for its call as well. The file then holds ``labels`` (the shape of
``auctions``: the search's call at the side's positions, the auction's call elsewhere), which
``train distill`` reads in place of the auctions' calls: the teacher's calls at the positions its
student meets (DAgger's states, not the teacher's; run 24 in docs/evaluation.md).

Chunks of ``--chunk`` boards are saved as they finish (the file is rewritten atomically); rerunning
the same command continues after the last saved chunk. Rerunning it with a smaller ``--boards`` (a
multiple of ``--chunk``) cuts the file back to that many boards and records that command: the
same file the smaller command makes, so a run stopped short is named by a command that remakes
it. The report cards (WBridge5-Sayc, WBridge5-21GF) are refused: they stay out of every training
run. ``--workers N`` bids N chunks at a time in worker processes; the file does not depend on it
(chunk k's boards, card and seed depend on k alone). ``--run NAME`` keeps the file in
``$BRIDGEBOT_RUNS/NAME`` (:mod:`core.runs`), outside the work tree, so the same command resumes
it in a later session; ``--out`` gets a copy when the run ends. SIGTERM stops a run as Ctrl-C
does: the chunks saved are kept. ``scripts/label_run.sh`` is the one command for a machine's
cores (docs/data.md, "Long runs").

    BRIDGEBOT_EPBOT=/path/to/epbot nice -n 10 python scripts/search_teach.py \\
        --deals data/dd_2026.npz --first 10000 --boards 4000 --out data/distill/st_a.npz
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import argparse
import json
import shlex
import signal
import time
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import numpy as np

#: The cards the search meets: EPBot's training cards (every card but the two report rows).
CARDS = (
    "Acol,BBA-21GF,BBA-Sayc,BEN-21GF,BEN-SAYC,BEN-UCBC,BlueChip-Sayc,LIA-21GF,Meadowlark,"
    "Meckwell,Micro_Bridge_13.4,QPlus-21GF,Robo-Sayc,Shark-Sayc,WJ,default"
)
REPORT_CARDS = {"WBridge5-Sayc", "WBridge5-21GF"}


def _changed_settings(made: dict[str, Any] | None, now: dict[str, Any]) -> str:
    """The options whose value differs between a file's recorded ``settings`` and this run's,
    as ``role.key: old -> new`` joined by commas; empty where they agree or the file, made
    before settings were recorded, holds none."""
    if made is None:
        return ""
    from bridgebot import marks

    # a file made before settings named files by their record names: its paths read so too
    was = {
        role: {key: marks.named_setting(key, value) for key, value in values.items()}
        for role, values in made.items()
    }
    return ", ".join(
        f"{role}.{key}: {was[role].get(key)!r} -> {value!r}"
        for role, values in now.items()
        if role in was
        for key, value in values.items()
        if was[role].get(key) != value
    )


def _load(path: Path) -> dict[str, np.ndarray]:
    if not path.is_file():
        return {}
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _padded(auctions: list[list[int]], width: int) -> np.ndarray:
    """Auctions as call indices in rows of ``width``, padded with -1."""
    out = np.full((len(auctions), width), -1, np.int8)
    for i, a in enumerate(auctions):
        out[i, : len(a)] = a
    return out


def _target(d: Any) -> np.ndarray:
    """A searched call's target [38]: the prior with the candidates' mass shared by the
    posterior (float16, as saved)."""
    target = d.prior.astype(np.float64).copy()
    held = float(target[d.candidates].sum())
    target[d.candidates] = held * d.posterior[d.candidates]
    return target.astype(np.float16)


def _first_boards(have: dict[str, np.ndarray], boards: int) -> dict[str, np.ndarray]:
    """The arrays of a label file cut to its first ``boards`` boards (two auctions a board, in
    the order they were bid; the searched calls of those auctions)."""
    n = 2 * boards
    out = dict(have)
    for k in ("owners", "dealer", "vul", "our_side", "card"):
        out[k] = have[k][:n]
    width = int((have["auctions"][:n] >= 0).sum(axis=1).max())  # padded as the file would be
    out["auctions"] = have["auctions"][:n, :width]
    if "labels" in have:
        out["labels"] = have["labels"][:n, :width]
    if "soft_row" in have:
        keep = have["soft_row"] < n
        for k in ("soft_row", "soft_pos", "soft_target", "soft_gain"):
            if k in have:
                out[k] = have[k][keep]
    out["boards_done"] = np.array(boards)
    return out


class Asked:
    """One seat in ``--follow`` mode: ``follow`` makes the call, ``search`` is asked at the same
    view. ``calls`` holds the search's call for each of the board's views, and ``searched`` its
    :class:`engine.search.config.SearchResult` where it searched (None where a convention forced
    the call, which is then not searched)."""

    def __init__(self, search: Any, follow: Any) -> None:
        self.search, self.follow = search, follow
        self.name = follow.name
        self.calls: list[Any] = []
        self.searched: list[Any] = []

    def reset(self, board: int) -> None:
        self.search.reset(board)
        self.follow.reset(board)
        self.calls, self.searched = [], []

    def bid(self, view: Any) -> Any:
        before = len(self.search.results)
        self.calls.append(self.search.bid(view))
        made = self.search.results[before:]
        self.searched.append(made[0] if made and made[0].searched else None)
        return self.follow.bid(view)


@dataclass(frozen=True)
class Chunk:
    """One chunk's work: its boards, bid in both rooms with ``spec`` (asked while ``follow``
    bids, where given) against EPBot's ``card`` (``card_index`` in the file's cards); the agents'
    seed is ``seed`` (the run's seed plus the chunk's first board, so a chunk's calls depend on
    the chunk alone, not on the worker or the chunks before it)."""

    spec: str
    follow: str | None
    card: str
    card_index: int
    seed: int
    deals: list[Any]


def label_chunk(job: Chunk) -> dict[str, Any]:
    """Worker: bid ``job``'s boards, the search North-South in the open room and East-West in
    the closed one. Returns the chunk's rows as :func:`main` appends them to the file:
    ``owners``, ``dealer``, ``vul``, ``our_side``, ``card`` (arrays, two auctions a board, the
    open room's first), ``auctions`` and ``labels`` (lists of call indices; ``labels`` empty
    without ``follow``) and ``soft_row`` (counted from the chunk's first auction), ``soft_pos``,
    ``soft_target``."""
    from bridgebot.laws.calls import bid_index
    from bridgebot.laws.cards import deal_owners
    from bridgebot.tournament.ddmatch import agent_seed, bid_room, seated_agents
    from bridgebot.tournament.seatings import US, seatings

    from bridgebot.agents import make_agent

    rows: dict[str, list[np.ndarray]] = {
        k: [] for k in ("owners", "dealer", "vul", "our_side", "card")
    }
    auctions: list[list[int]] = []
    labels: list[list[int]] = []
    soft: dict[str, list[np.ndarray]] = {k: [] for k in ("row", "pos", "target", "gain")}

    def searched(row: int, p: int, d: Any) -> None:
        soft["row"].append(np.array([row], np.int32))
        soft["pos"].append(np.array([p], np.int16))
        soft["target"].append(_target(d)[None, :])
        soft["gain"].append(np.array([d.gain], np.float32))

    with ExitStack() as stack:
        agents = stack.enter_context(
            seated_agents(make_agent, job.spec, f"epbot:{job.card}", seatings("team"), job.seed)
        )
        if job.follow:  # the same seats, the follower bidding and the search asked
            for r, seating in enumerate(seatings("team")):
                room = agents[seating.room]
                agents[seating.room] = tuple(
                    Asked(a, stack.enter_context(make_agent(job.follow, seed))) if team == US else a
                    for a, team, seed in zip(
                        room,
                        seating.teams,
                        (agent_seed(job.seed, r, s) for s in range(4)),
                        strict=True,
                    )
                )
        for seating in seatings("team"):
            room = agents[seating.room]
            for deal in job.deals:  # one at a time: a search agent keeps one board's searches
                (auction,) = bid_room([deal], room, seating.room)
                side = 0 if seating.teams[0] == US else 1
                label = [bid_index(c) for c in auction]
                row = len(auctions)
                rows["owners"].append(deal_owners(deal.deal)[None, :].astype(np.uint8))
                rows["dealer"].append(np.array([deal.dealer.value], np.uint8))
                rows["vul"].append(np.array([deal.vul.value], np.uint8))
                rows["our_side"].append(np.array([side], np.uint8))
                rows["card"].append(np.array([job.card_index], np.uint8))
                auctions.append([bid_index(c) for c in auction])
                for seat in (side, side + 2):
                    where = [p for p in range(len(auction)) if (deal.dealer.value + p) % 4 == seat]
                    asked = room[seat]
                    if isinstance(asked, Asked):
                        for p, call, d in zip(where, asked.calls, asked.searched, strict=True):
                            label[p] = bid_index(call)
                            if d is not None:
                                searched(row, p, d)
                        continue
                    made = getattr(room[seat], "results", None)
                    if made is None or len(made) != len(where):
                        continue  # not a search agent, or a call it did not search
                    for p, d in zip(where, made, strict=True):
                        if d.searched:
                            searched(row, p, d)
                if job.follow:
                    labels.append(label)
    out: dict[str, Any] = {k: np.concatenate(v) for k, v in rows.items()}
    out.update(
        auctions=auctions,
        labels=labels,
        soft_row=np.concatenate(soft["row"]) if soft["row"] else np.zeros(0, np.int32),
        soft_pos=np.concatenate(soft["pos"]) if soft["pos"] else np.zeros(0, np.int16),
        soft_target=(
            np.concatenate(soft["target"]) if soft["target"] else np.zeros((0, 38), np.float16)
        ),
        soft_gain=np.concatenate(soft["gain"]) if soft["gain"] else np.zeros(0, np.float32),
    )
    return out


def main(argv: list[str] | None = None) -> int:
    from bridgebot.core.argtypes import positive_int, seed_number
    from bridgebot.core.files import replace_file
    from bridgebot.core.runs import add_run, open_run
    from bridgebot.engine.agent import AgentSpecError
    from bridgebot.engine.dds import one_solver_thread
    from bridgebot.laws.board_sets import load_npz
    from bridgebot.laws.boards import cycle_board
    from bridgebot.models.teach import run_jobs

    from bridgebot import marks

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", required=True, help="a DD .npz of training deals")
    ap.add_argument("--first", type=int, default=0, help="first row of --deals to use")
    ap.add_argument(
        "--boards", type=positive_int, required=True, help="boards to bid (two auctions each)"
    )
    ap.add_argument("--cards", default=CARDS, help="EPBot training cards, comma-separated")
    ap.add_argument("--spec", default="search", help="the searching agent (default: search)")
    ap.add_argument(
        "--follow",
        metavar="SPEC",
        help="an agent that bids the side's calls while the search is only asked (its calls go "
        "in the file's labels); default: the search bids them",
    )
    ap.add_argument(
        "--chunk", type=positive_int, default=10, help="boards per saved chunk (one card each)"
    )
    ap.add_argument("--seed", type=seed_number, default=0)
    ap.add_argument("--out", required=True, type=Path)
    add_run(ap)
    ap.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="worker processes, a chunk each at a time (default 1); the file does not depend on it",
    )
    words = list(sys.argv[1:] if argv is None else argv)
    args = ap.parse_args(words)
    cards = [c.strip() for c in args.cards.split(",") if c.strip()]
    bad = sorted(set(cards) & REPORT_CARDS)
    if bad:
        ap.error(f"--cards: {', '.join(bad)} are report cards, never used in training")
    roles = [("spec", args.spec)] + ([("follow", args.follow)] if args.follow else [])
    try:
        settings = {role: marks.settings(spec) for role, spec in roles}
    except AgentSpecError as e:
        ap.error(str(e))
    state = open_run(args.run, args.out, sys.stderr)
    path = state.path  # the file this run reads and writes: --out, or its state with --run
    have = _load(path)
    done = int(have["boards_done"]) if have else 0
    meta = {
        "kind": "search_teach",
        # As run from a checkout; argv, not this process's sys.argv (a test calls main itself).
        "command": shlex.join(["python", "scripts/search_teach.py", *words]),
        "deals": str(args.deals),
        "first": args.first,
        "spec": args.spec,
        **({"follow": args.follow} if args.follow else {}),
        # Every option of the agents as this code reads them, defaults included: a default that
        # changes (search's close_bids in run 26) changes the teacher under the same spec text.
        "settings": settings,
        "cards": cards,
        "seed": args.seed,
    }
    if have:
        made = json.loads(str(have["meta"]))
        if (made["spec"], made.get("follow")) != (args.spec, args.follow):
            ap.error(f"{path}: made with another --spec or --follow; use a new --out")
        changed = _changed_settings(made.get("settings"), meta["settings"])
        if changed:
            ap.error(
                f"{path}: made with other agent settings ({changed}): its --spec means "
                "another agent in this code; use a new --out, or write the settings in the spec"
            )
    if have and done >= args.boards:
        if args.boards % args.chunk:
            ap.error(
                f"{path} holds {done} boards; it is cut back only to a whole number of "
                f"chunks (--boards a multiple of --chunk {args.chunk})"
            )
        # Cut back to the first --boards (chunk k's boards and seed depend on k alone, so this
        # is the file the smaller command makes) and record this command: the label run that a
        # session's end stopped short is then named by a command that remakes it.
        out = _first_boards(have, args.boards)
        out["meta"] = np.array(json.dumps(meta))
        replace_file(path, lambda tmp: np.savez_compressed(tmp, **out))
        state.publish()
        print(f"search_teach: {args.out} holds {args.boards} boards", file=sys.stderr)
        return 0
    rows: dict[str, list[np.ndarray]] = {
        k: ([have[k]] if have else []) for k in ("owners", "dealer", "vul", "our_side", "card")
    }
    auctions: list[list[int]] = (
        [] if not have else [[c for c in a if c >= 0] for a in have["auctions"]]
    )
    # --follow: the search's calls at the side's positions, the auction's elsewhere.
    labels: list[list[int]] = (
        [[c for c in a if c >= 0] for a in have["labels"]] if have and "labels" in have else []
    )
    # The searched calls' targets: the prior with the candidates' mass shared by the posterior.
    soft: dict[str, list[np.ndarray]] = {
        k: ([have[f"soft_{k}"]] if have and f"soft_{k}" in have else [])
        for k in ("row", "pos", "target", "gain")
    }
    if soft["row"] and not soft["gain"]:  # a file made before the gains were kept
        soft["gain"] = [np.full(len(have["soft_row"]), np.nan, np.float32)]
    path.parent.mkdir(parents=True, exist_ok=True)
    # The boards still to bid, read once; board k of the file keeps its place in the cycle.
    pending = (
        [
            cycle_board(args.first + done + k + 1, d.deal, d.dd)
            for k, d in enumerate(
                load_npz(Path(args.deals), boards=args.boards - done, first=args.first + done)
            )
        ]
        if done < args.boards
        else []
    )
    jobs = [
        Chunk(
            spec=args.spec,
            follow=args.follow,
            card=cards[(start // args.chunk) % len(cards)],
            card_index=(start // args.chunk) % len(cards),
            seed=args.seed + start,
            deals=pending[start - done : start - done + args.chunk],
        )
        for start in range(done, args.boards, args.chunk)
    ]
    t0 = time.perf_counter()
    made = done
    try:
        for chunk in run_jobs(label_chunk, jobs, args.workers, initializer=one_solver_thread):
            made += len(chunk["owners"]) // 2
            if len(chunk["soft_row"]):  # the chunk's rows follow the file's
                soft["row"].append(chunk["soft_row"] + len(auctions))
                soft["pos"].append(chunk["soft_pos"])
                soft["target"].append(chunk["soft_target"])
                soft["gain"].append(chunk["soft_gain"])
            for k in rows:
                rows[k].append(chunk[k])
            auctions += chunk["auctions"]
            labels += chunk["labels"]
            width = max(len(a) for a in auctions)
            out = {k: np.concatenate(v) for k, v in rows.items()}
            if soft["row"]:
                out.update({f"soft_{k}": np.concatenate(v) for k, v in soft.items()})
            if args.follow:
                out["labels"] = _padded(labels, width)
            out.update(
                auctions=_padded(auctions, width),
                boards_done=np.array(made),
                cards=np.array(cards),
                meta=np.array(json.dumps(meta)),
            )
            replace_file(path, lambda tmp, arrays=out: np.savez_compressed(tmp, **arrays))
            rate = (made - done) / (time.perf_counter() - t0)
            print(
                f"search_teach: {made}/{args.boards} boards ({rate * 3600:.0f}/h)",
                file=sys.stderr,
                flush=True,
            )
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (a time limit's): the chunks saved stay
        print(
            f"search_teach: interrupted; {path} holds {made} boards; the same command goes on",
            file=sys.stderr,
        )
        return 130
    state.publish()
    return 0


if __name__ == "__main__":
    # SIGTERM (`timeout`, `kill`) stops the run as Ctrl-C does: the workers ended, the chunks
    # saved kept, and a line saying how many.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    raise SystemExit(main())
