"""EPBot's opening lead (``epbot_get_lead``, issue 61): the binding, the card it writes, and what
EPBot answers without BCalcConsole, the double-dummy solver its card play runs. The tests that
call EPBot take the ``epbot`` fixture (skip without ``$BRIDGEBOT_EPBOT``, fail under CI)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bridgebot.engine.agent import AgentSpecError
from bridgebot.engine.epbot import EPBotAgent, epbot_card
from bridgebot.engine.epbot_native import EPBotError
from bridgebot.laws.calls import PASS
from endplay.types import Card, ContractBid, Denom

from bridgebot.agents import make_agent
from bridgebot.card_players import named_card_player
from tests.engine.test_cardplay import view_of
from tests.engine.test_epbot import epbot  # noqa: F401 (the fixture)


def test_the_card_epbot_writes_is_read_in_either_order() -> None:
    assert epbot_card("TS") == epbot_card("st") == Card("ST")
    assert epbot_card("AH\n") == Card("HA")
    for text in ("", "S", "AK", "TS9"):
        assert epbot_card(text) is None


def test_epbot_gives_no_lead_without_bcalconsole(epbot: Path) -> None:  # noqa: F811
    h, s = Denom.hearts, Denom.spades
    auction = (ContractBid(1, h), PASS, ContractBid(2, h), ContractBid(2, s), ContractBid(4, h))
    view = view_of("32.9872.QJ92.432", [], contract="4HN", auction=(*auction, PASS, PASS, PASS))
    with make_agent(f"epbot:WBridge5-Sayc,path={epbot}") as agent:
        assert isinstance(agent, EPBotAgent)
        with pytest.raises(EPBotError, match="gave no lead: 201-No bcalconsole path"):
            agent.lead(view, "")


def test_the_epbot_lead_player_needs_bcalconsole() -> None:
    with pytest.raises(AgentSpecError, match="needs BCalcConsole") as info:
        named_card_player("epbot-lead", 1)
    assert "\n" not in str(info.value)
    with pytest.raises(AgentSpecError, match="unknown key"):
        named_card_player("epbot-lead,opponents=self", 1)
