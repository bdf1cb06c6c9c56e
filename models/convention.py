"""The convention in the loop: the learner's pair plays the slam layer and control asking in training.

The shipped agent is the policy with two layers on top (:mod:`engine.slams`, :mod:`engine.control_layer`):
where a call leaves our side at game, the slam layer may bid the slam or the seat asks partner's
controls with 4NT, partner answers, the asker decides. League training used to see the policy
alone, so the auctions it learned never met the ask: what the policy tells partner below game
was trained for a pair that stops in game. With ``--convention SPEC`` the learner's pair is the
agent ``SPEC`` builds (``default``: the shipped layers), with the learner's network as its policy:

- where the convention dictates the call (an answer, the asker's decision, partner's pass after
  it: :func:`engine.control_ask.role`), that call is made and nothing is recorded;
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

With ``--estimators-lr`` the layers' two estimators learn in the loop too (:class:`Listeners`).
docs/evaluation.md, "Runs 13-16", has what the two options did: neither moved the slams off the
frontier the thresholds trace.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np
import numpy.typing as npt
import torch
from bridgebot.core.arrays import FloatArray, IntArray
from bridgebot.engine.agent import AgentFactory, BiddingView
from bridgebot.engine.control_ask import control_step, controls
from bridgebot.engine.control_estimator import CONTROLS_DIR, ControlEstimator
from bridgebot.engine.control_layer import ControlAsking, Convention, ConventionLayer
from bridgebot.engine.doubles import PenaltyDoublesLayer
from bridgebot.engine.features import (
    VUL_THEM,
    VUL_US,
    auction_from_observation,
    decode_hand,
    without_their_doubles,
)
from bridgebot.engine.parts import Parts, layer_of, parts_of
from bridgebot.engine.pipeline import Layer, LayeredBidder, LazyViews, Proposal
from bridgebot.engine.slams import (
    N_CLASSES,
    SLAM_ONNX,
    SlamEstimator,
    SlamLayer,
    Thresholds,
    slam_probs,
    trick_classes,
)
from bridgebot.engine.tendencies import policy_input
from bridgebot.laws.calls import ALL_CALLS, bid_index, legal_calls, same_call
from bridgebot.laws.cards import index_card
from bridgebot.models.data import Chooser, observe
from bridgebot.models.net import PolicyNet, masked_logits
from bridgebot.models.onnx_mlp import mlp_from_onnx, mlp_graph
from bridgebot.models.selfplay import Recorder, net_chooser
from endplay.types import Hand, Player, Vul
from torch import nn

#: A network's masked logits on a batch: (observations, legal masks) -> [B, 38] (illegal calls
#: masked out; not the policy protocol of :mod:`engine.batch_policy`, which takes no mask).
MaskedLogits = Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]], FloatArray]

#: Observation features: our side vulnerable, theirs (the second of each pair).
_VUL_US, _VUL_THEM = VUL_US + 1, VUL_THEM + 1


class Layers:
    """The layers of an agent as the learner's pair plays them around the network, in the
    pipeline's order (``layers``: the slam layer, the asking convention, any other of the agent's
    but its penalty doubles, which the league's mix adds where it plays them)."""

    def __init__(self, layers: Sequence[Layer]) -> None:
        self.layers = tuple(layers)

    @property
    def slam(self) -> SlamEstimator | None:
        """The slam layer's estimator, None without one."""
        found = layer_of(Parts(layers=self.layers), SlamLayer)
        return None if found is None else found.estimator

    @property
    def convention(self) -> Convention | None:
        """The asking convention, None without one."""
        found = layer_of(Parts(layers=self.layers), ConventionLayer)
        return None if found is None else found.convention

    @classmethod
    def of_agent(cls, make_agent: AgentFactory, spec: str) -> Layers:
        """The layers of the agent ``spec`` builds (``default``: the shipped ones), its penalty
        doubles aside; a ``ValueError`` where there is no such agent or it has none."""
        with make_agent(spec) as agent:
            parts = parts_of(agent)
        layers = cls([x for x in parts.layers if not isinstance(x, PenaltyDoublesLayer)])
        if not layers.layers:
            raise ValueError(
                f"agent {spec!r} has neither a slam layer nor an asking convention (no layer "
                "for the learner's pair to play)"
            )
        return layers


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


class _Views(LazyViews):
    """Views of a batch's rows, built on first use (the layers read a few rows of a batch)."""

    def __init__(self, x: npt.NDArray[np.float32], auctions: Sequence[Sequence[int]]) -> None:
        self.x, self.auctions = x, auctions
        self._built: dict[int, BiddingView] = {}

    def __len__(self) -> int:
        return len(self.auctions)

    def view(self, i: int) -> BiddingView:
        if i not in self._built:
            self._built[i] = view_of(self.x[i], self.auctions[i])
        return self._built[i]


def _keep_last(rec: Recorder, keep: npt.NDArray[np.bool_]) -> None:
    """Drop from the recorder's last batch the rows ``keep`` is False on."""
    for name in ("rows", "x", "mask", "action", "logp", "value"):
        entries = getattr(rec, name)
        entries[-1] = entries[-1][keep]


def net_logits(
    net: PolicyNet, device: torch.device, ignore_their_doubles: bool = False
) -> MaskedLogits:
    """The network's masked logits on a batch, as the layers read them (the observation as the
    network reads it: :func:`engine.tendencies.policy_input`)."""

    def logits(x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> FloatArray:
        with torch.no_grad():
            seen = torch.from_numpy(policy_input(x, ignore_their_doubles)).to(device)
            out = masked_logits(net(seen), torch.from_numpy(mask).to(device))
        return np.asarray(out.cpu().numpy(), dtype=np.float32)

    return logits


class _ChooserBase:
    """A network's chooser as the pipeline's base (:class:`engine.pipeline.Base`): its calls
    and, for the layers, its logits (``logits_of``). It keeps nothing across boards."""

    name = "learner"

    def __init__(self, choose: Chooser, logits_of: MaskedLogits, rows: IntArray) -> None:
        self.choose, self.logits_of, self.rows = choose, logits_of, rows

    def see(self, views: Sequence[BiddingView]) -> None:
        return None

    def propose(
        self,
        views: Sequence[BiddingView],
        x: npt.NDArray[np.float32],
        mask: npt.NDArray[np.bool_],
        rows: IntArray,
    ) -> Proposal:
        picks = self.choose(self.rows[rows], x, mask)
        return Proposal(np.asarray(picks, dtype=np.int64), self.logits_of(x, mask))

    def reset(self, board: int) -> None:
        return None


class _Auctions(Sequence[Sequence[int]]):
    """The auctions of a batch's observations, decoded on first use (a layer that forces
    nothing reads none)."""

    def __init__(self, x: npt.NDArray[np.float32]) -> None:
        self.x = x
        self._decoded: dict[int, list[int]] = {}

    def __len__(self) -> int:
        return len(self.x)

    @overload
    def __getitem__(self, i: int) -> Sequence[int]: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Sequence[int]]: ...
    def __getitem__(self, i: int | slice) -> Sequence[int] | Sequence[Sequence[int]]:
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        i = range(len(self))[i]
        if i not in self._decoded:
            self._decoded[i] = auction_from_observation(self.x[i])
        return self._decoded[i]


def layered(
    layers: Sequence[Layer],
    base: Chooser,
    logits_of: MaskedLogits,
    recorder: Recorder | None = None,
) -> Chooser:
    """``base`` (a network's chooser, whose logits ``logits_of`` gives) with ``layers`` on top,
    in the agents' pipeline (:class:`engine.pipeline.LayeredBidder`): a layer's call where it
    dictates one (``base`` is not asked: the convention's), else ``base``'s call as the layers
    leave it. With ``recorder`` (the one ``base`` records its decisions in, one entry a call),
    the decisions the layers changed are dropped from it."""

    def choose(rows: IntArray, x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> IntArray:
        auctions = _Auctions(x)
        bidder = LayeredBidder(_ChooserBase(base, logits_of, rows), layers, check=False)
        decisions = bidder.decide(_Views(x, auctions), x, mask, auctions)
        free = [d for d in decisions if d.forced_by is None]
        if recorder is not None and free:
            kept = [d.proposed is not None and same_call(d.call, d.proposed) for d in free]
            _keep_last(recorder, np.array(kept, dtype=np.bool_))
        return np.array([bid_index(d.call) for d in decisions], dtype=np.int64)

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
    return layered(layers.layers, base, net_logits(net, device), recorder)


class _TorchSlam(SlamEstimator):
    """The slam estimator's interface over a torch network trained in the loop."""

    def __init__(self, net: nn.Sequential, thresholds: Thresholds, their_doubles: bool) -> None:
        self.net, self.thresholds, self.their_doubles = net, thresholds, their_doubles

    def logits(self, x: FloatArray) -> FloatArray:
        rows = x.astype(np.float32) if self.their_doubles else without_their_doubles(x)
        with torch.no_grad():
            return np.asarray(self.net(torch.from_numpy(rows)).numpy(), dtype=np.float32)


class _TorchControls(ControlEstimator):
    """The control estimator's interface over a torch network trained in the loop."""

    def __init__(self, net: nn.Sequential, their_doubles: bool) -> None:
        self.net, self.their_doubles = net, their_doubles

    def chances(self, x: FloatArray, steps: IntArray) -> tuple[FloatArray, FloatArray]:
        seen = np.asarray(x, np.float32) if self.their_doubles else without_their_doubles(x)
        rows = np.concatenate([seen, np.asarray(steps, np.float32)[:, None]], axis=1)
        with torch.no_grad():
            out = self.net(torch.from_numpy(rows)).numpy()
        return slam_probs(np.asarray(out, dtype=np.float32))


class Listeners:
    """The layers' two estimators trained in the loop with the learner (``--estimators-lr``).

    The estimators read the auction as the policy they were trained on bids it; a learner that
    changes its bidding is misread by them (docs/evaluation.md, "Runs 13-16"). Here each is a
    torch twin of the agent's ONNX estimator, trained after every learner iteration on that
    iteration's auctions: every call of the learner's pair at both tables, labelled as
    ``bridgebot train slamnet`` labels it (the DD tricks of our would-be declarer per strain;
    the control estimator with partner's control step appended). :attr:`layers` are the agent's
    layers over the twins, the same rule and thresholds. Every frozen copy of the learner in the
    league (snapshots included) plays the twins as they are now, not as they were when it was
    frozen."""

    def __init__(self, layers: Layers, lr: float, minibatch: int = 1024) -> None:
        slam, conv = layers.slam, layers.convention
        if slam is None or not isinstance(conv, ControlAsking):
            raise ValueError("training the estimators needs a slam layer and control asking")
        self.source = slam.model.onnx_path.parent
        self.slam_net = mlp_from_onnx(slam.model.onnx_path)
        self.controls_net = mlp_from_onnx(conv.controls.model.onnx_path)
        params = [*self.slam_net.parameters(), *self.controls_net.parameters()]
        self.opt = torch.optim.Adam(params, lr=lr)
        self.minibatch = minibatch
        twin = _TorchSlam(self.slam_net, slam.thresholds, slam.their_doubles)
        controls = _TorchControls(self.controls_net, conv.controls.their_doubles)
        asking = ConventionLayer(ControlAsking(twin, controls, conv.rule))
        self.layers = Layers(
            [
                SlamLayer(twin)
                if isinstance(x, SlamLayer)
                else asking
                if isinstance(x, ConventionLayer)
                else x
                for x in layers.layers
            ]
        )

    def state_dict(self) -> dict[str, Any]:
        return {
            "slam": self.slam_net.state_dict(),
            "controls": self.controls_net.state_dict(),
            "opt": self.opt.state_dict(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.slam_net.load_state_dict(state["slam"])
        self.controls_net.load_state_dict(state["controls"])
        self.opt.load_state_dict(state["opt"])

    def learn(
        self,
        owners: npt.NDArray[np.uint8],
        dd: npt.NDArray[np.uint8],
        dealer: IntArray,
        vul: IntArray,
        auctions: IntArray,
        rng: np.random.Generator,
    ) -> dict[str, float]:
        """One pass over the learner's calls of :func:`models.selfplay.duplicate_imps`'s
        auctions (rows 0..B-1: the learner North-South; B..2B-1: East-West)."""
        b = len(owners)
        o2, d2 = np.concatenate([owners, owners]), np.concatenate([dd, dd])
        dealer2, vul2 = np.concatenate([dealer, dealer]), np.concatenate([vul, vul])
        side = np.repeat([0, 1], b)
        length = (auctions >= 0).sum(axis=1)
        xs, ys, steps = [], [], []
        for pos in range(int(length.max())):
            seat = (dealer2 + pos) % 4
            rows = np.flatnonzero((length > pos) & (seat % 2 == side))
            if rows.size == 0:
                continue
            x, _ = observe(
                o2[rows], dealer2[rows], vul2[rows], auctions[rows], np.full(rows.size, pos)
            )
            s = seat[rows]
            xs.append(x)
            ys.append(trick_classes(x, s, d2[rows]))
            steps.append(control_step(controls(o2[rows] == ((s + 2) % 4)[:, None])))
        x, y, st = np.concatenate(xs), np.concatenate(ys), np.concatenate(steps)
        order = rng.permutation(len(x))
        losses = []
        self.slam_net.train()
        self.controls_net.train()
        for i in range(0, len(x), self.minibatch):  # the last minibatch may be short
            idx = order[i : i + self.minibatch]
            xb = torch.from_numpy(x[idx].astype(np.float32))
            yb = torch.from_numpy(y[idx].reshape(-1).astype(np.int64))
            xc = torch.cat([xb, torch.from_numpy(st[idx].astype(np.float32))[:, None]], dim=1)
            loss = sum(
                nn.functional.cross_entropy(net(inp).reshape(-1, N_CLASSES), yb)
                for net, inp in ((self.slam_net, xb), (self.controls_net, xc))
            )
            self.opt.zero_grad()
            loss.backward()  # type: ignore[union-attr]
            self.opt.step()
            losses.append(float(loss.detach()) / 2)  # type: ignore[union-attr]
        self.slam_net.eval()
        self.controls_net.eval()
        return {"examples": float(len(x)), "loss": float(np.mean(losses)) if losses else 0.0}

    def export(self, out: Path) -> Path:
        """The twins as a slam directory (``out/slam.onnx``, ``out/controls/slam.onnx``), each
        beside a copy of the agent's card: what a policy directory's ``slam/`` holds."""
        import onnx

        for net, src, dst in (
            (self.slam_net, self.source, out),
            (self.controls_net, self.source / CONTROLS_DIR, out / CONTROLS_DIR),
        ):
            dst.mkdir(parents=True, exist_ok=True)
            card = json.loads((src / "model.json").read_text())
            linears = [m for m in net if isinstance(m, nn.Linear)]
            graph = mlp_graph(linears, card["input"]["name"], card["output"]["name"], "slam")
            onnx.save(graph, str(dst / SLAM_ONNX))
            card.setdefault("notes", {})["trained_in_loop"] = (
                "fine-tuned from the estimator this card describes, in league training "
                "(models.convention.Listeners); the league's OUT/log.jsonl records its command"
            )
            (dst / "model.json").write_text(json.dumps(card, indent=1) + "\n")
        return out
