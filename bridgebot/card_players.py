"""How an agent plays its cards: the card player its spec names (``play=dd``, ``play=baseline``),
and a wrapper that gives any bidding agent a card player."""

from __future__ import annotations

from contextlib import ExitStack

from endplay.types import Bid, Card

from bridgebot.agent_options import CardPlayerOptions
from bridgebot.engine.agent import Agent, BiddingView, CardPlayer, PlayView
from bridgebot.engine.cardplay import LEAD_WORLDS, WORLDS
from bridgebot.engine.parts import Parts, parts_of


class LazyDDPlayer:
    """``engine.cardplay.DDCardPlayer``, built on the first card (bidding-only use costs nothing:
    no solver, no worker processes)."""

    name = "ddplay"

    def __init__(self, seed: int, worlds: int = WORLDS, lead_worlds: int = LEAD_WORLDS) -> None:
        self.seed = seed
        self.worlds = worlds
        self.lead_worlds = lead_worlds
        self.player: CardPlayer | None = None
        self._board = 1

    def reset(self, board: int) -> None:
        self._board = board
        if self.player is not None:
            self.player.reset(board)

    def play(self, view: PlayView) -> Card:
        if self.player is None:
            from bridgebot.engine.cardplay import DDCardPlayer

            self.player = DDCardPlayer(
                worlds=self.worlds, lead_worlds=self.lead_worlds, seed=self.seed
            )
            self.player.reset(self._board)
        return self.player.play(view)

    def close(self) -> None:
        if self.player is not None:
            self.player.close()


def card_player(options: CardPlayerOptions, seed: int) -> CardPlayer:
    """The card player ``options`` name; its budget is counted in worlds, never in seconds, so a
    seeded agent plays the same cards on any machine."""
    if options.play == "baseline":
        from bridgebot.engine.cardplay import BaselinePlayer

        return BaselinePlayer()
    return LazyDDPlayer(seed, options.worlds, options.lead_worlds)


class WithCardPlayer(Agent):
    """An agent that bids like ``agent`` and plays its cards with ``player``; closing it closes
    both."""

    def __init__(self, agent: Agent, player: CardPlayer) -> None:
        self.agent = agent
        self.player = player
        self.name = f"{agent.name}+{getattr(player, 'name', type(player).__name__)}"

    def reset(self, board: int) -> None:
        self.agent.reset(board)
        self.player.reset(board)

    def bid(self, view: BiddingView) -> Bid:
        return self.agent.bid(view)

    def parts(self) -> Parts:
        """The bidding agent's parts (:mod:`engine.parts`)."""
        return parts_of(self.agent)

    def play(self, view: PlayView) -> Card:
        """The card player's card."""
        return self.player.play(view)

    def close(self) -> None:
        """Closes the card player, then the agent, whatever the first did."""
        with ExitStack() as then:
            then.callback(self.agent.close)
            self.player.close()


def with_card_player(agent: Agent, player: CardPlayer) -> WithCardPlayer:
    """Wrap any agent so its ``play`` uses ``player`` (e.g. a :class:`DDCardPlayer`)."""
    return WithCardPlayer(agent, player)
