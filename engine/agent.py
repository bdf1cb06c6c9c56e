"""The narrow interface between the seat client (or the tournament) and a bot.

An ``Agent`` answers two questions, both synchronously and deterministically given its own seeded
RNG: which call to make (``bid``) and which card to play (``play``). The seat client runs these in an
executor so the event loop never blocks.

The lifecycle, which every runner (seat client, match rooms, DD match, tournament workers) honours::

    with make_agent("default", seed=3) as agent:   # built ready: models loaded, workers started
        for board in boards:
            agent.reset(board.number)               # also for a board the TM restarts
            ... agent.bid(view) / agent.play(view) ...
    # leaving the block closes it: solver workers stopped, sessions released, also on an error

Whoever builds an agent closes it; a runner handed an agent by its caller leaves that to the
caller. An agent that can answer many positions in one call is a :class:`BatchBidder`: runners
that batch check for it with ``isinstance``, never by probing attributes.

Views carry only what the seat may legally know, and ``legal`` is never empty: build them with
:func:`bidding_view` and :func:`play_view`, the one place that asks ``bridgebot.laws`` which calls
and cards are legal. Bridge vocabulary comes from ``endplay.types``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

from bridgebot.laws.calls import legal_calls, same_call, to_call
from bridgebot.laws.play import legal_cards
from endplay.types import Bid, Card, Contract, Hand, Player, Vul


class AgentSpecError(ValueError):
    """An agent spec string that names no known agent or carries bad options (what an
    :class:`AgentFactory` raises; the message is one line naming the agent and the option)."""


@dataclass(frozen=True)
class BiddingView:
    """What ``seat`` knows when it is its turn to call."""

    seat: Player
    dealer: Player
    vul: Vul
    hand: Hand
    auction: tuple[Bid, ...]
    """Every call so far, starting with the dealer's."""
    board: int
    legal: tuple[Bid, ...]
    """The calls ``seat`` may make now: never empty (see :func:`bidding_view`)."""

    def __post_init__(self) -> None:
        if not self.legal:
            raise ValueError(
                f"board {self.board}: a bidding view for {self.seat.name} with no call"
            )


@dataclass(frozen=True)
class PlayView:
    """What the controller of ``seat``'s card knows when that card is due.

    ``seat`` is the player whose card is due; ``controller`` is who decides it (declarer when
    ``seat`` is dummy). ``hand`` is the controller's own remaining cards; ``dummy`` is dummy's
    remaining cards once they are visible (after the opening lead), else ``None``.
    """

    seat: Player
    controller: Player
    dealer: Player
    vul: Vul
    auction: tuple[Bid, ...]
    contract: Contract
    hand: Hand
    dummy: Hand | None
    played: tuple[tuple[Player, Card], ...]
    """Every card played so far, in order, with the player who played it."""
    legal: tuple[Card, ...]
    """The cards ``seat`` may play now: never empty (see :func:`play_view`)."""
    board: int = 1
    extra: dict[str, object] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if not self.legal:
            raise ValueError(f"board {self.board}: a play view for {self.seat.name} with no card")

    @property
    def declarer(self) -> Player:
        return self.contract.declarer

    @property
    def dummy_seat(self) -> Player:
        return self.contract.declarer.partner

    @property
    def trick_no(self) -> int:
        """1-based number of the trick this card belongs to."""
        return len(self.played) // 4 + 1

    @property
    def current_trick(self) -> tuple[tuple[Player, Card], ...]:
        return self.played[len(self.played) - len(self.played) % 4 :]


def bidding_view(
    dealer: Player,
    vul: Vul,
    hand: Hand,
    auction: Sequence[Bid],
    board: int,
    refused: Sequence[Bid] = (),
) -> BiddingView:
    """The view of the seat whose turn it is after ``auction``; ``legal`` is what the laws allow
    minus ``refused`` (calls the table manager already turned down this turn)."""
    legal = tuple(
        c for c in legal_calls(dealer, auction) if not any(same_call(c, r) for r in refused)
    )
    seat = to_call(dealer, auction)
    return BiddingView(seat, dealer, vul, hand, tuple(auction), board, legal)


def play_view(
    *,
    seat: Player,
    controller: Player,
    dealer: Player,
    vul: Vul,
    auction: Sequence[Bid],
    contract: Contract,
    hand: Hand,
    dummy: Hand | None,
    played: Sequence[tuple[Player, Card]],
    board: int,
    refused: Sequence[Card] = (),
) -> PlayView:
    """The view of ``controller`` deciding ``seat``'s card; ``legal`` follows suit from the cards
    ``seat`` holds (dummy's when ``seat`` is dummy), minus ``refused``."""
    holding = dummy if seat != controller and dummy is not None else hand
    trick = [c for _, c in played[len(played) - len(played) % 4 :]]
    legal = tuple(c for c in legal_cards(holding, trick) if c not in refused)
    return PlayView(
        seat=seat,
        controller=controller,
        dealer=dealer,
        vul=vul,
        auction=tuple(auction),
        contract=contract,
        hand=hand,
        dummy=dummy,
        played=tuple(played),
        legal=legal,
        board=board,
    )


@runtime_checkable
class CardPlayer(Protocol):
    """The play half of an agent (``engine.cardplay``'s players satisfy it)."""

    def reset(self, board: int) -> None: ...
    def play(self, view: PlayView) -> Card: ...
    def close(self) -> None: ...


@runtime_checkable
class Agent(Protocol):
    """A bot for one seat. Build one with the composition root (``bridgebot.agents.make_agent``).

    A class that subclasses ``Agent`` explicitly inherits the context-manager methods and a
    ``close`` that has nothing to release.
    """

    name: str

    def reset(self, board: int) -> None:
        """Forget per-board state; called before every board (also a restarted one)."""

    def bid(self, view: BiddingView) -> Bid:
        """Return one of ``view.legal``."""

    def play(self, view: PlayView) -> Card:
        """Return one of ``view.legal``."""

    def close(self) -> None:
        """Release what the agent holds (solver processes, model sessions); idempotent."""
        return None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@runtime_checkable
class BatchBidder(Agent, Protocol):
    """An agent that answers many bidding views in one call (one ONNX run for a batch).

    Its bidding keeps no state between calls, so a runner may mix boards in one batch and does not
    call ``reset`` between them.
    """

    def bid_batch(self, views: Sequence[BiddingView]) -> list[Bid]:
        """One call per view, in order."""
        ...


class AgentFactory(Protocol):
    """Builds an agent from its spec string (``bridgebot.agents.make_agent``): what the
    composition root hands to the runners below it (seat client, matches, tournaments)."""

    def __call__(self, spec: str, seed: int = 0) -> Agent: ...
