"""A click on an opponent's alerted call on the play page shows the alert its bidder gave, never
our bot's guess (issue 42: the page showed "8-14 HCP" for a call alerted "22 to 37 total
points"). ``bridgebot play`` in Debian's Chromium, through the page's hooks; the board is one
where East, an opponent of the person at South, makes an alerted call before South's first turn,
found by bidding the seeds here with the bots' own alerter."""

from __future__ import annotations

import time
from pathlib import Path

from tests.browser import chromium, console_errors
from tests.server.web.test_play_browser import AGENT, start_play, wait_state


def seed_with_an_opponents_alert() -> tuple[int, int, str, str]:
    """(seed, index, call, alert): the first seed whose board 1, bid by the bots with the alerter
    the play session gives them and the person at South passing throughout, has East or West
    alert a call; ``index`` is that call's place in the auction."""
    from bridgebot.engine.agent import bidding_view
    from bridgebot.laws.board_sets import load_boards
    from bridgebot.laws.calls import PASS, auction_over, to_call
    from bridgebot.laws.notation import call_text
    from bridgebot.tournament.play import _alerter
    from endplay.types import Player

    from bridgebot.agents import make_agent

    with make_agent(AGENT) as agent:
        alerter = _alerter(agent)
        assert alerter is not None
        for seed in range(1, 400):
            (board,) = load_boards(seed=seed, boards=1, default=1)
            auction: list = []
            while not auction_over(auction):
                seat = to_call(board.dealer, auction)
                if seat == Player.south:
                    auction.append(PASS)
                    continue
                view = bidding_view(board.dealer, board.vul, board.deal[seat], auction, 1)
                call = agent.bid(view)
                if seat in (Player.east, Player.west) and (alert := alerter(view, call)):
                    return seed, len(auction), call_text(call), alert
                auction.append(call)
    raise AssertionError("no seed in 1..399 has an opponent alert a call on board 1")


def test_an_opponents_alerted_call_is_explained_by_its_alert(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    seed, index, call, alert = seed_with_an_opponents_alert()
    proc, url = start_play(tmp_path / "out", seed=seed, boards=1)
    driver = chromium(tmp_path / "profile")
    try:
        driver.get(url)
        while True:
            state = wait_state(driver, ("your-call", "your-card", "dummy-card", "board-done"))
            cells = driver.find_elements(By.CSS_SELECTOR, "#auction td.call")
            if len(cells) > index:
                break
            assert state == "your-call", (state, len(cells), index)
            driver.find_element(By.CSS_SELECTOR, '[data-call="Pass"]').click()
            time.sleep(0.3)
        cell = cells[index]
        assert cell.find_elements(By.CSS_SELECTOR, ".alert"), "the call is not marked alerted"
        cell.click()
        box = driver.find_element(By.ID, "explanation")
        # Long enough for the bot's own reading to arrive, were it asked.
        time.sleep(3)
        text = box.text
        assert text.endswith(f"alerted: {alert}"), (call, text)
        assert "HCP" not in text, text
        assert console_errors(driver) == []
    finally:
        driver.quit()
        proc.terminate()
        proc.communicate(timeout=30)
