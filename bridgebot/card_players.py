"""How an agent plays its cards: the card player its spec names (``play=dd``, ``play=baseline``),
the card players the card-play yardstick names (:func:`named_card_player`), and a wrapper that
gives any bidding agent a card player.

The names: ``baseline`` (``engine.cardplay.baseline_card``); ``pimc``, today's double-dummy Monte
Carlo player (``engine.cardplay.DDCardPlayer``: 32 worlds a card, 16 for the opening lead, blind
to the auction), the reference every new figure is paired against, which ``dd`` spells too (the
spelling of the agents' ``play=dd``); ``auction``, the same player with its worlds weighed by the
auction (``engine.cardplay_auction.AuctionReader``: partner's calls under the shipped policy,
the opponents' under the shipped ``epbotnet``, or ``opponents=self|bfgnet|DIR``; ``draw=`` one
of :data:`AUCTION_DRAWS`, distinct worlds by default; 32 worlds for the opening lead,
``engine.cardplay.AUCTION_LEAD_WORLDS``; the first screen's player is
``auction,draw=resample,lead_worlds=16``; the card player of ``default`` and ``search``, whose
``play=auction`` builds this same player); ``signals=on`` (``pimc``, ``dd``, ``auction``; default
``off``) gives and reads the carding agreements of ``engine.cardplay_signals`` (attitude, count,
first discard);
``epbot-lead``, EPBot's opening lead (``card=NAME``, default ``WBridge5-Sayc``, its convention
card and the one it assumes for the others; ``bcalconsole=PATH``, required: EPBot's card play runs
that double-dummy solver) and ``pimc`` for every other card; ``bfg``, bfgcardplay, the card play
of bfg's family, an outside player where it is installed (``engine.cardplay_bfg``).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from endplay.types import Bid, Card

from bridgebot.agent_options import CardPlayerOptions
from bridgebot.engine.agent import Agent, AgentSpecError, BiddingView, CardPlayer, PlayView
from bridgebot.engine.cardplay import AUCTION_LEAD_WORLDS, LEAD_WORLDS, WORLDS
from bridgebot.engine.parts import Parts, parts_of
from bridgebot.shipped import DEFAULT_MODEL_DIR, OPPONENT_NETS, shipped_model

if TYPE_CHECKING:
    from bridgebot.engine.cardplay_auction import AuctionReader

#: The card players :func:`named_card_player` builds.
CARD_PLAYERS = ("baseline", "pimc", "dd", "auction", "epbot-lead", "bfg")
#: The keys each card player takes beyond the Monte Carlo budget (``worlds``, ``lead_worlds``).
CARD_PLAYER_KEYS = {
    "pimc": {"signals"},
    "dd": {"signals"},
    "auction": {"opponents", "draw", "signals"},
    "epbot-lead": {"card", "bcalconsole"},
}
#: ``signals=``: the carding agreements of ``engine.cardplay_signals`` off (today's cards) or on.
SIGNALS = ("off", "on")
#: How ``auction`` keeps its worlds among the candidates it weighs (``draw=``): ``distinct``
#: weighted candidates (priority sampling; ``engine.worlds.sample_worlds``), the default, or
#: ``resample`` in proportion to the likelihood (repeats the likeliest; the first screen's).
AUCTION_DRAWS = ("distinct", "resample")
#: The opponent model of ``auction`` unless its spec names another.
AUCTION_OPPONENTS = "epbotnet"
#: Candidate worlds drawn per world kept where the auction weighs them: more than the engine's
#: 4, so that a telling auction still leaves many distinct worlds (``engine.cardplay_auction``).
AUCTION_OVERSAMPLE = 8


class LazyDDPlayer:
    """``engine.cardplay.DDCardPlayer``, built on the first card (bidding-only use costs nothing:
    no solver, no worker processes, no model read); with ``auction``, its worlds are weighed by
    the :class:`engine.cardplay_auction.AuctionReader` that ``auction()`` builds then; with
    ``signals``, it gives partner the signals of ``engine.cardplay_signals`` and weighs its worlds
    by partner's too (times the auction's)."""

    name = "ddplay"

    def __init__(
        self,
        seed: int,
        worlds: int = WORLDS,
        lead_worlds: int = LEAD_WORLDS,
        auction: Callable[[], AuctionReader] | None = None,
        distinct: bool = False,
        signals: bool = False,
    ) -> None:
        self.seed = seed
        self.worlds = worlds
        self.lead_worlds = lead_worlds
        self.auction = auction
        self.distinct = distinct
        self.signals = signals
        self.player: CardPlayer | None = None
        self._board = 1

    def reset(self, board: int) -> None:
        self._board = board
        if self.player is not None:
            self.player.reset(board)

    def play(self, view: PlayView) -> Card:
        if self.player is None:
            from bridgebot.engine.cardplay import DDCardPlayer
            from bridgebot.engine.cardplay_signals import (
                SignalReader,
                StandardCarding,
                product_reader,
            )

            reader = None if self.auction is None else self.auction()
            self.player = DDCardPlayer(
                worlds=self.worlds,
                lead_worlds=self.lead_worlds,
                seed=self.seed,
                auction_reader=product_reader(reader, SignalReader()) if self.signals else reader,
                oversample=4 if self.auction is None else AUCTION_OVERSAMPLE,
                distinct=self.distinct,
                signaller=StandardCarding() if self.signals else None,
            )
            self.player.reset(self._board)
        return self.player.play(view)

    def close(self) -> None:
        if self.player is not None:
            self.player.close()


def card_player(options: CardPlayerOptions, seed: int) -> CardPlayer:
    """The card player ``options`` name (``play``, one of :data:`CARD_PLAYERS`); its budget is
    counted in worlds, never in seconds, so a seeded agent plays the same cards on any machine."""
    play: str = options.play
    budget = {"worlds": options.worlds}
    if options.lead_worlds is not None:
        budget["lead_worlds"] = options.lead_worlds
    return _build(play, seed, budget)


def auction_reader(
    opponents: str = AUCTION_OPPONENTS, partner: Path = DEFAULT_MODEL_DIR
) -> AuctionReader:
    """An :class:`engine.cardplay_auction.AuctionReader`: partner read with the policy in
    ``partner`` (the shipped one), the opponents with ``opponents`` (``self``: the same policy;
    a shipped opponent net, :data:`bridgebot.shipped.OPPONENT_NETS`; or a policy directory).
    A model error raises :class:`AgentSpecError`."""
    from bridgebot.engine.cardplay_auction import AuctionReader
    from bridgebot.engine.modelcard import ModelError
    from bridgebot.engine.policy import Policy

    try:
        ours = Policy(partner, threads=1)
        if opponents == "self":
            return AuctionReader(ours)
        where = shipped_model(opponents) if opponents in OPPONENT_NETS else Path(opponents)
        return AuctionReader(ours, Policy(where, threads=1))
    except ModelError as e:
        raise AgentSpecError(f"card player auction: opponent model {opponents!r}: {e}") from e


def named_card_player(spec: str, seed: int) -> CardPlayer:
    """The card player ``spec`` names: ``NAME[,key=value...]``, NAME one of
    :data:`CARD_PLAYERS` (see the module doc); keys ``worlds`` and ``lead_worlds`` (the Monte
    Carlo players' budgets), ``opponents`` (``auction``'s opponent model), ``draw``, ``signals``
    (:data:`SIGNALS`). A name or key it does not know raises :class:`AgentSpecError` (one
    line)."""
    name, *pairs = (part.strip() for part in spec.split(","))
    keys: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not value:
            raise AgentSpecError(f"card player {spec!r}: {pair!r} is not key=value")
        keys[key.strip()] = value.strip()
    allowed = {"worlds", "lead_worlds"} | CARD_PLAYER_KEYS.get(name, set())
    unknown = sorted(set(keys) - allowed) if name not in ("baseline", "bfg") else sorted(keys)
    if unknown:
        raise AgentSpecError(f"card player {spec!r}: unknown key(s) {', '.join(unknown)}")
    budget: dict[str, int] = {}
    for key in ("worlds", "lead_worlds"):
        if key in keys:
            if not keys[key].isdigit() or int(keys[key]) < 1:
                raise AgentSpecError(f"card player {spec!r}: {key} must be an integer >= 1")
            budget[key] = int(keys[key])
    if name == "epbot-lead":
        return EPBotLeadPlayer(
            keys.get("card", "WBridge5-Sayc"), keys.get("bcalconsole"), _build("pimc", seed, budget)
        )
    draw = keys.get("draw", AUCTION_DRAWS[0])
    if draw not in AUCTION_DRAWS:
        raise AgentSpecError(
            f"card player {spec!r}: draw must be one of {', '.join(AUCTION_DRAWS)}"
        )
    signals = keys.get("signals", SIGNALS[0])
    if signals not in SIGNALS:
        raise AgentSpecError(f"card player {spec!r}: signals must be one of {', '.join(SIGNALS)}")
    opponents = keys.get("opponents", AUCTION_OPPONENTS)
    return _build(name, seed, budget, opponents, spec, draw, signals == "on")


class EPBotLeadPlayer:
    """EPBot's opening lead (``engine.epbot.EPBotAgent.lead``, EPBot found as the ``epbot``
    agent finds it, playing ``card``), ``then`` for every other card. EPBot's card play runs
    BCalcConsole; without its path (``bcalconsole``) this raises :class:`AgentSpecError`, one
    line, at once: EPBot answers no lead without it."""

    name = "epbot-lead"

    def __init__(self, card: str, bcalconsole: str | None, then: CardPlayer) -> None:
        from bridgebot.engine.epbot import EPBotAgent
        from bridgebot.engine.epbot_cards import find_card, read_convention_card
        from bridgebot.engine.epbot_native import epbot_folder

        if not bcalconsole:
            raise AgentSpecError(
                "card player epbot-lead: EPBot's opening lead needs BCalcConsole, the "
                "double-dummy solver its card play runs (bcalconsole=PATH); without it EPBot "
                "answers '201-No bcalconsole path'"
            )
        folder = epbot_folder()
        convention = read_convention_card(find_card(folder, card))
        self.bcalconsole = bcalconsole
        self.agent = EPBotAgent(folder, convention, convention, then, self.name)

    def reset(self, board: int) -> None:
        self.agent.reset(board)

    def play(self, view: PlayView) -> Card:
        """EPBot's card for the opening lead, ``then``'s for the others."""
        if not view.played and view.seat == view.controller:
            return self.agent.lead(view, self.bcalconsole)
        return self.agent.play(view)

    def close(self) -> None:
        self.agent.close()


def _build(
    name: str,
    seed: int,
    budget: dict[str, int],
    opponents: str = AUCTION_OPPONENTS,
    spec: str | None = None,
    draw: str = AUCTION_DRAWS[0],
    signals: bool = False,
) -> CardPlayer:
    """The card player ``name`` (one of :data:`CARD_PLAYERS`) with the Monte Carlo ``budget``;
    ``auction`` keeps its worlds by ``draw`` (one of :data:`AUCTION_DRAWS`), whose default is the
    one of an agent's ``play=auction`` and of the yardstick's ``auction`` alike."""
    if name == "baseline":
        from bridgebot.engine.cardplay import BaselinePlayer

        return BaselinePlayer()
    if name == "bfg":
        from bridgebot.engine.cardplay_bfg import BfgCardPlayer

        return BfgCardPlayer(seed)
    worlds = budget.get("worlds", WORLDS)
    lead_worlds = budget.get(
        "lead_worlds", AUCTION_LEAD_WORLDS if name == "auction" else LEAD_WORLDS
    )
    if name in ("pimc", "dd"):
        return LazyDDPlayer(seed, worlds, lead_worlds, signals=signals)
    if name == "auction":
        distinct = draw == "distinct"
        return LazyDDPlayer(
            seed, worlds, lead_worlds, lambda: auction_reader(opponents), distinct, signals
        )
    raise AgentSpecError(
        f"card player {spec or name!r}: no card player {name!r}; known: {', '.join(CARD_PLAYERS)}"
    )


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
        """The card player's card."""
        return self.player.play(view)

    def close(self) -> None:
        """Closes the card player, then the agent, whatever the first did."""
        with ExitStack() as then:
            then.callback(self.agent.close)
            self.player.close()


def with_card_player(agent: Agent, player: CardPlayer) -> WithCardPlayer:
    """Wrap any agent so its ``play`` uses ``player`` (e.g. a :class:`DDCardPlayer`)."""
    return WithCardPlayer(agent, player)
