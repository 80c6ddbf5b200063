"""alice_lab.functional and alice_lab.losses against SciPy and the frameworks' kernels:
random and extreme logits, inf/NaN entries, every backend, autodiff gradients."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.special as sp

from alice_lab import functional as F
from alice_lab.losses import cross_entropy

inf, nan = np.inf, np.nan

# rows whose maximum is not finite, or that overflow a naive implementation
BIG = np.finfo(np.float64).max / 2  # rows 9 and 10 scale it down for float32
SPECIAL = np.array(
    [
        [-inf, -inf, -inf],  # empty mass: logsumexp -inf
        [inf, 0.0, 1.0],  # +inf wins
        [inf, -inf, 0.0],
        [inf, inf, 0.0],
        [nan, 0.0, 1.0],  # NaN propagates
        [nan, inf, -inf],
        [-inf, nan, -inf],
        [-inf, 0.0, 1.0],  # -inf entries are just zero mass
        [-inf, -inf, 5.0],
        [BIG, BIG, -BIG],  # naive exp overflows
        [-BIG, -BIG, -BIG],  # naive exp underflows to 0
        [1000.0, 1000.0, 0.0],
    ]
)


def scipy_quiet(fn, *args, **kwargs):
    """SciPy warns (overflow, invalid value) on some special rows; we must not."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def logits(rng, shape, scale, dtype):
    return (scale * rng.standard_normal(shape)).astype(dtype)


# --- against SciPy --------------------------------------------------------------------


@pytest.mark.parametrize("dtype, rtol", [("float64", 1e-13), ("float32", 2e-6)])
@pytest.mark.parametrize("scale", [1.0, 1e4])
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_against_scipy_on_random_logits(rng, dtype, rtol, scale, axis):
    x = logits(rng, (6, 7, 5), scale, dtype)
    for ours, theirs in [
        (F.logsumexp, sp.logsumexp),
        (F.softmax, sp.softmax),
        (F.log_softmax, sp.log_softmax),
    ]:
        got, want = ours(x, axis=axis), theirs(x, axis=axis)
        assert got.dtype == x.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale * 1e-3)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_extreme_logits_stay_finite(dtype):
    x = np.array([[1e4, -1e4, 0.0], [-1e4, -1e4 + 1, -1e4]], dtype=dtype)
    assert np.all(np.isfinite(F.logsumexp(x)))
    assert np.all(np.isfinite(F.log_softmax(x)[:, :2]))
    np.testing.assert_allclose(F.logsumexp(x), sp.logsumexp(x, axis=-1), rtol=1e-6)
    np.testing.assert_allclose(F.softmax(x).sum(-1), 1.0, rtol=1e-6)
    # the naive formula overflows where the shifted one does not (claim 47, §4.3.2)
    with np.errstate(all="ignore"):
        naive = np.log(np.sum(np.exp(x), axis=-1))
    assert naive[0] == inf and naive[1] == -inf  # overflow, underflow


@pytest.mark.parametrize(
    "fn, ref",
    [
        (F.logsumexp, sp.logsumexp),
        (F.softmax, sp.softmax),
        (F.log_softmax, sp.log_softmax),
    ],
)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_inf_and_nan_entries_match_scipy_without_warnings(fn, ref, dtype):
    x = SPECIAL.copy()
    x[9:11] *= np.finfo(dtype).max / np.finfo(np.float64).max
    x = x.astype(dtype)
    got = fn(x)  # pytest turns any RuntimeWarning into an error
    want = scipy_quiet(ref, x, axis=-1)
    np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert got.dtype == x.dtype


def test_special_rows_spelled_out():
    lse = F.logsumexp(SPECIAL)
    assert lse[0] == -inf and lse[1] == inf and lse[3] == inf
    assert np.isnan(lse[4]) and np.isnan(lse[5]) and np.isnan(lse[6])
    assert lse[8] == 5.0 and lse[9] == BIG  # + log 2 is below BIG's resolution
    assert lse[10] == pytest.approx(-BIG + np.log(3))
    assert lse[11] == pytest.approx(1000 + np.log(2), rel=1e-15)


def test_empty_axis():
    x = np.zeros((3, 0))
    np.testing.assert_array_equal(F.logsumexp(x), sp.logsumexp(x, axis=-1))
    assert F.softmax(x).shape == (3, 0) and F.log_softmax(x).shape == (3, 0)


def test_lists_are_accepted_on_numpy():
    out = F.logsumexp([0.0, 0.0])
    assert out == pytest.approx(np.log(2.0))
    np.testing.assert_allclose(
        F.softmax([[1, 2, 3]]), sp.softmax([[1.0, 2, 3]], axis=-1)
    )


# --- identities from the book ---------------------------------------------------------


def test_shift_invariance_for_any_real_c(rng):
    # §4.3.2, line 2008: lse(p) = lse(p - c) + c; the book says c >= 0, any c works
    p = rng.normal(size=(50, 8))
    for c in rng.normal(scale=100, size=20):
        np.testing.assert_allclose(F.logsumexp(p), F.logsumexp(p - c) + c, rtol=1e-12)


def test_cross_entropy_term_decomposition(rng):
    # line 1996: -log softmax(p)_i = -p_i + logsumexp(p)
    p = rng.normal(size=(10, 4))
    np.testing.assert_allclose(
        -F.log_softmax(p), -p + F.logsumexp(p)[:, None], rtol=1e-12
    )
    np.testing.assert_allclose(np.exp(F.log_softmax(p)), F.softmax(p), rtol=1e-12)


def test_softmax_temperature(rng):
    x = rng.normal(size=(5, 4))
    for tau in (0.1, 1.0, 7.0):
        np.testing.assert_allclose(F.softmax(x, tau=tau), sp.softmax(x / tau, axis=-1))
    np.testing.assert_allclose(F.softmax(x, tau=1e8), 0.25, rtol=1e-6)  # uniform 1/m
    one_hot = np.eye(4)[np.argmax(x, axis=-1)]
    np.testing.assert_allclose(F.softmax(x, tau=1e-6), one_hot, atol=1e-12)
    assert np.all(np.argsort(F.softmax(x, tau=3.0)) == np.argsort(x))


# --- backends and autodiff ------------------------------------------------------------


@pytest.mark.parametrize("axis", [-1, 0])
def test_parity_across_backends(backend, rng, axis):
    x = logits(rng, (9, 6), 30.0, "float64")
    x[0] = [-inf] * 6
    x[1, 2] = inf
    x[2, 3] = nan
    for fn, kwargs in [
        (F.logsumexp, {}),
        (F.softmax, {}),
        (F.softmax, {"tau": 2.5}),
        (F.log_softmax, {}),
    ]:
        got = fn(backend.asarray(x), axis=axis, **kwargs)
        assert type(got) is type(backend.asarray(x))
        np.testing.assert_allclose(
            backend.to_numpy(got),
            fn(x, axis=axis, **kwargs),
            rtol=1e-13,
            atol=1e-15,  # a log-probability near 0 may differ by one float64 ulp
            equal_nan=True,
        )


def test_logsumexp_gradient_is_softmax_torch(rng):
    # line 2014 prints "∇softmax = logsumexp"; the right statement is ∇lse = softmax
    torch = pytest.importorskip("torch")
    p = torch.tensor(rng.normal(scale=5, size=(7, 5)), requires_grad=True)
    out = F.logsumexp(p)
    assert out.requires_grad
    out.sum().backward()
    np.testing.assert_allclose(
        p.grad.numpy(), F.softmax(p.detach().numpy()), atol=1e-15
    )
    np.testing.assert_allclose(
        out.detach().numpy(), torch.logsumexp(p.detach(), -1).numpy(), rtol=1e-14
    )


def test_logsumexp_gradient_is_softmax_jax(rng):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    p = jnp.asarray(rng.normal(scale=5, size=(5,)))
    np.testing.assert_allclose(
        jax.grad(F.logsumexp)(p), F.softmax(np.asarray(p)), atol=1e-15
    )
    np.testing.assert_allclose(jax.jit(F.logsumexp)(p), jax.nn.logsumexp(p), rtol=1e-14)


def test_logsumexp_gradient_finite_differences(rng):
    p, h = rng.normal(size=6), 1e-6
    fd = [
        (F.logsumexp(p + h * e) - F.logsumexp(p - h * e)) / (2 * h) for e in np.eye(6)
    ]
    np.testing.assert_allclose(fd, F.softmax(p), atol=1e-9)


def test_framework_kernels_agree(rng):
    torch = pytest.importorskip("torch")
    x = rng.normal(scale=10, size=(8, 5))
    t = torch.tensor(x)
    np.testing.assert_allclose(
        F.softmax(t).numpy(), torch.softmax(t, -1).numpy(), rtol=1e-13
    )
    np.testing.assert_allclose(
        F.log_softmax(t, axis=0).numpy(), torch.log_softmax(t, 0).numpy(), rtol=1e-13
    )


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [F.logsumexp, F.softmax, F.log_softmax])
def test_bad_input(fn):
    # integer arrays are cast to float64 (alice_lab.backend.as_float_array)
    np.testing.assert_array_equal(fn(np.array([1, 2, 3])), fn(np.array([1.0, 2, 3])))
    with pytest.raises(ValueError, match="real .*complex128"):
        fn(np.ones(3, dtype=complex))
    with pytest.raises(ValueError, match=r"axis 2 is out of range.*\(2, 3\)"):
        fn(np.zeros((2, 3)), axis=2)
    with pytest.raises(ValueError, match="axis must be an int"):
        fn(np.zeros((2, 3)), axis=(0, 1))
    with pytest.raises(ValueError, match="at least one axis"):
        fn(np.float64(1.0))


@pytest.mark.parametrize("tau", [0.0, -1.0, nan, inf, "hot"])
def test_bad_temperature(tau):
    with pytest.raises(ValueError, match="tau must be"):
        F.softmax(np.zeros(3), tau=tau)


# --- cross-entropy --------------------------------------------------------------------


def test_cross_entropy_matches_torch(rng):
    torch = pytest.importorskip("torch")
    z = rng.normal(scale=3, size=(32, 10))
    y = rng.integers(0, 10, size=32)
    want = torch.nn.functional.cross_entropy(torch.tensor(z), torch.tensor(y)).item()
    assert float(cross_entropy(z, y)) == pytest.approx(want, rel=1e-13)
    # torch tensors in, torch tensor out, with gradients (softmax - one_hot) / n
    zt = torch.tensor(z, requires_grad=True)
    loss = cross_entropy(zt, torch.tensor(y))
    loss.backward()
    expected = (sp.softmax(z, axis=-1) - np.eye(10)[y]) / 32
    np.testing.assert_allclose(zt.grad.numpy(), expected, atol=1e-15)


def test_cross_entropy_extreme_logits_stay_finite():
    torch = pytest.importorskip("torch")
    z = np.array([[1e4, -1e4, 0.0], [0.0, 0.0, 2000.0]])
    y = np.array([1, 0])
    got = float(cross_entropy(z, y))
    want = torch.nn.functional.cross_entropy(torch.tensor(z), torch.tensor(y)).item()
    assert np.isfinite(got) and got == pytest.approx(want) == pytest.approx(11000.0)
    with np.errstate(all="ignore"):  # the naive formula gives inf here
        naive = -np.log(np.exp(z) / np.exp(z).sum(-1, keepdims=True))[[0, 1], y]
    assert not np.all(np.isfinite(naive))


def test_cross_entropy_parity(backend, rng):
    z, y = rng.normal(size=(6, 4)), rng.integers(0, 4, size=6)
    got = cross_entropy(backend.asarray(z), backend.asarray(y))
    np.testing.assert_allclose(backend.to_numpy(got), cross_entropy(z, y), rtol=1e-14)
    assert backend.to_numpy(got).shape == ()


@pytest.mark.parametrize(
    "z, y, message",
    [
        (np.zeros((3, 4)), np.array([0, 1, 4]), r"labels must lie in 0..3.*0 to 4"),
        (np.zeros((3, 4)), np.array([0, -1, 2]), r"labels must lie in 0..3"),
        (np.zeros((3, 4)), np.array([0.0, 1.0, 2.0]), "integer class labels"),
        (np.zeros((3, 4)), np.array([0, 1]), r"labels must have shape \(n,\) = \(3,\)"),
        (np.zeros((3, 4)), np.zeros((3, 4), dtype=int), r"labels must have shape"),
        (np.zeros(4), np.array([0]), r"logits must have shape \(n, c\); got \(4,\)"),
        (np.zeros((0, 4)), np.zeros(0, dtype=int), "at least one example"),
    ],
)
def test_cross_entropy_bad_input(z, y, message):
    with pytest.raises(ValueError, match=message):
        cross_entropy(z, y)
