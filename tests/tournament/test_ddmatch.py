"""The in-process double-dummy match: hand-computed boards, batch path, formats, bad agents."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from bridgebot.engine.agent import Agent, BatchBidder, BiddingView, PlayView
from bridgebot.laws.board_sets import load_npz
from bridgebot.laws.boards import cycle_board
from bridgebot.laws.calls import same_call
from bridgebot.tournament.ddmatch import IllegalCallError, play_dd_boards, run_dd_match
from bridgebot.tournament.ddtables import solve_dd
from endplay.types import Bid, Card, Contract, Player, Vul

from bridgebot.agents import make_agent

# Deal 0 of a development set of random deals and its table (N, E, S, W x C, D, H, S, NT) as stored there.
DEAL = "N:98763.83.96.AQT8 AK5.QT95.KT2.K64 Q42.KJ62.753.J93 JT.A74.AQJ84.752"
DD = np.array(
    [[5, 2, 2, 7, 2], [8, 10, 9, 6, 9], [5, 2, 2, 7, 2], [8, 10, 9, 6, 9]], dtype=np.uint8
)


class Opener(Agent):
    """A scripted peer: makes ``call`` at its first turn (if legal), passes otherwise."""

    def __init__(self, call: str | None, name: str = "scripted") -> None:
        self.call = None if call is None else Bid(call)
        self.name = name

    def reset(self, board: int) -> None:
        return None

    def bid(self, view: BiddingView) -> Bid:
        mine = len(view.auction) < 4
        if self.call is not None and mine and any(same_call(self.call, c) for c in view.legal):
            return self.call
        return view.legal[0]

    def play(self, view: PlayView) -> Card:
        raise NotImplementedError("bidding only")


class BatchOpener(Opener, BatchBidder):
    """The same decisions through the batch interface."""

    def __init__(self, call: str | None, name: str = "scripted") -> None:
        super().__init__(call, name)
        self.batches: list[int] = []

    def bid_batch(self, views: Sequence[BiddingView]) -> list[Bid]:
        self.batches.append(len(views))
        return [self.bid(v) for v in views]


def test_solver_agrees_with_the_stored_table() -> None:
    assert solve_dd(DEAL).tolist() == DD.tolist()


def test_hand_computed_board() -> None:
    board = cycle_board(1, DEAL, DD)  # North deals, nobody vulnerable
    passer = Opener(None)
    agents: dict[str, tuple[Agent, Agent, Agent, Agent]] = {
        # open room: us North-South; North opens 3NT and takes 2 tricks double-dummy: -350
        "open": (Opener("3NT"), passer, passer, passer),
        # closed room: us East-West; East opens 4H and takes 9 tricks: 4H-1, +50 to North-South
        "closed": (passer, Opener("4H"), passer, passer),
    }
    (result,) = play_dd_boards([board], "team", "us", "them", agents)
    open_room, closed = result.room("open"), result.room("closed")
    assert (open_room.contract, open_room.declarer, open_room.tricks) == ("3NT", "N", 2)
    assert (closed.contract, closed.declarer, closed.tricks) == ("4H", "E", 9)
    assert (open_room.score_ns, closed.score_ns) == (-350, 50)
    assert open_room.auction == ("3NT", "Pass", "Pass", "Pass")
    assert open_room.seats == ("us", "them", "us", "them")
    assert result.imps == -9  # 400 points: 9 IMPs


def test_vulnerability_from_the_board_number() -> None:
    board = cycle_board(4, DEAL, DD)  # board 4: West deals, both vulnerable
    passer = Opener(None)
    agents: dict[str, tuple[Agent, Agent, Agent, Agent]] = {
        "open": (passer, Opener("2S"), passer, passer),  # 2S by East: 6 tricks, -200 vul
        "closed": (passer, passer, passer, passer),
    }
    (result,) = play_dd_boards([board], "team", "us", "them", agents)
    assert result.room("open").auction == ("Pass", "Pass", "2S", "Pass", "Pass", "Pass")
    assert result.room("open").score_ns == 200
    assert result.room("closed").contract is None
    assert result.imps == 5


def test_batch_path_equals_per_call_path_and_batches() -> None:
    deals = [cycle_board(k, DEAL, DD) for k in range(1, 9)]
    plain = play_dd_boards(
        deals,
        "team",
        "us",
        "them",
        {r: (Opener("1NT"), Opener("2H"), Opener("3C"), Opener(None)) for r in ("open", "closed")},
    )
    batch_north = BatchOpener("1NT")
    batched = play_dd_boards(
        deals,
        "team",
        "us",
        "them",
        {
            r: (batch_north, BatchOpener("2H"), BatchOpener("3C"), BatchOpener(None))
            for r in ("open", "closed")
        },
    )
    assert [b.model_dump() for b in plain] == [b.model_dump() for b in batched]
    assert max(batch_north.batches) > 1


def test_scores_agree_with_endplay_for_random_agents(solved_npz: object) -> None:
    from pathlib import Path

    assert isinstance(solved_npz, Path)
    deals = load_npz(solved_npz)
    result = run_dd_match(
        "random", "random,pass_bias=0.3", deals, boards=8, seed=5, make_agent=make_agent
    )
    assert len(result.boards) == 8
    for b, deal in zip(result.boards, deals, strict=True):
        for room in b.rooms:
            contract = room.final_contract()
            if contract is None:
                assert room.score_ns == 0
                continue
            assert deal.dd is not None
            tricks = int(deal.dd[contract.declarer.value, [3, 2, 1, 0, 4][contract.denom.value]])
            assert room.tricks == tricks
            ref = Contract(
                level=contract.level,
                denom=contract.denom,
                declarer=contract.declarer,
                penalty=contract.penalty,
                result=tricks - contract.level - 6,
            ).score(deal.vul)
            ns = contract.declarer in (Player.north, Player.south)
            assert room.score_ns == (ref if ns else -ref)
    assert result.imps_per_board == pytest.approx(sum(result.imps) / 8)


def test_compatible_format_with_identical_agents_is_zero() -> None:
    deals = [cycle_board(k, DEAL, DD) for k in range(1, 5)]
    result = run_dd_match(
        "random,seed=3,pass_bias=1",
        "random,seed=3,pass_bias=1",
        deals,
        fmt="compatible",
        make_agent=make_agent,
    )
    assert [r.room for r in result.boards[0].rooms] == ["ref", "N", "E", "S", "W"]
    assert result.imps == [0, 0, 0, 0]
    assert all(b.passed_out for b in result.boards)


def test_compatible_format_counts_each_seat_with_its_sign() -> None:
    board = cycle_board(1, DEAL, DD)
    passer = Opener(None)
    agents: dict[str, tuple[Agent, Agent, Agent, Agent]] = {
        "ref": (passer, passer, passer, passer),
        "N": (Opener("3NT"), passer, passer, passer),  # NS -350: IMP(-350) = -8
        "E": (passer, Opener("4H"), passer, passer),  # NS +50: minus IMP(+50) = -2
        "S": (passer, passer, passer, passer),
        "W": (passer, passer, passer, passer),
    }
    (result,) = play_dd_boards([board], "compatible", "us", "them", agents)
    assert result.imps == -10


def test_illegal_call_names_the_agent_and_board() -> None:
    board = cycle_board(
        2,
        DEAL,
        DD,
    )
    bad = Opener("1C", name="stubborn")
    bad.bid = lambda view: Bid("1C")  # type: ignore[method-assign]
    agents: dict[str, tuple[Agent, Agent, Agent, Agent]] = {
        r: (Opener(None), Opener("2C"), bad, Opener(None)) for r in ("open", "closed")
    }
    with pytest.raises(IllegalCallError, match=r"board 2, room open: agent stubborn at south"):
        play_dd_boards([board], "team", "us", "them", agents)


def test_vul_of_cycle() -> None:
    assert cycle_board(2, DEAL).vul == Vul.ns
    assert cycle_board(2, DEAL).dealer == Player.east
