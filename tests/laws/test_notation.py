"""Record notation: every call, card and contract round-trips, and bad text says what it is."""

from __future__ import annotations

import pytest
from bridgebot.laws.calls import ALL_CALLS, same_call
from bridgebot.laws.cards import index_card
from bridgebot.laws.notation import (
    NotationError,
    call_text,
    card_text,
    contract_declarer_text,
    contract_text,
    parse_call,
    parse_card,
    parse_contract,
    parse_seat,
    parse_vul,
    result_text,
    vul_text,
)
from endplay.types import Contract, Denom, Penalty, Player, Vul


def test_calls_round_trip() -> None:
    texts = [call_text(c) for c in ALL_CALLS]
    assert texts[:4] == ["Pass", "X", "XX", "1C"] and texts[-1] == "7NT"
    assert all(same_call(parse_call(t), c) for t, c in zip(texts, ALL_CALLS, strict=True))


def test_cards_round_trip() -> None:
    assert card_text(index_card(0)) == "SA"
    assert all(parse_card(card_text(index_card(i))) == index_card(i) for i in range(52))
    # Tournament journals written before this module held cards as endplay printed them.
    assert parse_card("♠A") == index_card(0) and parse_card("♦t") == parse_card("DT")
    assert parse_card("AS") == index_card(0) and parse_card("2C") == index_card(51)  # tm journals
    with pytest.raises(NotationError):
        parse_card("Z9")


@pytest.mark.parametrize("penalty", list(Penalty))
@pytest.mark.parametrize("denom", list(Denom))
def test_contracts_round_trip(denom: Denom, penalty: Penalty) -> None:
    c = Contract(level=4, denom=denom, declarer=Player.west, penalty=penalty)
    text = contract_declarer_text(c)
    assert text == contract_text(c) + "W"
    back = parse_contract(text)
    assert (back.level, back.denom, back.declarer, back.penalty) == (4, denom, Player.west, penalty)


def test_contract_forms() -> None:
    c = Contract(level=4, denom=Denom.hearts, declarer=Player.south, penalty=Penalty.doubled)
    assert contract_text(c) == "4HX"
    assert contract_declarer_text(c) == "4HXS"
    assert parse_contract("4HxS").penalty is Penalty.doubled  # journals before notation existed
    assert parse_contract("3NTN").denom is Denom.nt
    for bad in ("", "8SN", "4QN", "4HXXXN", "4H"):
        with pytest.raises(NotationError):
            parse_contract(bad)


def test_vulnerability() -> None:
    for vul in Vul:
        assert parse_vul(vul_text(vul)) is vul
    assert vul_text(Vul.both) == "All"
    with pytest.raises(NotationError):
        parse_vul("Both sides")


def test_a_seat_is_one_of_four_names_or_its_initial() -> None:
    """Issue 44: endplay's ``Player.find`` reads any word by its first letter (``Nowhere`` was
    North); :func:`parse_seat` is the one strict reader of a seat a person types."""
    for player in Player:
        name = player.name  # "north"
        for text in (name, name.upper(), name.capitalize(), name[0], name[0].upper(), f" {name} "):
            assert parse_seat(text) is player
    for bad in ("Nowhere", "", "NE", "nort", "Norths", "0", "anypl", "Süd"):
        with pytest.raises(NotationError, match="not a seat"):
            parse_seat(bad)


@pytest.mark.parametrize(
    ("contract", "tricks", "text"),
    [("4HS", 11, "4HS+1"), ("3NTN", 9, "3NTN="), ("4SXE", 8, "4SXE-2"), ("6CXXW", 13, "6CXXW+1")],
)
def test_one_result_notation(contract: str, tricks: int, text: str) -> None:
    """Issue 44: the seat's log line, the pages and the reports write a result one way."""
    assert result_text(parse_contract(contract), tricks) == text
    assert result_text(None, None) == "passed out"
