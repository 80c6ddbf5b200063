r"""Positional embeddings: trainable tables, sinusoidal, and relative ones (an
additive bias on the scores, ALiBi, rotary embeddings).

Self-attention is permutation equivariant, so a model needs the order of the tokens
to be put in. **Absolute** embeddings add a row per position to the input,
:math:`\mathbf{X}' = \mathbf{X} + \mathbf{S}_{1:n}` with :math:`\mathbf{S} \sim (m, e)`
(trainable, or the sinusoidal table). **Relative** ones act inside every attention
layer on the offset i - j: a bias :math:`B_{ij}` added to the scores (a general
``(m, m)`` matrix or a Toeplitz one :math:`b_{i-j}`), ALiBi (one slope per head times
:math:`-|i - j|`), or RoPE, which rotates queries and keys by an angle proportional to
their position so that :math:`\langle R_i\mathbf{q}, R_j\mathbf{k}\rangle` depends on
i - j only.

Sinusoidal table (:func:`sinusoidal_positions`), [VSP+17]:
:math:`S_{i,2l} = \sin(\omega_l i)`, :math:`S_{i,2l+1} = \cos(\omega_l i)`,
:math:`\omega_l = \mathrm{base}^{-2l/d}`. The book's sine-only version (line 5392) is
``variant="sin"`` and its exponent i/e (line 5416) is ``exponent="book"``.

Book: §10.2.2-10.2.3 (lines 5298-5462).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from alice_lab.attention.scoring import _check_kv, _check_qk, _scale
from alice_lab.backend import array_namespace, as_float_array, check_int, device_of

__all__ = [
    "add_positional",
    "alibi_bias",
    "alibi_slopes",
    "frequencies",
    "linear_scalar_positions",
    "one_hot_positions",
    "relative_bias_attention",
    "rope",
    "sinusoidal_positions",
    "toeplitz_bias",
]


def frequencies(
    d: int, *, base: float = 10000.0, exponent: str = "vaswani", variant: str = "sincos"
) -> np.ndarray:
    r"""The angular frequencies of :func:`sinusoidal_positions`.

    ``exponent="vaswani"``: :math:`\omega_l = \mathrm{base}^{-2l/d}` for the d/2 sin/cos
    pairs (or :math:`\mathrm{base}^{-l/d}` for the d sines of ``variant="sin"``).
    ``exponent="book"``: :math:`\omega_l = \mathrm{base}^{-l/d}` (line 5416).
    """
    d = check_int(d, "d")
    count = d if variant == "sin" else d // 2
    l = np.arange(count, dtype=np.float64)  # noqa: E741
    step = 1.0 if (exponent == "book" or variant == "sin") else 2.0
    if exponent not in ("vaswani", "book"):
        raise ValueError(f"exponent must be 'vaswani' or 'book'; got {exponent!r}")
    return np.exp(-math.log(base) * step * l / d)


def sinusoidal_positions(
    n: int,
    d: int,
    *,
    base: float = 10000.0,
    variant: str = "sincos",
    exponent: str = "vaswani",
) -> np.ndarray:
    r"""The sinusoidal table ``S (n, d)``, NumPy float64 (computed in float64: in
    float32 :math:`\sin(\omega i)` loses digits for large i).

    ``variant="sincos"`` (default, d even): interleaved
    :math:`[\sin\omega_0 i, \cos\omega_0 i, \sin\omega_1 i, \dots]`;
    ``variant="sin"``: the book's sines only, :math:`[\sin\omega_1 i, \dots]`.

    >>> sinusoidal_positions(2, 4).round(4).tolist()
    [[0.0, 1.0, 0.0, 1.0], [0.8415, 0.5403, 0.01, 1.0]]
    """
    n = check_int(n, "n")
    d = check_int(d, "d")
    if variant not in ("sincos", "sin"):
        raise ValueError(f"variant must be 'sincos' or 'sin'; got {variant!r}")
    if variant == "sincos" and d % 2:
        raise ValueError(f"the sin/cos table needs an even d; got d={d}")
    w = frequencies(d, base=base, exponent=exponent, variant=variant)
    angles = np.arange(n, dtype=np.float64)[:, None] * w[None, :]
    if variant == "sin":
        return np.sin(angles)
    S = np.empty((n, d))
    S[:, 0::2], S[:, 1::2] = np.sin(angles), np.cos(angles)
    return S


def linear_scalar_positions(m: int) -> np.ndarray:
    """The poor choice of line 5350: position i as the scalar i/m, ``(m, 1)``."""
    m = check_int(m, "m")
    return (np.arange(m, dtype=np.float64) / m)[:, None]


def one_hot_positions(m: int) -> np.ndarray:
    """The other poor choice (line 5352): one-hot positions, ``(m, m)``."""
    return np.eye(check_int(m, "m"))


def add_positional(X: Any, S: Any) -> Any:
    r""":math:`\mathbf{X} + \mathbf{S}_{1:n}` for ``X (..., n, e)`` and a table
    ``S (m, e)`` with n <= m (line 5306); a longer sequence is a ValueError.

    >>> add_positional(np.zeros((2, 3)), np.ones((4, 3))).tolist()
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    X = as_float_array(X, "X")
    n, e = X.shape[-2], X.shape[-1]
    if S.ndim != 2 or S.shape[1] != e:
        raise ValueError(
            f"the positional table must have shape (m, e) with e = {e}; got "
            f"{tuple(S.shape)}"
        )
    if n > S.shape[0]:
        raise ValueError(
            f"the sequence has n = {n} tokens but the positional table only has "
            f"m = {S.shape[0]} rows; expected n <= {S.shape[0]}"
        )
    xp = array_namespace(X)
    if array_namespace(S) is not xp:
        S = xp.asarray(np.asarray(S), device=device_of(X))
    return X + xp.astype(S[:n, :], X.dtype)


def toeplitz_bias(b: Any, n: int) -> np.ndarray:
    """``B (n, n)`` with ``B[i, j] = b[i - j + n - 1]`` for a vector ``b`` of the
    2n - 1 offsets -(n-1) … n-1 (an offset-only bias; line 5456)."""
    b = np.asarray(b, dtype=np.float64)
    n = check_int(n, "n")
    if b.shape != (2 * n - 1,):
        raise ValueError(
            f"b must hold one value per offset, shape (2n - 1,) = ({2 * n - 1},); got "
            f"{b.shape}"
        )
    i = np.arange(n)
    return b[i[:, None] - i[None, :] + n - 1]


def alibi_slopes(n_heads: int) -> np.ndarray:
    """ALiBi's fixed geometric slopes :math:`2^{-8i/h}`, i = 1..h (Press et al.)."""
    h = check_int(n_heads, "n_heads")
    return 2.0 ** (-8.0 * np.arange(1, h + 1) / h)


def alibi_bias(
    n: int, n_heads: int, *, slopes: Any = None, causal: bool = False
) -> np.ndarray:
    r"""ALiBi biases ``(h, n, n)``: :math:`B^{(h)}_{ij} = -s_h\,|i - j|` (one scalar
    per head times a matrix of offsets, line 5462). ``slopes`` default
    :func:`alibi_slopes`; ``causal=True`` also puts :math:`-\infty` above the
    diagonal.

    >>> alibi_bias(3, 1, slopes=[1.0])[0].tolist()
    [[-0.0, -1.0, -2.0], [-1.0, -0.0, -1.0], [-2.0, -1.0, -0.0]]
    """
    n = check_int(n, "n")
    h = check_int(n_heads, "n_heads")
    s = alibi_slopes(h) if slopes is None else np.asarray(slopes, dtype=np.float64)
    if s.shape != (h,):
        raise ValueError(f"slopes must have shape (n_heads,) = ({h},); got {s.shape}")
    i = np.arange(n)
    off = np.abs(i[:, None] - i[None, :]).astype(np.float64)
    B = -s[:, None, None] * off[None]
    if causal:
        B = np.where(i[None, None, :] > i[None, :, None], -np.inf, B)
    return B


def relative_bias_attention(Q: Any, K: Any, V: Any, B: Any, *, scale: Any = None):
    r""":math:`\mathrm{softmax}(\mathbf{Q}\mathbf{K}^\top/\sqrt{d} + \mathbf{B})
    \mathbf{V}` with a bias ``B (..., n, m)`` (relative embeddings, line 5456)."""
    from alice_lab.attention.scoring import scaled_dot_product_attention

    Q, K, V = as_float_array(Q, "Q"), as_float_array(K, "K"), as_float_array(V, "V")
    _check_qk(Q, K)
    _check_kv(K, V)
    _scale(scale, Q.shape[-1])
    return scaled_dot_product_attention(Q, K, V, mask=B, scale=scale)


def rope(
    X: Any, *, base: float = 10000.0, offset: int = 0, positions: Any = None
) -> Any:
    r"""Rotary positional embedding of ``X (..., n, d)``, d even: the pair
    :math:`(x_{2l}, x_{2l+1})` of token i is rotated by the angle :math:`\theta_l
    (i + \mathrm{offset})`, :math:`\theta_l = \mathrm{base}^{-2l/d}`. Applied to queries
    and keys, :math:`\langle \mathrm{rope}(\mathbf{q})_i,
    \mathrm{rope}(\mathbf{k})_j\rangle` depends only on i - j.

    ``positions``: explicit positions ``(n,)`` instead of ``arange(n) + offset``.

    >>> rope(np.array([[1.0, 0.0], [1.0, 0.0]])).round(4).tolist()
    [[1.0, 0.0], [0.5403, 0.8415]]
    """
    X = as_float_array(X, "X")
    xp = array_namespace(X)
    n, d = X.shape[-2], X.shape[-1]
    if d % 2:
        raise ValueError(f"RoPE rotates pairs of features: d must be even; got d={d}")
    pos = (
        np.arange(n, dtype=np.float64) + offset
        if positions is None
        else np.asarray(positions, dtype=np.float64)
    )
    if pos.shape != (n,):
        raise ValueError(f"positions must have shape (n,) = ({n},); got {pos.shape}")
    ang = pos[:, None] * frequencies(d, base=base)[None, :]  # (n, d/2)
    cos = xp.asarray(np.cos(ang), dtype=X.dtype, device=device_of(X))
    sin = xp.asarray(np.sin(ang), dtype=X.dtype, device=device_of(X))
    x0, x1 = X[..., 0::2], X[..., 1::2]
    y0 = x0 * cos - x1 * sin
    y1 = x0 * sin + x1 * cos
    return xp.reshape(xp.stack([y0, y1], axis=-1), X.shape)
