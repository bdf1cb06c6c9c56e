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

The auction is read once per board and hand, not once per card: a seat's calls depend on its own
hand alone, so each world's log-likelihood is a sum over the hidden seats of a term of that seat's
hand, and the reader keeps every term it has computed (:class:`SeatTerms`) for as long as the
auction, the dealer, the vulnerability and the reading seat stay the same (a board). Later in the
play, when the cards seen leave few layouts, most hands drawn for a card were read for an earlier
one; only hands never read before reach the policy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass(eq=False)
class SeatTerms:
    """The log-likelihood of one seat's calls, memoised by its hand, for one board's auction.

    ``model``, ``noise``, ``dealer``, ``vul``, ``history`` and ``me`` are those of
    :func:`engine.likelihood.auction_log_likelihood`; ``seat`` is the hidden seat read.
    """

    model: CallModel
    seat: int
    noise: float
    dealer: int
    vul: int
    history: npt.NDArray[np.int64]
    me: int
    #: Each hand read so far (its 52 bits, packed) and its term.
    known: dict[bytes, float] = field(default_factory=dict)

    def __call__(self, worlds: OwnersArray) -> npt.NDArray[np.float64]:
        """The term of each world in ``worlds`` (its seat's hand read once, ever)."""
        hands = np.packbits(worlds == self.seat, axis=1)
        keys = [row.tobytes() for row in hands]
        missing = list(dict.fromkeys(k for k in keys if k not in self.known))
        if missing:
            # Only this seat's calls are read, so only its cards matter: the others' go to a
            # seat that is not read.
            rows = np.unpackbits(
                np.frombuffer(b"".join(missing), dtype=np.uint8).reshape(len(missing), -1),
                axis=1,
                count=52,
            ).astype(bool)
            owners = np.where(rows, self.seat, (self.seat + 1) % 4).astype(np.uint8)
            terms = auction_log_likelihood(
                self.model,
                owners,
                self.dealer,
                self.vul,
                self.history,
                self.me,
                {self.seat},
                self.noise,
            )
            self.known.update(zip(missing, (float(t) for t in terms), strict=True))
        return np.array([self.known[k] for k in keys], dtype=np.float64)


@dataclass(frozen=True)
class AuctionReader:
    """The likelihood of a play view's auction in each world (see the module doc)."""

    partner: CallModel
    opponents: CallModel | None = None
    partner_noise: float = PARTNER_NOISE
    opponent_noise: float = OPPONENT_NOISE
    power: float = POWER
    #: Each hidden seat's terms, for the one board (auction, dealer, vulnerability, reader)
    #: they were read for.
    _terms: dict[tuple[object, ...], dict[int, SeatTerms]] = field(
        default_factory=dict, compare=False, repr=False
    )

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
        board = (tuple(history.tolist()), dealer, vul, me)
        if board not in self._terms:
            self._terms.clear()  # a new board: the last one's terms are read for its auction
        terms = self._terms.setdefault(board, {})
        opponents = self.opponents or self.partner
        for model, seats, noise in (
            (self.partner, ours, self.partner_noise),
            (opponents, theirs, self.opponent_noise),
        ):
            for seat in seats:
                if seat not in terms:
                    terms[seat] = SeatTerms(model, seat, noise, dealer, vul, history, me)
        seat_terms = [terms[seat] for seat in sorted(ours | theirs)]

        def likelihood(worlds: OwnersArray) -> npt.NDArray[np.float64]:
            log_lik = np.zeros(len(worlds), dtype=np.float64)
            for term in seat_terms:
                log_lik += term(worlds)
            if len(log_lik) == 0:
                return log_lik
            log_lik *= self.power
            out: npt.NDArray[np.float64] = np.exp(log_lik - log_lik.max())
            return out

        return likelihood
