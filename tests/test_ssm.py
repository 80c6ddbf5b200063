"""Linear SSMs (book §13.3): recurrence = closed form = long convolution (direct and
FFT) = associative scan; discretisation against SciPy; the diagonalised SSM (complex
eigenvalues, B̄ = P⁻¹B, not the printed PB) equals the original; selective SSM forms."""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import recurrent as R
from alice_lab.backend import parity_precision


def _ssm(seed=0, e=4, c=2, o=3, n=12):
    r = np.random.default_rng(seed)
    A = r.standard_normal((e, e))
    A *= 0.9 / np.max(np.abs(np.linalg.eigvals(A)))
    return (
        A,
        r.standard_normal((e, c)),
        r.standard_normal((o, e)),
        r.standard_normal((o, c)),
        r.standard_normal((n, c)),
    )


def test_recurrence_closed_form_conv_and_scan_agree():
    A, B, C, D, X = _ssm()
    Y, S = R.linear_ssm(X, A, B, C, D)
    s = np.zeros(4)
    for i, x in enumerate(X):  # the recurrence written out (lines 6529-6531)
        s = A @ s + B @ x
        np.testing.assert_allclose(S[i], s, atol=1e-12)
    np.testing.assert_allclose(R.ssm_closed_form(X, A, B), S, atol=1e-10)
    K = R.ssm_kernel(A, B, len(X))
    assert K.shape == (12, 4, 2)
    np.testing.assert_allclose(K[0], np.linalg.matrix_power(A, 11) @ B, atol=1e-12)
    np.testing.assert_allclose(R.ssm_conv(X, K), S, atol=1e-10)
    for alg in ("blelloch", "hillis_steele", "sequential"):
        Ss, P = R.ssm_scan(X, A, B, algorithm=alg, return_powers=True)
        np.testing.assert_allclose(Ss, S, atol=1e-10)
        np.testing.assert_allclose(P[4], np.linalg.matrix_power(A, 5), atol=1e-12)
    np.testing.assert_allclose(Y, S @ C.T + X @ D.T, atol=1e-12)
    # batched input gives each sequence's result
    Yb, _ = R.linear_ssm(np.stack([X, 2 * X]), A, B, C, D)
    np.testing.assert_allclose(Yb[1], 2 * Y, atol=1e-12)


def test_fft_convolution_matches_numpy_convolve():
    r = np.random.default_rng(1)
    x, k = r.standard_normal(50), r.standard_normal(50)
    np.testing.assert_allclose(R.ssm_conv_fft(x, k), np.convolve(x, k)[:50], atol=1e-10)


@pytest.mark.parametrize("method", ["zoh", "bilinear", "euler"])
def test_discretize_matches_scipy(method):
    from scipy.signal import cont2discrete

    A, B, C, D, _ = _ssm(2)
    Ad, Bd = R.discretize(A - 2 * np.eye(4), B, 0.1, method)
    want = cont2discrete((A - 2 * np.eye(4), B, C, D), 0.1, method=method)
    np.testing.assert_allclose(Ad, want[0], atol=1e-12)
    np.testing.assert_allclose(Bd, want[1], atol=1e-12)


def test_diagonalised_ssm_equals_original_with_complex_eigenvalues():
    A, B, C, D, X = _ssm(3)
    lam, P, P_inv = R.diagonalize(A)
    assert np.iscomplexobj(lam) and np.abs(lam.imag).max() > 0.1
    for i in (1, 5):  # A^i = P Λ^i P⁻¹ (line 6671)
        np.testing.assert_allclose(
            (P * lam**i) @ P_inv, np.linalg.matrix_power(A, i), atol=1e-12
        )
    Y, _ = R.linear_ssm(X, A, B, C, D)
    lam, Bbar, Cbar = R.diagonalize_ssm(A, B, C)
    for method in ("recurrent", "scan", "conv"):
        np.testing.assert_allclose(
            R.diagonal_ssm(X, lam, Bbar, Cbar, D, method=method), Y, atol=1e-10
        )
    printed = R.diagonal_ssm(X, lam, P @ B, Cbar, D)  # the book's P B (line 6679)
    assert np.abs(printed - Y).max() > 1e-2


def test_diagonal_ssm_scan_matches_jax_associative_scan():

    r = np.random.default_rng(4)
    lam = 0.95 * np.exp(1j * r.uniform(0, np.pi, 3))
    X, Bbar = r.standard_normal((20, 2)), r.standard_normal((3, 2)) + 0j
    S = R.diagonal_ssm(X, lam, Bbar)
    with parity_precision():  # float64 in JAX
        got = R.jax_linear_recurrence(np.broadcast_to(lam, (20, 3)), X @ Bbar.T)
    np.testing.assert_allclose(np.asarray(got), S, atol=1e-10)


def test_selective_ssm_scan_equals_loop_and_decays_in_unit_interval():
    r = np.random.default_rng(5)
    n, c, e = 15, 3, 4
    X = r.standard_normal((n, c))
    A_bar = -np.exp(r.standard_normal((c, e)))
    args = (
        A_bar,
        r.standard_normal((e, c)),
        r.standard_normal((e, c)),
        r.standard_normal((c, c)),
        r.standard_normal(c),
        r.standard_normal(c),
    )
    H, decay = R.selective_ssm(X, *args, return_decay=True)
    _, W_B, W_C, W_d, b_d, D = args
    s = np.zeros((c, e))
    for i, x in enumerate(X):  # the loop of lines 6823-6835 written out, per channel
        dlt = np.log1p(np.exp(W_d @ x + b_d))
        s = np.exp(dlt[:, None] * A_bar) * s + (dlt * x)[:, None] * (W_B @ x)[None]
        np.testing.assert_allclose(H[i], s @ (W_C @ x) + D * x, atol=1e-12)
    np.testing.assert_allclose(R.selective_ssm(X, *args, method="scan"), H, atol=1e-10)
    assert H.shape == (n, c) and ((decay > 0) & (decay < 1)).all()
    # input-dependent coefficients: no longer linear in X, unlike the LTI SSM
    X2 = r.standard_normal((n, c))
    sel = lambda Z: R.selective_ssm(Z, *args)  # noqa: E731
    assert not np.allclose(sel(X + X2), sel(X) + sel(X2))
    A, B, _, _, Xl = _ssm(6, c=3)
    lin = lambda Z: R.linear_ssm(Z, A, B)[1]  # noqa: E731
    np.testing.assert_allclose(lin(Xl + X2[:12]), lin(Xl) + lin(X2[:12]), atol=1e-12)


def test_ssm_bad_input():
    A, B, C, D, X = _ssm()
    with pytest.raises(ValueError, match=r"B must have shape \(4, 2\)"):
        R.linear_ssm(X, A, B[:3])
    with pytest.raises(ValueError, match=r"inputs of size 3"):
        R.linear_ssm(np.zeros((5, 3)), A, B)
    with pytest.raises(ValueError, match="A must be square"):
        R.ssm_kernel(A[:3], B, 5)
    with pytest.raises(ValueError, match="non-empty"):
        R.linear_ssm(X[:0], A, B)
    with pytest.raises(ValueError, match="m >= n"):
        R.ssm_conv(X, R.ssm_kernel(A, B, 3))
    with pytest.raises(ValueError, match="lam"):
        R.diagonal_ssm(X, np.ones(3), B)
    with pytest.raises(ValueError, match="A_bar must be negative"):
        R.selective_ssm(
            X, np.ones((2, 4)), np.ones((4, 2)), np.ones((4, 2)), np.eye(2), np.zeros(2)
        )
    with pytest.raises(ValueError, match="method must be"):
        R.discretize(A, B, 0.1, "rk4")


@pytest.mark.parametrize("method", ["recurrent", "scan"])
def test_selective_ssm_on_every_backend(backend, method):
    r = np.random.default_rng(6)
    n, c, e = 9, 3, 2
    X = r.standard_normal((n, c))
    A_bar = -np.exp(r.standard_normal((c, e)))
    W_B, W_C = r.standard_normal((e, c)), r.standard_normal((e, c))
    W_d, b_d, D = r.standard_normal((c, c)), r.standard_normal(c), r.standard_normal(c)
    s, want = np.zeros((c, e)), []
    for x in X:  # lines 6823-6835 written out, as in the NumPy test above
        dlt = np.log1p(np.exp(W_d @ x + b_d))
        s = np.exp(dlt[:, None] * A_bar) * s + (dlt * x)[:, None] * (W_B @ x)[None]
        want.append(s @ (W_C @ x) + D * x)
    args = [backend.asarray(M) for M in (X, A_bar, W_B, W_C, W_d, b_d, D)]
    got = R.selective_ssm(*args, method=method)
    assert type(got) is type(args[0])
    np.testing.assert_allclose(backend.to_numpy(got), np.array(want), atol=1e-10)
