"""LineBuffer and encode_line: terminators, chunking, limits, nothing finished lost."""

from __future__ import annotations

import pytest
from bridgebot.protocol import LineBuffer, LineTooLong, LocalProtocolError, encode_line


@pytest.mark.parametrize(
    ("data", "lines"),
    [
        (b"North passes\r\n", ["North passes"]),  # the spec: CR LF
        (b"North passes\n", ["North passes"]),  # .NET WriteLine on Linux, OpenSpiel
        (b"North passes\r", ["North passes"]),  # bare CR
        (b"a\r\nb\nc\rd\r\n", ["a", "b", "c", "d"]),  # mixed
        (b"a\r\n\r\n\n\r\nb\r\n", ["a", "b"]),  # blank lines dropped
        (b"a\r\n   \t \r\nb\r\n", ["a", "b"]),  # whitespace-only lines dropped (ComputerBridge)
        (
            b"North's cards : S A. \r\n",
            ["North's cards : S A."],
        ),  # trailing blank trimmed (Ben comment)
        (b"  lead\r\n", ["  lead"]),  # leading blanks are the parser's business
        (b"no terminator yet", []),
    ],
)
def test_whole_input(data: bytes, lines: list[str]) -> None:
    assert LineBuffer().feed(data) == lines


def test_line_split_across_reads() -> None:
    buf = LineBuffer()
    assert buf.feed(b"North pa") == []
    assert buf.pending == 8
    assert buf.feed(b"sses\r") == ["North passes"]
    assert buf.feed(b"\nEast passes\r\nSou") == ["East passes"]
    assert buf.feed(b"th passes\r\n") == ["South passes"]
    assert buf.pending == 0


def test_crlf_split_between_reads_makes_no_empty_line() -> None:
    buf = LineBuffer()
    assert buf.feed(b"a\r") == ["a"]
    assert buf.feed(b"\nb\r\n") == ["b"]


def test_close_returns_the_unterminated_last_line() -> None:
    buf = LineBuffer()
    assert buf.feed(b"End of session\r\nbye") == ["End of session"]
    assert buf.close() == ["bye"]
    assert buf.close() == []


def test_too_long_line_raises_then_recovers() -> None:
    buf = LineBuffer(max_line=10)
    with pytest.raises(LineTooLong, match="longer than 10 bytes") as info:
        buf.feed(b"0123456789ABCDEF")
    assert info.value.line is not None and info.value.line.startswith("0123456789")
    # The rest of the long line is discarded up to its terminator, silently.
    assert buf.feed(b"more junk\r\nok\r\n") == ["ok"]


def test_too_long_line_arriving_in_small_pieces_raises_once() -> None:
    buf = LineBuffer(max_line=8)
    raised = 0
    for _ in range(10):
        try:
            assert buf.feed(b"xxxx") == []
        except LineTooLong:
            raised += 1
    assert raised == 1
    assert buf.feed(b"\r\nfine\r\n") == ["fine"]


def test_lines_complete_before_an_overflow_are_not_lost() -> None:
    buf = LineBuffer(max_line=10)
    with pytest.raises(LineTooLong):
        buf.feed(b"first\r\nsecond\r\n" + b"x" * 20 + b"\r\nthird\r\n")
    assert buf.feed(b"") == ["first", "second", "third"]


def test_a_line_of_exactly_max_line_is_fine() -> None:
    buf = LineBuffer(max_line=5)
    assert buf.feed(b"12345\r\n") == ["12345"]
    with pytest.raises(LineTooLong):
        buf.feed(b"123456\r\n")


def test_undecodable_bytes_do_not_crash() -> None:
    assert LineBuffer().feed(b"North \xff\xfe passes\r\n") == ["North \ufffd\ufffd passes"]


def test_max_line_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        LineBuffer(max_line=0)


def test_encode_line() -> None:
    assert encode_line("North passes") == b"North passes\r\n"
    with pytest.raises(LocalProtocolError, match="ASCII"):
        encode_line('Connecting "Équipe" as North using protocol version 18')
    with pytest.raises(LocalProtocolError, match="CR or LF"):
        encode_line("North passes\r\nEast passes")


def test_encode_then_frame_round_trip() -> None:
    lines = ["Start of board", "Board number 1. Dealer North. Neither vulnerable."]
    assert LineBuffer().feed(b"".join(encode_line(line) for line in lines)) == lines
