"""The bidding pipeline, once: a base bidder proposes a call and the layers around it decide.

Every bidding agent with layers (``default``, ``policy:PATH``, ``search``) and the league's
learner (``models.convention``) run the same :class:`LayeredBidder`; this is the one place the
layers run, in one order::

    views (seat, hand, auction, legal calls)
      |
      |  1. base.see(views)          the base counts the opponents' calls it meets
      |                              (the reading of their doubles, engine.tendencies)
      |  2. layer.forced(...)        a layer's own call where the auction dictates one: the
      |                              asking convention's answer, the asker's decision, the pass
      |                              after it (engine.control_layer); the base is not asked
      |  3. base.propose(...)        the policy's call (engine.policy.PolicyBase), the search's
      |                              (engine.search.agent.SearchBase), the learner's in training,
      |                              with the policy logits the layers read
      |  4. layer.apply(step)        in order, on the calls no layer forced: the slam layer
      |                              (engine.slams.SlamLayer), the convention's ask and vetoes
      |                              (engine.control_layer.ConventionLayer), the penalty doubles
      |                              (engine.doubles.PenaltyDoublesLayer)
      v
    one Decision per view: the call, the base's proposal, and which layers changed it

A layer implements :class:`Layer`: ``forced`` before the base and ``apply`` after it, both over a
batch; a layer with nothing to force returns no calls (:class:`Amending`). A call a layer forces
is that layer's word: no layer's ``apply`` sees it, and where two force, the first in the list
has it. Layers keep no state between calls, so any mix of boards may share a batch. The base
implements :class:`Base`. An agent takes its layers as a list, in this order
(``bridgebot.learned.LAYERS`` builds it from the agent's options).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, overload, runtime_checkable

import numpy as np
from bridgebot.core.arrays import BoolArray, FloatArray, IntArray
from bridgebot.engine.agent import BiddingView
from bridgebot.engine.features import encode, legal_mask
from bridgebot.laws.calls import ALL_CALLS, bid_index, same_call
from endplay.types import Bid


@dataclass(frozen=True, slots=True)
class Proposal:
    """What a base proposes for a batch: ``calls`` [B] (ALL_CALLS indices) and the policy
    ``logits`` [B, 38] the layers read (their fallbacks are the policy's best other calls)."""

    calls: IntArray
    logits: FloatArray


@dataclass(frozen=True, slots=True)
class Step:
    """What a layer's :meth:`Layer.apply` sees: the free rows of a batch (their views,
    observations ``x`` [B, 480], legal ``mask`` [B, 38] and the base's ``logits``) and the calls
    so far."""

    views: Sequence[BiddingView]
    x: FloatArray
    mask: BoolArray
    logits: FloatArray
    calls: IntArray


@runtime_checkable
class Layer(Protocol):
    """One layer around the base (see the module docstring)."""

    name: str

    def forced(
        self, views: Sequence[BiddingView], auctions: Sequence[Sequence[int]]
    ) -> list[Bid | None]:
        """Per view, the call the layer dictates, else None, or an empty list where it dictates
        none (a layer that never forces, cheaply); ``auctions`` are the views' auctions as
        ALL_CALLS indices (a layer reads them first and builds nothing it does not need: in
        training the views are built on first use)."""
        ...

    def apply(self, step: Step) -> IntArray:
        """The step's calls with this layer's decisions made (a new array)."""
        ...


class Amending:
    """The part of a :class:`Layer` that forces nothing (the slam layer, the penalty doubles): a
    layer that only changes the calls after the base subclasses it and writes ``apply``."""

    def forced(
        self, views: Sequence[BiddingView], auctions: Sequence[Sequence[int]]
    ) -> list[Bid | None]:
        """No call dictated (see :meth:`Layer.forced`)."""
        return []


class Base(Protocol):
    """What proposes the calls the layers start from."""

    name: str

    def see(self, views: Sequence[BiddingView]) -> None:
        """Count what the base learns across boards (the opponents' doubles); before anything
        else, on every view of the batch."""
        ...

    def propose(
        self, views: Sequence[BiddingView], x: FloatArray, mask: BoolArray, rows: IntArray
    ) -> Proposal:
        """Calls for the free views (``x``, ``mask`` theirs, ``rows`` their positions in the
        whole batch)."""
        ...

    def reset(self, board: int) -> None:
        """Before every board (a base that samples reseeds here)."""
        ...


@dataclass(frozen=True, slots=True)
class Decision:
    """How one call was decided: ``call``; ``forced_by`` the layer that dictated it (the base was
    not asked), else None; ``proposed`` the base's call; ``changed_by`` the layers that changed
    the base's call, in order."""

    call: Bid
    forced_by: str | None = None
    proposed: Bid | None = None
    changed_by: tuple[str, ...] = ()


class LazyViews(Sequence[BiddingView]):
    """Views made on first use (:meth:`view`), so a layer that reads a few rows of a batch
    builds only those: the base of :class:`Subset` and of the trainer's views."""

    def __len__(self) -> int:
        raise NotImplementedError

    def view(self, i: int) -> BiddingView:
        raise NotImplementedError

    @overload
    def __getitem__(self, i: int) -> BiddingView: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[BiddingView]: ...
    def __getitem__(self, i: int | slice) -> BiddingView | Sequence[BiddingView]:
        if isinstance(i, slice):
            return Subset(self, range(len(self))[i])
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        return self.view(i + n if i < 0 else i)

    def __iter__(self) -> Iterator[BiddingView]:
        return (self.view(i) for i in range(len(self)))


class Subset(LazyViews):
    """The views at ``rows`` of ``views``, read on use (so lazily built views stay unbuilt)."""

    def __init__(self, views: Sequence[BiddingView], rows: Sequence[int]) -> None:
        self.views, self.rows = views, list(rows)

    def __len__(self) -> int:
        return len(self.rows)

    def view(self, i: int) -> BiddingView:
        return self.views[self.rows[i]]


class LayeredBidder:
    """A base and its layers, run in the one order of the module docstring."""

    def __init__(self, base: Base, layers: Sequence[Layer] = (), check: bool = True) -> None:
        self.base = base
        self.layers = tuple(layers)
        self.check = check
        """Whether every call is checked against its view's legal calls (training, whose views
        are built on first use, leaves it to its legal masks)."""

    def decide(
        self,
        views: Sequence[BiddingView],
        x: FloatArray | None = None,
        mask: BoolArray | None = None,
        auctions: Sequence[Sequence[int]] | None = None,
    ) -> list[Decision]:
        """One :class:`Decision` per view. ``x``, ``mask`` and ``auctions`` (the views'
        observations, legal masks and auctions as indices) are computed from the views unless
        given."""
        n = len(views)
        if n == 0:
            return []
        self.base.see(views)
        if auctions is None:
            auctions = [[bid_index(c) for c in v.auction] for v in views]
        forced: list[Bid | None] = [None] * n
        forced_by: list[str | None] = [None] * n
        for layer in self.layers:
            for i, call in enumerate(layer.forced(views, auctions)):
                if call is not None and forced[i] is None:
                    forced[i], forced_by[i] = call, layer.name
        rows = [i for i, c in enumerate(forced) if c is None]
        decisions: list[Decision | None] = [
            None if c is None else Decision(c, forced_by[i]) for i, c in enumerate(forced)
        ]
        if rows:
            free = np.array(rows, dtype=np.int64)
            fviews: Sequence[BiddingView] = (
                views
                if len(rows) == n
                else Subset(views, rows)
                if isinstance(views, LazyViews)
                else [views[i] for i in rows]
            )
            fx = np.stack([encode(v) for v in fviews]) if x is None else x[free]
            fm = (
                np.stack([legal_mask(v.dealer, v.auction) for v in fviews])
                if mask is None
                else mask[free]
            )
            proposal = self.base.propose(fviews, fx, fm, free)
            first = np.asarray(proposal.calls, dtype=np.int64)
            calls = first
            changed: dict[int, list[str]] = {}
            for layer in self.layers:
                after = layer.apply(Step(fviews, fx, fm, proposal.logits, calls))
                moved = after != calls
                if moved.any():
                    for r in np.flatnonzero(moved).tolist():
                        changed.setdefault(r, []).append(layer.name)
                calls = after
            for r, i in enumerate(rows):
                decisions[i] = Decision(
                    ALL_CALLS[int(calls[r])],
                    proposed=ALL_CALLS[int(first[r])],
                    changed_by=tuple(changed.get(r, ())),
                )
        out = [d for d in decisions if d is not None]
        for view, d in zip(views, out, strict=True) if self.check else ():
            if not any(same_call(d.call, c) for c in view.legal):
                raise ValueError(
                    f"board {view.board}: the view's legal calls disagree with laws.calls "
                    f"about {d.call} (view built wrongly?)"
                )
        return out

    def bid_batch(self, views: Sequence[BiddingView]) -> list[Bid]:
        """The calls of :meth:`decide`."""
        return [d.call for d in self.decide(views)]

    def reset(self, board: int) -> None:
        self.base.reset(board)
