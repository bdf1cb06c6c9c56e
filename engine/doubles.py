"""The penalty doubles: option ``doubles=on`` of every bidding agent.

Rule bots and human players double an opponents' contract when their side's defence beats it;
bfg almost never does, and a policy trained against bfg and itself learned to sacrifice recklessly
because nobody punished it. The penalty doubles make any bidder punish: when the agent would pass
and a double of the opponents' contract is legal, it doubles if the *expected* score gain of
doubling (for our side) exceeds a margin. For an agent that bids through the pipeline they are
its last layer (:class:`PenaltyDoublesLayer`); an agent without one (bfg, EPBot) is wrapped
(:class:`PenaltyDoublesWrapper`).

Everything is estimated from what the seat may know: the 480-element observation of
``engine.features`` (own hand, the auction as who-bid-what, vulnerability). From it
:func:`observable_features` derives a few bridge quantities (own HCP and quick tricks, trump
holding, how much partner and each side have bid, the contract); a linear model
(:class:`DoublesModel`, fitted by ``bridgebot train doubles`` on training deals with their DD
tables; the shipped one is ``penalty_doubles.json``, which ``bridgebot/shipped.py`` finds and the
composition root hands down: this module never looks for a file itself) predicts the tricks our side takes in defence, with a normal spread
around it; the expected gain sums, over the trick counts, the score difference between the
doubled and the undoubled contract (``laws.scoring.score_array``).

The one decision function works on whole batches of observations (``penalty_doubles``), so the
same code serves a seat (a batch of one), the layer and self-play (thousands of rows per step).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from bridgebot.core.arrays import FloatArray, IntArray
from bridgebot.core.errors import validation_fault
from bridgebot.core.files import note_read, write_text_file
from bridgebot.engine.agent import Agent, BatchBidder, BiddingView, PlayView
from bridgebot.engine.features import (
    HAND,
    N_BIDS,
    OPENING_PASS,
    VUL_THEM,
    StandingContract,
    decode_bids,
    encode,
    legal_mask,
    standing_contract,
)
from bridgebot.engine.modelcard import Training
from bridgebot.engine.parts import Parts, parts_of
from bridgebot.engine.pipeline import Amending, Step
from bridgebot.laws.calls import DOUBLE, is_pass
from bridgebot.laws.scoring import score_array
from endplay.types import Bid, Card
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    field_serializer,
    field_validator,
    model_validator,
)

#: Names of the columns of :func:`observable_features`, in order (stored with the weights).
FEATURE_NAMES: tuple[str, ...] = (
    "bias",
    "own_hcp",
    "own_aces",
    "own_kings",
    "own_quick_tricks",
    "own_trump_len",
    "own_trump_hcp",
    "own_trump_len_ge4",
    "own_longest_side",
    "own_short_suits",
    "nt",
    "level",
    "partner_bids",
    "partner_max_level",
    "partner_doubled",
    "partner_opening_pass",
    "own_bids",
    "own_max_level",
    "our_max_level",
    "our_game",
    "we_opened",
    "opp_bids",
    "opp_opened",
    "opp_over_our_game",
    "decl_vul",
    "partner_bid_trump",
    "our_max_level_x_nt",
    "own_hcp_x_our_game",
)


class DoublesModelError(ValueError):
    """A penalty-double model file that cannot be used; the message names the file and field."""


class DoublesMeta(BaseModel):
    """How a fitted model was made: the trainer run (the model card's record) and what it measured."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    training: Training
    metrics: dict[str, JsonValue] = Field(default_factory=dict)


class DoublesModel(BaseModel):
    """Linear estimate of our defensive tricks, its spread, and the margin (points) to double.

    The schema of ``penalty_doubles.json``: :meth:`load` is its one reader, :meth:`save` its one
    writer. A model file whose features are not :data:`FEATURE_NAMES` is refused (its weights
    would multiply other columns)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    features: tuple[str, ...] = FEATURE_NAMES
    weights: tuple[float, ...] = Field(description="one per feature: defensive tricks per unit")
    sd: float = Field(gt=0, description="spread (tricks) of the true count around the estimate")
    margin: float = Field(description="expected gain (points) above which the layer doubles")
    meta: DoublesMeta | None = Field(
        default=None, description="how the model was fitted; None while it is being fitted"
    )

    @field_validator("features")
    @classmethod
    def _computed_by_this_build(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        if names != FEATURE_NAMES:
            raise ValueError(f"{list(names)[:3]}... are not the ones this build computes")
        return names

    @model_validator(mode="after")
    def _one_weight_per_feature(self) -> DoublesModel:
        if len(self.weights) != len(self.features):
            raise ValueError(f"{len(self.weights)} weights for {len(self.features)} features")
        return self

    @field_serializer("weights")
    def _rounded(self, weights: tuple[float, ...]) -> list[float]:
        return [round(w, 6) for w in weights]

    @classmethod
    def load(cls, path: str | Path) -> DoublesModel:
        """Read a model file (reported as read, :func:`core.files.note_read`, for the marks of
        the agent it serves); every failure is a :class:`DoublesModelError` naming file and
        field."""
        p = Path(path)
        try:
            data = p.read_bytes()
        except OSError as e:
            raise DoublesModelError(f"{p}: cannot read the penalty-double model ({e})") from None
        note_read(p, data)
        try:
            return cls.model_validate_json(data)
        except ValidationError as e:
            raise DoublesModelError(
                f"{p}: not a penalty-double model: {validation_fault(e)}"
            ) from None

    def save(self, path: str | Path) -> None:
        """Write the model file atomically (a crash leaves the old file or the new one)."""
        write_text_file(path, self.model_dump_json(indent=1) + "\n")


def _quick_tricks(hand: npt.NDArray[np.bool_]) -> FloatArray:
    """Quick tricks per row (AK 2, AQ 1.5, A 1, KQ 1, Kx 0.5) from hand[B, 13 ranks, 4 suits]."""
    a, k, q = hand[:, 12, :], hand[:, 11, :], hand[:, 10, :]
    length = hand.sum(axis=1)
    qt = np.where(
        a & k, 2.0, np.where(a & q, 1.5, np.where(a, 1.0, np.where(k & q, 1.0, 0.0)))
    ) + np.where(~a & k & ~q & (length >= 2), 0.5, 0.0)
    return np.asarray(qt.sum(axis=1), dtype=np.float32)


def observable_features(x: FloatArray) -> tuple[FloatArray, StandingContract]:
    """Columns :data:`FEATURE_NAMES` (float32[B, F]) and the standing contract, from observations."""
    x = np.asarray(x, dtype=np.float32).reshape(-1, 480)
    b = len(x)
    rows = np.arange(b)
    c = standing_contract(x)
    hand = x[:, HAND:].reshape(b, 13, 4) > 0  # OpenSpiel: rank 2..A, suit C, D, H, S
    hcp_by_rank = np.zeros(13, dtype=np.float32)
    hcp_by_rank[9:] = (1, 2, 3, 4)
    suit_hcp = (hand * hcp_by_rank[None, :, None]).sum(axis=1)  # [B, 4]
    length = hand.sum(axis=1).astype(np.float32)  # [B, 4]
    nt = c.strain == 4
    trump = np.minimum(c.strain, 3)
    trump_len = np.where(nt, 0.0, length[rows, trump])
    trump_hcp = np.where(nt, 0.0, suit_hcp[rows, trump])
    side_len = np.where(np.arange(4)[None, :] == np.where(nt, -1, trump)[:, None], 0.0, length)
    bids: npt.NDArray[np.bool_] = np.asarray(decode_bids(x))
    made = bids[:, :, 0, :]  # [B, 35, 4]
    level_of = (np.arange(N_BIDS) // 5 + 1)[None, :]

    def max_level(seats: Sequence[int]) -> FloatArray:
        m = made[:, :, list(seats)].any(axis=2)
        return np.asarray(np.where(m, level_of, 0).max(axis=1), dtype=np.float32)

    def count(seats: Sequence[int]) -> FloatArray:
        return np.asarray(made[:, :, list(seats)].sum(axis=(1, 2)), dtype=np.float32)

    any_bid = np.asarray(made.any(axis=2), dtype=np.bool_)
    opening = np.argmax(any_bid, axis=1)
    opener = np.argmax(made[rows, opening], axis=1)
    has_any = any_bid.any(axis=1)
    our_top = np.where(made[:, :, [0, 2]].any(axis=2), np.arange(N_BIDS)[None, :], -1).max(axis=1)
    our_max = max_level([0, 2])
    # Game: 3NT (index 14), 4H (17), 4S (18), 5C (20) and every bid above 4S except 5C/5D... any
    # bid from 3NT on that scores game: 3NT, 4H, 4S, 4NT and everything from 5C up.
    game_bid = np.zeros(N_BIDS + 1, dtype=bool)
    game_bid[[14, 17, 18, 19]] = True
    game_bid[20:N_BIDS] = True
    our_game = game_bid[np.where(our_top >= 0, our_top, N_BIDS)]
    top = np.where(c.has, (c.level - 1) * 5 + c.strain, -1)
    cols = [
        np.ones(b, np.float32),
        suit_hcp.sum(axis=1),
        hand[:, 12, :].sum(axis=1),
        hand[:, 11, :].sum(axis=1),
        _quick_tricks(hand),
        trump_len,
        trump_hcp,
        (trump_len >= 4).astype(np.float32),
        side_len.max(axis=1),
        ((side_len <= 1) & ~nt[:, None]).sum(axis=1),
        nt.astype(np.float32),
        c.level.astype(np.float32),
        count([2]),
        max_level([2]),
        bids[:, :, 1, 2].any(axis=1).astype(np.float32),
        x[:, OPENING_PASS + 2],
        count([0]),
        max_level([0]),
        our_max,
        our_game.astype(np.float32),
        (has_any & (opener % 2 == 0)).astype(np.float32),
        count([1, 3]),
        (has_any & (opener % 2 == 1)).astype(np.float32),
        (our_game & (top > our_top)).astype(np.float32),
        x[:, VUL_THEM + 1],
        (made[:, :, 2] & ((np.arange(N_BIDS) % 5)[None, :] == c.strain[:, None])).any(axis=1),
        our_max * nt,
        suit_hcp.sum(axis=1) * our_game,
    ]
    feats = np.stack([np.asarray(col, dtype=np.float32) for col in cols], axis=1)
    return feats, c


def _normal_cdf(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Logistic approximation of the standard normal CDF (max error about 0.01)."""
    return np.asarray(1.0 / (1.0 + np.exp(-1.702 * z)), dtype=np.float64)


def expected_gain(
    feats: FloatArray, contract: StandingContract, model: DoublesModel
) -> npt.NDArray[np.float64]:
    """Expected points our side gains by doubling instead of passing the standing contract."""
    mu = feats.astype(np.float64) @ np.asarray(
        model.weights, dtype=np.float64
    )  # our defensive tricks
    tricks = np.arange(14)[None, :]  # declarer's tricks
    defence = 13 - tricks
    hi = _normal_cdf((defence + 0.5 - mu[:, None]) / model.sd)
    lo = _normal_cdf((defence - 0.5 - mu[:, None]) / model.sd)
    p = np.where(defence == 13, 1.0 - lo, np.where(defence == 0, hi, hi - lo))
    p = p / p.sum(axis=1, keepdims=True)
    lv = np.where(contract.has, contract.level, 1)[:, None]
    st = contract.strain[:, None]
    vul = (feats[:, FEATURE_NAMES.index("decl_vul")] > 0)[:, None]
    plain = score_array(lv, st, 0, vul, tricks)
    doubled = score_array(lv, st, 1, vul, tricks)
    gain: npt.NDArray[np.float64] = (p * (plain - doubled)).sum(axis=1)
    return gain


def penalty_doubles(
    x: FloatArray, mask: npt.NDArray[np.bool_], model: DoublesModel
) -> npt.NDArray[np.bool_]:
    """Rows (observations ``x``[B, 480], legal masks [B, 38]) where the layer would double."""
    m = model
    x = np.asarray(x, dtype=np.float32).reshape(-1, 480)
    legal = np.asarray(mask, dtype=np.bool_).reshape(-1, 38)[:, 1]
    out = np.zeros(len(x), dtype=np.bool_)
    idx = np.nonzero(legal)[0]
    if idx.size:
        feats, contract = observable_features(x[idx])
        out[idx] = expected_gain(feats, contract, m) > m.margin
    return out


def apply_doubles(
    calls: npt.NDArray[np.integer],
    x: FloatArray,
    mask: npt.NDArray[np.bool_],
    model: DoublesModel,
) -> IntArray:
    """``calls`` (ALL_CALLS indices) with passes turned into doubles where the layer doubles."""
    c = np.asarray(calls, dtype=np.int64).copy()
    passing = np.nonzero(c == 0)[0]
    if passing.size:
        dbl = penalty_doubles(np.asarray(x)[passing], np.asarray(mask)[passing], model)
        c[passing[dbl]] = 1
    return c


class PenaltyDoublesLayer(Amending):
    """The penalty doubles as a layer of the pipeline (:class:`engine.pipeline.Layer`), the last
    of an agent that has one (``doubles=on`` of ``default``, ``policy:PATH``, ``search``): where
    the calls so far pass, it doubles by :func:`penalty_doubles` with ``model`` (the shipped one:
    ``bridgebot.shipped.PENALTY_DOUBLES``). It forces nothing, and a call another layer forces
    keeps that layer's word: the asking convention forces only where our side holds the contract,
    where no double is legal. Keeps no state."""

    name = "doubles"

    def __init__(self, model: DoublesModel) -> None:
        self.model = model

    def apply(self, step: Step) -> IntArray:
        return apply_doubles(step.calls, step.x, step.mask, self.model)


class PenaltyDoublesWrapper(Agent):
    """The penalty doubles over an agent that has no pipeline to hold them as a layer (``bfg``,
    ``epbot``, ``random`` with ``doubles=on``): where ``inner`` passes, it doubles by
    :func:`penalty_doubles`; closing it closes ``inner``. Wrap a :class:`BatchBidder` in
    :class:`BatchPenaltyDoublesWrapper`. ``model`` as in :class:`PenaltyDoublesLayer`;
    ``doubles`` counts the passes it turned into doubles."""

    def __init__(self, inner: Agent, name: str, model: DoublesModel) -> None:
        self.inner = inner
        self.name = name
        self.model = model
        self.doubles = 0

    def reset(self, board: int) -> None:
        self.inner.reset(board)

    def _doubled(self, views: Sequence[BiddingView], calls: list[Bid]) -> list[Bid]:
        idx = [i for i, c in enumerate(calls) if is_pass(c)]
        if not idx:
            return calls
        x = np.stack([encode(views[i]) for i in idx])
        mask = np.stack([legal_mask(views[i].dealer, views[i].auction) for i in idx])
        dbl = penalty_doubles(x, mask, self.model)
        out = list(calls)
        for i, d in zip(idx, dbl, strict=True):
            if d:
                out[i] = DOUBLE
                self.doubles += 1
        return out

    def bid(self, view: BiddingView) -> Bid:
        return self._doubled([view], [self.inner.bid(view)])[0]

    def parts(self) -> Parts:
        """The inner agent's parts (the penalty doubles are not alerted: they are natural)."""
        return parts_of(self.inner)

    def play(self, view: PlayView) -> Card:
        return self.inner.play(view)

    def close(self) -> None:
        self.inner.close()


class BatchPenaltyDoublesWrapper(PenaltyDoublesWrapper, BatchBidder):
    """:class:`PenaltyDoublesWrapper` over a batch bidder, batching too: one pass of the doubles
    per batch."""

    inner: BatchBidder

    def __init__(self, inner: BatchBidder, name: str, model: DoublesModel) -> None:
        super().__init__(inner, name, model)

    def bid_batch(self, views: Sequence[BiddingView]) -> list[Bid]:
        return self._doubled(views, list(self.inner.bid_batch(views)))
