"""What an agent plays, said by the agent: its parts, through one typed interface.

Code outside an agent (the seat's alerts, the match report, the play page, ``bridgebot explain``,
the league's layers) asks :func:`parts_of`; it never walks an agent's attributes. An agent that
has parts implements :class:`Described`; every wrapper (the penalty doubles, a swapped card
player, the search where doubled) forwards its inner agent's. :func:`engine.explain.reader_of` turns the parts
into the :class:`CallReader` that alerts and explains the agent's calls: the agent's own reader
where it has one (an outside bidder says what its calls mean), else the sampling explainer over
its learned policy with its asking convention (:mod:`engine.explain`), else none.

An opponent's call is read by its own bidder's alert (what the table manager relayed), never by
our policy's guess: the places that show calls take the alert first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from bridgebot.engine.agent import BiddingView
from bridgebot.engine.batch_policy import BatchPolicy
from bridgebot.engine.pipeline import Layer
from endplay.types import Bid, Hand, Player, Vul


class CallReader(Protocol):
    """What an agent's calls mean, in words."""

    def alert_for(self, view: BiddingView, call: Bid) -> str | None:
        """The ``Alert.`` text of the agent's ``call`` at ``view`` when it is artificial (in the
        protocol's alert vocabulary), else None."""
        ...

    def texts(
        self,
        dealer: Player,
        vul: Vul,
        auction: Sequence[Bid],
        seats: Sequence[Player],
        hands: Mapping[Player, Hand] | None = None,
    ) -> list[str | None]:
        """Per call of ``auction``, the agent's reading of it where ``seats`` made it, else None
        (``hands``: the hands, where known; a reader may ignore them). ``ValueError`` for an
        auction that is not legal."""
        ...


@dataclass(frozen=True)
class Parts:
    """An agent's parts: ``policy``, the learned policy it bids with (None for a rule bidder);
    ``layers``, the layers around its base in the pipeline's order (:mod:`engine.pipeline`);
    ``convention``, the asking convention it plays (``controls``) or None; ``reader``,
    its own reading of calls where it has one (an outside bidder's)."""

    policy: BatchPolicy | None = None
    layers: tuple[Layer, ...] = ()
    convention: str | None = None
    reader: CallReader | None = None


@runtime_checkable
class Asking(Protocol):
    """A layer that plays an asking convention (:class:`engine.control_layer.ConventionLayer`):
    ``scheme`` names the convention (``controls``)."""

    scheme: str


def convention_of(layers: Sequence[Layer]) -> str | None:
    """The asking convention ``layers`` play: the scheme of the first :class:`Asking` layer,
    None where none is."""
    return next((x.scheme for x in layers if isinstance(x, Asking)), None)


@runtime_checkable
class Described(Protocol):
    """An agent that says what it plays."""

    def parts(self) -> Parts: ...


L = TypeVar("L")


def layer_of(parts: Parts, kind: type[L]) -> L | None:
    """The first of ``parts``' layers that is a ``kind`` (``engine.slams.SlamLayer``,
    ``engine.control_layer.ConventionLayer``), None where none is."""
    return next((x for x in parts.layers if isinstance(x, kind)), None)


def parts_of(agent: object) -> Parts:
    """``agent``'s parts; empty for an agent that says nothing (``random``, ``bfg``)."""
    return agent.parts() if isinstance(agent, Described) else Parts()
