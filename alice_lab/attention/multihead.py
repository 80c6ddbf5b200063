r"""Self-attention, multi-head, cross- and multi-query attention layers (functional).

Weights follow the book's row convention, :math:`\mathbf{Q} = \mathbf{X}\mathbf{W}_q`
with :math:`\mathbf{X} \sim (n, e)` and :math:`\mathbf{W}_q \sim (e, k)` (line 5116; the
definition box at line 5154 prints the transposes). A multi-head layer with h heads
stacks the per-head projections side by side, so one ``params`` dict holds

* ``Wq (e, h·k)``, ``Wk (e_kv, h·k)``, ``Wv (e_kv, h·v)``, ``Wo (h·v, o)``;
* optionally biases ``bq (h·k)``, ``bk``, ``bv``, ``bo`` (PyTorch's layer has them).

Head i uses columns ``i·k:(i+1)·k``. The output is
:math:`[\mathrm{SA}_1(\mathbf{X}) \| \dots \| \mathrm{SA}_h(\mathbf{X})]\mathbf{W}_o`
(E.10.15). Cross-attention takes queries from ``X`` and keys and values from ``Z``
(E.11.1); multi-query attention shares one key and one value projection across the
heads (``Wk (e, k)``, ``Wv (e, v)``).

Book: §10.1.2-10.1.3 (lines 5116-5180); §11.1.2 (cross-attention, lines 5631-5641);
§11.3 (multi-query attention, line 5857).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.attention.scoring import scaled_dot_product_attention
from alice_lab.backend import array_namespace, as_float_array, check_int

__all__ = [
    "cross_attention",
    "mha_init",
    "mha_param_count",
    "merge_heads",
    "multi_head_attention",
    "multi_query_attention",
    "qkv_projections",
    "self_attention",
    "split_heads",
]


def split_heads(X: Any, heads: int) -> Any:
    """``(..., n, h·k) -> (..., h, n, k)``.

    >>> split_heads(np.zeros((5, 6)), 3).shape
    (3, 5, 2)
    """
    X = as_float_array(X, "X")
    xp = array_namespace(X)
    n, hk = X.shape[-2], X.shape[-1]
    heads = check_int(heads, "heads")
    if hk % heads:
        raise ValueError(
            f"the last axis ({hk}) must be divisible by heads={heads}; got shape "
            f"{tuple(X.shape)}"
        )
    Y = xp.reshape(X, (*X.shape[:-2], n, heads, hk // heads))
    return xp.permute_dims(Y, (*range(Y.ndim - 3), Y.ndim - 2, Y.ndim - 3, Y.ndim - 1))


def merge_heads(X: Any) -> Any:
    """``(..., h, n, v) -> (..., n, h·v)`` (the concatenation of E.10.15)."""
    xp = array_namespace(X)
    nd = X.ndim
    Y = xp.permute_dims(X, (*range(nd - 3), nd - 2, nd - 3, nd - 1))
    return xp.reshape(Y, (*Y.shape[:-2], Y.shape[-2] * Y.shape[-1]))


def qkv_projections(X: Any, Wq: Any, Wk: Any, Wv: Any, *, fused: bool = False):
    r"""``(Q, K, V) = (X Wq, X Wk, X Wv)`` (E.10.8-10); ``fused=True`` computes
    :math:`\mathbf{X}[\mathbf{W}_k \| \mathbf{W}_v \| \mathbf{W}_q]` in one product and
    splits it (line 5140). X (..., n, e), W (e, k/v)."""
    X = as_float_array(X, "X")
    e = X.shape[-1]
    for name, W in (("Wq", Wq), ("Wk", Wk), ("Wv", Wv)):
        if W.ndim != 2 or W.shape[0] != e:
            raise ValueError(
                f"{name} must have shape (e, ·) with e = {e} (from X "
                f"{tuple(X.shape)}); got {tuple(W.shape)}"
            )
    if Wq.shape[1] != Wk.shape[1]:
        raise ValueError(
            f"queries and keys need the same dimension k: Wq {tuple(Wq.shape)}, "
            f"Wk {tuple(Wk.shape)}"
        )
    if not fused:
        return X @ Wq, X @ Wk, X @ Wv
    xp = array_namespace(X)
    k, v = Wk.shape[1], Wv.shape[1]
    KVQ = X @ xp.concat([Wk, Wv, Wq], axis=1)
    return KVQ[..., k + v :], KVQ[..., :k], KVQ[..., k : k + v]


def self_attention(
    X: Any, Wq: Any, Wk: Any, Wv: Any, *, mask: Any = None, causal: bool = False
) -> Any:
    r"""E.10.11: :math:`\mathrm{softmax}(\mathbf{X}\mathbf{W}_q\mathbf{W}_k^\top
    \mathbf{X}^\top/\sqrt{k})\mathbf{X}\mathbf{W}_v`; X (..., n, e) -> (..., n, v)."""
    Q, K, V = qkv_projections(X, Wq, Wk, Wv)
    return scaled_dot_product_attention(Q, K, V, mask=mask, causal=causal)


def mha_init(
    e: int,
    heads: int,
    *,
    k: int | None = None,
    v: int | None = None,
    o: int | None = None,
    e_kv: int | None = None,
    bias: bool = False,
    rng: Any = None,
) -> dict[str, np.ndarray]:
    """NumPy float64 parameters for :func:`multi_head_attention` (Glorot-uniform like
    PyTorch's ``in_proj``): per-head k = v = e // heads and o = e by default."""
    r = np.random.default_rng(0) if rng is None else rng
    k = e // heads if k is None else k
    v = k if v is None else v
    o = e if o is None else o
    e_kv = e if e_kv is None else e_kv

    def glorot(a, b):
        lim = np.sqrt(6.0 / (a + b))
        return r.uniform(-lim, lim, size=(a, b))

    p = {
        "Wq": glorot(e, heads * k),
        "Wk": glorot(e_kv, heads * k),
        "Wv": glorot(e_kv, heads * v),
        "Wo": glorot(heads * v, o),
    }
    if bias:
        for name, size in (
            ("bq", heads * k),
            ("bk", heads * k),
            ("bv", heads * v),
            ("bo", o),
        ):
            p[name] = np.zeros(size)
    return p


def mha_param_count(e: int, heads: int, k: int, v: int, o: int) -> int:
    """h(2ke + ve) + hvo weights (no biases); 4e² when k = v = e/h and o = e."""
    return heads * (2 * k * e + v * e) + heads * v * o


def _proj(X: Any, params: dict, w: str, b: str) -> Any:
    Y = X @ params[w]
    return Y + params[b] if params.get(b) is not None else Y


def _check_params(params: dict, e: int, e_kv: int, heads: int, shared_kv: bool):
    need = ("Wq", "Wk", "Wv", "Wo")
    missing = [k for k in need if k not in params]
    if missing:
        raise ValueError(f"params is missing {missing}; expected keys {list(need)}")
    Wq, Wk, Wv, Wo = (params[k] for k in need)
    if Wq.shape[0] != e or Wk.shape[0] != e_kv or Wv.shape[0] != e_kv:
        raise ValueError(
            f"Wq must have {e} rows and Wk, Wv {e_kv} rows (the input widths); got "
            f"Wq {tuple(Wq.shape)}, Wk {tuple(Wk.shape)}, Wv {tuple(Wv.shape)}"
        )
    heads = check_int(heads, "heads")
    if Wq.shape[1] % heads:
        raise ValueError(
            f"Wq's columns ({Wq.shape[1]}) must split into heads={heads} equal heads"
        )
    k = Wq.shape[1] // heads
    k_kv = Wk.shape[1] if shared_kv else Wk.shape[1] // heads
    if k_kv != k or (not shared_kv and Wk.shape[1] % heads):
        raise ValueError(
            "queries and keys need the same per-head dimension: Wq gives "
            f"k = {k} per head, Wk {tuple(Wk.shape)} gives {k_kv}"
        )
    v = Wv.shape[1] if shared_kv else Wv.shape[1] // heads
    if Wo.shape[0] != heads * v:
        raise ValueError(
            f"Wo must have h·v = {heads * v} rows (heads={heads}, v={v}); got "
            f"{tuple(Wo.shape)}"
        )


def multi_head_attention(
    X: Any,
    params: dict,
    *,
    heads: int,
    Z: Any = None,
    mask: Any = None,
    causal: bool = False,
) -> Any:
    r"""Multi-head attention (E.10.15); cross-attention when ``Z`` is given.

    Parameters
    ----------
    X : (..., n, e) queries' tokens. Z : (..., m, e_kv) keys' and values' tokens
        (default ``X``: self-attention).
    params : ``Wq (e, h·k)``, ``Wk (e_kv, h·k)``, ``Wv (e_kv, h·v)``, ``Wo (h·v, o)``,
        optional biases ``bq, bk, bv, bo``.
    heads : h. mask, causal : as in
        :func:`~alice_lab.attention.scaled_dot_product_attention` (the mask is shared by
        the heads).

    Returns
    -------
    (..., n, o).

    >>> p = mha_init(8, 2)
    >>> multi_head_attention(np.ones((5, 8)), p, heads=2).shape
    (5, 8)
    """
    X = as_float_array(X, "X")
    Z = X if Z is None else as_float_array(Z, "Z")
    _check_params(params, X.shape[-1], Z.shape[-1], heads, shared_kv=False)
    Q = split_heads(_proj(X, params, "Wq", "bq"), heads)
    K = split_heads(_proj(Z, params, "Wk", "bk"), heads)
    V = split_heads(_proj(Z, params, "Wv", "bv"), heads)
    H = scaled_dot_product_attention(Q, K, V, mask=mask, causal=causal)
    return _proj(merge_heads(H), params, "Wo", "bo")


def cross_attention(
    X: Any, Z: Any, params: dict, *, heads: int = 1, mask: Any = None
) -> Any:
    r"""E.11.1: queries from ``X (..., n, e)``, keys and values from
    ``Z (..., m, e_kv)``: :math:`\mathrm{softmax}(\mathbf{X}\mathbf{W}_q
    \mathbf{W}_k^\top\mathbf{Z}^\top/\sqrt{k})\mathbf{Z}\mathbf{W}_v` (then
    :math:`\mathbf{W}_o`). Returns (..., n, o) for any m."""
    return multi_head_attention(X, params, heads=heads, Z=Z, mask=mask)


def multi_query_attention(
    X: Any, params: dict, *, heads: int, mask: Any = None, causal: bool = False
) -> Any:
    """Multi-query attention: h query heads ``Wq (e, h·k)``, one shared key and value
    projection ``Wk (e, k)``, ``Wv (e, v)``, ``Wo (h·v, o)``. X (..., n, e) ->
    (..., n, o). The KV cache is h times smaller than MHA's."""
    X = as_float_array(X, "X")
    _check_params(params, X.shape[-1], X.shape[-1], heads, shared_kv=True)
    xp = array_namespace(X)
    Q = split_heads(_proj(X, params, "Wq", "bq"), heads)  # (..., h, n, k)
    K = xp.expand_dims(_proj(X, params, "Wk", "bk"), axis=-3)  # (..., 1, n, k)
    V = xp.expand_dims(_proj(X, params, "Wv", "bv"), axis=-3)
    H = scaled_dot_product_attention(Q, K, V, mask=mask, causal=causal)
    return _proj(merge_heads(H), params, "Wo", "bo")
