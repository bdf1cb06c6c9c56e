"""The double-dummy cost of played cards: how many tricks each card gave away against
double-dummy play from the position it was played in.

For every card of a played deal, the position just before it (the cards every seat still held,
the trick so far, trump) is solved double-dummy for the side to move: the best legal card keeps
``best`` tricks for that side, the card played keeps ``kept``; its cost is ``best - kept`` (0 for
a card as good as the best, and for a forced card). Costs add up along a side's cards to the
tricks its play lost against double-dummy play by itself, the other side's cards as played (a
low-noise reading of card play: no luck of the lie, no luck of the other side's errors). Every
solve goes through :mod:`engine.dds`, all positions of a deal in one batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from bridgebot.engine.dds import Position, SolverError, solve_positions
from bridgebot.laws.cards import card_index
from bridgebot.laws.play import trick_winner
from endplay.types import Card, Contract, Player

Played = Sequence[tuple[Player, Card]]


@dataclass(frozen=True)
class CardCost:
    """One played card and what it cost its side against double-dummy play."""

    seat: Player
    card: Card
    cost: int
    """Tricks lost: the best legal card's double-dummy tricks minus this card's (>= 0)."""
    forced: bool
    """True where the seat had one legal card (its cost is 0 by construction)."""


def positions_before(
    owners: npt.NDArray[np.integer], contract: Contract, played: Played
) -> list[Position]:
    """The position before each card of ``played`` (a deal's cards in order from the opening
    lead) in the deal ``owners`` (seat per card index, as dealt)."""
    remaining = np.asarray(owners, dtype=np.int64).copy()
    trump = contract.denom
    leader = contract.declarer.lho
    out: list[Position] = []
    trick: list[Card] = []
    for seat, card in played:
        if seat.value != (leader.value + len(trick)) % 4:
            raise ValueError(f"{seat.name} played {card} out of turn")
        out.append(
            Position(
                remaining=tuple(int(x) for x in remaining),
                trump=trump.value,
                leader=leader.value,
                trick=tuple(card_index(c) for c in trick),
            )
        )
        trick.append(card)
        if len(trick) == 4:
            for c in trick:
                remaining[card_index(c)] = -1
            leader = trick_winner(leader, trick, trump)
            trick = []
    return out


def dd_costs(owners: npt.NDArray[np.integer], contract: Contract, played: Played) -> list[CardCost]:
    """The double-dummy cost of every card of ``played`` in ``contract`` on the deal ``owners``
    (see the module doc). Raises :class:`engine.dds.SolverError` where the solver has no score
    for a card played (a card its seat did not hold: a bug in the caller)."""
    positions = positions_before(owners, contract, played)
    tricks = solve_positions(positions) if positions else np.zeros((0, 52), np.int8)
    out: list[CardCost] = []
    for (seat, card), row in zip(played, tricks, strict=True):
        kept = int(row[card_index(card)])
        if kept < 0:
            raise SolverError(f"no double-dummy score for {seat.name}'s {card}")
        legal = row[row >= 0]
        out.append(CardCost(seat, card, int(legal.max()) - kept, forced=len(legal) == 1))
    return out


def side_costs(costs: Sequence[CardCost], declarer: Player) -> dict[str, int]:
    """Tricks lost by role: ``declarer`` (declarer's and dummy's cards), ``defence`` (both
    defenders' cards, the opening lead included) and ``lead`` (the opening lead alone)."""
    decl = sum(c.cost for c in costs if c.seat.value % 2 == declarer.value % 2)
    defence = sum(c.cost for c in costs if c.seat.value % 2 != declarer.value % 2)
    return {"declarer": decl, "defence": defence, "lead": costs[0].cost if costs else 0}
