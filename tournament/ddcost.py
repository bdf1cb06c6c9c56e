"""Real play costed double-dummy in a match (``bridgebot match --scoring play --dd-cost``).

Every card of a room played to a contract is costed by :mod:`engine.cardplay_cost` (the real
solver, one solve of each position before a card, a deal's positions in one batch): the tricks it
gave away against double-dummy play from where it was played. A room's cards add up by role
(:class:`tournament.records.RoleCost`: declarer's and dummy's, the defenders', the opening lead),
and, since the costs are exact, declarer's tricks are the deal's double-dummy tricks for the
contract at the start plus the defence's cost minus declarer's.

The costs are a function of the room's record alone (deal, contract, declarer, cards played), so
they are computed where the board is played (the board stream that plays it, before the board is
journaled: :func:`tournament.rooms.play_rooms`) and, for boards a journal holds without them, on
the match's driver when it resumes (:func:`tournament.match.run_match`).

Sides are the team format's pairs: a room's declarer cost belongs to the declaring pair, its
defence and lead to the other; on each board a side's cost in a role is the sum over the rooms
where it played that role, so the two sides are compared board by board
(:func:`cost_summary`).
"""

from __future__ import annotations

from collections.abc import Sequence

from bridgebot.core.stats import finite, mean_stderr
from bridgebot.engine.cardplay_cost import dd_costs, side_costs
from bridgebot.laws.cards import card_index, deal_owners
from bridgebot.server.records import TableRecord
from bridgebot.tournament.records import (
    BoardResult,
    CostSummary,
    MeanError,
    RoleCost,
    RoleMeans,
    SideCost,
)
from bridgebot.tournament.seatings import THEM, US, seatings
from endplay.types import Player

#: The roles of :class:`RoleMeans`, in the order they are printed.
ROLES = ("declarer", "defence", "lead", "total")
#: The only format whose rooms seat two pairs, one a side (``match`` refuses ``--dd-cost`` with
#: another).
COSTED_FORMAT = "team"


class CostError(ValueError):
    """A room whose cards cannot be costed: not a complete play of its contract."""


def room_cost(room: TableRecord) -> RoleCost | None:
    """The double-dummy cost by role of ``room``'s cards; None for a room without a contract.
    Raises :class:`CostError` where the room's play is not the 52 cards of its contract, played
    in turn from the opening lead (an aborted board; a record altered by hand)."""
    contract = room.final_contract()
    if contract is None:
        return None
    owners = deal_owners(room.deal)
    cards = room.cards()
    if len(cards) != 52:
        raise CostError(
            f"board {room.board}, room {room.room}: {len(cards)} cards played, not 52; only a "
            "board played to its end is costed"
        )
    played = [(Player(int(owners[card_index(c)])), c) for c in cards]
    try:
        costs = dd_costs(owners, contract, played)
    except ValueError as exc:  # a card out of turn
        raise CostError(f"board {room.board}, room {room.room}: {exc}") from None
    return RoleCost(**side_costs(costs, contract.declarer))


def with_costs(board: BoardResult) -> BoardResult:
    """``board`` with every room that played a contract costed (:func:`room_cost`)."""
    costs = {r.room: room_cost(r) for r in board.rooms}
    return board.model_copy(
        update={"dd_cost": {room: c for room, c in costs.items() if c is not None}}
    )


def costed_rooms(board: BoardResult) -> list[TableRecord]:
    """The rooms of ``board`` whose play was costed, in the board's order."""
    return [r for r in board.rooms if board.dd_cost is not None and r.room in board.dd_cost]


def _mean(values: Sequence[float]) -> MeanError:
    mean, se = mean_stderr(values)
    return MeanError(mean=finite(mean), stderr=finite(se))


def _means(rows: Sequence[dict[str, int]]) -> RoleMeans:
    return RoleMeans(**{role: _mean([r[role] for r in rows]) for role in ROLES})


def cost_summary(fmt: str, boards: Sequence[BoardResult]) -> CostSummary | None:
    """Each side's double-dummy cost per board and role, and us minus them paired by board
    (:class:`CostSummary`), over the boards played to a contract in some room; None unless the
    match was costed: a team match whose every board carries its costs (a match run without
    ``--dd-cost``, or resumed without it, has none or only some)."""
    if fmt != COSTED_FORMAT or not boards or any(b.dd_cost is None for b in boards):
        return None
    teams = {s.room: s.teams for s in seatings(fmt)}
    rows: dict[str, list[dict[str, int]]] = {US: [], THEM: []}
    count = {US: {"declared": 0, "defended": 0}, THEM: {"declared": 0, "defended": 0}}
    for b in boards:
        rooms = costed_rooms(b)
        if not rooms or b.dd_cost is None:
            continue
        per = {side: dict.fromkeys(ROLES, 0) for side in (US, THEM)}
        for room in rooms:
            cost = b.dd_cost[room.room]
            declaring = teams[room.room][Player.find(room.declarer or "").value]
            defending = THEM if declaring == US else US
            per[declaring]["declarer"] += cost.declarer
            per[defending]["defence"] += cost.defence
            per[defending]["lead"] += cost.lead
            count[declaring]["declared"] += 1
            count[defending]["defended"] += 1
        for side in (US, THEM):
            per[side]["total"] = per[side]["declarer"] + per[side]["defence"]
            rows[side].append(per[side])
    diff = [{k: u[k] - t[k] for k in ROLES} for u, t in zip(rows[US], rows[THEM], strict=True)]

    def side_cost(name: str) -> SideCost:
        means = _means(rows[name])
        return SideCost(
            declarer=means.declarer,
            defence=means.defence,
            lead=means.lead,
            total=means.total,
            declared=count[name]["declared"],
            defended=count[name]["defended"],
        )

    return CostSummary(
        boards=len(diff), us=side_cost(US), them=side_cost(THEM), difference=_means(diff)
    )


def _text(m: MeanError, sign: str = "") -> str:
    if m.mean is None:
        return "-"
    spread = f" ± {m.stderr:.2f}" if m.stderr is not None else ""
    return f"{m.mean:{sign}.2f}{spread}"


def cost_lines(costs: CostSummary, us: str, them: str) -> list[str]:
    """What ``match`` prints of ``costs`` (``us`` and ``them`` name the sides): a heading and
    one line a side, then the difference."""
    lines = [
        f"double-dummy cost of the cards, tricks/board over {costs.boards} costed boards "
        "(mean ± s.e.):"
    ]
    for label, name, c in (("us", us, costs.us), ("them", them, costs.them)):
        roles = ", ".join(f"{role} {_text(getattr(c, role))}" for role in ROLES)
        lines.append(
            f"  {label} {name}: {roles} (declared {c.declared} rooms, defended {c.defended})"
        )
    diff = ", ".join(f"{role} {_text(getattr(costs.difference, role), '+')}" for role in ROLES)
    lines.append(f"  us minus them: {diff}")
    return lines
