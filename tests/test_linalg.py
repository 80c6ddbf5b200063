"""Tests for alice_lab.linalg (§2.1.1-2.1.4).

References: NumPy/SciPy kernels (``@``, ``np.einsum``, ``scipy.linalg.expm``,
``scipy.spatial.distance.cdist``), ``torch.einsum`` / ``torch.linalg.matrix_exp`` /
``torch.nn.functional.cosine_similarity``, ``jax.numpy.einsum`` /
``jax.scipy.linalg.expm``, and the book's numbers. Parity tests run each generic
function on every backend of the ``backend`` fixture in float64.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from scipy.spatial.distance import cdist

from alice_lab import linalg as L
from alice_lab.backend import array_namespace


def _same_kind(out, like):
    """The result lives in the caller's namespace (and so on its device)."""
    assert array_namespace(out) is array_namespace(like)


# --- vectors ------------------------------------------------------------------------


def test_vector_ops_parity(backend, rng):
    x, y = rng.standard_normal(7), rng.standard_normal(7)
    bx, by = backend.asarray(x), backend.asarray(y)
    cases = {
        "lincomb": (L.lincomb(2.0, bx, -0.5, by), 2.0 * x - 0.5 * y),
        "inner": (L.inner(bx, by), x @ y),
        "sq_norm": (L.sq_norm(bx), np.sum(x**2)),
        "norm": (L.norm(bx), np.linalg.norm(x)),
        "norm_naive": (L.norm(bx, safe=False), np.linalg.norm(x)),
        "cosine": (
            L.cosine_similarity(bx, by),
            x @ y / np.linalg.norm(x) / np.linalg.norm(y),
        ),
        "angle": (
            L.angle(bx, by),
            np.arccos(x @ y / np.linalg.norm(x) / np.linalg.norm(y)),
        ),
        "sq_dist": (L.sq_dist(bx, by), np.sum((x - y) ** 2)),
        "sq_dist_dots": (L.sq_dist(bx, by, method="dots"), np.sum((x - y) ** 2)),
        "hadamard": (L.hadamard(bx, by), x * y),
    }
    for name, (got, want) in cases.items():
        _same_kind(got, bx)
        np.testing.assert_allclose(
            backend.to_numpy(got), want, rtol=1e-12, err_msg=name
        )
    assert L.best_template(bx, backend.asarray(np.stack([y, x, -x]))) == 1


def test_inner_book_example_and_shapes():
    """C2-06/C2-07 (lines 262-268): a scalar, -0.4 + 0 - 0.03 = -0.43 (not exactly)."""
    x, y = np.array([0.1, 0.0, -0.3]), np.array([-4.0, 0.05, 0.1])
    got = L.inner(x, y)
    assert np.ndim(got) == 0 and np.isclose(got, -0.43)
    with pytest.raises(ValueError, match=r"y should have shape \(d\), got \(4,\)"):
        L.inner(x, np.ones(4))
    with pytest.raises(ValueError, match=r"x should have shape \(d\), got \(3, 1\)"):
        L.inner(x[:, None], y)
    with pytest.raises(ValueError, match="no broadcasting"):
        L.lincomb(1.0, x, 1.0, x[:, None])
    assert np.isclose(L.inner(x, np.ones(3)), x.sum())  # C2-11, line 296


def test_norm_is_safe_from_overflow_and_underflow():
    """§2.1.1 stability: squaring 1e200 overflows; the scaled norm does not."""
    big, tiny = np.array([1e200, 1e200]), np.array([1e-200, 1e-200])
    np.testing.assert_allclose(L.norm(big), scipy.linalg.norm(big), rtol=1e-15)
    np.testing.assert_allclose(L.norm(tiny), np.hypot(*tiny), rtol=1e-15)
    with np.errstate(over="ignore", under="ignore"):
        assert np.isinf(L.norm(big, safe=False))
        assert L.norm(tiny, safe=False) == 0.0
    assert L.norm(np.zeros(3)) == 0.0
    assert L.norm(np.zeros(0)) == 0.0
    assert np.isinf(L.norm(np.array([np.inf, 1.0])))
    assert np.isnan(L.norm(np.array([np.nan, 1.0])))
    np.testing.assert_allclose(L.norm(np.array([3, 4])), 5.0)  # integers
    X = np.array([[3.0, 4.0], [1e300, 1e300], [0.0, 0.0]])
    np.testing.assert_allclose(L.norm(X, axis=-1), [5.0, np.sqrt(2) * 1e300, 0.0])
    np.testing.assert_allclose(L.sq_norm(X[:1], axis=-1), [25.0])


def test_norm_parity_on_large_entries(backend):
    x = backend.asarray(np.array([1e200, -1e200, 3e199]))
    got = L.norm(x)
    _same_kind(got, x)
    np.testing.assert_allclose(
        backend.to_numpy(got), scipy.linalg.norm([1e200, 1e200, 3e199])
    )


def test_cosine_similarity_book_cases(backend, rng):
    """C2-08/C2-09 (lines 270-280): cos in [-1, 1]; 1 aligned, -1 opposite, 0 at 90°."""
    x = backend.asarray(np.array([0.3, -1.2, 2.0]))
    assert np.isclose(float(L.cosine_similarity(x, 3 * x)), 1.0, rtol=1e-15)
    assert np.isclose(float(L.cosine_similarity(x, -x)), -1.0, rtol=1e-15)
    e1, e2 = (
        backend.asarray(np.array([1.0, 0.0])),
        backend.asarray(np.array([0.0, 1.0])),
    )
    assert float(L.cosine_similarity(e1, e2)) == 0.0
    # aligned pairs whose raw cosine rounds above 1 are clipped, so angle is not nan
    X = rng.standard_normal((300, 5))
    raw = np.sum(X * 2.5 * X, 1) / (
        np.linalg.norm(X, axis=1) * np.linalg.norm(2.5 * X, axis=1)
    )
    assert np.any(raw > 1.0)
    Xb = backend.asarray(X)
    assert np.all(backend.to_numpy(L.cosine_similarity(Xb, 2.5 * Xb)) <= 1.0)
    ang = backend.to_numpy(L.angle(Xb, 2.5 * Xb))
    assert np.all(np.isfinite(ang)) and np.all(ang < 1e-7)
    Yb = backend.asarray(rng.standard_normal((300, 5)))
    c = backend.to_numpy(L.cosine_similarity(Xb, Yb))
    assert c.shape == (300,) and np.all(np.abs(c) <= 1.0)
    zero = backend.asarray(np.zeros(3))
    assert float(L.cosine_similarity(zero, x)) == 0.0  # eps keeps it finite


def test_angle_recovers_the_constructed_angle():
    """C2-08 (lines 272-276): x = r1 (1, 0), y = r2 (cos a, sin a) has angle a."""
    for alpha in np.linspace(0, np.pi, 7):
        u = np.array([2.0, 0.0])
        v = 0.5 * np.array([np.cos(alpha), np.sin(alpha)])
        np.testing.assert_allclose(
            u @ v, np.linalg.norm(u) * np.linalg.norm(v) * np.cos(alpha)
        )
        np.testing.assert_allclose(L.angle(u, v), alpha, atol=1e-7)


def test_cosine_similarity_matches_torch(rng):
    torch = pytest.importorskip("torch")
    X, Y = rng.standard_normal((20, 6)), rng.standard_normal((20, 6))
    want = torch.nn.functional.cosine_similarity(
        torch.as_tensor(X), torch.as_tensor(Y), dim=-1
    )
    np.testing.assert_allclose(L.cosine_similarity(X, Y), want.numpy(), rtol=1e-12)
    big = np.array([1e200, 1e200])
    assert np.isclose(L.cosine_similarity(big, big), 1.0, rtol=1e-15)  # no overflow
    with pytest.raises(ValueError, match="same shape"):
        L.cosine_similarity(X, Y[:, :5])


def test_best_template_unit_vectors(rng):
    """C2-10 (lines 282-290): among unit vectors, x itself maximises <x, y>."""
    x = rng.standard_normal(8)
    x /= np.linalg.norm(x)
    C = rng.standard_normal((1000, 8))
    C /= np.linalg.norm(C, axis=1, keepdims=True)
    assert np.max(C @ x) < 1.0
    assert L.best_template(x, np.vstack([C[:500], x, C[500:]])) == 500
    assert L.best_template(x, C) == int(np.argmax(C @ x))
    with pytest.raises(ValueError, match=r"candidates should have shape \(m, d\)"):
        L.best_template(x, C[:, :3])


def test_sq_dist_and_dot_cancellation():
    """C2-12 (line 304): the dot-product form can go negative; clamping fixes it."""
    negatives = 0
    for seed in range(200):
        r = np.random.default_rng(seed)
        x = 1e4 * r.standard_normal(100)
        y = x + 1e-6 * r.standard_normal(100)
        assert L.sq_dist(x, y) > 0
        dots = L.sq_dist(x, y, method="dots")
        negatives += dots < 0
        D = L.pairwise_sq_dists(x[None], y[None])
        assert D[0, 0] >= 0
        negatives_unclamped = L.pairwise_sq_dists(x[None], y[None], clamp=False)[0, 0]
        assert negatives_unclamped == D[0, 0] or negatives_unclamped < 0
    assert negatives > 10  # the digest measured 59 of 200
    with pytest.raises(ValueError, match="method must be"):
        L.sq_dist(x, y, method="fast")


def test_pairwise_sq_dists_parity(backend, rng):
    X, Y = rng.standard_normal((6, 4)), rng.standard_normal((5, 4))
    got = L.pairwise_sq_dists(backend.asarray(X), backend.asarray(Y))
    _same_kind(got, backend.asarray(X))
    np.testing.assert_allclose(
        backend.to_numpy(got), cdist(X, Y, "sqeuclidean"), atol=1e-12
    )
    # the distance of a point to itself comes out >= 0 even with large offsets
    Z = 1e6 + rng.standard_normal((30, 3))
    self_d = backend.to_numpy(
        L.pairwise_sq_dists(backend.asarray(Z), backend.asarray(Z))
    )
    assert np.all(self_d >= 0)
    with pytest.raises(ValueError, match=r"Y should have shape \(m, d\), got \(5, 3\)"):
        L.pairwise_sq_dists(backend.asarray(X), backend.asarray(Y[:, :3]))


# --- matrices -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "a,b,c", [(3, 4, 5), (1, 4, 5), (3, 4, 1), (1, 1, 1), (2, 0, 3)]
)
def test_matmul_naive_matches_kernel(rng, a, b, c):
    """C2-13/C2-20 (lines 336-342, 438): Z = X @ Y, with a*b*c multiplications."""
    X, Y = rng.standard_normal((a, b)), rng.standard_normal((b, c))
    Z, flops = L.matmul_naive(X, Y, count_flops=True)
    np.testing.assert_allclose(Z, X @ Y, rtol=1e-12, atol=1e-14)
    assert flops == a * b * c
    for i in range(a):  # Z_ij = <X_i, Y_j^T>
        for j in range(c):
            assert np.isclose(Z[i, j], L.inner(X[i], Y[:, j])) if b else Z[i, j] == 0


def test_matmul_naive_dtypes_and_errors(rng):
    Xi = rng.integers(-5, 5, (3, 4))
    Yi = rng.integers(-5, 5, (4, 2))
    np.testing.assert_array_equal(L.matmul_naive(Xi, Yi), Xi @ Yi)
    X32 = rng.standard_normal((3, 4)).astype(np.float32)
    assert L.matmul_naive(X32, X32.T).dtype == np.float32
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(
        L.matmul_naive(torch.ones(2, 3), torch.ones(3, 2)), 3 * np.ones((2, 2))
    )
    with pytest.raises(
        ValueError, match=r"X : \(a, b\) and Y : \(b, c\); got X \(3, 4\)"
    ):
        L.matmul_naive(X32, X32)


def test_matrix_ops_parity(backend, rng):
    X, Y = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    bX, bY = backend.asarray(X), backend.asarray(Y)
    G = L.gram(bX)
    _same_kind(G, bX)
    np.testing.assert_allclose(backend.to_numpy(G), X @ X.T, rtol=1e-12)
    M = (rng.random((4, 3)) < 0.5).astype(np.float64)
    got = L.mask(bX, backend.asarray(M))
    np.testing.assert_array_equal(backend.to_numpy(got), X * M)
    got_bool = L.mask(bX, backend.asarray(M.astype(bool)))
    np.testing.assert_array_equal(backend.to_numpy(got_bool), X * M)
    np.testing.assert_allclose(
        backend.to_numpy(L.gdt(bX, bY)), np.vdot(X, Y), rtol=1e-12
    )


def test_gram_properties(rng):
    """C2-15 (line 360): X X^T holds all row dot products, symmetric and PSD."""
    X = rng.standard_normal((6, 3))
    G = L.gram(X)
    assert G.shape == (6, 6)
    assert all(np.isclose(G[i, j], X[i] @ X[j]) for i in range(6) for j in range(6))
    np.testing.assert_array_equal(G, G.T)
    assert np.linalg.eigvalsh(G).min() >= -1e-10
    W = rng.standard_normal((5, 3))  # C2-14: row i of X W^T is W x_i
    np.testing.assert_allclose((X @ W.T)[2], W @ X[2])


def test_hadamard_and_mask(rng):
    """C2-16 (lines 364-376): element-wise; a binary mask zeros entries."""
    X = rng.standard_normal((3, 4))
    M = (rng.random((3, 4)) < 0.5).astype(int)
    out = L.mask(X, M)
    assert np.all(out[M == 0] == 0) and np.all(out[M == 1] == X[M == 1])
    Xinf = X.copy()
    Xinf[M == 0] = np.inf
    np.testing.assert_array_equal(L.mask(Xinf, M), out)  # no inf * 0 = nan
    with pytest.raises(ValueError, match="only 0 and 1"):
        L.mask(X, 0.5 * np.ones_like(X))
    with pytest.raises(ValueError, match="same shape"):
        L.hadamard(X, X[:, :1])


def test_bmm_and_gdt(backend, rng):
    """C2-25/C2-26 (lines 462-500, Box 2.3)."""
    X, Y = rng.standard_normal((4, 5, 2)), rng.standard_normal((4, 2, 3))
    got = L.bmm(backend.asarray(X), backend.asarray(Y))
    _same_kind(got, backend.asarray(X))
    assert tuple(got.shape) == (4, 5, 3)
    np.testing.assert_allclose(
        backend.to_numpy(got), np.stack([X[i] @ Y[i] for i in range(4)])
    )
    np.testing.assert_allclose(backend.to_numpy(got), np.matmul(X, Y), rtol=1e-12)
    with pytest.raises(ValueError, match=r"Y should have shape \(n, b, c\)"):
        L.bmm(backend.asarray(X), backend.asarray(Y[:3]))
    A, B = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4))
    g = float(L.gdt(backend.asarray(A), backend.asarray(B)))
    for ref in (
        np.sum(A * B),
        np.tensordot(A, B, 3),
        np.vdot(A, B),
        np.einsum("ijk,ijk->", A, B),
    ):
        np.testing.assert_allclose(g, ref, rtol=1e-12)
    assert tuple(L.bmm(np.zeros((0, 2, 3)), np.zeros((0, 3, 4))).shape) == (0, 2, 4)


def test_bmm_matches_torch_bmm(rng):
    torch = pytest.importorskip("torch")
    X, Y = rng.standard_normal((3, 2, 4)), rng.standard_normal((3, 4, 5))
    want = torch.bmm(torch.as_tensor(X), torch.as_tensor(Y))
    got = L.bmm(torch.as_tensor(X), torch.as_tensor(Y))
    assert isinstance(got, torch.Tensor)
    torch.testing.assert_close(got, want)


# --- einsum -------------------------------------------------------------------------

EINSUM_CASES = [
    ("ijz,izk->ijk", [(2, 3, 4), (2, 4, 5)]),  # batched matmul (Box 2.4)
    ("ijk,ijk->", [(2, 3, 4), (2, 3, 4)]),  # GDT
    ("ijz,ikz->ijk", [(2, 3, 4), (2, 5, 4)]),  # A_i B_i^T (line 566)
    ("ij,jk->ik", [(3, 4), (4, 2)]),
    ("ij->i", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ii->", [(4, 4)]),  # trace
    ("ii->i", [(4, 4)]),  # diagonal
    ("i,j->ij", [(3,), (4,)]),  # outer
    ("i,i,i->", [(5,), (5,), (5,)]),
    ("bij,bjk,bkl->bil", [(2, 2, 3), (2, 3, 2), (2, 2, 3)]),
    ("ij,jk", [(3, 4), (4, 2)]),  # implicit output: 'ik'
    ("ba", [(3, 4)]),  # implicit: sorted, so a transpose
    ("ii", [(3, 3)]),  # implicit trace
    ("Ab,bA", [(2, 3), (3, 2)]),
    ("iij->j", [(3, 3, 2)]),
    ("->", [()]),
]


def test_einsum_naive_matches_numpy(rng):
    for spec, shapes in EINSUM_CASES:
        ops = [rng.standard_normal(s) for s in shapes]
        got = L.einsum_naive(spec, *ops)
        want = np.einsum(spec, *ops)
        assert got.shape == np.shape(want), spec
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=spec)
    Xi = rng.integers(-3, 3, (3, 3))
    np.testing.assert_array_equal(L.einsum_naive("ij,jk->ik", Xi, Xi), Xi @ Xi)


def test_einsum_naive_matches_torch_and_jax(rng):
    torch = pytest.importorskip("torch")
    jnp = pytest.importorskip("jax.numpy")
    for spec, shapes in EINSUM_CASES[:11]:
        ops = [rng.standard_normal(s) for s in shapes]
        got = L.einsum_naive(spec, *[torch.as_tensor(o) for o in ops])
        np.testing.assert_allclose(
            got,
            torch.einsum(spec, *map(torch.as_tensor, ops)).numpy(),
            rtol=1e-12,
            atol=1e-12,
            err_msg=spec,
        )
        np.testing.assert_allclose(
            got,
            np.asarray(jnp.einsum(spec, *ops)),
            rtol=1e-12,
            atol=1e-12,
            err_msg=spec,
        )


def test_einsum_book_identities(rng):
    """C2-27/C2-28/C2-29 (lines 510-566)."""
    A, B = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5))
    np.testing.assert_allclose(L.einsum_naive("ijz,izk->ijk", A, B), A @ B)
    C = rng.standard_normal((2, 5, 4))
    np.testing.assert_allclose(
        L.einsum_naive("ijz,ikz->ijk", A, C), A @ C.transpose(0, 2, 1)
    )
    X = rng.standard_normal((4, 4))
    np.testing.assert_allclose(L.einsum_naive("ij->i", X), X.sum(1))
    np.testing.assert_allclose(L.einsum_naive("ii->", X), np.trace(X))


@pytest.mark.parametrize(
    "spec,shapes,match",
    [
        ("ij,jk->ik->i", [(2, 2), (2, 2)], "at most one '->'"),
        ("ij,jk>ik", [(2, 2), (2, 2)], "at most one '->'"),
        ("ij,jk->ik", [(2, 2)], "names 2 operand"),
        ("ij->ik", [(2, 2)], "output index 'k'"),
        ("ij->ii", [(2, 2)], "repeat an index"),
        ("i1->i", [(2, 2)], "invalid index '1'"),
        ("...ij->ij", [(2, 2)], "ellipsis"),
        ("ijk->i", [(2, 2)], "operand 0 has 2 axes"),
        ("ij,jk->ik", [(2, 3), (4, 2)], "index 'j' has size 3"),
        ("ii->", [(2, 3)], "index 'i' has size 2"),
    ],
)
def test_einsum_naive_errors(spec, shapes, match):
    with pytest.raises(ValueError, match=match):
        L.einsum_naive(spec, *[np.ones(s) for s in shapes])


def test_einsum_naive_needs_operands():
    with pytest.raises(ValueError, match="at least one operand"):
        L.einsum_naive("->")


# --- matrix exponential -------------------------------------------------------------


@pytest.mark.parametrize("scale", [0.01, 0.5, 3.0, 20.0])
def test_expm_series_matches_scipy(rng, scale):
    X = scale * rng.standard_normal((5, 5))
    want = scipy.linalg.expm(X)
    np.testing.assert_allclose(
        L.expm_series(X), want, rtol=1e-10 * max(1, scale), atol=1e-13
    )


def test_expm_series_parity(backend, rng):
    X = 0.5 * rng.standard_normal((5, 5))
    got = L.expm_series(backend.asarray(X))
    _same_kind(got, backend.asarray(X))
    np.testing.assert_allclose(
        backend.to_numpy(got), scipy.linalg.expm(X), rtol=1e-13, atol=1e-15
    )


def test_expm_series_matches_torch_and_jax(rng):
    torch = pytest.importorskip("torch")
    jsl = pytest.importorskip("jax.scipy.linalg")
    X = 2.0 * rng.standard_normal((3, 4, 4))  # a batch
    got = L.expm_series(torch.as_tensor(X))
    torch.testing.assert_close(
        got, torch.linalg.matrix_exp(torch.as_tensor(X)), rtol=1e-11, atol=1e-12
    )
    np.testing.assert_allclose(
        L.expm_series(X[0]), np.asarray(jsl.expm(X[0])), rtol=1e-11
    )
    with pytest.raises(RuntimeError):  # the framework also refuses non-square input
        torch.linalg.matrix_exp(torch.ones(2, 3))


def test_expm_versus_elementwise_exp():
    """C2-17 (lines 378-412): exp(0) is all ones, expm(0) = I; diagonal case."""
    Z = np.zeros((3, 3))
    np.testing.assert_array_equal(np.exp(Z), np.ones((3, 3)))
    np.testing.assert_array_equal(L.expm_series(Z), np.eye(3))
    D = np.diag([0.5, -1.0, 2.0])
    np.testing.assert_allclose(
        L.expm_series(D), np.diag(np.exp([0.5, -1.0, 2.0])), rtol=1e-14
    )
    assert np.all(np.exp(D)[~np.eye(3, dtype=bool)] == 1.0)


def test_expm_scaling_and_squaring_is_needed():
    """The plain series loses all digits at a large norm; scaling and squaring works."""
    X = -40.0 * np.eye(2) + np.array([[0.0, 1.0], [0.0, 0.0]])
    want = scipy.linalg.expm(X)
    plain = L.expm_series(X, n_terms=30, squarings=0)
    assert np.max(np.abs(plain - want)) > 1e3 * np.max(np.abs(want))
    np.testing.assert_allclose(L.expm_series(X), want, rtol=1e-10)


def test_expm_series_errors():
    with pytest.raises(ValueError, match=r"square matrix \(n, n\), got shape \(2, 3\)"):
        L.expm_series(np.ones((2, 3)))
    with pytest.raises(ValueError, match="square matrix"):
        L.expm_series(np.ones(3))
    with pytest.raises(ValueError, match="n_terms"):
        L.expm_series(np.eye(2), n_terms=0)
    with pytest.raises(ValueError, match="squarings"):
        L.expm_series(np.eye(2), squarings=-1)
    np.testing.assert_allclose(L.expm_series(np.eye(2, dtype=int)), np.e * np.eye(2))


# --- linear maps --------------------------------------------------------------------


def test_matrix_of_and_composition(rng):
    """C2-19 (lines 430-434): a linear map is a matrix; AB is the composition."""
    A, B = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    x = rng.standard_normal(5)
    np.testing.assert_allclose(A @ (B @ x), (A @ B) @ x)
    np.testing.assert_allclose(L.matrix_of(lambda v: A @ v, 4), A)
    np.testing.assert_allclose(L.matrix_of(lambda v: A @ (B @ v), 5), A @ B)
    assert L.is_linear(lambda v: A @ v, 4)
    assert not L.is_linear(lambda v: v**2, 4)
    assert not L.is_linear(lambda v: A @ v + 1.0, 4)  # affine is not linear
    assert not L.is_linear(lambda v: np.sin(v), 4)


def test_matrix_of_on_torch():
    torch = pytest.importorskip("torch")
    A = torch.arange(6.0, dtype=torch.float64).reshape(2, 3)
    got = L.matrix_of(lambda v: A @ v, 3, like=A)
    assert isinstance(got, torch.Tensor)
    torch.testing.assert_close(got, A)
