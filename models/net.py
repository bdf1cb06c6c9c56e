"""The bidding network: an MLP over the 480-feature observation with a policy and a value head.

Lockhart et al. 2020 use 4x1024 ReLU and Qiu et al. 2024 4x2048 GELU (docs/papers.md);
both run on GPUs. This project trains and serves on a 2-core CPU and self-play needs tens of
thousands of forward passes a second, so the default trunk is narrower (3x512 ReLU), which still
holds the whole bidding system a rule-based teacher encodes. The value head (used only by
self-play as the baseline of the advantage) shares the trunk and is not exported: the runtime needs
the policy logits alone.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

N_FEATURES = 480
N_CALLS = 38


@dataclass(frozen=True)
class NetConfig:
    """Shape of the network; stored in checkpoints and in ``model.json``."""

    hidden: int = 512
    layers: int = 3
    n_features: int = N_FEATURES
    n_calls: int = N_CALLS

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, int]) -> NetConfig:
        return cls(**{k: int(v) for k, v in d.items() if k in cls.__dataclass_fields__})


class PolicyNet(nn.Module):
    """Trunk of ``layers`` ReLU layers, a 38-way policy head and a scalar value head."""

    def __init__(self, config: NetConfig | None = None) -> None:
        super().__init__()
        self.config = config or NetConfig()
        c = self.config
        layers: list[nn.Module] = []
        width = c.n_features
        for _ in range(c.layers):
            layers += [nn.Linear(width, c.hidden), nn.ReLU()]
            width = c.hidden
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(width, c.n_calls)
        self.value = nn.Linear(width, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Policy logits over all 38 calls (the caller masks illegal ones)."""
        return self.policy(self.trunk(x))  # type: ignore[no-any-return]

    def forward_both(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy logits and the value estimate (in normalised IMPs, -1..1) for self-play."""
        h = self.trunk(x)
        return self.policy(h), self.value(h).squeeze(-1)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Illegal calls get a large negative logit (not -inf, which makes NaN in entropy terms)."""
    return logits.masked_fill(~mask, -1e9)


def save_checkpoint(path: str, net: PolicyNet, extra: dict[str, object]) -> None:
    """Write weights, shape and training state atomically (a killed run never leaves half a file),
    making the folders ``path`` names: a run that trained for an hour does not fail at its last
    step for a missing folder."""
    from bridgebot.core.files import replace_file

    state = {"config": net.config.to_dict(), "state": net.state_dict(), **extra}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, lambda tmp: torch.save(state, tmp))


def load_checkpoint(path: str) -> tuple[PolicyNet, dict[str, object]]:
    """Inverse of :func:`save_checkpoint`; returns the network and the other saved entries."""
    blob = torch.load(path, map_location="cpu", weights_only=False)
    net = PolicyNet(NetConfig.from_dict(blob.pop("config")))
    net.load_state_dict(blob.pop("state"))
    return net, blob


def append_jsonl(path: Path, entry: dict[str, Any]) -> None:
    """Append one JSON line (opened per entry, so a killed run leaves whole lines only)."""
    with path.open("a") as f:
        f.write(json.dumps(entry, default=str) + "\n")


def grown(net: PolicyNet, hidden: int, layers: int, seed: int = 0) -> PolicyNet:
    """``net`` grown to ``layers`` layers of ``hidden`` units, computing the same logits.

    Function-preserving growth (Chen et al.'s Net2Net, without the copies): each layer's new
    units get random incoming weights and zero outgoing weights, so they add nothing until
    training moves them; each new layer starts as the identity after the last, which a ReLU
    keeps exact because its input is already non-negative. The value head grows the same way.
    Fine-tuning from the result starts where ``net`` stands, with more room for what it learns
    (run 23 in docs/evaluation.md: at 4x512 that did not gain over the same fine-tune at 3x256).

    Takes a network and the new shape, neither smaller than the old one; returns a new network
    (``net`` is not changed). Raises ``ValueError`` for a smaller shape."""
    c = net.config
    if hidden < c.hidden or layers < c.layers:
        raise ValueError(
            f"grow {c.layers}x{c.hidden} to {layers}x{hidden}: a network only grows "
            "(both numbers at least the current ones)"
        )
    shape = NetConfig(hidden=hidden, layers=layers, n_features=c.n_features, n_calls=c.n_calls)
    out = PolicyNet(shape)
    gen = torch.Generator().manual_seed(seed)
    old = [m for m in net.trunk if isinstance(m, nn.Linear)]
    new = [m for m in out.trunk if isinstance(m, nn.Linear)]
    with torch.no_grad():
        for i, layer in enumerate(new):
            layer.bias.zero_()  # every weight is written below
            if i < len(old):
                w, b = old[i].weight, old[i].bias
                h_out, h_in = w.shape
                # The new units' incoming weights: small and random (a tenth of the default
                # scale), reading every unit below; their outgoing weights are zero (the next
                # layer's columns for them, zeroed above, or the heads' below).
                scale = 0.1 / math.sqrt(layer.weight.shape[1])
                layer.weight.uniform_(-scale, scale, generator=gen)
                layer.weight[:h_out, :] = 0.0
                layer.weight[:h_out, :h_in] = w
                layer.bias[:h_out] = b  # the old units read the old units alone
            else:  # a new layer: the identity on what the layer below gives
                layer.weight.copy_(torch.eye(hidden))
        h = old[-1].weight.shape[0]
        for head, old_head in ((out.policy, net.policy), (out.value, net.value)):
            head.weight.zero_()
            head.weight[:, :h] = old_head.weight
            head.bias.copy_(old_head.bias)
    return out
