"""The agents that bid through the one pipeline, once: what they share.

``policy:PATH`` and ``default`` (:class:`engine.policy.PolicyAgent`), ``search``
(:class:`engine.search.SearchAgent`) and ``default``'s search where doubled
(:class:`engine.search.SearchWhereDoubled`) each hold a :class:`engine.pipeline.LayeredBidder`
(their base and the list of layers around it) and a card player. :class:`LayeredAgent` is the
one implementation of what follows from that: reset both per board, bid and decide through the
bidder, say their parts (the policy the layers read, the layers, the convention they play),
play and close through the card player. A subclass builds its base, names its policy and adds
what is its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from bridgebot.engine.agent import Agent, BatchBidder, BiddingView, CardPlayer, PlayView
from bridgebot.engine.batch_policy import BatchPolicy
from bridgebot.engine.parts import Parts, convention_of
from bridgebot.engine.pipeline import Decision, LayeredBidder
from endplay.types import Bid, Card


class LayeredAgent(Agent):
    """Bids with ``bidder`` (:class:`engine.pipeline.LayeredBidder`), plays with
    ``card_player``; a subclass names its :attr:`policy`. Closing it closes the card player."""

    def __init__(self, bidder: LayeredBidder, card_player: CardPlayer, name: str) -> None:
        self.bidder = bidder
        self.card_player = card_player
        self.name = name

    @property
    def policy(self) -> BatchPolicy:
        """The learned policy the layers read (and the explainer samples)."""
        raise NotImplementedError

    def reset(self, board: int) -> None:
        self.bidder.reset(board)
        self.card_player.reset(board)

    def bid(self, view: BiddingView) -> Bid:
        return self.bidder.bid_batch([view])[0]

    def decide(self, views: Sequence[BiddingView]) -> list[Decision]:
        """The calls with how each was decided (:class:`engine.pipeline.Decision`)."""
        return self.bidder.decide(views)

    def parts(self) -> Parts:
        """Its policy, its layers and the convention they play (:mod:`engine.parts`)."""
        layers = self.bidder.layers
        return Parts(self.policy, layers, convention_of(layers))

    def play(self, view: PlayView) -> Card:
        return self.card_player.play(view)

    def close(self) -> None:
        self.card_player.close()


class BatchLayeredAgent(LayeredAgent, BatchBidder):
    """A :class:`LayeredAgent` that bids many views in one pipeline run
    (:class:`engine.agent.BatchBidder`)."""

    def bid_batch(self, views: Sequence[BiddingView]) -> list[Bid]:
        """One pipeline run for many positions (any mix of seats, boards and auctions)."""
        return self.bidder.bid_batch(views)
