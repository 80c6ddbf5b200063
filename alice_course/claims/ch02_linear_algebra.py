"""Checkable claims of Chapter 2, §2.1 linear algebra (book lines 186-570).

Each check computes what the book states and compares it with something outside
``alice_lab``: NumPy, SciPy, PyTorch, JAX, a closed form, or the book's own numbers.
Torch and JAX are imported inside the checks that use them; JAX comparisons run in
float32 with loose tolerances so they hold whether or not ``jax_enable_x64`` is on.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _np, _rng

# =====================================================================================
# 2.1 Linear algebra: tensors, vectors, matrices
# =====================================================================================


@claim(
    "C2-01",
    section="2.1",
    lines=(190, 196),
    statement="A tensor X ~ (s_1, ..., s_n) with n = 0 is a scalar, n = 1 a vector, n "
    "= 2 a matrix, and a higher-dimensional array otherwise; all its "
    "elements share one type.",
)
def _c2_01() -> str:
    import jax.numpy as jnp
    import torch

    from alice_lab.tensors import check_shape, rank

    for n in range(5):
        shape = tuple(range(2, 2 + n))
        for x in (np.zeros(shape), torch.zeros(shape), jnp.zeros(shape)):
            assert rank(x) == n == x.ndim, f"rank of {type(x).__name__}{shape} != {n}"
        names = tuple(f"s{i + 1}" for i in range(n))
        bound = check_shape(np.zeros(shape), names)
        assert tuple(bound[k] for k in names) == shape, f"{bound} for {shape}"
    mixed = np.array([1, 2.5])
    assert mixed.dtype == np.float64, "elements of one tensor share one type"
    return "ranks 0-4 agree across NumPy, torch and JAX"


@claim(
    "C2-02",
    section="2.1",
    lines=(198, 198),
    statement="For X ~ (a, b, c): X_i ~ (b, c), X_ijk is a scalar, and X_{i,:,j:k} ~ "
    "(b, k − j).",
)
def _c2_02() -> str:
    import torch

    from alice_lab.tensors import slice_shape

    a, b, c = 3, 7, 9
    X = _rng(0).normal(size=(a, b, c))
    Xt = torch.as_tensor(X)
    i, j, k = 1, 2, 5
    cases = [
        ((i,), (b, c)),
        ((i, j, k), ()),
        ((i, slice(None), slice(j, k)), (b, k - j)),
    ]
    for index, expected in cases:
        got = (X[index].shape, tuple(Xt[index].shape), slice_shape((a, b, c), index))
        assert all(tuple(g) == expected for g in got), f"X[{index}] shapes {got}"
    assert np.ndim(X[i, j, k]) == 0 and X[i, j, k] == X[i][j][k]
    return f"X[1] ~ {X[1].shape}, X[1,:,2:5] ~ {X[1, :, 2:5].shape}, X[1,2,5] scalar"


@claim(
    "C2-03",
    section="2.1.1",
    lines=(208, 222),
    statement="Adding a (4, 1) 'column' to a (4,) vector silently broadcasts to a (4, "
    "4) matrix in PyTorch, NumPy and JAX; reshaping one operand fixes it.",
)
def _c2_03() -> str:
    import jax.numpy as jnp
    import torch

    from alice_lab.tensors import assert_no_silent_broadcast, broadcast_shape

    rng = _rng(0)
    x, y = rng.normal(size=(4, 1)), rng.normal(size=(4,))
    shapes = {
        "numpy": (x + y).shape,
        "torch": tuple((torch.as_tensor(x) + torch.as_tensor(y)).shape),
        "jax": tuple((jnp.asarray(x) + jnp.asarray(y)).shape),
        "rule": broadcast_shape((4, 1), (4,)),
        "np.broadcast_shapes": np.broadcast_shapes((4, 1), (4,)),
    }
    assert all(s == (4, 4) for s in shapes.values()), f"broadcast shapes {shapes}"
    assert (x + y[:, None]).shape == (4, 1) and (x[:, 0] + y).shape == (4,)
    try:
        assert_no_silent_broadcast(x, y)
    except ValueError:
        pass
    else:
        raise AssertionError("assert_no_silent_broadcast let (4,1) + (4,) through")
    return "(4,1) + (4,) -> (4,4) in NumPy, torch and JAX"


@claim(
    "C2-04",
    section="2.1.1",
    lines=(224, 232),
    statement="A linear combination z = a x + b y of two vectors of the same shape "
    "acts element-wise: z_i = a x_i + b y_i.",
)
def _c2_04() -> str:
    from alice_lab.linalg import lincomb

    rng = _rng(1)
    x, y = rng.normal(size=6), rng.normal(size=6)
    a, b = 0.7, -2.0
    z = lincomb(a, x, b, y)
    loop = np.array([a * x[i] + b * y[i] for i in range(6)])
    assert z.shape == (6,) and np.allclose(z, loop, rtol=0, atol=1e-15), _maxerr(
        z, loop
    )
    return f"max |z - loop| = {_maxerr(z, loop):.1e}"


@claim(
    "C2-05",
    section="2.1.1",
    lines=(236, 248),
    statement="The Euclidean norm is ‖x‖ = sqrt(Σ x_i²), so ‖x‖² = Σ x_i² = ⟨x, x⟩; "
    "computed with scaling it does not overflow where the naive formula "
    "does.",
)
def _c2_05() -> str:
    import scipy.linalg

    from alice_lab.linalg import inner, norm, sq_norm

    x = _rng(2).normal(size=7)
    vals = [
        float(sq_norm(x)),
        float(np.sum(x**2)),
        float(inner(x, x)),
        float(norm(x)) ** 2,
    ]
    assert np.allclose(vals, np.linalg.norm(x) ** 2, rtol=1e-14), f"{vals}"
    big = np.array([1e200, 1e200])
    with np.errstate(over="ignore"):
        naive = float(np.sqrt(np.sum(big**2)))
    safe, ref = float(norm(big)), float(scipy.linalg.norm(big))
    assert naive == np.inf, f"naive norm of [1e200, 1e200] = {naive}"
    assert np.isclose(safe, ref, rtol=1e-14) and np.isclose(ref, np.sqrt(2) * 1e200)
    return f"‖x‖² = {vals[0]:.6f} three ways; ‖[1e200,1e200]‖ = {safe:.4e} (naive: inf)"


@claim(
    "C2-06",
    section="2.1.1",
    lines=(262, 262),
    statement="The inner product of two vectors is a scalar (a rank-0 tensor).",
)
def _c2_06() -> str:
    import jax.numpy as jnp
    import torch

    from alice_lab.linalg import inner

    rng = _rng(3)
    x, y = rng.normal(size=5), rng.normal(size=5)
    shapes = [
        np.shape(np.dot(x, y)),
        np.shape(inner(x, y)),
        tuple(torch.dot(torch.as_tensor(x), torch.as_tensor(y)).shape),
        tuple(jnp.dot(jnp.asarray(x), jnp.asarray(y)).shape),
    ]
    assert all(s == () for s in shapes), f"shapes of ⟨x, y⟩: {shapes}"
    return "⟨x, y⟩ has shape () in NumPy, alice_lab, torch and JAX"


@claim(
    "C2-07",
    section="2.1.1",
    lines=(262, 268),
    statement="For x = [0.1, 0, −0.3] and y = [−4.0, 0.05, 0.1]: ⟨x, y⟩ = −0.4 + 0 − "
    "0.03 = −0.43 (up to float rounding).",
)
def _c2_07() -> str:
    from alice_lab.linalg import inner

    x, y = np.array([0.1, 0.0, -0.3]), np.array([-4.0, 0.05, 0.1])
    terms = x * y
    got = float(inner(x, y))
    assert np.allclose(terms, [-0.4, 0.0, -0.03], rtol=1e-14), f"terms {terms}"
    assert np.isclose(got, -0.43, rtol=0, atol=1e-15), f"⟨x,y⟩ = {got!r}"
    assert np.isclose(float(np.dot(x, y)), -0.43, rtol=0, atol=1e-15)
    return f"⟨x,y⟩ = {got!r}"


@claim(
    "C2-08",
    section="2.1.1",
    lines=(270, 278),
    statement="xᵀy = ‖x‖ ‖y‖ cos(α), with α the angle between x and y.",
    equation="E.2.2",
)
def _c2_08() -> str:
    from alice_lab.linalg import angle, inner

    r1, r2 = 1.7, 0.4
    worst = 0.0
    for alpha in np.linspace(0, np.pi, 13):
        x = r1 * np.array([1.0, 0.0])
        y = r2 * np.array([np.cos(alpha), np.sin(alpha)])
        worst = max(worst, abs(float(inner(x, y)) - r1 * r2 * np.cos(alpha)))
        assert abs(float(angle(x, y)) - alpha) < 1e-7, (
            f"angle {float(angle(x, y))} vs {alpha}"
        )
    assert worst < 1e-14, f"|xᵀy − r1 r2 cos α| up to {worst:.1e}"
    rng = _rng(4)
    x, y = rng.normal(size=6), rng.normal(size=6)
    cos_a = np.cos(float(angle(x, y)))
    lhs, rhs = x @ y, np.linalg.norm(x) * np.linalg.norm(y) * cos_a
    assert np.isclose(lhs, rhs, rtol=1e-12), f"{lhs} vs {rhs}"
    return f"13 angles in the plane: max error {worst:.1e}; random 6-D pair {lhs:.5f}"


@claim(
    "C2-09",
    section="2.1.1",
    lines=(280, 280),
    statement="Cosine similarity lies in [−1, 1]: 1 for vectors pointing the same way,"
    " −1 for opposite ones, 0 for orthogonal ones.",
)
def _c2_09() -> str:
    import torch

    from alice_lab.linalg import cosine_similarity

    rng = _rng(5)
    x = rng.normal(size=4)
    e1, e2 = np.eye(4)[0], np.eye(4)[1]
    special = [
        float(cosine_similarity(x, 3 * x)),
        float(cosine_similarity(x, -x)),
        float(cosine_similarity(e1, e2)),
    ]
    assert np.allclose(special, [1, -1, 0], atol=1e-14), (
        f"cos(x,3x), cos(x,-x), ⊥: {special}"
    )
    X, Y = rng.normal(size=(500, 4)), rng.normal(size=(500, 4))
    ours = np.array([float(cosine_similarity(X[i], Y[i])) for i in range(500)])
    ref = torch.nn.functional.cosine_similarity(
        torch.as_tensor(X), torch.as_tensor(Y)
    ).numpy()
    assert np.all(np.abs(ours) <= 1), "a cosine outside [-1, 1]"
    assert np.allclose(ours, ref, atol=1e-12), f"vs torch: {_maxerr(ours, ref):.1e}"
    return (
        f"{special}; 500 random pairs in [{ours.min():.3f}, {ours.max():.3f}] = torch"
    )


@claim(
    "C2-10",
    section="2.1.1",
    lines=(282, 290),
    statement="Among unit vectors y, ⟨x, y⟩ is largest for y = x (template matching).",
    equation="E.2.3",
)
def _c2_10() -> str:
    from alice_lab.linalg import best_template

    rng = _rng(6)
    x = rng.normal(size=3)
    x /= np.linalg.norm(x)
    Y = rng.normal(size=(100_000, 3))
    Y /= np.linalg.norm(Y, axis=1, keepdims=True)
    sampled = float(np.max(Y @ x))
    assert sampled <= 1 + 1e-12 and sampled > 0.999, f"max sampled dot {sampled}"
    cands = np.vstack([Y[:50], x[None], Y[50:100]])
    idx = best_template(x, cands)
    assert idx == 50, f"best_template picked row {idx}, expected the copy of x (50)"
    return f"max over 100k unit y: {sampled:.6f} < ⟨x, x⟩ = 1"


@claim(
    "C2-11",
    section="2.1.1",
    lines=(292, 298),
    statement="The sum of a vector's elements is its inner product with the all-ones "
    "vector: ⟨x, 1⟩ = Σ_i x_i.",
)
def _c2_11() -> str:
    from alice_lab.linalg import inner

    x = _rng(7).normal(size=9)
    got = float(inner(x, np.ones(9)))
    assert np.isclose(got, float(np.sum(x)), rtol=1e-14), f"{got} vs {np.sum(x)}"
    return f"⟨x, 1⟩ = {got:.6f} = Σ x_i"


@claim(
    "C2-12",
    section="2.1.1",
    lines=(300, 308),
    statement="‖x − y‖² = ⟨x, x⟩ + ⟨y, y⟩ − 2⟨x, y⟩; in floating point this form "
    "cancels catastrophically for close, large vectors (it can even turn "
    "negative), so batched versions clamp it at 0.",
)
def _c2_12() -> str:
    from alice_lab.linalg import pairwise_sq_dists, sq_dist

    rng = _rng(8)
    x, y = rng.normal(size=5), rng.normal(size=5)
    direct = float(np.sum((x - y) ** 2))
    dots = float(sq_dist(x, y, method="dots"))
    assert np.isclose(dots, direct, rtol=1e-12), f"{dots} vs {direct}"
    assert np.isclose(float(sq_dist(x, y, method="direct")), direct, rtol=1e-14)
    # cancellation: large nearby vectors
    x = rng.normal(size=1000) * 1e4
    y = x + 1e-7 * rng.normal(size=1000)
    d_direct = float(np.sum((x - y) ** 2))
    d_dots = float(x @ x + y @ y - 2 * (x @ y))
    assert 5e-12 < d_direct < 2e-11, f"direct form {d_direct:.3e}"
    assert abs(d_dots - d_direct) > 0.5 * d_direct, (
        f"dot form {d_dots:.3e} unexpectedly exact"
    )
    negative = 0
    for seed in range(200):
        r = _rng(seed)
        X = r.normal(size=(1, 100)) * 1e4
        Y = X + 1e-6 * r.normal(size=(1, 100))
        raw = float(X[0] @ X[0] + Y[0] @ Y[0] - 2 * (X[0] @ Y[0]))
        negative += raw < 0
        D = pairwise_sq_dists(X, Y, clamp=True)
        assert float(D.min()) >= 0, (
            f"clamped distance {float(D.min())} < 0 (seed {seed})"
        )
    assert negative >= 10, f"the dot form was negative in only {negative}/200 seeds"
    return (
        f"direct {d_direct:.2e} vs dot form {d_dots:.2e}; dot form < 0 in "
        f"{negative}/200 seeds, clamped never"
    )


@claim(
    "C2-13",
    section="2.1.2",
    lines=(330, 344),
    statement="Matrix product: for X ~ (a, b), Y ~ (b, c), Z = XY ~ (a, c) with Z_ij "
    "the inner product of row i of X and column j of Y.",
    equation="E.2.4",
)
def _c2_13() -> str:
    from alice_lab.linalg import inner, matmul_naive

    rng = _rng(9)
    worst = 0.0
    for a, b, c in [(3, 4, 5), (1, 4, 5), (3, 4, 1), (1, 1, 1), (6, 2, 3)]:
        X, Y = rng.normal(size=(a, b)), rng.normal(size=(b, c))
        Z = matmul_naive(X, Y)
        assert Z.shape == (a, c), f"{(a, b)} @ {(b, c)} gave {Z.shape}"
        rows = np.array(
            [[float(inner(X[i], Y[:, j])) for j in range(c)] for i in range(a)]
        )
        worst = max(worst, _maxerr(Z, X @ Y), _maxerr(rows, X @ Y))
    assert worst < 1e-13, f"max error against X @ Y: {worst:.1e}"
    return f"5 shape triples, max error vs NumPy {worst:.1e}"


@claim(
    "C2-14",
    section="2.1.2",
    lines=(346, 360),
    statement="For a batch X ~ (n, d) of row vectors, XWᵀ ~ (n, o) computes all n "
    "matrix-vector products at once: row i is W x_i.",
    equation="E.2.5",
)
def _c2_14() -> str:
    rng = _rng(10)
    X, W = rng.normal(size=(8, 5)), rng.normal(size=(3, 5))
    Z = X @ W.T
    loop = np.stack([W @ X[i] for i in range(8)])
    assert Z.shape == (8, 3) and _maxerr(Z, loop) < 1e-14, _maxerr(Z, loop)
    return f"(8,5)(5,3) -> {Z.shape}, max error vs per-row W x_i {_maxerr(Z, loop):.1e}"


@claim(
    "C2-15",
    section="2.1.2",
    lines=(360, 360),
    statement="XXᵀ ~ (n, n) holds the inner products of all pairs of rows; it is "
    "symmetric and positive semi-definite.",
)
def _c2_15() -> str:
    from alice_lab.linalg import gram

    X = _rng(11).normal(size=(6, 3))
    G = gram(X)
    pairs = np.array([[X[i] @ X[j] for j in range(6)] for i in range(6)])
    eig = np.linalg.eigvalsh(G)
    assert G.shape == (6, 6) and _maxerr(G, pairs) < 1e-14, _maxerr(G, pairs)
    assert np.array_equal(G, G.T), "Gram matrix not symmetric"
    assert eig.min() >= -1e-10, f"smallest eigenvalue {eig.min():.2e}"
    return f"G ~ {G.shape}; eigenvalues ≥ {eig.min():.1e} (rank 3 of 6)"


@claim(
    "C2-16",
    section="2.1.2",
    lines=(364, 376),
    statement="The Hadamard product multiplies element by element; with a binary mask "
    "it zeroes the masked entries and keeps the others.",
)
def _c2_16() -> str:
    from alice_lab.linalg import hadamard, mask

    rng = _rng(12)
    X, Y = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    H = hadamard(X, Y)
    loop = np.array([[X[i, j] * Y[i, j] for j in range(5)] for i in range(4)])
    assert np.array_equal(H, loop), "Hadamard differs from the element-wise loop"
    M = rng.integers(0, 2, size=(4, 5))
    Xm = mask(X, M)
    assert np.all(Xm[M == 0] == 0) and np.array_equal(Xm[M == 1], X[M == 1])
    assert np.array_equal(Xm, X * M)
    return f"{int((M == 0).sum())} of 20 entries masked to 0"


@claim(
    "C2-17",
    section="2.1.2",
    lines=(378, 398),
    statement="The element-wise exp(X) differs from the matrix exponential Σ_k X^k / "
    "k!, which is defined only for square matrices.",
    equation="E.2.7",
)
def _c2_17() -> str:
    import scipy.linalg
    import torch

    from alice_lab.linalg import expm_series

    Z = np.zeros((3, 3))
    assert np.array_equal(np.exp(Z), np.ones((3, 3))), "exp(0) should be all ones"
    assert np.allclose(scipy.linalg.expm(Z), np.eye(3)), "expm(0) should be I"
    D = np.diag([0.5, -1.0, 2.0])
    assert np.allclose(scipy.linalg.expm(D), np.diag(np.exp(np.diag(D))), rtol=1e-13)
    assert np.all(np.exp(D)[~np.eye(3, dtype=bool)] == 1.0), "exp(D) off-diagonal != 1"
    X = 0.5 * _rng(13).normal(size=(5, 5))
    series = expm_series(X, n_terms=30, squarings=0)
    err = _maxerr(series, scipy.linalg.expm(X))
    gap = _maxerr(np.exp(X), scipy.linalg.expm(X))
    assert err < 1e-13, f"30-term series vs scipy expm: {err:.1e}"
    assert gap > 0.5, f"exp vs expm differ by only {gap}"
    for fn in (
        lambda: torch.linalg.matrix_exp(torch.zeros(2, 3)),
        lambda: expm_series(np.zeros((2, 3))),
    ):
        try:
            fn()
        except (RuntimeError, ValueError):
            continue
        raise AssertionError("a matrix exponential accepted a (2, 3) matrix")
    return f"series vs scipy {err:.1e}; |exp − expm| up to {gap:.2f}; (2,3) refused"


@claim(
    "C2-18",
    section="2.1.2",
    lines=(414, 428),
    statement="A reduction along an axis, X.sum(axis=1), sums over the second index: "
    "(n, d) → (n), the row sums.",
)
def _c2_18() -> str:
    import jax.numpy as jnp
    import torch

    X = _rng(14).normal(size=(4, 6))
    r = X.sum(axis=1)
    rows = np.array([sum(X[i, j] for j in range(6)) for i in range(4)])
    rt = torch.as_tensor(X).sum(axis=1).numpy()
    rt_dim = torch.as_tensor(X).sum(dim=1).numpy()
    rj = np.asarray(jnp.asarray(X.astype(np.float32)).sum(axis=1))
    assert r.shape == rt.shape == rj.shape == (4,), (r.shape, rt.shape, rj.shape)
    assert (
        _maxerr(r, rows) < 1e-13
        and _maxerr(rt, r) < 1e-13
        and _maxerr(rt_dim, r) < 1e-13
    )
    assert _maxerr(rj, r) < 1e-5
    return f"(4,6) -> {r.shape} in NumPy, torch (axis= and dim=) and JAX"


@claim(
    "C2-19",
    section="2.1.2",
    lines=(430, 434),
    statement="Every linear map is a matrix, f(x) = Ax (column j is f(e_j)), and the "
    "matrix product is composition: A(Bx) = (AB)x; a nonlinear f has no such"
    " matrix.",
)
def _c2_19() -> str:
    from alice_lab.linalg import is_linear, matrix_of

    rng = _rng(15)
    A, B, x = rng.normal(size=(3, 4)), rng.normal(size=(4, 5)), rng.normal(size=5)
    comp = _maxerr(A @ (B @ x), (A @ B) @ x)
    assert comp < 1e-13, f"A(Bx) vs (AB)x: {comp:.1e}"
    rec = matrix_of(lambda v: A @ v, 4)
    assert rec.shape == (3, 4) and _maxerr(rec, A) == 0.0, "matrix_of did not recover A"
    a, b, x1, x2 = 0.3, -1.2, rng.normal(size=4), rng.normal(size=4)
    assert _maxerr(A @ (a * x1 + b * x2), a * (A @ x1) + b * (A @ x2)) < 1e-13
    assert is_linear(lambda v: A @ v, 4) and not is_linear(lambda v: v**2, 4)
    sq = lambda v: v**2
    lin = lambda v: matrix_of(sq, 3) @ v
    v = np.array([1.0, 2.0, 3.0])
    assert not np.allclose(sq(v), lin(v)), "x**2 should not equal its 'matrix' times x"
    return f"composition error {comp:.1e}; matrix_of recovers A exactly; x² not linear"


@claim(
    "C2-20",
    section="2.1.2",
    lines=(436, 438),
    statement="The naive product of (a, b) and (b, c) matrices computes ac inner "
    "products of size b: abc multiplications, and an output of ac numbers.",
)
def _c2_20() -> str:
    from alice_lab.linalg import matmul_naive

    rng = _rng(16)
    counts = {}
    for a, b, c in [(2, 3, 4), (5, 1, 2), (3, 3, 3)]:
        Z, flops = matmul_naive(
            rng.normal(size=(a, b)), rng.normal(size=(b, c)), count_flops=True
        )
        assert flops == a * b * c, f"{(a, b, c)}: counted {flops}, expected {a * b * c}"
        assert Z.size == a * c
        counts[(a, b, c)] = flops
    return f"multiplications {counts}"


# =====================================================================================
# 2.1.3-2.1.4 Higher-order tensors and einsum
# =====================================================================================


@claim(
    "C2-25",
    section="2.1.3",
    lines=(462, 488),
    statement="Batched matrix multiplication maps (n, a, b) and (n, b, c) to (n, a, "
    "c), one product per leading index; in PyTorch it is plain matmul: (4, "
    "5, 2) @ (4, 2, 3) → (4, 5, 3).",
    equation="E.2.9",
)
def _c2_25() -> str:
    import torch

    from alice_lab.linalg import bmm

    rng = _rng(17)
    X, Y = rng.normal(size=(4, 5, 2)), rng.normal(size=(4, 2, 3))
    stack = np.stack([X[i] @ Y[i] for i in range(4)])
    Xt, Yt = torch.as_tensor(X), torch.as_tensor(Y)
    outs = {
        "torch.matmul": torch.matmul(Xt, Yt).numpy(),
        "torch.bmm": torch.bmm(Xt, Yt).numpy(),
        "np @": X @ Y,
        "alice_lab.bmm": _np(bmm(X, Y)),
    }
    for name, out in outs.items():
        assert out.shape == (4, 5, 3), f"{name} shape {out.shape}"
        assert _maxerr(out, stack) < 1e-14, f"{name} vs per-slice products"
    return "(4,5,2) @ (4,2,3) -> (4,5,3) = stack of X_i Y_i (torch, NumPy, alice_lab)"


@claim(
    "C2-26",
    section="2.1.3",
    lines=(490, 500),
    statement="The generalised dot product Σ_ijk [X ⊙ Y]_ijk of two (a, b, c) tensors "
    "is the inner product of their flattened versions.",
    equation="E.2.10",
)
def _c2_26() -> str:
    from alice_lab.linalg import gdt

    rng = _rng(18)
    X, Y = rng.normal(size=(3, 4, 5)), rng.normal(size=(3, 4, 5))
    vals = {
        "gdt": float(gdt(X, Y)),
        "flat dot": float(X.ravel() @ Y.ravel()),
        "einsum": float(np.einsum("ijk,ijk->", X, Y)),
        "tensordot": float(np.tensordot(X, Y, 3)),
        "vdot": float(np.vdot(X, Y)),
    }
    ref = vals["flat dot"]
    assert all(np.isclose(v, ref, rtol=1e-12) for v in vals.values()), vals
    return f"GDT = {ref:.6f} five ways"


@claim(
    "C2-27",
    section="2.1.4",
    lines=(506, 558),
    statement="einsum('ijz,izk->ijk', A, B) is the batched matrix product, with the "
    "same result in NumPy, PyTorch, JAX and a from-scratch interpreter.",
    equation="E.2.11",
)
def _c2_27() -> str:
    import jax.numpy as jnp
    import torch

    from alice_lab.linalg import einsum_naive

    rng = _rng(19)
    A, B = rng.normal(size=(3, 4, 2)), rng.normal(size=(3, 2, 5))
    spec = "ijz,izk->ijk"
    ref = A @ B
    outs = {
        "numpy": np.einsum(spec, A, B),
        "torch": torch.einsum(spec, torch.as_tensor(A), torch.as_tensor(B)).numpy(),
        "naive": _np(einsum_naive(spec, A, B)),
    }
    for name, out in outs.items():
        assert _maxerr(out, ref) < 1e-13, f"{name}: {_maxerr(out, ref):.1e}"
    A32, B32 = A.astype(np.float32), B.astype(np.float32)
    jax_out = np.asarray(jnp.einsum(spec, jnp.asarray(A32), jnp.asarray(B32)))
    assert _maxerr(jax_out, ref) < 1e-5, f"jax: {_maxerr(jax_out, ref):.1e}"
    return "'ijz,izk->ijk' = A @ B in NumPy, torch, JAX (float32) and einsum_naive"


@claim(
    "C2-28",
    section="2.1.4",
    lines=(562, 566),
    statement="For A ~ (n, a, b) and B ~ (n, c, b), einsum('ijz,ikz->ijk', A, B) "
    "computes A_i B_iᵀ for every i, just by swapping indices.",
)
def _c2_28() -> str:
    import torch

    from alice_lab.linalg import einsum_naive

    rng = _rng(20)
    A, B = rng.normal(size=(3, 4, 2)), rng.normal(size=(3, 5, 2))
    ref = A @ B.transpose(0, 2, 1)
    spec = "ijz,ikz->ijk"
    outs = [
        np.einsum(spec, A, B),
        torch.einsum(spec, torch.as_tensor(A), torch.as_tensor(B)).numpy(),
        _np(einsum_naive(spec, A, B)),
    ]
    assert all(o.shape == (3, 4, 5) and _maxerr(o, ref) < 1e-13 for o in outs)
    return "(3,4,2),(3,5,2) -> (3,4,5) = A_i B_iᵀ"


@claim(
    "C2-29",
    section="2.1.4",
    lines=(528, 540),
    statement="In Einstein's notation an index that appears among the inputs but not "
    "in the output is summed over.",
    equation="E.2.13",
)
def _c2_29() -> str:
    from alice_lab.linalg import einsum_naive

    rng = _rng(21)
    X = rng.normal(size=(4, 4))
    v = rng.normal(size=4)
    cases = {
        "ij->i": (X.sum(axis=1), (X,)),
        "ij->j": (X.sum(axis=0), (X,)),
        "ii->": (np.trace(X), (X,)),
        "ij->": (X.sum(), (X,)),
        "ij,j->i": (X @ v, (X, v)),
    }
    for spec, (ref, ops) in cases.items():
        for got in (np.einsum(spec, *ops), _np(einsum_naive(spec, *ops))):
            assert _maxerr(got, ref) < 1e-13, f"{spec}: {got} vs {ref}"
    return f"{len(cases)} specs summed over their dropped indices"


# =====================================================================================
# Errata
# =====================================================================================


@claim(
    "C2-65",
    section="2.1.2",
    lines=(400, 412),
    statement=(
        "Box 2.2 reuses the name X: run in order, its second line takes the "
        "matrix exponential of exp(X), not of X; with separate names (E = "
        "exp(X), M = matrix_exp(X)) M equals SciPy's expm(X)."
    ),
    equation="Box 2.2",
)
def _c2_65() -> str:
    import scipy.linalg
    import torch

    X = torch.as_tensor(_rng(40).normal(size=(5, 5)))
    # as printed
    Y = torch.exp(X)
    Y = torch.linalg.matrix_exp(Y)
    # corrected
    E = torch.exp(X)
    M = torch.linalg.matrix_exp(X)
    ref = scipy.linalg.expm(X.numpy())
    err = _maxerr(M.numpy(), ref)
    gap = _maxerr(Y.numpy(), ref)
    assert err < 1e-10 * max(1.0, np.abs(ref).max()), (
        f"matrix_exp(X) vs scipy {err:.1e}"
    )
    assert gap > 1.0, f"matrix_exp(exp(X)) too close to expm(X): {gap}"
    assert _maxerr(E.numpy(), np.exp(X.numpy())) < 1e-14
    return f"corrected box = scipy expm ({err:.0e}); printed box differs by {gap:.3g}"


@claim(
    "C2-66",
    section="2.1.4",
    lines=(510, 566),
    statement="Box 2.4's einsum 'ijz,izk->ijk' is the batched matrix product A @ B, "
    "and Box 2.5's 'ijz,ikz->ijk' multiplies by the transposed slices, A @ Bᵀ.",
    equation="Boxes 2.4, 2.5",
)
def _c2_66() -> str:
    import torch

    rng = _rng(41)
    A = torch.as_tensor(rng.normal(size=(2, 3, 4)))
    B = torch.as_tensor(rng.normal(size=(2, 4, 5)))
    C = torch.as_tensor(rng.normal(size=(2, 5, 4)))
    loop = torch.stack([A[i] @ B[i] for i in range(2)])  # one matmul per batch entry
    err = _maxerr(torch.einsum("ijz,izk->ijk", A, B).numpy(), loop.numpy())
    err_t = _maxerr(
        torch.einsum("ijz,ikz->ijk", A, C).numpy(), (A @ C.transpose(1, 2)).numpy()
    )
    assert err < 1e-14 and err_t < 1e-14, (err, err_t)
    return f"'ijz,izk->ijk' = per-batch A_i B_i ({err:.0e}); 'ijz,ikz->ijk' = A Cᵀ"


@claim(
    "C2-67",
    section="2.1.2",
    lines=(332, 332),
    statement=(
        "In the definition of matrix multiplication X ~ (a, b) and Y ~ (b, c): "
        "a, b, c name sizes, b must be shared, and Z ~ (a, c) holds the 2abc-"
        "flop row-by-column dot products."
    ),
)
def _c2_67() -> str:
    from alice_lab.linalg import matmul_naive
    from alice_lab.tensors import check_shape

    # the slip is typographic; what the corrected line says is checkable: a, b, c are
    # sizes, b must be shared, and Z ~ (a, c) holds the row-by-column dot products
    rng = _rng(205)
    X, Y = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    bound = check_shape(X, ("a", "b"), "X")
    bound = check_shape(Y, ("b", "c"), "Y", bound=bound)
    assert bound == {"a": 2, "b": 3, "c": 4}, bound
    Z, flops = matmul_naive(X, Y, count_flops=True)
    ref = np.einsum("ab,bc->ac", X, Y)
    assert Z.shape == (bound["a"], bound["c"]) and _maxerr(Z, ref) < 1e-12
    assert flops == 2 * 3 * 4, flops
    for bad in (
        lambda: check_shape(np.zeros((5, 4)), ("b", "c"), "Y", bound={"a": 2, "b": 3}),
        lambda: matmul_naive(X, np.zeros((5, 4))),
    ):
        try:
            bad()
        except ValueError:
            pass
        else:
            raise AssertionError("Y ~ (5, 4) accepted after X ~ (2, 3) bound b = 3")
    return f"X ~ (a, b), Y ~ (b, c) bind {bound}; Z = XY matches einsum, {flops} flops"
