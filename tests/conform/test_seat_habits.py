"""Issue 44: ``conform seat`` against scripted programs with the habits of real clients.

The programs are the shipped scripted seats (``server.testing.styles``) over real TCP on
127.0.0.1, each with one habit: Ben's after a restart (``ready for deal`` on every Timing line
and again on ``Start of board``: warned, nothing failed), the same line said early by a program
never restarted and never repeating it (failed), a program that never declares (warned, the
role named), and a declarer that plays dummy's card in its own name (refused with an error line
and failed by name, with no timeout after it)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from bridgebot.conform.report import SEAT_RULES, Recorder, Transcript
from bridgebot.conform.seat_check import SeatObserver
from bridgebot.conform.seat_kit import SeatKit, SeatRun
from bridgebot.conform.wire import RANKS, SEATS
from bridgebot.protocol.codec import Direction, parse
from bridgebot.protocol.messages import PlayMsg, ReadyForDeal
from bridgebot.server.testing.styles import STYLES, Style, StyledPeer, StyledSeat
from endplay.types import Bid, Card, ContractBid, Player

from tests.conform.peers import conform_seat

TIMEOUT = 2.0


def open_1nt(seat: Player, board: int, auction: Sequence[Bid]) -> Bid:
    """1NT when nobody has bid yet, else pass: the program declares where the kit passes."""
    return Bid("p") if any(isinstance(c, ContractBid) for c in auction) else Bid("1NT")


def always_pass(seat: Player, board: int, auction: Sequence[Bid]) -> Bid:
    return Bid("p")


def first(legal: Sequence[Card]) -> Card:
    return legal[0]


async def under_the_kit(
    tmp: Path, model: StyledSeat, boards: int
) -> tuple[Recorder, SeatKit, BaseException | None]:
    """``model`` at North over TCP under ``conform seat``; what the peer raised, if anything."""
    tasks: list[asyncio.Future[None]] = []

    def start(port: int) -> None:
        tasks.append(asyncio.ensure_future(StyledPeer("127.0.0.1", port, model, timeout=10).run()))

    record, kit = await conform_seat(
        tmp, start, seats=("North",), boards=boards, answer_timeout=TIMEOUT
    )
    (outcome,) = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 15)
    return record, kit, outcome


def seat(style: Style, calls: Callable[[Player, int, Sequence[Bid]], Bid] = open_1nt) -> StyledSeat:
    return StyledSeat(Player.north, style, "Bots", calls=calls, choose=first)


async def test_ben_after_a_restart_passes_with_repeat_warnings(tmp_path: Path) -> None:
    """Ben's restart habit on the last three boards and after the last Timing line: every
    extra ``ready for deal`` is a repeat, none a failure, none a line after the end."""
    model = seat(STYLES["ben-restart"])
    record, kit, outcome = await under_the_kit(tmp_path, model, 8)
    assert outcome is None
    assert record.failed_rules() == []
    assert kit.boards_done == 8
    assert record.status_of("seat.repeat") == "warn"
    assert record.status_of("seat.end-of-session") == "pass"
    assert record.status_of("seat.restart") == "pass"
    # the habit happened: one on each Start of board (8, and the restart's), and one on the
    # Timing lines of boards 6 (the restarted one), 7 and 8, the last just before the end
    assert model.said[-1] == "North ready for deal"
    assert model.said.count("North ready for deal") == 8 + 1 + 3


class Eager(StyledSeat):
    """Says ``ready for deal`` on every Timing line instead of on the next ``Start of board``:
    early, never restarted, never said twice."""

    early = False

    def hear(self, line: str) -> None:
        super().hear(line)
        if line.startswith("Timing"):
            self.pending.append(self._line(ReadyForDeal(seat=self.seat)))
            self.early = True
        elif line == "Start of board" and self.early:
            self.pending.clear()


async def test_an_early_ready_for_deal_without_a_restart_still_fails(tmp_path: Path) -> None:
    model = Eager(Player.north, STYLES["canonical"], "Bots", calls=open_1nt, choose=first)
    record, kit, _ = await under_the_kit(tmp_path, model, 2)
    assert kit.boards_done == 2  # taken as a table takes it: no wait, no timeout
    assert record.failed_rules() == ["seat.ready-for-deal"]
    ready = next(r for r in record.results() if r.rule == "seat.ready-for-deal")
    assert ready.failures == 2  # after board 1, and after board 2 before End of session
    assert all("before Start of board" in f.detail for f in ready.findings if f.status == "fail")
    # found when the program answered the board line, named where it was said: on board 1's
    # Timing line
    lines = (tmp_path / "conform-seat.txt").read_text().splitlines()
    at = ready.findings[0].transcript_line
    assert at is not None and ready.findings[0].board == 1
    assert lines[at - 1] == "North -> TM : North ready for deal"
    assert lines[at - 2].startswith("TM -> North : Timing")


async def test_a_program_that_never_declares_is_warned_naming_the_role(tmp_path: Path) -> None:
    model = seat(STYLES["canonical"], calls=always_pass)
    record, kit, outcome = await under_the_kit(tmp_path, model, 4)
    assert outcome is None
    assert record.failed_rules() == []
    assert kit.roles() == ["passed out", "dummy", "opening leader", "defender"]
    roles = next(r for r in record.results() if r.rule == "seat.roles")
    assert roles.status == "warn"
    (finding,) = roles.findings
    assert "declarer" in finding.detail and "dummy" not in finding.detail


async def test_a_program_that_bids_declares_on_the_first_board(tmp_path: Path) -> None:
    model = seat(STYLES["canonical"])
    record, kit, _ = await under_the_kit(tmp_path, model, 1)
    assert kit.roles() == ["declarer"]
    assert record.status_of("seat.roles") == "pass"


def test_the_declarer_board_gives_the_program_s_side_the_26_highest_cards() -> None:
    for subject, seed in (("North", 0), ("East", 5), ("West", 11)):
        kit = SeatKit(
            SeatRun("127.0.0.1", 0, (subject,), seed=seed), Recorder(SEAT_RULES), Transcript(None)
        )
        hands = kit._deal(0, "declarer")
        partner = SEATS[(SEATS.index(subject) + 2) % 4]
        side = hands[subject] | hands[partner]
        assert sorted(RANKS.index(c[0]) for c in side) == sorted([*range(6)] * 4 + [6, 6])
        assert sum(len(h) for h in hands.values()) == 52 == len(frozenset().union(*hands.values()))
        points = {
            s: sum({"A": 4, "K": 3, "Q": 2, "J": 1}.get(c[0], 0) for c in hands[s]) for s in SEATS
        }
        assert points[subject] >= points[partner] and points[subject] + points[partner] == 40
        assert hands == kit._deal(0, "declarer")  # the seed alone decides


class OwnName(StyledSeat):
    """A declarer that plays dummy's first card in its own seat's name, says nothing more until
    the table answers, and plays it again in dummy's name once that answer is an error line."""

    def __init__(self) -> None:
        super().__init__(Player.north, STYLES["canonical"], "Bots", calls=open_1nt, choose=first)
        self.errors: list[str] = []
        self.retry: str | None = None

    def speak(self) -> str | None:
        if self.retry is not None and not self.errors:
            return None  # waiting for the table's answer to the card
        line = super().speak()
        if line is None or self.retry is not None:
            return line
        msg = parse(line, Direction.TO_TM)
        if isinstance(msg, PlayMsg) and msg.seat not in (None, self.seat):
            self.retry = line
            return line.replace(line.split()[0], "North", 1)
        return line

    def hear(self, line: str) -> None:
        if line.startswith("Error") and self.retry is not None:
            self.errors.append(line)
            self.pending.append(self.retry)
            return
        super().hear(line)


async def test_dummy_s_card_in_declarer_s_name_gets_an_error_line_and_fails_card(
    tmp_path: Path,
) -> None:
    model = OwnName()
    record, kit, outcome = await under_the_kit(tmp_path, model, 1)
    assert model.retry is not None and model.retry.startswith("South plays")
    assert model.errors == ["Error: North: a card in North's name when South is to play"]
    assert record.failed_rules() == ["seat.card"]  # and no seat.answer: nobody waited
    assert outcome is None and kit.boards_done == 1
    (finding,) = next(r for r in record.results() if r.rule == "seat.card").findings
    assert finding.expected == model.retry


def test_a_line_that_crossed_end_of_session_is_not_a_line_after_it() -> None:
    """Judged by what had been written when it arrived: Ben's line on the last Timing line
    arrives once End of session is written, but was sent before it could be read."""
    record = Recorder(SEAT_RULES)
    obs = SeatObserver(record, "North")
    for line in ('North ("Bots") seated', 'Teams : N/S : "Bots" E/W : "Kit"'):
        obs.tm_sent(line)
    obs.seat_sent("North ready for teams")
    obs.tm_sent("Start of board")
    obs.seat_sent("North ready for deal")
    obs.tm_sent("Board number 1. Dealer North. Neither vulnerable.")
    obs.tm_sent("Start of board")  # a restart: the program is restarted
    obs.seat_sent("North ready for deal")
    obs.tm_sent("Timing - N/S : this board [0 sec], total [0 sec]. E/W : same.")
    obs.tm_sent("End of session")
    obs.seat_sent("North ready for deal", heard=obs.heard - 1)  # arrived before the end
    assert record.failed_rules() == []
    assert record.status_of("seat.repeat") == "warn"
    obs.seat_sent("North ready for deal")  # this one arrived after it
    assert record.failed_rules() == ["seat.end-of-session"]


def test_the_kit_s_card_choice_does_not_depend_on_the_hash_seed() -> None:
    """East leads with four twos: the kit's lowest card must be the same one whatever order a
    set of cards iterates in (``PYTHONHASHSEED``)."""
    code = (
        "from bridgebot.conform.model import BoardModel\n"
        "hands = {'North': frozenset('AS KS QS JS TS 9S 8S 7S 6S AH KH QH JH'.split()),\n"
        "         'East': frozenset('2S 2H 2D 2C 3S 3H 3D 3C 4S 4H 4D 4C 5S'.split())}\n"
        "m = BoardModel(1, 'North', 'Neither', hands=hands)\n"
        "for c in ('1NT', 'P', 'P', 'P'): m.add_call(c)\n"
        "print(m.kit_card('East'))\n"
    )
    seen = set()
    for hash_seed in ("1", "4", "5"):  # 2D, 2H, 2S when ties went by set order
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        seen.add(out.stdout.strip())
    assert seen == {"2C"}
