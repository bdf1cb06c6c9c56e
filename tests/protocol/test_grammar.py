"""Independent grammar check: what we write must parse with table-master-parser (npm 1.2.10).

The parser is a third-party reading of the protocol (bridge-player's), so agreement with it is
evidence that a real peer reads our lines as we mean them. Forms it is known to reject are listed,
with reasons, in ``tests.grammar_check.KNOWN_REJECTED``. If node or the package is missing these
tests fail (CI installs both with ``npm install --prefix tests/grammar``); they never skip.
"""

from __future__ import annotations

from bridgebot.protocol import (
    DEFAULT_DIALECT,
    BoardInfo,
    CallMsg,
    Cards,
    Dialect,
    DummyCards,
    Message,
    PlayMsg,
    ReadyForBid,
    ReadyForCard,
    render,
    render_card,
)
from bridgebot.protocol.dialect import BRIDGE_PLAYER_DIALECT
from endplay.types import Player, Vul

from tests.grammar_check import (
    KNOWN_MISREAD,
    KNOWN_REJECTED,
    GrammarCheckUnavailable,
    check_lines,
    known_rejection,
    parse_values,
    unexpected_rejections,
)
from tests.protocol.cases import ALL_CALLS, ALL_CARDS, BRIDGE_PLAYER_SEATED, CASES, sample_hands

SEAT_LETTER = {Player.north: "N", Player.east: "E", Player.south: "S", Player.west: "W"}
# The parser's names for the vulnerabilities.
VUL_WORD = {Vul.none: "Nil", Vul.ns: "NS", Vul.ew: "EW", Vul.both: "All"}


def test_every_canonical_rendering_parses_except_known_rejected_forms() -> None:
    lines = [case.line for case in CASES]
    assert unexpected_rejections(lines) == []


def test_bridge_player_seated_dialects_parse() -> None:
    """bridge-player needs these; they must not hide behind KNOWN_REJECTED."""
    lines = [case.line for case in BRIDGE_PLAYER_SEATED]
    lines.append(render(CASES[0].msg, DEFAULT_DIALECT))  # a plain line, as a control
    assert {case.dialect.seated for case in BRIDGE_PLAYER_SEATED} == {"quoted", "bare"}
    assert check_lines(lines) == [(line, None) for line in lines]
    values = parse_values([case.line for case in BRIDGE_PLAYER_SEATED])
    for case, value in zip(BRIDGE_PLAYER_SEATED, values, strict=True):
        assert value == {
            "kind": "seated",
            "seat": SEAT_LETTER[case.msg.seat],
            "teamName": case.msg.team,
        }


def test_bridge_player_dialect_seated_line_parses() -> None:
    from bridgebot.protocol import Seated, Teams

    lines = [
        render(Seated(Player.east, "Bots"), BRIDGE_PLAYER_DIALECT),
        render(Teams("Bots", "Others", "IMP"), BRIDGE_PLAYER_DIALECT),
    ]
    assert check_lines(lines) == [(line, None) for line in lines]


def test_known_rejections_are_still_rejected() -> None:
    """The list must not go stale: each example really is rejected, and is classified as itself."""
    examples = [known.example for known in KNOWN_REJECTED]
    for (line, error), known in zip(check_lines(examples), KNOWN_REJECTED, strict=True):
        assert error is not None, f"{known.name}: now accepted, drop it from KNOWN_REJECTED"
        assert known_rejection(line) is known


def test_default_dialect_has_only_the_unavoidable_rejections() -> None:
    """With the default dialect, only the spec lines no single form can fix are rejected."""
    rejected = {
        known_rejection(line).name  # type: ignore[union-attr]
        for line, error in check_lines([c.line for c in CASES if c.dialect == DEFAULT_DIALECT])
        if error is not None
    }
    assert rejected <= {
        "ready to start",
        "parenthesised seated",
        "Illegal card",
        "ANYPL connect",
        "received dummy",
        "Dummy plays",
        "error text",
        "bracketed Timing (OpenSpiel)",
    }


def _systematic_messages() -> list[Message]:
    """Every call from every seat, every card, every board shape, a spread of hands."""
    seats = list(Player)
    msgs: list[Message] = [CallMsg(s, c) for s in seats for c in ALL_CALLS]
    msgs += [CallMsg(Player.north, ALL_CALLS[5], alert="15 to 17 total points.")]
    msgs += [PlayMsg(s, c) for s in seats for c in ALL_CARDS]
    msgs += [BoardInfo(n, seats[(n - 1) % 4], list(Vul)[n % 4]) for n in range(1, 33)]
    msgs += [Cards(seats[i % 4], h) for i, h in enumerate(sample_hands(24))]
    msgs += [DummyCards(h) for h in sample_hands(8, seed=2)]
    msgs += [ReadyForBid(a, b) for a in seats for b in seats if a != b]
    msgs += [ReadyForCard(a, b, t) for a in seats for b in seats for t in (1, 7, 13) if a != b]
    return msgs


def _expected_reading(msg: Message) -> dict[str, object]:
    """What table-master-parser should make of our line, in its own vocabulary."""
    match msg:
        case CallMsg(seat=seat, call=call, alert=alert):
            text = render(CallMsg(seat, call)).split(" ", 1)[1]
            word = {"passes": "pass", "doubles": "X", "redoubles": "XX"}.get(text, text[5:])
            out: dict[str, object] = {"kind": "bid", "seat": SEAT_LETTER[seat], "bid": word}
            if alert:
                out["alert"] = alert
            return out
        case PlayMsg(seat=seat, card=card) if seat is not None:
            return {"kind": "play", "seat": SEAT_LETTER[seat], "card": render_card(card)}
        case BoardInfo(number=number, dealer=dealer, vul=vul):
            return {
                "kind": "deal",
                "board": number,
                "dealer": SEAT_LETTER[dealer],
                "vulnerable": VUL_WORD[vul],
            }
        case Cards(seat=seat):
            return {"kind": "cards", "seat": SEAT_LETTER[seat], "cards": _card_list(render(msg))}
        case DummyCards():
            return {"kind": "dummyCards", "cards": _card_list(render(msg))}
        case ReadyForBid(seat=seat, bidder=bidder):
            return {"kind": "readyForBid", "seat": SEAT_LETTER[seat], "from": SEAT_LETTER[bidder]}
        case ReadyForCard(seat=seat, player=player, trick=trick) if player is not None:
            return {
                "kind": "readyForCard",
                "seat": SEAT_LETTER[seat],
                "player": SEAT_LETTER[player],
                "trick": trick,
            }
    raise AssertionError(f"no expectation for {msg!r}")


def _card_list(line: str) -> list[str]:
    """``S A K. H -. ...`` -> ["AS", "KS", ...] in the order written."""
    out = []
    for group in line.split(":", 1)[1].split("."):
        parts = group.split()
        if parts:
            out += [rank + parts[0] for rank in parts[1:] if rank != "-"]
    return out


def test_parser_reads_our_lines_as_we_mean_them() -> None:
    msgs = _systematic_messages()
    lines = [render(m) for m in msgs]
    values = parse_values(lines)
    wrong = [
        (line, value, _expected_reading(m))
        for m, line, value in zip(msgs, lines, values, strict=True)
        if value != _expected_reading(m)
    ]
    assert wrong == []
    assert len(lines) > 450


def test_dialect_variants_of_board_and_timing_parse() -> None:
    lines = [
        render(BoardInfo(9, Player.south, Vul.ew), Dialect(board_final_stop=False)),
        render(BoardInfo(9, Player.south, Vul.ew, "Open")),
        *(c.line for c in CASES if "Timing" in c.line and "[" not in c.line),
    ]
    assert check_lines(lines) == [(line, None) for line in lines]


def test_missing_node_fails_loudly(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PATH", "/nonexistent")
    try:
        check_lines(["North passes"])
    except GrammarCheckUnavailable as exc:
        assert "node is not on PATH" in str(exc)
    else:
        raise AssertionError("check_lines ran without node")


def test_missing_package_fails_loudly(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import tests.grammar_check as gc

    monkeypatch.setattr(gc, "PACKAGE_DIR", tmp_path / "absent")
    try:
        check_lines(["North passes"])
    except GrammarCheckUnavailable as exc:
        assert "npm install --prefix tests/grammar" in str(exc)
    else:
        raise AssertionError("check_lines ran without the package")


def test_known_misreads_are_still_misread() -> None:
    lines = list(KNOWN_MISREAD)
    for line, value in zip(lines, parse_values(lines), strict=True):
        assert value is not None and value["kind"] == KNOWN_MISREAD[line]
