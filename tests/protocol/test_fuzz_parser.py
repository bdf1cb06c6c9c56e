"""The table manager's input path under a fuzzer (issue 7), bounded for CI.

What a stranger's bytes go through in ``server.tm``: ``LineBuffer`` (bounded lines), then
``parse(line, Direction.TO_TM)``. Engineer P's ``test_properties.py`` already fuzzes ``parse``
with random text and generated messages; this file fuzzes the *whole path* with real and hostile
inputs and their mutations (bit flips, insertions, deletions, splices, random chunking), and
replays a kept corpus on every run:

* ``tests/fuzz_seeds/wire_hostile.txt``: hostile byte strings (binary, invalid UTF-8, absurd
  numbers, broken quoting, odd terminators), one per line as bytes-literal escapes;
* every client line of the golden transcripts in ``tests/peers/`` (the valid inputs).

Properties: nothing but ``ParseError``/``LineTooLong`` is ever raised; no line longer than the
limit comes out of the buffer; what parses is canonical after one round (``parse(render(m)) ==
m``), so what we relay is what we understood; a line the buffer produced parses the same whether
its bytes arrived at once or in pieces.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from bridgebot.protocol import (
    Direction,
    LineBuffer,
    LineTooLong,
    Message,
    ParseError,
    parse,
    render,
)
from bridgebot.protocol.codec import team_name_problem
from bridgebot.protocol.messages import Connect
from hypothesis import given, settings
from hypothesis import strategies as st

SEEDS = Path(__file__).parents[1] / "fuzz_seeds"
PEERS = Path(__file__).parents[1] / "peers"
MAX_LINE = 4096  # the table manager's default (server.tm.TableOptions.max_line)


def hostile_seeds() -> list[bytes]:
    out = []
    for raw in (SEEDS / "wire_hostile.txt").read_text(encoding="ascii").splitlines():
        if raw and not raw.startswith("# "):
            out.append(codecs.escape_decode(raw.encode("ascii"))[0])
    return out


def transcript_client_lines() -> list[bytes]:
    lines = []
    for path in sorted(PEERS.glob("transcript_*.txt")):
        for raw in path.read_text().splitlines():
            if " : " in raw and raw.split(" : ", 1)[0].rstrip().endswith("-> TM"):
                lines.append(raw.split(" : ", 1)[1].encode("ascii") + b"\r\n")
    return lines


CORPUS = hostile_seeds() + transcript_client_lines()


def tm_read_path(chunks: list[bytes], direction: Direction = Direction.TO_TM) -> list[Message]:
    """Feed ``chunks`` as the table manager does; return what parsed. Raises only what the
    protocol defines for bad input."""
    buf = LineBuffer(MAX_LINE)
    lines: list[str] = []
    for chunk in chunks:
        try:
            lines += buf.feed(chunk)
        except LineTooLong:
            lines += buf.feed(b"")  # the complete lines of the same read are not lost
    lines += buf.close()
    parsed = []
    for line in lines:
        assert 0 < len(line) <= MAX_LINE and "\r" not in line and "\n" not in line
        try:
            msg = parse(line, direction)
        except ParseError:
            continue
        if isinstance(msg, Connect) and team_name_problem(msg.team) is not None:
            continue  # a name the table refuses at Connecting (issue 16): never rendered
        again = parse(render(msg), direction)
        assert again == msg, (line, render(msg))
        parsed.append(msg)
    return parsed


def test_the_corpus_is_there() -> None:
    assert len(hostile_seeds()) >= 30 and len(transcript_client_lines()) >= 100


@pytest.mark.parametrize("data", CORPUS, ids=lambda b: repr(b[:30]))
def test_kept_inputs(data: bytes) -> None:
    whole = tm_read_path([data])
    bytewise = tm_read_path([data[i : i + 1] for i in range(len(data))])
    assert whole == bytewise


def test_the_golden_lines_all_parse() -> None:
    for line in transcript_client_lines():
        assert len(tm_read_path([line])) == 1, line


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(CORPUS)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "splice", "repeat"]))
        pos = draw(st.integers(0, len(data)))
        if op == "flip" and data:
            i = min(pos, len(data) - 1)
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del data[pos : pos + draw(st.integers(1, 8))]
        elif op == "splice":
            other = draw(st.sampled_from(CORPUS))
            data[pos:] = other[draw(st.integers(0, len(other))) :]
        else:
            data[pos:pos] = data[pos : pos + 16] * draw(st.integers(2, 400))
    return bytes(data)


@settings(max_examples=300, deadline=None)
@given(data=mutated(), cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_mutations_never_break_the_read_path(data: bytes, cuts: list[int]) -> None:
    points = sorted({c % (len(data) + 1) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    assert tm_read_path(chunks) == tm_read_path([data])
    tm_read_path([data], Direction.FROM_TM)  # the seat client's side reads the same way


@settings(max_examples=50, deadline=None)
@given(size=st.integers(MAX_LINE - 2, 3 * MAX_LINE), tail=st.sampled_from(CORPUS))
def test_an_over_long_line_costs_only_itself(size: int, tail: bytes) -> None:
    """Whatever the size of a flood line, the valid line after it still comes through."""
    flood = b"A" * size + b"\r\n"
    expected = tm_read_path([tail])
    got = tm_read_path([flood + tail])
    assert got == expected
