"""The field: EPBot's training cards as the league's opponents (issue 43, "the field in training").

The league's ``field`` kind seats EPBot, one training card per deal, against the learner. Each
card is one :class:`~bridgebot.engine.epbot.EPBotAgent`, made on first use in the process and kept
(one EPBot instance per card: a chooser's rows are all seen from relative seat North), assuming
its own card for its opponents, so no report card is read even as an assumption. The cards pass
:func:`engine.epbot_cards.training_cards` first: WBridge5-Sayc and WBridge5-21GF are refused.

A chooser of rows of observations (:data:`models.data.Chooser`) asks the row's card, ``pick[row]``
(the same card at both tables of a deal), as the agent asks EPBot: the board started afresh from
the observer's seat (relative North), the auction replayed from the dealer
(:func:`engine.features.auction_from_observation`), the answer checked against the row's legal
calls (an illegal one counted and replaced by a pass). It drives the agent's own EPBot instance
with numbers, not a bidding view (half the cost of a call); a test checks it bids what
:meth:`EPBotAgent.bid` bids. EPBot is deterministic, so the field keeps no state a resumed run
would need.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from bridgebot.core.errors import UserError
from bridgebot.engine.cardplay import BaselinePlayer
from bridgebot.engine.epbot import EPBotAgent
from bridgebot.engine.epbot_cards import (
    ConventionCard,
    find_card,
    read_convention_card,
    training_cards,
)
from bridgebot.engine.epbot_native import epbot_folder
from bridgebot.engine.features import VUL_THEM, VUL_US, auction_from_observation, decode_hand
from bridgebot.laws.cards import RANKS
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
            read_convention_card(find_card(self.folder, n)) for n in names
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
            hands = decode_hand(x)
            for i, row in enumerate(rows):
                calls[i] = self._call(int(pick[row]), x[i], hands[i], mask[i])
            return calls

        return choose

    def _call(
        self,
        k: int,
        x: npt.NDArray[np.float32],
        hand: npt.NDArray[np.bool_],
        legal: npt.NDArray[np.bool_],
    ) -> int:
        """Card ``k``'s call (an ALL_CALLS index) for observation ``x``, as the agent makes it."""
        agent = self.agent(k)
        native = agent._native(0)  # the agent's instance for a North seat, set up with its cards
        auction = auction_from_observation(x)
        dealer = -len(auction) % 4
        suits = "\n".join(
            "".join(RANKS[r] for r in range(13) if hand[s * 13 + r]) for s in (3, 2, 1, 0)
        )  # clubs, diamonds, hearts, spades: data order is S, H, D, C
        native.new_hand(0, suits, dealer, int(x[VUL_THEM + 1]) + 2 * int(x[VUL_US + 1]))
        for i, c in enumerate(auction):
            native.set_bid((dealer + i) % 4, c if c < 3 else c + 2)
        answer = native.get_bid()
        agent.calls += 1
        call = answer if answer < 3 else answer - 2
        if answer in (3, 4) or not 0 <= call < len(legal) or not legal[call]:
            agent.illegal_calls += 1
            return 0 if legal[0] else int(np.argmax(legal))
        return call

    def close(self) -> None:
        for a in self._agents.values():
            a.close()
        self._agents.clear()
