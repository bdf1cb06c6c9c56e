"""Reading the auction in card play: each sampled world weighed by how likely the calls made at
the table are with that world's hands.

The card player samples the hidden hands uniformly from the deals consistent with the cards seen
(:mod:`engine.worlds`); :class:`AuctionReader` turns them into posterior worlds. The calls of a
hidden seat on the player's own side (a defender's partner) are read under ``partner``, our own
bidding policy; those of the other side (declarer, seen by a defender; both defenders, seen by
declarer) under ``opponents``, a model of the field's bidding (the shipped ``epbotnet``, say),
or under ``partner`` where none is given. Each call counts with probability ``1 - noise`` of
its model's and ``noise`` of a random legal call's (``partner_noise``, ``opponent_noise``), so a
call the model would not make costs a world a factor, not all its weight. A seat whose hand is
known (dummy, the player's own) gives every world the same factor and is not read. The
log-likelihood is tempered by ``power`` (0.5: its square root): at full strength a telling
auction leaves a handful of the worlds drawn (2 to 9 distinct worlds of 32 after 1H-2H-(2S)-4H,
measured), and the Monte Carlo player then fits its cards to those few. The
likelihood is that of the bidding search's particle filter
(:func:`engine.likelihood.auction_log_likelihood`), so the two read an auction alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from bridgebot.engine.agent import PlayView
from bridgebot.engine.likelihood import auction_log_likelihood
from bridgebot.engine.worlds import AuctionLikelihood, CallModel, OwnersArray
from bridgebot.laws.calls import bid_index

#: The defaults of :class:`AuctionReader`: a partner who bids as our policy does nearly always,
#: opponents who bid as their model does four times in five (the bidding search's own figure,
#: ``engine.search.SearchConfig.opponent_noise``).
PARTNER_NOISE = 0.05
OPPONENT_NOISE = 0.2
#: The default tempering of the log-likelihood (see the module doc).
POWER = 0.5


@dataclass(frozen=True)
class AuctionReader:
    """The likelihood of a play view's auction in each world (see the module doc)."""

    partner: CallModel
    opponents: CallModel | None = None
    partner_noise: float = PARTNER_NOISE
    opponent_noise: float = OPPONENT_NOISE
    power: float = POWER

    def __post_init__(self) -> None:
        for name, value in (
            ("partner_noise", self.partner_noise),
            ("opponent_noise", self.opponent_noise),
        ):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], not {value}")
        if not 0.0 < self.power <= 1.0:
            raise ValueError(f"power must be in (0, 1], not {self.power}")

    def __call__(self, view: PlayView) -> AuctionLikelihood | None:
        """The likelihood function of ``view``'s worlds, scaled so the likeliest world has 1;
        None where no hidden seat has called (no auction: every world weighs the same)."""
        if not view.auction:
            return None
        me = view.controller.value
        known = {me} | ({view.dummy_seat.value} if view.dummy is not None else set())
        ours = {s for s in (me, (me + 2) % 4) if s not in known}
        theirs = {s for s in ((me + 1) % 4, (me + 3) % 4) if s not in known}
        history = np.array([bid_index(c) for c in view.auction], dtype=np.int64)
        dealer, vul = view.dealer.value, int(view.vul.value)
        reads = [
            (self.partner, ours, self.partner_noise),
            (self.opponents or self.partner, theirs, self.opponent_noise),
        ]

        def likelihood(worlds: OwnersArray) -> npt.NDArray[np.float64]:
            log_lik = np.zeros(len(worlds), dtype=np.float64)
            for model, seats, noise in reads:
                if seats:
                    log_lik += auction_log_likelihood(
                        model, worlds, dealer, vul, history, me, seats, noise
                    )
            if len(log_lik) == 0:
                return log_lik
            log_lik *= self.power
            out: npt.NDArray[np.float64] = np.exp(log_lik - log_lik.max())
            return out

        return likelihood
