"""The searching agent: :class:`BorelSearch` for the calls, a card player for the cards."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from bridgebot.core.arrays import FloatArray
from bridgebot.engine.agent import BiddingView, CardPlayer
from bridgebot.engine.batch_policy import BatchPolicy
from bridgebot.engine.layered_agent import BatchLayeredAgent, LayeredAgent
from bridgebot.engine.pipeline import Base, Layer, LayeredBidder, Proposal
from bridgebot.engine.policy import Policy, PolicyAgent
from bridgebot.engine.search.borel import BorelSearch
from bridgebot.engine.search.config import SearchResult
from bridgebot.engine.tendencies import DoubleRate, Reading, TheirDoubles, WithoutTheirDoubles
from bridgebot.laws.calls import bid_index, doubled_against_caller
from endplay.types import Bid

# -- the agent -------------------------------------------------------------------------------------


class SearchBase:
    """The search as the base of the pipeline (:class:`engine.pipeline.Base`): one
    :class:`BorelSearch` per view. Where the opponents have doubled our side's contract,
    ``doubled`` searches instead: ``search`` with :meth:`SearchConfig.where_doubled` (its
    ``doubled_p_min`` and ``doubled_punish``), sharing its policy, oracle, sampler and opponent
    models. ``policy_doubles`` is what its own policy makes of the opponents' doubles elsewhere,
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
        policy_doubles: Reading = "read",
        double_rate: DoubleRate | None = None,
    ) -> None:
        self.search = search
        self.seed = seed
        self.doubles = TheirDoubles(policy_doubles, double_rate)
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


class SearchAgent(LayeredAgent):
    """Bids by :class:`BorelSearch` over a policy (:class:`SearchBase`) with ``layers`` around
    it, in the one pipeline (:class:`engine.pipeline.LayeredBidder`); plays cards with a separate
    card player.

    ``results`` holds the searches of the current board (emptied by ``reset``), for logs and
    benchmarks; ``last`` is the latest. The layers have the last word on the searched call, as
    they have on the policy's in :class:`engine.policy.PolicyAgent` (``stats["changed_by_layer"]``
    marks a change); a call a layer forces is not searched. Not a batch bidder: the search draws
    its particles from one generator per board, in the order the calls come.
    """

    def __init__(
        self,
        search: BorelSearch,
        card_player: CardPlayer,
        layers: Sequence[Layer] = (),
        seed: int = 0,
        name: str = "search",
        policy_doubles: Reading = "read",
        double_rate: DoubleRate | None = None,
    ) -> None:
        self.base = SearchBase(search, seed, policy_doubles, double_rate)
        super().__init__(LayeredBidder(self.base, layers), card_player, name)
        self.last: SearchResult | None = None
        self.results: list[SearchResult] = []

    @property
    def search(self) -> BorelSearch:
        return self.base.search

    @property
    def policy(self) -> BatchPolicy:
        return self.search.policy

    @property
    def ignores_their_doubles(self) -> bool:
        """As :attr:`engine.policy.PolicyAgent.ignores_their_doubles`."""
        return self.base.doubles.ignored

    def reset(self, board: int) -> None:
        super().reset(board)
        self.results = []

    def bid(self, view: BiddingView) -> Bid:
        (decision,) = self.bidder.decide([view])
        if decision.forced_by is not None:
            # A layer's own call (the asking convention's answer, decision or pass): nothing
            # was searched.
            return decision.call
        (result,) = self.base.results
        if decision.changed_by:
            result.call = decision.call
            result.stats["changed_by_layer"] = 1.0
        self.last = result
        self.results.append(result)
        return decision.call


#: The ``opponents`` option's default: '+'-separated names, ``self`` (our policy), a shipped
#: opponent model (``bfgnet``, ``epbotnet``) or a policy directory. ``epbotnet+self`` since
#: issue 43: the imitation of EPBot's BEN-SAYC card read the field better than ``bfgnet`` on
#: validation over both the old policy and the new one (docs/evaluation.md, "An opponent model
#: of the field").
DEFAULT_OPPONENTS = "epbotnet+self"

#: The opponent models of ``default``'s search where the opponents doubled our contract: the
#: ones it was measured with (docs/evaluation.md, section "The doubled stage"), kept when the
#: search's default changed, so that ``default`` bids as its figures say.
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


class SearchWhereDoubled(BatchLayeredAgent):
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
    ``searched`` counts the calls the search made. Closing it closes both agents.
    """

    def __init__(self, agent: PolicyAgent, search: SearchAgent, name: str = "default") -> None:
        self.agent = agent
        self.search = search
        self.base = WhereDoubled(agent.base, search.base)
        super().__init__(LayeredBidder(self.base, agent.bidder.layers), agent.card_player, name)

    @property
    def policy(self) -> Policy:
        return self.agent.policy

    @property
    def searched(self) -> int:
        return self.base.searched

    def close(self) -> None:
        super().close()
        self.search.close()
