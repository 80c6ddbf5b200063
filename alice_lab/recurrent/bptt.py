r"""Backpropagation through time for the vanilla RNN, written as the book writes it.

Unrolled, :math:`\mathbf{s}_n = f(f(\cdots f(\mathbf{s}_0, \mathbf{x}_1)\cdots),
\mathbf{x}_n)`
is an n-layer network whose layers share A. The Jacobian of the last state with respect
to A sums one term per step (book line 6461),

.. math:: \partial_{\mathbf{A}}\mathbf{s}_n = \sum_{i=1}^{n} \widetilde{\mathbf{s}}_i\,
          \partial_{\mathbf{A}} f(\mathbf{s}_{i-1}, \mathbf{x}_i), \qquad
          \widetilde{\mathbf{s}}_i = \mathbf{J}_n\mathbf{J}_{n-1}\cdots\mathbf{J}_{i+1},

with :math:`\mathbf{J}_j = \partial_{\mathbf{s}_{j-1}} f(\mathbf{s}_{j-1}, \mathbf{x}_j)
= \mathrm{diag}(\phi'(\cdot))\mathbf{A}` and :math:`\widetilde{\mathbf{s}}_n =
\mathbf{I}`.
The products shrink or blow up geometrically with the spectral radius of A: vanishing
and exploding gradients. Truncated BPTT keeps the last K terms; clipping bounds the
norm.

All NumPy (float64); ``tests/test_recurrent_bptt.py`` checks against finite differences
(:mod:`alice_lab.calculus`) and torch autograd.

Book: §13.2.2, "backpropagation through time" (lines 6445-6487).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from alice_lab.backend import check_int

__all__ = [
    "bptt_products",
    "bptt_terms",
    "bptt_weight_jacobian",
    "clip_grad_norm",
    "clip_grad_value",
    "rnn_forward",
]


def _phi(name: str):
    if name == "tanh":
        return np.tanh, lambda pre, s: 1.0 - s * s
    if name == "linear":
        return (lambda a: a), (lambda pre, s: np.ones_like(s))
    if name == "relu":
        return (lambda a: np.maximum(a, 0.0)), (lambda pre, s: (pre > 0).astype(float))
    raise ValueError(f"phi must be 'tanh', 'linear' or 'relu'; got {name!r}")


def rnn_forward(
    A: Any, B: Any, X: Any, s0: Any = None, phi: str = "tanh"
) -> tuple[np.ndarray, np.ndarray]:
    """States and derivatives of an unbatched vanilla RNN: ``X (n, c)`` -> ``S (n + 1,
    e)``
    (``S[0] = s0``) and ``dphi (n, e)``, :math:`\\phi'` at each pre-activation."""
    A, B, X = (np.asarray(M, dtype=float) for M in (A, B, X))
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must have shape (n, c) with n >= 1; got {X.shape}")
    e = A.shape[0]
    if A.shape != (e, e) or B.shape != (e, X.shape[1]):
        raise ValueError(
            f"expected A (e, e) and B (e, c) with c = {X.shape[1]}; got A {A.shape}, "
            f"B {B.shape}"
        )
    f, df = _phi(phi)
    S = np.zeros((X.shape[0] + 1, e))
    if s0 is not None:
        S[0] = np.asarray(s0, dtype=float)
    dphi = np.empty((X.shape[0], e))
    for i, x in enumerate(X):
        pre = A @ S[i] + B @ x
        S[i + 1] = f(pre)
        dphi[i] = df(pre, S[i + 1])
    return S, dphi


def bptt_products(
    A: Any, B: Any, X: Any, s0: Any = None, phi: str = "tanh"
) -> np.ndarray:
    r""":math:`\widetilde{\mathbf{s}}_i` for i = 1..n as an ``(n, e, e)`` array
    (``[i-1]`` holds :math:`\mathbf{J}_n\cdots\mathbf{J}_{i+1}`; the last is I).

    Book: line 6453.
    """
    A = np.asarray(A, dtype=float)
    _, dphi = rnn_forward(A, B, X, s0, phi)
    n, e = dphi.shape
    out = np.empty((n, e, e))
    P = np.eye(e)
    for i in range(n - 1, -1, -1):  # out[i] = s̃_{i+1} (0-based step i)
        out[i] = P
        P = P @ (dphi[i][:, None] * A)  # append J_{i+1} on the right
    return out


def bptt_terms(A: Any, B: Any, X: Any, s0: Any = None, phi: str = "tanh") -> np.ndarray:
    r"""The per-step terms :math:`\widetilde{\mathbf{s}}_i\,\partial_{\mathbf{A}}
    f(\mathbf{s}_{i-1}, \mathbf{x}_i)` of book line 6461, as ``(n, e, e, e)``
    (``[i-1, k, l, m]`` = contribution of step i to :math:`\partial s_{n,k}/\partial
    A_{lm}`).
    """
    S, dphi = rnn_forward(A, B, X, s0, phi)
    tilde = bptt_products(A, B, X, s0, phi)
    # ∂_A f_i [k, l, m] = dphi_i[k] δ_kl s_{i-1}[m]
    return np.einsum("ikl,il,im->iklm", tilde, dphi, S[:-1])


def bptt_weight_jacobian(
    A: Any,
    B: Any,
    X: Any,
    s0: Any = None,
    phi: str = "tanh",
    *,
    truncate: int | None = None,
) -> np.ndarray:
    r""":math:`\partial_{\mathbf{A}}\mathbf{s}_n` by the BPTT formula, ``(e, e, e)``
    (``[k, l, m]`` = :math:`\partial s_{n,k}/\partial A_{lm}`).

    ``truncate=K`` keeps the term of the last element and the K before it (truncated
    BPTT, line 6487); ``K >= n - 1`` is the full gradient.

    >>> import numpy as np
    >>> bptt_weight_jacobian(np.eye(2), np.ones((2, 1)), np.ones((3, 1))).shape
    (2, 2, 2)
    """
    terms = bptt_terms(A, B, X, s0, phi)
    if truncate is not None:
        truncate = check_int(truncate, "truncate", low=0)
        terms = terms[max(0, terms.shape[0] - 1 - truncate) :]
    return terms.sum(axis=0)


def clip_grad_norm(grads: Sequence[Any], max_norm: float) -> list[np.ndarray]:
    """Rescale a list of gradients so that their joint 2-norm is at most ``max_norm``
    (unchanged if it already is), as ``torch.nn.utils.clip_grad_norm_``."""
    if max_norm <= 0:
        raise ValueError(f"max_norm must be positive; got {max_norm}")
    grads = [np.asarray(g, dtype=float) for g in grads]
    total = float(np.sqrt(sum(float(np.sum(g * g)) for g in grads)))
    scale = min(1.0, max_norm / (total + 1e-6))
    return [g * scale for g in grads]


def clip_grad_value(grads: Sequence[Any], clip_value: float) -> list[np.ndarray]:
    """Clamp every entry to [-clip_value, clip_value] (``clip_grad_value_``)."""
    if clip_value <= 0:
        raise ValueError(f"clip_value must be positive; got {clip_value}")
    return [np.clip(np.asarray(g, dtype=float), -clip_value, clip_value) for g in grads]
