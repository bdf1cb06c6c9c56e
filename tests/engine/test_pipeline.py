"""The bidding pipeline on its own (engine.pipeline): a base proposes, the layers force or change,
and each Decision says who decided; scripted bases and layers, no model."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from bridgebot.core.arrays import BoolArray, FloatArray, IntArray
from bridgebot.engine.agent import BiddingView, bidding_view
from bridgebot.engine.features import N_CALLS, encode, legal_mask
from bridgebot.engine.pipeline import Decision, LayeredBidder, LazyViews, Proposal, Step, Subset
from bridgebot.laws.calls import ALL_CALLS, call_index
from endplay.types import Bid, Deal, Player, Vul

DEAL = Deal("N:AKQ2.J32.K54.Q32 JT9.AK4.QJT9.K54 8765.Q765.A3.AJ6 43.T98.8762.T987")
PASS, DOUBLE = 0, 1
ONE_C, ONE_NT, TWO_C = call_index(1, 0), call_index(1, 4), call_index(2, 0)


def view(auction: str, board: int = 1) -> BiddingView:
    calls = tuple(Bid(c) for c in auction.split())
    seat = Player((len(calls)) % 4)  # North deals
    return bidding_view(Player.north, Vul.none, DEAL[seat], calls, board)


class Base:
    """Proposes ``calls[board]`` for a view of that board; records what it was shown."""

    name = "base"

    def __init__(self, calls: dict[int, int]) -> None:
        self.calls = calls
        self.seen: list[int] = []
        self.proposed: list[tuple[list[int], IntArray, FloatArray]] = []
        self.resets: list[int] = []

    def see(self, views: Sequence[BiddingView]) -> None:
        self.seen += [v.board for v in views]

    def propose(
        self, views: Sequence[BiddingView], x: FloatArray, mask: BoolArray, rows: IntArray
    ) -> Proposal:
        self.proposed.append(([v.board for v in views], rows, x))
        calls = np.array([self.calls[v.board] for v in views], dtype=np.int64)
        logits = np.zeros((len(views), N_CALLS), dtype=np.float32)
        return Proposal(calls, logits)

    def reset(self, board: int) -> None:
        self.resets.append(board)


class Swap:
    """A layer that turns ``before`` into ``after`` and forces ``forces[board]`` where given."""

    def __init__(
        self, name: str, before: int, after: int, forces: dict[int, int] | None = None
    ) -> None:
        self.name, self.before, self.after, self.forces = name, before, after, forces or {}
        self.applied: list[list[int]] = []

    def forced(
        self, views: Sequence[BiddingView], auctions: Sequence[Sequence[int]]
    ) -> list[Bid | None]:
        if not self.forces:
            return []
        return [ALL_CALLS[self.forces[v.board]] if v.board in self.forces else None for v in views]

    def apply(self, step: Step) -> IntArray:
        self.applied.append([v.board for v in step.views])
        assert step.x.shape == (len(step.views), 480) and step.mask.shape == (len(step.views), 38)
        return np.where(step.calls == self.before, self.after, step.calls).astype(np.int64)


def views_of(*boards: int) -> list[BiddingView]:
    return [view("", b) for b in boards]


def test_a_decision_says_the_base_decided_where_no_layer_acted() -> None:
    bidder = LayeredBidder(Base({1: ONE_NT}))
    (d,) = bidder.decide(views_of(1))
    assert d == Decision(ALL_CALLS[ONE_NT], None, ALL_CALLS[ONE_NT], ())
    assert Decision(ALL_CALLS[PASS]) == Decision(ALL_CALLS[PASS], None, None, ())
    assert bidder.decide([]) == []


def test_changed_by_names_every_layer_that_changed_the_call_in_order() -> None:
    base = Base({1: PASS, 2: ONE_C, 3: ONE_NT})
    first = Swap("first", PASS, ONE_C)
    second = Swap("second", ONE_C, TWO_C)
    bidder = LayeredBidder(base, [first, second])
    d1, d2, d3 = bidder.decide(views_of(1, 2, 3))
    # Board 1: pass -> 1C (first) -> 2C (second); board 2: 1C -> 2C (second only).
    assert (d1.call, d1.proposed, d1.changed_by) == (
        ALL_CALLS[TWO_C],
        ALL_CALLS[PASS],
        ("first", "second"),
    )
    assert (d2.call, d2.proposed, d2.changed_by) == (
        ALL_CALLS[TWO_C],
        ALL_CALLS[ONE_C],
        ("second",),
    )
    assert (d3.call, d3.changed_by, d3.forced_by) == (ALL_CALLS[ONE_NT], (), None)
    # Each layer saw every row once, after the ones before it.
    assert first.applied == second.applied == [[1, 2, 3]]


def test_forced_by_names_the_layer_and_the_base_is_not_asked() -> None:
    base = Base({1: PASS, 2: PASS, 3: PASS})
    forcing = Swap("convention", PASS, ONE_C, forces={2: ONE_NT})
    after = Swap("doubles", PASS, ONE_C)
    bidder = LayeredBidder(base, [forcing, after])
    views = views_of(1, 2, 3)
    d1, d2, _ = bidder.decide(views)
    assert d2 == Decision(ALL_CALLS[ONE_NT], forced_by="convention")
    assert d2.proposed is None and d2.changed_by == ()
    assert d1.forced_by is None and d1.changed_by == ("convention",)
    # The base was shown every view (the count of the opponents' calls), asked for the free ones
    # only, with their rows in the batch and their observations.
    assert base.seen == [1, 2, 3]
    ((boards, rows, x),) = base.proposed
    assert boards == [1, 3] and rows.tolist() == [0, 2]
    np.testing.assert_array_equal(x, np.stack([encode(views[0]), encode(views[2])]))
    # No layer changes a forced call: the layers after the one that forced never see it.
    assert forcing.applied == after.applied == [[1, 3]]


def test_the_first_layer_that_forces_a_call_has_it() -> None:
    one = Swap("one", PASS, PASS, forces={1: ONE_C})
    two = Swap("two", PASS, PASS, forces={1: TWO_C, 2: ONE_NT})
    base = Base({})
    d1, d2 = LayeredBidder(base, [one, two]).decide(views_of(1, 2))
    assert (d1.call, d1.forced_by) == (ALL_CALLS[ONE_C], "one")
    assert (d2.call, d2.forced_by) == (ALL_CALLS[ONE_NT], "two")
    assert base.proposed == []  # every row forced: the base is not asked at all


def test_observations_masks_and_auctions_given_are_used() -> None:
    views = [view("1C"), view("1C X")]
    x = np.stack([encode(v) for v in views])
    x[:, 0] = 7.0  # a mark the base must see
    mask = np.stack([legal_mask(v.dealer, v.auction) for v in views])
    seen: list[Sequence[Sequence[int]]] = []

    class Reader(Swap):
        def forced(
            self, views: Sequence[BiddingView], auctions: Sequence[Sequence[int]]
        ) -> list[Bid | None]:
            seen.append(auctions)
            return []

    base = Base({1: PASS})
    auctions = [[ONE_C], [ONE_C, DOUBLE]]
    LayeredBidder(base, [Reader("r", PASS, PASS)]).decide(views, x, mask, auctions)
    assert seen == [auctions]
    assert base.proposed[0][2][:, 0].tolist() == [7.0, 7.0]
    LayeredBidder(base, [Reader("r", PASS, PASS)]).decide(views)
    assert [list(a) for a in seen[1]] == auctions  # computed from the views when not given


def test_a_call_the_view_does_not_allow_is_refused_unless_unchecked() -> None:
    illegal = Base({1: DOUBLE})  # a double of nothing at the opening
    with pytest.raises(ValueError, match="board 1: the view's legal calls disagree"):
        LayeredBidder(illegal).decide(views_of(1))
    (d,) = LayeredBidder(illegal, check=False).decide(views_of(1))
    assert d.call == ALL_CALLS[DOUBLE]


def test_bid_batch_and_reset_go_through_the_pipeline() -> None:
    base = Base({1: PASS, 2: ONE_NT})
    bidder = LayeredBidder(base, [Swap("s", PASS, ONE_C)])
    assert bidder.bid_batch(views_of(1, 2)) == [ALL_CALLS[ONE_C], ALL_CALLS[ONE_NT]]
    bidder.reset(9)
    assert base.resets == [9]


class Built(LazyViews):
    """Views made on first use, counting what was built."""

    def __init__(self, boards: Sequence[int]) -> None:
        self.boards, self.built = list(boards), []

    def __len__(self) -> int:
        return len(self.boards)

    def view(self, i: int) -> BiddingView:
        self.built.append(i)
        return view("", self.boards[i])


def test_lazy_views_stay_unbuilt_where_no_one_reads_them() -> None:
    views = Built([1, 2, 3])
    assert isinstance(views[0:2], Subset) and views.built == []
    assert views[-1].board == 3 and views.built == [2]
    with pytest.raises(IndexError):
        views[3]

    class Counting(Base):
        def see(self, views: Sequence[BiddingView]) -> None:
            pass  # reads nothing

        def propose(
            self, views: Sequence[BiddingView], x: FloatArray, mask: BoolArray, rows: IntArray
        ) -> Proposal:
            assert isinstance(views, Subset) and len(views) == 2
            return Proposal(np.zeros(2, np.int64), np.zeros((2, N_CALLS), np.float32))

    class ByAuction:
        """Forces 1C on the second row by its auction alone; changes nothing after."""

        name = "f"

        def forced(
            self, views: Sequence[BiddingView], auctions: Sequence[Sequence[int]]
        ) -> list[Bid | None]:
            return [ALL_CALLS[ONE_C] if i == 1 else None for i in range(len(auctions))]

        def apply(self, step: Step) -> IntArray:
            return step.calls

    lazy = Built([1, 2, 3])
    x = np.zeros((3, 480), np.float32)
    mask = np.ones((3, N_CALLS), np.bool_)
    bidder = LayeredBidder(Counting({}), [ByAuction()], check=False)
    out = bidder.decide(lazy, x, mask, [[], [], []])
    assert [d.forced_by for d in out] == [None, "f", None]
    assert lazy.built == []  # neither the base nor the layers read a view
