r"""Vectors, matrices and higher-order tensors: the operations of the book's §2.1.

Most functions are written once against the Python array API and return the caller's
array type on the caller's device (NumPy, PyTorch, JAX). Three are deliberately
pure-Python loops over NumPy arrays, because the book teaches them as equations to be
read index by index: :func:`matmul_naive` (the :math:`O(abc)` triple loop),
:func:`einsum_naive` (an interpreter for Einstein's notation) and the test helpers
:func:`matrix_of` / :func:`is_linear`.

Book: §2.1.1-2.1.4 (lines 204-570).

Modules: :mod:`~alice_lab.linalg.vectors` (§2.1.1), :mod:`~alice_lab.linalg.matrices`
(§2.1.2-2.1.3 and linear maps as matrices) and :mod:`~alice_lab.linalg.einstein`
(§2.1.4).
"""

from alice_lab.linalg.einstein import einsum_naive
from alice_lab.linalg.matrices import (
    bmm,
    expm_series,
    gdt,
    gram,
    hadamard,
    is_linear,
    mask,
    matmul_naive,
    matrix_of,
)
from alice_lab.linalg.vectors import (
    angle,
    best_template,
    cosine_similarity,
    inner,
    lincomb,
    norm,
    pairwise_sq_dists,
    sq_dist,
    sq_norm,
)

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
