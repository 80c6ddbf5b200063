"""The trainable Swish as new primitives of PyTorch and JAX (book §6.4.2, exercise).

The hand-written VJPs pass ``torch.autograd.gradcheck`` and
``jax.test_util.check_grads``, agree with the autograd-derived backward of the plain
module, and with the engine's reverse and forward modes.
"""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import autodiff as ad
from alice_lab.autodiff import frameworks as fw

RNG = np.random.default_rng(0)
S = RNG.standard_normal((4, 3))
SCALARS = (1.3, -0.4, 0.8, 0.2)  # a, b, c, d
VECTORS = tuple(RNG.standard_normal(3) for _ in range(4))  # one per channel


@pytest.mark.parametrize("params", [SCALARS, VECTORS], ids=["scalars", "per-channel"])
def test_torch_function_passes_gradcheck_and_matches_autograd(params):
    import torch

    args = [torch.tensor(S, requires_grad=True)] + [
        torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in params
    ]
    assert torch.autograd.gradcheck(
        fw.TrainableSwishFunction.apply, args, eps=1e-6, atol=1e-4
    )
    out = fw.TrainableSwishFunction.apply(*args)
    g = torch.tensor(RNG.standard_normal(S.shape))
    mine = torch.autograd.grad(out, args, g)
    a, b, c, d = args[1:]
    auto = torch.sigmoid(a * args[0] + b) * (c * args[0] + d)
    theirs = torch.autograd.grad(auto, args, g)
    for m, t in zip(mine, theirs, strict=True):
        assert m.shape == t.shape
        torch.testing.assert_close(m, t, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("params", [SCALARS, VECTORS], ids=["scalars", "per-channel"])
def test_jax_custom_vjp_passes_check_grads_and_matches_jax_grad(params):
    import jax
    import jax.numpy as jnp
    from jax.test_util import check_grads

    args = (jnp.asarray(S),) + tuple(jnp.asarray(p) for p in params)
    check_grads(fw.trainable_swish_jax, args, order=1, modes=["rev"])

    def plain(s, a, b, c, d):
        return jax.nn.sigmoid(a * s + b) * (c * s + d)

    g = jnp.asarray(RNG.standard_normal(S.shape))
    mine = jax.vjp(fw.trainable_swish_jax, *args)[1](g)
    theirs = jax.vjp(plain, *args)[1](g)
    for m, t in zip(mine, theirs, strict=True):
        np.testing.assert_allclose(m, t, rtol=1e-12, atol=1e-14)


def test_engine_frameworks_and_hand_vjp_agree():
    import torch

    g = RNG.standard_normal(S.shape)
    args = (S, *(np.asarray(p) for p in VECTORS))
    y, vjp_fn = ad.vjp(fw.trainable_swish_engine, *args)
    engine = vjp_fn(g)

    def sum_to(x, like):
        return ad.unbroadcast(x, like)

    hand = fw.swish_vjp(g, *args, sigmoid=ad.sigmoid, sum_to=sum_to)
    targs = [torch.tensor(a, requires_grad=True) for a in args]
    out = fw.TrainableSwishFunction.apply(*targs)
    theirs = torch.autograd.grad(out, targs, torch.tensor(g))
    np.testing.assert_allclose(y, out.detach().numpy(), rtol=1e-14)
    for e, h, t in zip(engine, hand, theirs, strict=True):
        np.testing.assert_allclose(e, h, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(e, t.numpy(), rtol=1e-12, atol=1e-14)
    v = RNG.standard_normal(S.shape)  # and forward mode, through the dual numbers
    _, t_fwd = ad.jvp(lambda s: fw.trainable_swish_engine(s, *args[1:]), S, v)
    np.testing.assert_allclose(np.sum(t_fwd * g), np.sum(engine[0] * v), rtol=1e-12)


def test_module_with_and_without_the_custom_function():
    import torch

    torch.manual_seed(0)
    x = torch.randn(8, 5, dtype=torch.float64)
    grads = []
    for custom in (False, True):
        act = fw.SwishFunctionDemo(
            1.2, 0.1, 0.9, -0.3, custom=custom, dtype=torch.float64
        )
        act(x).pow(2).sum().backward()
        grads.append([p.grad.clone() for p in act.parameters()])
        assert [n for n, _ in act.named_parameters()] == ["a", "b", "c", "d"]
    for g1, g2 in zip(*grads, strict=True):
        torch.testing.assert_close(g1, g2, rtol=1e-12, atol=1e-14)


def test_swish_defaults_are_the_plain_swish():
    s = np.linspace(-4, 4, 9)
    np.testing.assert_allclose(
        fw.trainable_swish_engine(s), s / (1 + np.exp(-s)), rtol=1e-14
    )


def test_framework_names_are_lazy():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        fw.nope  # noqa: B018


def test_agrees_with_the_generic_activation_module():
    """alice_lab.activations (chapter 5) has the same function and its partials."""
    act = pytest.importorskip("alice_lab.activations")
    if not hasattr(act, "trainable_swish_grads"):
        pytest.skip("alice_lab.activations has no trainable_swish_grads")
    a, b, c, d = SCALARS
    np.testing.assert_allclose(
        fw.trainable_swish_engine(S, a, b, c, d),
        act.trainable_swish(S, a, b, c, d),
        rtol=1e-14,
    )
    partials = act.trainable_swish_grads(S, a, b, c, d)
    ones = np.ones_like(S)
    _, vjp_fn = ad.vjp(fw.trainable_swish_engine, S, *(np.asarray(p) for p in SCALARS))
    mine = vjp_fn(ones)
    np.testing.assert_allclose(mine[0], partials["s"], rtol=1e-13)
    for got, key in zip(mine[1:], "abcd", strict=True):  # scalars: summed partials
        assert float(got) == pytest.approx(float(np.sum(partials[key])), rel=1e-13)
