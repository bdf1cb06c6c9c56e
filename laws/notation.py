"""Text of calls, cards, contracts and vulnerability in records: written once, read back once.

The forms are PBN's (the journal, the PBN files and the reports share them):

- calls: ``Pass``, ``X``, ``XX``, ``1C`` .. ``7NT`` (ASCII; the Blue Chip wire forms live in
  ``bridgebot.protocol``);
- cards: suit then rank, ``SA``, ``HT``, ``C2`` (the Blue Chip wire writes ``AS``; journals
  written before this module hold that form or ``♠A``, and :func:`parse_card` reads both);
- contracts: PBN's Contract tag, ``3NT``, ``4HX``, ``6SXX`` (:func:`contract_text`), and with the
  declarer after it, ``4HXS``, where one string must say who declares (:func:`contract_declarer_text`).
  :func:`parse_contract` also reads the lower-case ``x`` of journals written before this module;
- vulnerability: PBN's ``None``, ``NS``, ``EW``, ``All``;
- seats: ``North`` .. ``West`` or their initials, any case (:func:`parse_seat`, the one reader
  of a seat a person types).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from bridgebot.laws.cards import RANKS, SUITS
from endplay.types import Bid, Card, Contract, ContractBid, Denom, Penalty, PenaltyBid, Player, Vul

_STRAIN = {
    Denom.clubs: "C",
    Denom.diamonds: "D",
    Denom.hearts: "H",
    Denom.spades: "S",
    Denom.nt: "NT",
}
_PENALTY_CALL = {Penalty.passed: "Pass", Penalty.doubled: "X", Penalty.redoubled: "XX"}
_PENALTY_SUFFIX = {Penalty.passed: "", Penalty.doubled: "X", Penalty.redoubled: "XX"}
_VUL = {Vul.none: "None", Vul.ns: "NS", Vul.ew: "EW", Vul.both: "All"}


class NotationError(ValueError):
    """Text that is not a call, card, contract or vulnerability of these forms."""


def call_text(call: Bid) -> str:
    """``Pass``, ``X``, ``XX`` or ``1NT``-style text of a call."""
    if isinstance(call, ContractBid):
        return f"{call.level}{_STRAIN[call.denom]}"
    if isinstance(call, PenaltyBid):
        return _PENALTY_CALL[call.penalty]
    raise NotationError(f"not a call: {call!r}")


def auction_texts(auction: Sequence[Bid]) -> tuple[str, ...]:
    return tuple(call_text(c) for c in auction)


def parse_call(text: str) -> Bid:
    """Inverse of :func:`call_text` (endplay's reader, which also takes ``P``, ``D``, ``R``).

    endplay reads ``8NT`` as a bid of level 8; bridge has levels 1 to 7 (issue 27: ``explain
    8NT`` ended in an IndexError)."""
    try:
        call = Bid(text)
    except (ValueError, KeyError, IndexError) as exc:
        raise NotationError(f"not a call: {text!r}") from exc
    if isinstance(call, ContractBid) and not 1 <= call.level <= 7:
        raise NotationError(f"not a call: {text!r} (levels are 1 to 7)")
    return call


def card_text(card: Card) -> str:
    """``SA``-style text of a card (suit, then rank)."""
    return SUITS[card.suit.value] + card.rank.abbr


def parse_card(text: str) -> Card:
    """Inverse of :func:`card_text`; also reads the rank-first ``AS`` of table-manager journals
    and the ``♠A`` of match journals written before this module (ranks and suits share no
    letter, so the order is never in doubt)."""
    t = text.strip().upper()
    if len(t) == 2 and t[0] in RANKS and t[1] in SUITS:
        t = t[1] + t[0]
    try:
        return Card(t)
    except (ValueError, KeyError, IndexError) as exc:
        raise NotationError(f"not a card: {text!r}") from exc


def contract_text(contract: Contract) -> str:
    """PBN's Contract tag: ``3S``, ``4HX``, ``6NTXX`` (no declarer)."""
    return f"{contract.level}{_STRAIN[contract.denom]}{_PENALTY_SUFFIX[contract.penalty]}"


def contract_declarer_text(contract: Contract) -> str:
    """The contract and its declarer in one string: ``4HXS``, ``3NTN``."""
    return contract_text(contract) + contract.declarer.abbr


def result_text(contract: Contract | None, declarer_tricks: int | None) -> str:
    """A board's result in one string, the one notation of the seat's log line, the pages and
    the reports: ``4HS+1``, ``3NTN=``, ``4SXE-2``; ``passed out`` without a contract or tricks."""
    if contract is None or declarer_tricks is None:
        return "passed out"
    over = declarer_tricks - contract.level - 6
    return contract_declarer_text(contract) + ("=" if over == 0 else f"{over:+d}")


def parse_contract(text: str) -> Contract:
    """Inverse of :func:`contract_declarer_text` (``x`` read like ``X``)."""
    t = text.strip()
    try:
        declarer = Player.find(t[-1])
        body = t[:-1].upper()
        penalty = Penalty.passed
        if body.endswith("XX"):
            penalty, body = Penalty.redoubled, body[:-2]
        elif body.endswith("X"):
            penalty, body = Penalty.doubled, body[:-1]
        level = int(body[0])
        denom = Denom.find(body[1:])
    except (ValueError, KeyError, IndexError) as exc:
        raise NotationError(f"not a contract with declarer: {text!r}") from exc
    if not 1 <= level <= 7 or body[1:] not in _STRAIN.values():
        raise NotationError(f"not a contract with declarer: {text!r}")
    return Contract(level=level, denom=denom, declarer=declarer, penalty=penalty)


_SEATS = {p.name: p for p in (Player.north, Player.east, Player.south, Player.west)}


def parse_seat(text: str) -> Player:
    """A seat: ``North``, ``East``, ``South``, ``West`` or the initial, any case, spaces around
    ignored. Anything else is a :class:`NotationError` (endplay's ``Player.find`` reads any word
    from its first letter: ``Nowhere`` was North, issue 44)."""
    t = text.strip().lower()
    for name, player in _SEATS.items():
        if t in (name, name[0]):
            return player
    raise NotationError(f"not a seat (North, East, South, West or N, E, S, W): {text!r}")


def seat_arg(text: str) -> Player:
    """argparse type of a seat option: :func:`parse_seat`, its error as argparse's one line."""
    try:
        return parse_seat(text)
    except NotationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def vul_text(vul: Vul) -> str:
    return _VUL[vul]


def parse_vul(text: str) -> Vul:
    for vul, name in _VUL.items():
        if name.lower() == text.strip().lower():
            return vul
    raise NotationError(f"not a vulnerability (None, NS, EW, All): {text!r}")
