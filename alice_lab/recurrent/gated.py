r"""Attention-free variants: the attention-free transformer (AFT) and RWKV.

AFT (book line 6735; the book spells it "ATF") replaces the query-key dot product by a
per-channel softmax over the keys, gated by the query,

.. math:: \mathbf{h}_i = \sigma(\mathbf{q}_i)\odot
          \frac{\sum_j\exp(\mathbf{k}_j + W_{ij})\odot\mathbf{v}_j}
               {\sum_j\exp(\mathbf{k}_j + W_{ij})},

with optional learned position biases W (m, m) (line 6759). Without W it costs O(ne)
and the context is the same for every i. RWKV (line 6781) fixes
:math:`W_{ij} = -(i-j)\mathbf{w}` for j < i, adds a bonus :math:`\mathbf{u}` for j = i,
and is causal, which makes it a recurrence with a state of two vectors per channel
(:func:`rwkv_time_mix` ``form="recurrent"``), optionally with a running maximum so
that large keys do not overflow (``form="stable"``).

Functions take ``Q, K, V (n, e)`` (AFT also any backend and leading batch axes).

Book: §13.4.1-§13.4.2 (lines 6715-6793).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, device_of
from alice_lab.functional import sigmoid

__all__ = [
    "aft",
    "rwkv_channel_mix",
    "rwkv_time_mix",
    "token_shift",
]


def aft(Q: Any, K: Any, V: Any, W: Any = None, *, causal: bool = False) -> Any:
    r"""AFT, ``H (..., n, e)`` from ``Q, K, V (..., n, e)``; ``W (m, m)`` with m >= n
    (the top-left (n, n) block is used) or None; ``causal`` keeps j <= i. Stable: the
    maximum over j is subtracted per channel before the exponential.

    Book: §13.4.1, E.13.24 (line 6735), the per-channel form (line 6749) and E.13.25
    (lines 6759-6761).
    """
    xp = array_namespace(Q, K, V)
    if not (Q.shape == K.shape == V.shape) or Q.ndim < 2:
        raise ValueError(
            f"Q, K, V must share one shape (..., n, e); got {tuple(Q.shape)}, "
            f"{tuple(K.shape)}, {tuple(V.shape)}"
        )
    n = Q.shape[-2]
    if n == 0:
        raise ValueError("expected a non-empty sequence (n >= 1); got n = 0")
    if W is None and not causal:  # O(n e): one context vector for all i
        Ks = K - xp.max(K, axis=-2, keepdims=True)
        E = xp.exp(Ks)
        ctx = xp.sum(E * V, axis=-2, keepdims=True) / xp.sum(E, axis=-2, keepdims=True)
        return sigmoid(Q) * ctx
    if W is not None and (W.ndim != 2 or W.shape[0] < n or W.shape[1] < n):
        raise ValueError(f"W must have shape (m, m) with m >= n = {n}; got {W.shape}")
    logits = K[..., None, :, :]  # (..., 1, n_j, e)
    if W is not None:
        logits = logits + W[:n, :n][:, :, None]
    if causal:
        i = xp.arange(n, device=device_of(Q))
        keep = (i[:, None] >= i[None, :])[:, :, None]
        logits = xp.where(keep, logits, -xp.inf)
    logits = logits - xp.max(logits, axis=-2, keepdims=True)
    E = xp.exp(logits)  # (..., n_i, n_j, e)
    num = xp.sum(E * V[..., None, :, :], axis=-2)
    return sigmoid(Q) * num / xp.sum(E, axis=-2)


def rwkv_time_mix(
    R: Any,
    K: Any,
    V: Any,
    w: Any,
    u: Any,
    W_o: Any = None,
    *,
    form: str = "parallel",
) -> np.ndarray:
    r"""RWKV's time mixing (book line 6781), ``R, K, V (n, e)`` (R, the "receptance", is
    the query), decay ``w (e,) >= 0`` and bonus ``u (e,)``:
    :math:`\mathbf{h}_i = \mathbf{W}_o\bigl(\sigma(\mathbf{r}_i)\odot\frac{\sum_{j<i}
    e^{\mathbf{k}_j-(i-j)\mathbf{w}}\odot\mathbf{v}_j + e^{\mathbf{k}_i+\mathbf{u}}\odot
    \mathbf{v}_i}{\sum_{j<i}e^{\mathbf{k}_j-(i-j)\mathbf{w}} +
    e^{\mathbf{k}_i+\mathbf{u}}}
    \bigr)`.

    ``form``: "parallel" (the (n, n, e) weights, max-shifted), "recurrent" (two running
    sums per channel, :math:`\mathbf{a}_{i+1} = e^{-\mathbf{w}}\odot(\mathbf{a}_i +
    e^{\mathbf{k}_i}\odot\mathbf{v}_i)`, overflows for large k) or "stable" (the same
    recurrence carrying a running maximum exponent).
    """
    R, K, V = (np.asarray(M, dtype=float) for M in (R, K, V))
    if not (R.shape == K.shape == V.shape) or R.ndim != 2 or R.shape[0] == 0:
        raise ValueError(
            f"R, K, V must share one shape (n, e), n >= 1; got {R.shape}, {K.shape}, "
            f"{V.shape}"
        )
    n, e = K.shape
    w, u = (
        np.broadcast_to(np.asarray(w, float), (e,)),
        np.broadcast_to(np.asarray(u, float), (e,)),
    )
    if form == "parallel":
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        logits = K[None] - ((i - j)[:, :, None] * w)
        logits = np.where((j == i)[:, :, None], (K + u)[None], logits)
        logits = np.where((j > i)[:, :, None], -np.inf, logits)
        logits = logits - logits.max(axis=1, keepdims=True)
        E = np.exp(logits)
        wkv = np.einsum("ije,je->ie", E, V) / E.sum(axis=1)
    elif form == "recurrent":
        a, b, out = np.zeros(e), np.zeros(e), []
        with np.errstate(over="ignore", invalid="ignore"):
            for t in range(n):
                cur = np.exp(K[t] + u)
                out.append((a + cur * V[t]) / (b + cur))
                a = np.exp(-w) * (a + np.exp(K[t]) * V[t])
                b = np.exp(-w) * (b + np.exp(K[t]))
        wkv = np.stack(out)
    elif form == "stable":
        a, b, p, out = np.zeros(e), np.zeros(e), np.full(e, -np.inf), []
        for t in range(n):
            ww = K[t] + u
            q = np.maximum(p, ww)
            e1, e2 = np.exp(p - q), np.exp(ww - q)
            out.append((e1 * a + e2 * V[t]) / (e1 * b + e2))
            q = np.maximum(p, K[t])
            e1, e2 = np.exp(p - q), np.exp(K[t] - q)
            a, b, p = e1 * a + e2 * V[t], e1 * b + e2, q - w
        wkv = np.stack(out)
    else:
        raise ValueError(
            f"form must be 'parallel', 'recurrent' or 'stable'; got {form!r}"
        )
    H = 1.0 / (1.0 + np.exp(-R)) * wkv
    return H if W_o is None else H @ np.asarray(W_o).T


def rwkv_channel_mix(X: Any, W1: Any, W2: Any, W3: Any) -> Any:
    r"""RWKV's channel mixing (line 6791): :math:`\sigma(\mathbf{W}_1\mathbf{x})\odot
    \mathbf{W}_2\max(0, \mathbf{W}_3\mathbf{x})^2`, row-wise on ``X (..., c)``."""
    xp = array_namespace(X)
    gate = sigmoid(X @ xp.matrix_transpose(W1))
    hidden = xp.maximum(X @ xp.matrix_transpose(W3), 0.0 * X[..., :1]) ** 2
    return gate * (hidden @ xp.matrix_transpose(W2))


def token_shift(X: Any, mu: Any) -> Any:
    r"""RWKV's token shift (line 6793): :math:`\mu\odot\mathbf{x}_i + (1-\mu)\odot
    \mathbf{x}_{i-1}` with :math:`\mathbf{x}_0 = \mathbf{0}`; ``X (..., n, c)``, ``mu
    (c,)``
    in [0, 1]."""
    xp = array_namespace(X)
    prev = xp.concat([0.0 * X[..., :1, :], X[..., :-1, :]], axis=-2)
    return mu * X + (1.0 - mu) * prev
