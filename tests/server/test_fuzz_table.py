"""The table manager's state machine under a fuzzer (issue 7), bounded for CI.

A session is simulated without sockets: four honest seats (engineer S's sans-IO
:class:`protocol.seat.SeatMachine`, choosing random legal calls and cards) talk to one
:class:`protocol.table.TableMachine` through per-direction FIFO queues, and the simulation draws,
from one integer seed, the order in which the queued messages are delivered (so every
interleaving the network allows can happen), seats that drop and come back at any moment, and
hostile messages (any client message, any seat name, any call or card, at any time).

Properties checked on every step and at the end:

* ``receive`` raises nothing but ``RemoteProtocolError`` and, when it raises, leaves the machine
  exactly as it was , whatever the message;
* without hostile messages every board is played to the end (drops and restarts included) and no
  honest message is ever refused;
* with hostile messages the session still ends (a board that stalls is aborted, as the server's
  timeout would), and every board that finished is lawful: legal calls in turn, legal cards by
  the right players, the recorded tricks equal to the tricks recounted from the play.

Seeds that once found a fault, and a fixed sample, live in ``tests/fuzz_seeds/table.json`` and are
replayed on every run before hypothesis draws fresh ones.
"""

from __future__ import annotations

import json
import random
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from bridgebot.laws import calls as rules
from bridgebot.laws import play
from bridgebot.laws.board_sets import generate
from bridgebot.protocol.codec import Direction, parse
from bridgebot.protocol.errors import RemoteProtocolError
from bridgebot.protocol.messages import (
    CallMsg,
    Connect,
    Message,
    PlayMsg,
    ReadyForBid,
    ReadyForCard,
    ReadyForCards,
    ReadyForDeal,
    ReadyForDummy,
    ReadyForTeams,
    ReadyToStart,
    ReceivedDummy,
)
from bridgebot.protocol.relay import CardPlay, ThinkingTime
from bridgebot.protocol.seat import NeedCall, NeedCard, SeatMachine, Send
from bridgebot.protocol.table import Phase, TableBoard, TableMachine, TableResult
from bridgebot.protocol.table_board import Board
from endplay.types import Bid, Card, Deal, Hand, Player
from hypothesis import given, settings
from hypothesis import strategies as st

SEEDS_FILE = Path(__file__).parents[1] / "fuzz_seeds" / "table.json"
TEAMS = {Player.north: "NS", Player.south: "NS", Player.east: "EW", Player.west: "EW"}
ALL_CARDS = [c for p in Player for c in generate(0, 1)[0].deal[p]]


def canon(x: Any) -> Any:
    """A comparable, order-independent picture of a value (for "state unchanged" checks)."""
    if isinstance(x, dict):
        return sorted((repr(canon(k)), canon(v)) for k, v in x.items())
    if isinstance(x, set | frozenset):
        return sorted(repr(canon(v)) for v in x)
    if isinstance(x, list | tuple | deque):
        return [canon(v) for v in x]
    if isinstance(x, Hand | Deal):
        return bytes(x._data)  # the card bits (to_pbn is too slow for every step)
    if isinstance(x, TableResult | TableBoard):
        return ("same object", id(x))  # a refused message must not replace a record
    if isinstance(x, Board | CardPlay | ThinkingTime):  # the board's state, all of it
        return (type(x).__name__, canon(state(x)))
    return repr(x)


def state(x: object) -> dict[str, Any]:
    """An object's own fields, without the laws and the clock it was given."""
    return {k: v for k, v in vars(x).items() if k not in ("rules", "laws", "clock", "_clock")}


def snapshot(m: TableMachine) -> Any:
    return canon(state(m))


def random_message(rng: random.Random) -> Message:
    """Any message a client could send, with any seat name, call or card."""
    seat = rng.choice(list(Player))
    kind = rng.randrange(11)
    if kind == 0:
        return CallMsg(seat=seat, call=rng.choice(rules.ALL_CALLS))
    if kind == 1:
        return PlayMsg(seat=rng.choice([seat, None]), card=rng.choice(ALL_CARDS))
    if kind == 2:
        return ReadyForCard(seat=seat, player=rng.choice([*Player, None]), trick=rng.randint(0, 14))
    if kind == 3:
        return ReadyForBid(seat=seat, bidder=rng.choice(list(Player)))
    if kind == 4:
        return Connect(team=rng.choice(["NS", "EW", "X"]), seat=seat)
    simple = [ReadyForTeams, ReadyToStart, ReadyForDeal, ReadyForCards, ReadyForDummy,
              ReceivedDummy]  # fmt: skip
    return rng.choice(simple)(seat=seat)


@dataclass
class Sim:
    """One simulated session; ``run`` returns the finished boards."""

    seed: int
    boards: int = 2
    chaos: float = 0.0  # chance per step of a hostile message
    drops: float = 0.0  # chance per step that a seat drops (and comes back at once)
    max_drops: int = 3  # more, and at 1% a step a board would rarely get played at all
    max_steps: int = 10_000
    refused_honest: list[str] = field(default_factory=list)
    inject: list[dict[str, str]] = field(default_factory=list)
    """Scripted hostile lines (a seed file's ``inject``): each is fed once, when the machine
    first reaches its ``phase``; ``seat`` may be a seat name, ``dummy``, or ``next`` (the seat
    after the one the table waits for)."""
    injected: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.now = 0.0
        self.m = TableMachine(clock=lambda: self.now, max_illegal=3)
        self.deals = generate(self.seed, self.boards)
        self.next_board = 0
        self.to_tm: dict[Player, deque[Message]] = {p: deque() for p in Player}
        self.to_seat: dict[Player, deque[Message]] = {p: deque() for p in Player}
        self.seats: dict[Player, SeatMachine] = {}
        for p in Player:
            self.join(p)

    # ---------------------------------------------------------------- the peers

    def join(self, p: Player) -> None:
        """A fresh honest seat connects as ``p`` (first time, or after a drop)."""
        seat = SeatMachine(TEAMS[p], p)
        self.seats[p] = seat
        (send,) = seat.connect()
        assert isinstance(send, Send) and isinstance(send.message, Connect)
        assert self.m.seat_request(send.message) == p
        self.deliver_out(self.m.seat(p, TEAMS[p]))

    def drop(self, p: Player) -> None:
        self.to_tm[p].clear()
        self.to_seat[p].clear()
        self.m.disconnect(p)
        self.join(p)

    def seat_events(self, p: Player, events: Iterable[Any]) -> None:
        for ev in events:
            if isinstance(ev, Send):
                self.to_tm[p].append(ev.message)
            elif isinstance(ev, NeedCall):
                legal = rules.legal_calls(ev.dealer, list(ev.auction))
                self.seat_events(p, self.seats[p].answer_call(self.rng.choice(legal)))
            elif isinstance(ev, NeedCard):
                n = len(ev.played)
                trick = [c for _, c in ev.played[n - n % 4 :]]
                legal = play.legal_cards(ev.holding, trick)
                self.seat_events(p, self.seats[p].answer_card(self.rng.choice(legal)))

    def deliver_out(self, out: list[tuple[Player, Message]]) -> None:
        for p, msg in out:
            self.to_seat[p].append(msg)

    # ---------------------------------------------------------------- the machine under test

    def feed(self, p: Player, msg: Message, honest: bool) -> None:
        before = snapshot(self.m)
        try:
            out = self.m.receive(p, msg)
        except RemoteProtocolError as exc:
            assert snapshot(self.m) == before, f"state changed by a refused {msg!r} from {p}"
            if honest:
                self.refused_honest.append(f"{p.name}: {msg!r}: {exc}")
            return
        self.deliver_out(out)

    # ---------------------------------------------------------------- the shell's part

    def shell(self) -> bool:
        """Start, restart and end boards as ``server.tm`` does; True while the session runs."""
        m = self.m
        if m.phase is Phase.SUSPENDED and m.all_ready:
            self.deliver_out(m.restart_board())
        elif m.phase is Phase.IDLE and m.all_ready:
            if self.next_board < len(self.deals):
                self.deliver_out(m.start_board(self.deals[self.next_board]))
                self.next_board += 1
            else:
                self.deliver_out(m.end_session())
        return m.phase is not Phase.ENDED

    def inject_due(self) -> None:
        m = self.m
        if not self.inject or m.phase.value != self.inject[0]["phase"]:
            return
        spec = self.inject.pop(0)
        name = spec["seat"]
        if name == "dummy":
            assert m.current is not None and m.current.play is not None
            seat = m.current.play.dummy
        elif name == "next":
            seat = m.waiting_for()[0].lho
        else:
            seat = Player.find(name)
        line = spec["line"].format(seat=seat.name.capitalize())
        before = len(self.refused_honest)
        self.feed(seat, parse(line, Direction.TO_TM), honest=True)
        outcome = "refused" if len(self.refused_honest) > before else "taken"
        del self.refused_honest[before:]
        self.injected.append(f"{line}: {outcome}")

    def run(self) -> list[TableResult]:
        for _ in range(self.max_steps):
            if not self.shell():
                break
            self.inject_due()
            self.now += self.rng.random()
            r = self.rng.random()
            if r < self.chaos:
                p = self.rng.choice(list(Player))
                self.feed(p, random_message(self.rng), honest=False)
                continue
            if r < self.chaos + self.drops and self.max_drops > 0:
                self.max_drops -= 1
                self.drop(self.rng.choice(list(Player)))
                continue
            ready = [(d, p) for d in ("tm", "seat") for p in Player
                     if (self.to_tm if d == "tm" else self.to_seat)[p]]  # fmt: skip
            if not ready:  # stalled: the server's timeout aborts the board
                assert self.chaos > 0, f"honest session stalled: {self.m.describe()}"
                self.m.abort_board(f"stalled: {self.m.describe()}")
                continue
            d, p = self.rng.choice(ready)
            if d == "tm":
                self.feed(p, self.to_tm[p].popleft(), honest=True)
            else:
                msg = self.to_seat[p].popleft()
                try:
                    events = self.seats[p].receive(msg)
                except RemoteProtocolError:
                    assert self.chaos > 0, f"honest seat {p.name} refused {msg!r}"
                    self.drop(p)  # the real client would close; it comes back
                    continue
                self.seat_events(p, events)
        else:
            raise AssertionError(f"session not over after {self.max_steps} steps")
        return self.m.finished


def check_lawful(result: TableResult) -> None:
    """A finished board's auction and play obey the laws, and its trick count is right."""
    b = result.board
    auction: list[Bid] = []
    for call in result.auction:
        assert rules.is_legal_call(b.dealer, auction, call), (b.number, auction, call)
        auction.append(call)
    if result.aborted is not None:
        return
    assert rules.auction_over(auction)
    contract = rules.final_contract(b.dealer, auction)
    if contract is None:
        assert result.contract is None and not result.play
        return
    hands = {p: b.deal[p].copy() for p in Player}
    leader, won = contract.declarer.lho, 0
    assert len(result.play) == 52
    for t in range(13):
        trick_plays = result.play[4 * t : 4 * t + 4]
        trick: list[Card] = []
        for i, (p, card) in enumerate(trick_plays):
            assert p == Player((leader.value + i) % 4)
            assert card in play.legal_cards(hands[p], trick)
            hands[p].remove(card)
            trick.append(card)
        leader = play.trick_winner(trick_plays[0][0], trick, contract.denom)
        won += leader in (contract.declarer, contract.declarer.partner)
    assert result.declarer_tricks == won


def replay(
    seed: int, chaos: float, drops: float, inject: list[dict[str, str]] | None = None
) -> None:
    sim = Sim(seed, chaos=chaos, drops=drops, inject=list(inject or []))
    results = sim.run()
    assert not sim.inject, f"never reached: {sim.inject}"
    assert all(i.endswith("refused") for i in sim.injected), sim.injected
    for r in results:
        check_lawful(r)
    if chaos == 0 and drops == 0:
        assert sim.refused_honest == [], sim.refused_honest[:3]
    if chaos == 0:  # a drop may make stale honest lines refusable, never lose a board
        assert [(r.board.number, r.aborted) for r in results] == [(1, None), (2, None)]
    else:
        assert {r.board.number for r in results} == {1, 2}  # each board ends, one way or another


def _seed_cases() -> list[tuple[int, float, float, list[dict[str, str]]]]:
    data = json.loads(SEEDS_FILE.read_text())
    return [(c["seed"], c["chaos"], c["drops"], c.get("inject", [])) for c in data["cases"]]


@pytest.mark.parametrize(("seed", "chaos", "drops", "inject"), _seed_cases())
def test_kept_seeds(seed: int, chaos: float, drops: float, inject: list[dict[str, str]]) -> None:
    replay(seed, chaos, drops, inject)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_any_interleaving_of_honest_seats_plays_every_board(seed: int) -> None:
    replay(seed, 0.0, 0.0)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), drops=st.sampled_from([0.002, 0.01, 0.03]))
def test_seats_dropping_at_random_moments_lose_nothing(seed: int, drops: float) -> None:
    replay(seed, 0.0, drops)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), chaos=st.sampled_from([0.02, 0.1, 0.3]))
def test_hostile_messages_never_break_the_machine_or_the_laws(seed: int, chaos: float) -> None:
    replay(seed, chaos, 0.01)


def test_a_stale_ready_for_cards_from_before_a_restart_does_not_block_the_seat() -> None:
    """Regression found by the drop fuzzer: West's "ready for cards" of the abandoned deal
    arrived after the restart and sat at the head of West's queue, so West's new "ready for
    deal" waited behind it for ever."""
    m = TableMachine(clock=lambda: 0.0)
    for p in Player:
        m.seat(p, TEAMS[p])
    for msg in (ReadyForTeams, ReadyToStart):
        for p in Player:
            m.receive(p, msg(seat=p))
    m.start_board(generate(1, 1)[0])
    for p in Player:
        m.receive(p, ReadyForDeal(seat=p))
    m.receive(Player.south, ReadyForCards(seat=Player.south))
    m.disconnect(Player.south)  # West's "ready for cards" is still on its way
    m.seat(Player.south, "NS")
    m.receive(Player.south, ReadyForTeams(seat=Player.south))
    m.receive(Player.south, ReadyToStart(seat=Player.south))
    m.restart_board()
    assert m.receive(Player.west, ReadyForCards(seat=Player.west)) == []  # stale: ignored
    out: list[tuple[Player, Message]] = []
    for p in Player:
        out += m.receive(p, ReadyForDeal(seat=p))
    assert m.phase is Phase.CARDS and len(out) == 4  # Board number and dealer to all four
