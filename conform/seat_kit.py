"""``conform seat``: a scripted table manager hosts the seat program under test.

The kit listens (``listening on HOST:PORT``, flushed), waits for the program at the named seats,
plays the other seats itself and checks every line the program sends with one
:class:`SeatObserver` per seat. It relays a call or card to a program seat only once that seat has
said it is ready for it, sends ``to lead`` once the other program seats are ready for the lead,
and answers ``ready for dummy`` after the opening lead, as docs/protocol.md 3.1 describes.

The scenarios (``SCENARIOS``, in this order; ``--boards`` plays a prefix, more boards repeat the
plain ones) give the first named seat each role whatever it bids, by making the kit's seats open
7NT where the scenario needs someone else to declare:

1. ``declarer``: the program deals; its side holds the 26 highest cards (every ace to nine and
   two eights), the program the stronger half, so its side is sure to win any contract it bids;
   the kit's seats pass.
2. ``dummy``: its partner deals and opens 7NT; declarer (the kit) plays dummy's highest card,
   so dummy wins tricks and leads.
3. ``opening leader``: its right-hand opponent opens 7NT.
4. ``defender``: its left-hand opponent opens 7NT (the program plays third hand).
5. ``passed out``: the program deals with the weakest hand; everyone else passes.
6. ``restart``: a plain board restarted by a second ``Start of board`` after two calls.
7. ``partner opens 1NT`` and 8. ``opponent opens 2C, alerted``: ordinary auctions (the
   alert's text reaches the program), a longer session.

A program that still never had one of the roles its boards deal it (declarer, dummy, opening
leader, defender) is warned, ``seat.roles``, naming them. The next ``Start of board`` (or ``End
of session``) goes out ``BOARD_PAUSE`` after the Timing line, so that what a program says on the
Timing line arrives before it (a ``ready for deal`` said then is early, docs/protocol.md 3.1).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from bridgebot.conform.model import BoardModel
from bridgebot.conform.net import Abort, CannotListen, Conn, Pump
from bridgebot.conform.report import Recorder, Transcript
from bridgebot.conform.seat_check import SeatObserver
from bridgebot.conform.wire import (
    RANKS,
    SEATS,
    SUITS,
    Unreadable,
    board_text,
    call_text,
    card_text,
    hand_text,
    read_seat_line,
    seat_at,
    side,
    teams_text,
    timing_text,
)
from bridgebot.laws.deals import random_owners

#: (name, the dealer relative to the program's seat, the kit's opening call or None)
SCENARIOS: tuple[tuple[str, int, str | None], ...] = (
    ("declarer", 0, None),
    ("dummy", 2, "7NT"),
    ("opening leader", 3, "7NT"),
    ("defender", 1, "7NT"),
    ("passed out", 0, None),
    ("restart", 3, None),
    ("partner opens 1NT", 2, "1NT"),
    ("opponent opens 2C, alerted", 1, "2C"),
)
#: The alert that goes with the kit's 2C opening (to the program when it is an opponent).
ALERTS = {"2C": "Alert. 22 to 37 total points."}

_VUL = (
    "Neither",
    "N/S",
    "E/W",
    "Both",
    "N/S",
    "E/W",
    "Both",
    "Neither",
    "E/W",
    "Both",
    "Neither",
    "N/S",
    "Both",
    "Neither",
    "N/S",
    "E/W",
)
MAX_ILLEGAL = 3
#: Seconds before the first ``to lead`` of a board to the program (a lead that comes first fails).
PROMPT_PAUSE = 0.3
#: Seconds between the Timing line and the next Start of board or End of session.
BOARD_PAUSE = 0.3
#: The roles the scenarios of those names deal the program, each the scenario's name.
ROLES = ("declarer", "dummy", "opening leader", "defender")


def _hcp(hand: frozenset[str]) -> int:
    return sum({"A": 4, "K": 3, "Q": 2, "J": 1}.get(c[0], 0) for c in hand)


def _card_rank(card: str) -> tuple[int, int]:
    """Highest first, then by suit (spades first): a total order, whatever a set's order."""
    return RANKS.index(card[0]), SUITS.index(card[1])


@dataclass
class SeatRun:
    host: str
    port: int
    seats: tuple[str, ...]
    boards: int | None = None
    seed: int = 0
    answer_timeout: float = 30.0
    announce: Callable[[str, int], None] = lambda host, port: None
    progress: Callable[[str], None] = lambda line: None


@dataclass
class ProgramSeat:
    seat: str
    obs: SeatObserver
    conn: Conn | None = None
    offset: int = 0
    """Lines written on ``conn`` before the seat was given (a refusal): the observer's count
    starts after them."""
    team: str = ""
    calls: int = 0
    cards: int = 0
    sent_dummy: bool = False
    prompted: set[int] = field(default_factory=set)


class SeatKit:
    def __init__(self, run: SeatRun, record: Recorder, transcript: Transcript) -> None:
        self.run = run
        self.r = record
        self.t = transcript
        self.port = run.port
        self.subject = run.seats[0]
        self.progs = {s: ProgramSeat(s, SeatObserver(record, s)) for s in run.seats}
        self.labels: dict[str, str] = {}
        self.pending: list[Conn] = []
        self.pump: Pump | None = None
        self.m: BoardModel | None = None
        self.alerts: dict[int, str] = {}
        self.boards_done = 0
        self.teams: tuple[str, str] = ("KitNS", "KitEW")
        self._conn_no = 0
        self.server: asyncio.Server | None = None
        self.number: int | None = None
        """The board in play (or the last one played)."""
        record.locate = lambda: (self.number, transcript.lines)

    def roles(self) -> list[str]:
        return list(self.progs[self.subject].obs.roles)

    # ------------------------------------------------------------------ plumbing

    async def play(self) -> None:
        loop = asyncio.get_running_loop()
        boards = self.run.boards or len(SCENARIOS)
        deadline = loop.time() + boards * 60 + 4 * self.run.answer_timeout
        self.pump = Pump(
            self.r,
            self.t,
            self.run.answer_timeout,
            deadline,
            "program",
            "seat.answer",
            self._deliver,
        )
        self.pump.on_close = self._on_close
        try:
            self.server = await asyncio.start_server(self._accept, self.run.host, self.run.port)
        except OSError as exc:
            raise CannotListen(self.run.host, self.run.port, exc) from None
        self.port = self.server.sockets[0].getsockname()[1]
        self.run.announce(self.run.host, self.port)
        try:
            await self._session(boards)
        finally:
            self.server.close()
            for p in self.progs.values():
                if p.conn is not None:
                    await p.conn.close()
            for c in self.pending:
                await c.close()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self.server.wait_closed(), 2)

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert self.pump is not None
        self._conn_no += 1
        self.pending.append(Conn(f"conn-{self._conn_no}", reader, writer, self.pump.inbox))

    def _on_close(self, label: str) -> None:
        seat = self.labels.get(label)
        if seat is not None and not self.progs[seat].obs.ended:
            assert self.pump is not None
            rules, what = self.pump.waiting_for
            why = f"the program at {seat} closed its connection before End of session"
            for rule in ("seat.answer", *rules):
                self.r.fail(rule, f"{why}, waiting for {what}")
            raise Abort("closed")

    def _deliver(self, label: str, text: str) -> None:
        seat = self.labels.get(label)
        if seat is None:
            self._connecting(label, text)
            return
        p = self.progs[seat]
        assert p.conn is not None
        heard = p.conn.arrival() - p.offset
        self.t.line(seat, "TM", text)
        m = self.m
        calls = len(p.obs.board.model.calls) if p.obs.board else 0
        cards = len(p.obs.board.model.cards) if p.obs.board else 0
        p.obs.seat_sent(text, heard)
        for reply in p.obs.replies:
            self.send(seat, reply)
        p.obs.replies.clear()
        b = p.obs.board
        if m is not None and b is not None and b.model is not None:
            if len(b.model.calls) > calls and len(m.calls) == calls:
                call = b.model.calls[-1][1]
                alert = re.split(r"\s(?=alert\.)", text, maxsplit=1, flags=re.I)
                if len(alert) == 2:
                    self.alerts[len(m.calls)] = alert[1].strip()
                m.add_call(call)
            if len(b.model.cards) > cards and len(m.cards) == cards:
                m.add_card(b.model.cards[-1][1])
        self.service()

    def _connecting(self, label: str, text: str) -> None:
        conn = next(c for c in self.pending if c.label == label)
        conn.arrival()  # nothing to judge by: the seat is not given yet
        self.t.line(f"{label}", "TM", text)
        try:
            msg = read_seat_line(text)
        except Unreadable:
            msg = None
        if msg is None or msg.kind != "connect":
            self.r.fail("seat.connecting", "the first line must be the Connecting line", text)
            conn.send("Expected 'Connecting .... as ... using protocol version ..'")
            return
        free = [s for s in self.run.seats if self.progs[s].conn is None]
        seat = msg.seat if msg.seat in free else (free[0] if msg.seat == "ANYPL" and free else None)
        if seat is None:
            self.r.fail(
                "seat.connecting",
                f"the kit waits for the program at {', '.join(free) or 'no more seats'}",
                text,
            )
            conn.send("Seat was already taken")
            return
        self.pending.remove(conn)
        self.labels[label] = seat
        p = self.progs[seat]
        p.conn = conn
        p.offset = conn.written
        p.obs.seat_sent(text)
        team = p.team = msg.value
        for other, q in self.progs.items():  # docs/protocol.md 2.1: one name a partnership
            if q.conn is None or other == seat:
                continue
            if side(other) == side(seat) and q.team != team:
                self.r.fail(
                    "seat.connecting",
                    f"partners must give one team name: {other} gave {q.team!r}",
                    text,
                )
            elif side(other) != side(seat) and q.team == team:
                self.r.fail(
                    "seat.connecting",
                    f"opponents must give different team names: {other} gave {q.team!r} too",
                    text,
                )
        self.send(seat, f'{seat} ("{team}") seated')
        self._team(seat, team)

    def _team(self, seat: str, team: str) -> None:
        ns, ew = self.teams
        if side(seat) == "NS":
            ns = team
        else:
            ew = team
        if ns == ew:  # the kit's side takes another name
            ns, ew = (ns, ew + "-kit") if side(seat) == "NS" else (ns + "-kit", ew)
        self.teams = (ns, ew)

    def send(self, seat: str, text: str) -> None:
        p = self.progs[seat]
        self.t.line("TM", seat, text)
        p.obs.tm_sent(text)
        if p.conn is not None:
            p.conn.send(text)

    async def wait(self, cond: Callable[[], bool], rules: tuple[str, ...], what: str) -> None:
        assert self.pump is not None
        self.service()
        await self.pump.until(cond, rules, what)

    # ------------------------------------------------------------------ relays, on demand

    def service(self) -> None:
        """Send every program seat what it is owed and has asked for (3.1 of the docs)."""
        m = self.m
        if m is None:
            return
        for s, p in self.progs.items():
            b = p.obs.board
            if b is None or not b.got_cards:
                continue
            while p.calls < len(m.calls):
                bidder, call = m.calls[p.calls]
                if bidder != s:
                    if p.calls not in b.ready_bids:
                        break
                    text = call_text(bidder, call)
                    alert = self.alerts.get(p.calls)
                    if alert is not None and side(bidder) != side(s):
                        text += " " + alert
                    self.send(s, text)
                p.calls += 1
            if not m.declarer or p.calls < len(m.calls):
                continue
            while p.cards < len(m.cards):
                holder, card = m.cards[p.cards]
                ctrl = m.declarer if holder == m.dummy else holder
                if ctrl != s:
                    if p.cards not in b.ready_cards:
                        break
                    self.send(s, card_text(holder, card))
                p.cards += 1
            if b.asked_dummy and not p.sent_dummy and m.cards:
                p.sent_dummy = True
                self.send(s, f"Dummy's cards : {hand_text(m.hands[m.dummy])}")
            self._prompt(s, p)

    def _prompt(self, s: str, p: ProgramSeat) -> None:
        m = self.m
        assert m is not None
        j = len(m.cards)
        if not m.in_play or not m.trick_start() or m.controller() != s or p.cards < j:
            return
        trick = m.trick_no()
        if trick in p.prompted:
            return
        if not all(self._ready_for(q, j) for t, q in self.progs.items() if t != s):
            return
        first = not p.prompted
        p.prompted.add(trick)
        player = m.next_player()
        text = "Dummy to lead" if player == m.dummy else f"{player} to lead"
        if not first:
            self.send(s, text)
            return

        def late_prompt() -> None:
            if self.m is m and len(m.cards) == j:  # not if the program led without it
                self.send(s, text)

        # The first lead of a board the program controls is prompted after a pause (the v18
        # text pauses a second): a program that leads without waiting is caught.
        asyncio.get_running_loop().call_later(PROMPT_PAUSE, late_prompt)

    # ------------------------------------------------------------------ the session

    async def _session(self, boards: int) -> None:
        run = self.run
        seats = ", ".join(run.seats)
        await self.wait(
            lambda: all(p.conn is not None for p in self.progs.values()),
            ("seat.connect",),
            f"the program to connect at {seats}",
        )
        self.r.ok("seat.connect")
        await self.wait(
            lambda: all(p.obs.asked_teams for p in self.progs.values()),
            ("seat.handshake",),
            "ready for teams",
        )
        for s in self.progs:
            self.send(s, teams_text(*self.teams))
        await self.wait(
            lambda: all(p.obs.asked_start for p in self.progs.values()),
            ("seat.handshake",),
            "ready to start",
        )
        number = 0
        for i in range(boards):
            name, dealer_off, opening = SCENARIOS[i] if i < len(SCENARIOS) else SCENARIOS[6 + i % 2]
            dealer = seat_at(self.subject, dealer_off)
            number += 1
            while SEATS[(number - 1) % 4] != dealer:
                number += 1
            self.number = number
            self.t.comment(f"board {number}: scenario {name}")
            await self._board(i, number, name, dealer, opening)
            self.boards_done += 1
            run.progress(f"conform seat: board {i + 1}/{boards} ({name}) played")
            assert self.pump is not None
            await self.pump.drain(BOARD_PAUSE)  # what the program says on the Timing line
        self._check_roles(boards)
        for s in self.progs:
            self.send(s, "End of session")
        assert self.pump is not None
        await self.pump.drain(min(1.0, self.run.answer_timeout))
        if not self.r.failures("seat.end-of-session"):
            self.r.ok("seat.end-of-session")

    def _check_roles(self, boards: int) -> None:
        """Warn, naming them, about the roles the boards played dealt the program and it
        never had (a program that never bids where its side holds every high card)."""
        dealt = {SCENARIOS[i][0] for i in range(min(boards, len(SCENARIOS)))}
        had = set(self.roles())
        missing = [role for role in ROLES if role in dealt and role not in had]
        if missing:
            self.r.warn(
                "seat.roles",
                f"{self.subject} never had the role of {' or '.join(missing)}, which the kit "
                "dealt it, so what it sends there went unchecked",
                expected=", ".join(missing),
            )
        else:
            self.r.ok("seat.roles")

    def _deal(self, i: int, name: str) -> dict[str, frozenset[str]]:
        owners = random_owners(self.run.seed, i)
        hands = {
            seat: frozenset(
                RANKS[k % 13] + SUITS[k // 13] for k in range(52) if int(owners[k]) == n
            )
            for n, seat in enumerate(SEATS)
        }
        if name == "declarer":
            return self._side_deal(hands)
        if name == "passed out":
            pick = min(SEATS, key=lambda s: _hcp(hands[s]))
            hands[pick], hands[self.subject] = hands[self.subject], hands[pick]
        return hands

    def _side_deal(self, hands: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
        """The seed's deal redealt so that the program's side holds the 26 highest cards, the
        program the half with more points; the cards keep the seed's order (North's first)."""
        order = [c for seat in SEATS for c in sorted(hands[seat], key=_card_rank)]
        high = sorted(order, key=_card_rank)[:26]
        top = [c for c in order if c in high]
        low = [c for c in order if c not in high]
        halves = sorted((frozenset(top[:13]), frozenset(top[13:])), key=_hcp, reverse=True)
        lho = seat_at(self.subject, 1)
        return {
            self.subject: halves[0],
            seat_at(self.subject, 2): halves[1],
            lho: frozenset(low[:13]),
            seat_at(lho, 2): frozenset(low[13:]),
        }

    async def _board(
        self, i: int, number: int, name: str, dealer: str, opening: str | None
    ) -> None:
        hands = self._deal(i, name)
        restart = name == "restart"
        self.m = None
        while True:
            self.alerts = {}
            for p in self.progs.values():
                p.calls = p.cards = 0
                p.sent_dummy = False
                p.prompted = set()
            for s in self.progs:
                self.send(s, "Start of board")
            again = self.m is not None
            rules = ("seat.ready-for-deal", "seat.restart") if again else ("seat.ready-for-deal",)
            self.m = None
            await self.wait(
                lambda: all(p.obs.asked_deal for p in self.progs.values()), rules, "ready for deal"
            )
            vul = _VUL[(number - 1) % 16]
            for s in self.progs:
                self.send(s, board_text(number, dealer, vul))
            await self.wait(
                lambda: all(
                    p.obs.board is not None and p.obs.board.asked_cards for p in self.progs.values()
                ),
                ("seat.ready-for-cards",),
                "ready for cards",
            )
            self.m = BoardModel(number, dealer, vul, hands=dict(hands))
            for s, p in self.progs.items():
                self.send(s, f"{s}'s cards : {hand_text(hands[s])}")
                p.obs.deal_known(hands)
            if await self._auction(opening, stop_after=2 if restart else None):
                restart = False
                self.t.comment("the kit restarts the board (Start of board mid-board)")
                continue
            break
        m = self.m
        assert m is not None
        if not m.passed_out():
            await self._play()
        for s in self.progs:
            self.send(s, timing_text((0, 0), (0, 0)))

    async def _auction(self, opening: str | None, stop_after: int | None) -> bool:
        """The auction; True when the kit restarted the board after ``stop_after`` calls."""
        m = self.m
        assert m is not None
        while not m.auction_done():
            index = len(m.calls)
            bidder = m.next_bidder()
            others = [p for s, p in self.progs.items() if s != bidder]
            await self.wait(
                lambda: all(self._ready_bid(p, index) for p in others),  # noqa: B023 (awaited at once)
                ("seat.ready-for-bid",),
                f"ready for {bidder}'s bid",
            )
            if stop_after is not None and index == stop_after:
                return True
            if bidder in self.progs:
                await self._wait_turn(
                    lambda: len(m.calls) > index,  # noqa: B023 (awaited within the iteration)
                    "seat.call",
                    "seat.call-legal",
                    bidder,
                    f"{bidder}'s call",
                )
            else:
                call = "P"
                if opening is not None and not any(c != "P" for _, c in m.calls):
                    call = opening if m.call_legal(opening) else "P"
                if call in ALERTS:
                    self.alerts[index] = ALERTS[call]
                m.add_call(call)
            await self.wait(
                lambda: all(p.calls > index for p in self.progs.values()),  # noqa: B023 (awaited within the iteration)
                ("seat.ready-for-bid",),
                f"the relay of call {index + 1}",
            )
        return False

    async def _wait_turn(
        self, cond: Callable[[], bool], rule: str, legal_rule: str, seat: str, what: str
    ) -> None:
        """Wait for the program's call or card; too many illegal ones end the run."""
        await self.wait(lambda: cond() or self.r.failures(legal_rule) >= MAX_ILLEGAL, (rule,), what)
        if not cond():
            raise Abort(f"{seat}: {MAX_ILLEGAL} illegal")

    def _ready_bid(self, p: ProgramSeat, index: int) -> bool:
        return p.obs.board is not None and index in p.obs.board.ready_bids

    def _ready_for(self, p: ProgramSeat, j: int) -> bool:
        """Whether program seat ``p`` said it is ready for card ``j``; for the opening lead a
        seat that asked for dummy first (bridge-player) is not waited for: it says its ready
        line once dummy is there, which is after the lead (docs/protocol.md 2.4 #5)."""
        b = p.obs.board
        if b is None:
            return False
        return j in b.ready_cards or (j == 0 and b.asked_dummy)

    async def _play(self) -> None:
        m = self.m
        assert m is not None
        while len(m.cards) < 52:
            j = len(m.cards)
            player, ctrl, trick = m.next_player(), m.controller(), m.trick_no()
            waiting = [p for s, p in self.progs.items() if s != ctrl]
            await self.wait(
                lambda: all(self._ready_for(p, j) for p in waiting),  # noqa: B023 (awaited within the iteration)
                ("seat.ready-for-card",),
                f"ready for {player}'s card to trick {trick}",
            )
            if ctrl in self.progs:
                await self._wait_turn(
                    lambda: len(m.cards) > j,  # noqa: B023 (awaited within the iteration)
                    "seat.card",
                    "seat.card-legal",
                    ctrl,
                    f"{player}'s card (trick {trick}) from {ctrl}",
                )
            else:
                m.add_card(m.kit_card(player))
            await self.wait(
                lambda: all(p.cards > j for p in self.progs.values()),  # noqa: B023 (awaited within the iteration)
                ("seat.ready-for-card",),
                f"the relay of card {j + 1}",
            )
            if j == 0:
                askers = [p for s, p in self.progs.items() if s != m.dummy]
                await self.wait(
                    lambda: all(p.sent_dummy for p in askers),  # noqa: B023 (awaited within the iteration)
                    ("seat.ready-for-dummy",),
                    "ready for dummy",
                )


async def run_seat(run: SeatRun, record: Recorder, transcript: Transcript) -> SeatKit:
    """Host the scripted table manager and play the session with the program under test; the
    findings go to ``record``. Raises :class:`CannotListen` where it cannot listen on
    ``run.host``:``run.port``."""
    kit = SeatKit(run, record, transcript)
    with contextlib.suppress(Abort):
        await kit.play()
    return kit
