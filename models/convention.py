"""The convention in the loop: the learner's pair plays the slam layer and control asking in training.

The shipped agent is the policy with two layers on top (:mod:`engine.slams`, :mod:`engine.aces`):
where a call leaves our side at game, the slam layer may bid the slam or the seat asks partner's
controls with 4NT, partner answers, the asker decides. League training used to see the policy
alone, so the auctions it learned never met the ask: what the policy tells partner below game
was trained for a pair that stops in game. With ``--convention SPEC`` the learner's pair is the
agent ``SPEC`` builds (``default``: the shipped layers), with the learner's network as its policy:

- where the convention dictates the call (an answer, the asker's decision, partner's pass after
  it: :func:`engine.aces.role`), that call is made and nothing is recorded;
- elsewhere the learner samples its call and the layers see it as they see the shipped
  policy's: the slam layer may turn it into a slam, the convention into the ask, or veto a slam
  or 4NT of its own. A call the layers changed is made but not recorded: PPO's ratio is taken on
  the policy's own calls only, and every call it made before the layers acted carries the
  deal's reward, slams the layers bid included.

So the reward reaches the calls below game that lead the layers to their slams, which is the
information the slam decision lacks (docs/evaluation.md, "What the slam decision needs to know").

Every other copy of the network plays with the layers too, as the shipped agent would: the
frozen learner in the mixture (``self``, ``selfx``, ``oracle``), its snapshots, the model it
started from (``init``, ``initx``: the shipped agent itself where it started from the shipped
policy), the target its exploiters train against, and both sides of the generation's
evaluations. A network trained with the layers bids its own continuation over a 4NT of its own
wildly without them (measured: a first generation whose snapshot played alone bid 339 slams in
2,000 tables, 64 making), so a snapshot without them would be an opponent no one meets. The
exploiters and bfg play as they are. No change at inference: the trained network is exported
and played with the same layers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import overload

import numpy as np
import numpy.typing as npt
import torch
from bridgebot.engine.aces import Convention, convention_of, role
from bridgebot.engine.agent import AgentFactory, BiddingView
from bridgebot.engine.features import auction_from_observation, decode_hand
from bridgebot.engine.slams import FloatArray, SlamEstimator
from bridgebot.engine.tendencies import policy_input
from bridgebot.laws.calls import ALL_CALLS, bid_index, legal_calls
from bridgebot.laws.cards import index_card
from bridgebot.models.data import Chooser, IntArray
from bridgebot.models.net import PolicyNet, masked_logits
from bridgebot.models.selfplay import Recorder, net_chooser
from endplay.types import Hand, Player, Vul

#: A network's masked logits on a batch: (observations, legal masks) -> [B, 38].
Logits = Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]], FloatArray]

#: Observation features: our side vulnerable (index 1 of the pair), theirs (index 3).
_VUL_US, _VUL_THEM = 1, 3


class Layers:
    """The slam layer and the asking convention of an agent, as the learner's pair plays them."""

    def __init__(self, slam: SlamEstimator | None, convention: Convention | None) -> None:
        self.slam = slam
        self.convention = convention

    @classmethod
    def of_agent(cls, make_agent: AgentFactory, spec: str) -> Layers:
        """The layers of the agent ``spec`` builds (``default``: the shipped ones); a
        ``ValueError`` where there is no such agent or it has none."""
        agent = make_agent(spec)
        layers = cls(slam_layer_of(agent), convention_of(agent))
        if layers.slam is None and layers.convention is None:
            raise ValueError(f"agent {spec!r} has neither a slam layer nor an asking convention")
        return layers


def slam_layer_of(agent: object) -> SlamEstimator | None:
    """The slam layer ``agent`` (or an agent it wraps, as :func:`engine.aces.convention_of`
    finds the convention) plays, None where it plays none."""
    seen: list[object] = [agent]
    while seen:
        holder = seen.pop()
        slam = getattr(holder, "slam", None)
        if isinstance(slam, SlamEstimator):
            return slam
        seen.extend(
            inner
            for name in ("agent", "search", "inner")
            if (inner := getattr(holder, name, None)) is not None
        )
    return None


def view_of(x: npt.NDArray[np.float32], auction: Sequence[int]) -> BiddingView:
    """A bidding view with observation ``x`` (relative seats: the observer sits North, the
    dealer where the auction's length puts it), ``auction`` its calls from the dealer's."""
    seat = Player.north
    dealer = Player((-len(auction)) % 4)
    us, them = bool(x[_VUL_US]), bool(x[_VUL_THEM])
    vul = Vul.both if us and them else Vul.ns if us else Vul.ew if them else Vul.none
    hand = Hand()
    for i in np.flatnonzero(decode_hand(x)):
        hand.add(index_card(int(i)))
    calls = tuple(ALL_CALLS[c] for c in auction)
    return BiddingView(seat, dealer, vul, hand, calls, 0, legal_calls(dealer, calls))


class _Views(Sequence[BiddingView]):
    """Views of a batch's rows, built on first use (the layers read a few rows of a batch)."""

    def __init__(self, x: npt.NDArray[np.float32], auctions: Sequence[Sequence[int]]) -> None:
        self.x, self.auctions = x, auctions
        self._built: dict[int, BiddingView] = {}

    def __len__(self) -> int:
        return len(self.auctions)

    @overload
    def __getitem__(self, i: int) -> BiddingView: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[BiddingView]: ...
    def __getitem__(self, i: int | slice) -> BiddingView | Sequence[BiddingView]:
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        if i not in self._built:
            self._built[i] = view_of(self.x[i], self.auctions[i])
        return self._built[i]


def _keep_last(rec: Recorder, keep: npt.NDArray[np.bool_]) -> None:
    """Drop from the recorder's last batch the rows ``keep`` is False on."""
    for name in ("rows", "x", "mask", "action", "logp", "value"):
        entries = getattr(rec, name)
        entries[-1] = entries[-1][keep]


def net_logits(net: PolicyNet, device: torch.device, ignore_their_doubles: bool = False) -> Logits:
    """The network's masked logits on a batch, as the layers read them (the observation as the
    network reads it: :func:`engine.tendencies.policy_input`)."""

    def logits(x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> FloatArray:
        with torch.no_grad():
            seen = torch.from_numpy(policy_input(x, ignore_their_doubles)).to(device)
            out = masked_logits(net(seen), torch.from_numpy(mask).to(device))
        return np.asarray(out.cpu().numpy(), dtype=np.float32)

    return logits


def layered(
    layers: Layers, base: Chooser, logits_of: Logits, recorder: Recorder | None = None
) -> Chooser:
    """``base`` (a network's chooser, whose logits ``logits_of`` gives) with the layers on top:
    the convention's call where it dictates one (``base`` is not asked), else ``base``'s call as
    the slam layer and the convention leave it. With ``recorder`` (the one ``base`` records its
    decisions in, one entry a call), the decisions the layers changed are dropped from it."""
    conv = layers.convention

    def choose(rows: IntArray, x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> IntArray:
        auctions = [auction_from_observation(row) for row in x]
        views = _Views(x, auctions)
        out = np.zeros(len(rows), dtype=np.int64)
        free = np.ones(len(rows), dtype=np.bool_)
        if conv is not None:
            for i, calls in enumerate(auctions):
                if role(calls, conv.scheme) is not None:
                    forced = conv.forced(views[i])
                    if forced is not None:
                        out[i], free[i] = bid_index(forced), False
        idx = np.flatnonzero(free)
        if idx.size == 0:
            return out
        fx, fm = x[idx], mask[idx]
        picks = base(rows[idx], fx, fm)
        lg = logits_of(fx, fm)
        final = picks
        if layers.slam is not None:
            final = layers.slam.apply(fx, fm, lg, final)
        if conv is not None:
            final = conv.apply(_Views(fx, [auctions[i] for i in idx]), fx, final, fm, lg)
        if recorder is not None:
            _keep_last(recorder, final == picks)
        out[idx] = final
        return out

    return choose


def convention_chooser(
    layers: Layers,
    net: PolicyNet,
    device: torch.device,
    generator: torch.Generator,
    recorder: Recorder,
    floor: float,
) -> Chooser:
    """The learner's chooser with the agent's layers on top (module docstring): it samples, and
    records only its own calls."""
    base = net_chooser(net, device, False, generator, recorder, floor)
    return layered(layers, base, net_logits(net, device), recorder)
