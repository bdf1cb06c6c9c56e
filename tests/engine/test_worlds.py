"""World sampling: every sampled deal agrees with everything the player has seen, uniformly."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.agent import PlayView
from bridgebot.engine.cardplay import play_deal
from bridgebot.engine.worlds import (
    InconsistentViewError,
    Knowledge,
    policy_auction_likelihood,
    sample_worlds,
)
from bridgebot.laws.calls import PASS
from bridgebot.laws.cards import card_index, owners_pbn
from bridgebot.laws.deals import random_owners
from endplay.types import Card, Contract, ContractBid, Deal, Denom, Player, Vul
from hypothesis import given, settings
from hypothesis import strategies as st

STRAINS = ("C", "D", "H", "S", "NT")


def random_view(seed: int, cards_played: int) -> tuple[np.ndarray, PlayView]:
    """A random deal played at random to ``cards_played`` cards; the view of the next card."""
    rng = np.random.default_rng(seed)
    owners = random_owners(seed, 0)
    contract = Contract(f"{rng.integers(1, 8)}{STRAINS[rng.integers(5)]}{'NESW'[rng.integers(4)]}")
    views: list[PlayView] = []

    def chooser(view: PlayView) -> Card:
        views.append(view)
        return view.legal[int(rng.integers(len(view.legal)))]

    play_deal(Deal(owners_pbn(owners)), contract, [chooser] * 4)
    return owners, views[cards_played]


def check_world(world: np.ndarray, view: PlayView, knowledge: Knowledge) -> None:
    assert np.bincount(world, minlength=4).tolist() == [13, 13, 13, 13]
    known = knowledge.fixed >= 0
    assert np.array_equal(world[known], knowledge.fixed[known])
    for c in view.hand:
        assert world[card_index(c)] == view.controller.value
    for c in view.dummy or ():
        assert world[card_index(c)] == view.dummy_seat.value
    played = {card_index(c) for _, c in view.played}
    for seat, card in view.played:
        assert world[card_index(card)] == seat.value
    for seat in range(4):
        for suit in range(4):
            if knowledge.void[seat, suit]:
                still_held = [
                    i
                    for i in range(suit * 13, suit * 13 + 13)
                    if world[i] == seat and i not in played
                ]
                assert still_held == [], f"seat {seat} showed out of suit {suit}"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cards_played=st.integers(0, 51))
def test_sampled_worlds_respect_every_constraint(seed: int, cards_played: int) -> None:
    owners, view = random_view(seed, cards_played)
    knowledge = Knowledge.from_view(view)
    check_world(owners.astype(np.uint8), view, knowledge)  # the real deal is consistent
    assert knowledge.count() >= 1
    worlds = sample_worlds(knowledge, 8, np.random.default_rng(seed))
    assert 1 <= len(worlds) <= 8
    assert len({w.tobytes() for w in worlds.owners}) == len(worlds)  # duplicates merged
    assert worlds.weights.sum() == pytest.approx(1.0)
    for world in worlds.owners:
        check_world(world, view, knowledge)
    for world in knowledge.sample_many(8, np.random.default_rng(seed)):  # the array sampler
        check_world(world, view, knowledge)


def brute_force(knowledge: Knowledge) -> list[tuple[int, ...]]:
    """Every consistent assignment of the unseen cards, by enumeration."""
    unseen = [i for i in range(52) if knowledge.fixed[i] < 0]
    seats = knowledge.hidden
    found = []
    for labels in itertools.product(seats, repeat=len(unseen)):
        counts = Counter(labels)
        if any(counts[s] != knowledge.need[s] for s in seats):
            continue
        if any(knowledge.void[s, i // 13] for s, i in zip(labels, unseen, strict=True)):
            continue
        found.append(labels)
    return found


@pytest.mark.parametrize("many", [False, True], ids=["sample", "sample_many"])
@pytest.mark.parametrize("seed", [3, 11, 29, 47])
def test_late_positions_are_sampled_uniformly_over_the_exact_count(seed: int, many: bool) -> None:
    # Find a late position (few unseen cards) where some voids have shown up.
    for cards_played in range(38, 44):
        _, view = random_view(seed, cards_played)
        knowledge = Knowledge.from_view(view)
        if knowledge.void.any():
            break
    every = brute_force(knowledge)
    assert knowledge.count() == len(every)
    unseen = [i for i in range(52) if knowledge.fixed[i] < 0]
    draws = 300 * len(every)
    sample = knowledge.sample_many if many else knowledge.sample
    worlds = sample(draws, np.random.default_rng(seed))
    for world in worlds[:50]:
        check_world(world, view, knowledge)
    seen = Counter(tuple(int(x) for x in w[unseen]) for w in worlds)
    assert set(seen) == set(every)
    # Each of the k layouts ~ Binomial(draws, 1/k): 300 expected, sd < 18; allow 6 sd.
    assert max(abs(n - 300) for n in seen.values()) < 6 * np.sqrt(300)


def test_the_opening_leader_sees_three_hidden_hands() -> None:
    _, view = random_view(5, 0)
    knowledge = Knowledge.from_view(view)
    assert len(knowledge.hidden) == 3
    assert knowledge.count() == math.factorial(39) // math.factorial(13) ** 3
    worlds = sample_worlds(knowledge, 4, np.random.default_rng(0))
    for w in worlds.owners:
        check_world(w, view, knowledge)


def test_auction_likelihood_reweights_worlds() -> None:
    _, view = random_view(7, 4)  # dummy is down; two hidden hands
    knowledge = Knowledge.from_view(view)
    a, b = knowledge.hidden
    unseen = [i for i in range(52) if knowledge.fixed[i] < 0]
    marker = unseen[0]

    def only_a_holds_marker(worlds: np.ndarray) -> np.ndarray:
        return (worlds[:, marker] == a).astype(float)

    worlds = sample_worlds(knowledge, 16, np.random.default_rng(1), only_a_holds_marker)
    assert (worlds.owners[:, marker] == a).all()
    assert worlds.weights.sum() == pytest.approx(1.0)
    assert len({w.tobytes() for w in worlds.owners}) == len(worlds)  # duplicates merged

    def impossible(worlds: np.ndarray) -> np.ndarray:
        return np.zeros(len(worlds))

    fallback = sample_worlds(knowledge, 16, np.random.default_rng(1), impossible)
    assert 8 <= len(fallback) <= 16
    assert {int(x) for x in fallback.owners[:, marker]} == {a, b}

    with pytest.raises(ValueError, match="shape"):
        sample_worlds(knowledge, 4, np.random.default_rng(1), lambda w: np.ones(3))
    with pytest.raises(ValueError, match="negative"):
        sample_worlds(knowledge, 4, np.random.default_rng(1), lambda w: -np.ones(len(w)))


def test_distinct_worlds_keep_n_candidates_weighed_without_bias() -> None:
    """``distinct``: n distinct worlds (resampling repeats the likeliest), and the weighted mean
    of a function of the world is the likelihood-weighted mean of the candidates, unbiased."""
    _, view = random_view(5, 0)  # the opening lead: three hidden hands, no repeats
    knowledge = Knowledge.from_view(view)
    a = knowledge.hidden[0]
    unseen = [i for i in range(52) if knowledge.fixed[i] < 0]

    def favour_a(worlds: np.ndarray) -> np.ndarray:
        held = (worlds[:, unseen[:6]] == a).sum(axis=1)
        return np.exp(1.5 * held)

    resampled = sample_worlds(knowledge, 32, np.random.default_rng(4), favour_a, oversample=8)
    kept = sample_worlds(
        knowledge, 32, np.random.default_rng(4), favour_a, oversample=8, distinct=True
    )
    assert len(kept) == 32 > len(resampled)
    assert kept.weights.sum() == pytest.approx(1.0)
    for w in kept.owners:
        check_world(w, view, knowledge)

    def held_by_a(worlds: np.ndarray) -> np.ndarray:
        return (worlds[:, unseen[:6]] == a).sum(axis=1).astype(float)

    # Over many draws, the mean of the estimates is the likelihood-weighted mean of the
    # candidates they were drawn from, within the ratio estimator's small bias.
    from bridgebot.engine.worlds import _priority_sample

    candidates = knowledge.sample(64, np.random.default_rng(9))
    lik = favour_a(candidates)
    target = held_by_a(candidates) @ lik / lik.sum()
    estimates = []
    for seed in range(400):
        w = _priority_sample(candidates, lik, 16, np.random.default_rng(seed))
        estimates.append(held_by_a(w.owners) @ w.weights)
    assert abs(np.mean(estimates) - target) < 0.1
    assert abs(target - held_by_a(candidates).mean()) > 0.5  # the weights do move it


def test_a_view_whose_cards_do_not_add_up_is_refused() -> None:
    _, view = random_view(9, 6)
    short = view.hand.copy()
    short.remove(next(iter(view.hand)))
    broken = PlayView(
        seat=view.seat,
        controller=view.controller,
        dealer=view.dealer,
        vul=view.vul,
        auction=view.auction,
        contract=view.contract,
        hand=short,
        dummy=view.dummy,
        played=view.played,
        legal=view.legal,
        board=3,
    )
    with pytest.raises(InconsistentViewError, match="board 3"):
        Knowledge.from_view(broken)


def test_a_card_both_played_and_held_is_refused() -> None:
    _, view = random_view(13, 8)
    k = next(k for k, (seat, _) in enumerate(view.played) if seat != view.controller)
    seat, _ = view.played[k]
    played = list(view.played)
    played[k] = (seat, next(iter(view.hand)))
    bad = PlayView(
        seat=view.seat,
        controller=view.controller,
        dealer=view.dealer,
        vul=view.vul,
        auction=view.auction,
        contract=view.contract,
        hand=view.hand,
        dummy=view.dummy,
        played=tuple(played),
        legal=view.legal,
        board=4,
    )
    with pytest.raises(InconsistentViewError, match="already placed"):
        Knowledge.from_view(bad)


def test_a_bidding_policy_places_the_cards_its_auction_shows(tmp_path: Path) -> None:
    """A real ONNX policy that opens 1S exactly when holding the spade ace: after North passes
    and East opens 1S, every world the policy weights must give East the ace (uniform worlds
    put it with North or West two times in three)."""
    from tests.engine.test_search import spade_ace_policy

    policy = spade_ace_policy(tmp_path / "model")
    deal = Deal("N:KQ2.J32.K54.Q432 AJT9.AK4.QJT9.K5 8765.Q765.A3.AJ6 43.T98.8762.T987")
    south = deal[Player.south]
    view = PlayView(
        seat=Player.south,
        controller=Player.south,
        dealer=Player.north,
        vul=Vul.none,
        auction=(PASS, ContractBid(1, Denom.spades), PASS, PASS, PASS),
        contract=Contract("1SE"),
        hand=south,
        dummy=None,
        played=(),
        legal=tuple(south),
    )
    knowledge = Knowledge.from_view(view)
    ace = card_index(Card("SA"))
    uniform = sample_worlds(knowledge, 32, np.random.default_rng(2))
    assert {int(x) for x in uniform.owners[:, ace]} == {0, 1, 3}
    likelihood = policy_auction_likelihood(policy, view)
    weights = likelihood(uniform.owners)
    assert weights.max() == pytest.approx(1.0)
    assert (weights[uniform.owners[:, ace] != 1] < 1e-4).all()  # pass with the ace: e^-10
    posterior = sample_worlds(knowledge, 32, np.random.default_rng(2), likelihood)
    assert (posterior.owners[:, ace] == 1).all()
    for w in posterior.owners:
        check_world(w, view, knowledge)
    # The card player takes the model and still plays a legal card.
    from bridgebot.engine.cardplay import DDCardPlayer

    player = DDCardPlayer(lead_worlds=2, auction_model=policy)
    assert player.play(view) in view.legal
