"""Every primitive's VJP and JVP rule, checked from outside the rule table.

For each primitive and each differentiable argument, in float64:

- the VJP and the JVP agree with central differences along random directions
  (:math:`\\langle u, J v\\rangle` three ways, as HIPS autograd checks them);
- the VJP agrees with ``torch.autograd`` along the same random cotangent;
- broadcast operands get gradients of their own shape (the sum over copied axes).
"""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import autodiff as ad
from alice_lab.autodiff import ops
from alice_lab.autodiff.numerical import check_grads

RNG = np.random.default_rng(0)


def normal(*shape):
    return RNG.standard_normal(shape)


def positive(*shape):
    return RNG.uniform(0.5, 2.0, shape)


PICK = (np.arange(5), RNG.integers(0, 3, 5))  # x[rows, labels], as in cross-entropy


# name -> (engine function, arguments, torch function or None)
CASES = {
    "add broadcast row": (
        lambda x, y: x + y,
        [normal(3, 4), normal(4)],
        lambda x, y: x + y,
    ),
    "add outer": (lambda x, y: x + y, [normal(3, 1), normal(1, 4)], lambda x, y: x + y),
    "sub": (lambda x, y: x - y, [normal(2, 3), normal(2, 1)], lambda x, y: x - y),
    "neg": (lambda x: -x, [normal(5)], lambda x: -x),
    "mul broadcast": (
        lambda x, y: x * y,
        [normal(2, 3, 4), normal(3, 1)],
        lambda x, y: x * y,
    ),
    "div": (lambda x, y: x / y, [normal(3, 4), positive(4)], lambda x, y: x / y),
    "pow both": (lambda x, y: x**y, [positive(4), normal(4)], lambda x, y: x**y),
    "pow constant": (lambda x: x**3, [normal(4)], lambda x: x**3),
    "sqrt": (lambda x: np.sqrt(x), [positive(4)], lambda x: x.sqrt()),
    "exp": (lambda x: np.exp(x), [normal(3, 2)], lambda x: x.exp()),
    "log": (lambda x: np.log(x), [positive(6)], lambda x: x.log()),
    "sin": (lambda x: np.sin(x), [normal(6)], lambda x: x.sin()),
    "cos": (lambda x: np.cos(x), [normal(6)], lambda x: x.cos()),
    "tanh": (lambda x: np.tanh(x), [normal(3, 3)], lambda x: x.tanh()),
    "sigmoid": (ops.sigmoid, [3 * normal(7)], lambda x: x.sigmoid()),
    "relu": (ops.relu, [normal(4, 5)], lambda x: x.relu()),
    "abs": (lambda x: abs(x), [normal(6)], lambda x: x.abs()),
    "maximum": (lambda x, y: np.maximum(x, y), [normal(3, 4), normal(4)], None),
    "sum all": (lambda x: x.sum(), [normal(3, 4)], lambda x: x.sum()),
    "sum axes": (
        lambda x: np.sum(x, axis=(0, 2)),
        [normal(2, 3, 4)],
        lambda x: x.sum(dim=(0, 2)),
    ),
    "sum keepdims": (
        lambda x: x.sum(axis=1, keepdims=True),
        [normal(3, 4)],
        lambda x: x.sum(dim=1, keepdim=True),
    ),
    "mean": (lambda x: x.mean(axis=0), [normal(5, 3)], lambda x: x.mean(dim=0)),
    "max axis": (lambda x: x.max(axis=1), [normal(4, 6)], lambda x: x.amax(dim=1)),
    "max all": (lambda x: np.max(x), [normal(4, 6)], lambda x: x.amax()),
    "reshape": (lambda x: x.reshape(4, 3), [normal(2, 6)], lambda x: x.reshape(4, 3)),
    "transpose": (
        lambda x: x.transpose(1, 0, 2),
        [normal(2, 3, 4)],
        lambda x: x.permute(1, 0, 2),
    ),
    ".T": (lambda x: x.T, [normal(2, 5)], lambda x: x.T),
    "slice": (lambda x: x[1:, ::2], [normal(4, 5)], lambda x: x[1:, ::2]),
    "repeated index": (
        lambda x: x[np.array([0, 2, 0, 0])],
        [normal(3, 2)],
        lambda x: x[[0, 2, 0, 0]],
    ),
    "pick labels": (lambda x: x[PICK], [normal(5, 3)], None),
    "concatenate": (
        lambda x, y, z: np.concatenate([x, y, z], axis=1),
        [normal(2, 1), normal(2, 3), normal(2, 2)],
        None,
    ),
    "stack": (
        lambda x, y: np.stack([x, y], axis=1),
        [normal(3, 2), normal(3, 2)],
        None,
    ),
    "matmul 2x2": (
        lambda x, y: x @ y,
        [normal(3, 4), normal(4, 5)],
        lambda x, y: x @ y,
    ),
    "matmul vec-mat": (
        lambda x, y: x @ y,
        [normal(4), normal(4, 5)],
        lambda x, y: x @ y,
    ),
    "matmul mat-vec": (
        lambda x, y: x @ y,
        [normal(3, 4), normal(4)],
        lambda x, y: x @ y,
    ),
    "matmul vec-vec": (lambda x, y: x @ y, [normal(4), normal(4)], lambda x, y: x @ y),
    "matmul batched": (
        lambda x, y: x @ y,
        [normal(2, 3, 4), normal(2, 4, 5)],
        lambda x, y: x @ y,
    ),
    "matmul broadcast": (
        lambda x, y: x @ y,
        [normal(2, 3, 4), normal(4, 5)],
        lambda x, y: x @ y,
    ),
    "logsumexp": (
        lambda x: ops.logsumexp(x, axis=-1),
        [3 * normal(4, 6)],
        lambda x: x.logsumexp(dim=-1),
    ),
    "logsumexp axis0 keepdims": (
        lambda x: ops.logsumexp(x, axis=0, keepdims=True),
        [normal(4, 6)],
        lambda x: x.logsumexp(dim=0, keepdim=True),
    ),
    "softmax": (
        lambda x: ops.softmax(x, axis=-1),
        [normal(3, 5)],
        lambda x: x.softmax(dim=-1),
    ),
    "log_softmax": (
        lambda x: ops.log_softmax(x, axis=0),
        [normal(3, 5)],
        lambda x: x.log_softmax(dim=0),
    ),
}

ARGS = [(name, i) for name, (_, args, _) in CASES.items() for i in range(len(args))]


def _partial(fn, args, i):
    """fn as a function of its i-th argument only (the others fixed)."""

    def f(z):
        call = list(args)
        call[i] = z
        return fn(*call)

    return f


@pytest.mark.parametrize("name, i", ARGS, ids=[f"{n}[{i}]" for n, i in ARGS])
def test_vjp_and_jvp_against_finite_differences(name, i):
    fn, args, _ = CASES[name]
    f = _partial(fn, args, i)
    y, vjp_fn = ad.vjp(f, args[i])
    np.testing.assert_allclose(y, np.asarray(f(args[i])), rtol=0, atol=0)
    worst = check_grads(
        f,
        args[i],
        vjp_fn=vjp_fn,
        jvp_fn=lambda v: ad.jvp(f, args[i], v)[1],
        directions=3,
        rtol=1e-7,
    )
    assert worst < 1e-7
    u = RNG.standard_normal(y.shape)
    assert vjp_fn(u).shape == args[i].shape  # the adjoint of broadcasting sums


TORCH_ARGS = [(n, i) for n, i in ARGS if CASES[n][2] is not None]


@pytest.mark.parametrize(
    "name, i", TORCH_ARGS, ids=[f"{n}[{i}]" for n, i in TORCH_ARGS]
)
def test_vjp_against_torch_autograd(name, i):
    import torch

    fn, args, tfn = CASES[name]
    targs = [torch.tensor(a, requires_grad=(k == i)) for k, a in enumerate(args)]
    t_out = tfn(*targs)
    u = np.random.default_rng(1).standard_normal(tuple(t_out.shape))
    (want,) = torch.autograd.grad(t_out, targs[i], torch.tensor(u))
    y, vjp_fn = ad.vjp(_partial(fn, args, i), args[i])
    np.testing.assert_allclose(y, t_out.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(vjp_fn(u), want.numpy(), rtol=1e-11, atol=1e-12)


def test_every_primitive_is_covered():
    """The table above exercises every registered primitive of the rule table."""
    used: set[str] = set()
    for fn, args, _ in CASES.values():
        out = fn(*[ad.Tensor(a, requires_grad=True) for a in args])
        used |= {node.prim.name for node in ad.toposort(out) if node.prim is not None}
    core = {
        name
        for name in ad.PRIMITIVES
        if not name.endswith("_demo") and not name.startswith("lab")
    }
    assert core <= used, f"untested primitives: {sorted(core - used)}"


def test_unbroadcast_sums_copied_axes():
    g = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(ad.unbroadcast(g, np.zeros(4)), g.sum(axis=(0, 1)))
    np.testing.assert_array_equal(
        ad.unbroadcast(g, np.zeros((3, 1))), g.sum(axis=(0, 2))[:, None]
    )
    np.testing.assert_array_equal(ad.unbroadcast(g, np.zeros(())), g.sum())
    assert ad.unbroadcast(g, g) is g


def test_a_wrong_rule_is_caught_by_the_check():
    """The random-direction check can fail: a transposed matmul VJP is rejected."""
    W = RNG.standard_normal((3, 3))
    x = RNG.standard_normal(3)
    with pytest.raises(AssertionError, match="vjp disagrees"):
        check_grads(lambda z: W @ z, x, vjp_fn=lambda v: W @ v)  # should be W.T @ v
    with pytest.raises(AssertionError, match="jvp disagrees"):
        check_grads(lambda z: np.tanh(z), x, jvp_fn=lambda v: v)


def test_ties_share_the_gradient_like_jax():
    import jax
    import jax.numpy as jnp

    x = np.array([1.0, 2.0, 2.0, 0.5])
    g_max = ad.grad(lambda z: z.max())(x)
    np.testing.assert_array_equal(g_max, np.asarray(jax.grad(jnp.max)(x)))
    g_maximum = ad.grad(lambda z: np.maximum(z, 2.0).sum())(x)
    want = jax.grad(lambda z: jnp.maximum(z, 2.0).sum())(x)
    np.testing.assert_array_equal(g_maximum, np.asarray(want))
    assert g_maximum.tolist() == [0.0, 0.5, 0.5, 0.0]


def test_rules_keep_float32():
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    W = RNG.standard_normal((3, 2)).astype(np.float32)
    for f in (
        lambda z: np.maximum(z @ W, 0.0).max(),
        lambda z: ops.logsumexp(ops.sigmoid(z), axis=0).mean(),
        lambda z: (z[np.arange(4), np.array([0, 1, 2, 0])] ** 2).sum(),
    ):
        assert ad.grad(f)(x).dtype == np.float32
