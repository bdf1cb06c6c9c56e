"""Sampling the hidden hands: complete deals consistent with what one player knows during play.

What a player knows (:class:`Knowledge`): its own cards, dummy's cards once the opening lead is
made, every card played and by whom, and the voids revealed when a player failed to follow suit.
Every unseen card goes to one of the hidden seats; a hidden seat gets exactly as many as it still
holds, and never a card of a suit it has shown out of.

Sampling is exactly uniform over the consistent deals: unseen cards are grouped by suit (all cards
of a suit have the same allowed seats), a dynamic programme counts the ways to split each suit
among the allowed seats given the seats' remaining room, and the split of each suit is drawn in
proportion to those counts; then the cards inside each suit are shuffled into their seats.

The auction carries information too. An optional ``auction_likelihood(worlds) -> weights`` (for
example the bidding policy's probability of the observed auction given each world's hands) turns
uniform worlds into posterior ones by sampling-importance-resampling: draw more candidates than
needed, resample them in proportion to the likelihood, and merge duplicates into weights. This is
the soft form of the particle filter of the Borel search (Lockhart et al. 2020, Algorithm 2), which
keeps a particle with the probability the policy gives to each observed call.

A world is an ``owners`` row of 52 seats (0..3 for N E S W) over the *original* deal, in the card
order of :mod:`engine.dds` and docs/data.md, so a bidding policy can read the hands as they
were during the auction.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt
from bridgebot.engine.agent import PlayView
from bridgebot.engine.batch_policy import BatchPolicy
from bridgebot.engine.likelihood import auction_log_likelihood
from bridgebot.laws.calls import bid_index
from bridgebot.laws.cards import card_index

OwnersArray = npt.NDArray[np.uint8]
AuctionLikelihood = Callable[[OwnersArray], npt.ArrayLike]


class InconsistentViewError(ValueError):
    """A play view whose cards do not add up to a deal (a bug in whoever built it)."""


@dataclass(frozen=True)
class Knowledge:
    """What one player knows about the deal during play.

    ``fixed[i]`` is the seat that was dealt card ``i`` when that is known (own and dummy's cards,
    every played card), else -1. ``need[seat]`` is how many unseen cards ``seat`` still holds (0 for
    a seat whose hand is known); ``void[seat, suit]`` marks a suit ``seat`` has shown out of.
    """

    fixed: npt.NDArray[np.int8]
    need: tuple[int, int, int, int]
    void: npt.NDArray[np.bool_]

    @classmethod
    def from_view(cls, view: PlayView) -> Knowledge:
        fixed = np.full(52, -1, dtype=np.int8)

        def place(i: int, seat: int, what: str) -> None:
            if fixed[i] >= 0 and fixed[i] != seat:
                raise InconsistentViewError(
                    f"board {view.board}: card {i} {what} is already placed with seat {fixed[i]}"
                )
            fixed[i] = seat

        void = np.zeros((4, 4), dtype=np.bool_)
        played_by = [0, 0, 0, 0]
        led_suit = None
        for k, (player, card) in enumerate(view.played):
            place(card_index(card), player.value, f"played by {player.name}")
            played_by[player.value] += 1
            if k % 4 == 0:
                led_suit = card.suit
            elif card.suit != led_suit and led_suit is not None:
                void[player.value, led_suit.value] = True
        known = {view.controller.value: list(view.hand)}
        if view.dummy is not None:
            known[view.dummy_seat.value] = list(view.dummy)
        for seat, cards in known.items():
            for c in cards:
                place(card_index(c), seat, "in a known hand")
            if len(cards) + played_by[seat] != 13:
                raise InconsistentViewError(
                    f"board {view.board}: seat {seat} holds {len(cards)} cards after playing "
                    f"{played_by[seat]}"
                )
        need = [0 if s in known else 13 - played_by[s] for s in range(4)]
        unseen = int((fixed < 0).sum())
        if unseen != sum(need):
            raise InconsistentViewError(
                f"board {view.board}: {unseen} unseen cards for hidden seats needing {sum(need)}"
            )
        return cls(fixed=fixed, need=(need[0], need[1], need[2], need[3]), void=void)

    @property
    def hidden(self) -> tuple[int, ...]:
        return tuple(s for s in range(4) if self.need[s] > 0)

    def count(self) -> int:
        """The number of consistent deals (exact; used by tests and to size budgets)."""
        return _Splitter.of(self).total

    def sample(self, n: int, rng: np.random.Generator) -> OwnersArray:
        """``n`` deals drawn uniformly from those consistent with this knowledge."""
        splitter = _Splitter.of(self)
        out = np.empty((n, 52), dtype=np.uint8)
        base = self.fixed.astype(np.int64)
        for w in range(n):
            row = base.copy()
            cap = splitter.capacity
            for g, cards in enumerate(splitter.groups):
                split = splitter.draw(g, cap, rng)
                perm = rng.permutation(cards)
                at = 0
                for seat_pos, k in enumerate(split):
                    row[perm[at : at + k]] = splitter.seats[seat_pos]
                    at += k
                cap = tuple(c - k for c, k in zip(cap, split, strict=True))
            out[w] = row
        return out

    def sample_many(self, n: int, rng: np.random.Generator) -> OwnersArray:
        """``n`` deals drawn uniformly, as :meth:`sample` draws them, in array operations: each
        suit's split drawn at once for every deal that reached the same capacities, each suit's
        cards dealt by one argsort of random keys. The same distribution as :meth:`sample`, not
        the same stream of draws; for the many candidates an auction weighs (``sample_worlds``),
        where :meth:`sample`'s loop over deals was most of a late card's time."""
        splitter = _Splitter.of(self)
        out = np.repeat(self.fixed.astype(np.int64)[None, :], n, axis=0)
        seats = np.array(splitter.seats, dtype=np.int64)
        caps = np.repeat(np.array([splitter.capacity], dtype=np.int64), n, axis=0)
        rows = np.arange(n)
        for g, cards in enumerate(splitter.groups):
            splits = np.empty_like(caps)
            # The capacities as one number each (every one is at most 13), in the order of the
            # rows themselves, so each set of deals draws as it would by its rows.
            code = caps @ (14 ** np.arange(caps.shape[1] - 1, -1, -1))
            _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
            for k, cap in enumerate(caps[first]):
                at = np.flatnonzero(inverse == k)
                options, cumulative = splitter.table(g, tuple(int(c) for c in cap))
                picks = np.searchsorted(cumulative, rng.random(len(at)) * cumulative[-1], "right")
                splits[at] = np.asarray(options, dtype=np.int64)[
                    np.minimum(picks, len(options) - 1)
                ]
            order = np.argsort(rng.random((n, len(cards))), axis=1)
            bounds = np.cumsum(splits, axis=1)
            # The j-th card of a deal's shuffled suit goes to the first seat whose running count
            # of this suit's cards exceeds j.
            slot = (np.arange(len(cards))[None, :, None] >= bounds[:, None, :]).sum(axis=2)
            out[rows[:, None], cards[order]] = seats[slot]
            caps = caps - splits
        return out.astype(np.uint8)


@dataclass(frozen=True)
class Worlds:
    """Sampled deals with their weights (summing to 1)."""

    owners: OwnersArray
    weights: npt.NDArray[np.float64]

    def __len__(self) -> int:
        return len(self.owners)


def sample_worlds(
    knowledge: Knowledge,
    n: int,
    rng: np.random.Generator,
    auction_likelihood: AuctionLikelihood | None = None,
    oversample: int = 4,
    distinct: bool = False,
) -> Worlds:
    """``n`` draws merged into at most ``n`` distinct weighted worlds; uniform without
    ``auction_likelihood``.

    With a likelihood, ``n * oversample`` uniform candidates are drawn and ``n`` are resampled in
    proportion to it. If the likelihood is zero everywhere (the auction is impossible
    under the policy, e.g. a human's psyche), the uniform candidates are used instead.

    ``distinct`` keeps ``n`` distinct candidates instead of resampling (which draws the likeliest
    worlds several times, so a telling auction leaves far fewer than ``n`` worlds to solve):
    priority sampling (Duffield, Lund and Thorup 2007), each candidate's priority its likelihood
    over a uniform draw, the ``n`` highest kept, each weighed by the larger of its likelihood and
    the ``n + 1``-th priority, which keeps the weighted mean of any function of the world
    unbiased. Identical candidates are merged first, their likelihoods added.
    """
    if n < 1:
        raise ValueError(f"number of worlds must be >= 1, not {n}")
    if auction_likelihood is None:
        return _merged(knowledge.sample(n, rng), n)
    candidates = knowledge.sample_many(n * max(1, oversample), rng)
    lik = np.asarray(auction_likelihood(candidates), dtype=np.float64)
    if lik.shape != (len(candidates),):
        raise ValueError(
            f"auction_likelihood returned shape {lik.shape} for {len(candidates)} worlds"
        )
    if not np.all(np.isfinite(lik)) or np.any(lik < 0):
        raise ValueError("auction_likelihood returned negative or non-finite weights")
    total = lik.sum()
    if total <= 0:
        return _merged(candidates[:n], n)
    if distinct:
        return _priority_sample(candidates, lik, n, rng)
    picks = rng.choice(len(candidates), size=n, replace=True, p=lik / total)
    return _merged(candidates[picks], n)


def _priority_sample(
    candidates: OwnersArray, lik: npt.NDArray[np.float64], n: int, rng: np.random.Generator
) -> Worlds:
    """``n`` distinct worlds of ``candidates`` by priority sampling (see :func:`sample_worlds`)."""
    unique, inverse = _unique_rows(candidates)
    mass = np.bincount(inverse, weights=lik, minlength=len(unique))
    keep = np.flatnonzero(mass > 0)
    unique, mass = unique[keep], mass[keep]
    # One uniform per candidate, drawn whatever the count, so the stream of draws is the same.
    u = 1.0 - rng.random(len(unique))  # in (0, 1]
    if len(unique) <= n:
        return Worlds(unique.astype(np.uint8), mass / mass.sum())
    priority = mass / u
    order = np.argsort(-priority, kind="stable")
    top, threshold = order[:n], priority[order[n]]
    weights = np.maximum(mass[top], threshold)
    return Worlds(unique[top].astype(np.uint8), weights / weights.sum())


def _unique_rows(owners: OwnersArray) -> tuple[OwnersArray, npt.NDArray[np.intp]]:
    """``np.unique(owners, axis=0, return_inverse=True)``, the same rows in the same order,
    several times faster: each deal's seats (0 to 3, two bits a card) packed into two integers
    that sort as the rows do."""
    bits = np.asarray(owners, dtype=np.uint64)
    weights = np.uint64(4) ** np.arange(25, -1, -1, dtype=np.uint64)
    high, low = bits[:, :26] @ weights, bits[:, 26:] @ weights
    order = np.lexsort((low, high))
    high, low = high[order], low[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (high[1:] != high[:-1]) | (low[1:] != low[:-1])
    inverse = np.empty(len(order), dtype=np.intp)
    inverse[order] = np.cumsum(new) - 1
    return owners[order[new]], inverse


def _merged(owners: OwnersArray, n: int) -> Worlds:
    """Identical deals (likely late in the play, when few layouts remain) become one weighted
    world, so the solver never solves the same deal twice."""
    unique, inverse = _unique_rows(owners)
    counts = np.bincount(inverse, minlength=len(unique))
    return Worlds(unique.astype(np.uint8), counts.astype(np.float64) / n)


class _Splitter:
    """Counts and draws the split of each suit's unseen cards among the hidden seats."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.seats = knowledge.hidden
        self.capacity = tuple(knowledge.need[s] for s in self.seats)
        groups: list[npt.NDArray[np.int64]] = []
        allowed: list[tuple[bool, ...]] = []
        for suit in range(4):
            cards = np.flatnonzero(knowledge.fixed[suit * 13 : suit * 13 + 13] < 0) + suit * 13
            if len(cards) == 0:
                continue
            ok = tuple(not bool(knowledge.void[s, suit]) for s in self.seats)
            if not any(ok):
                raise InconsistentViewError(
                    f"{len(cards)} unseen cards of suit {suit} but every hidden seat is void in it"
                )
            groups.append(cards)
            allowed.append(ok)
        self.groups = groups
        self.allowed = allowed

        @cache
        def ways(g: int, cap: tuple[int, ...]) -> int:
            if g == len(self.groups):
                return 1 if not any(cap) else 0
            total = 0
            for split, mult in _splits(len(self.groups[g]), self.allowed[g], cap):
                rest = tuple(c - k for c, k in zip(cap, split, strict=True))
                total += mult * ways(g + 1, rest)
            return total

        self._ways = ways
        self.total = ways(0, self.capacity)
        if self.total == 0:
            raise InconsistentViewError("no deal is consistent with the cards and voids seen")
        self._tables: dict[
            tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], npt.NDArray[np.float64]]
        ] = {}

    @staticmethod
    def of(knowledge: Knowledge) -> _Splitter:
        return _Splitter(knowledge)

    def draw(self, g: int, cap: tuple[int, ...], rng: np.random.Generator) -> tuple[int, ...]:
        options, cumulative = self.table(g, cap)
        pick = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
        return options[min(pick, len(options) - 1)]

    def table(
        self, g: int, cap: tuple[int, ...]
    ) -> tuple[list[tuple[int, ...]], npt.NDArray[np.float64]]:
        """Suit group ``g``'s splits among the hidden seats, given their capacities ``cap``, and
        the cumulative probability of each (deals consistent with each, counted)."""
        key = (g, cap)
        table = self._tables.get(key)
        if table is None:
            options: list[tuple[int, ...]] = []
            weights: list[int] = []
            for split, mult in _splits(len(self.groups[g]), self.allowed[g], cap):
                rest = tuple(c - k for c, k in zip(cap, split, strict=True))
                w = mult * self._ways(g + 1, rest)
                if w:
                    options.append(split)
                    weights.append(w)
            total = sum(weights)
            cumulative = np.cumsum([w / total for w in weights])
            table = (options, cumulative)
            self._tables[key] = table
        return table


@cache
def _splits(
    n: int, allowed: tuple[bool, ...], cap: tuple[int, ...]
) -> list[tuple[tuple[int, ...], int]]:
    """Every way to give ``n`` cards to the allowed seats within ``cap``, with its multinomial
    (memoised: the same few arguments recur at every card; callers must not change the list)."""
    out: list[tuple[tuple[int, ...], int]] = []

    def rec(i: int, left: int, acc: tuple[int, ...]) -> None:
        if i == len(cap) - 1:
            if left <= cap[i] and (allowed[i] or left == 0):
                split = (*acc, left)
                mult = math.factorial(n)
                for k in split:
                    mult //= math.factorial(k)
                out.append((split, mult))
            return
        top = min(left, cap[i]) if allowed[i] else 0
        for k in range(top + 1):
            rec(i + 1, left - k, (*acc, k))

    if not cap:
        return [((), 1)] if n == 0 else []
    rec(0, n, ())
    return out


#: The policy card play weighs its worlds by: the one protocol of a policy's logits (the name
#: :mod:`engine.cardplay` imports).
CallModel = BatchPolicy


def policy_auction_likelihood(model: BatchPolicy, view: PlayView) -> AuctionLikelihood:
    """The likelihood of ``view``'s auction in each world under a bidding policy.

    For each world, the product over the calls made by the other seats of the policy's probability
    of that call given the caller's hand in that world and the auction before it (computed by
    :func:`engine.likelihood.auction_log_likelihood`, the bidding search's particle filter, so
    the two agree). Dummy's calls are included although dummy's hand is known during play: they give
    the same factor in every world, which the resampling normalises away. Scaled so the likeliest
    world has likelihood 1.
    """
    history = np.array([bid_index(c) for c in view.auction], dtype=np.int64)
    vul = int(view.vul.value)

    def likelihood(worlds: OwnersArray) -> npt.NDArray[np.float64]:
        log_lik = auction_log_likelihood(
            model, worlds, view.dealer.value, vul, history, view.controller.value
        )
        if len(log_lik) == 0:
            return log_lik
        out: npt.NDArray[np.float64] = np.exp(log_lik - log_lik.max())
        return out

    return likelihood
