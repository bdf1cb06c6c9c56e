"""The searching agent: :class:`BorelSearch` for the calls, a card player for the cards."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from bridgebot.engine.agent import Agent, BatchBidder, BiddingView, CardPlayer, PlayView
from bridgebot.engine.parts import Parts
from bridgebot.engine.pipeline import Base, FloatArray, LayeredBidder, Proposal
from bridgebot.engine.policy import PolicyAgent, convention_name, layers_of
from bridgebot.engine.search.borel import BorelSearch
from bridgebot.engine.search.config import SearchResult
from bridgebot.engine.tendencies import DoubleRate, Reading, TheirDoubles, WithoutTheirDoubles
from bridgebot.laws.calls import bid_index, doubled_against_caller
from endplay.types import Bid, Card

if TYPE_CHECKING:
    from bridgebot.engine.control_asking import Convention
    from bridgebot.engine.slams import SlamEstimator

# -- the agent -------------------------------------------------------------------------------------


class SearchBase:
    """The search as the base of the pipeline (:class:`engine.pipeline.Base`): one
    :class:`BorelSearch` per view. Where the opponents have doubled our side's contract,
    ``doubled`` searches instead: ``search`` with :meth:`SearchConfig.where_doubled` (its
    ``doubled_p_min`` and ``doubled_punish``), sharing its policy, oracle, sampler and opponent
    models. ``their_doubles`` is what its own policy makes of the opponents' doubles elsewhere,
    as in :class:`engine.policy.PolicyBase` (:mod:`engine.tendencies`): where it ignores them,
    ``blind`` searches, with the policy read through
    :class:`engine.tendencies.WithoutTheirDoubles` (the prior, partner's calls, our side's calls
    in the rollouts; the opponent models keep their reading, except ``self``, which is our policy
    read the same way). ``results`` holds the searches of the latest :meth:`propose`, row for
    row."""

    name = "search"

    def __init__(
        self,
        search: BorelSearch,
        seed: int = 0,
        their_doubles: Reading = "read",
        double_rate: DoubleRate | None = None,
    ) -> None:
        self.search = search
        self.seed = seed
        self.doubles = TheirDoubles(their_doubles, double_rate)
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
        self._rng = np.random.default_rng([seed, 0])
        self.results: list[SearchResult] = []

    def see(self, views: Sequence[BiddingView]) -> None:
        self.doubles.see(v.auction for v in views)

    def propose(
        self,
        views: Sequence[BiddingView],
        x: FloatArray,
        mask: npt.NDArray[np.bool_],
        rows: npt.NDArray[np.int64],
    ) -> Proposal:
        self.results = []
        logits = []
        for view in views:
            search = (
                self.doubled
                if doubled_against_caller(view.auction)
                else self.blind
                if self.doubles.ignored
                else self.search
            )
            self.results.append(search.search(view, self._rng))
            seen, _ = search.observation(view)
            # The layers read the policy as the search read it (blind where it ignores the
            # opponents' doubles), as the policy agent's layers read its policy.
            logits.append(search.policy.logits(seen)[0])
        calls = np.array([bid_index(r.call) for r in self.results], dtype=np.int64)
        return Proposal(calls, np.stack(logits).astype(np.float32))

    def reset(self, board: int) -> None:
        # Reseeded per board so a board's calls do not depend on which boards came before.
        self._rng = np.random.default_rng([self.seed, board])


class SearchAgent(Agent):
    """Bids by :class:`BorelSearch` over a policy (:class:`SearchBase`) with the layers around it,
    in the one pipeline (:class:`engine.pipeline.LayeredBidder`); plays cards with a separate
    card player.

    ``decisions`` holds the searches of the current board (emptied by ``reset``), for logs and
    benchmarks; ``last`` is the latest. With ``slam`` (the policy's slam estimator) and ``convention``
    (the asking convention), the layers have the last word on the searched call, as they have on
    the policy's in :class:`engine.policy.PolicyAgent` (``stats["slam_layer"]`` marks a change);
    a call the convention forces is not searched.
    """

    def __init__(
        self,
        search: BorelSearch,
        card_player: CardPlayer,
        seed: int = 0,
        name: str = "search",
        slam: SlamEstimator | None = None,
        convention: Convention | None = None,
        their_doubles: Reading = "read",
        double_rate: DoubleRate | None = None,
    ) -> None:
        self.name = name
        self.base = SearchBase(search, seed, their_doubles, double_rate)
        self.slam = slam
        self.convention = convention
        self.bidder = LayeredBidder(self.base, layers_of(slam, convention))
        self.card_player = card_player
        self.last: SearchResult | None = None
        self.decisions: list[SearchResult] = []

    @property
    def search(self) -> BorelSearch:
        return self.base.search

    def parts(self) -> Parts:
        """Its policy, its layers and the convention they play (:mod:`engine.parts`)."""
        return Parts(self.search.policy, self.bidder.layers, convention_name(self.convention))

    @property
    def ignores_their_doubles(self) -> bool:
        """As :attr:`engine.policy.PolicyAgent.ignores_their_doubles`."""
        return self.base.doubles.ignored

    def reset(self, board: int) -> None:
        self.bidder.reset(board)
        self.decisions = []
        self.card_player.reset(board)

    def bid(self, view: BiddingView) -> Bid:
        (decision,) = self.bidder.decide([view])
        if decision.forced_by is not None:
            # The asking convention's answer, decision or pass: nothing was searched.
            return decision.call
        (result,) = self.base.results
        if decision.changed_by:
            result.call = decision.call
            result.stats["slam_layer"] = 1.0
        self.last = result
        self.decisions.append(result)
        return decision.call

    def play(self, view: PlayView) -> Card:
        return self.card_player.play(view)

    def close(self) -> None:
        self.card_player.close()


#: The ``opponents`` option's default: '+'-separated names, ``self`` (our policy), a shipped
#: opponent model (``bfgnet``, ``epbotnet``) or a policy directory. ``epbotnet+self`` since
#: issue 43: the imitation of EPBot's BEN-SAYC card read the field better than ``bfgnet`` on
#: validation over both the old policy and the new one (docs/evaluation.md, "An opponent model
#: of the field").
DEFAULT_OPPONENTS = "epbotnet+self"

#: The opponent models of ``default``'s doubled stage (the search where the opponents doubled
#: our contract): the ones it was measured with (docs/evaluation.md, "The doubled stage"), kept
#: when the search's default changed, so that ``default`` bids as its figures say.
DOUBLED_OPPONENTS = "bfgnet+self"


class WhereDoubled:
    """A base that routes (:class:`engine.pipeline.Base`): ``doubled`` proposes where the
    opponents have doubled our side's contract (:func:`laws.calls.doubled_against_caller`),
    ``plain`` everywhere else, each seeing only the views routed to it. ``searched`` counts the
    calls ``doubled`` proposed."""

    name = "where-doubled"

    def __init__(self, plain: Base, doubled: Base) -> None:
        self.plain = plain
        self.doubled = doubled
        self.searched = 0
        self._seen: tuple[Sequence[BiddingView], tuple[list[int], list[int]]] | None = None

    def _split(self, views: Sequence[BiddingView]) -> tuple[list[int], list[int]]:
        """(plain rows, doubled rows) of ``views``; :meth:`propose` reuses the split :meth:`see`
        made of the same batch."""
        if self._seen is not None and self._seen[0] is views:
            return self._seen[1]
        plain: list[int] = []
        doubled: list[int] = []
        for i, v in enumerate(views):
            (doubled if doubled_against_caller(v.auction) else plain).append(i)
        self._seen = (views, (plain, doubled))
        return plain, doubled

    def see(self, views: Sequence[BiddingView]) -> None:
        plain, doubled = self._split(views)
        self.plain.see(views if len(plain) == len(views) else [views[i] for i in plain])
        if doubled:
            self.doubled.see([views[i] for i in doubled])

    def propose(
        self,
        views: Sequence[BiddingView],
        x: FloatArray,
        mask: npt.NDArray[np.bool_],
        rows: npt.NDArray[np.int64],
    ) -> Proposal:
        plain, doubled = self._split(views)
        if not doubled:
            return self.plain.propose(views, x, mask, rows)
        calls = np.zeros(len(views), dtype=np.int64)
        logits = np.zeros((len(views), mask.shape[1]), dtype=np.float32)
        for base, idx in ((self.plain, plain), (self.doubled, doubled)):
            if idx:
                got = base.propose([views[i] for i in idx], x[idx], mask[idx], rows[idx])
                calls[idx], logits[idx] = got.calls, got.logits
        self.searched += len(doubled)
        return Proposal(calls, logits)

    def reset(self, board: int) -> None:
        self.plain.reset(board)
        self.doubled.reset(board)


class SearchWhereDoubled(BatchBidder):
    """Bids with the policy agent ``agent``'s pipeline, its base routed to ``search``'s where
    the opponents have doubled our side's contract (:class:`WhereDoubled`); plays with
    ``agent``'s card player.

    Why there: an exploiter trained against the policy wins most of its IMPs by doubling, at any
    level and with any meaning, and the policy reads doubles it never met in training badly. The
    search deals the hands the auction allows and scores each candidate call double dummy, so it
    reads the double by what it does to our contract. Doubles are a few percent of the calls
    (more against a doubler), so the agent keeps nearly the policy's speed. ``search`` is the
    ``search`` agent, whose base searches doubled positions with its
    :meth:`SearchConfig.where_doubled` settings; its layers are ``agent``'s.
    ``searched`` counts the calls the search made.
    """

    def __init__(self, agent: PolicyAgent, search: SearchAgent, name: str = "default") -> None:
        self.agent = agent
        self.search = search
        self.name = name
        self.base = WhereDoubled(agent.base, search.base)
        self.bidder = LayeredBidder(self.base, agent.bidder.layers)
        self.policy = agent.policy
        self.card_player = agent.card_player

    @property
    def searched(self) -> int:
        return self.base.searched

    def parts(self) -> Parts:
        """The policy agent's parts: its policy, layers and convention."""
        return self.agent.parts()

    def reset(self, board: int) -> None:
        self.bidder.reset(board)
        self.card_player.reset(board)

    def bid(self, view: BiddingView) -> Bid:
        return self.bid_batch([view])[0]

    def bid_batch(self, views: Sequence[BiddingView]) -> list[Bid]:
        return self.bidder.bid_batch(views)

    def play(self, view: PlayView) -> Card:
        return self.agent.play(view)

    def close(self) -> None:
        self.agent.close()
        self.search.close()
