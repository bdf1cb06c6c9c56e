"""``conform tm``: scripted seats play a table manager under test and check what it sends.

The kit connects one scripted seat per named seat (all four by default), plays ``boards``
boards in lock step and feeds every line both ways to :class:`TableObserver`, which judges the
table manager's lines. The scripted seats bid so that the declarer moves round the table (with
an alerted 1NT, a double and a redouble on some boards, and one passed-out board when there are
three or more), and play so that dummy wins tricks and leads: declarer plays dummy's highest
card, everyone else their lowest. On the last board with play the kit also probes the answers
the protocol defines (an illegal call and card, a call and a card out of turn), and on the first
board it opens two junk connections beside the table (one talks nonsense, one says nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

from bridgebot.conform.model import BoardModel
from bridgebot.conform.net import Abort, Conn, Pump
from bridgebot.conform.report import Recorder, Transcript
from bridgebot.conform.tm_check import SeatView, TableObserver
from bridgebot.conform.voices import Voice
from bridgebot.conform.wire import SEATS, partner, seat_at, side

ALERT_TEXT = "15 to 17 total points."


@dataclass
class TmRun:
    host: str
    port: int
    boards: int = 4
    style: str = "canonical"
    seats: tuple[str, ...] = SEATS
    teams: tuple[str, str] = ("KitNS", "KitEW")
    answer_timeout: float = 30.0
    probes: bool = True
    progress: Callable[[str], None] = lambda line: None
    """Called with a line after each board (the command prints it on stderr)."""
    boards_done: int = 0
    dummy_leads: int = 0
    notes: list[str] = field(default_factory=list)


class TmKit:
    def __init__(self, run: TmRun, record: Recorder, transcript: Transcript) -> None:
        self.run = run
        self.r = record
        self.t = transcript
        self.voice = Voice(run.style)
        self.obs = TableObserver(record, style=run.style)
        self.conns: dict[str, Conn] = {}
        self.junk: list[Conn] = []
        self.pump: Pump | None = None
        self.ended = False
        record.locate = lambda: (
            None if self.obs.board is None else self.obs.board.number,
            transcript.lines,
        )

    # ------------------------------------------------------------------ plumbing

    def _deliver(self, seat: str, text: str) -> None:
        self.t.line("TM", seat, text)
        self.obs.tm_sent(seat, text)

    def _on_close(self, seat: str) -> None:
        if seat in self.conns and not self.obs.view(seat).ended:
            assert self.pump is not None
            rules, what = self.pump.waiting_for
            why = f"the table manager closed {seat}'s connection before End of session"
            for rule in ("tm.answer", *rules):
                self.r.fail(rule, f"{why}, waiting for {what}")
            raise Abort("closed")

    def send(self, seat: str, text: str) -> None:
        self.t.line(seat, "TM", text)
        self.obs.seat_sent(seat, text)
        self.conns[seat].send(text)

    async def wait(
        self, cond: Callable[[], bool], rules: tuple[str, ...], what: str, *, required: bool = True
    ) -> bool:
        assert self.pump is not None
        return await self.pump.until(cond, rules, what, required=required)

    @property
    def ours(self) -> list[str]:
        return [s for s in SEATS if s in self.run.seats]

    def v(self, seat: str) -> SeatView:
        return self.obs.view(seat)

    @property
    def b(self) -> BoardModel:
        assert self.obs.board is not None
        return self.obs.board

    # ------------------------------------------------------------------ the session

    async def play(self) -> None:
        loop = asyncio.get_running_loop()
        run = self.run
        deadline = loop.time() + run.boards * 60 + 4 * run.answer_timeout
        self.pump = Pump(
            self.r,
            self.t,
            run.answer_timeout,
            deadline,
            "table manager",
            "tm.answer",
            self._deliver,
        )
        self.pump.on_close = self._on_close
        try:
            await self._session()
        finally:
            for c in [*self.conns.values(), *self.junk]:
                await c.close()

    async def _connect(self, label: str) -> Conn:
        assert self.pump is not None
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(self.run.host, self.run.port), self.run.answer_timeout
            )
        except (OSError, TimeoutError) as exc:
            self.r.fail(
                "tm.connect",
                f"cannot connect to {self.run.host}:{self.run.port}: {exc or type(exc).__name__}",
            )
            raise Abort("connect") from None
        return Conn(label, reader, writer, self.pump.inbox)

    async def _session(self) -> None:
        run = self.run
        for seat in self.ours:
            self.conns[seat] = await self._connect(seat)
        self.r.ok("tm.connect")
        for seat in self.ours:
            team = run.teams[0] if side(seat) == "NS" else run.teams[1]
            self.send(seat, self.voice.connect(team, seat))
        await self.wait(
            lambda: all(self.v(s).seated for s in self.ours), ("tm.seated",), "the seated lines"
        )
        for seat in self.ours:
            self.send(seat, self.voice.ready(seat, "teams"))
        await self.wait(
            lambda: all(self.v(s).teams for s in self.ours), ("tm.teams",), "the Teams line"
        )
        for seat in self.ours:
            self.send(seat, self.voice.ready(seat, "start"))
        probe_board = self._probe_board()
        for i in range(run.boards):
            self.t.comment(f"board {i + 1} of {run.boards}")
            await self._board(i, probe=run.probes and i == probe_board)
            run.boards_done += 1
            run.progress(f"conform tm: board {i + 1}/{run.boards} played")

        def more() -> bool:  # a Start of board beyond the kit's --boards
            return any(self.v(s).starts > run.boards for s in self.ours)

        await self.wait(
            lambda: all(self.v(s).ended for s in self.ours) or more(),
            ("tm.end-of-session",),
            "End of session",
        )
        if more():  # say so now, not after --answer-timeout of waiting for it
            self.r.fail(
                "tm.end-of-session",
                f"Start of board after the {run.boards} boards the kit plays (--boards "
                f"{run.boards}): the table manager deals more boards than that; give conform "
                "tm its number of boards",
            )
            raise Abort("more boards")
        assert self.pump is not None
        await self.pump.drain(0.2)

    def _probe_board(self) -> int:
        played = [i for i in range(self.run.boards) if not self._passed_out_board(i)]
        return played[-1] if played else -1

    def _passed_out_board(self, i: int) -> bool:
        return self.run.boards >= 3 and i == 2

    async def _board(self, i: int, *, probe: bool) -> None:
        ours = self.ours
        await self.wait(
            lambda: all(self.v(s).starts > i for s in ours) or any(self.v(s).ended for s in ours),
            ("tm.start-of-board",),
            f"Start of board {i + 1}",
        )
        if any(self.v(s).ended for s in ours):
            self.r.fail(
                "tm.end-of-session",
                f"End of session after {i} of the {self.run.boards} boards the kit plays "
                f"(--boards {self.run.boards}): the table manager deals fewer; give conform tm "
                "its number of boards",
            )
            raise Abort("ended early")
        junk = i == 0 and self.run.probes
        if junk:
            await self._open_junk()
        for seat in ours:
            self.send(seat, self.voice.ready(seat, "deal"))
        rules = ("tm.board", "tm.junk-connection") if junk else ("tm.board",)
        await self.wait(lambda: all(self.v(s).got_board for s in ours), rules, "the board line")
        for seat in ours:
            self.send(seat, self.voice.ready(seat, "cards"))
        await self.wait(lambda: all(self.v(s).got_cards for s in ours), ("tm.cards",), "the hands")
        unknown = [s for s in ours if s not in self.b.hands]
        if unknown:  # nothing to play with: the failure is recorded, the run cannot go on
            self.r.fail("tm.cards", f"no usable hand for {', '.join(unknown)}")
            raise Abort("hands")
        await self._auction(i, probe=probe)
        if not self.b.passed_out():
            await self._play(probe=probe)
        await self.wait(
            lambda: all(self.v(s).timing for s in ours), ("tm.timing",), "the Timing line"
        )
        if self.b.dummy_led:
            self.run.dummy_leads += self.b.dummy_led
        if junk:
            self.r.ok("tm.junk-connection")
            for c in self.junk:
                await c.close()
            self.junk = []

    async def _open_junk(self) -> None:
        assert self.pump is not None
        for label, text in (("junk-1", b"GET / HTTP/1.0\r\n\r\n"), ("junk-2", None)):
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(self.run.host, self.run.port), self.run.answer_timeout
                )
            except (OSError, TimeoutError):
                self.t.comment(f"{label}: refused by the table manager (allowed)")
                continue
            self.pump.ignore.add(label)
            conn = Conn(label, reader, writer, self.pump.inbox)
            if text is not None:
                writer.write(text)
                self.t.comment(f"{label} -> TM : GET / HTTP/1.0 (a junk connection)")
            else:
                self.t.comment(f"{label}: a connection that says nothing")
            self.junk.append(conn)

    # ------------------------------------------------------------------ auction

    def _choose_call(self, i: int, seat: str) -> tuple[str, str | None]:
        """(call, alert text or None) of the scripted ``seat`` on board ``i``."""
        b = self.b
        if self._passed_out_board(i):
            return "P", None
        target = SEATS[i % 4]
        made = [c for s, c in b.calls if s == seat]
        if seat == target and not made and b.call_legal("1NT"):
            return "1NT", (ALERT_TEXT if i % 2 == 0 else None)
        last = b.calls[-1] if b.calls else None
        if i % 3 == 1 and last is not None:
            if last == (target, "1NT") and seat == seat_at(target, 1) and b.call_legal("X"):
                return "X", None
            if last[1] == "X" and seat == partner(target) and b.call_legal("XX"):
                return "XX", None
        return "P", None

    async def _auction(self, i: int, *, probe: bool) -> None:
        ours = self.ours
        probed = not probe
        while not self.b.auction_done():
            b = self.b
            index = len(b.calls)
            bidder = b.next_bidder()
            # the late probe: one seat says it is ready only after the call was made
            late = self._late(probe and index == 1 and bidder in ours, bidder)
            for seat in ours:
                if seat not in (bidder, late):
                    self.send(seat, self.voice.ready_bid(seat, bidder))
            if bidder in ours:
                if not probed:
                    probed = True
                    await self._probe_calls(bidder)
                call, alert = self._choose_call(i, bidder)
                self.send(bidder, self.voice.call(bidder, call, alert))
            if late is not None:
                await self._late_ready(late, self.voice.ready_bid(late, bidder))
            others = [s for s in ours if s != bidder]
            await self.wait(
                lambda: all(self.v(s).calls > index for s in others),  # noqa: B023 (awaited within the iteration)
                ("tm.call-relay",),
                f"the relay of {bidder}'s call {index + 1}",
            )
            if bidder in ours and not others:
                # nobody of ours to relay to: the table's next line shows the call was taken
                await self.wait(
                    lambda: len(self.b.calls) > index or self.b.auction_done(),  # noqa: B023 (awaited within the iteration)
                    ("tm.call-relay",),
                    f"{bidder}'s call taken",
                )

    def _late(self, when: bool, *skip: str) -> str | None:
        """The seat of the late probe (None: no probe now)."""
        return next((s for s in self.ours if s not in skip), None) if when else None

    async def _late_ready(self, seat: str, line: str) -> None:
        """Give the table time to relay too early (it must wait for this ready line), then
        send it: a relay that came first fails the relay rule, in the observer."""
        assert self.pump is not None
        await self.pump.drain(0.3)
        self.send(seat, line)

    async def _probe_calls(self, bidder: str) -> None:
        """A call out of turn from another of our seats, then an illegal call from the bidder."""
        other = next((s for s in self.ours if s != bidder), None)
        if other is not None:
            self.send(other, self.voice.call(other, "P"))
            self.obs.expect_error(other)
            await self.wait(
                lambda: self.v(other).errors_owed == 0,
                ("tm.out-of-turn",),
                f"an error line to {other}, who called out of turn",
                required=False,
            )
        b = self.b
        bad = next(c for c in ("XX", "X", "1C") if not b.call_legal(c))
        before = self.v(bidder).illegal
        self.send(bidder, self.voice.call(bidder, bad))
        await self.wait(
            lambda: self.v(bidder).illegal > before,
            ("tm.illegal-bid",),
            f"'Illegal bid' to {bidder}, who called {bad}",
            required=False,
        )

    # ------------------------------------------------------------------ play

    async def _play(self, *, probe: bool) -> None:
        ours = self.ours
        bp = self.run.style == "bridge-player"
        b = self.b
        declarer, dummy = b.declarer, b.dummy
        leader = seat_at(declarer, 1)
        early = {declarer, partner(leader)} & set(ours) if bp else set()
        early.discard(dummy)
        for seat in sorted(early):
            self.send(seat, self.voice.ready(seat, "dummy"))
        sent: dict[str, int] = {}  # seat -> index of the card its last ready line was for
        if bp and dummy in ours:
            line = self.voice.ready_card(dummy, leader, 1, dummy_to_play=False, is_dummy=True)
            self.send(dummy, line)
            self.send(dummy, line)  # bridge-player's dummy repeats it (issue 25)
            sent[dummy] = 0
        probed = not probe
        while len(b.cards) < 52:
            j = len(b.cards)
            player, ctrl, trick = b.next_player(), b.controller(), b.trick_no()
            late = self._late(probe and j == 9 and ctrl in ours, ctrl, dummy)
            for seat in ours:
                if seat in (ctrl, late) or sent.get(seat) == j or (j == 0 and seat in early):
                    continue
                self.send(
                    seat,
                    self.voice.ready_card(
                        seat, player, trick, dummy_to_play=player == dummy, is_dummy=seat == dummy
                    ),
                )
                sent[seat] = j
            if ctrl in ours:
                if b.trick_start():
                    await self.wait(
                        lambda: trick in self.v(ctrl).lead_prompts,  # noqa: B023 (awaited within the iteration)
                        ("tm.to-lead",),
                        f"'{'Dummy' if player == dummy else player} to lead' to {ctrl} "
                        f"for trick {trick}",
                    )
                if not probed and trick >= 2 and not b.trick_start():
                    probed = True
                    await self._probe_cards(player, ctrl)
                self.send(ctrl, self.voice.card(player, b.kit_card(player)))
            if late is not None:
                sent[late] = j
                await self._late_ready(
                    late,
                    self.voice.ready_card(
                        late, player, trick, dummy_to_play=player == dummy, is_dummy=late == dummy
                    ),
                )
            waiting = [s for s in ours if s != ctrl and s not in (early if j == 0 else ())]
            await self.wait(
                lambda: all(self.v(s).cards > j for s in waiting),  # noqa: B023 (awaited within the iteration)
                ("tm.card-relay",),
                f"the relay of {player}'s card {j + 1} (trick {trick})",
            )
            if ctrl in ours and not waiting:
                await self.wait(
                    lambda: len(self.b.cards) > j,  # noqa: B023 (awaited within the iteration)
                    ("tm.card-relay",),
                    f"{player}'s card {j + 1} taken",
                )
            if j == 0:
                await self._dummy(early, player, trick)
            if bp and dummy in ours and len(b.cards) < 52:
                # bridge-player's dummy: "ready for dummy's card to trick <t>" after every card
                self.send(
                    dummy,
                    self.voice.ready_card(
                        dummy, b.next_player(), b.trick_no(), dummy_to_play=False, is_dummy=True
                    ),
                )
                sent[dummy] = len(b.cards)

    async def _dummy(self, early: set[str], lead_player: str, trick: int) -> None:
        """Dummy's cards after the opening lead (bridge-player's seats asked already and now
        send their ready line for the lead)."""
        b = self.b
        askers = [s for s in self.ours if s != b.dummy]
        for seat in askers:
            if seat not in early:
                self.send(seat, self.voice.ready(seat, "dummy"))
        await self.wait(
            lambda: all(self.v(s).got_dummy for s in askers), ("tm.dummy-cards",), "dummy's cards"
        )
        for seat in sorted(early):
            self.send(seat, self.voice.received_dummy(seat))
            self.send(
                seat,
                self.voice.ready_card(
                    seat, lead_player, trick, dummy_to_play=False, is_dummy=False
                ),
            )
        if early:
            await self.wait(
                lambda: all(self.v(s).cards > 0 for s in early),
                ("tm.card-relay",),
                "the relay of the opening lead to the seats that asked for dummy first",
            )

    async def _probe_cards(self, player: str, ctrl: str) -> None:
        """A card out of turn from another of our seats, then an illegal card from ``ctrl``."""
        b = self.b
        other = next((s for s in self.ours if s not in (ctrl, b.dummy) and b.remaining(s)), None)
        if other is not None:
            held = sorted(b.remaining(other) or ())
            self.send(other, self.voice.card(other, held[0]))
            self.obs.expect_error(other)
            await self.wait(
                lambda: self.v(other).errors_owed == 0,
                ("tm.out-of-turn",),
                f"an error line to {other}, who played out of turn",
                required=False,
            )
        bad = self._illegal_card(player)
        if bad is None:
            return
        before = self.v(ctrl).illegal
        self.send(ctrl, self.voice.card(player, bad))
        await self.wait(
            lambda: self.v(ctrl).illegal > before,
            ("tm.illegal-card",),
            f"'Illegal card' to {ctrl}, who played {bad} for {player}",
            required=False,
        )

    def _illegal_card(self, player: str) -> str | None:
        """A revoke if ``player`` can make one, else a card ``player`` does not hold."""
        b = self.b
        held = b.remaining(player) or frozenset()
        bad = sorted(c for c in held if b.card_problem(player, c) is not None)
        if bad:
            return bad[0]
        for seat in b.hands:
            if seat != player:
                rest = b.remaining(seat) or frozenset()
                if rest:
                    return sorted(rest)[0]
        return None


async def run_tm(run: TmRun, record: Recorder, transcript: Transcript) -> TmKit:
    kit = TmKit(run, record, transcript)
    with contextlib.suppress(Abort):
        await kit.play()
    return kit
