"""What a seat learns of its opponents at the table: how often they double.

The policy reads the opponents' doubles as the opponents it trained against meant them (bfg and
the league: takeout, or values). An opponent that doubles at every turn turns that reading
against it. The league's exploiters double about a third of their calls (bfg: 1.5%), and our
pair answers them as it would answer a real double: it jumps to game (``1S X 4S``), runs, or
passes where it would have bid on. On the validation deals that reading cost 1.6-1.7 IMPs a board
against two of the exploiters (docs/evaluation.md, "Their doubles, in the policy").

:class:`DoubleRate` counts the opponents' calls a seat sees, across boards. Once they have doubled
at least ``rate`` of ``seen`` or more calls, the seat's policy reads each auction as if they had
passed where they doubled (:func:`engine.features.without_their_doubles`), except where our
contract stands doubled: there the double is the position, and ``default`` hands it to the
search. Against bidders that double as bridge players do, the count never gets there, and
nothing changes.

The count belongs to the agent object: a seat client keeps one for its whole session, each
seat of a match one for the boards it plays (each worker of a parallel match its own). The
alerts are not told: ``bridgebot explain`` and the table's explanations of our calls still
sample the policy reading the doubles.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt
from bridgebot.engine.batch_policy import BatchPolicy, TiledPolicy
from bridgebot.engine.features import N_BIDS, decode_bids, tile_hands, without_their_doubles
from bridgebot.engine.knobs import knob
from bridgebot.laws.calls import is_double
from endplay.types import Bid

#: What the policy makes of the opponents' doubles: ``read`` them as it learned them, ``ignore``
#: them (as if the opponents had passed), or ``auto``: ignore them once :class:`DoubleRate`
#: says the opponents double far more than bridge players do.
Reading = Literal["auto", "read", "ignore"]


@dataclass
class DoubleRate:
    """The share of the opponents' calls that were doubles, over every call of theirs that the
    seat has seen (:meth:`see`), and whether that makes them wild doublers (:attr:`wild`)."""

    rate: float = knob(
        0.12,
        "least share of doubles among the opponents' calls at which policy_doubles=auto stops "
        "reading them (bfg doubles 1.5% of its calls, the league's exploiters a third)",
        gt=0.0,
        le=1.0,
    )
    """Least share of doubles among the opponents' calls that makes them wild doublers."""
    seen: int = knob(
        40, "fewest opponents' calls seen before policy_doubles=auto judges their rate", ge=1
    )
    """Fewest opponents' calls seen before the share counts."""
    calls: int = field(default=0, init=False)
    """The opponents' calls seen so far (:meth:`see`)."""
    doubles: int = field(default=0, init=False)
    """How many of them were doubles."""

    def __post_init__(self) -> None:
        if not 0.0 < self.rate <= 1.0 or self.seen < 1:
            raise ValueError(
                f"double rate: need 0 < rate <= 1 and seen >= 1, not {self.rate}, {self.seen}"
            )

    def see(self, auction: Sequence[Bid]) -> None:
        """Count the opponents' calls made since the seat's own last call: the two before its
        turn (fewer at the start of an auction)."""
        n = len(auction)
        for i in (n - 1, n - 3):
            if i >= 0:
                self.calls += 1
                self.doubles += int(is_double(auction[i]))

    @property
    def wild(self) -> bool:
        """The opponents double at least :attr:`rate` of their calls, over :attr:`seen` or
        more."""
        return self.calls >= self.seen and self.doubles >= self.rate * self.calls


def ignores(reading: Reading, rate: DoubleRate) -> bool:
    """Whether a policy agent with ``reading`` (its ``policy_doubles``) now reads the opponents'
    doubles as passes: always with ``ignore``, with ``auto`` once ``rate`` says they double
    wildly."""
    return reading == "ignore" or (reading == "auto" and rate.wild)


class TheirDoubles:
    """What a bidder makes of the opponents' doubles: its ``reading`` and, with ``auto``, the
    count of the opponents' calls it has seen (``rate``: the one piece of state bidding keeps,
    across boards)."""

    def __init__(self, reading: Reading = "read", rate: DoubleRate | None = None) -> None:
        self.reading = reading
        self.rate = rate or DoubleRate()

    def see(self, auctions: Iterable[Sequence[Bid]]) -> None:
        """Count the opponents' calls of each auction the bidder is asked to call after (with
        ``auto`` only)."""
        if self.reading == "auto":
            for auction in auctions:
                self.rate.see(auction)

    @property
    def ignored(self) -> bool:
        """Whether the bidder now reads the auction as if the opponents had passed where they
        doubled (``ignore``, or ``auto`` once :attr:`rate` says they double wildly)."""
        return ignores(self.reading, self.rate)


class WithoutTheirDoubles:
    """A :class:`engine.batch_policy.TiledPolicy` that reads every observation as if the opponents had
    passed where they doubled: the ``search`` agent's own policy once :class:`DoubleRate` says the
    opponents double wildly (its prior, partner's calls and its rollouts then read them as the
    policy agent does)."""

    def __init__(self, policy: BatchPolicy) -> None:
        self.policy = policy

    def logits(self, features: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        out: npt.NDArray[np.float32] = self.policy.logits(without_their_doubles(features))
        return out

    def tiled_logits(
        self, base: npt.NDArray[np.float32], hands: npt.NDArray[np.integer]
    ) -> npt.NDArray[np.float32]:
        """As :meth:`engine.policy.Policy.tiled_logits`, read without the opponents' doubles
        (auction bits: the positions' observations carry them); the full observations through
        :meth:`logits` where the policy is no :class:`engine.batch_policy.TiledPolicy`."""
        if not isinstance(self.policy, TiledPolicy):
            return self.logits(tile_hands(base, hands))
        out: npt.NDArray[np.float32] = self.policy.tiled_logits(without_their_doubles(base), hands)
        return out


def our_contract_doubled(x: npt.NDArray[np.floating]) -> npt.NDArray[np.bool_]:
    """Per observation ``x`` [B, 480]: our side holds the standing contract and the opponents
    have doubled it, nobody redoubling (:func:`laws.calls.doubled_against_caller`, read from the
    last bid of :func:`engine.features.decode_bids`: who bid it, who doubled, who redoubled)."""
    # [B, 35, made/doubled/redoubled, relative seat]
    bids: npt.NDArray[np.bool_] = np.asarray(decode_bids(x), dtype=np.bool_)
    made: npt.NDArray[np.bool_] = np.asarray(bids[:, :, 0, :].any(axis=2), dtype=np.bool_)
    last = N_BIDS - 1 - np.argmax(made[:, ::-1], axis=1)
    block: npt.NDArray[np.bool_] = np.asarray(bids[np.arange(len(x)), last], dtype=np.bool_)
    ours = block[:, 0, [0, 2]].any(axis=1)
    doubled = block[:, 1, [1, 3]].any(axis=1)
    redoubled = block[:, 2].any(axis=1)
    return np.asarray(made.any(axis=1) & ours & doubled & ~redoubled, dtype=np.bool_)


def policy_input(x: npt.NDArray[np.float32], ignore: bool) -> npt.NDArray[np.float32]:
    """The observations the policy reads: ``x`` itself, or with ``ignore`` ``x`` as if the
    opponents had passed where they doubled, except the rows where our contract stands doubled
    (:func:`our_contract_doubled`)."""
    if not ignore:
        return x
    out = without_their_doubles(x)
    keep = our_contract_doubled(x)
    out[keep] = x[keep]
    return out
