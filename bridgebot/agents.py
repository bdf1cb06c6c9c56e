"""The composition root of the agents: one spec string names an agent the same way everywhere.

Grammar: ``NAME[:PATH][,key=value,...]``, for example ``random``, ``random,seed=3``, ``bfg``,
``bfg,doubles=on``, ``default``, ``default,worlds=32,lead_worlds=16``, ``policy:models/default``,
``search:models/default,particles=64``, ``search,opponents=bfgnet+self``.

Each agent has one options model (:class:`RandomOptions`, :class:`PolicyOptions`, ...): the type,
range, default and meaning of every key. :meth:`AgentSpec.parse` validates a spec against it before
anything is built, so a bad value or an unknown key is one :class:`AgentSpecError` line naming the
agent and the option. Two options belong to every agent: ``seed`` (overrides the seed the runner
passes) and ``doubles=on`` (the penalty-double layer of :mod:`engine.doubles` on top).

This module is the only one that knows which classes make up an agent: algorithm modules in
``engine`` import only downwards, and runners below the command line (seat client, matches,
tournaments) receive :func:`make_agent` as an :class:`engine.agent.AgentFactory` from their
caller.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from endplay.types import Bid, Card
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from bridgebot.engine.aces import AskRule, ControlRule
from bridgebot.engine.agent import (
    Agent,
    AgentSpecError,
    BatchBidder,
    BiddingView,
    CardPlayer,
    PlayView,
)
from bridgebot.engine.cardplay import LEAD_WORLDS, WORLDS
from bridgebot.engine.parts import Parts, parts_of
from bridgebot.engine.search import DEFAULT_OPPONENTS, BatchPolicy, SearchConfig
from bridgebot.engine.tendencies import DoubleRate, Reading
from bridgebot.shipped import DEFAULT_MODEL_DIR, shipped_model

if TYPE_CHECKING:
    from bridgebot.engine.aces import Convention, DealCheck
    from bridgebot.engine.policy import Policy, PolicyAgent
    from bridgebot.engine.search import SearchAgent
    from bridgebot.engine.slams import SlamEstimator

__all__ = [
    "AgentSpec",
    "AgentSpecError",
    "known_agents",
    "make_agent",
    "with_card_player",
]

# -- options ---------------------------------------------------------------------------------------


class AgentOptions(BaseModel):
    """The options every agent takes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int | None = Field(None, ge=0, description="the agent's seed (default: the runner's)")
    doubles: bool = Field(False, description="the penalty-double layer on top (on/off)")


class RandomOptions(AgentOptions):
    pass_bias: float = Field(
        0.6, ge=0.0, le=1.0, description="probability of passing outright when pass is legal"
    )


class BfgOptions(AgentOptions):
    """bfg is deterministic: ``seed`` is accepted and unused."""


_ASK = AskRule()
_CONTROL = ControlRule()
_WILD = DoubleRate()


class CardPlayerOptions(AgentOptions):
    """How the agent plays its cards: the double-dummy player or the instant baseline."""

    play: Literal["dd", "baseline"] = Field("baseline", description="card player")
    worlds: int = Field(WORLDS, ge=1, description="worlds solved per card (play=dd)")
    lead_worlds: int = Field(LEAD_WORLDS, ge=1, description="worlds for the opening lead (play=dd)")


class CardPlayOptions(CardPlayerOptions):
    """The card player, and the threads of the agent's models."""

    threads: int = Field(1, ge=1, description="onnxruntime threads per model")


class SlamOptions(CardPlayOptions):
    """The slam layer and the asking conventions on top of it (ace asking, control asking), for
    the agents that bid with a learned policy."""

    slams: bool = Field(
        True,
        description="the slam layer (engine.slams) on the agent's call, where the model "
        "directory has one (slam/)",
    )
    aces: bool = Field(
        False,
        description="the ace-asking convention (engine.aces: 4NT asks, 5C-5S answer) on top of "
        "the slam layer (needs it; off: it did not pay on fresh deals, docs/evaluation.md)",
    )
    ace_ask: float = Field(
        _ASK.ask, ge=0.0, le=1.0, description="least chance of 12+ tricks at which the seat asks"
    )
    ace_one_missing: float = Field(
        _ASK.one_missing,
        ge=0.0,
        le=1.01,
        description="least chance of 12+ tricks for a small slam with one ace missing",
    )
    ace_grand: float = Field(
        _ASK.grand,
        ge=0.0,
        le=1.01,
        description="least chance of 13 tricks for a grand with all aces",
    )
    ace_direct: float = Field(
        _ASK.direct,
        ge=0.0,
        le=1.01,
        description="least chance of making (the slam layer's estimate) for a slam bid without "
        "the ace ask, the policy's or the slam layer's",
    )
    their_doubles: Literal["read", "ignore"] = Field(
        "ignore",
        description="what the slam estimates make of the opponents' doubles: ignore them "
        "(estimate as if the opponents had passed; an opponent who doubles at every turn then "
        "cannot talk the pair out of its slams) or read them as the estimator learned them, as "
        "our own policy's doubles, which show values",
    )
    controls: bool | None = Field(
        None,
        description="the control-asking convention (engine.aces: 4NT asks for controls, ace 2 "
        "king 1, answered in seven steps 5C-6D) on top of the slam layer; unset: on where the "
        "model directory has its control estimator (slam/controls/; the shipped model does) "
        "and aces=off; on: needs that estimator; off: never (a partner that does not play it)",
    )
    controls_ask: float = Field(
        _CONTROL.ask,
        ge=0.0,
        le=1.0,
        description="least chance of 12+ tricks (the slam layer's) at which the seat asks for "
        "controls",
    )
    controls_small: float = Field(
        _CONTROL.small,
        ge=0.0,
        le=1.01,
        description="least chance of 12+ tricks, partner's controls known, for a small slam",
    )
    controls_grand: float = Field(
        _CONTROL.grand,
        ge=0.0,
        le=1.01,
        description="least chance of 13 tricks, partner's controls known, for a grand",
    )
    controls_direct: float = Field(
        _CONTROL.direct,
        ge=0.0,
        le=1.01,
        description="least chance of making (the slam layer's estimate) for a slam bid without "
        "the control ask, the policy's or the slam layer's",
    )
    controls_dd: int = Field(
        0,
        ge=0,
        le=1024,
        description="the control ask's decision checked on this many deals: partner's hands "
        "dealt by the belief net from the auction before the ask, those with the controls "
        "partner showed kept (of 1,000 dealt), each solved double dummy; the decision takes "
        "the mean of their share and the control estimator's chance; 0: the estimator alone",
    )
    policy_doubles: Reading = Field(
        "auto",
        description="what the policy makes of the opponents' doubles (engine.tendencies): read "
        "them as it learned them; ignore them (as if the opponents had passed; our contract "
        "doubled excepted); auto: ignore them once the opponents have doubled at least "
        "wild_doubles_rate of the calls of theirs this seat has seen, wild_doubles_seen or more",
    )
    wild_doubles_rate: float = Field(
        _WILD.rate,
        gt=0.0,
        le=1.0,
        description="least share of doubles among the opponents' calls at which policy_doubles="
        "auto stops reading them (bfg doubles 1.5% of its calls, the league's exploiters a "
        "third)",
    )
    wild_doubles_seen: int = Field(
        _WILD.least,
        ge=1,
        description="fewest opponents' calls seen before policy_doubles=auto judges their rate",
    )


class PolicyOptions(SlamOptions):
    greedy: bool = Field(True, description="the likeliest legal call; off samples from the policy")
    temperature: float = Field(1.0, gt=0.0, description="softmax temperature when sampling")


class DefaultOptions(PolicyOptions):
    play: Literal["dd", "baseline"] = Field("dd", description="card player")
    doubled: Literal["search", "policy"] = Field(
        "search",
        description="who calls where the opponents doubled our contract: the search "
        "(as the search agent searches there: p_min=0.0001, punish=2; "
        "engine.search.SearchWhereDoubled) or the policy",
    )


_CONFIG = SearchConfig()


class SearchOptions(SlamOptions):
    """The search's own options, then the budgets and knobs of :class:`engine.search.SearchConfig`
    (whose docstrings say more)."""

    dd: Literal["net", "solver"] = Field("net", description="rollout scoring: estimator or solver")
    ddnet: Path = Field(
        shipped_model("ddnet"), description="the trick estimator's model directory (dd=net)"
    )
    sampler: Literal["belief", "uniform"] = Field("belief", description="how particles are dealt")
    belief: Path = Field(
        shipped_model("belief"), description="the belief net's directory (sampler=belief)"
    )
    opponents: str = Field(
        DEFAULT_OPPONENTS,
        description="'+'-separated opponent models: self, bfgnet or a policy directory",
    )
    k: int = Field(_CONFIG.k, ge=1, description="most candidate calls searched")
    p_min: float = Field(_CONFIG.p_min, ge=0.0, le=1.0, description="least prior of a candidate")
    particles: int = Field(_CONFIG.particles, ge=1, description="particles dealt before the filter")
    rollouts: int = Field(_CONFIG.rollouts, ge=1, description="particles rolled out per candidate")
    r_min: float = Field(_CONFIG.r_min, ge=0.0, description="fewer effective rollouts: the prior")
    temperature: float = Field(_CONFIG.temperature, gt=0.0, description="posterior temperature")
    greedy: bool = Field(_CONFIG.greedy, description="greedy rollouts; off samples them")
    sample_choice: bool = Field(_CONFIG.sample_choice, description="sample the posterior")
    filter: bool = Field(_CONFIG.filter, description="weight particles by the auction")
    opponent_noise: float = Field(
        _CONFIG.opponent_noise, ge=0.0, le=1.0, description="chance an opponent call is random"
    )
    filter_power: float = Field(
        _CONFIG.filter_power, ge=0.0, le=1.0, description="the filter's likelihood to this power"
    )
    punish: int = Field(
        _CONFIG.punish, ge=0, le=13, description="opponents double our contracts this many down"
    )
    max_rollout_calls: int = Field(
        _CONFIG.max_rollout_calls, ge=1, description="calls a rollout may add"
    )
    margin: float = Field(_CONFIG.margin, description="standard errors a deviation must win by")
    min_gain: float = Field(
        _CONFIG.min_gain, ge=0.0, description="least gain of a deviation (points or IMPs)"
    )
    value: Literal["points", "imps"] = Field(
        _CONFIG.value,
        description="rollout value: points, or IMPs over the policy's call",
    )
    imp_temperature: float = Field(
        _CONFIG.imp_temperature, gt=0.0, description="posterior temperature with value=imps"
    )
    tricks: Literal["likeliest", "expected"] = Field(
        _CONFIG.tricks,
        description="a rollout's tricks: the oracle's likeliest or its distribution",
    )
    reweight: bool = Field(_CONFIG.reweight, description="reweight belief particles by model")
    slam: bool = Field(_CONFIG.slam, description="re-score slam decisions with the solver")
    slam_particles: int = Field(
        _CONFIG.slam_particles, ge=1, description="particles the slam stage solves per model"
    )
    slam_chance: float = Field(
        _CONFIG.slam_chance, ge=0.0, le=1.0, description="chance of 12+ tricks that starts it"
    )
    slam_margin: float = Field(
        _CONFIG.slam_margin,
        ge=0.0,
        description="standard errors a slam-stage deviation must win by",
    )
    doubled_p_min: float = Field(
        _CONFIG.doubled_p_min,
        ge=0.0,
        le=1.0,
        description="p_min where the opponents doubled our contract",
    )
    doubled_punish: int = Field(
        _CONFIG.doubled_punish,
        ge=0,
        le=13,
        description="punish where the opponents doubled our contract",
    )

    def config(self) -> SearchConfig:
        """The search's :class:`SearchConfig`."""
        return SearchConfig(**{f.name: getattr(self, f.name) for f in fields(SearchConfig)})


# -- specs -----------------------------------------------------------------------------------------

OptionsT = TypeVar("OptionsT", bound=AgentOptions)


@dataclass(frozen=True)
class AgentKind(Generic[OptionsT]):
    """One agent of the registry: its options model and how to build it."""

    name: str
    options: type[OptionsT]
    build: Callable[[OptionsT, str | None, int, str], Agent]
    """(options, path, seed, name) -> the agent, without the ``doubles`` layer."""
    path: Literal["none", "optional", "required"]
    summary: str


@dataclass(frozen=True)
class AgentSpec:
    """A parsed and validated spec: ``str(spec)`` gives the text back as written."""

    name: str
    path: str | None
    options: AgentOptions
    written: dict[str, str] = field(default_factory=dict)
    """The options as written, in order (for ``str`` and for agent names)."""

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """Parse and validate ``text``; :class:`AgentSpecError` says what is wrong, in one line."""
        text = text.strip()
        if not text:
            raise AgentSpecError("empty agent spec")
        head, *opts = text.split(",")
        name, _, path = (part.strip() for part in head.partition(":"))
        name = name.lower()
        written: dict[str, str] = {}
        for opt in opts:
            key, eq, value = opt.partition("=")
            if not eq or not key.strip():
                raise AgentSpecError(f"agent option {opt!r} in {text!r} is not key=value")
            written[key.strip()] = value.strip()
        kind = _kind(name)
        if kind.path == "none" and path:
            raise AgentSpecError(_no_path(kind, text))
        if kind.path == "required" and not path:
            raise AgentSpecError(f"agent {name} needs a model path: {name}:DIR or {name}:FILE.onnx")
        try:
            options = kind.options.model_validate(written)
        except ValidationError as exc:
            raise AgentSpecError(_option_problem(kind, text, written, exc.errors())) from None
        return cls(name, path or None, options, written)

    def __str__(self) -> str:
        s = self.name + (f":{self.path}" if self.path else "")
        return s + "".join(f",{k}={v}" for k, v in self.written.items())

    def without(self, key: str) -> AgentSpec:
        """This spec less option ``key``."""
        written = {k: v for k, v in self.written.items() if k != key}
        options = self.options.model_copy(
            update={key: type(self.options).model_fields[key].default}
        )
        return AgentSpec(self.name, self.path, options, written)


def _kind(name: str) -> AgentKind[Any]:
    kind = REGISTRY.get(name)
    if kind is None:
        raise AgentSpecError(f"unknown agent {name!r}; known agents: {', '.join(known_agents())}")
    return kind


def _no_path(kind: AgentKind[Any], text: str) -> str:
    if set(kind.options.model_fields) == set(AgentOptions.model_fields):
        return (
            f"agent {kind.name} takes no path and no options besides seed and doubles, got {text!r}"
        )
    return f"agent {kind.name} takes no path, got {text!r}"


#: What a value must be, by pydantic error type (the rest use pydantic's own words).
_EXPECTED = {
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_parsing": "a number",
    "bool_parsing": "'on' or 'off'",
    "finite_number": "a finite number",
}


def _option_problem(
    kind: AgentKind[Any], text: str, written: dict[str, str], errors: list[ErrorDetails]
) -> str:
    unknown = sorted(str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden")
    if unknown:
        if set(kind.options.model_fields) == set(AgentOptions.model_fields):
            return _no_path(kind, text)
        known = ", ".join(kind.options.model_fields)
        return f"agent {kind.name}: unknown options {unknown}; it takes {known}"
    error = errors[0]
    key = str(error["loc"][0])
    ctx = error.get("ctx", {})
    bounds = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}
    expected = _EXPECTED.get(error["type"])
    if error["type"] == "literal_error":
        expected = str(ctx["expected"])
    elif expected is None and ctx and set(ctx) <= set(bounds):
        expected = " and ".join(f"{bounds[b]} {v}" for b, v in ctx.items())
    if expected is None:
        expected = error["msg"].removeprefix("Input should be ")
    return f"agent {kind.name}: option {key} must be {expected}, not {written.get(key)!r}"


def known_agents() -> list[str]:
    return sorted(REGISTRY)


def make_agent(spec: str | AgentSpec, seed: int = 0) -> Agent:
    """Build an agent from its spec. ``seed`` is used unless the spec sets ``seed=``.

    The caller owns the agent: use it as a context manager (or call ``close``) when done.
    """
    parsed = spec if isinstance(spec, AgentSpec) else AgentSpec.parse(spec)
    kind = _kind(parsed.name)
    if parsed.options.seed is not None:
        seed = parsed.options.seed
    if seed < 0:  # numpy's generators take none (issue 44: seat --agent-seed -1 was a traceback)
        raise AgentSpecError(f"seed {seed}: a seed is 0 or more")
    if not parsed.options.doubles:
        return kind.build(parsed.options, parsed.path, seed, str(parsed))
    from bridgebot.engine.doubles import BatchDoublingAgent, DoublingAgent

    inner_spec = parsed.without("doubles")
    inner = kind.build(inner_spec.options, parsed.path, seed, str(inner_spec))
    if isinstance(inner, BatchBidder):
        return BatchDoublingAgent(inner, name=str(parsed))
    return DoublingAgent(inner, name=str(parsed))


# -- card players ----------------------------------------------------------------------------------


class LazyDDPlayer:
    """``engine.cardplay.DDCardPlayer``, built on the first card (bidding-only use costs nothing:
    no solver, no worker processes)."""

    name = "ddplay"

    def __init__(self, seed: int, worlds: int = WORLDS, lead_worlds: int = LEAD_WORLDS) -> None:
        self.seed = seed
        self.worlds = worlds
        self.lead_worlds = lead_worlds
        self.player: CardPlayer | None = None
        self._board = 1

    def reset(self, board: int) -> None:
        self._board = board
        if self.player is not None:
            self.player.reset(board)

    def play(self, view: PlayView) -> Card:
        if self.player is None:
            from bridgebot.engine.cardplay import DDCardPlayer

            self.player = DDCardPlayer(
                worlds=self.worlds, lead_worlds=self.lead_worlds, seed=self.seed
            )
            self.player.reset(self._board)
        return self.player.play(view)

    def close(self) -> None:
        if self.player is not None:
            self.player.close()


def card_player(options: CardPlayerOptions, seed: int) -> CardPlayer:
    """The card player ``options`` name; its budget is counted in worlds, never in seconds, so a
    seeded agent plays the same cards on any machine."""
    if options.play == "baseline":
        from bridgebot.engine.cardplay import BaselinePlayer

        return BaselinePlayer()
    return LazyDDPlayer(seed, options.worlds, options.lead_worlds)


class WithCardPlayer(Agent):
    """An agent that bids like ``agent`` and plays its cards with ``player``; closing it closes
    both."""

    def __init__(self, agent: Agent, player: CardPlayer) -> None:
        self.agent = agent
        self.player = player
        self.name = f"{agent.name}+{getattr(player, 'name', type(player).__name__)}"

    def reset(self, board: int) -> None:
        self.agent.reset(board)
        self.player.reset(board)

    def bid(self, view: BiddingView) -> Bid:
        return self.agent.bid(view)

    def parts(self) -> Parts:
        """The bidding agent's parts (:mod:`engine.parts`)."""
        return parts_of(self.agent)

    def play(self, view: PlayView) -> Card:
        return self.player.play(view)

    def close(self) -> None:
        try:
            self.player.close()
        finally:
            self.agent.close()


def with_card_player(agent: Agent, player: CardPlayer) -> WithCardPlayer:
    """Wrap any agent so its ``play`` uses ``player`` (e.g. a :class:`DDCardPlayer`)."""
    return WithCardPlayer(agent, player)


# -- the factories ---------------------------------------------------------------------------------


def _random(options: RandomOptions, path: str | None, seed: int, name: str) -> Agent:
    from bridgebot.engine.random_agent import RandomAgent

    return RandomAgent(seed=seed, pass_bias=options.pass_bias)


def _bfg(options: BfgOptions, path: str | None, seed: int, name: str) -> Agent:
    from bridgebot.engine.bfg import BfgAgent

    return BfgAgent()


def _policy_and_slam(
    path: str | None, options: SlamOptions, name: str
) -> tuple[Policy, SlamEstimator | None]:
    """The policy of a model directory (the shipped one without ``path``) and, with
    ``options.slams``, the slam estimator in its ``slam/`` if it has one (reading the opponents'
    doubles as ``options.their_doubles`` says); a model error names the agent."""
    from bridgebot.engine.modelcard import ModelError
    from bridgebot.engine.policy import Policy
    from bridgebot.engine.slams import SlamEstimator, estimator_dir

    directory = Path(path) if path else DEFAULT_MODEL_DIR
    try:
        policy = Policy(directory, threads=options.threads)
        found = estimator_dir(directory) if options.slams else None
        reads = options.their_doubles == "read"
        return policy, (
            SlamEstimator(found, threads=options.threads, their_doubles=reads) if found else None
        )
    except ModelError as e:
        raise AgentSpecError(f"agent {name}: {e}") from e


def _policy(options: PolicyOptions, path: str | None, seed: int, name: str) -> Agent:
    return _policy_agent(options, *_models(path, options, name), seed, name)


def _models(
    path: str | None, options: SlamOptions, name: str
) -> tuple[Policy, SlamEstimator | None, Convention | None]:
    """What a learned agent bids with, each model file opened once: the policy, the slam
    estimator and the asking convention (:func:`_policy_and_slam`, :func:`_ace_asking`)."""
    policy, slam = _policy_and_slam(path, options, name)
    return policy, slam, _ace_asking(options, slam, name)


def _policy_agent(
    options: PolicyOptions,
    policy: Policy,
    slam: SlamEstimator | None,
    convention: Convention | None,
    seed: int,
    name: str,
) -> PolicyAgent:
    from bridgebot.engine.policy import PolicyAgent

    return PolicyAgent(
        policy,
        card_player=card_player(options, seed),
        seed=seed,
        greedy=options.greedy,
        temperature=options.temperature,
        name=name,
        slam=slam,
        aces=convention,
        their_doubles=options.policy_doubles,
        double_rate=DoubleRate(options.wild_doubles_rate, options.wild_doubles_seen),
    )


def asking_convention(options: SlamOptions, slam_dir: Path | None) -> str | None:
    """The asking convention (``engine.aces.ACES`` or ``CONTROLS``) an agent with ``options``
    plays over the slam estimator in ``slam_dir`` (None: no slam layer): ace asking with
    ``aces=on``; control asking with ``controls=on`` or, unset, where the control estimator sits
    in ``slam_dir``; else None. The agents and ``bridgebot explain`` read it here."""
    from bridgebot.engine.aces import ACES, CONTROLS, controls_dir

    if slam_dir is None or not options.slams:
        return None
    if options.aces:
        return ACES
    if options.controls is None:
        return CONTROLS if controls_dir(slam_dir) is not None else None
    return CONTROLS if options.controls else None


def _ace_asking(
    options: SlamOptions, slam: SlamEstimator | None, name: str = ""
) -> Convention | None:
    """The asking convention the agent plays (:func:`asking_convention`) over its slam
    estimator; ``controls=on`` without the control estimator is an error."""
    if options.aces and options.controls:
        raise AgentSpecError(f"agent {name}: aces=on and controls=on are two answers to one 4NT")
    if slam is None:
        return None
    slam_dir = slam.model.onnx_path.parent
    which = asking_convention(options, slam_dir)
    if which is None:
        return None
    from bridgebot.engine.aces import ACES, AceAsking, ControlAsking, ControlEstimator, controls_dir
    from bridgebot.engine.modelcard import ModelError

    if which == ACES:
        return AceAsking(
            slam,
            AskRule(
                ask=options.ace_ask,
                one_missing=options.ace_one_missing,
                grand=options.ace_grand,
                direct=options.ace_direct,
            ),
        )
    found = controls_dir(slam_dir)
    if found is None:
        raise AgentSpecError(
            f"agent {name}: controls=on needs the control estimator in {slam_dir}/controls "
            "(bridgebot train slamnet --partner-controls)"
        )
    try:
        # It reads the observation as the slam estimator it sits beside does.
        estimator = ControlEstimator(
            found, threads=options.threads, their_doubles=slam.their_doubles
        )
    except ModelError as e:
        raise AgentSpecError(f"agent {name}: {e}") from e
    return ControlAsking(
        slam,
        estimator,
        ControlRule(
            ask=options.controls_ask,
            small=options.controls_small,
            grand=options.controls_grand,
            direct=options.controls_direct,
        ),
        _deal_check(options, name),
    )


def _deal_check(options: SlamOptions, name: str) -> DealCheck | None:
    """The deals that check the control ask's decision (``controls_dd``), None without."""
    if not options.controls_dd:
        return None
    from bridgebot.engine.aces import DealCheck
    from bridgebot.engine.belief import BeliefNet, BeliefSampler
    from bridgebot.engine.modelcard import ModelError
    from bridgebot.engine.search import SolverOracle

    try:
        net = BeliefNet(shipped_model("belief"), options.threads)
    except ModelError as e:
        raise AgentSpecError(f"agent {name}: {e}") from e
    return DealCheck(BeliefSampler(net), SolverOracle(), particles=options.controls_dd)


def _default(options: DefaultOptions, path: str | None, seed: int, name: str) -> Agent:
    """The policy; with ``doubled=search``, the search where the opponents doubled our contract
    (:class:`engine.search.SearchWhereDoubled`; the search's own settings for those positions,
    ``doubled_p_min`` and ``doubled_punish``)."""
    from bridgebot.engine.search import SearchWhereDoubled

    models = _models(path, options, name)
    agent = _policy_agent(options, *models, seed, name)
    if options.doubled == "policy":
        return agent
    # The search stage bids as the policy does where slams are decided: every slam option carries,
    # and it shares the policy agent's models (one stack: each model file opened once).
    slam_fields = set(SlamOptions.model_fields) - set(CardPlayOptions.model_fields)
    search = SearchOptions.model_validate(
        {"threads": options.threads, "play": "baseline", **options.model_dump(include=slam_fields)}
    )
    return SearchWhereDoubled(agent, _search_agent(search, *models, seed, name), name=name)


def _search(options: SearchOptions, path: str | None, seed: int, name: str) -> Agent:
    return _search_agent(options, *_models(path, options, name), seed, name)


def _search_agent(
    options: SearchOptions,
    policy: Policy,
    slam: SlamEstimator | None,
    convention: Convention | None,
    seed: int,
    name: str,
) -> SearchAgent:
    """The search over ``policy``, with the slam layer and the convention around it."""
    from bridgebot.engine.modelcard import ModelError
    from bridgebot.engine.search import (
        BorelSearch,
        EstimatorOracle,
        ObservationSampler,
        ParticleSampler,
        SearchAgent,
        SolverOracle,
        TrickOracle,
        deal_uniform,
    )

    oracle: TrickOracle
    if options.dd == "solver":
        oracle = SolverOracle()
    else:
        from bridgebot.engine.ddestimate import DDEstimator

        try:
            oracle = EstimatorOracle(DDEstimator(options.ddnet, options.threads))
        except ModelError as e:
            raise AgentSpecError(f"agent {name}: {e}") from e
    sampler: ParticleSampler | ObservationSampler = deal_uniform
    if options.sampler == "belief":
        from bridgebot.engine.belief import BeliefNet, BeliefSampler

        try:
            sampler = BeliefSampler(BeliefNet(options.belief, options.threads))
        except ModelError as e:
            raise AgentSpecError(f"agent {name}: {e}") from e
    search = BorelSearch(policy, oracle, options.config(), sampler, opponent_models(options, name))
    return SearchAgent(
        search,
        card_player(options, seed),
        seed=seed,
        name=name,
        slam=slam,
        aces=convention,
        their_doubles=options.policy_doubles,
        double_rate=DoubleRate(options.wild_doubles_rate, options.wild_doubles_seen),
    )


def opponent_models(options: SearchOptions, name: str) -> list[tuple[str, BatchPolicy | None]]:
    """The opponent models named by ``opponents=a+b``: ``self`` (our policy, ``None``),
    ``bfgnet`` (the shipped imitation of bfg) or a policy directory."""
    from bridgebot.engine.modelcard import ModelError
    from bridgebot.engine.policy import Policy

    out: list[tuple[str, BatchPolicy | None]] = []
    for model in options.opponents.split("+"):
        model = model.strip()
        if not model:
            raise AgentSpecError(f"agent {name}: empty name in opponents={options.opponents!r}")
        if model == "self":
            out.append((model, None))
            continue
        where = shipped_model("bfgnet") if model == "bfgnet" else Path(model)
        try:
            out.append((model, Policy(where, threads=options.threads)))
        except ModelError as e:
            raise AgentSpecError(f"agent {name}: opponent model {model!r}: {e}") from e
    return out


# -- epbot: an outside bidder, found at run time (engine.epbot) ------------------------------------


class EpbotOptions(CardPlayerOptions):
    """``epbot:CARD``: EPBot bids playing the card named ``CARD`` (a file of its ``CC/`` without
    ``.bbsa``; underscores for spaces); the card player plays. ``seed`` seeds the card player."""

    opponents: str = Field("WBridge5-Sayc", description="the card EPBot assumes the opponents play")
    path: Path | None = Field(
        None, description="the EPBot folder (libEPBot.so and CC/); default: $BRIDGEBOT_EPBOT"
    )


def _epbot(options: EpbotOptions, path: str | None, seed: int, name: str) -> Agent:
    from bridgebot.engine.epbot import EPBotAgent
    from bridgebot.engine.epbot_cards import find_card, read_card
    from bridgebot.engine.epbot_native import epbot_folder

    try:
        folder = epbot_folder(options.path)
        card, opponents = (read_card(find_card(folder, c)) for c in (path or "", options.opponents))
        return EPBotAgent(folder, card, opponents, card_player(options, seed), name)
    except AgentSpecError as e:
        raise AgentSpecError(f"agent {name}: {e}") from None


REGISTRY: dict[str, AgentKind[Any]] = {
    kind.name: kind
    for kind in (
        AgentKind("random", RandomOptions, _random, "none", "uniformly random legal calls"),
        AgentKind("bfg", BfgOptions, _bfg, "none", "bfgbidding's Acol, baseline card play"),
        AgentKind("policy", PolicyOptions, _policy, "required", "a learned policy, greedy"),
        AgentKind(
            "default",
            DefaultOptions,
            _default,
            "optional",
            "the shipped policy, searched where doubled, DD play",
        ),
        AgentKind("search", SearchOptions, _search, "optional", "Borel search over the policy"),
        AgentKind(
            "epbot", EpbotOptions, _epbot, "optional", "EPBot (outside) with a card: epbot:CARD"
        ),
    )
}
