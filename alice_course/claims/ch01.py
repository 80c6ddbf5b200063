"""Checkable claims of Chapter 1 (Introduction) and of the Foreword.

Each check computes the thing the book states and compares it with NumPy, the
frameworks (PyTorch, JAX) or a closed form. Torch and JAX are imported inside the
checks that need them, so importing this module stays cheap.

Book: Foreword (line 16) and Chapter 1, "Notation and symbols" (lines 123-153).
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim


@claim(
    "C1-01",
    section="1",
    lines=(139, 141),
    statement="A tensor of shape (b, h, w, 3) has rank 4 (rank = number of axes) in "
    "NumPy, PyTorch and JAX; the named dimensions bind to the actual sizes.",
)
def _c1_01() -> str:
    import jax.numpy as jnp
    import torch

    from alice_lab.tensors import check_shape, rank

    b, h, w = 2, 8, 5
    x = np.zeros((b, h, w, 3))
    ranks = [rank(x), rank(torch.zeros(b, h, w, 3)), rank(jnp.zeros((b, h, w, 3)))]
    assert ranks == [4, 4, 4], f"rank of a (b,h,w,3) tensor: {ranks}, expected 4 each"
    assert x.ndim == 4
    bound = check_shape(x, ("b", "h", "w", 3))
    assert bound == {"b": b, "h": h, "w": w}, f"check_shape bound {bound}"
    return f"rank = {ranks[0]}, bound {bound}"


@claim(
    "C1-02",
    section="1",
    lines=(129, 135),
    statement="Rank 0 is a scalar, rank 1 a vector, rank 2 a matrix, and anything with"
    " more axes a generic tensor.",
)
def _c1_02() -> str:
    from alice_lab.tensors import rank

    examples = {
        0: np.array(3.0),
        1: np.array([1.0, 2.0, 3.0]),
        2: np.ones((2, 3)),
        3: np.ones((2, 3, 4)),
        5: np.ones((1, 2, 1, 2, 1)),
    }
    for n, x in examples.items():
        assert rank(x) == x.ndim == n, f"rank({x.shape}) = {rank(x)}, expected {n}"
    assert np.array(3.0).shape == (), "a scalar has the empty shape"
    return "ranks 0, 1, 2, 3, 5 match ndim"


@claim(
    "C1-03",
    section="1",
    lines=(143, 143),
    statement="A tensor x ~ Binary(c) holds only the values 0 and 1 (any dtype).",
)
def _c1_03() -> str:
    from alice_lab.tensors import is_binary

    rng = np.random.default_rng(0)
    good = [
        np.array([0, 1, 1]),
        np.array([True, False]),
        np.array([0.0, 1.0, 1.0, 0.0]),
        rng.integers(0, 2, size=(4, 5)),
    ]
    bad = [np.array([0, 2]), np.array([0.0, 0.5]), np.array([-1, 0, 1])]
    for x in good:
        ref = bool(np.isin(x, [0, 1]).all())
        assert ref and bool(is_binary(x)), f"is_binary({x.tolist()}) should be True"
    for x in bad:
        ref = bool(np.isin(x, [0, 1]).all())
        assert not ref and not bool(is_binary(x)), (
            f"is_binary({x.tolist()}) should be False"
        )
    return (
        f"{len(good)} binary and {len(bad)} non-binary tensors classified as NumPy's "
        f"isin"
    )


@claim(
    "C1-04",
    section="1",
    lines=(145, 145),
    statement="x ~ Δ(a) means x_i ≥ 0 and Σ_i x_i = 1; a row-normalised non-negative "
    "matrix is in Δ(n, c), a negative entry is not, and float sums need a "
    "tolerance.",
)
def _c1_04() -> str:
    from alice_lab.tensors import is_simplex

    rng = np.random.default_rng(1)
    P = rng.random((6, 4))
    P = P / P.sum(axis=-1, keepdims=True)
    assert bool(is_simplex(P)), "a row-normalised non-negative matrix should pass"
    Q = rng.random((50, 7)).astype(np.float32)
    Q = Q / Q.sum(axis=-1, keepdims=True)
    err32 = float(np.abs(Q.sum(-1, dtype=np.float64) - 1).max())
    assert err32 > 0, "expected float32 rounding in the row sums"
    assert bool(is_simplex(Q)), f"float32 rows (sum error {err32:.1e}) should pass"
    assert not bool(is_simplex(Q, atol=0.0)), "with atol=0 rounding should fail"
    neg = np.array([1.5, -0.5])  # sums to 1 but has a negative entry
    assert not bool(is_simplex(neg)), "[1.5, -0.5] sums to 1 but is not in the simplex"
    assert not bool(is_simplex(np.array([0.2, 0.3]))), "[0.2, 0.3] sums to 0.5"
    # the softmax of any logits lies in the simplex along the last axis
    logits = rng.normal(size=(3, 5)) * 4
    soft = np.exp(logits - logits.max(-1, keepdims=True))
    soft = soft / soft.sum(-1, keepdims=True)
    assert bool(is_simplex(soft)), "softmax rows should be in the simplex"
    return f"float32 row sums off by {err32:.1e} still pass; [1.5, -0.5] fails"


@claim(
    "C1-11",
    section="1",
    lines=(145, 145),
    statement=(
        "For X ~ Δ(n, c) the normalisation runs along the last axis: each row "
        "X_i of X sums to 1; the transpose generally does not."
    ),
)
def _c1_11() -> str:
    from alice_lab.tensors import is_simplex

    rng = np.random.default_rng(2)
    X = rng.random((5, 3))
    X = X / X.sum(axis=1, keepdims=True)
    rows_ok = all(abs(X[i].sum() - 1) < 1e-12 and (X[i] >= 0).all() for i in range(5))
    assert rows_ok and bool(is_simplex(X)), "every row X_i of X should be in Δ(c)"
    assert bool(is_simplex(X, axis=-1)) and bool(is_simplex(X, axis=1))
    col_sums = X.sum(axis=0)
    assert not np.allclose(col_sums, 1), f"column sums {col_sums} unexpectedly all 1"
    assert not bool(is_simplex(X.T)), "X.T (rows = columns of X) should fail"
    return f"row sums 1; column sums {np.round(col_sums, 3).tolist()}"


@claim(
    "C1-05",
    section="1",
    lines=(101, 101),
    statement="Discrete operations give no gradient signal: the derivative of round "
    "and sign is 0 almost everywhere, and PyTorch refuses gradients on "
    "integer tensors.",
)
def _c1_05() -> str:
    import jax
    import jax.numpy as jnp
    import torch

    g_round = float(jax.grad(jnp.round)(1.3))
    g_sign = float(jax.grad(jnp.sign)(0.7))
    assert g_round == 0.0 and g_sign == 0.0, f"grad round {g_round}, grad sign {g_sign}"
    # the finite difference of round is 0 too, except across a jump where it blows up
    h = 1e-6
    fd = (np.round(1.3 + h) - np.round(1.3)) / h
    jump = (np.round(1.5 + h) - np.round(1.5 - h)) / (2 * h)
    assert fd == 0.0 and jump > 1e5, f"FD of round: {fd} at 1.3, {jump:.1e} at the jump"
    try:
        torch.tensor([1, 2]).requires_grad_()
    except RuntimeError as err:
        msg = str(err)
    else:
        raise AssertionError("torch let an integer tensor require gradients")
    assert "floating point" in msg, msg
    t = torch.tensor([1.3, 2.7], requires_grad=True)
    torch.round(t).sum().backward()
    assert torch.all(t.grad == 0), f"torch.round backward gave {t.grad}"
    return f"jax grad round(1.3) = {g_round}, sign(0.7) = {g_sign}; torch: '{msg}'"


@claim(
    "C1-08",
    section="1",
    lines=(99, 99),
    statement="A gradient predicts the effect of a small parameter change: f(w + εv) −"
    " f(w) ≈ ε⟨∇f(w), v⟩, with an error that shrinks like ε².",
)
def _c1_08() -> str:
    rng = np.random.default_rng(3)
    A = rng.normal(size=(4, 4))
    A = A @ A.T

    def f(w):
        return 0.5 * w @ A @ w + np.sin(w).sum()

    def grad(w):  # closed form
        return A @ w + np.cos(w)

    w, v = rng.normal(size=4), rng.normal(size=4)
    pred = grad(w) @ v
    errs = []
    for eps in (1e-1, 1e-2, 1e-3):
        change = f(w + eps * v) - f(w)
        errs.append(abs(change - eps * pred))
    ratios = [errs[i] / errs[i + 1] for i in range(2)]
    assert all(60 < r < 160 for r in ratios), (
        f"error ratios per 10x smaller ε: {ratios}"
    )
    return (
        f"⟨∇f, v⟩ = {pred:.4f}; error shrinks ×{ratios[0]:.0f}, ×{ratios[1]:.0f} per "
        f"10× ε"
    )


@claim(
    "C1-10",
    section="Foreword",
    lines=(16, 16),
    statement="Selecting an element is differentiable in the selected value (the "
    "gradient is one-hot) but not in the index: argmax has zero gradient "
    "everywhere.",
)
def _c1_10() -> str:
    import jax
    import jax.numpy as jnp
    import torch

    x = jnp.asarray(np.array([0.3, 2.0, -1.0, 1.5], dtype=np.float32))
    g_val = np.asarray(jax.grad(lambda x: x[jnp.argmax(x)])(x))
    assert np.array_equal(g_val, [0, 1, 0, 0]), f"grad of the max value: {g_val}"
    g_idx = np.asarray(jax.grad(lambda x: jnp.argmax(x).astype(x.dtype))(x))
    assert np.array_equal(g_idx, np.zeros(4)), f"grad of the argmax index: {g_idx}"
    t = torch.tensor([0.3, 2.0, -1.0], requires_grad=True)
    idx = torch.argmax(t)
    assert not idx.requires_grad and idx.grad_fn is None, "torch argmax kept a graph"
    return f"∂ x[argmax x] = {g_val.tolist()}, ∂ argmax x = {g_idx.tolist()}"
