"""The searching agent: :class:`BorelSearch` for the calls, a card player for the cards."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from bridgebot.engine.agent import Agent, BatchBidder, BiddingView, CardPlayer, PlayView
from bridgebot.engine.features import legal_mask
from bridgebot.engine.search.borel import BorelSearch
from bridgebot.engine.search.config import SearchResult
from bridgebot.engine.tendencies import DoubleRate, Reading, WithoutTheirDoubles, ignores
from bridgebot.laws.calls import ALL_CALLS, bid_index, doubled_against_caller, same_call
from endplay.types import Bid, Card

if TYPE_CHECKING:
    from bridgebot.engine.aces import Convention
    from bridgebot.engine.policy import PolicyAgent
    from bridgebot.engine.slams import SlamEstimator

# -- the agent -------------------------------------------------------------------------------------


class SearchAgent(Agent):
    """Bids by :class:`BorelSearch` over a policy; plays cards with a separate card player.

    ``decisions`` holds the searches of the current board (emptied by ``reset``), for logs and
    benchmarks; ``last`` is the latest. With ``slam`` (the policy's slam estimator), the slam
    layer of :mod:`engine.slams` has the last word on the searched call, as it has on the
    policy's in :class:`engine.policy.PolicyAgent` (``stats["slam_layer"]`` marks a change).
    Where the opponents have doubled our side's contract, ``doubled`` searches instead: ``search``
    with :meth:`SearchConfig.where_doubled` (its ``doubled_p_min`` and ``doubled_punish``),
    sharing its policy, oracle, sampler and opponent models. ``their_doubles`` is what its own
    policy makes of the opponents' doubles elsewhere, as in :class:`engine.policy.PolicyAgent`
    (:mod:`engine.tendencies`): where it ignores them, ``blind`` searches, with the policy read
    through :class:`engine.tendencies.WithoutTheirDoubles` (the prior, partner's calls, our side's
    calls in the rollouts; the opponent models keep their reading, except ``self``, which is our
    policy read the same way).
    """

    def __init__(
        self,
        search: BorelSearch,
        card_player: CardPlayer,
        seed: int = 0,
        name: str = "search",
        slam: SlamEstimator | None = None,
        aces: Convention | None = None,
        their_doubles: Reading = "read",
        double_rate: DoubleRate | None = None,
    ) -> None:
        self.name = name
        self.search = search
        self.their_doubles = their_doubles
        self.double_rate = double_rate or DoubleRate()
        self.blind = BorelSearch(
            WithoutTheirDoubles(search.policy),
            search.oracle,
            search.config,
            search.sampler,
            search.opponents,
        )
        self.doubled = BorelSearch(
            search.policy,
            search.oracle,
            search.config.where_doubled(),
            search.sampler,
            search.opponents,
        )
        self.slam = slam
        self.aces = aces
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
        if self.their_doubles == "auto":
            self.double_rate.see(view.auction)
        forced = self.aces.forced(view) if self.aces is not None else None
        if forced is not None:
            # The ace-asking convention's answer, decision or pass: nothing to search.
            return forced
        search = (
            self.doubled
            if doubled_against_caller(view.auction)
            else self.blind
            if self.ignores_their_doubles
            else self.search
        )
        result = search.search(view, self._rng)
        if self.slam is not None:
            x, _ = search.observation(view)
            mask = legal_mask(view.dealer, view.auction)[None, :]
            call = bid_index(result.call)
            logits = self.search.policy.logits(x)
            calls = self.slam.apply(x, mask, logits, np.array([call]))
            if self.aces is not None:
                calls = self.aces.apply([view], x, calls, mask, logits)
            layered = int(calls[0])
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

    @property
    def ignores_their_doubles(self) -> bool:
        """As :attr:`engine.policy.PolicyAgent.ignores_their_doubles`."""
        return ignores(self.their_doubles, self.double_rate)

    def play(self, view: PlayView) -> Card:
        return self.card_player.play(view)

    def close(self) -> None:
        self.card_player.close()


#: The ``opponents`` option's default: '+'-separated names, ``self`` (our policy), ``bfgnet`` or
#: a policy directory.
DEFAULT_OPPONENTS = "bfgnet+self"


class SearchWhereDoubled(BatchBidder):
    """Bids with ``agent`` (a batch bidder: the policy), but with ``search`` where the opponents
    have doubled our side's contract (:func:`laws.calls.doubled_against_caller`); plays with
    ``agent``.

    Why there: an exploiter trained against the policy wins most of its IMPs by doubling, at any
    level and with any meaning, and the policy reads doubles it never met in training badly. The
    search deals the hands the auction allows and scores each candidate call double dummy, so it
    reads the double by what it does to our contract. Doubles are a few percent of the calls
    (more against a doubler), so the agent keeps nearly the policy's speed. ``search`` is the
    ``search`` agent, which searches doubled positions with its
    :meth:`SearchConfig.where_doubled` settings.
    ``searched`` counts the calls the search made; ``policy`` and ``card_player`` are the
    policy agent's (the explainer and the alerts read the policy).
    """

    def __init__(self, agent: PolicyAgent, search: Agent, name: str = "default") -> None:
        self.agent = agent
        self.search = search
        self.name = name
        self.policy = agent.policy
        self.card_player = agent.card_player
        self.searched = 0

    def reset(self, board: int) -> None:
        self.agent.reset(board)
        self.search.reset(board)

    def bid(self, view: BiddingView) -> Bid:
        return self.bid_batch([view])[0]

    def bid_batch(self, views: Sequence[BiddingView]) -> list[Bid]:
        doubled = [doubled_against_caller(v.auction) for v in views]
        rest = [v for v, d in zip(views, doubled, strict=True) if not d]
        plain = iter(self.agent.bid_batch(rest))
        out = []
        for view, d in zip(views, doubled, strict=True):
            if d:
                self.searched += 1
                out.append(self.search.bid(view))
            else:
                out.append(next(plain))
        return out

    def play(self, view: PlayView) -> Card:
        return self.agent.play(view)

    def close(self) -> None:
        self.agent.close()
        self.search.close()
