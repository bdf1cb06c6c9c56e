"""A fast, in-process, bidding-only duplicate match scored double-dummy: the evaluation loop.

No sockets and no card play: each board is bid in every room of the format by agents built from
their specs, and each final contract is scored with the tricks of the board's double-dummy table
(the papers' setting). This is what training scripts call to compare two policies quickly; the
``match`` command runs the same bidding through real table managers when asked to.

Agents that can decide many positions at once expose ``bid_batch(views) -> list[Bid]`` (one call
per seat per round, across every board of a room); they must then be stateless across boards, so
``reset`` is not called for them. Any other :class:`engine.agent.Agent` is driven one board at a
time, with ``reset(board)`` before each board, as a seat client would.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from bridgebot.engine.agent import Agent, BiddingView
from bridgebot.engine.agents import make_agent
from bridgebot.laws.calls import auction_over, final_contract, legal_calls, same_call, to_call
from bridgebot.laws.notation import auction_texts, contract_declarer_text, vul_text
from bridgebot.laws.scoring import dd_tricks, ns_score
from bridgebot.tournament.deals import BoardDeal
from bridgebot.tournament.formats import US, Seating, board_imps, seatings
from bridgebot.tournament.records import BoardResult, RoomResult
from endplay.types import Bid, Hand, Player


@runtime_checkable
class BatchBidder(Protocol):
    """An agent that answers many bidding views in one call (e.g. one ONNX run per batch)."""

    def bid_batch(self, views: Sequence[BiddingView]) -> list[Bid]: ...


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
        n = len(self.boards)
        if n < 2:
            return float("nan")
        mean = self.imps_per_board
        var = sum((x - mean) ** 2 for x in self.imps) / (n - 1)
        return math.sqrt(var / n)


def agent_seed(seed: int, room: int, seat: int) -> int:
    """Distinct, reproducible seeds for the agent at ``seat`` of room number ``room``."""
    return seed * 1009 + room * 4 + seat


def build_agents(
    us: str, them: str, rooms: Sequence[Seating], seed: int
) -> dict[str, tuple[Agent, Agent, Agent, Agent]]:
    """One agent per seat per room, built from the team's spec."""
    out: dict[str, tuple[Agent, Agent, Agent, Agent]] = {}
    for r, seating in enumerate(rooms):
        a = [
            make_agent(us if team == US else them, agent_seed(seed, r, s))
            for s, team in enumerate(seating.teams)
        ]
        out[seating.room] = (a[0], a[1], a[2], a[3])
    return out


def _view(deal: BoardDeal, hands: Sequence[Hand], auction: tuple[Bid, ...]) -> BiddingView:
    seat = to_call(deal.dealer, auction)
    return BiddingView(
        seat=seat,
        dealer=deal.dealer,
        vul=deal.vul,
        hand=hands[seat.value],
        auction=auction,
        board=deal.board,
        legal=legal_calls(deal.dealer, auction),
    )


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
    hands = [[deal[p] for p in Player] for deal in (d.deal() for d in deals)]
    auctions: list[tuple[Bid, ...]] = [() for _ in deals]
    if all(isinstance(a, BatchBidder) for a in agents):
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
                calls = agents[seat].bid_batch(views)  # type: ignore[attr-defined]
                for i, view, call in zip(idx, views, calls, strict=True):
                    auctions[i] += (_checked(call, view, agents[seat].name, room),)
            pending = [i for i in pending if not auction_over(auctions[i])]
        return auctions
    for i, deal in enumerate(deals):
        for agent in agents:
            agent.reset(deal.board)
        while not auction_over(auctions[i]):
            view = _view(deal, hands[i], auctions[i])
            agent = agents[view.seat.value]
            auctions[i] += (_checked(agent.bid(view), view, agent.name, room),)
    return auctions


def dd_room_result(
    deal: BoardDeal, seating: Seating, names: Sequence[str], auction: tuple[Bid, ...]
) -> RoomResult:
    """Score one room's auction with the board's double-dummy table."""
    if deal.dd is None:
        raise ValueError(f"board {deal.board} has no double-dummy table")
    contract = final_contract(deal.dealer, auction)
    tricks = None if contract is None else dd_tricks(contract, deal.dd)
    return RoomResult(
        room=seating.room,
        seats=(names[0], names[1], names[2], names[3]),
        auction=auction_texts(auction),
        contract=None if contract is None else contract_declarer_text(contract),
        tricks=tricks,
        ns_score=0 if contract is None or tricks is None else ns_score(contract, tricks, deal.vul),
    )


def play_dd_boards(
    deals: Sequence[BoardDeal],
    fmt: str,
    us: str,
    them: str,
    agents: dict[str, tuple[Agent, Agent, Agent, Agent]],
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
            board=deal.board,
            dealer=deal.dealer.abbr,
            vul=vul_text(deal.vul),
            deal=deal.pbn,
            rooms=results,
            imps=board_imps(fmt, {r.room: r.ns_score for r in results}),
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
) -> MatchResult:
    """Team (or compatible) match of ``us`` against ``them`` over the first ``boards`` deals.

    ``deals`` must carry DD tables (``tournament.deals.load_npz`` or ``ensure_dd``).
    """
    chosen = list(deals if boards is None else deals[:boards])
    if boards is not None and len(chosen) < boards:
        raise ValueError(f"{boards} boards asked for, {len(chosen)} deals given")
    agents = build_agents(us, them, seatings(fmt), seed)
    results = play_dd_boards(chosen, fmt, us, them, agents)
    return MatchResult(us=us, them=them, format=fmt, boards=tuple(results))
