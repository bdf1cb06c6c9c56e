"""The composition root: spec strings, option validation, the lifecycle of what it builds."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from bridgebot.core.arrays import IntArray
from bridgebot.engine.agent import BatchBidder, BiddingView, bidding_view
from bridgebot.engine.cardplay import AUCTION_LEAD_WORLDS, LEAD_WORLDS, WORLDS
from bridgebot.engine.doubles import PenaltyDoublesWrapper
from bridgebot.engine.parts import parts_of
from bridgebot.engine.pipeline import Step
from bridgebot.engine.policy import PolicyAgent
from bridgebot.engine.search import SearchAgent, SearchConfig, SearchWhereDoubled
from endplay.types import Bid, Deal, Hand, Player, Vul

from bridgebot import learned
from bridgebot.agent_options import DefaultOptions, SlamOptions
from bridgebot.agents import AgentSpec, AgentSpecError, make_agent
from bridgebot.card_players import LazyDDPlayer
from bridgebot.cli import main
from bridgebot.registry import REGISTRY

#: Spec strings in use in docs, scripts and configs: each must keep meaning what it means.
SPECS = [
    "random",
    "random,seed=3",
    "random,pass_bias=0.5",
    "bfg",
    "bfg,doubles=on",
    "default",
    "default,worlds=32,lead_worlds=16",
    "default,play=baseline",
    "default,doubled=policy",
    "policy:models/default",
    "policy:models/default,greedy=0,temperature=2",
    "search",
    "search:models/default,particles=64",
    "search,opponents=bfgnet+self",
    "search,dd=solver,sampler=uniform,filter=1",
]


@pytest.mark.parametrize("text", SPECS)
def test_specs_parse_and_read_back(text: str) -> None:
    spec = AgentSpec.parse(text)
    assert str(spec) == text
    assert spec.name in REGISTRY


def test_parsing_validates_without_building() -> None:
    options = AgentSpec.parse("search,particles=64,filter=yes,margin=0.5").options
    assert (options.particles, options.filter, options.margin) == (64, True, 0.5)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("search,particles=abc", "agent search: option particles must be an integer, not 'abc'"),
        ("search,samples=3", "agent search: unknown options ['samples']; it takes seed, "),
        ("search,dd=magic", "agent search: option dd must be 'net' or 'solver', not 'magic'"),
        ("search,rollouts=0", "agent search: option rollouts must be >= 1, not '0'"),
        ("random,pass_bias=2", "agent random: option pass_bias must be <= 1.0, not '2'"),
        ("random,pass_bias=", "agent random: option pass_bias must be a number, not ''"),
        ("random:somewhere", "agent random takes no path, got 'random:somewhere'"),
        ("default,worlds=0", "agent default: option worlds must be >= 1, not '0'"),
        (
            "default,play=fast",
            "agent default: option play must be 'dd', 'pimc', 'auction' or 'baseline', not 'fast'",
        ),
        ("policy", "agent policy needs a model path: policy:DIR or policy:FILE.onnx"),
        ("policy:m,greedy=maybe", "agent policy: option greedy must be 'on' or 'off', not 'maybe'"),
        ("bfg,doubles=maybe", "agent bfg: option doubles must be 'on' or 'off', not 'maybe'"),
        ("bfg,depth=3", "agent bfg takes no path and no options besides seed and doubles"),
        (
            "nobody",
            "unknown agent 'nobody'; known agents: bfg, default, epbot, policy, random, search",
        ),
        ("random,seed", "agent option 'seed' in 'random,seed' is not key=value"),
    ],
)
def test_a_bad_option_is_one_line_naming_agent_and_option(text: str, line: str) -> None:
    with pytest.raises(AgentSpecError) as caught:
        AgentSpec.parse(text)
    message = str(caught.value)
    assert message.startswith(line) and "\n" not in message


def test_the_command_line_reports_a_bad_spec_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad = "search,particles=x"
    assert main(["seat", "--port", "9", "--seat", "north", "--team", "t", "--agent", bad]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "bridgebot seat: --agent 'search,particles=x': "
        "agent search: option particles must be an integer, not 'x'"
    ]


def test_the_default_card_player_counts_worlds_not_seconds() -> None:
    assert not any("time" in key or "second" in key for key in DefaultOptions.model_fields)
    with make_agent("default") as agent:
        assert isinstance(agent, SearchWhereDoubled) and isinstance(agent.agent, PolicyAgent)
        player = agent.card_player
        assert isinstance(player, LazyDDPlayer)
        assert (player.worlds, player.lead_worlds) == (WORLDS, AUCTION_LEAD_WORLDS)
        assert player.auction is not None  # play=auction, the default since issue 61
    with make_agent("default,play=dd") as agent:
        assert isinstance(agent.card_player, LazyDDPlayer)
        assert (agent.card_player.worlds, agent.card_player.lead_worlds) == (WORLDS, LEAD_WORLDS)
    with make_agent("default,worlds=8,lead_worlds=4") as agent:
        assert isinstance(agent, SearchWhereDoubled) and isinstance(agent.card_player, LazyDDPlayer)
        assert (agent.card_player.worlds, agent.card_player.lead_worlds) == (8, 4)


def test_the_penalty_doubles_are_a_layer_where_there_is_a_pipeline_else_a_wrapper() -> None:
    with make_agent("default,doubles=on") as layered, make_agent("bfg,doubles=on") as single:
        assert isinstance(layered, SearchWhereDoubled) and isinstance(layered, BatchBidder)
        assert [x.name for x in layered.bidder.layers] == ["doubles"]
        assert layered.name == "default,doubles=on"
        assert isinstance(single, PenaltyDoublesWrapper) and not isinstance(single, BatchBidder)
    with make_agent("random,doubles=on") as batching:
        assert isinstance(batching, PenaltyDoublesWrapper)


YARBOROUGH = Hand("5432.432.432.432")


class Toy:
    """A layer no agent class knows: it opens 1C where the seat would pass at the opening."""

    name = "toy"

    def forced(
        self, views: Sequence[BiddingView], auctions: Sequence[Sequence[int]]
    ) -> list[Bid | None]:
        return []

    def apply(self, step: Step) -> IntArray:
        opening = np.array([not v.auction for v in step.views], dtype=np.bool_)
        return np.where(opening & (step.calls == 0), 3, step.calls).astype(np.int64)


def toy(options: SlamOptions, models: learned.Models) -> Toy:
    return Toy()


@pytest.mark.parametrize(
    "spec", ["default,play=baseline", "search,play=baseline,particles=16,rollouts=4"]
)
def test_a_new_layer_is_one_entry_in_one_list(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Naming a layer in ``bridgebot.learned.LAYERS`` puts it in ``default``'s pipeline and the
    search's, after the others, with no agent class touched."""
    # West deals and holds a flat Yarborough: every learned agent passes.
    view = bidding_view(Player.west, Vul.none, YARBOROUGH, (), 1)
    with make_agent(spec) as plain:
        assert plain.bid(view) == Bid("Pass")
    monkeypatch.setattr(learned, "LAYERS", [*learned.LAYERS, toy])
    with make_agent(spec) as agent, make_agent(spec + ",doubles=on") as doubling:
        assert [x.name for x in parts_of(agent).layers] == ["toy"]
        assert [x.name for x in parts_of(doubling).layers] == ["doubles", "toy"]
        assert agent.bid(view) == Bid("1C")
        if isinstance(agent, SearchAgent):  # the search's result says a layer changed it
            assert agent.last is not None and agent.last.call == Bid("1C")
            assert agent.last.stats["changed_by_layer"] == 1.0
        other = bidding_view(Player.west, Vul.none, YARBOROUGH, (Bid("1H"),), 1)
        assert agent.bid(other) == Bid("Pass")  # the toy opens; it overcalls nothing


def test_a_search_agent_keeps_the_searches_of_one_board() -> None:
    deal = Deal("N:AKQ2.J32.K54.Q32 JT9.AK4.QJT9.K54 8765.Q765.A3.AJ6 43.T98.8762.T987")
    with make_agent("search,particles=32,rollouts=8,r_min=1,p_min=0.01", seed=1) as agent:
        assert isinstance(agent, SearchAgent)
        for board in (1, 2):
            agent.reset(board)
            view = bidding_view(Player.north, Vul.none, deal[Player.north], (), board)
            agent.bid(view)
            agent.bid(view)
            assert len(agent.results) == 2
        agent.reset(3)
        assert agent.results == []


def test_closing_an_agent_closes_its_card_player() -> None:
    with make_agent("default,doubled=policy") as agent:
        assert isinstance(agent, PolicyAgent) and isinstance(agent.card_player, LazyDDPlayer)
        player = agent.card_player
        closed: list[bool] = []
        player.close = lambda: closed.append(True)  # type: ignore[method-assign]
    assert closed == [True]


# A deal where East's hearts make a double of North-South's hearts likely to hurt.
DOUBLED_DEAL = Deal("N:AKQ2.J32.K54.Q32 JT9.AKQT4.QJT.K5 8765.765.A3.AJ64 43.98.98762.T987")


def test_default_searches_only_where_the_opponents_doubled_our_contract() -> None:
    """Where our side's contract stands doubled, ``default`` calls as the search agent does (the
    same seed; the search's settings for doubled positions); everywhere else as the policy
    does."""
    doubled = [Bid(t) for t in ("1H", "X")]  # North opened 1H, East doubled: South to call
    plain = [Bid(t) for t in ("1H", "Pass")]
    redoubled = [Bid(t) for t in ("1H", "X", "XX", "Pass")]  # West's turn after XX: not ours
    with (
        make_agent("default,play=baseline", seed=5) as agent,
        make_agent("search,play=baseline", seed=5) as search,
        make_agent("default,doubled=policy,play=baseline", seed=5) as policy,
    ):
        assert isinstance(agent, SearchWhereDoubled)
        views = [
            bidding_view(Player.north, Vul.none, DOUBLED_DEAL[Player.south], tuple(a), 1)
            for a in (doubled, plain)
        ]
        views.append(
            bidding_view(Player.north, Vul.none, DOUBLED_DEAL[Player.west], tuple(redoubled), 1)
        )
        for a in (agent, search, policy):
            a.reset(1)
        got = agent.bid_batch(views)
        assert agent.searched == 1
        assert got[0] == search.bid(views[0])
        assert got[1:] == policy.bid_batch(views[1:])
        # The explainer and the alerts read the policy through it.
        assert agent.policy is agent.agent.policy


def test_search_uses_its_doubled_settings_only_where_our_contract_is_doubled() -> None:
    """``search`` searches a doubled position as ``p_min``/``punish``/``close_bids`` set to its
    doubled settings would (the same candidates and call, same seed); a plain position with its
    own."""
    doubled = bidding_view(
        Player.north, Vul.none, DOUBLED_DEAL[Player.south], (Bid("1H"), Bid("X")), 1
    )
    plain = bidding_view(
        Player.north, Vul.none, DOUBLED_DEAL[Player.south], (Bid("1H"), Bid("Pass")), 1
    )
    defaults = SearchConfig()
    with (
        make_agent("search,play=baseline", seed=5) as search,
        make_agent(
            f"search,play=baseline,p_min={defaults.doubled_p_min},punish={defaults.doubled_punish},"
            f"close_bids={defaults.doubled_close_bids}",
            seed=5,
        ) as floor,
        make_agent("search,play=baseline,doubled_p_min=0.03,doubled_punish=0", seed=5) as old,
    ):
        assert isinstance(search, SearchAgent) and isinstance(floor, SearchAgent)
        assert isinstance(old, SearchAgent)
        assert search.base.doubled.config == defaults.where_doubled()
        for a in (search, floor, old):
            a.reset(1)
        assert search.bid(doubled) == floor.bid(doubled)
        old.bid(doubled)
        assert search.last is not None and floor.last is not None and old.last is not None
        assert search.last.candidates == floor.last.candidates
        # At the plain floor the policy's pass of the double is the only candidate.
        assert len(old.last.candidates) < len(search.last.candidates)
        for a in (search, old):
            a.reset(2)
        assert search.bid(plain) == old.bid(plain)
        assert search.last.candidates == old.last.candidates


def test_the_doubled_option_is_checked() -> None:
    with pytest.raises(AgentSpecError, match="option doubled must be 'search' or 'policy'"):
        make_agent("default,doubled=always")
