r"""The chapter-10 transformer block and model heads, functional and for any backend.

* token-wise MLP :math:`\mathrm{MLP}(\mathbf{x}) = \mathbf{W}_2\phi(\mathbf{W}_1
  \mathbf{x})` with ``W1 (p, e)``, ``W2 (e, p)``, no biases (line 5478), applied to
  the rows of ``X (n, e)`` as :math:`\phi(\mathbf{X}\mathbf{W}_1^\top)
  \mathbf{W}_2^\top`;
* the block, pre-norm :math:`\mathbf{H} \leftarrow \mathbf{H} +
  \mathrm{MHA}(\mathrm{LN}(\mathbf{H}))`, :math:`\mathbf{H} \leftarrow \mathbf{H} +
  \mathrm{MLP}(\mathrm{LN}(\mathbf{H}))`, or post-norm
  :math:`\mathbf{H} \leftarrow \mathrm{LN}(\mathbf{H} + \mathrm{MHA}(\mathbf{H}))`, ...
  (lines 5486-5500);
* heads: mean pooling (line 5526), a class token appended as the last row
  (lines 5546-5558), register tokens (line 5564).

Book: §10.3 (lines 5464-5564).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.attention.multihead import mha_init, multi_head_attention
from alice_lab.attention.scoring import _as_array
from alice_lab.backend import array_namespace

__all__ = [
    "add_class_token",
    "block_init",
    "layer_norm",
    "mean_pool",
    "mlp_block",
    "transformer_block",
]


def layer_norm(X: Any, *, eps: float = 1e-5) -> Any:
    """Non-affine layer normalisation over the last axis (the chapter-9 operation)."""
    xp = array_namespace(X)
    mu = xp.mean(X, axis=-1, keepdims=True)
    var = xp.mean((X - mu) ** 2, axis=-1, keepdims=True)
    return (X - mu) / xp.sqrt(var + eps)


def _gelu(x: Any) -> Any:
    xp = array_namespace(x)
    return 0.5 * x * (1.0 + xp.tanh(0.7978845608028654 * (x + 0.044715 * x**3)))


def mlp_block(X: Any, W1: Any, W2: Any, *, phi: Any = None) -> Any:
    """Token-wise MLP: ``X (..., n, e)``, ``W1 (p, e)``, ``W2 (e, p)`` -> (..., n, e).
    ``phi`` defaults to the (tanh) GELU."""
    X = _as_array(X)
    e = X.shape[-1]
    if W1.ndim != 2 or W1.shape[1] != e or W2.shape != (e, W1.shape[0]):
        raise ValueError(
            f"expected W1 (p, e) and W2 (e, p) with e = {e}; got W1 {tuple(W1.shape)}"
            f" and W2 {tuple(W2.shape)}"
        )
    xp = array_namespace(X)
    phi = _gelu if phi is None else phi
    return phi(X @ xp.matrix_transpose(W1)) @ xp.matrix_transpose(W2)


def block_init(e: int, heads: int, *, p: int | None = None, rng: Any = None) -> dict:
    """NumPy parameters of one block: the MHA's ``Wq, Wk, Wv, Wo`` and ``W1 (p, e)``,
    ``W2 (e, p)`` with p = 4e by default."""
    r = np.random.default_rng(0) if rng is None else rng
    p = 4 * e if p is None else p
    params = mha_init(e, heads, rng=r)
    params["W1"] = r.normal(0, 1 / np.sqrt(e), size=(p, e))
    params["W2"] = r.normal(0, 1 / np.sqrt(p), size=(e, p))
    return params


def transformer_block(
    X: Any,
    params: dict,
    *,
    heads: int,
    norm: str = "pre",
    mask: Any = None,
    causal: bool = False,
) -> Any:
    """One block, ``(..., n, e) -> (..., n, e)``; ``norm``: ``"pre"`` or ``"post"``."""
    X = _as_array(X)

    def mha(H):
        return multi_head_attention(H, params, heads=heads, mask=mask, causal=causal)

    def mlp(H):
        return mlp_block(H, params["W1"], params["W2"])

    if norm == "pre":
        H = X + mha(layer_norm(X))
        return H + mlp(layer_norm(H))
    if norm == "post":
        H = layer_norm(X + mha(X))
        return layer_norm(H + mlp(H))
    raise ValueError(f"norm must be 'pre' or 'post'; got {norm!r}")


def mean_pool(H: Any) -> Any:
    """The mean over tokens, ``(..., n, e) -> (..., e)`` (line 5526)."""
    xp = array_namespace(H)
    return xp.mean(H, axis=-2)


def add_class_token(X: Any, c: Any) -> Any:
    """Append the class token ``c (e,)`` as the last row: ``(..., n, e) ->
    (..., n + 1, e)`` (the same c for every sequence of a batch; line 5546)."""
    X = _as_array(X)
    xp = array_namespace(X)
    if c.shape != (X.shape[-1],):
        raise ValueError(
            f"the class token must have shape (e,) = ({X.shape[-1]},); got "
            f"{tuple(c.shape)}"
        )
    row = xp.broadcast_to(
        xp.reshape(c, (1,) * (X.ndim - 1) + (-1,)), (*X.shape[:-2], 1, X.shape[-1])
    )
    return xp.concat([X, row], axis=-2)
