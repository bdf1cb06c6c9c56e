"""The conformance kit's own reading and writing of Blue Chip lines.

Written from docs/protocol.md (sections 2 and 4.2) and the golden transcripts, on purpose apart
from ``protocol/codec.py``: a kit that parsed with the project's own codec would agree with the
project by construction. A line is read twice: :func:`fold` gives the tolerant reading every
known receiver applies (case folded, runs of blanks collapsed, ends trimmed; section 1 "Case and
spacing"), and the raw text is compared with the canonical rendering (section 2.8) to decide
between pass, warn and fail.

Cards are two-character strings, rank then suit (``"AS"``, ``"TH"``); calls are ``"P"``, ``"X"``,
``"XX"`` or a level and strain (``"1C"``, ``"3NT"``). Seats are ``"North"`` .. ``"West"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SEATS = ("North", "East", "South", "West")
RANKS = "AKQJT98765432"
SUITS = "SHDC"
STRAINS = ("C", "D", "H", "S", "NT")
#: The vulnerability words of the board line (2.2 #3); Ben asserts on anything else.
VULS = ("Neither", "N/S", "E/W", "Both")
#: A table manager's error texts (docs/protocol.md 2.7), folded.
ERROR_PREFIXES = (
    "error",
    "expected",
    "unexpected",
    "illegal",
    "team name",
    "seat was",
    "seat already",
    "protocol version",
    "disconnect",
)

_SEAT = r"(north|east|south|west)"


def fold(text: str) -> str:
    """The receiver's reading: lower case, single blanks, no blanks at the ends."""
    return " ".join(text.split()).lower()


def seat_name(folded: str) -> str:
    """``"north"`` -> ``"North"``."""
    return folded.capitalize()


def seat_at(seat: str, offset: int) -> str:
    """The seat ``offset`` places to the left of ``seat`` (1 = left-hand opponent)."""
    return SEATS[(SEATS.index(seat) + offset) % 4]


def partner(seat: str) -> str:
    return seat_at(seat, 2)


def side(seat: str) -> str:
    return "NS" if seat in ("North", "South") else "EW"


# ----------------------------------------------------------------------------- canonical forms


def connecting_line(team: str, seat: str, version: int = 18) -> str:
    return f'Connecting "{team}" as {seat} using protocol version {version}'


def hand_text(cards: set[str] | frozenset[str]) -> str:
    """``S A K 3. H -. D Q J T 9 8. C 7 6 5 4.`` (2.2 #5)."""
    parts = []
    for s in SUITS:
        ranks = [r for r in RANKS if r + s in cards]
        parts.append(f"{s} {' '.join(ranks) if ranks else '-'}.")
    return " ".join(parts)


def call_text(seat: str, call: str) -> str:
    """``North passes``, ``East bids 1NT`` (2.3 #2)."""
    if call == "P":
        return f"{seat} passes"
    if call == "X":
        return f"{seat} doubles"
    if call == "XX":
        return f"{seat} redoubles"
    return f"{seat} bids {call}"


def card_text(seat: str, card: str) -> str:
    return f"{seat} plays {card}"


def board_text(number: int, dealer: str, vul: str) -> str:
    return f"Board number {number}. Dealer {dealer}. {vul} vulnerable."


def teams_text(ns: str, ew: str) -> str:
    return f'Teams : N/S : "{ns}" E/W : "{ew}"'


def timing_text(ns: tuple[int, int], ew: tuple[int, int]) -> str:
    """The Timing line (2.5 #1): this board and total thinking seconds of each side."""

    def mmss(s: int) -> str:
        return f"{s // 60:02d}:{s % 60:02d}"

    def hmmss(s: int) -> str:
        return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"

    return (
        f"Timing - N/S : this board  {mmss(ns[0])},  total  {hmmss(ns[1])}.  "
        f"E/W : this board  {mmss(ew[0])},  total  {hmmss(ew[1])}."
    )


# ----------------------------------------------------------------------------- reading


class Unreadable(ValueError):
    """Not a Blue Chip line in any form a known peer sends."""


@dataclass(frozen=True)
class Msg:
    """One line read: ``kind`` and its fields. ``seat`` is canonical (``"North"``) where the
    line names one; ``who`` is the other seat of a ready line (or ``"dummy"``)."""

    kind: str
    seat: str = ""
    who: str = ""
    value: str = ""
    trick: int = 0
    extra: str = ""
    note: str = ""
    hand: frozenset[str] = frozenset()


_CALL = re.compile(
    _SEAT + r" (passes|doubles|redoubles|bids ([1-7]) ?(nt|n|c|d|h|s))\.?"
    r"(?: (alert|infos)\.?(?: (.*))?)?$"
)
_CARD = re.compile(r"(north|east|south|west|dummy) plays (10|[akqjt2-9])([shdc])(?:\. ?(.*))?$")
_CARD_SUIT_FIRST = re.compile(r"(north|east|south|west|dummy) plays ([shdc])(10|[akqjt2-9])$")
_READY_CARD = re.compile(_SEAT + r" ready for (north|east|south|west|dummy)'s card to trick (\d+)$")
_CONNECT = re.compile(
    r'connecting (?:"([^"]*)"|(\S+)) as (north|east|south|west|anypl) '
    r"using protocol version (\d+)(.*)$"
)


def _rank(text: str) -> str:
    return "T" if text == "10" else text.upper()


def read_seat_line(text: str) -> Msg:
    """A seat's line to the table manager (docs/protocol.md 2.1 to 2.4, and 4.2)."""
    f = fold(text)
    if f.endswith(".") and " ready " in f:  # old Ben: "North ready for deal." (section 4.2)
        f = f[:-1]
    m = _CONNECT.match(f)
    if m:
        team = _CONNECT.match(" ".join(text.split()))
        raw_team = ""
        if team is not None:
            raw_team = team.group(1) if team.group(1) is not None else team.group(2)
        else:  # the keywords were not in lower case: take the team from between the quotes
            q = re.search(r'"([^"]*)"', text)
            raw_team = q.group(1) if q else (m.group(2) or "")
        return Msg(
            "connect",
            seat=seat_name(m.group(3)) if m.group(3) != "anypl" else "ANYPL",
            value=raw_team,
            trick=int(m.group(4)),
            extra=m.group(5).strip(),
        )
    m = re.match(_SEAT + r" ready for teams$", f)
    if m:
        return Msg("ready_teams", seat=seat_name(m.group(1)))
    m = re.match(_SEAT + r" ready to start$", f)
    if m:
        return Msg("ready_start", seat=seat_name(m.group(1)))
    m = re.match(_SEAT + r" ready for deal$", f)
    if m:
        return Msg("ready_deal", seat=seat_name(m.group(1)))
    m = re.match(_SEAT + r" ready for cards$", f)
    if m:
        return Msg("ready_cards", seat=seat_name(m.group(1)))
    m = re.match(_SEAT + r" ready for " + _SEAT + r"'s bid$", f)
    if m:
        return Msg("ready_bid", seat=seat_name(m.group(1)), who=seat_name(m.group(2)))
    m = _READY_CARD.match(f)
    if m:
        who = m.group(2)
        return Msg(
            "ready_card",
            seat=seat_name(m.group(1)),
            who="dummy" if who == "dummy" else seat_name(who),
            trick=int(m.group(3)),
        )
    m = re.match(_SEAT + r" ready for dummy$", f)
    if m:
        return Msg("ready_dummy", seat=seat_name(m.group(1)))
    m = re.match(_SEAT + r" received dummy$", f)
    if m:
        return Msg("received_dummy", seat=seat_name(m.group(1)))
    call = read_call(f)
    if call is not None:
        return call
    card = read_card(f)
    if card is not None:
        return card
    raise Unreadable(text)


def read_call(folded: str) -> Msg | None:
    m = _CALL.match(folded)
    if m is None:
        return None
    word = m.group(2)
    if word == "passes":
        call = "P"
    elif word == "doubles":
        call = "X"
    elif word == "redoubles":
        call = "XX"
    else:
        strain = m.group(4).upper()
        call = m.group(3) + ("NT" if strain in ("N", "NT") else strain)
    return Msg(
        "call",
        seat=seat_name(m.group(1)),
        value=call,
        extra=m.group(5) or "",
        note=m.group(6) or "",
    )


def read_card(folded: str) -> Msg | None:
    m = _CARD.match(folded)
    if m is not None:
        card = _rank(m.group(2)) + m.group(3).upper()
        return Msg(
            "card",
            seat=m.group(1) if m.group(1) == "dummy" else seat_name(m.group(1)),
            value=card,
            note=m.group(4) or "",
        )
    m = _CARD_SUIT_FIRST.match(folded)
    if m is not None:
        card = _rank(m.group(3)) + m.group(2).upper()
        return Msg(
            "card",
            seat=m.group(1) if m.group(1) == "dummy" else seat_name(m.group(1)),
            value=card,
            extra="suit first",
        )
    return None


def read_hand(text: str) -> frozenset[str]:
    """The cards of a hand in any notation peers send (2.2 #5, 4.2): suits in any order,
    ``-`` or nothing for a void, full stops and blanks optional between suits."""
    cards: set[str] = set()
    suit = ""
    for ch in text.upper().replace("10", "T"):
        if ch in SUITS and (suit == "" or ch not in RANKS):
            suit = ch
        elif ch in RANKS:
            if not suit:
                raise Unreadable(text)
            card = ch + suit
            if card in cards:
                raise Unreadable(text)
            cards.add(card)
        elif ch in " .-":
            continue
        else:
            raise Unreadable(text)
    return frozenset(cards)


def read_tm_line(text: str) -> Msg:
    """A table manager's line to a seat (docs/protocol.md 2.1 to 2.7, and 4.2)."""
    f = fold(text)
    m = re.match(_SEAT + r' (?:\("(.*)"\)|"(.*)"|(\S+)) seated$', f)
    if m:
        form = "paren" if m.group(2) is not None else "quoted" if m.group(3) is not None else "bare"
        raw = re.search(r'"(.*)"', text)
        team = raw.group(1) if raw else (m.group(4) or "")
        return Msg("seated", seat=seat_name(m.group(1)), value=team, extra=form)
    if f.startswith("teams"):
        names = re.findall(r'"([^"]*)"', text)
        if len(names) != 2:
            raise Unreadable(text)
        return Msg("teams", value=names[0], extra=names[1])
    if f == "start of board":
        return Msg("start")
    m = re.match(
        r"board number (\d+)\. dealer " + _SEAT + r"\. (neither|n/s|e/w|both|none|all|ns|ew) "
        r"vulnerable(\.?)(.*)$",
        f,
    )
    if m:
        return Msg(
            "board",
            seat=seat_name(m.group(2)),
            value=m.group(3),
            trick=int(m.group(1)),
            extra=m.group(5).strip(),
        )
    m = re.match(_SEAT + r"'s cards ?: ?(.*)$", f)
    if m:
        return Msg("cards", seat=seat_name(m.group(1)), hand=read_hand(m.group(2)))
    m = re.match(r"dummy's cards ?: ?(.*)$", f)
    if m:
        return Msg("dummy_cards", hand=read_hand(m.group(1)))
    m = re.match(r"(north|east|south|west|dummy) to lead$", f)
    if m:
        return Msg("to_lead", seat="dummy" if m.group(1) == "dummy" else seat_name(m.group(1)))
    if f in ("illegal bid", "illegal card"):
        return Msg("illegal", value=f.split()[1])
    if f.startswith("timing"):
        return Msg("timing")
    if f == "end of session" or f.startswith("ns:"):
        return Msg("end")
    call = read_call(f)
    if call is not None:
        return call
    card = read_card(f)
    if card is not None:
        return card
    if f.startswith(ERROR_PREFIXES):
        return Msg("error", value=text)
    raise Unreadable(text)


def canonical_seat_line(msg: Msg) -> str:
    """The canonical text of a seat's message (2.8), for comparison with what was sent."""
    s = msg.seat
    match msg.kind:
        case "ready_teams":
            return f"{s} ready for teams"
        case "ready_start":
            return f"{s} ready to start"
        case "ready_deal":
            return f"{s} ready for deal"
        case "ready_cards":
            return f"{s} ready for cards"
        case "ready_bid":
            return f"{s} ready for {msg.who}'s bid"
        case "ready_card":
            return f"{s} ready for {msg.who}'s card to trick {msg.trick}"
        case "ready_dummy":
            return f"{s} ready for dummy"
        case "received_dummy":
            return f"{s} received dummy"
        case "call":
            return call_text(s, msg.value)
        case "card":
            return card_text(s.capitalize(), msg.value)
    return ""


def case_only(raw: str, canonical: str) -> bool:
    """Whether ``raw`` differs from ``canonical`` in letter case alone."""
    return raw != canonical and raw.lower() == canonical.lower()
