"""Parse and render Blue Chip lines.

``parse`` is tolerant in the ways real peers need (docs/protocol.md sections 2 and 4): keywords and
seat names in any case, runs of spaces, a trailing full stop, lower-case cards, suit-first cards,
clubs-first hands and every void notation, the Teams and seated line variants, the Timing line in
any form. Each tolerance names the peer that needed it. Team names and explanation texts keep their
case. ``render`` writes the canonical form of section 2.8, with the per-peer options of
:class:`~protocol.dialect.Dialect`. Neither does I/O; the terminator is the transport's business
(:func:`protocol.framing.encode_line`).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from typing import TypeVar

from bridgebot.protocol import wire
from bridgebot.protocol.dialect import DEFAULT_DIALECT, Dialect
from bridgebot.protocol.errors import LocalProtocolError, ParseError
from bridgebot.protocol.messages import (
    BoardInfo,
    CallMsg,
    Cards,
    Connect,
    DummyCards,
    EndOfSession,
    ErrorText,
    IllegalBid,
    IllegalCard,
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
    Seated,
    StartOfBoard,
    Teams,
    Timing,
    ToLead,
)
from endplay.types import (
    Bid,
    Card,
    ContractBid,
    Denom,
    Hand,
    Penalty,
    PenaltyBid,
    Player,
    Rank,
    Vul,
)


class Direction(enum.Enum):
    """Which way a line travels: the same text can mean different things (a call from a bidder or
    a relayed call), and some texts are only legal one way."""

    TO_TM = "to_tm"
    FROM_TM = "from_tm"


M = TypeVar("M", bound=Message)

#: Longest line ``parse`` looks at; the framing layer enforces its own (smaller) limit first.
MAX_PARSE_CHARS = 8192

# ----------------------------------------------------------------- vocabulary lookups

_SEAT_BY_WORD: dict[str, Player] = {name.lower(): p for p, name in wire.SEAT_NAMES.items()}
_SUIT_BY_LETTER: dict[str, Denom] = {v: k for k, v in wire.SUIT_LETTERS.items()}
_RANK_BY_LETTER: dict[str, Rank] = {v: k for k, v in wire.RANK_LETTERS.items()}
_STRAIN_BY_TEXT: dict[str, Denom] = {
    **_SUIT_BY_LETTER,
    "NT": Denom.nt,
    "N": Denom.nt,  # Ben writes N internally; some logs carry it
}
_VUL_BY_WORD: dict[str, Vul] = {
    "neither": Vul.none,
    "none": Vul.none,  # not sent by known TMs (Ben asserts on it); harmless to accept
    "n/s": Vul.ns,
    "ns": Vul.ns,
    "e/w": Vul.ew,
    "ew": Vul.ew,
    "both": Vul.both,
    "all": Vul.both,
}
_PENALTY_BY_WORD: dict[str, Penalty] = {
    "passes": Penalty.passed,
    "doubles": Penalty.doubled,
    "redoubles": Penalty.redoubled,
}
_PENALTY_WORDS: dict[Penalty, str] = {
    Penalty.passed: wire.CALL_PASS,
    Penalty.doubled: wire.CALL_DOUBLE,
    Penalty.redoubled: wire.CALL_REDOUBLE,
}

_SEAT = r"(?:north|east|south|west)"
# ASCII: without it re folds "ſ" to "s" and the Kelvin sign to "k", and \d matches non-ASCII digits.
_FLAGS = re.IGNORECASE | re.ASCII


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern.replace("SEAT", _SEAT), _FLAGS)


def _seat(word: str) -> Player:
    return _SEAT_BY_WORD[word.lower()]


def _opt_seat(word: str) -> Player | None:
    """``dummy``/``anypl`` -> None, else the seat."""
    return _SEAT_BY_WORD.get(word.lower())


# ----------------------------------------------------------------- cards and hands

_CARD_RE = re.compile(r"(?:([AKQJT2-9]|10)([SHDC])|([SHDC])([AKQJT2-9]|10))", _FLAGS)


def parse_card(text: str) -> Card:
    """``QH``, ``qh`` (WBridge5), ``10H``, or suit first ``HQ`` (bridge_env parses ``SA`` too)."""
    m = _CARD_RE.fullmatch(text.strip())
    if m is None:
        raise ParseError("not a card", line=text)
    rank, suit = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
    rank = "T" if rank == "10" else rank.upper()
    return Card(suit=_SUIT_BY_LETTER[suit.upper()], rank=_RANK_BY_LETTER[rank])


def render_card(card: Card) -> str:
    return wire.RANK_LETTERS[card.rank] + wire.SUIT_LETTERS[card.suit]


def parse_hand(text: str) -> Hand:
    """A hand in any of the notations peers send.

    ``S A K J 4. H -. D 6 5 4 3. C Q J T 9.`` (ComputerBridge now), ``S Q J T.H.D Q 9 6 5.C K Q``
    (ComputerBridge 2018: no spaces, ``H.`` void), ``H - D ...`` (ZBridge: void without full stop),
    clubs first (OpenSpiel), lower case, ``10`` for the ten. Suit letters and rank letters do not
    overlap, so the text is read as a stream of tokens; full stops, dashes and spaces separate.
    """
    holding: dict[Denom, list[Rank]] = {}
    suit: Denom | None = None
    upper = text.upper().replace("10", "T")
    for ch in upper:
        if ch in " .-":
            continue
        if ch in _SUIT_BY_LETTER:
            suit = _SUIT_BY_LETTER[ch]
            if suit in holding:
                raise ParseError(f"suit {ch} appears twice in the hand", line=text)
            holding[suit] = []
        elif ch in _RANK_BY_LETTER:
            if suit is None:
                raise ParseError("a rank before any suit letter in the hand", line=text)
            rank = _RANK_BY_LETTER[ch]
            if rank in holding[suit]:
                raise ParseError(f"card {ch}{wire.SUIT_LETTERS[suit]} appears twice", line=text)
            holding[suit].append(rank)
        else:
            raise ParseError(f"unexpected character {ch!r} in the hand", line=text)
    hand = Hand()
    for s, ranks in holding.items():
        for r in ranks:
            hand.add(Card(suit=s, rank=r))
    if len(hand) != 13:
        raise ParseError(f"a hand must hold 13 cards, this one holds {len(hand)}", line=text)
    return hand


def render_hand(hand: Hand) -> str:
    """``S A K 3. H -. D Q J T 9 8. C 7 6 5 4.``: S H D C, ``. `` between suits, ``-.`` void."""
    parts = []
    for suit, letter in wire.SUIT_LETTERS.items():
        ranks = sorted(hand[suit], key=lambda r: r.value, reverse=True)
        body = " ".join(wire.RANK_LETTERS[r] for r in ranks) if ranks else "-"
        parts.append(f"{letter} {body}.")
    return " ".join(parts)


# ----------------------------------------------------------------- calls


def parse_call(text: str) -> Bid:
    """``passes``/``doubles``/``redoubles``/``bids 1NT`` (also ``1N``, ``1 NT``, any case)."""
    m = _CALL_HEAD.fullmatch(text.strip())
    if m is None:
        raise ParseError("not a call", line=text)
    return _call_from(m)


_CALL_HEAD = _re(r"(?:(passes|doubles|redoubles)|bids ?([1-7]) ?(nt|n|c|d|h|s))")
_CALL_RE = _re(r"(SEAT) " + _CALL_HEAD.pattern + r"(?=$|[\s.])")
_SUFFIX_SPLIT = re.compile(r"\b(alert|infos)\.", _FLAGS)


def _call_from(m: re.Match[str], offset: int = 0) -> Bid:
    pen, level, strain = m.group(1 + offset), m.group(2 + offset), m.group(3 + offset)
    if pen:
        return PenaltyBid(_PENALTY_BY_WORD[pen.lower()])
    return ContractBid(int(level), _STRAIN_BY_TEXT[strain.upper()])


def _render_call(seat: str, call: Bid) -> str:
    if isinstance(call, ContractBid):
        bid = f"{call.level}{wire.STRAIN_TEXT[call.denom]}"
        return wire.CALL_BID.format(seat=seat, bid=bid)
    if isinstance(call, PenaltyBid):
        return _PENALTY_WORDS[call.penalty].format(seat=seat)
    raise LocalProtocolError(f"not a call: {call!r}")


def _parse_call_line(norm: str, line: str) -> CallMsg | None:
    m = _CALL_RE.match(norm)
    if m is None:
        return None
    call = _call_from(m, offset=1)
    rest = norm[m.end() :]
    # TableMoniteur adds a full stop after the call ("North doubles."; ComputerBridge comment).
    rest = rest.removeprefix(".").strip()
    alert: str | None = None
    info: str | None = None
    if rest:
        pieces = _SUFFIX_SPLIT.split(rest)
        if pieces[0].strip():
            raise ParseError("unexpected text after the call", line=line)
        for keyword, text in zip(pieces[1::2], pieces[2::2], strict=True):
            if keyword.lower() == "alert":
                if alert is not None:
                    raise ParseError("two Alert. suffixes", line=line)
                alert = text.strip()
            else:
                if info is not None:
                    raise ParseError("two Infos. suffixes", line=line)
                info = text.strip()
    return CallMsg(_seat(m.group(1)), call, alert=alert, info=info)


# ----------------------------------------------------------------- timing


def _seconds(text: str) -> int:
    """``01:36``, ``0:01:36``, ``1:15``, ``[0:11:23]`` -> seconds."""
    total = 0
    for part in text.strip("[]").split(":"):
        total = total * 60 + int(part)
    return total


def _board_time(seconds: int) -> str:
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


def _total_time(seconds: int) -> str:
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


_TIME = r"(\[?\d{1,6}(?::\d{1,6}){0,2}\]?)"
_TIMING_RE = _re(
    rf"timing ?-? ?n/s ?: ?this board {_TIME},? total {_TIME}\.? ?"
    rf"e/w ?: ?this board {_TIME},? total {_TIME}\.?"
)


def _timing_line(m: Timing, final_stop: bool) -> str:
    text = wire.TIMING.format(
        ns_board=_board_time(m.ns_board),
        ns_total=_total_time(m.ns_total),
        ew_board=_board_time(m.ew_board),
        ew_total=_total_time(m.ew_total),
    )
    return text + "." if final_stop else text


def _parse_timing(norm: str, line: str) -> Timing:
    raw = line.strip()
    m = _TIMING_RE.fullmatch(norm)
    if m is None:
        # Any line starting with Timing is informational (docs/protocol.md 2.5); keep it verbatim.
        return Timing(0, 0, 0, 0, raw=raw)
    a, b, c, d = (_seconds(g) for g in m.groups())
    timing = Timing(a, b, c, d)
    if raw in (_timing_line(timing, True), _timing_line(timing, False)):
        return timing
    # OpenSpiel's fake "[1:15]" line, odd spacing: numbers read, text kept.
    return Timing(timing.ns_board, timing.ns_total, timing.ew_board, timing.ew_total, raw=raw)


# ----------------------------------------------------------------- parsers per direction

Builder = Callable[[re.Match[str], str, str], Message]
_Rule = tuple[re.Pattern[str], Builder]


def _hand(m: re.Match[str], name: str, line: str) -> Hand:
    try:
        return parse_hand(m.group(name))
    except ParseError as exc:
        raise ParseError(exc.message, line=line) from None


def _trick(m: re.Match[str], line: str) -> int:
    trick = int(m.group(3))
    if not 1 <= trick <= 13:
        raise ParseError(f"trick {trick} is not in 1..13", line=line)
    return trick


def _play(m: re.Match[str], norm: str, line: str) -> Message:
    note = m.group("note")
    return PlayMsg(_opt_seat(m.group(1)), parse_card(m.group("card")), note=note)


def _extra(text: str) -> str:
    text = text.strip()
    return "" if text == "." else text


_PLAY_RULE: _Rule = (
    _re(
        r"(SEAT|dummy) plays (?P<card>(?:[akqjt2-9]|10)[shdc]|[shdc](?:[akqjt2-9]|10))"
        r"(?: ?\. ?(?P<note>.*))?"
    ),
    _play,
)

_TO_TM_RULES: list[_Rule] = [
    (
        # Quotes are mandatory in the spec; an unquoted name is tolerated. ANYPL: WBridge5.
        # Text after the version: Ben --sendinfo, ComputerBridge "version 19 sayc".
        _re(
            r'connecting ?(?:"(?P<qteam>[^"]*)"|(?P<team>[^\s"][^"]*?)) as (?P<seat>SEAT|anypl) '
            r"using protocol version ?(?P<ver>\d{1,6})(?P<extra>.*)"
        ),
        lambda m, n, ln: Connect(
            m.group("qteam") if m.group("qteam") is not None else m.group("team"),
            _opt_seat(m.group("seat")),
            int(m.group("ver")),
            _extra(m.group("extra")),
        ),
    ),
    # One trailing full stop tolerated on every ready line: old Ben sent "ready for deal.".
    (_re(r"(SEAT) ready for teams\.?"), lambda m, n, ln: ReadyForTeams(_seat(m.group(1)))),
    (_re(r"(SEAT) ready to start\.?"), lambda m, n, ln: ReadyToStart(_seat(m.group(1)))),
    (_re(r"(SEAT) ready for deal\.?"), lambda m, n, ln: ReadyForDeal(_seat(m.group(1)))),
    (_re(r"(SEAT) ready for cards\.?"), lambda m, n, ln: ReadyForCards(_seat(m.group(1)))),
    (_re(r"(SEAT) ready for dummy\.?"), lambda m, n, ln: ReadyForDummy(_seat(m.group(1)))),
    (
        # WBridge5 sends "ready for  NORTH's bid" (double space, collapsed before matching).
        _re(r"(SEAT) ready for (SEAT)'s bid\.?"),
        lambda m, n, ln: ReadyForBid(_seat(m.group(1)), _seat(m.group(2))),
    ),
    (
        _re(r"(SEAT) ready for (SEAT|dummy)'s card to trick (\d{1,6})\.?"),
        lambda m, n, ln: ReadyForCard(_seat(m.group(1)), _opt_seat(m.group(2)), _trick(m, ln)),
    ),
    # GIB (as emulated by ComputerBridge) and bridge-player still send this; the TM ignores it.
    (_re(r"(SEAT) received dummy\.?"), lambda m, n, ln: ReceivedDummy(_seat(m.group(1)))),
    _PLAY_RULE,
]

_FROM_TM_RULES: list[_Rule] = [
    (
        # Spec/ComputerBridge/OpenSpiel: North ("T") seated; ZBridge: North "T" seated;
        # bridge_env and Bridge Moniteur: North T seated.
        _re(r'(SEAT) ?\( ?"(?P<team>[^"]*)" ?\) seated\.?'),
        lambda m, n, ln: Seated(_seat(m.group(1)), m.group("team")),
    ),
    (
        _re(r'(SEAT) "(?P<team>[^"]*)" seated\.?'),
        lambda m, n, ln: Seated(_seat(m.group(1)), m.group("team")),
    ),
    (
        _re(r'(SEAT) (?P<team>[^"]+?) seated\.?'),
        lambda m, n, ln: Seated(_seat(m.group(1)), m.group("team")),
    ),
    (
        # ComputerBridge/bridge_env: no full stop after N/S; spec: with one; ZBridge: "Teams: N/S:";
        # OpenSpiel: no colons; ComputerBridge appends ". Playing IMP" (Protocol.cs: "IMP'").
        _re(
            r'teams ?:? ?n/s ?:? ?"(?P<ns>[^"]*)" ?\.? ?e/w ?:? ?"(?P<ew>[^"]*)"'
            r"(?: ?\.? ?playing (?P<sc>imp|mp)'?)?\.?"
        ),
        lambda m, n, ln: Teams(
            m.group("ns"), m.group("ew"), m.group("sc").upper() if m.group("sc") else None
        ),
    ),
    # "Start of Board" (Bridge Moniteur), "start of board" (OpenSpiel).
    (_re(r"start of board\.?"), lambda m, n, ln: StartOfBoard()),
    (
        # Final full stop optional (ZBridge omits it); " Open room." from ComputerBridge v19.
        _re(
            r"board number (\d{1,9}) ?\.? ?dealer (SEAT) ?\.? ?"
            r"(neither|none|n/s|ns|e/w|ew|both|all) vulnerable ?\.?"
            r"(?: ?(open|closed) room ?\.?)?"
        ),
        lambda m, n, ln: BoardInfo(
            int(m.group(1)),
            _seat(m.group(2)),
            _VUL_BY_WORD[m.group(3).lower()],
            m.group(4).capitalize() if m.group(4) else None,
        ),
    ),
    (
        # OpenSpiel: "EAST's cards: C A J T 9 6. ..." (no space before the colon, clubs first).
        _re(r"(SEAT)'s cards ?: ?(?P<hand>.*)"),
        lambda m, n, ln: Cards(_seat(m.group(1)), _hand(m, "hand", ln)),
    ),
    (_re(r"dummy's cards ?: ?(?P<hand>.*)"), lambda m, n, ln: DummyCards(_hand(m, "hand", ln))),
    (_re(r"(SEAT|dummy) to lead\.?"), lambda m, n, ln: ToLead(_opt_seat(m.group(1)))),
    _PLAY_RULE,
    (_re(r"timing\b.*"), lambda m, n, ln: _parse_timing(n, ln)),
    # "NS:..." ends the session for Bridge Moniteur (ComputerBridge client comment).
    (_re(r"end of session\.?|ns:.*"), lambda m, n, ln: EndOfSession()),
    (_re(r"illegal bid\.?"), lambda m, n, ln: IllegalBid()),
    (_re(r"illegal card\.?"), lambda m, n, ln: IllegalCard()),
    (
        # Refusals before a close: ComputerBridge texts, bridge_env "ERROR: ...", Blue Chip
        # "Error Team name mismatch" (Ben comment), ComputerBridge "unexpected message ...".
        _re(
            r"(?:error|expected|unexpected|illegal hand|team name|seat was|seat already"
            r"|protocol version|disconnect)\b.*"
        ),
        lambda m, n, ln: ErrorText(ln.strip()),
    ),
]

_RULES = {Direction.TO_TM: _TO_TM_RULES, Direction.FROM_TM: _FROM_TM_RULES}
_WHO = {Direction.TO_TM: "to a table manager", Direction.FROM_TM: "from a table manager"}


_NOT_WIRE = re.compile(r"[^\x20-\x7e]")


def _wire_safe(line: str) -> str:
    """The spec allows only printable ASCII: other whitespace becomes a space, anything else
    ``?``, so every message we parse can be rendered (relayed) again."""
    return _NOT_WIRE.sub(lambda m: " " if m.group().isspace() else "?", line)


def normalize(line: str) -> str:
    """Collapse whitespace runs and trim (WBridge5's double spaces, trailing blanks)."""
    return " ".join(line.split())


def parse(line: str | bytes, direction: Direction) -> Message:
    """Read one line (terminator optional) travelling in ``direction``; raises ``ParseError``."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    if len(line) > MAX_PARSE_CHARS:
        raise ParseError(f"line longer than {MAX_PARSE_CHARS} characters", line=line[:80] + "...")
    safe = _wire_safe(line)
    norm = normalize(safe)
    if not norm:
        raise ParseError("empty line", line=line)
    call = _parse_call_line(norm, safe)
    if call is not None:
        return call
    for pattern, build in _RULES[direction]:
        m = pattern.fullmatch(norm)
        if m is not None:
            return build(m, norm, safe)
    raise ParseError(f"not a Blue Chip message {_WHO[direction]}", line=line.strip())


def parse_as(kind: type[M], line: str | bytes, direction: Direction | None = None) -> M:
    """Parse ``line`` and insist that it is a ``kind`` message (else ``ParseError``); without a
    ``direction``, try each way ``kind`` may travel."""
    directions = [direction] if direction is not None else [Direction(d) for d in kind.DIRECTIONS]
    last: ParseError | None = None
    for d in directions:
        try:
            msg = parse(line, d)
        except ParseError as exc:
            last = exc
            continue
        if isinstance(msg, kind):
            return msg
        last = ParseError(
            f"expected a {kind.__name__} line, got a {type(msg).__name__}", line=render(msg)
        )
    if last is None:
        raise LocalProtocolError(f"{kind.__name__} travels in no direction")
    raise last


# ----------------------------------------------------------------- rendering


def _name(seat: Player) -> str:
    if not isinstance(seat, Player):
        raise LocalProtocolError(f"not a seat: {seat!r}")
    return wire.SEAT_NAMES[seat]


def _text(value: str, what: str, *, quoted: bool = False) -> str:
    if any(not (32 <= ord(ch) < 127) for ch in value):
        raise LocalProtocolError(f"{what} must be printable ASCII", line=value)
    if quoted and '"' in value:
        raise LocalProtocolError(f"{what} must not contain a double quote", line=value)
    if value != normalize(value):
        raise LocalProtocolError(
            f"{what} must have single inner spaces and no outer ones", line=value
        )
    return value


def team_name_problem(team: str) -> str | None:
    """Why a table will not accept ``team`` as a team name, or None if it will.

    Every name a table accepts can be written back on the wire unchanged (printable ASCII, no
    double quote, single inner spaces and no outer ones) and keeps every line the table sends
    within the line limit (:data:`protocol.wire.MAX_TEAM_NAME`). Two different names are never
    merged: a name that would need changing to be written is refused, not rewritten."""
    if not team:
        return "team name is empty"
    if len(team) > wire.MAX_TEAM_NAME:
        return f"team name is longer than {wire.MAX_TEAM_NAME} characters"
    try:
        _text(team, "team name", quoted=True)
    except LocalProtocolError as exc:
        return exc.message
    return None


def _check_hand(hand: Hand, what: str) -> str:
    if len(hand) != 13:
        raise LocalProtocolError(f"{what} must hold 13 cards, not {len(hand)}")
    return render_hand(hand)


def render(msg: Message, dialect: Dialect = DEFAULT_DIALECT) -> str:
    """The canonical wire text of ``msg`` (section 2.8), no terminator; raises
    ``LocalProtocolError`` for a message that cannot be written (bad text, wrong hand size)."""
    match msg:
        case Connect(team=team, seat=seat, version=version, extra=extra):
            text = wire.CONNECT.format(
                team=_text(team, "team name", quoted=True),
                seat=wire.ANY_SEAT if seat is None else _name(seat),
                version=version,
            )
            return f"{text} {_text(extra, 'connect extra')}" if extra else text
        case ReadyForTeams(seat=seat):
            return wire.READY_FOR_TEAMS.format(seat=_name(seat))
        case ReadyToStart(seat=seat):
            return wire.READY_TO_START.format(seat=_name(seat))
        case ReadyForDeal(seat=seat):
            return wire.READY_FOR_DEAL.format(seat=_name(seat))
        case ReadyForCards(seat=seat):
            return wire.READY_FOR_CARDS.format(seat=_name(seat))
        case ReadyForBid(seat=seat, bidder=bidder):
            return wire.READY_FOR_BID.format(seat=_name(seat), bidder=_name(bidder))
        case ReadyForCard(seat=seat, player=player, trick=trick):
            if not 1 <= trick <= 13:
                raise LocalProtocolError(f"trick {trick} is not in 1..13")
            if player is None:
                return wire.READY_FOR_DUMMYS_CARD.format(seat=_name(seat), trick=trick)
            return wire.READY_FOR_CARD.format(seat=_name(seat), player=_name(player), trick=trick)
        case ReadyForDummy(seat=seat):
            return wire.READY_FOR_DUMMY.format(seat=_name(seat))
        case ReceivedDummy(seat=seat):
            return wire.RECEIVED_DUMMY.format(seat=_name(seat))
        case CallMsg(seat=seat, call=call, alert=alert, info=info):
            text = _render_call(_name(seat), call)
            if alert is not None:
                alert = _text(alert, "alert text")
                text += wire.ALERT_SUFFIX.format(text=alert) if alert else wire.ALERT_BARE
            if info is not None:
                info = _text(info, "info text")
                text += wire.INFO_SUFFIX.format(text=info) if info else wire.INFO_BARE
            return text
        case PlayMsg(seat=seat, card=card, note=note):
            if seat is None:
                text = wire.DUMMY_PLAYS.format(card=render_card(card))
            else:
                text = wire.PLAY.format(seat=_name(seat), card=render_card(card))
            if note:
                text += wire.PLAY_NOTE_SUFFIX.format(note=_text(note, "card note"))
            return text
        case Seated(seat=seat, team=team):
            template = {
                "paren": wire.SEATED_PAREN,
                "quoted": wire.SEATED_QUOTED,
                "bare": wire.SEATED_BARE,
            }[dialect.seated]
            return template.format(seat=_name(seat), team=_text(team, "team name", quoted=True))
        case Teams(ns=ns, ew=ew, scoring=scoring):
            template = {
                "canonical": wire.TEAMS_CANONICAL,
                "spec": wire.TEAMS_SPEC,
                "colonless": wire.TEAMS_COLONLESS,
            }[dialect.teams]
            text = template.format(
                ns=_text(ns, "N/S team name", quoted=True),
                ew=_text(ew, "E/W team name", quoted=True),
            )
            if scoring is not None and dialect.playing_suffix:
                if scoring not in wire.SCORINGS:
                    raise LocalProtocolError(
                        f"scoring must be one of {wire.SCORINGS}", line=scoring
                    )
                text += wire.PLAYING_SUFFIX.format(scoring=scoring)
            return text
        case StartOfBoard():
            return wire.START_OF_BOARD
        case BoardInfo(number=number, dealer=dealer, vul=vul, room=room):
            if number < 0:
                raise LocalProtocolError(f"board number {number} is negative")
            text = wire.BOARD.format(number=number, dealer=_name(dealer), vul=wire.VUL_TEXT[vul])
            if dialect.board_final_stop or room is not None:
                text += "."
            if room is not None:
                if room not in wire.ROOMS:
                    raise LocalProtocolError(f"room must be one of {wire.ROOMS}", line=room)
                text += wire.ROOM_SUFFIX.format(room=room)
            return text
        case Cards(seat=seat, hand=hand):
            return wire.CARDS.format(seat=_name(seat), hand=_check_hand(hand, "a hand"))
        case DummyCards(hand=hand):
            return wire.DUMMY_CARDS.format(hand=_check_hand(hand, "dummy's hand"))
        case ToLead(seat=seat):
            return wire.DUMMY_TO_LEAD if seat is None else wire.TO_LEAD.format(seat=_name(seat))
        case Timing(raw=raw):
            if raw is not None:
                return raw
            return _timing_line(msg, dialect.timing_final_stop)
        case EndOfSession():
            return wire.END_OF_SESSION
        case IllegalBid():
            return wire.ILLEGAL_BID
        case IllegalCard():
            return wire.ILLEGAL_CARD
        case ErrorText(text=text):
            return text
    raise LocalProtocolError(f"cannot render {msg!r}")
