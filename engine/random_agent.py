"""A uniformly random legal caller and player: a test and baseline tool, not the product."""

from __future__ import annotations

import random

from bridgebot.engine.agent import Agent, BiddingView, PlayView
from endplay.types import Bid, Card


class RandomAgent(Agent):
    """Picks uniformly among ``view.legal``; deterministic for a given seed and sequence of views.

    ``pass_bias`` (0..1) is the probability of passing outright when pass is legal, which keeps
    random auctions short and realistic enough to reach play; 0 gives a uniform choice.
    """

    name = "random"

    def __init__(self, seed: int = 0, pass_bias: float = 0.6) -> None:
        self._rng = random.Random(seed)
        self.pass_bias = pass_bias

    def reset(self, board: int) -> None:
        return None

    def bid(self, view: BiddingView) -> Bid:
        if self._rng.random() < self.pass_bias:
            return view.legal[0]  # pass is always first in legal_calls()
        return self._rng.choice(view.legal)

    def play(self, view: PlayView) -> Card:
        return self._rng.choice(view.legal)
