"""The field: EPBot's training cards as the league's opponents (issue 43, "the field in training").

The league's ``field`` kind seats EPBot, one training card per deal, against the learner. Each
card is one :class:`~bridgebot.engine.epbot.EPBotAgent`, made on first use in the process and kept
(one EPBot instance per card: a chooser's rows are all seen from relative seat North), assuming
its own card for its opponents, so no report card is read even as an assumption. The cards pass
:func:`engine.epbot_cards.training_cards` first: WBridge5-Sayc and WBridge5-21GF are refused.

A chooser of rows of observations (:data:`models.data.Chooser`) builds each row's bidding view
from the observation (:func:`models.convention.view_of` with
:func:`engine.features.auction_from_observation`) and asks the row's card; ``pick[row]`` names
it, the same card at both tables of a deal. EPBot is deterministic, so the field keeps no state a
resumed run would need.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from bridgebot.engine.cardplay import BaselinePlayer
from bridgebot.engine.epbot import EPBotAgent
from bridgebot.engine.epbot_cards import ConventionCard, find_card, read_card, training_cards
from bridgebot.engine.epbot_native import epbot_folder
from bridgebot.engine.features import auction_from_observation
from bridgebot.laws.calls import bid_index
from bridgebot.laws.errors import UserError
from bridgebot.models.convention import view_of
from bridgebot.models.data import Chooser, IntArray


class Field:
    """EPBot playing ``cards`` (names as the user wrote them, comma-separated or not).

    Raises :class:`~bridgebot.engine.epbot_cards.ReportCardInTraining` for a report card and the
    one-line :class:`~bridgebot.engine.agent.AgentSpecError` of a missing EPBot or card.
    """

    def __init__(self, cards: Sequence[str]) -> None:
        names = training_cards(cards, "--field")
        if not names:
            raise UserError("--field: name at least one EPBot card")
        self.folder = epbot_folder()
        self.cards: tuple[ConventionCard, ...] = tuple(
            read_card(find_card(self.folder, n)) for n in names
        )
        self._agents: dict[int, EPBotAgent] = {}

    def __len__(self) -> int:
        return len(self.cards)

    @property
    def specs(self) -> tuple[str, ...]:
        """The cards as agent specs, as a model card records them (``epbot:Micro_Bridge_13.4``)."""
        return tuple("epbot:" + c.name.replace(" ", "_") for c in self.cards)

    def agent(self, k: int) -> EPBotAgent:
        found = self._agents.get(k)
        if found is None:
            card = self.cards[k]
            found = EPBotAgent(self.folder, card, card, BaselinePlayer(), self.specs[k])
            self._agents[k] = found
        return found

    @property
    def illegal_calls(self) -> int:
        return sum(a.illegal_calls for a in self._agents.values())

    def chooser(self, pick: IntArray) -> Chooser:
        """Rows -> calls, row ``r`` bid by card ``pick[r]`` (``pick`` covers the whole batch)."""

        def choose(
            rows: IntArray, x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]
        ) -> IntArray:
            calls = np.zeros(len(rows), dtype=np.int64)
            for i, row in enumerate(rows):
                view = view_of(x[i], auction_from_observation(x[i]))
                calls[i] = bid_index(self.agent(int(pick[row])).bid(view))
            return calls

        return choose

    def close(self) -> None:
        for a in self._agents.values():
            a.close()
        self._agents.clear()
