r"""Vectors, matrices and higher-order tensors: the operations of the book's §2.1.

Most functions are written once against the Python array API and return the caller's
array type on the caller's device (NumPy, PyTorch, JAX). Three are deliberately
pure-Python loops over NumPy arrays, because the book teaches them as equations to be
read index by index: :func:`matmul_naive` (the :math:`O(abc)` triple loop),
:func:`einsum_naive` (an interpreter for Einstein's notation) and the test helpers
:func:`matrix_of` / :func:`is_linear`.

Book: §2.1.1-2.1.4 (lines 204-570).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from alice_lab.backend import (
    array_namespace,
    as_float_array,
    check_int,
    device_of,
    to_numpy,
)
from alice_lab.tensors import check_shape

__all__ = [
    "angle",
    "best_template",
    "bmm",
    "cosine_similarity",
    "einsum_naive",
    "expm_series",
    "gdt",
    "gram",
    "hadamard",
    "inner",
    "is_linear",
    "lincomb",
    "mask",
    "matmul_naive",
    "matrix_of",
    "norm",
    "pairwise_sq_dists",
    "sq_dist",
    "sq_norm",
]


def _same_shape(x: Any, y: Any, what: str) -> None:
    if tuple(x.shape) != tuple(y.shape):
        raise ValueError(
            f"{what} needs two arrays of the same shape (no broadcasting), got "
            f"{tuple(x.shape)} and {tuple(y.shape)}"
        )


# --- vectors (§2.1.1) ---------------------------------------------------------------


def lincomb(a: Any, x: Any, b: Any, y: Any) -> Any:
    r"""Linear combination :math:`z = a x + b y` of two same-shaped tensors.

    x, y : (d) arrays (or any shape, but the same one: nothing is broadcast);
    a, b : scalars. Returns z : (d).

    Book: §2.1.1, lines 224-230.

    >>> import numpy as np
    >>> lincomb(2.0, np.array([1.0, 0.0]), 3.0, np.array([0.0, 1.0]))
    array([2., 3.])
    """
    array_namespace(x, y)
    _same_shape(x, y, "lincomb")
    return a * x + b * y


def inner(x: Any, y: Any) -> Any:
    r"""Inner (dot) product :math:`\langle x, y \rangle = \sum_i x_i y_i`.

    x, y : (d) arrays -> () scalar array. Raises ``ValueError`` for other shapes.

    Book: §2.1.1, definition "Inner product" (lines 250-268).

    >>> import numpy as np
    >>> float(inner(np.array([0.1, 0, -0.3]), np.array([-4.0, 0.05, 0.1])))
    -0.43000000000000005
    """
    xp = array_namespace(x, y)
    bound = check_shape(x, ("d",), "x")
    check_shape(y, ("d",), "y", bound=bound)
    return xp.sum(x * y)


def sq_norm(x: Any, axis: int | None = None) -> Any:
    r"""Squared Euclidean norm :math:`\lVert x \rVert^2 = \sum_i x_i^2`.

    x : (d) array -> (). With ``axis`` given, reduces that axis only ((n, d) -> (n) for
    ``axis=-1``); ``axis=None`` reduces every element (the Frobenius norm for matrices).

    Book: §2.1.1, lines 236-248 and 306-308.

    >>> import numpy as np; float(sq_norm(np.array([3.0, 4.0])))
    25.0
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    return xp.sum(x * x, axis=axis)


def norm(x: Any, safe: bool = True, axis: int | None = None) -> Any:
    r"""Euclidean norm :math:`\lVert x \rVert = \sqrt{\sum_i x_i^2}`.

    x : (d) array -> () (``axis`` as in :func:`sq_norm`).

    The textbook formula squares the entries first, so it overflows to ``inf`` once
    they exceed about 1e154 in float64 (and underflows to 0 below 1e-154). With
    ``safe=True`` the vector is first divided by its largest absolute entry ``m``:
    :math:`\lVert x\rVert = m \sqrt{\sum_i (x_i/m)^2}`, which is exact in exact
    arithmetic and keeps every square in [0, 1]. ``safe=False`` is the naive formula.

    Book: §2.1.1, lines 236-248.

    >>> import numpy as np; float(norm(np.array([1e200, 1e200])))
    1.414213562373095e+200
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    if not safe:
        return xp.sqrt(xp.sum(x * x, axis=axis))
    if math.prod(x.shape) == 0:  # empty: no maximum to scale by; the norm is 0
        return xp.sqrt(xp.sum(x * x, axis=axis))
    a = xp.abs(x)
    m = xp.max(a, axis=axis, keepdims=True)
    scaled = xp.where((m == 0) | xp.isinf(m), xp.ones_like(m), m)
    r = xp.sqrt(xp.sum((a / scaled) ** 2, axis=axis, keepdims=True))
    out = xp.where(xp.isinf(m), m, m * r)  # an infinite entry gives inf, not nan
    if axis is None:
        return xp.reshape(out, ())
    return xp.squeeze(out, axis=axis)


def cosine_similarity(x: Any, y: Any, eps: float = 1e-8) -> Any:
    r"""Cosine similarity :math:`\langle x, y\rangle / (\lVert x\rVert \lVert y\rVert)`.

    x, y : (..., d) arrays of the same shape -> (...). Computed as the dot product of
    the normalised vectors, each norm clamped below at ``eps`` (so a zero vector gives
    0, not ``nan``, and huge vectors do not overflow the product of norms); the result
    is clipped to [-1, 1] so that :func:`angle` never sees ``1.0000000000000002``.

    Book: §2.1.1, eq. dot_product_cosine (lines 270-280).

    >>> import numpy as np
    >>> float(cosine_similarity(np.array([1.0, 0.0]), np.array([3.0, 0.0])))
    1.0
    """
    x, y = as_float_array(x, "x"), as_float_array(y, "y")
    xp = array_namespace(x, y)
    _same_shape(x, y, "cosine_similarity")
    if x.ndim == 0:
        raise ValueError("cosine_similarity needs vectors (..., d), got scalars")
    nx = xp.maximum(norm(x, axis=-1), eps)[..., None]
    ny = xp.maximum(norm(y, axis=-1), eps)[..., None]
    c = xp.sum((x / nx) * (y / ny), axis=-1)
    return xp.clip(c, -1.0, 1.0)


def angle(x: Any, y: Any) -> Any:
    r"""Angle :math:`\alpha \in [0, \pi]` between x and y, in radians.

    x, y : (..., d) -> (...). ``arccos`` of the clipped :func:`cosine_similarity`.

    Book: §2.1.1, lines 270-280.

    >>> import numpy as np
    >>> round(float(angle(np.array([1.0, 0.0]), np.array([0.0, 2.0]))), 4)
    1.5708
    """
    xp = array_namespace(x, y)
    return xp.acos(cosine_similarity(x, y))


def best_template(x: Any, candidates: Any) -> int:
    r"""Index of the candidate with the largest dot product with x (template matching).

    x : (d), candidates : (m, d) -> int in [0, m). For unit-norm vectors the best
    template is ``x`` itself, since
    :math:`\langle x, y\rangle \le 1 = \langle x, x\rangle`.
    Ties go to the first index.

    Book: §2.1.1, eq. maximize_dot_product (lines 282-290).

    >>> import numpy as np; best_template(np.array([0.0, 1.0]), np.eye(2))
    1
    """
    xp = array_namespace(x, candidates)
    bound = check_shape(x, ("d",), "x")
    check_shape(candidates, ("m", "d"), "candidates", bound=bound)
    if candidates.shape[0] == 0:
        raise ValueError("best_template needs at least one candidate, got shape (0, d)")
    return int(xp.argmax(candidates @ x))


def sq_dist(x: Any, y: Any, method: str = "direct") -> Any:
    r"""Squared distance :math:`\lVert x - y\rVert^2` between two vectors.

    x, y : (d) -> (). ``method="direct"`` sums :math:`(x_i - y_i)^2`;
    ``method="dots"`` uses
    :math:`\langle x,x\rangle + \langle y,y\rangle - 2\langle x,y\rangle`
    exactly as the book writes it, *without* clamping, so it can show catastrophic
    cancellation: for nearby large vectors it may return 0 or even a negative number.
    Use :func:`pairwise_sq_dists` (clamped) for batches.

    Book: §2.1.1, lines 300-308.

    >>> import numpy as np; float(sq_dist(np.array([1.0, 2.0]), np.array([4.0, 6.0])))
    25.0
    """
    array_namespace(x, y)
    bound = check_shape(x, ("d",), "x")
    check_shape(y, ("d",), "y", bound=bound)
    if method == "direct":
        return sq_norm(x - y)
    if method == "dots":
        return inner(x, x) + inner(y, y) - 2 * inner(x, y)
    raise ValueError(f"method must be 'direct' or 'dots', got {method!r}")


def pairwise_sq_dists(X: Any, Y: Any, clamp: bool = True) -> Any:
    r"""All squared distances between the rows of X and of Y, via dot products.

    X : (n, d), Y : (m, d) -> D : (n, m), with
    :math:`D_{ij} = \lVert X_i\rVert^2 + \lVert Y_j\rVert^2 - 2\langle X_i, Y_j\rangle`:
    one matrix product instead of n*m loops. The expansion cancels catastrophically for
    nearby points and can come out slightly negative; ``clamp=True`` (the default)
    replaces those values with 0, so taking a square root is always safe.

    Book: §2.1.1, lines 300-308 (distance through dot products) and §2.1.2, line 360.

    >>> import numpy as np
    >>> pairwise_sq_dists(np.array([[0.0, 0.0]]), np.array([[3.0, 4.0]]))
    array([[25.]])
    """
    X, Y = as_float_array(X, "X"), as_float_array(Y, "Y")
    xp = array_namespace(X, Y)
    bound = check_shape(X, ("n", "d"), "X")
    check_shape(Y, ("m", "d"), "Y", bound=bound)
    sx = xp.sum(X * X, axis=1)  # (n,)
    sy = xp.sum(Y * Y, axis=1)  # (m,)
    D = sx[:, None] + sy[None, :] - 2 * (X @ Y.T)  # (n, m)
    return xp.maximum(D, 0.0) if clamp else D


# --- matrices (§2.1.2) and complexity ----------------------------------------------


def matmul_naive(X: Any, Y: Any, count_flops: bool = False) -> Any:
    r"""Matrix product by the book's definition, with three nested Python loops.

    X : (a, b), Y : (b, c) -> Z : (a, c), :math:`Z_{ij} = \sum_k X_{ik} Y_{kj}`, the dot
    product of row i of X with column j of Y. Each of the :math:`ac` outputs costs
    :math:`b` multiply-adds, :math:`O(abc)` in all (cubic for square matrices). This is
    the equation written as code, for reading and counting: it is thousands of times
    slower than ``X @ Y``. Inputs are converted to NumPy; the result is a NumPy array
    with NumPy's result dtype.

    With ``count_flops=True`` returns ``(Z, a*b*c)``, the number of multiplications.

    Book: §2.1.2, definition "Matrix multiplication" (lines 330-344) and
    "Computational complexity" (lines 436-456).

    >>> import numpy as np
    >>> matmul_naive(np.eye(2), np.array([[1, 2], [3, 4]]), count_flops=True)[1]
    8
    """
    X, Y = to_numpy(X), to_numpy(Y)
    check_shape(X, ("a", "b"), "X")
    if Y.ndim != 2 or Y.shape[0] != X.shape[1]:
        raise ValueError(
            f"matmul needs X : (a, b) and Y : (b, c); got X {X.shape} and Y {Y.shape}"
        )
    a, b = X.shape
    c = Y.shape[1]
    dtype = np.result_type(X, Y)
    Z = np.zeros((a, c), dtype=dtype)
    flops = 0
    for i in range(a):
        for j in range(c):
            s = dtype.type(0)
            for k in range(b):
                s = s + X[i, k] * Y[k, j]
                flops += 1
            Z[i, j] = s  # NumPy array (host): item assignment is fine here
    return (Z, flops) if count_flops else Z


def hadamard(X: Any, Y: Any) -> Any:
    r"""Element-wise (Hadamard) product :math:`[X \odot Y]_{ij} = X_{ij} Y_{ij}`.

    X, Y : same shape -> same shape. Nothing is broadcast.

    Book: §2.1.2, definition "Hadamard multiplication" (lines 364-376).

    >>> import numpy as np; hadamard(np.array([1, 2]), np.array([3, 4]))
    array([3, 8])
    """
    array_namespace(X, Y)
    _same_shape(X, Y, "hadamard")
    return X * Y


def mask(X: Any, M: Any) -> Any:
    r"""Keep the entries of X where the binary mask M is 1 and zero the others.

    X, M : same shape; M is bool or holds only 0 and 1 (``ValueError`` otherwise).
    Mathematically :math:`X \odot M`; computed with ``where`` so that masked-out ``inf``
    or ``nan`` entries become 0 rather than ``nan`` (``inf * 0``). Under ``jax.jit``
    pass a bool mask (the 0/1 check needs concrete values).

    Book: §2.1.2, lines 370-376 (Hadamard products used for masking).

    >>> import numpy as np; mask(np.array([1.0, 2.0, 3.0]), np.array([1, 0, 1]))
    array([1., 0., 3.])
    """
    xp = array_namespace(X, M)
    _same_shape(X, M, "mask")
    if M.dtype != xp.bool:
        from alice_lab.tensors import is_binary

        if not is_binary(M):
            raise ValueError("mask M must be bool or hold only 0 and 1")
        M = M != 0
    return xp.where(M, X, xp.zeros_like(X))


def gram(X: Any) -> Any:
    r"""Gram matrix :math:`X X^\top`: all dot products between pairs of rows.

    X : (n, d) -> G : (n, n), :math:`G_{ij} = \langle X_i, X_j\rangle`, symmetric and
    positive semi-definite.

    Book: §2.1.2, line 360.

    >>> import numpy as np; gram(np.array([[1.0, 0.0], [1.0, 1.0]]))
    array([[1., 1.],
           [1., 2.]])
    """
    array_namespace(X)
    check_shape(X, ("n", "d"), "X")
    return X @ X.T


def expm_series(X: Any, n_terms: int = 30, squarings: int | str = "auto") -> Any:
    r"""Matrix exponential :math:`\sum_{k\ge 0} X^k / k!` by a truncated series.

    X : (n, n) (or a batch (..., n, n)) -> (..., n, n). Not to be confused with the
    element-wise ``exp`` (:math:`\exp(0) = 1` everywhere, while ``expm(0) = I``).

    The plain series is only accurate for small :math:`\lVert X\rVert`: for large
    norms the terms grow huge before they shrink, and their cancellation loses every
    digit. *Scaling and squaring* fixes that: :math:`e^X = (e^{X/2^s})^{2^s}`, so the
    series runs on :math:`X/2^s` (norm at most 1/2) and the result is squared s times.
    ``squarings="auto"`` picks s from the 1-norm of X (this reads a value of X, so
    under ``jax.jit`` pass an integer); ``squarings=0`` is the plain series.

    Raises ``ValueError`` for non-square input or ``n_terms < 1``.

    Book: §2.1.2, eq. true_matrix_exp (lines 388-398) and Box 2.2 (lines 400-412).

    >>> import numpy as np; expm_series(np.zeros((2, 2)))
    array([[1., 0.],
           [0., 1.]])
    """
    X = as_float_array(X, "X")
    xp = array_namespace(X)
    if X.ndim < 2 or X.shape[-1] != X.shape[-2]:
        raise ValueError(
            f"expm_series needs a square matrix (n, n), got shape {tuple(X.shape)}"
        )
    n_terms = check_int(n_terms, "n_terms")
    if squarings == "auto":
        size = X.shape[-1] * math.prod(X.shape[:-2])
        one_norm = float(xp.max(xp.sum(xp.abs(X), axis=-2))) if size else 0.0
        s = (
            max(0, math.ceil(math.log2(one_norm / 0.5)))
            if 0 < one_norm < math.inf
            else 0
        )
    else:
        s = check_int(squarings, "squarings ('auto' or an int)", low=0)
    A = X / (2.0**s)
    eye = xp.eye(X.shape[-1], dtype=X.dtype, device=device_of(X))
    term = eye + xp.zeros_like(A)  # (..., n, n): A^0 / 0!
    total = term
    for k in range(1, n_terms):
        term = (term @ A) / k  # A^k / k!
        total = total + term
    for _ in range(s):
        total = total @ total
    return total


# --- higher-order tensors (§2.1.3) -------------------------------------------------


def bmm(X: Any, Y: Any) -> Any:
    r"""Batched matrix multiplication :math:`[\text{BMM}(X, Y)]_i = X_i Y_i`.

    X : (n, a, b), Y : (n, b, c) -> (n, a, c). Written as the book's definition, a
    stack of one matrix product per batch element (the batch axis leads).

    Book: §2.1.3, eq. bmm (lines 462-476) and Box 2.3 (lines 478-488).

    >>> import numpy as np; bmm(np.ones((4, 5, 2)), np.ones((4, 2, 3))).shape
    (4, 5, 3)
    """
    xp = array_namespace(X, Y)
    bound = check_shape(X, ("n", "a", "b"), "X")
    bound = check_shape(Y, ("n", "b", "c"), "Y", bound=bound)
    if bound["n"] == 0:
        return xp.matmul(X, Y)
    return xp.stack([X[i, ...] @ Y[i, ...] for i in range(bound["n"])], axis=0)


def gdt(X: Any, Y: Any) -> Any:
    r"""Generalised dot product :math:`\sum_{i,j,k} [X \odot Y]_{ijk}`.

    X, Y : same shape, any rank (e.g. (a, b, c)) -> (). The dot product of the
    flattened tensors.

    Book: §2.1.3, eq. gdt (lines 490-500).

    >>> import numpy as np; float(gdt(np.ones((2, 3, 4)), np.ones((2, 3, 4))))
    24.0
    """
    xp = array_namespace(X, Y)
    _same_shape(X, Y, "gdt")
    return xp.sum(X * Y)


# --- Einstein's notation (§2.1.4) ---------------------------------------------------


def _parse_einsum(spec: str, n_operands: int) -> tuple[list[str], str]:
    spec = spec.replace(" ", "")
    if "." in spec:
        raise ValueError("einsum_naive does not support ellipsis ('...') in the spec")
    if (
        spec.count("->") > 1
        or (">" in spec and "->" not in spec)
        or spec.count("-") != spec.count("->")
    ):
        raise ValueError(f"malformed einsum spec {spec!r}: use at most one '->'")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    for t in terms + [rhs]:
        bad = [ch for ch in t if not ch.isalpha() or not ch.isascii()]
        if bad:
            raise ValueError(
                f"malformed einsum spec {spec!r}: invalid index {bad[0]!r}"
            )
    if len(terms) != n_operands:
        raise ValueError(
            f"einsum spec {spec!r} names {len(terms)} operand(s) but {n_operands} "
            "were given"
        )
    counts = {c: sum(t.count(c) for t in terms) for c in set(lhs) if c != ","}
    if not arrow:
        rhs = "".join(sorted(c for c, k in counts.items() if k == 1))
    if len(set(rhs)) != len(rhs):
        raise ValueError(f"output indices of {spec!r} repeat an index: {rhs!r}")
    missing = [c for c in rhs if c not in counts]
    if missing:
        raise ValueError(f"output index {missing[0]!r} of {spec!r} is not in any input")
    return terms, rhs


def einsum_naive(spec: str, *operands: Any) -> np.ndarray:
    r"""Einstein summation, interpreted from scratch with explicit loops.

    ``spec`` is ``"ij,jk->ik"``-style: one group of letters per operand, and after
    ``->`` the output's indices. Every index that does not appear in the output is
    summed over (Einstein's convention as simplified in the book). Without ``->`` the
    output is, as in NumPy, the indices appearing exactly once, in alphabetical order.
    An index repeated inside one operand walks its diagonal (``"ii->"`` is the trace).

    The interpreter loops with ``itertools.product`` over every value of the output
    indices and, for each, over every value of the summed ones: cost
    :math:`O(\prod \text{sizes})`, so keep axes small. Operands are converted to NumPy;
    the result is a NumPy array (0-d for a full contraction).

    Raises ``ValueError`` for a malformed spec, a wrong number of operands or axes, or
    an index bound to two different sizes.

    Book: §2.1.4 "Einstein's notation", eqs. einops_1 / einops_2 (lines 502-570).

    >>> import numpy as np
    >>> float(einsum_naive("ii->", np.array([[1.0, 2.0], [3.0, 4.0]])))
    5.0
    """
    if not operands:
        raise ValueError("einsum_naive needs at least one operand")
    ops = [to_numpy(op) for op in operands]
    terms, out = _parse_einsum(spec, len(ops))
    sizes: dict[str, int] = {}
    for k, (t, op) in enumerate(zip(terms, ops, strict=True)):
        if len(t) != op.ndim:
            raise ValueError(
                f"operand {k} has {op.ndim} axes but its indices {t!r} name {len(t)}"
            )
        for c, n in zip(t, op.shape, strict=True):
            if sizes.setdefault(c, n) != n:
                raise ValueError(
                    f"index {c!r} has size {sizes[c]} elsewhere and {n} in operand {k}"
                )
    summed = sorted(set(sizes) - set(out))
    dtype = np.result_type(*ops)
    result = np.zeros(tuple(sizes[c] for c in out), dtype=dtype)
    for out_vals in itertools.product(*(range(sizes[c]) for c in out)):
        env = dict(zip(out, out_vals, strict=True))
        acc = dtype.type(0)
        for sum_vals in itertools.product(*(range(sizes[c]) for c in summed)):
            env.update(zip(summed, sum_vals, strict=True))
            prod = dtype.type(1)
            for t, op in zip(terms, ops, strict=True):
                prod = prod * op[tuple(env[c] for c in t)]
            acc = acc + prod
        result[out_vals] = acc  # host NumPy array built index by index
    return result


# --- linear maps as matrices (support box, lines 430-434) ---------------------------


def matrix_of(f: Callable[[Any], Any], d: int, *, like: Any = None) -> Any:
    r"""The matrix A of a linear map f, built column by column: :math:`A_{:,j}=f(e_j)`.

    f : (d) -> (o), d : input size -> A : (o, d), so that ``f(x) == A @ x``. The basis
    vectors are float64 NumPy arrays, or have the type, dtype and device of ``like``.
    In general the result has shape ``f(e).shape + (d,)``.

    Book: §2.1.2, support box "On the definition of matrix multiplication"
    (lines 430-434).

    >>> import numpy as np; matrix_of(lambda x: 2 * x, 2)
    array([[2., 0.],
           [0., 2.]])
    """
    if like is None:
        like = np.zeros(0)
    xp = array_namespace(like)
    dtype = like.dtype if xp.isdtype(like.dtype, "real floating") else xp.float64
    eye = xp.eye(d, dtype=dtype, device=device_of(like))
    return xp.stack([f(eye[j, :]) for j in range(d)], axis=-1)


def is_linear(
    f: Callable[[Any], Any],
    d: int,
    trials: int = 5,
    seed: int = 0,
    *,
    rtol: float = 1e-9,
) -> bool:
    r"""Test :math:`f(\alpha x_1 + \beta x_2) = \alpha f(x_1) + \beta f(x_2)` at random.

    f : (d) -> (o) on float64 NumPy arrays. Draws ``trials`` seeded quadruples
    :math:`(x_1, x_2, \alpha, \beta)` and compares both sides up to ``rtol`` relative
    to their scale. True means "no counterexample found", which for a linear map is
    always the case and for a typical nonlinear one almost never.

    Book: §2.1.2, support box (lines 430-434).

    >>> import numpy as np; is_linear(lambda x: 3 * x, 4), is_linear(lambda x: x**2, 4)
    (True, False)
    """
    rng = np.random.default_rng(seed)
    for _ in range(trials):
        x1, x2 = rng.standard_normal(d), rng.standard_normal(d)
        a, b = rng.standard_normal(2)
        lhs = to_numpy(f(a * x1 + b * x2))
        rhs = a * to_numpy(f(x1)) + b * to_numpy(f(x2))
        scale = np.abs(a * to_numpy(f(x1))) + np.abs(b * to_numpy(f(x2))) + 1e-300
        if lhs.shape != rhs.shape or not np.all(
            np.abs(lhs - rhs) <= rtol * (scale + 1)
        ):
            return False
    return True
