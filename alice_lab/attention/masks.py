r"""Attention masks: causal (additive, the book's erratum corrected), boolean and
key-padding masks, and how a mask is combined with a score matrix.

A mask says which keys each query may look at. Two encodings are accepted
everywhere in :mod:`alice_lab.attention`:

* **boolean** ``(n, m)``: ``True`` where query i may attend to key j;
* **additive** float ``(n, m)``: added to the scores before the softmax, 0 where
  attention is allowed and :math:`-\infty` where it is not (since
  :math:`e^{-\infty} = 0`, those weights are exactly zero).

The book (§11.1.1, eq. at line 5617, mask at line 5625) writes the causal mask as a
Hadamard product :math:`\mathbf{Q}\mathbf{K}^\top \odot \mathbf{M}` with
:math:`M_{ij} = -\infty` for :math:`i > j` and 1 elsewhere. Taken literally this masks
the wrong triangle and turns negative scores into :math:`+\infty` (NaN rows). The
correct mask is **additive**, with :math:`-\infty` *above* the diagonal
(:math:`j > i`) and 0 on and below it: :func:`causal_mask`.

Book: §11.1.1 (lines 5613-5629); the companion of §10 uses the same masks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, check_int, device_of

__all__ = [
    "apply_mask",
    "boolean_causal_mask",
    "causal_mask",
    "check_causal_sizes",
    "check_mask",
    "literal_book_causal_attention",
    "padding_mask",
]


def _like(like: Any):
    """(xp, dtype, device) of ``like`` (NumPy float64 when ``like`` is None)."""
    if like is None:
        return array_namespace(np.zeros(0)), np.float64, None
    xp = array_namespace(like)
    dtype = like.dtype if xp.isdtype(like.dtype, "real floating") else xp.float64
    return xp, dtype, device_of(like)


def check_causal_sizes(n: int, m: int) -> None:
    """Raise ``ValueError`` when a causal mask has more queries ``n`` than keys ``m``.

    Our causal masks align the triangle to the bottom-right corner (the last query
    sees every key, as a KV cache needs), so with ``n > m`` the first ``n - m``
    queries would see no key at all and come out NaN. PyTorch's
    ``scaled_dot_product_attention(is_causal=True)`` aligns to the top-left instead;
    rather than pick silently, we refuse: pass that alignment as an explicit ``mask``.
    """
    if n > m:
        raise ValueError(
            f"causal attention needs at least as many keys as queries; got n={n} "
            f"queries and m={m} keys (bottom-right alignment would leave {n - m} "
            "queries with no key). For torch's top-left alignment "
            "(is_causal=True) pass mask=boolean_causal_mask(n)[:, :m] instead of "
            "causal=True"
        )


def boolean_causal_mask(n: int, m: int | None = None, *, like: Any = None) -> Any:
    """``(n, m)`` boolean mask, True where key j may be seen by query i: j <= i + m - n.

    With ``m = n`` (the default) it is the lower triangle with the diagonal. With
    ``m > n`` (new queries after ``m - n`` cached keys, as in a KV cache) the triangle
    is aligned to the bottom-right corner: the last query sees every key. ``n > m``
    raises ``ValueError`` (see ``check_causal_sizes``).

    >>> boolean_causal_mask(3).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    """
    n = check_int(n, "n")
    m = n if m is None else check_int(m, "m")
    check_causal_sizes(n, m)
    xp, _, dev = _like(like)
    i = xp.reshape(xp.arange(n, device=dev), (n, 1))
    j = xp.reshape(xp.arange(m, device=dev), (1, m))
    return j <= i + (m - n)


def causal_mask(n: int, m: int | None = None, *, like: Any = None) -> Any:
    r"""The causal mask as an **additive** ``(n, m)`` float matrix: 0 on and below the
    diagonal, :math:`-\infty` above it (bottom-right aligned when ``m > n``).

    ``like``: an array whose namespace, float dtype and device the mask takes (NumPy
    float64 by default).

    Book: §11.1.1, mask at line 5625 (erratum: the book prints a multiplicative mask
    with :math:`-\infty` below the diagonal and 1 elsewhere).

    >>> causal_mask(3).tolist()
    [[0.0, -inf, -inf], [0.0, 0.0, -inf], [0.0, 0.0, 0.0]]
    """
    xp, dtype, dev = _like(like)
    allowed = boolean_causal_mask(n, m, like=like)
    zero = xp.zeros(allowed.shape, dtype=dtype, device=dev)
    return xp.where(allowed, zero, xp.full_like(zero, -float("inf")))


def padding_mask(lengths: Any, m: int, *, like: Any = None) -> Any:
    """``(b, 1, m)`` boolean key-padding mask: True for the first ``lengths[i]`` keys
    of sequence i (broadcasts over the queries).

    >>> padding_mask([2, 3], 3)[:, 0].astype(int).tolist()
    [[1, 1, 0], [1, 1, 1]]
    """
    m = check_int(m, "m")
    L = np.asarray(lengths)
    if L.ndim != 1 or np.any(L < 1) or np.any(L > m):
        raise ValueError(
            f"lengths must be a 1-d list of integers in [1, m={m}]; got {lengths!r}"
        )
    xp, _, dev = _like(like)
    j = xp.reshape(xp.arange(m, device=dev), (1, 1, m))
    return j < xp.reshape(xp.asarray(L.tolist(), device=dev), (L.size, 1, 1))


def check_mask(mask: Any, n: int, m: int, ndim: int) -> None:
    """Raise ValueError unless ``mask`` has shape ``(..., n, m)`` (leading axes that
    broadcast against the scores' leading axes, never more of them)."""
    shape = tuple(getattr(mask, "shape", ()))
    if len(shape) < 2 or shape[-2:] != (n, m) or len(shape) > ndim:
        raise ValueError(
            f"mask must have shape (n, m) = ({n}, {m}) (optionally with leading axes "
            f"that broadcast against the scores); got {shape}"
        )


def apply_mask(S: Any, mask: Any) -> Any:
    r"""Scores ``S (..., n, m)`` with ``mask`` applied: boolean masks put
    :math:`-\infty` where False, float masks are added."""
    xp = array_namespace(S)
    check_mask(mask, S.shape[-2], S.shape[-1], S.ndim)
    if not hasattr(mask, "dtype") or array_namespace(mask) is not xp:
        mask = xp.asarray(np.asarray(mask), device=device_of(S))
    if mask.dtype == xp.bool:
        return xp.where(mask, S, xp.full_like(S, -float("inf")))
    return S + xp.astype(mask, S.dtype)


def literal_book_causal_attention(Q: Any, K: Any, V: Any) -> Any:
    r"""The causal attention **as printed** at line 5617/5625 (teaching only):
    :math:`\mathrm{softmax}((\mathbf{Q}\mathbf{K}^\top \odot \mathbf{M})/\sqrt{k})
    \mathbf{V}` with :math:`M_{ij} = -\infty` for i > j and 1 otherwise.

    It masks the wrong triangle, and a negative score times :math:`-\infty` is
    :math:`+\infty`, so rows come out NaN. See :func:`causal_mask` for the fix.
    """
    from alice_lab.functional import softmax

    xp = array_namespace(Q)
    n, k = Q.shape[-2], Q.shape[-1]
    S = Q @ xp.matrix_transpose(K)
    i = xp.reshape(xp.arange(n, device=device_of(Q)), (n, 1))
    j = xp.reshape(xp.arange(n, device=device_of(Q)), (1, n))
    M = xp.where(i > j, xp.full_like(S, -float("inf")), xp.ones_like(S))
    with np.errstate(invalid="ignore"):
        return softmax(S * M / k**0.5, axis=-1) @ V
