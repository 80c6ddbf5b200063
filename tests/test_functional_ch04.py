"""functional.sigmoid, logit and one_hot (chapter 4) against SciPy, torch and JAX, on
every backend, at the extremes, and with bad input; and the chapter's stability
claims for softmax and logsumexp at logits of ±1e4 in float32 and float64."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

from alice_lab.functional import logit, logsumexp, one_hot, sigmoid, softmax

S = np.array([-1000.0, -745.0, -50.0, -3.0, -1e-8, 0.0, 1e-8, 2.5, 40.0, 800.0])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sigmoid_matches_expit_everywhere(dtype):
    s = S.astype(dtype)
    with np.errstate(
        over="raise", invalid="raise", divide="raise"
    ):  # no overflow, no underflow warning
        got = sigmoid(s)
    assert got.dtype == np.dtype(dtype)
    tiny = np.finfo(dtype).smallest_subnormal  # e^-745 rounds to 0 or to 5e-324
    rtol = 2e-7 if dtype == "float32" else 1e-15
    np.testing.assert_allclose(got, sp.expit(s), rtol=rtol, atol=tiny)
    assert sigmoid(np.float64(0.0)) == 0.5


def test_sigmoid_parity(backend, rng):
    s = rng.normal(scale=20, size=(4, 5))
    got = backend.to_numpy(sigmoid(backend.asarray(s)))
    np.testing.assert_allclose(got, sp.expit(s), rtol=1e-15, atol=1e-300)


def test_sigmoid_gradient_matches_torch_and_jax():
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    s = np.array([-30.0, -2.0, 0.0, 1e-3, 3.0, 30.0])
    st = torch.tensor(s, requires_grad=True)
    sigmoid(st).sum().backward()
    want = sp.expit(s) * sp.expit(-s)  # σ(1 - σ) without the cancellation at s = 30
    np.testing.assert_allclose(st.grad.numpy(), want, rtol=1e-12, atol=1e-300)
    g = jax.vmap(jax.grad(lambda x: sigmoid(x)))(jax.numpy.asarray(s))
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(
        sigmoid(torch.tensor(s)).numpy(),
        torch.sigmoid(torch.tensor(s)).numpy(),
        rtol=1e-15,
    )


def test_logit_inverts_sigmoid_and_matches_scipy(backend, rng):
    p = rng.uniform(1e-6, 1 - 1e-6, size=30)
    got = backend.to_numpy(logit(backend.asarray(p)))
    np.testing.assert_allclose(got, sp.logit(p), rtol=1e-12)
    s = rng.normal(scale=5, size=30)
    np.testing.assert_allclose(logit(sigmoid(s)), s, rtol=1e-9, atol=1e-12)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        ends = logit(np.array([0.0, 1.0]))
    assert ends.tolist() == [-np.inf, np.inf]
    clipped = logit(np.array([0.0, 1.0]), eps=1e-6)
    np.testing.assert_allclose(clipped, sp.logit([1e-6, 1 - 1e-6]))


@pytest.mark.parametrize("bad", [[-0.1, 0.5], [0.5, 1.2], [np.nan, 0.5]])
def test_logit_rejects_non_probabilities(bad):
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
        logit(np.array(bad))


def test_sigmoid_casts_integers_and_logit_checks_eps():
    np.testing.assert_allclose(
        sigmoid(np.array([1, 2])), 1 / (1 + np.exp(-np.array([1.0, 2.0]))), rtol=1e-15
    )
    with pytest.raises(ValueError, match="eps must lie"):
        logit(np.array([0.5]), eps=0.7)


def test_one_hot_matches_torch_and_the_identity(backend):
    torch = pytest.importorskip("torch")
    y = np.array([0, 2, 1, 2, 0])
    got = one_hot(backend.asarray(y), 3)
    want = torch.nn.functional.one_hot(torch.tensor(y), 3).numpy()
    np.testing.assert_array_equal(backend.to_numpy(got), want)
    assert backend.to_numpy(got).dtype.kind == "f"
    # classes 1, 2, 3 of the book (0, 1, 2 here) are the rows of I_3
    np.testing.assert_array_equal(one_hot(np.arange(3), 3), np.eye(3))
    assert one_hot(np.arange(3), 3, dtype=np.float32).dtype == np.float32


def test_one_hot_of_token_batches_matches_torch(backend):
    """Chapter 8's one-hot of token ids (b, t) -> (b, t, n): the same function, which
    alice_lab.text exports."""
    torch = pytest.importorskip("torch")
    from alice_lab import text

    ids = np.array([[3, 0, 2], [1, 1, 4]])
    got = one_hot(backend.asarray(ids), 5)
    want = torch.nn.functional.one_hot(torch.tensor(ids), 5).numpy()
    np.testing.assert_array_equal(backend.to_numpy(got), want)
    assert text.one_hot is one_hot
    assert one_hot([[2], [0]], 3).tolist() == [[[0.0, 0.0, 1.0]], [[1.0, 0.0, 0.0]]]


@pytest.mark.parametrize(
    "y, m, message",
    [
        (np.array([0, 3]), 3, r"labels must lie in 0..2; got values from 0 to 3"),
        (np.array([-1, 0]), 3, r"labels must lie in 0..2"),
        (np.array([0.0, 1.0]), 3, "integer class labels"),
        (np.array(1), 3, r"y must have shape \(n,\) or \(\.\.\., n\)"),
        (np.array([0, 1]), 0, "m must be an int >= 1"),
        (np.array([0, 1]), 2.5, "m must be an int"),
    ],
)
def test_one_hot_bad_input(y, m, message):
    with pytest.raises(ValueError, match=message):
        one_hot(y, m)


# --- stability at extreme logits (§4.3.2) ---------------------------------------------


def _extreme_logits(dtype):
    rng = np.random.default_rng(0)
    z = rng.uniform(-1e4, 1e4, size=(8, 5))
    z[0] = [1e4, 1e4, -1e4, 0.0, 9999.0]
    z[1] = [-1e4] * 5
    return z.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_and_logsumexp_exact_where_naive_fails(dtype):
    z = _extreme_logits(dtype)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        e = np.exp(z)
        naive_lse = np.log(e.sum(axis=1))
        naive_soft = e / e.sum(axis=1, keepdims=True)
    assert np.isinf(naive_lse).any() and np.isnan(naive_soft).any()
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        lse, soft = logsumexp(z), softmax(z)
    assert np.isfinite(lse).all() and np.isfinite(soft).all()
    z64 = z.astype(np.float64)  # the reference in float64, on the same inputs
    tol = 1e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(lse, sp.logsumexp(z64, axis=1), rtol=tol)
    np.testing.assert_allclose(soft, sp.softmax(z64, axis=1), rtol=tol, atol=1e-30)
    assert lse[1] == pytest.approx(-1e4 + np.log(5), rel=tol)
