"""Positional embeddings: the sinusoidal table against its closed form, RoPE's
relative-position property (against a hand-built rotation matrix), ALiBi and the
Toeplitz bias, and the shift equivariance of offset-only biases."""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import attention as A


def test_sinusoidal_against_the_closed_form():
    n, d = 50, 16
    S = A.sinusoidal_positions(n, d)
    pos = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    np.testing.assert_allclose(
        S[:, 0::2], np.sin(pos / 10000 ** (2 * i / d)), atol=1e-15
    )
    np.testing.assert_allclose(
        S[:, 1::2], np.cos(pos / 10000 ** (2 * i / d)), atol=1e-15
    )
    # the book's frequencies: ω_0 = 1 and ω_e = 1/10000 with exponent i/e
    w = A.frequencies(d, exponent="book", variant="sin")
    assert w[0] == 1.0 and 10000.0 ** (-d / d) == pytest.approx(1e-4)
    sin_only = A.sinusoidal_positions(n, d, variant="sin", exponent="book")
    np.testing.assert_allclose(sin_only, np.sin(pos * w[None]), atol=1e-15)


def test_sinusoidal_dot_products_depend_only_on_the_offset():
    S = A.sinusoidal_positions(64, 32)
    G = S @ S.T
    for k in range(-10, 11):
        diag = np.diag(G, k)
        assert np.ptp(diag) < 1e-10
    # rows are distinct
    assert len(np.unique(S.round(8), axis=0)) == 64


def test_rope_matches_a_block_rotation_and_scores_depend_only_on_the_offset():
    rng = np.random.default_rng(0)
    d, n = 8, 10
    X = rng.standard_normal((n, d))
    R = A.rope(X, base=100.0)
    th = 100.0 ** (-2 * np.arange(d // 2) / d)
    for i in (0, 3, 9):
        M = np.zeros((d, d))
        for l, t in enumerate(th):  # noqa: E741
            c, s = np.cos(i * t), np.sin(i * t)
            M[2 * l : 2 * l + 2, 2 * l : 2 * l + 2] = [[c, -s], [s, c]]
        np.testing.assert_allclose(R[i], M @ X[i], atol=1e-14)
    q, k = rng.standard_normal((2, 1, d))

    def score(i, j):
        qi = A.rope(q, positions=[i])
        kj = A.rope(k, positions=[j])
        return float(qi[0] @ kj[0])

    for t in (1, 5, 37):
        assert score(2, 7) == pytest.approx(score(2 + t, 7 + t), abs=1e-12)
    assert abs(score(2, 7) - score(2, 8)) > 1e-6
    R10 = A.rope(X)
    np.testing.assert_allclose(A.rope(X[3:], offset=3), R10[3:], atol=1e-14)
    # rotations preserve norms
    np.testing.assert_allclose(
        np.linalg.norm(R10, axis=1), np.linalg.norm(X, axis=1), atol=1e-12
    )


def test_rope_works_on_torch_and_jax():
    import jax.numpy as jnp
    import torch

    X = np.random.default_rng(1).standard_normal((2, 5, 6))
    want = A.rope(X)
    np.testing.assert_allclose(A.rope(torch.as_tensor(X)).numpy(), want, atol=1e-14)
    np.testing.assert_allclose(np.asarray(A.rope(jnp.asarray(X))), want, atol=1e-12)


def test_alibi_and_toeplitz_bias():
    B = A.alibi_bias(5, 2, slopes=[0.5, 2.0])
    i = np.arange(5)
    np.testing.assert_array_equal(B[1], -2.0 * np.abs(i[:, None] - i[None, :]))
    np.testing.assert_allclose(A.alibi_slopes(8), 2.0 ** -np.arange(1, 9))
    Bc = A.alibi_bias(4, 1, causal=True)
    assert np.all(np.isneginf(Bc[0][np.triu_indices(4, 1)]))
    b = np.arange(7.0)
    T = A.toeplitz_bias(b, 4)
    assert T[3, 0] == b[6] and T[0, 3] == b[0]
    for k in range(-3, 4):
        assert np.ptp(np.diag(T, k)) == 0
    with pytest.raises(ValueError, match=r"\(2n - 1,\) = \(7,\)"):
        A.toeplitz_bias(np.zeros(5), 4)


def test_circulant_bias_gives_shift_equivariance_not_permutation_equivariance():
    rng = np.random.default_rng(2)
    n, d = 8, 4
    b = rng.standard_normal(n)
    i = np.arange(n)
    B = b[(i[:, None] - i[None, :]) % n]  # circulant: offsets taken modulo n
    X = rng.standard_normal((n, d))
    f = lambda Z: A.relative_bias_attention(Z, Z, Z, B)  # noqa: E731
    np.testing.assert_allclose(
        f(np.roll(X, 3, axis=0)), np.roll(f(X), 3, axis=0), atol=1e-12
    )
    P = np.eye(n)[rng.permutation(n)]
    assert np.abs(f(P @ X) - P @ f(X)).max() > 1e-3
