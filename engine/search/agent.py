"""The searching agent: :class:`BorelSearch` for the calls, a card player for the cards."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from bridgebot.engine.agent import Agent, BiddingView, CardPlayer, PlayView
from bridgebot.engine.features import legal_mask
from bridgebot.engine.search.borel import BorelSearch
from bridgebot.engine.search.config import SearchResult
from bridgebot.laws.calls import ALL_CALLS, bid_index, same_call
from endplay.types import Bid, Card

if TYPE_CHECKING:
    from bridgebot.engine.slams import SlamEstimator

# -- the agent -------------------------------------------------------------------------------------


class SearchAgent(Agent):
    """Bids by :class:`BorelSearch` over a policy; plays cards with a separate card player.

    ``decisions`` holds the searches of the current board (emptied by ``reset``), for logs and
    benchmarks; ``last`` is the latest. With ``slam`` (the policy's slam estimator), the slam
    layer of :mod:`engine.slams` has the last word on the searched call, as it has on the
    policy's in :class:`engine.policy.PolicyAgent` (``stats["slam_layer"]`` marks a change).
    """

    def __init__(
        self,
        search: BorelSearch,
        card_player: CardPlayer,
        seed: int = 0,
        name: str = "search",
        slam: SlamEstimator | None = None,
    ) -> None:
        self.name = name
        self.search = search
        self.slam = slam
        self.seed = seed
        self._rng = np.random.default_rng([seed, 0])
        self.card_player = card_player
        self.last: SearchResult | None = None
        self.decisions: list[SearchResult] = []

    def reset(self, board: int) -> None:
        # Reseeded per board so a board's calls do not depend on which boards came before.
        self._rng = np.random.default_rng([self.seed, board])
        self.decisions = []
        self.card_player.reset(board)

    def bid(self, view: BiddingView) -> Bid:
        result = self.search.search(view, self._rng)
        if self.slam is not None:
            x, _ = self.search.observation(view)
            mask = legal_mask(view.dealer, view.auction)[None, :]
            call = bid_index(result.call)
            layered = int(
                self.slam.apply(x, mask, self.search.policy.logits(x), np.array([call]))[0]
            )
            if layered != call:
                result.call = ALL_CALLS[layered]
                result.stats["slam_layer"] = 1.0
        self.last = result
        self.decisions.append(result)
        if not any(same_call(result.call, c) for c in view.legal):
            raise ValueError(
                f"board {view.board}: the view's legal calls disagree with laws.calls "
                f"about {result.call} (view built wrongly?)"
            )
        return result.call

    def play(self, view: PlayView) -> Card:
        return self.card_player.play(view)

    def close(self) -> None:
        self.card_player.close()


#: The ``opponents`` option's default: '+'-separated names, ``self`` (our policy), ``bfgnet`` or
#: a policy directory.
DEFAULT_OPPONENTS = "bfgnet+self"
