"""The agents' options come from the engine's configs (bridgebot.agent_options, engine.knobs): every
field of a config is a spec key with the field's default and bounds, and no key copies one."""

from __future__ import annotations

from dataclasses import dataclass, fields

import pytest
from bridgebot.engine.control_ask import ControlRule
from bridgebot.engine.knobs import knob, knobs
from bridgebot.engine.search import SearchConfig
from bridgebot.engine.tendencies import DoubleRate
from pydantic import ValidationError

from bridgebot.agent_options import (
    AgentOptions,
    CardPlayOptions,
    DefaultOptions,
    PolicyOptions,
    SearchOptions,
    SlamOptions,
    config,
)
from bridgebot.registry import REGISTRY

#: Per config: the options model that takes it, and its keys' prefix.
GROUPS = [
    (SearchOptions, SearchConfig, ""),
    (SlamOptions, ControlRule, "controls_"),
    (SlamOptions, DoubleRate, "wild_doubles_"),
]


@pytest.mark.parametrize(("options", "config_type", "prefix"), GROUPS)
def test_every_config_field_is_a_key_with_its_default_and_bounds(
    options: type[AgentOptions], config_type: type, prefix: str
) -> None:
    default = config_type()
    for f, k in knobs(config_type):
        key = options.model_fields[prefix + f.name]
        assert key.default == getattr(default, f.name), f.name
        assert key.description == k.help
        bounds = {
            b: getattr(m, b)
            for m in key.metadata
            for b in ("ge", "gt", "le", "lt")
            if hasattr(m, b)
        }
        assert bounds == k.bounds(), f.name
    assert config(options(), config_type) == default


def test_every_key_is_the_agent_s_own_or_a_config_field() -> None:
    """The keys declared by hand, per model; the rest are config fields (vice versa)."""

    def keys(config_type: type, prefix: str = "") -> set[str]:
        return {prefix + f.name for f in fields(config_type) if f.init}

    slam_own = {"slams", "their_doubles", "controls", "policy_doubles"}
    assert set(SlamOptions.model_fields) == (
        set(CardPlayOptions.model_fields)
        | slam_own
        | keys(ControlRule, "controls_")
        | keys(DoubleRate, "wild_doubles_")
    )
    search_own = {"dd", "ddnet", "sampler", "belief", "opponents"}
    assert set(SearchOptions.model_fields) == (
        set(SlamOptions.model_fields) | search_own | keys(SearchConfig)
    )
    assert set(PolicyOptions.model_fields) - set(SlamOptions.model_fields) == {
        "greedy",
        "temperature",
    }
    assert set(DefaultOptions.model_fields) - set(PolicyOptions.model_fields) == {"doubled"}
    for kind in REGISTRY.values():
        for config_type, prefix in kind.options.configs:
            assert keys(config_type, prefix) <= set(kind.options.model_fields), kind.name


def test_a_new_config_field_is_a_new_key_and_a_bare_one_is_refused() -> None:
    @dataclass(frozen=True)
    class Rule:
        depth: int = knob(3, "how deep", ge=1, le=9)
        rate: float = knob(0.5, "how often", gt=0.0)

    class RuleOptions(AgentOptions, configs=((Rule, "rule_"),)):
        pass

    assert RuleOptions().rule_depth == 3  # type: ignore[attr-defined]
    assert config(RuleOptions.model_validate({"rule_depth": "7"}), Rule) == Rule(7, 0.5)
    with pytest.raises(ValidationError):
        RuleOptions.model_validate({"rule_depth": "10"})
    with pytest.raises(ValidationError):
        RuleOptions.model_validate({"rule_rate": "0"})

    @dataclass(frozen=True)
    class Bare:
        depth: int = 3

    with pytest.raises(TypeError, match=r"Bare\.depth is not declared with engine\.knobs\.knob"):
        knobs(Bare)


def test_a_removed_key_on_the_command_line_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bridgebot.cli import main

    assert main(["explain", "1S P", "--agent", "default,controls_dd=64", "--hands", "1024"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "option controls_dd was removed" in line and '"Control asking (' in line, line


def test_play_takes_each_named_card_player_of_the_yardstick() -> None:
    """Issue 61: today's player has its own name (``play=pimc``; ``play=dd`` keeps working as the
    default's spelling) and the auction reader is ``play=auction``; an unknown name is refused."""
    from bridgebot.agents import AgentSpec, AgentSpecError

    for play in ("pimc", "dd", "auction", "baseline"):
        assert AgentSpec.parse(f"default,play={play}").settings()["play"] == play
    with pytest.raises(AgentSpecError, match="play"):
        AgentSpec.parse("default,play=ouija").settings()


def test_the_agents_users_seat_play_their_cards_with_the_player_that_reads_the_auction() -> None:
    """``default`` and ``search`` play with the Monte Carlo player whose worlds the auction
    weighs (``play=auction``, the default since issue 61's read; ``play=dd`` before it) unless
    told otherwise (a ``search`` seated at a real table played the instant baseline's cards
    before that); the bidding programs' own specs keep the baseline."""
    from bridgebot.agents import AgentSpec, make_agent
    from bridgebot.card_players import LazyDDPlayer

    for spec in ("default", "search"):
        assert AgentSpec.parse(spec).settings()["play"] == "auction"
    assert AgentSpec.parse("default,play=dd").settings()["play"] == "dd"
    assert AgentSpec.parse("search,play=baseline").settings()["play"] == "baseline"
    assert AgentSpec.parse("policy:models/default").settings()["play"] == "baseline"
    with make_agent("search,particles=16,rollouts=4", seed=1) as agent:
        assert isinstance(agent.card_player, LazyDDPlayer)
        assert agent.card_player.auction is not None
    with make_agent("default,play=dd", seed=1) as agent:
        assert isinstance(agent.card_player, LazyDDPlayer)
        assert agent.card_player.auction is None


def test_an_agents_play_auction_is_the_player_the_card_play_read_measured() -> None:
    """``default``'s card player (``play=auction``) is the yardstick's ``auction``: distinct
    worlds, 32 a card and 32 for the opening lead, the auction read; seeded alike, the two play
    the same cards, seat for seat, on a whole deal (a small budget, for time)."""
    from bridgebot.engine.cardplay import LEAD_WORLDS, WORLDS, play_deal
    from bridgebot.laws.notation import parse_call
    from endplay.types import Contract, Deal, Player

    from bridgebot.agents import make_agent
    from bridgebot.card_players import LazyDDPlayer, named_card_player

    with make_agent("default", seed=3) as agent:
        player = agent.card_player
        assert isinstance(player, LazyDDPlayer) and player.auction is not None
        assert (player.distinct, player.worlds, player.lead_worlds) == (True, WORLDS, 32)
        assert LEAD_WORLDS == 16  # play=dd's lead budget, for the record
    deal = Deal("N:AK52.QJ3.K84.Q96 J8.K9854.A72.J53 Q9743.A6.QJ5.A87 T6.T72.T963.KT42")
    auction = tuple(parse_call(c) for c in ["1S", "2H", "3S", "P", "4S", "P", "P", "P"])
    contract = Contract("4SN")
    budget = "worlds=4,lead_worlds=4"
    played = []
    for build in ("agent", "named"):
        if build == "agent":
            players = [make_agent(f"default,{budget}", seed=20 + s).card_player for s in range(4)]
        else:
            players = [named_card_player(f"auction,{budget}", 20 + s) for s in range(4)]
        try:
            played.append(play_deal(deal, contract, [p.play for p in players], auction=auction))
        finally:
            for p in players:
                p.close()
    assert played[0] == played[1]
    assert Player.north in {seat for seat, _ in played[0][1]}
