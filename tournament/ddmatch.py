"""A fast, in-process, bidding-only duplicate match scored double-dummy: the evaluation loop.

No sockets and no card play: each board is bid in every room of the format by agents built from
their specs, and each final contract is scored with the tricks of the board's double-dummy table
(the papers' setting). This is what training scripts call to compare two policies quickly; the
``match`` command runs the same bidding through real table managers when asked to.

Agents are built by the :class:`engine.agent.AgentFactory` the caller hands down, seated with
:func:`seated_agents`, which closes them all when the match ends, also when a board fails. A room
whose four agents are all :class:`engine.agent.BatchBidder` is bid in batches (one call per seat
per round, across every board of the room; such agents keep no bidding state between boards, so
``reset`` is not called for them). Any other room is driven one board at a time, with
``reset(board)`` before each board, as a seat client would.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import TypeGuard

from bridgebot.core.stats import mean_stderr
from bridgebot.engine.agent import Agent, AgentFactory, BatchBidder, BiddingView, bidding_view
from bridgebot.laws.boards import BoardDeal
from bridgebot.laws.calls import auction_over, final_contract, same_call, to_call
from bridgebot.laws.notation import auction_texts, contract_text, vul_text
from bridgebot.laws.scoring import dd_tricks, ns_score
from bridgebot.server.records import TableRecord
from bridgebot.tournament.records import BoardResult
from bridgebot.tournament.seatings import US, Seating, board_imps, seatings
from endplay.types import Bid, Hand, Player


class IllegalCallError(RuntimeError):
    """An agent returned a call that is not legal; names the agent, seat, room and board."""


@dataclass(frozen=True)
class MatchResult:
    us: str
    them: str
    format: str
    boards: tuple[BoardResult, ...]

    @property
    def imps(self) -> list[int]:
        return [b.imps for b in self.boards]

    @property
    def imps_per_board(self) -> float:
        return sum(self.imps) / len(self.boards) if self.boards else 0.0

    @property
    def stderr(self) -> float:
        return mean_stderr(self.imps)[1]


def agent_seed(seed: int, room: int, seat: int) -> int:
    """Distinct, reproducible seeds for the agent at ``seat`` of room number ``room``."""
    return seed * 1009 + room * 4 + seat


#: The four agents (N, E, S, W) of each room, by room name.
RoomAgents = dict[str, tuple[Agent, Agent, Agent, Agent]]


@contextmanager
def seated_agents(
    make_agent: AgentFactory, us: str, them: str, rooms: Sequence[Seating], seed: int
) -> Iterator[RoomAgents]:
    """One agent per seat per room, built from the team's spec, all closed on leaving (also when
    building one of them or playing a board fails)."""
    with ExitStack() as stack:
        out: RoomAgents = {}
        for r, seating in enumerate(rooms):
            a = [
                stack.enter_context(make_agent(us if team == US else them, agent_seed(seed, r, s)))
                for s, team in enumerate(seating.teams)
            ]
            out[seating.room] = (a[0], a[1], a[2], a[3])
        yield out


def _view(deal: BoardDeal, hands: Sequence[Hand], auction: tuple[Bid, ...]) -> BiddingView:
    seat = to_call(deal.dealer, auction)
    return bidding_view(deal.dealer, deal.vul, hands[seat.value], auction, deal.number)


def _all_batch(agents: Sequence[Agent]) -> TypeGuard[Sequence[BatchBidder]]:
    return all(isinstance(a, BatchBidder) for a in agents)


def _checked(call: Bid, view: BiddingView, who: str, room: str) -> Bid:
    if not any(same_call(call, c) for c in view.legal):
        raise IllegalCallError(
            f"board {view.board}, room {room}: agent {who} at {view.seat.name} made the illegal "
            f"call {call} after {' '.join(map(str, view.auction)) or '(start)'}"
        )
    return call


def bid_room(
    deals: Sequence[BoardDeal], agents: Sequence[Agent], room: str
) -> list[tuple[Bid, ...]]:
    """The auctions of ``deals`` in one room seated by ``agents`` (N, E, S, W)."""
    hands = [[deal[p] for p in Player] for deal in (d.deal for d in deals)]
    auctions: list[tuple[Bid, ...]] = [() for _ in deals]
    if _all_batch(agents):
        pending = list(range(len(deals)))
        while pending:
            for seat in range(4):
                idx = [
                    i
                    for i in pending
                    if not auction_over(auctions[i])
                    and to_call(deals[i].dealer, auctions[i]).value == seat
                ]
                if not idx:
                    continue
                views = [_view(deals[i], hands[i], auctions[i]) for i in idx]
                calls = agents[seat].bid_batch(views)
                for i, view, call in zip(idx, views, calls, strict=True):
                    auctions[i] += (_checked(call, view, agents[seat].name, room),)
            pending = [i for i in pending if not auction_over(auctions[i])]
        return auctions
    for i, deal in enumerate(deals):
        for agent in agents:
            agent.reset(deal.number)
        while not auction_over(auctions[i]):
            view = _view(deal, hands[i], auctions[i])
            agent = agents[view.seat.value]
            auctions[i] += (_checked(agent.bid(view), view, agent.name, room),)
    return auctions


def dd_room_result(
    deal: BoardDeal, seating: Seating, names: Sequence[str], auction: tuple[Bid, ...]
) -> TableRecord:
    """Score one room's auction with the board's double-dummy table."""
    if deal.dd is None:
        raise ValueError(f"board {deal.number} has no double-dummy table")
    contract = final_contract(deal.dealer, auction)
    tricks = None if contract is None else dd_tricks(contract, deal.dd)
    return TableRecord(
        board=deal.number,
        dealer=deal.dealer.abbr,
        vul=vul_text(deal.vul),
        deal=deal.pbn,
        room=seating.room,
        seats=(names[0], names[1], names[2], names[3]),
        auction=auction_texts(auction),
        contract=None if contract is None else contract_text(contract),
        declarer=None if contract is None else contract.declarer.abbr,
        tricks=tricks,
        score_ns=0 if contract is None or tricks is None else ns_score(contract, tricks, deal.vul),
        passed_out=contract is None,
    )


def play_dd_boards(
    deals: Sequence[BoardDeal],
    fmt: str,
    us: str,
    them: str,
    agents: RoomAgents,
    on_board: Callable[[BoardResult], None] | None = None,
) -> list[BoardResult]:
    """Bid ``deals`` in every room of ``fmt`` and score them double-dummy."""
    rooms = seatings(fmt)
    auctions = {s.room: bid_room(deals, agents[s.room], s.room) for s in rooms}
    out = []
    for i, deal in enumerate(deals):
        results = tuple(
            dd_room_result(deal, s, [us if t == US else them for t in s.teams], auctions[s.room][i])
            for s in rooms
        )
        board = BoardResult(
            rooms=results, imps=board_imps(fmt, {r.room: r.score() for r in results})
        )
        if on_board is not None:
            on_board(board)
        out.append(board)
    return out


def run_dd_match(
    us: str,
    them: str,
    deals: Sequence[BoardDeal],
    boards: int | None = None,
    seed: int = 0,
    fmt: str = "team",
    *,
    make_agent: AgentFactory,
) -> MatchResult:
    """Team (or compatible) match of ``us`` against ``them`` over the first ``boards`` deals,
    with agents from ``make_agent``.

    ``deals`` must carry DD tables (``laws.board_sets.load_npz`` or ``ddtables.ensure_dd``).
    """
    chosen = list(deals if boards is None else deals[:boards])
    if boards is not None and len(chosen) < boards:
        raise ValueError(f"{boards} boards asked for, {len(chosen)} deals given")
    with seated_agents(make_agent, us, them, seatings(fmt), seed) as agents:
        results = play_dd_boards(chosen, fmt, us, them, agents)
    return MatchResult(us=us, them=them, format=fmt, boards=tuple(results))
