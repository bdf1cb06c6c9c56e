"""``models.net.grown``: a policy grown to a larger shape computes the same logits and value,
refuses to shrink, and its new units learn (their outgoing weights have a gradient from the
first step), so a fine-tune from it starts where the smaller policy stands."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")  # the train extra

from bridgebot.models.net import NetConfig, PolicyNet, grown  # noqa: E402


def _trained_like(hidden: int, layers: int) -> PolicyNet:
    """A small net with non-trivial weights and biases (PyTorch's default init, seeded)."""
    torch.manual_seed(3)
    return PolicyNet(NetConfig(hidden=hidden, layers=layers))


@pytest.mark.parametrize(("hidden", "layers"), [(48, 2), (32, 4), (48, 4), (32, 2)])
def test_a_grown_net_computes_the_same_logits_and_value(hidden: int, layers: int) -> None:
    small = _trained_like(32, 2)
    big = grown(small, hidden=hidden, layers=layers, seed=1)
    assert big.config.hidden == hidden and big.config.layers == layers
    assert small.config.hidden == 32  # the start is not changed
    x = (torch.rand(256, 480) < 0.1).float()  # features are 0/1, sparse
    with torch.no_grad():
        (p0, v0), (p1, v1) = small.forward_both(x), big.forward_both(x)
    assert torch.allclose(p0, p1, atol=1e-5) and torch.allclose(v0, v1, atol=1e-5)
    assert (p0.argmax(1) == p1.argmax(1)).all()
    # The new units are alive: their incoming weights are random, so some are active.
    with torch.no_grad():
        h = big.trunk(x)
    if hidden > 32:
        assert (h[:, 32:] > 0).any()


def test_the_new_units_learn_and_the_seed_decides_them() -> None:
    small = _trained_like(32, 2)
    big = grown(small, hidden=64, layers=3, seed=1)
    x = (torch.rand(64, 480) < 0.1).float()
    y = torch.randint(0, 38, (64,))
    loss = torch.nn.functional.cross_entropy(big(x), y)
    loss.backward()
    assert big.policy.weight.grad[:, 32:].abs().sum() > 0  # the new units' outgoing weights
    again = grown(small, hidden=64, layers=3, seed=1)
    other = grown(small, hidden=64, layers=3, seed=2)
    first = next(iter(big.trunk)).weight.detach()
    assert torch.equal(first, next(iter(again.trunk)).weight)
    assert not torch.equal(first, next(iter(other.trunk)).weight)


def test_a_net_never_shrinks() -> None:
    small = _trained_like(32, 2)
    with pytest.raises(ValueError, match="a network only grows"):
        grown(small, hidden=16, layers=2)
    with pytest.raises(ValueError, match="grow 2x32 to 1x64"):
        grown(small, hidden=64, layers=1)
