r"""Dot-product scoring and (scaled) dot-product attention, for any array backend.

For queries :math:`\mathbf{Q} \sim (n, k)`, keys :math:`\mathbf{K} \sim (m, k)` and
values :math:`\mathbf{V} \sim (m, v)`, attention returns, for every query, a convex
combination of the values weighted by how well the query matches each key:

.. math:: \mathrm{Attention}(\mathbf{Q}, \mathbf{K}, \mathbf{V}) =
          \mathrm{softmax}\left(\frac{\mathbf{Q}\mathbf{K}^\top}{\sqrt{k}} + \mathbf{M}
          \right)\mathbf{V},

with the softmax over the keys (each row sums to 1) and an optional mask
:math:`\mathbf{M}` (see :mod:`alice_lab.attention.masks`). Leading axes (batch,
heads) are carried along: ``Q (..., n, k)``.

The :math:`1/\sqrt{k}` keeps the scores' variance independent of k: for independent
entries of variance :math:`\sigma^2`, :math:`\mathrm{var}(\mathbf{q}^\top\mathbf{k}) =
k\sigma^4` and after scaling it is :math:`\sigma^4` (the book's line 5108 says
:math:`\sigma^4 \to \sigma^2`, true only for :math:`\sigma = 1`).

Replacing the softmax by an argmax gives **hard attention**, a dictionary that returns
the value of the closest key (:func:`hard_attention`); :func:`tempered_attention`
interpolates between the average of the values (β → 0) and hard attention (β → ∞).

Book: §10.1.2 (lines 5098-5158), the dictionary analogy (lines 5182-5214).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np  # noqa: F401  (doctests)

from alice_lab.attention.masks import apply_mask, boolean_causal_mask
from alice_lab.backend import array_namespace, as_float_array

__all__ = [
    "attention_weights",
    "dot_scores",
    "hard_attention",
    "naive_attention",
    "parameter_free_attention",
    "scaled_dot_product_attention",
    "tempered_attention",
]


def _check_qk(Q: Any, K: Any) -> None:
    for name, A in (("Q", Q), ("K", K)):
        if A.ndim < 2:
            raise ValueError(
                f"{name} must have shape (..., tokens, d) with at least 2 axes; "
                f"got {tuple(A.shape)}"
            )
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(
            "queries and keys must have the same dimension d (last axis): got "
            f"Q {tuple(Q.shape)} with d={Q.shape[-1]} and K {tuple(K.shape)} "
            f"with d={K.shape[-1]}"
        )


def _check_kv(K: Any, V: Any) -> None:
    if V.ndim < 2 or V.shape[-2] != K.shape[-2]:
        raise ValueError(
            "V must have one row per key, shape (..., m, dv) with m = "
            f"{K.shape[-2]} (from K {tuple(K.shape)}); got V {tuple(V.shape)}"
        )


def _scale(scale: Any, d: int) -> float:
    if scale is None or scale is True:
        return 1.0 / math.sqrt(d)
    if scale is False:
        return 1.0
    s = float(scale)
    if not math.isfinite(s) or s <= 0:
        raise ValueError(f"scale must be a finite number > 0; got {scale!r}")
    return s


def dot_scores(Q: Any, K: Any, *, scale: Any = None) -> Any:
    r"""The score matrix :math:`s\,\mathbf{Q}\mathbf{K}^\top`, ``(..., n, m)``.

    ``scale``: None or True for :math:`1/\sqrt{d}` (the book's scaled dot product,
    line 5106), False for the plain dot product (line 5102), or a number.

    >>> dot_scores(np.eye(2), np.eye(2), scale=False).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    Q, K = as_float_array(Q, "Q"), as_float_array(K, "K")
    _check_qk(Q, K)
    xp = array_namespace(Q, K)
    return (Q @ xp.matrix_transpose(K)) * _scale(scale, Q.shape[-1])


def attention_weights(
    Q: Any, K: Any, *, mask: Any = None, causal: bool = False, scale: Any = None
) -> Any:
    r"""The attention matrix :math:`\mathrm{softmax}(s\,\mathbf{Q}\mathbf{K}^\top +
    \mathbf{M})`, ``(..., n, m)``; every row is non-negative and sums to 1.

    Parameters
    ----------
    Q : (..., n, d); K : (..., m, d) (leading axes broadcast).
    mask : boolean (n, m) (True = may attend) or additive float (n, m), optionally
        with leading axes that broadcast against the scores.
    causal : mask keys after each query (bottom-right aligned when m > n; more
        queries than keys raise ``ValueError``, see
        ``alice_lab.attention.masks.check_causal_sizes``).
    scale : see :func:`dot_scores`; default :math:`1/\sqrt{d}`.

    A row with every key masked has no softmax and comes out NaN.

    Book: §10.1.2, the softmax over the keys (lines 5110-5114, 5144-5146).

    >>> attention_weights(np.zeros((2, 3)), np.zeros((4, 3))).tolist()[0]
    [0.25, 0.25, 0.25, 0.25]
    """
    from alice_lab.functional import softmax

    S = dot_scores(Q, K, scale=scale)
    if mask is not None:
        S = apply_mask(S, mask)
    if causal:
        S = apply_mask(S, boolean_causal_mask(S.shape[-2], S.shape[-1], like=S))
    return softmax(S, axis=-1)


def scaled_dot_product_attention(
    Q: Any,
    K: Any,
    V: Any,
    *,
    mask: Any = None,
    causal: bool = False,
    scale: Any = None,
) -> Any:
    r"""Attention :math:`\mathrm{softmax}(\mathbf{Q}\mathbf{K}^\top/\sqrt{d} +
    \mathbf{M})\mathbf{V}`.

    Parameters
    ----------
    Q : (..., n, d) queries; K : (..., m, d) keys; V : (..., m, dv) values.
    mask, causal, scale : as in :func:`attention_weights`.

    Returns
    -------
    (..., n, dv), on the caller's backend and device.

    Raises ValueError when d differs between Q and K, when V does not have one row
    per key, when the mask is not ``(n, m)``, or when ``causal`` is asked with more
    queries than keys; TypeError when Q, K, V come from different array libraries.

    Book: §10.1.2, eq. E.10.11 and line 5144; masks: §11.1.1.

    >>> scaled_dot_product_attention(np.zeros((1, 2)), np.zeros((3, 2)),
    ...                              np.arange(3.0)[:, None]).tolist()
    [[1.0]]
    """
    Q, K, V = as_float_array(Q, "Q"), as_float_array(K, "K"), as_float_array(V, "V")
    _check_qk(Q, K)
    _check_kv(K, V)
    return attention_weights(Q, K, mask=mask, causal=causal, scale=scale) @ V


def naive_attention(Q: Any, K: Any, V: Any) -> Any:
    """Box 11.1 exactly: ``softmax(Q @ K.T) @ V``, no scaling, no mask (reference)."""
    return scaled_dot_product_attention(Q, K, V, scale=False)


def parameter_free_attention(X: Any, *, scale: Any = None) -> Any:
    r"""E.10.4: :math:`\mathbf{h}_i = \sum_j \mathrm{softmax}_j(g(\mathbf{x}_i,
    \mathbf{x}_j))\mathbf{x}_j` with the (scaled) dot product as g; ``X (..., n, e)``.
    """
    X = as_float_array(X, "X")
    return scaled_dot_product_attention(X, X, X, scale=scale)


def hard_attention(Q: Any, K: Any, V: Any, *, scale: Any = None) -> Any:
    r"""Attention with an argmax instead of the softmax: row i of the output is the
    value of the key with the largest score, :math:`\mathbf{V}_{\arg\max_j
    \mathbf{q}_i^\top\mathbf{k}_j}` (a "closest key" dictionary). Its gradient with
    respect to the scores is zero almost everywhere.

    Book: §10.1.3, "An explanation of the terminology" (lines 5198-5202).

    >>> hard_attention(np.eye(2), np.eye(2), np.array([[1.0], [2.0]])).tolist()
    [[1.0], [2.0]]
    """
    Q, K, V = as_float_array(Q, "Q"), as_float_array(K, "K"), as_float_array(V, "V")
    _check_qk(Q, K)
    _check_kv(K, V)
    xp = array_namespace(Q, K, V)
    S = dot_scores(Q, K, scale=scale)
    idx = xp.argmax(S, axis=-1)  # (..., n)
    one_hot = xp.astype(
        xp.reshape(xp.arange(S.shape[-1]), (1,) * idx.ndim + (-1,)) == idx[..., None],
        V.dtype,
    )
    return one_hot @ V


def tempered_attention(
    Q: Any, K: Any, V: Any, beta: float, *, scale: Any = None
) -> Any:
    r""":math:`\mathrm{softmax}(\beta\, s\,\mathbf{Q}\mathbf{K}^\top)\mathbf{V}`:
    β → 0 gives the mean of the values, β → ∞ gives :func:`hard_attention`.

    >>> tempered_attention(np.eye(2), np.eye(2), np.array([[0.0], [2.0]]), 0.0).tolist()
    [[1.0], [1.0]]
    """
    beta = float(beta)
    if not beta >= 0:
        raise ValueError(f"beta must be >= 0; got {beta}")
    Q = as_float_array(Q, "Q")
    s = _scale(scale, Q.shape[-1]) * beta
    if s == 0:  # all scores 0: uniform weights
        return scaled_dot_product_attention(Q * 0.0, K, V, scale=1.0)
    return scaled_dot_product_attention(Q, K, V, scale=s)
