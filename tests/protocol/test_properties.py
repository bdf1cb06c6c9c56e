"""Property-based tests: the codec never fails in an unexpected way, and round-trips everything.

- any input line (random text, random bytes, mutations of valid lines) either parses or raises
  the protocol's own ``ParseError``, never anything else;
- every message of every type, in every dialect, survives ``parse(render(m)) == m``;
- framing with random chunking yields the same lines as the whole input.
"""

from __future__ import annotations

import re
import string

from bridgebot.protocol import (
    BoardInfo,
    CallMsg,
    Cards,
    Connect,
    Dialect,
    Direction,
    DummyCards,
    EndOfSession,
    ErrorText,
    IllegalBid,
    IllegalCard,
    LineBuffer,
    LineTooLong,
    Message,
    ParseError,
    PlayMsg,
    ReadyForBid,
    ReadyForCard,
    ReadyForCards,
    ReadyForDeal,
    ReadyForDummy,
    ReadyForTeams,
    ReadyToStart,
    ReceivedDummy,
    Seated,
    StartOfBoard,
    Teams,
    Timing,
    ToLead,
    parse,
    render,
)
from endplay.types import Card, ContractBid, Denom, Hand, Penalty, PenaltyBid, Player, Vul
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.protocol.cases import ALL_CARDS, CASES, REPR_NAMESPACE, Case

SETTINGS = settings(max_examples=300, deadline=None)

# ---------------------------------------------------------------- strategies

seats = st.sampled_from(list(Player))
opt_seats = st.one_of(st.none(), seats)
cards = st.sampled_from(ALL_CARDS)
calls = st.one_of(
    st.builds(PenaltyBid, st.sampled_from(list(Penalty))),
    st.builds(ContractBid, st.integers(1, 7), st.sampled_from(list(Denom))),
)


def _hand(cs: list[Card]) -> Hand:
    hand = Hand()
    for c in cs:
        hand.add(c)
    return hand


hands = st.permutations(ALL_CARDS).map(lambda p: _hand(p[:13]))

_WORD_CHARS = "".join(ch for ch in string.printable if ch not in string.whitespace and ch != '"')
words = st.text(alphabet=_WORD_CHARS, min_size=1, max_size=8)
#: Free text as it survives a wire trip: printable ASCII, single inner spaces, no outer ones.
texts = st.lists(words, min_size=1, max_size=5).map(" ".join)
team_names = st.one_of(st.just(""), texts)
_SUFFIX = re.compile(r"\b(alert|infos)\.", re.IGNORECASE)
explanations = st.one_of(st.none(), st.just(""), texts.filter(lambda t: not _SUFFIX.search(t)))
notes = st.one_of(st.none(), texts)
error_texts = st.builds(
    lambda head, tail: f"{head} {tail}" if tail else head,
    st.sampled_from(["Error", "ERROR:", "Expected", "Seat was already taken", "Team name must be"]),
    st.one_of(st.just(""), texts),
)

messages: st.SearchStrategy[Message] = st.one_of(
    st.builds(
        Connect,
        team_names,
        opt_seats,
        st.integers(0, 999_999),
        st.one_of(st.just(""), texts.filter(lambda t: t != ".")),
    ),
    st.builds(ReadyForTeams, seats),
    st.builds(ReadyToStart, seats),
    st.builds(ReadyForDeal, seats),
    st.builds(ReadyForCards, seats),
    st.builds(ReadyForBid, seats, seats),
    st.builds(ReadyForCard, seats, opt_seats, st.integers(1, 13)),
    st.builds(ReadyForDummy, seats),
    st.builds(ReceivedDummy, seats),
    st.builds(CallMsg, seats, calls, explanations, explanations),
    st.builds(PlayMsg, opt_seats, cards, notes),
    st.builds(Seated, seats, texts),
    st.builds(Teams, team_names, team_names, st.sampled_from([None, "IMP", "MP"])),
    st.just(StartOfBoard()),
    st.builds(
        BoardInfo,
        st.integers(0, 10**9 - 1),
        seats,
        st.sampled_from(list(Vul)),
        st.sampled_from([None, "Open", "Closed"]),
    ),
    st.builds(Cards, seats, hands),
    st.builds(DummyCards, hands),
    st.builds(ToLead, opt_seats),
    st.builds(Timing, *[st.integers(0, 500_000)] * 4),
    st.just(EndOfSession()),
    st.just(IllegalBid()),
    st.just(IllegalCard()),
    st.builds(ErrorText, error_texts),
)
dialects = st.builds(
    Dialect,
    seated=st.sampled_from(["paren", "quoted", "bare"]),
    teams=st.sampled_from(["canonical", "spec", "colonless"]),
    playing_suffix=st.just(True),
    board_final_stop=st.booleans(),
    timing_final_stop=st.booleans(),
)
directions = st.sampled_from(list(Direction))


def _parse_or_parse_error(line: str | bytes, direction: Direction) -> Message | None:
    try:
        msg = parse(line, direction)
    except ParseError:
        return None
    assert isinstance(msg, Message)
    return msg


# ---------------------------------------------------------------- never anything but ParseError


@SETTINGS
@given(st.text(max_size=200), directions)
def test_random_text_parses_or_raises_parse_error(line: str, direction: Direction) -> None:
    _parse_or_parse_error(line, direction)


@SETTINGS
@given(st.binary(max_size=200), directions)
def test_random_bytes_parse_or_raise_parse_error(data: bytes, direction: Direction) -> None:
    _parse_or_parse_error(data, direction)


_ALPHABET = string.printable + "ſKİı\u00a0\u2028é\x00\x7f"


@st.composite
def mutated_lines(draw: st.DrawFn) -> str:
    """A valid line with a few random edits: inserted, deleted, replaced or case-flipped chars."""
    line = list(draw(st.sampled_from([c.line for c in CASES])))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "flip", "dup"]))
        i = draw(st.integers(0, max(len(line) - 1, 0)))
        if op == "insert":
            line.insert(i, draw(st.sampled_from(_ALPHABET)))
        elif line and op == "delete":
            del line[i]
        elif line and op == "replace":
            line[i] = draw(st.sampled_from(_ALPHABET))
        elif line and op == "flip":
            line[i] = line[i].swapcase()
        elif line:
            line.insert(i, line[i])
    return "".join(line)


@SETTINGS
@given(mutated_lines(), directions)
def test_mutated_lines_parse_or_raise_parse_error(line: str, direction: Direction) -> None:
    msg = _parse_or_parse_error(line, direction)
    if msg is not None:
        # Whatever we accepted, we can write back and read again identically.
        assert parse(render(msg), direction) == msg


@SETTINGS
@given(st.sampled_from(CASES), st.data())
def test_case_and_spacing_do_not_matter(case: Case, data: st.DataObject) -> None:
    if (
        isinstance(case.msg, (Timing, ErrorText, Seated, Teams, Connect))
        or (isinstance(case.msg, CallMsg) and (case.msg.alert or case.msg.info))
        or (isinstance(case.msg, PlayMsg) and case.msg.note)
    ):
        return  # these carry free text whose case is kept
    flips = data.draw(st.lists(st.booleans(), min_size=len(case.line), max_size=len(case.line)))
    line = "".join(ch.swapcase() if f else ch for ch, f in zip(case.line, flips, strict=True))
    line = line.replace(" ", data.draw(st.sampled_from([" ", "  ", " \t "])))
    for direction in case.directions:
        assert parse(line, direction) == case.msg


# ---------------------------------------------------------------- round trips


@SETTINGS
@given(messages, dialects)
def test_render_parse_round_trip(msg: Message, dialect: Dialect) -> None:
    if isinstance(msg, Seated) and dialect.seated == "bare" and not msg.team:
        return  # "North  seated" has no team to read back; bare is for named teams only
    line = render(msg, dialect)
    assert line == line.strip()
    line.encode("ascii")  # always ASCII
    for direction in type(msg).DIRECTIONS:
        assert parse(line, Direction(direction)) == msg


@SETTINGS
@given(messages)
def test_repr_round_trip(msg: Message) -> None:
    assert eval(repr(msg), REPR_NAMESPACE) == msg


# ---------------------------------------------------------------- framing


def _reference_lines(data: bytes) -> list[str]:
    parts = re.split(rb"\r\n|\r|\n", data)
    if parts and not re.search(rb"[\r\n]$", data):
        parts = parts[:-1]  # the unterminated tail is not a line yet
    out = [p.decode("utf-8", errors="replace").rstrip() for p in parts]
    return [line for line in out if line.strip()]


line_texts = st.one_of(
    st.sampled_from([c.line for c in CASES]),
    st.text(alphabet=string.printable.replace("\r", "").replace("\n", ""), max_size=30),
)
terminators = st.sampled_from([b"\r\n", b"\n", b"\r", b"\r\n\r\n"])


@SETTINGS
@given(st.lists(st.tuples(line_texts, terminators), max_size=12), st.data())
def test_random_chunking_gives_the_same_lines(
    pieces: list[tuple[str, bytes]], data: st.DataObject
) -> None:
    stream = b"".join(text.encode("ascii") + term for text, term in pieces)
    whole = LineBuffer().feed(stream)
    assert whole == _reference_lines(stream)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    buf = LineBuffer()
    got: list[str] = []
    previous = 0
    for cut in [*cuts, len(stream)]:
        got += buf.feed(stream[previous:cut])
        previous = cut
    assert got == whole


@SETTINGS
@given(st.binary(max_size=300), st.lists(st.integers(0, 300), max_size=8), st.integers(1, 40))
def test_framing_with_any_bytes_never_fails_unexpectedly(
    data: bytes, cuts: list[int], limit: int
) -> None:
    buf = LineBuffer(max_line=limit)
    previous = 0
    for cut in [*sorted(c for c in cuts if c <= len(data)), len(data)]:
        try:
            lines = buf.feed(data[previous:cut])
        except LineTooLong:
            lines = buf.feed(b"")
        assert all(len(line.encode("utf-8", errors="replace")) > 0 for line in lines)
        previous = cut
    buf.close()
