"""The live tables' page (``server/web/static/watch.js``) in Chromium, fed by a real
:class:`SpectatorServer` with a board's events one at a time: each card of a trick sits in its
seat's place from the moment it is played and says whose it is, and red-suit calls are drawn red.
The state under the page: a seat is away only once it has connected and gone (issue 44)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bridgebot.laws.board_sets import generate
from bridgebot.laws.notation import card_text
from bridgebot.server import table_events
from bridgebot.server.web.spectator import SpectatorServer
from bridgebot.server.web.spectator_state import LiveTables
from endplay.types import Player

from tests.browser import chromium, console_errors

#: Board 1 of seed 1 has North deal: East declares 1H, South leads.
CALLS = ["Pass", "1H", "Pass", "Pass", "Pass"]
TRICK = "SWNE"  # the first trick, South's lead first

#: Where each card of the trick is drawn (its middle, on the felt), and what it says.
CARDS_JS = """
const centre = document.querySelector('section[data-table="1"] .centre');
if (!centre) return null;
const c = centre.getBoundingClientRect();
return Object.fromEntries([...centre.querySelectorAll('[data-played]')].map(e => {
  const r = e.getBoundingClientRect();
  return [e.dataset.seat, {x: Math.round(r.left + r.width / 2 - c.left),
                           y: Math.round(r.top + r.height / 2 - c.top), text: e.innerText}];
}));
"""

#: The colour each call of the auction is drawn in (the element that holds its text).
CALL_COLOURS_JS = """
return [...document.querySelectorAll('section[data-table="1"] .auction [data-call]')].map(td =>
  [td.dataset.call, getComputedStyle(td.querySelector('span') || td).color]);
"""


def _first_trick() -> list[table_events.CardPlayed]:
    """A legal first trick (each follows the lead's suit when it can)."""
    deal = generate(1, 1)[0].deal
    played: list[table_events.CardPlayed] = []
    for i, seat in enumerate(TRICK):
        hand = sorted(deal[Player.find(seat)], key=card_text)
        led = played[0].card[0] if played else None
        card = next((c for c in hand if card_text(c)[0] == led), hand[0])
        played.append(table_events.CardPlayed(board=1, index=i, seat=seat, card=card_text(card)))
    return played


def _wait(driver: Any, js: str, ready: Any, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen = driver.execute_script(js)
        if ready(seen):
            return seen
        time.sleep(0.05)
    raise AssertionError(f"the page never got there: {seen}")


def test_each_card_of_a_trick_sits_in_its_seats_place_and_says_whose(tmp_path: Path) -> None:
    board = generate(1, 1)[0]
    assert board.dealer == Player.north
    web = SpectatorServer()
    web.start()
    driver = chromium(tmp_path / "profile")
    try:
        driver.get(web.url)
        for seat, team in zip("NESW", ("us", "them", "us", "them"), strict=True):
            web.publish("1", table_events.SeatJoined(seat=seat, team=team))
        web.publish("1", table_events.BoardStarted(board=1, dealer="N", vul="None",
                                             deal=board.deal.to_pbn()))  # fmt: skip
        for i, call in enumerate(CALLS):
            web.publish("1", table_events.CallMade(board=1, index=i, seat="NESW"[i % 4], call=call,
                                             alert=None))  # fmt: skip
        where: list[dict[str, Any]] = []
        for n, card in enumerate(_first_trick(), 1):
            web.publish("1", card)
            where.append(_wait(driver, CARDS_JS, lambda v, n=n: v is not None and len(v) == n))
        lead, full = where[0]["S"], where[-1]
        # The lead stays where South's card goes when the others come; the four places differ.
        assert (lead["x"], lead["y"]) == (full["S"]["x"], full["S"]["y"]), where
        assert full["N"]["y"] < full["W"]["y"] == full["E"]["y"] < full["S"]["y"], full
        assert full["W"]["x"] < full["N"]["x"] == full["S"]["x"] < full["E"]["x"], full
        for seat, shown in full.items():  # each card names its seat
            assert shown["text"].split()[0] == seat, full

        colours = dict(driver.execute_script(CALL_COLOURS_JS))
        assert colours["1H"] != colours["Pass"], colours  # hearts are red, Pass is ink
        assert colours["1H"] == "rgb(192, 38, 45)", colours  # watch.css's --red
        assert console_errors(driver) == []
    finally:
        driver.quit()
        web.close()


def test_a_seat_is_away_only_once_it_has_connected_and_gone() -> None:
    live = LiveTables()
    live.apply("1", table_events.SeatJoined(seat="N", team="us"))
    live.apply("1", table_events.SeatLeft(seat="N"))
    seats = live.table_view("1")["seats"]
    assert seats["N"]["away"] is True and seats["N"]["here"] is False
    assert seats["S"]["away"] is False  # never came (a double-dummy room's seats never do)
    live.apply("1", table_events.SeatJoined(seat="N", team="us"))
    assert live.table_view("1")["seats"]["N"]["away"] is False
