"""Slams by side: the chances each side had, the slams it bid, and what its contracts gave up.

A bot that never bids slams loses little against opponents that never bid them either; what it
gives up only shows against the cards themselves. This module scores each side of each room of a
double-dummy match against what its own two hands make (used by ``benchmarks/bench_slam.py``;
docs/evaluation.md, "Slams").

Definitions (a *side* is North-South or East-West; *S* the side, *O* the other side):

- S has a **slam chance** on a board when one of its two players, as declarer, takes 12 or more
  tricks double dummy in some strain; a **grand chance** at 13.
- S **bids a slam** in a room when the final contract is S's at the six or seven level; the slam
  **makes** when its declarer's double-dummy tricks reach ``level + 6``.
- The **best contract S could reach** in a room (:func:`reference`) is decided at the point of O's
  last bid, the highest contract bid O made in that room's auction (none when O bid nothing):
  the highest-scoring of (a) passing it, i.e. defending O's last bid undoubled (a score of 0 when
  O bid nothing: the board is passed out or S declares), and (b) every undoubled contract ranking
  above O's last bid that S makes double dummy, with either of S's players as declarer, scored at
  the board's vulnerability. It is what S would score by passing or by bidding on to the best
  contract that makes, once O has said its last word; when O declares, (a) is what S got by
  passing, so a preempt or a sacrifice that S could not outbid costs S nothing here.
- What S's contract **gives up** in a room is ``imps(result - reference)`` where ``result`` is
  the room's double-dummy score for S (whoever declared, doubles included): at most 0 when S
  passed, bid or defended worse than its reference, positive when it did better (a penalty double
  of O's contract, say, or O doubling S into a making contract).
- A failed slam is **misplaced** when S's cards make its level in another strain or with S's other
  player as declarer: the slam was there, the strain or the declarer was wrong.
- Each side-room falls in one of three kinds: a **failed slam** (S declared a slam that goes down);
  a **missed slam** (no failed slam, the reference is a slam, and S declared nothing or a lower
  level than it: missed grands are missed slams); the **rest**.

Scores come from :func:`laws.scoring.score_array` and tricks from the board's DD table; nothing
here scores a contract another way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from bridgebot.core.stats import mean_stderr
from bridgebot.laws.boards import side_vulnerable
from bridgebot.laws.calls import bid_rank, final_contract
from bridgebot.laws.scoring import imps, score_array, strain_index
from bridgebot.server.records import TableRecord
from bridgebot.tournament.records import BoardResult
from bridgebot.tournament.seatings import THEM, US, seatings
from endplay.types import Bid, ContractBid, Player, Vul

#: The level of a slam and of a grand.
SLAM, GRAND = 6, 7

DDTable = npt.NDArray[np.integer]


@dataclass(frozen=True)
class Reach:
    """A contract S could reach (``level`` 0: passing, defending O's last bid or passing out)."""

    score: int
    """S's double-dummy score for it, at the board's vulnerability."""
    level: int = 0
    strain: int = 0
    """0..4 = C, D, H, S, NT (the DD table's axis)."""
    declarer: Player | None = None


def side_of(seat: Player) -> int:
    """0 for North-South, 1 for East-West."""
    return seat.value % 2


def best_tricks(dd: DDTable, side: int) -> int:
    """The most tricks either player of ``side`` takes as declarer, in any strain."""
    return int(dd[[side, side + 2]].max())


def making_contracts(dd: DDTable, vul: Vul, side: int) -> list[Reach]:
    """Every undoubled contract ``side`` makes double dummy, with its better declarer, best first
    (equal scores: the lower contract first)."""
    declarers = (Player(side), Player(side + 2))
    tricks = np.asarray(dd)[[side, side + 2]].astype(np.int64)  # [declarer, strain]
    level = np.arange(1, 8).reshape(7, 1, 1)
    strain = np.arange(5).reshape(1, 5, 1)
    vulnerable = side_vulnerable(vul, declarers[0])
    scores = score_array(level, strain, 0, vulnerable, tricks.T.reshape(1, 5, 2))
    made = tricks.T.reshape(1, 5, 2) >= level + 6
    out = []
    for lv in range(7):
        for st in range(5):
            ok = [d for d in range(2) if made[lv, st, d]]
            if ok:
                d = max(ok, key=lambda d: int(scores[lv, st, d]))
                out.append(Reach(int(scores[lv, st, d]), lv + 1, st, declarers[d]))
    return sorted(out, key=lambda r: (-r.score, r.level, r.strain))


def last_bid_of(dealer: Player, auction: Sequence[Bid], side: int) -> tuple[int, int] | None:
    """Index in ``auction`` and bid rank of the last contract bid ``side`` made, if any."""
    for i in range(len(auction) - 1, -1, -1):
        call = auction[i]
        if isinstance(call, ContractBid) and side_of(Player((dealer.value + i) % 4)) == side:
            return i, bid_rank(call.level, strain_index(call.denom))
    return None


def passing_score(
    dd: DDTable, vul: Vul, side: int, dealer: Player, auction: Sequence[Bid]
) -> tuple[int, int]:
    """What ``side`` scores by passing the other side's last bid (defending it undoubled; 0 when
    the other side bid nothing), and that bid's rank (-1 for none)."""
    theirs = last_bid_of(dealer, auction, 1 - side)
    if theirs is None:
        return 0, -1
    index, above = theirs
    contract = final_contract(dealer, auction[: index + 1])
    assert contract is not None
    vulnerable = side_vulnerable(vul, contract.declarer)
    strain = strain_index(contract.denom)
    tricks = int(dd[contract.declarer.value, strain])
    return -int(score_array(contract.level, strain, 0, vulnerable, tricks)), above


def reference(dd: DDTable, vul: Vul, side: int, dealer: Player, auction: Sequence[Bid]) -> Reach:
    """The best contract ``side`` could reach in a room with this auction (module doc)."""
    floor, above = passing_score(dd, vul, side, dealer, auction)
    for reach in making_contracts(dd, vul, side):
        if bid_rank(reach.level, reach.strain) > above:
            return reach if reach.score > floor else Reach(floor)
    return Reach(floor)


@dataclass(frozen=True)
class SideRoom:
    """One side in one room: its chances, its contract and what the contract gave up."""

    side: int
    chance: bool
    """The side makes 12+ tricks DD (either declarer, some strain)."""
    grand_chance: bool
    level: int
    """The level of the side's final contract; 0 when the other side declared or all passed."""
    made: bool
    """The side declared and its contract makes DD."""
    reference: Reach
    imps: int
    """``imps(result - reference.score)``: negative when the contract gave IMPs up."""
    misplaced: bool = False
    """A failed slam whose level the side makes in another strain or by its other player."""

    @property
    def slam(self) -> bool:
        return self.level >= SLAM

    @property
    def grand(self) -> bool:
        return self.level == GRAND

    @property
    def kind(self) -> str:
        """``failed`` slam, ``missed`` slam, or ``rest`` (module doc)."""
        if self.slam and not self.made:
            return "failed"
        if self.reference.level >= SLAM and self.level < self.reference.level:
            return "missed"
        return "rest"


def side_room(record: TableRecord, dd: DDTable, side: int) -> SideRoom:
    """``side``'s figures in the room of ``record`` (a double-dummy-scored table record)."""
    dealer, vul = record.dealer_seat(), record.vulnerability()
    auction = record.calls()
    contract = record.final_contract()
    ours = contract is not None and side_of(contract.declarer) == side
    level = contract.level if contract is not None and ours else 0
    made = ours and record.tricks is not None and contract is not None and (
        record.tricks >= contract.level + 6
    )  # fmt: skip
    result = record.score() if side == 0 else -record.score()
    ref = reference(dd, vul, side, dealer, auction)
    tricks = best_tricks(dd, side)
    misplaced = level >= SLAM and not made and tricks >= level + 6
    return SideRoom(
        side, tricks >= 12, tricks >= 13, level, made, ref, imps(result - ref.score), misplaced
    )


@dataclass
class TeamSlams:
    """One team's slam figures over a match: per board (each board the team meets both sides of
    once, one in each room), so that means come with standard errors."""

    team: str
    boards: int = 0
    chances: int = 0
    grand_chances: int = 0
    bid_on_chance: int = 0
    slams: int = 0
    slams_made: int = 0
    grands: int = 0
    grands_made: int = 0
    slams_misplaced: int = 0
    missed: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    rest: list[int] = field(default_factory=list)
    """Per board, the IMPs the team's contracts gave up (negative) in each kind, both rooms summed."""

    def add(self, rooms: Sequence[SideRoom]) -> None:
        """One board: the team's side in each room."""
        self.boards += 1
        by_kind = {"missed": 0, "failed": 0, "rest": 0}
        for r in rooms:
            self.chances += r.chance
            self.grand_chances += r.grand_chance
            self.bid_on_chance += r.chance and r.slam
            self.slams += r.slam
            self.slams_made += r.slam and r.made
            self.grands += r.grand
            self.grands_made += r.grand and r.made
            self.slams_misplaced += r.misplaced
            by_kind[r.kind] += r.imps
        self.missed.append(by_kind["missed"])
        self.failed.append(by_kind["failed"])
        self.rest.append(by_kind["rest"])

    @property
    def total(self) -> list[int]:
        return [a + b + c for a, b, c in zip(self.missed, self.failed, self.rest, strict=True)]

    def as_dict(self) -> dict[str, object]:
        """The figures as JSON: counts, and each kind's IMPs per board with its standard error."""
        out: dict[str, object] = {
            k: getattr(self, k)
            for k in ("boards", "chances", "grand_chances", "bid_on_chance", "slams",
                      "slams_made", "grands", "grands_made", "slams_misplaced")
        }  # fmt: skip
        for kind in ("missed", "failed", "rest", "total"):
            values: list[int] = getattr(self, kind)
            per_board, se = mean_stderr(values)
            out[kind] = {"imps": sum(values), "per_board": per_board, "se": se}
        return out


def room_has_slam(record: TableRecord) -> bool:
    contract = record.final_contract()
    return contract is not None and contract.level >= SLAM


@dataclass(frozen=True)
class MatchSlams:
    """A team match's slam figures: each team's, and per board the IMPs for ``us`` and whether
    exactly one room bid a slam (by either side)."""

    teams: dict[str, TeamSlams]
    imps: list[int]
    one_room: list[bool]

    @property
    def one_room_imps(self) -> list[int]:
        """Per board, the IMPs for ``us`` when only one room bid a slam, else 0."""
        return [i if o else 0 for i, o in zip(self.imps, self.one_room, strict=True)]


def slam_figures(boards: Sequence[BoardResult], tables: Sequence[DDTable]) -> MatchSlams:
    """The slam figures of a team match (``tournament.seatings``' ``team``) over ``boards``, with
    ``tables`` their DD tables in order."""
    teams = {s.room: s.teams for s in seatings("team")}
    out = {US: TeamSlams(US), THEM: TeamSlams(THEM)}
    for board, dd in zip(boards, tables, strict=True):
        for team in (US, THEM):
            out[team].add(
                [side_room(r, dd, 0 if teams[r.room][0] == team else 1) for r in board.rooms]
            )
    return MatchSlams(
        teams=out,
        imps=[b.imps for b in boards],
        one_room=[sum(map(room_has_slam, b.rooms)) == 1 for b in boards],
    )
