"""Parser and writer, driven by one table (tests/protocol/cases.py)."""

from __future__ import annotations

import pytest
from bridgebot.protocol import (
    CLIENT_MESSAGES,
    SERVER_MESSAGES,
    BoardInfo,
    CallMsg,
    Cards,
    Connect,
    Dialect,
    Direction,
    DummyCards,
    LocalProtocolError,
    Message,
    ParseError,
    PlayMsg,
    ReadyForCard,
    Seated,
    StartOfBoard,
    Teams,
    parse,
    parse_as,
    render,
    wire,
)
from endplay.types import ContractBid, Denom, Hand, Penalty, PenaltyBid, Player, Vul

from bridgebot import protocol
from tests.protocol.cases import CASES, NORTH_HAND, REPR_NAMESPACE, Case, card

N, E, S, W = Player.north, Player.east, Player.south, Player.west


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_render(case: Case) -> None:
    assert render(case.msg, case.dialect) == case.line


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_parse(case: Case) -> None:
    for direction in case.directions:
        assert parse(case.line, direction) == case.msg
        assert parse_as(type(case.msg), case.line, direction) == case.msg
        assert parse(case.line.encode("ascii") + b"\r\n", direction) == case.msg


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_repr_round_trips(case: Case) -> None:
    assert eval(repr(case.msg), REPR_NAMESPACE) == case.msg


def test_every_message_type_is_in_the_table() -> None:
    covered = {type(c.msg) for c in CASES}
    assert set(CLIENT_MESSAGES) | set(SERVER_MESSAGES) <= covered


def test_every_dialect_option_value_is_in_the_table() -> None:
    dialects = {c.dialect for c in CASES}
    assert {d.seated for d in dialects} == {"paren", "quoted", "bare"}
    assert {d.teams for d in dialects} == {"canonical", "spec", "colonless"}
    assert {d.board_final_stop for d in dialects} == {True, False}
    assert {d.timing_final_stop for d in dialects} == {True, False}


def test_render_and_parse_as_pair() -> None:
    msg = Cards(N, NORTH_HAND)
    assert parse_as(Cards, render(msg)) == msg
    assert parse_as(CallMsg, "NORTH PASSES") == CallMsg(N, PenaltyBid(Penalty.passed))


def test_parse_as_insists_on_its_type() -> None:
    with pytest.raises(ParseError, match="expected a Seated line"):
        parse_as(Seated, "Start of board")


def test_wire_templates_are_what_the_codec_writes() -> None:
    assert render(StartOfBoard()) == wire.START_OF_BOARD
    assert render(Seated(N, "X")) == wire.SEATED_PAREN.format(seat="North", team="X")
    assert render(Teams("A", "B")) == wire.TEAMS_CANONICAL.format(ns="A", ew="B")


def test_playing_suffix_can_be_switched_off() -> None:
    assert render(Teams("A", "B", "IMP"), Dialect(playing_suffix=False)) == (
        'Teams : N/S : "A" E/W : "B"'
    )


def test_named_dialects() -> None:
    from bridgebot.protocol.dialect import BRIDGE_PLAYER_DIALECT, OPENSPIEL_DIALECT, ZBRIDGE_DIALECT

    assert render(Seated(E, "Bots"), BRIDGE_PLAYER_DIALECT) == 'East "Bots" seated'
    assert render(Teams("a", "b"), OPENSPIEL_DIALECT) == 'Teams: N/S "a" E/W "b"'
    assert render(BoardInfo(1, N, Vul.none), ZBRIDGE_DIALECT) == (
        "Board number 1. Dealer North. Neither vulnerable"
    )


# ---- direction matters


@pytest.mark.parametrize(
    ("line", "direction"),
    [
        ("Start of board", Direction.TO_TM),
        ("North ready for deal", Direction.FROM_TM),
        ('Connecting "X" as North using protocol version 18', Direction.FROM_TM),
        ('North ("X") seated', Direction.TO_TM),
        ("Seat was already taken", Direction.TO_TM),
    ],
)
def test_wrong_direction_is_a_parse_error(line: str, direction: Direction) -> None:
    with pytest.raises(ParseError, match="not a Blue Chip message"):
        parse(line, direction)


# ---- bad input names itself


@pytest.mark.parametrize(
    ("line", "direction", "reason"),
    [
        ("", Direction.TO_TM, "empty line"),
        ("   \r\n", Direction.FROM_TM, "empty line"),
        ("North bids 8C", Direction.TO_TM, "not a Blue Chip message"),
        ("North bids 1X", Direction.TO_TM, "not a Blue Chip message"),
        ("North plays 1S", Direction.TO_TM, "not a Blue Chip message"),
        ("North passes hello", Direction.TO_TM, "unexpected text after the call"),
        ("North bids 1NT Alert. a Alert. b", Direction.TO_TM, "two Alert"),
        ("North ready for East's card to trick 14", Direction.TO_TM, "trick 14"),
        ("North ready for East's card to trick 0", Direction.TO_TM, "trick 0"),
        ("North's cards : S A K Q", Direction.FROM_TM, "13 cards, this one holds 3"),
        ("North's cards : S A K Q. S J T 9 8 7 6 5 4 3 2.", Direction.FROM_TM, "twice"),
        ("North's cards : S A A K Q J T 9 8 7 6 5 4 3", Direction.FROM_TM, "appears twice"),
        ("North's cards : A S K Q J T 9 8 7 6 5 4 3 2", Direction.FROM_TM, "before any suit"),
        ("North's cards : S A K Q J T 9 8 7 6 5 4 3 X", Direction.FROM_TM, "unexpected character"),
        ("Explain West's 2D", Direction.FROM_TM, "not a Blue Chip message"),
        ("Board number 1. Dealer Nobody. Both vulnerable.", Direction.FROM_TM, "not a Blue"),
    ],
)
def test_bad_lines(line: str, direction: Direction, reason: str) -> None:
    with pytest.raises(ParseError, match=reason) as info:
        parse(line, direction)
    assert info.value.line is not None


def test_parse_error_carries_the_line() -> None:
    with pytest.raises(ParseError) as info:
        parse("North flies 1NT", Direction.TO_TM)
    assert info.value.line == "North flies 1NT"
    assert "North flies 1NT" in str(info.value)


def test_over_long_input_is_refused() -> None:
    with pytest.raises(ParseError, match="longer than"):
        parse("North passes " + "x" * 10_000, Direction.TO_TM)


# ---- we refuse to write what a peer could not read


@pytest.mark.parametrize(
    ("msg", "reason"),
    [
        (Seated(N, 'A "quoted" team'), "double quote"),
        (Connect("Équipe", N), "ASCII"),
        (Teams("A", "B\nC"), "ASCII"),
        (Teams("A", "B", "Rubber"), "scoring"),
        (CallMsg(N, ContractBid(1, Denom.nt), alert="  two  spaces"), "single inner spaces"),
        (ReadyForCard(N, E, 14), "trick 14"),
        (Cards(N, Hand("AKQ...")), "13 cards"),
        (DummyCards(Hand("A...")), "13 cards"),
        (BoardInfo(-1, N, Vul.none), "negative"),
        (BoardInfo(1, N, Vul.none, "Lounge"), "room"),
    ],
)
def test_render_refuses(msg: Message, reason: str) -> None:
    with pytest.raises(LocalProtocolError, match=reason):
        render(msg)


def test_empty_card_note_is_no_note() -> None:
    assert PlayMsg(N, card("AS"), note="") == PlayMsg(N, card("AS"))
    assert render(PlayMsg(N, card("AS"), note=" ")) == "North plays AS"


def test_card_and_hand_helpers() -> None:
    assert protocol.parse_card("qh") == card("QH")
    assert protocol.parse_card("10h") == card("TH")
    assert protocol.parse_card("SA") == card("AS")
    assert protocol.render_card(card("TD")) == "TD"
    assert protocol.parse_hand(protocol.render_hand(NORTH_HAND)) == NORTH_HAND
    with pytest.raises(ParseError):
        protocol.parse_card("ZZ")
