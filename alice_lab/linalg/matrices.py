r"""Matrices (§2.1.2) and higher-order tensors (§2.1.3): the triple-loop product
with its flop count, Hadamard product and masking, the Gram matrix, the matrix
exponential as a series, batched and generalised dot products, and linear maps as
matrices (the support box on linear maps).

Book: §2.1.2-2.1.3; the support box on linear maps (lines 430-434).
"""

from __future__ import annotations

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
from alice_lab.linalg.vectors import _same_shape
from alice_lab.tensors import check_shape

__all__ = [
    "bmm",
    "expm_series",
    "gdt",
    "gram",
    "hadamard",
    "is_linear",
    "mask",
    "matmul_naive",
    "matrix_of",
]


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
