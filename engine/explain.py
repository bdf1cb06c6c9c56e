"""What a call of our learned policy says about the caller's hand, estimated from the policy itself.

Why: a rule-based bidder can print the rule it followed; a learned one has no rules to print. But
its meaning is observable: deal the caller many hands, ask the policy what it would call with each
in this auction, and keep the hands with which it makes the call it made. Their HCP range and suit
lengths *are* the call's meaning, and a table-ready explanation (``Alert.`` text) or a player's
reading (``bridgebot explain``) is a summary of them.

The estimate (rejection sampling, per caller): the caller's hand is drawn uniformly from the 52
cards; the policy (greedy, as it bids at the table) is run at each of the caller's earlier turns and
the hand is kept only while it reproduces the caller's own earlier calls; at the turn explained,
the kept hands that make the call are the sample. The other seats' calls enter through the
policy's observation (the auction), not through card removal: their hands are not dealt. That is
what a player would state too ("partner's 2C shows ...") and costs one policy batch per turn.
Sampling continues in chunks until the explained call has :attr:`Explainer.target` hands or
:attr:`Explainer.max_hands` have been drawn, which bounds the work per call.

Natural or artificial (alerted): a suit bid is natural when half its hands hold four cards in the
suit, or, where partner has bid the suit, when :data:`SUPPORTED` of them hold three (a raise shows
support); a notrump bid, when half have a notrump shape. A call whose meaning is in partner's
answer (a 4NT asking for aces) is read from the answers (:mod:`engine.explain_asks`): it and its
answer say what is asked and shown.

Everything here is pure computation on a :class:`engine.policy.Policy`: no I/O, no torch.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
from bridgebot.core.arrays import U8Array
from bridgebot.engine import control_ask
from bridgebot.engine.agent import BiddingView
from bridgebot.engine.batch_policy import BatchPolicy
from bridgebot.engine.control_ask import CONTROLS
from bridgebot.engine.explain_asks import LearnedAsk, read_asking
from bridgebot.engine.features import encode_arrays, legal_masks_arrays
from bridgebot.engine.parts import CallReader, parts_of
from bridgebot.laws.boards import side_vulnerable
from bridgebot.laws.calls import ALL_CALLS, PASS, bid_index, legal_calls, seat_of_call
from endplay.types import Bid, ContractBid, Denom, Hand, Player, Vul

#: Suit names in the data-file order (S, H, D, C), as a player says them.
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
#: Position of a bid strain's suit in the data-file order.
_SUIT_OF_DENOM = {Denom.spades: 0, Denom.hearts: 1, Denom.diamonds: 2, Denom.clubs: 3}
#: HCP of each card in the data-file order (A K Q J = 4 3 2 1 in every suit).
HCP_WEIGHTS: npt.NDArray[np.int64] = np.tile(np.array([4, 3, 2, 1] + [0] * 9, dtype=np.int64), 4)
MAX_HCP = 37

#: Headline range: at least this share of the sample lies inside it (2.5% cut from each tail).
HEADLINE_COVERAGE = 0.95
#: The inner range is the narrowest holding at least this share; its actual share is printed.
INNER_COVERAGE = 0.75
#: A headline range wider than this that starts at :data:`OPEN_FROM` or more is written ``12+``.
MAX_WIDTH = 10
OPEN_FROM = 8
#: A length (``5+ hearts``) or shape is stated when at least this share of the sample has it.
SURE = 0.9
#: Below this share of the hands that could make it, the call is "(almost) never" made here.
NEVER = 0.002
#: Fewer consistent hands than this and nothing can be said about the call.
MIN_CONTEXT = 50
#: A suit bid is artificial when fewer than this share of its hands hold 4+ cards in the suit; a
#: notrump bid, when fewer than this share have a notrump shape (:func:`notrump_shaped`).
ARTIFICIAL_BELOW = 0.5
#: A raise of a suit partner has bid is natural when at least this share of its hands hold three
#: or more cards in it (support): the shipped policy's 3H after ``1S Pass 2H Pass`` holds them
#: in 88% of its hands, its 2S over ``1S`` with any three hearts (``tests.policies``) in about 60%.
SUPPORTED = 0.8
#: Notrump bids from this level on may be asks read from partner's answers (4NT, 5NT).
ASK_LEVEL = 4
#: Partner's hands sampled for the answers to a possible ask (within the ``max_hands`` budget).
ASK_HANDS = 400
#: Words some peers find by substring and would take for another message (ZBridge, PROTOCOL 4).
FORBIDDEN_WORDS = ("passes", "plays", "bids", "doubles", "alert.", "infos.")


@dataclass(frozen=True)
class Explanation:
    """What the policy's ``call`` at ``index`` in the auction says about ``seat``'s hand."""

    index: int
    seat: Player
    call: Bid
    context: int
    """Sampled hands that reproduce the seat's earlier calls (the hands that could be here)."""
    sample: int
    """Of those, the hands with which the policy makes ``call``."""
    hcp_low: int = 0
    hcp_high: int = 0
    inner: tuple[int, int, float] | None = None
    """Narrower range (low, high, share of the sample) when it differs from the headline."""
    features: tuple[str, ...] = ()
    """Suit lengths and shape in words, e.g. ``4+ hearts or spades``, ``balanced``."""
    bid_suit_4plus: float | None = None
    """Share of the sample with 4+ cards in the bid suit (None for NT, pass, double)."""
    artificial: bool = False
    notrump_shape: float | None = None
    """Share of the sample with a notrump shape (:func:`notrump_shaped`; None but for NT bids)."""
    convention: str | None = None
    """The meaning the asking convention gives the call (:func:`engine.control_ask.meaning`): it is
    that meaning, whatever hands the sample holds."""
    support_3plus: float | None = None
    """Share of the sample with 3+ cards in the bid suit where partner has bid it (a raise), else
    None."""
    asking: LearnedAsk | None = None
    """Where the call is an ask (:mod:`engine.explain_asks`): what partner's answers show."""
    answering: LearnedAsk | None = None
    """Where the call answers partner's ask: that ask, whose :meth:`LearnedAsk.answer` is this
    call."""

    @property
    def frequency(self) -> float:
        return self.sample / self.context if self.context else 0.0

    @property
    def never(self) -> bool:
        """The policy (almost) never makes this call in this auction."""
        return self.context >= MIN_CONTEXT and self.frequency < NEVER

    @property
    def unknown(self) -> bool:
        """Too few hands reproduce the seat's earlier calls to say anything."""
        return self.context < MIN_CONTEXT

    @property
    def open_range(self) -> bool:
        return self.hcp_high - self.hcp_low > MAX_WIDTH and self.hcp_low >= OPEN_FROM

    @property
    def confidence(self) -> str:
        return "high" if self.sample >= 300 else "medium" if self.sample >= 60 else "low"

    def hcp_text(self) -> str:
        if self.open_range:
            return f"{self.hcp_low}+ HCP"
        return f"{self.hcp_low}-{self.hcp_high} HCP"

    def meaning(self) -> str:
        """The call's meaning in words, headline HCP range first (no call, no sample size)."""
        if self.convention is not None:
            return f"{self.convention} (artificial)"
        if self.unknown:
            return (
                "cannot say: the policy (almost) never makes this seat's earlier calls "
                f"({self.context} of the sampled hands do)"
            )
        if self.never:
            return "the policy (almost) never makes this call here"
        text = self.hcp_text()
        if self.inner is not None:
            lo, hi, share = self.inner
            text += f" ({share:.0%} {lo}-{hi})"
        if self.features:
            text += ", " + ", ".join(self.features)
        said = self._said()
        if said is not None:
            return f"{said}; {text}"
        if self.artificial:
            text += " (artificial)"
        return text

    def _said(self, alert: bool = False) -> str | None:
        """What the call asks or answers (:mod:`engine.explain_asks`), in words or, with
        ``alert``, in an alert's; None where it is neither an ask nor an answer."""
        if self.asking is not None:
            return self.asking.ask_alert() if alert else self.asking.ask_words()
        if self.answering is not None:
            call = _call_text(self.call)
            ask = self.answering
            return ask.answer_alert(call) if alert else ask.answer_words(call)
        return None

    def text(self) -> str:
        """One line: ``2C: 8-14 HCP (80% 9-13), 4+ hearts or spades [n=512 ...]``."""
        head = f"{_call_text(self.call)}: {self.meaning()}"
        if self.unknown or self.convention is not None:
            return head
        if self.never:
            return f"{head} [{self.sample} of {self.context} sampled hands make it]"
        return (
            f"{head} [{self.sample} of {self.context} sampled hands make it "
            f"({self.frequency:.1%}); confidence {self.confidence}]"
        )

    def alert_text(self) -> str:
        """The ``Alert.`` explanation in the protocol's vocabulary: ``8 to 14 total points, 4+
        cards in hearts or spades.`` (HCP stand for the total points); a convention's call says
        what the convention gives it: ``Control ask: asks for controls (ace 2, king 1).``; an ask
        read from partner's answers says them first: ``Asks for aces: 5C 0 aces, 5H 2 aces or 1,
        15 to 20 total points, 5+ cards in spades.``"""
        if self.convention is not None:
            return f"{self.convention}."
        high = MAX_HCP if self.open_range else self.hcp_high
        parts = [f"{self.hcp_low} to {high} total points"]
        said = self._said(alert=True)
        if said is not None:
            parts.insert(0, said)
        for feature in self.features:
            words = feature.split(" ", 1)
            if len(words) == 2 and words[0][0].isdigit():
                parts.append(f"{words[0]} cards in {words[1]}")
            else:
                parts.append(feature)
        text = ", ".join(parts) + "."
        assert not any(w in text.lower() for w in FORBIDDEN_WORDS), text
        return text


#: Calls as a player writes them, in the order of :data:`laws.calls.ALL_CALLS`.
CALL_NAMES: tuple[str, ...] = (
    "Pass",
    "X",
    "XX",
    *(f"{level}{s}" for level in range(1, 8) for s in ("C", "D", "H", "S", "NT")),
)


def _call_text(call: Bid) -> str:
    return CALL_NAMES[bid_index(call)]


def hcp(hands: U8Array) -> npt.NDArray[np.int64]:
    """HCP of each 13-hot hand (data-file order) in a batch."""
    return np.asarray(hands, dtype=np.int64) @ HCP_WEIGHTS


def suit_lengths(hands: U8Array) -> npt.NDArray[np.int64]:
    """int[B, 4]: lengths in S, H, D, C."""
    lengths: npt.NDArray[np.int64] = (
        np.asarray(hands, dtype=np.int64).reshape(-1, 4, 13).sum(axis=2)
    )
    return lengths


def notrump_shaped(lengths: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Hands (rows of :func:`suit_lengths`) with no singleton or void: balanced or semi-balanced,
    the hands a natural notrump bid shows. An unusual 2NT (two long suits) or a 4NT asking for
    aces on a hand with a short suit lacks it."""
    return np.asarray(lengths.min(axis=1) >= 2, dtype=np.bool_)


def headline_range(points: npt.NDArray[np.int64]) -> tuple[int, int]:
    """The range holding at least :data:`HEADLINE_COVERAGE` of ``points`` (equal tails cut)."""
    cut = (1 - HEADLINE_COVERAGE) / 2
    s = np.sort(points)
    n = len(s)
    drop = int(np.floor(cut * n))
    return int(s[drop]), int(s[n - 1 - drop])


def inner_range(points: npt.NDArray[np.int64]) -> tuple[int, int, float]:
    """The narrowest integer range holding at least :data:`INNER_COVERAGE` of ``points``."""
    lo_all, hi_all = int(points.min()), int(points.max())
    counts = np.bincount(points - lo_all, minlength=hi_all - lo_all + 1)
    cum = np.concatenate([[0], np.cumsum(counts)])
    n = len(points)
    best: tuple[int, int, float] | None = None
    for width in range(hi_all - lo_all + 1):
        for lo in range(hi_all - lo_all + 1 - width):
            share = (cum[lo + width + 1] - cum[lo]) / n
            if share >= INNER_COVERAGE and (best is None or share > best[2]):
                best = (lo + lo_all, lo + width + lo_all, float(share))
        if best is not None:
            return best
    return lo_all, hi_all, 1.0


def describe_lengths(lengths: npt.NDArray[np.int64], bid_suit: int | None) -> list[str]:
    """Suit lengths and shape that at least :data:`SURE` of the sample shares, in words."""
    out: list[str] = []
    stated: set[int] = set()
    for suit in range(4):
        col = lengths[:, suit]
        at_least = max((k for k in range(1, 14) if (col >= k).mean() >= SURE), default=0)
        if at_least >= 4 or (suit == bid_suit and at_least >= 3):
            out.append(f"{at_least}+ {SUIT_NAMES[suit]}")
            stated.add(suit)
    for pair, name in (((1, 0), "hearts or spades"), ((3, 2), "clubs or diamonds")):
        if stated & set(pair):
            continue
        best = lengths[:, list(pair)].max(axis=1)
        k = max((k for k in range(4, 14) if (best >= k).mean() >= SURE), default=0)
        if k:
            out.append(f"{k}+ {name}")
    shortest = lengths.min(axis=1)
    doubletons = (lengths == 2).sum(axis=1)
    balanced = (shortest >= 2) & (doubletons <= 1)
    if balanced.mean() >= SURE:
        out.append("balanced")
    for suit in range(4):
        if suit not in stated and suit != bid_suit and (lengths[:, suit] <= 1).mean() >= SURE:
            out.append(f"singleton or void in {SUIT_NAMES[suit]}")
    return out


def _by_convention(e: Explanation, calls: Sequence[int], scheme: str) -> Explanation:
    """``e``, or the meaning the asking convention ``scheme`` gives its call."""
    text = control_ask.meaning(calls[: e.index], calls[e.index]) if scheme == CONTROLS else None
    return e if text is None else replace(e, convention=text, artificial=True)


def _agreed(calls: Sequence[int], i: int) -> int | None:
    """The suit (data-file order) both the caller at ``i`` and partner bid before it, the latest
    named where several are, else None."""
    both = partner_suits(calls, i) & partner_suits(calls, i + 2)
    named = (suit_of(calls[j]) for j in range(i - 1, -1, -1) if (i - j) % 2 == 0)
    return next((s for s in named if s in both), None)


def _auction_key(auction: Sequence[Bid]) -> tuple[int, ...]:
    return tuple(bid_index(c) for c in auction)


class Explainer:
    """Explains the policy's calls by sampling the caller's hand (see the module docstring).

    ``target``: hands wanted for an explained call; ``max_hands``: most hands drawn per seat and
    auction (the work budget: about one policy row per drawn hand per earlier turn); ``chunk``:
    hands per policy batch. Results are cached (``cache`` most recent auctions), keyed by the
    auction, the dealer's side's vulnerability and the seat, so a seat client pays once per call.
    Deterministic: the random hands are seeded by ``seed`` and the auction.
    """

    def __init__(
        self,
        policy: BatchPolicy,
        *,
        seed: int = 0,
        target: int = 300,
        max_hands: int = 24576,
        chunk: int = 2048,
        cache: int = 256,
        conventions: str | None = None,
    ) -> None:
        self.policy = policy
        self.conventions = conventions
        """The asking convention the bot plays (:mod:`engine.control_ask`: ``"controls"``, control
        asking), else None: its calls are then
        explained by it, not by sampling."""
        self.seed = seed
        self.target = target
        self.max_hands = max_hands
        self.chunk = chunk
        self._cache: OrderedDict[tuple[object, ...], Explanation] = OrderedDict()
        self._asks: OrderedDict[tuple[object, ...], LearnedAsk | None] = OrderedDict()
        self._cache_size = cache

    # ------------------------------------------------------------------ public

    def explain(
        self,
        dealer: Player,
        vul: Vul,
        auction: Sequence[Bid],
        seats: Sequence[Player] | None = None,
    ) -> list[Explanation]:
        """One explanation per call of ``auction`` (only the calls of ``seats``, if given).

        ``ValueError`` names the first illegal call of an auction that is not legal.
        """
        check_auction(dealer, auction)
        calls = _auction_key(auction)
        out: list[Explanation] = []
        for rel in range(4):
            seat = seat_of_call(dealer, rel)
            positions = list(range(rel, len(calls), 4))
            if not positions or (seats is not None and seat not in seats):
                continue
            out.extend(self._explain_seat(dealer, vul, calls, seat, positions))
        if self.conventions:
            out = [_by_convention(e, calls, self.conventions) for e in out]
        out = [self._with_asks(dealer, vul, calls, e) for e in out]
        return sorted(out, key=lambda e: e.index)

    def explain_call(
        self, dealer: Player, vul: Vul, auction: Sequence[Bid], call: Bid
    ) -> Explanation:
        """The explanation of ``call`` made after ``auction`` (the seat client's question)."""
        full = [*auction, call]
        seat = seat_of_call(dealer, len(auction))
        return self.explain(dealer, vul, full, seats=[seat])[-1]

    def alert(self, dealer: Player, vul: Vul, auction: Sequence[Bid], call: Bid) -> str | None:
        """``Alert.`` text when the policy's ``call`` here is artificial (a suit bid without
        length in the suit or support for partner's, a notrump bid without notrump shape, an ask
        or its answer), else None. Passes, doubles and redoubles are never alerted."""
        if not isinstance(call, ContractBid):
            return None
        e = self.explain_call(dealer, vul, auction, call)
        sampled = e.artificial and not e.never and not e.unknown
        return e.alert_text() if e.convention is not None or sampled else None

    def alert_for(self, view: BiddingView, call: Bid) -> str | None:
        """:meth:`alert` for a seat client's view (a ``server.seat.Alerter``)."""
        return self.alert(view.dealer, view.vul, view.auction, call)

    # ------------------------------------------------------------------ asks

    def _with_asks(
        self, dealer: Player, vul: Vul, calls: tuple[int, ...], e: Explanation
    ) -> Explanation:
        """``e``, or ``e`` as an ask or as the answer to partner's ask where partner's answers
        make the call at ``e.index``, or the one two calls before, an ask
        (:mod:`engine.explain_asks`); a call the convention explains is left to it."""
        if e.convention is not None or e.unknown or e.never:
            return e
        i = e.index
        if self._may_ask(calls, i):
            asking = self._asking(dealer, vul, calls, i)
            if asking is not None:
                return replace(e, asking=asking, artificial=True)
        if i >= 2 and self._may_ask(calls, i - 2):
            asking = self._asking(dealer, vul, calls, i - 2)
            if asking is not None and asking.answer(_call_text(e.call)) is not None:
                return replace(e, answering=asking, artificial=True)
        return e

    def _may_ask(self, calls: tuple[int, ...], i: int) -> bool:
        """Whether the call at ``i`` may be an ask read from the answers: a notrump bid from
        :data:`ASK_LEVEL` on that the asking convention, if any, does not explain."""
        bid = ALL_CALLS[calls[i]]
        if not isinstance(bid, ContractBid) or bid.denom is not Denom.nt or bid.level < ASK_LEVEL:
            return False
        return not (self.conventions == CONTROLS and control_ask.meaning(calls[:i], calls[i]))

    def _asking(
        self, dealer: Player, vul: Vul, calls: tuple[int, ...], i: int
    ) -> LearnedAsk | None:
        """What partner's answers make of the call at ``i``
        (:func:`engine.explain_asks.read_asking`): partner's hands that reproduce partner's
        earlier calls, and the policy's answer with each after the next hand's call (a pass where
        the auction stops at ``i``); cached like the explanations."""
        answerer = seat_of_call(dealer, i + 2)
        vul_us = side_vulnerable(vul, answerer)
        vul_them = side_vulnerable(vul, answerer.lho)
        after = (*calls[: i + 1], calls[i + 1] if len(calls) > i + 1 else bid_index(PASS))
        key = (after, vul_us, vul_them)
        if key in self._asks:
            self._asks.move_to_end(key)
            return self._asks[key]
        earlier = list(range((i + 2) % 4, i + 2, 4))
        if earlier:
            hands = self._sample(after, earlier, vul_us, vul_them, ASK_HANDS)[1][-1]
        else:
            hands = random_hands(np.random.default_rng([self.seed, len(after), *after]), ASK_HANDS)
        mask = legal_masks_arrays(np.array([after], dtype=np.int64))[0]
        answers = self._choose(hands, (i + 2) % 4, vul_us, vul_them, after, mask)
        asking = read_asking(
            _call_text(ALL_CALLS[calls[i]]),
            answers,
            hands,
            hcp(hands),
            _agreed(calls, i),
            CALL_NAMES,
        )
        self._asks[key] = asking
        while len(self._asks) > self._cache_size:
            self._asks.popitem(last=False)
        return asking

    # ------------------------------------------------------------------ sampling

    def _explain_seat(
        self,
        dealer: Player,
        vul: Vul,
        calls: tuple[int, ...],
        seat: Player,
        positions: list[int],
    ) -> list[Explanation]:
        vul_us = side_vulnerable(vul, seat)
        vul_them = side_vulnerable(vul, seat.lho)
        keys = [(calls[: i + 1], (positions[0]) % 4, vul_us, vul_them) for i in positions]
        cached = [self._cache.get(k) for k in keys]
        if all(c is not None for c in cached):
            for k in keys:
                self._cache.move_to_end(k)
            return [_reseat(c, seat) for c in cached if c is not None]
        context, kept = self._sample(calls, positions, vul_us, vul_them)
        out: list[Explanation] = []
        for k, i, n, hands in zip(keys, positions, context, kept, strict=True):
            e = _summarise(i, seat, ALL_CALLS[calls[i]], n, hands, partner_suits(calls, i))
            self._cache[k] = e
            out.append(e)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return out

    def _sample(
        self,
        calls: tuple[int, ...],
        positions: list[int],
        vul_us: bool,
        vul_them: bool,
        target: int | None = None,
    ) -> tuple[list[int], list[U8Array]]:
        """Per own turn: hands that reproduced the earlier own calls, and those making this one;
        until ``target`` (default :attr:`target`) hands make the last."""
        target = self.target if target is None else target
        rng = np.random.default_rng([self.seed, len(calls), *calls[: positions[-1] + 1]])
        rel = positions[0] % 4
        context = [0] * len(positions)
        kept: list[list[U8Array]] = [[] for _ in positions]
        made = 0
        drawn = 0
        masks = [legal_masks_arrays(np.array([calls[:i]], dtype=np.int64))[0] for i in positions]
        while drawn < self.max_hands and made < target:
            # Size the next batch by the acceptance seen so far (the first is a probe).
            rate = max(made, 1) / drawn if drawn else 1.0
            want = self.chunk if not drawn else int(1.2 * (target - made) / rate)
            n = max(1024, min(want, self.chunk * 4, self.max_hands - drawn))
            drawn += n
            hands = random_hands(rng, n)
            for k, i in enumerate(positions):
                if len(hands) == 0:
                    break
                context[k] += len(hands)
                picks = self._choose(hands, rel, vul_us, vul_them, calls[:i], masks[k])
                hands = hands[picks == calls[i]]
                kept[k].append(hands)
            made = sum(len(h) for h in kept[-1])
            # A call the policy (almost) never makes will not reach the target: stop early.
            if context[-1] >= 2 * self.chunk and made < NEVER * context[-1]:
                break
        return context, [np.concatenate(k) if k else np.zeros((0, 52), np.uint8) for k in kept]

    def _choose(
        self,
        hands: U8Array,
        rel: int,
        vul_us: bool,
        vul_them: bool,
        prefix: tuple[int, ...],
        mask: npt.NDArray[np.bool_],
    ) -> npt.NDArray[np.int64]:
        b = len(hands)
        x = encode_arrays(
            hands,
            np.full(b, rel),
            np.full(b, vul_us),
            np.full(b, vul_them),
            np.broadcast_to(np.array(prefix, dtype=np.int64), (b, len(prefix))),
        )
        z = np.where(mask[None, :], self.policy.logits(x), -np.inf)
        return np.asarray(z.argmax(axis=1), dtype=np.int64)


def random_hands(rng: np.random.Generator, n: int) -> U8Array:
    """``n`` uniformly random 13-card hands, 13-hot uint8[n, 52] in the data-file order."""
    picks = rng.random((n, 52)).argpartition(13, axis=1)[:, :13]
    hands = np.zeros((n, 52), dtype=np.uint8)
    np.put_along_axis(hands, picks, 1, axis=1)
    return hands


def check_auction(dealer: Player, auction: Sequence[Bid]) -> None:
    """``ValueError`` naming the first call that is not legal where it stands."""
    for i, call in enumerate(auction):
        legal = {bid_index(c) for c in legal_calls(dealer, auction[:i])}
        if bid_index(call) not in legal:
            who = seat_of_call(dealer, i).name.capitalize()
            why = "after the auction ended" if not legal else "not a legal call there"
            raise ValueError(f"call {i + 1} ({_call_text(call)} by {who}): {why}")


def suit_of(call: int) -> int | None:
    """The suit (data-file order: 0 spades .. 3 clubs) a call (ALL_CALLS index) names, else None
    (pass, double, redouble, notrump)."""
    bid = ALL_CALLS[call]
    return _SUIT_OF_DENOM.get(bid.denom) if isinstance(bid, ContractBid) else None


def partner_suits(calls: Sequence[int], index: int) -> frozenset[int]:
    """The suits (data-file order) the partner of the caller at ``index`` bid before it."""
    return frozenset(
        s for s in (suit_of(calls[j]) for j in range(index - 2, -1, -4)) if s is not None
    )


def _summarise(
    index: int,
    seat: Player,
    call: Bid,
    context: int,
    hands: U8Array,
    partner: frozenset[int] = frozenset(),
) -> Explanation:
    """The explanation of ``call`` from the ``hands`` that make it, of ``context`` that could be
    here; ``partner``: the suits partner has bid (a raise of one is natural with support)."""
    n = len(hands)
    if n == 0 or context < MIN_CONTEXT:
        return Explanation(index, seat, call, context, n)
    points = hcp(hands)
    lo, hi = headline_range(points)
    inner = inner_range(points)
    inner_or_none = None if (inner[0], inner[1]) == (lo, hi) else inner
    lengths = suit_lengths(hands)
    bid_suit = _SUIT_OF_DENOM.get(call.denom) if isinstance(call, ContractBid) else None
    share4 = share3 = None
    artificial = False
    if bid_suit is not None:
        share4 = float((lengths[:, bid_suit] >= 4).mean())
        # Artificial (alerted): fewer than half of the hands hold four cards in the suit bid,
        # unless it raises partner's suit and nearly all hold three (support: natural).
        artificial = share4 < ARTIFICIAL_BELOW
        if bid_suit in partner:
            share3 = float((lengths[:, bid_suit] >= 3).mean())
            artificial = artificial and share3 < SUPPORTED
    nt_share = None
    if isinstance(call, ContractBid) and call.denom is Denom.nt:
        # A notrump bid is natural when its hands could play notrump: most have no short suit.
        # What this sample cannot see is an ask (a 4NT whose meaning is in partner's answer):
        # the explainer reads that from the answers (Explainer._with_asks).
        nt_share = float(notrump_shaped(lengths).mean())
        artificial = nt_share < ARTIFICIAL_BELOW
    return Explanation(
        index,
        seat,
        call,
        context,
        n,
        lo,
        hi,
        inner_or_none,
        tuple(describe_lengths(lengths, bid_suit)),
        share4,
        artificial,
        nt_share,
        support_3plus=share3,
    )


def _reseat(e: Explanation, seat: Player) -> Explanation:
    """A cached explanation (keyed by the seat relative to the dealer) for this absolute seat."""
    if e.seat == seat:
        return e
    return replace(e, seat=seat)


class PolicyReader:
    """The :class:`CallReader` of a learned policy: :class:`engine.explain.Explainer`."""

    def __init__(self, explainer: Explainer) -> None:
        self.explainer = explainer

    def alert_for(self, view: BiddingView, call: Bid) -> str | None:
        return self.explainer.alert_for(view, call)

    def texts(
        self,
        dealer: Player,
        vul: Vul,
        auction: Sequence[Bid],
        seats: Sequence[Player],
        hands: Mapping[Player, Hand] | None = None,
    ) -> list[str | None]:
        out: list[str | None] = [None] * len(auction)
        for e in self.explainer.explain(dealer, vul, auction, seats=seats):
            out[e.index] = e.text()
        return out


def reader_of(
    agent: object, *, max_hands: int = 2048, target: int = 200, seed: int = 0
) -> CallReader | None:
    """The reader of ``agent``'s calls (module docstring); ``max_hands``, ``target`` and
    ``seed`` set the sampling explainer's budget. None for an agent that says nothing."""
    parts = parts_of(agent)
    if parts.reader is not None:
        return parts.reader
    if parts.policy is None:
        return None
    return PolicyReader(
        Explainer(
            parts.policy,
            seed=seed,
            target=target,
            max_hands=max_hands,
            conventions=parts.convention,
        )
    )
