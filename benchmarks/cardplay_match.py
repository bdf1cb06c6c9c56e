"""One board of the card-play yardstick: two card players on a fixed contract, in four rooms.

The contract and its auction are fixed before any card is played (``bench_cardplay.py`` bids
them). Player A is the one measured, B the reference it is paired against; each seat's player
is seeded by the seat alone, so A and B at a seat draw the same worlds until their choices
differ (common random numbers), and A against itself reads exactly 0. The rooms, each played
through ``engine.cardplay.play_deal``:

* ``AB``: A declares (declarer and dummy), B defends; ``BA``: B declares, A defends. A's IMPs on
  the board are the declaring side's score in AB minus its score in BA (both boards swapped, the
  luck of the deal cancels);
* ``BB``: B in all four seats, the reference room, the same for every A (played once per
  reference, :func:`reference_room`). A's declarer play gains ``imps(AB - BB)``, its defence
  ``imps(BB - BA)``;
* ``BL``: as BB but A makes the opening lead: the lead gains ``imps(BB - BL)``; played only where
  A's lead (BA's first card) differs from B's (BB's), else it is BB and gains 0.

Each player's cards in AB and BA are costed double-dummy (``engine.cardplay_cost``): tricks lost
as declarer, as defenders, and by the opening lead, the low-noise reading. Each decision's CPU
time (``time.process_time``, the solver's threads included) is kept per player.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bridgebot.engine.agent import CardPlayer, PlayView, play_view
from bridgebot.engine.cardplay import play_deal
from bridgebot.engine.cardplay_cost import dd_costs, positions_before, side_costs
from bridgebot.engine.dds import solve_positions
from bridgebot.laws.boards import BoardDeal, side_vulnerable
from bridgebot.laws.cards import card_index, deal_owners
from bridgebot.laws.notation import contract_text
from bridgebot.laws.scoring import contract_score, imps
from endplay.types import Bid, Card, Contract, Player

Chooser = Callable[[PlayView], Card]
Played = tuple[tuple[Player, Card], ...]


def seat_seed(seed: int, seat: int) -> int:
    """The seed of the player at ``seat``: the same for A and B (common random numbers)."""
    return seed * 4 + seat


class Seats:
    """One card player per seat, built by ``make(spec, seed)`` on first use, closed by
    :meth:`close`; ``times`` collects the CPU seconds of each decision."""

    def __init__(self, spec: str, seed: int, make: Callable[[str, int], CardPlayer]) -> None:
        self.spec = spec
        self.seed = seed
        self.make = make
        self.players: dict[int, CardPlayer] = {}
        self.times: list[float] = []

    def chooser(self, seat: Player, board: int) -> Chooser:
        """The timed chooser of ``seat``'s player, reset for ``board``."""
        player = self.players.get(seat.value)
        if player is None:
            player = self.players[seat.value] = self.make(
                self.spec, seat_seed(self.seed, seat.value)
            )
        player.reset(board)

        def choose(view: PlayView) -> Card:
            t = time.process_time()
            card = player.play(view)
            self.times.append(time.process_time() - t)
            return card

        return choose

    def close(self) -> None:
        for player in self.players.values():
            player.close()
        self.players.clear()


@dataclass(frozen=True)
class Room:
    """A room's result: declarer's tricks and the cards played."""

    tricks: int
    played: Played


def play_room(
    deal: BoardDeal,
    auction: Sequence[Bid],
    contract: Contract,
    declaring: Seats,
    defending: Seats,
    lead: Seats | None = None,
) -> Room:
    """``deal`` played in ``contract``: ``declaring``'s players at declarer's seat (dummy's cards
    too), ``defending``'s at the defenders'; with ``lead``, the opening leader's first card is
    ``lead``'s player's, its later ones ``defending``'s."""
    side = contract.declarer.value % 2
    choosers = [
        (declaring if p.value % 2 == side else defending).chooser(p, deal.number) for p in Player
    ]
    if lead is not None:
        leader = contract.declarer.lho
        first, rest = lead.chooser(leader, deal.number), choosers[leader.value]

        def opening(view: PlayView) -> Card:
            return first(view) if not view.played else rest(view)

        choosers[leader.value] = opening
    tricks, played = play_deal(
        deal.deal,
        contract,
        choosers,
        vul=deal.vul,
        dealer=deal.dealer,
        board=deal.number,
        auction=auction,
    )
    return Room(tricks, played)


def declarer_score(contract: Contract, tricks: int, deal: BoardDeal) -> int:
    """The declaring side's duplicate score."""
    vulnerable = side_vulnerable(deal.vul, contract.declarer)
    return contract_score(contract.level, contract.denom, contract.penalty, vulnerable, tricks)


def reference_room(
    deal: BoardDeal, auction: Sequence[Bid], contract: Contract, b: Seats
) -> dict[str, Any]:
    """Room BB (see the module doc) as a record: tricks and B's opening lead."""
    room = play_room(deal, auction, contract, b, b)
    return {"tricks": room.tricks, "lead": str(room.played[0][1])}


def paired_board(
    deal: BoardDeal,
    auction: Sequence[Bid],
    contract: Contract,
    a: Seats,
    b: Seats,
    reference: dict[str, Any],
) -> dict[str, Any]:
    """One board's record: the rooms' tricks, A's IMPs (total and by role, see the module doc)
    and each player's double-dummy cost by role; ``reference`` is :func:`reference_room`'s."""
    ab = play_room(deal, auction, contract, a, b)
    ba = play_room(deal, auction, contract, b, a)
    a_lead = str(ba.played[0][1])
    bl = reference["tricks"]
    if a_lead != reference["lead"]:
        bl = play_room(deal, auction, contract, b, b, lead=a).tricks

    def score(tricks: int) -> int:
        return declarer_score(contract, tricks, deal)

    bb = reference["tricks"]
    owners = deal_owners(deal.deal)
    cost_ab = side_costs(dd_costs(owners, contract, ab.played), contract.declarer)
    cost_ba = side_costs(dd_costs(owners, contract, ba.played), contract.declarer)
    return {
        "board": deal.number,
        "contract": contract_text(contract),
        "tricks": {"AB": ab.tricks, "BA": ba.tricks, "BB": bb, "BL": bl},
        "leads": {"A": a_lead, "B": reference["lead"]},
        "imps": {
            "total": imps(score(ab.tricks) - score(ba.tricks)),
            "declarer": imps(score(ab.tricks) - score(bb)),
            "defence": imps(score(bb) - score(ba.tricks)),
            "lead": imps(score(bb) - score(bl)),
        },
        "cost": {
            "A": {
                "declarer": cost_ab["declarer"],
                "defence": cost_ba["defence"],
                "lead": cost_ba["lead"],
            },
            "B": {
                "declarer": cost_ba["declarer"],
                "defence": cost_ab["defence"],
                "lead": cost_ab["lead"],
            },
        },
    }


def leads_board(
    deal: BoardDeal, auction: Sequence[Bid], contract: Contract, a: Seats, b: Seats
) -> dict[str, Any]:
    """The opening leads alone (``bench_cardplay.py --leads-only``): A's and B's lead from the
    same view, each costed double-dummy on the real deal (one solve of the opening position),
    with no card played after it. The low-noise screen of a lead, at a 26th of a board's work."""
    leader = contract.declarer.lho
    view = play_view(
        seat=leader,
        controller=leader,
        dealer=deal.dealer,
        vul=deal.vul,
        auction=auction,
        contract=contract,
        hand=deal.deal[leader],
        dummy=None,
        played=(),
        board=deal.number,
    )
    leads = {who: seats.chooser(leader, deal.number)(view) for who, seats in (("A", a), ("B", b))}
    owners = deal_owners(deal.deal)
    row = solve_positions(positions_before(owners, contract, [(leader, leads["A"])]))[0]
    best = int(row[row >= 0].max())
    return {
        "board": deal.number,
        "contract": contract_text(contract),
        "leads": {who: str(card) for who, card in leads.items()},
        "cost": {who: best - int(row[card_index(card)]) for who, card in leads.items()},
    }
