r"""Transformer blocks as plain functions of arrays (NumPy, torch, JAX, ...).

A block is two residual sub-layers, multi-head attention (token mixing) and a token-wise
MLP (channel mixing), each with a layer normalisation: *before* the sub-layer
(pre-norm, ``H + MHA(LN(H))``) or *after* the residual sum (post-norm, the original
``LN(H + MHA(H))``). Parameters are plain dicts in the row convention ``X (n, e) @ W
(e, e')`` (the book writes ``W x`` with ``W (e', e)``: the same map, transposed), so
:func:`from_torch_encoder_layer` can copy the weights of
``torch.nn.TransformerEncoderLayer`` and the tests compare the two.

Also here: the decoder block (masked self-attention, cross-attention whose keys and
values come from the encoder, MLP), the parallel block and gated units (GLU, SwiGLU
MLP). The attention itself is :func:`alice_lab.attention.multi_head_attention` (same
``Wq, Wk, Wv, Wo`` dict); multi-query attention is
:func:`alice_lab.attention.multi_query_attention`.

Book: §10.3 "The transformer block" (lines 5470-5500), §11.1.2-11.1.3 (lines
5631-5667), §11.3 "Transformer variants" (lines 5841-5905).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from alice_lab import activations
from alice_lab.activations import glu  # re-exported: chapter 5's (line 5901 reuses it)
from alice_lab.attention.multihead import merge_heads, multi_head_attention, split_heads
from alice_lab.attention.scoring import scaled_dot_product_attention
from alice_lab.backend import array_namespace, to_numpy
from alice_lab.normalization import layer_norm  # re-exported: the chapter-9 one

__all__ = [
    "block_param_count",
    "decoder_block",
    "from_torch_decoder_layer",
    "from_torch_encoder_layer",
    "gated_unit",
    "glu",
    "init_attention_params",
    "init_block_params",
    "layer_norm",
    "mlp_block",
    "parallel_block",
    "swiglu_mlp",
    "transformer_block",
]


def _phi(phi: Any):
    return activations.get(phi) if isinstance(phi, str) else phi


def mlp_block(X: Any, W1: Any, W2: Any, b1: Any = None, b2: Any = None, phi="gelu"):
    r"""The token-wise MLP :math:`\phi(\mathbf{X}\mathbf{W}_1 + b_1)\mathbf{W}_2 + b_2`.

    X : (..., n, e); W1 : (e, p); W2 : (p, e'). The book's form (line 5478) is
    :math:`\mathbf{W}_2\phi(\mathbf{W}_1\mathbf{x})` with no biases and ``W1 (p, e)``:
    pass ``W1.T``. Same map on every token (channel mixing). Returns (..., n, e').

    Book: §10.3, token-wise MLP (lines 5470-5484).

    >>> mlp_block(np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 3)), phi="relu").shape
    (2, 3)
    """
    if (
        W1.ndim != 2
        or W2.ndim != 2
        or W1.shape[0] != X.shape[-1]
        or W1.shape[1] != W2.shape[0]
    ):
        raise ValueError(
            f"expected X (..., e), W1 (e, p), W2 (p, e'); got X {tuple(X.shape)}, "
            f"W1 {tuple(W1.shape)}, W2 {tuple(W2.shape)}"
        )
    H = X @ W1
    if b1 is not None:
        H = H + b1
    out = _phi(phi)(H) @ W2
    return out if b2 is None else out + b2


def init_attention_params(e: int, *, rng: Any, k: int | None = None, bias=True) -> dict:
    """Seeded (e, k) projections (k = e by default) with variance 1/e; zero biases."""
    k = e if k is None else k
    r = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    p = {w: r.standard_normal((e, k)) / math.sqrt(e) for w in ("Wq", "Wk", "Wv")}
    p["Wo"] = r.standard_normal((k, e)) / math.sqrt(k)
    if bias:
        p.update({b: np.zeros(k) for b in ("bq", "bk", "bv")} | {"bo": np.zeros(e)})
    return p


def init_block_params(
    e: int, heads: int, p: int, *, rng: Any = 0, cross: bool = False, bias=True
) -> dict:
    """Parameters of an encoder block (``cross=True``: a decoder block, with a
    cross-attention ``"cross"`` and a third layer norm). Shapes: ``attn`` (e, e) each,
    ``mlp`` W1 (e, p), W2 (p, e), layer norms ``ln1``, ``ln2`` (, ``ln3``) (e,).

    >>> sorted(init_block_params(4, 2, 8))
    ['attn', 'ln1', 'ln2', 'mlp']
    """
    if e % heads:
        raise ValueError(f"e={e} must be divisible by heads={heads}")
    r = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    out = {"attn": init_attention_params(e, rng=r, bias=bias)}
    if cross:
        out["cross"] = init_attention_params(e, rng=r, bias=bias)
    out["mlp"] = {
        "W1": r.standard_normal((e, p)) / math.sqrt(e),
        "W2": r.standard_normal((p, e)) / math.sqrt(p),
    }
    if bias:
        out["mlp"].update(b1=np.zeros(p), b2=np.zeros(e))
    for i in range(1, 4 if cross else 3):
        out[f"ln{i}"] = {"gamma": np.ones(e), "beta": np.zeros(e)}
    return out


def block_param_count(e: int, heads: int, p: int, *, bias=False, cross=False) -> int:
    """Parameters of a block: 4e² (Q, K, V, O) + 2pe (MLP) + 2e per layer norm, plus
    biases with ``bias=True`` (and a second attention for a decoder block).

    >>> block_param_count(64, 4, 256)
    49408
    """
    attn = 4 * e * e + (4 * e if bias else 0)
    mlp = 2 * p * e + ((p + e) if bias else 0)
    n_ln = 3 if cross else 2
    return attn * (2 if cross else 1) + mlp + 2 * e * n_ln


def _ln(X, p, eps):
    return layer_norm(X, p["gamma"], p["beta"], eps=eps)


def _mlp(X, p, phi):
    return mlp_block(X, p["W1"], p["W2"], p.get("b1"), p.get("b2"), phi=phi)


def _check_norm(norm: str) -> None:
    if norm not in ("pre", "post"):
        raise ValueError(f"norm must be 'pre' or 'post'; got {norm!r}")


def transformer_block(
    X: Any,
    params: dict,
    *,
    heads: int,
    norm: str = "pre",
    mask: Any = None,
    causal: bool = False,
    phi: Any = "relu",
    eps: float = 1e-5,
) -> Any:
    r"""One encoder block, (..., n, e) -> (..., n, e).

    pre-norm: ``H = X + MHA(LN1(X)); H = H + MLP(LN2(H))``;
    post-norm: ``H = LN1(X + MHA(X)); H = LN2(H + MLP(H))``.
    Without positions it is permutation equivariant over tokens; with ``causal=True``
    token i never sees a token j > i.

    Book: §10.3, Figure F.10.7 (lines 5486-5500).
    """
    _check_norm(norm)
    if X.ndim < 2 or X.shape[-1] != params["attn"]["Wq"].shape[0]:
        raise ValueError(
            f"expected X (..., n, {params['attn']['Wq'].shape[0]}); "
            f"got {tuple(X.shape)}"
        )

    def attn(A):
        return multi_head_attention(
            A, params["attn"], heads=heads, mask=mask, causal=causal
        )

    if norm == "pre":
        H = X + attn(_ln(X, params["ln1"], eps))
        return H + _mlp(_ln(H, params["ln2"], eps), params["mlp"], phi)
    H = _ln(X + attn(X), params["ln1"], eps)
    return _ln(H + _mlp(H, params["mlp"], phi), params["ln2"], eps)


def decoder_block(
    Y: Any,
    H: Any,
    params: dict,
    *,
    heads: int,
    norm: str = "pre",
    phi: Any = "relu",
    eps: float = 1e-5,
    memory_mask: Any = None,
) -> Any:
    r"""One decoder block: masked (causal) self-attention on the decoder stream Y
    (..., n, e), cross-attention whose **queries come from Y and keys/values from the
    encoder output H** (..., m, e), then the token-wise MLP. Returns (..., n, e).

    The book (line 5663) says the queries come from H; in [VSP+17] and in E.11.1 the
    encoder output supplies keys and values (erratum E11-02).

    Book: §11.1.3 (lines 5655-5667).
    """
    _check_norm(norm)
    e = params["attn"]["Wq"].shape[0]
    if Y.shape[-1] != e or H.shape[-1] != e:
        raise ValueError(
            f"expected Y (..., n, {e}) and H (..., m, {e}); got {tuple(Y.shape)}, "
            f"{tuple(H.shape)}"
        )

    def sa(A):
        return multi_head_attention(A, params["attn"], heads=heads, causal=True)

    def ca(A):
        return multi_head_attention(
            A, params["cross"], heads=heads, Z=H, mask=memory_mask
        )

    if norm == "pre":
        S = Y + sa(_ln(Y, params["ln1"], eps))
        S = S + ca(_ln(S, params["ln2"], eps))
        return S + _mlp(_ln(S, params["ln3"], eps), params["mlp"], phi)
    S = _ln(Y + sa(Y), params["ln1"], eps)
    S = _ln(S + ca(S), params["ln2"], eps)
    return _ln(S + _mlp(S, params["mlp"], phi), params["ln3"], eps)


def parallel_block(
    X: Any, params: dict, *, heads: int, fused: bool = False, phi: Any = "relu"
) -> Any:
    r"""The parallel block :math:`\mathbf{H} + \mathrm{MLP}(\mathbf{H}) +
    \mathrm{MHA}(\mathbf{H})` (eq. line 5851, no normalisation). With ``fused=True``
    the first projections of both branches are one matrix product
    ``X @ [W1 | Wq | Wk | Wv]``, split afterwards: same numbers, one kernel.

    Book: §11.3 (lines 5845-5857).
    """
    a, m = params["attn"], params["mlp"]
    if not fused:
        return X + _mlp(X, m, phi) + multi_head_attention(X, a, heads=heads)
    xp = array_namespace(X)
    W = xp.concat([m["W1"], a["Wq"], a["Wk"], a["Wv"]], axis=1)
    b = xp.concat([m["b1"], a["bq"], a["bk"], a["bv"]])
    P = X @ W + b
    p, e = m["W1"].shape[1], a["Wq"].shape[1]
    H1, Q, K, V = (
        P[..., s : s + w] for s, w in ((0, p), (p, e), (p + e, e), (p + 2 * e, e))
    )
    Q, K, V = (split_heads(T, heads) for T in (Q, K, V))
    att = merge_heads(scaled_dot_product_attention(Q, K, V)) @ a["Wo"] + a["bo"]
    return X + (_phi(phi)(H1) @ m["W2"] + m["b2"]) + att


def gated_unit(X: Any, phi1, phi2) -> Any:
    r"""The generic gated unit :math:`f(\mathbf{X}) = \phi_1(\mathbf{X})\odot
    \phi_2(\mathbf{X})` (E.11.11, line 5893).

    >>> gated_unit(np.ones((1, 2)), lambda x: 2 * x, lambda x: x + 1).tolist()
    [[4.0, 4.0]]
    """
    a, b = phi1(X), phi2(X)
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(
            f"the two branches differ in shape: {tuple(a.shape)} vs {tuple(b.shape)}"
        )
    return a * b


def swiglu_mlp(X: Any, A: Any, B: Any, W: Any) -> Any:
    r"""The LLaMa-style gated MLP :math:`(\mathrm{SiLU}(\mathbf{X}\mathbf{A})\odot
    \mathbf{X}\mathbf{B})\mathbf{W}`: A, B (e, p), W (p, e). Book: line 5901.
    """
    if W.ndim != 2 or W.shape[0] != A.shape[1]:
        raise ValueError(f"expected W ({A.shape[1]}, e'); got {tuple(W.shape)}")
    return activations.swiglu(X, A, B) @ W


# --- weights from torch.nn layers ---------------------------------------------------


def _np(t) -> np.ndarray:
    return to_numpy(t).astype(np.float64)


def _attn_from_torch(mha) -> dict:
    e = mha.embed_dim
    W, b = _np(mha.in_proj_weight), _np(mha.in_proj_bias)
    return {
        "Wq": W[:e].T.copy(),
        "Wk": W[e : 2 * e].T.copy(),
        "Wv": W[2 * e :].T.copy(),
        "bq": b[:e].copy(),
        "bk": b[e : 2 * e].copy(),
        "bv": b[2 * e :].copy(),
        "Wo": _np(mha.out_proj.weight).T.copy(),
        "bo": _np(mha.out_proj.bias).copy(),
    }


def _ln_from_torch(ln) -> dict:
    return {"gamma": _np(ln.weight), "beta": _np(ln.bias)}


def from_torch_encoder_layer(layer) -> dict:
    """The parameters of a ``torch.nn.TransformerEncoderLayer`` as a
    :func:`transformer_block` dict (float64 NumPy; torch's weights are (out, in))."""
    return {
        "attn": _attn_from_torch(layer.self_attn),
        "mlp": {
            "W1": _np(layer.linear1.weight).T.copy(),
            "b1": _np(layer.linear1.bias),
            "W2": _np(layer.linear2.weight).T.copy(),
            "b2": _np(layer.linear2.bias),
        },
        "ln1": _ln_from_torch(layer.norm1),
        "ln2": _ln_from_torch(layer.norm2),
    }


def from_torch_decoder_layer(layer) -> dict:
    """The parameters of a ``torch.nn.TransformerDecoderLayer`` as a
    :func:`decoder_block` dict."""
    out = from_torch_encoder_layer(layer)
    out["cross"] = _attn_from_torch(layer.multihead_attn)
    out["ln3"] = _ln_from_torch(layer.norm3)
    return out
