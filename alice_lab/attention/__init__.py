"""Attention, from the dot product to multi-head, chunked and cached attention, and
positional embeddings, for NumPy, PyTorch and JAX arrays.

Modules: :mod:`~alice_lab.attention.scoring` (scores, scaled dot-product, hard
attention), :mod:`~alice_lab.attention.masks` (causal, boolean, padding),
:mod:`~alice_lab.attention.multihead` (self-, multi-head, cross-, multi-query),
:mod:`~alice_lab.attention.chunked` (online softmax),
:mod:`~alice_lab.attention.kv_cache`,
:mod:`~alice_lab.attention.positional` (sinusoidal, ALiBi, RoPE, relative bias),
and :mod:`~alice_lab.attention.torch_modules` (the ``MultiHeadAttention``
``nn.Module``; loaded on first use, so importing this package does not import torch).
Transformer blocks (functional and ``nn.Module``), the token-wise MLP, class token and
mean pooling (§10.3) live in :mod:`alice_lab.transformer`.

Book: Chapter 10 (lines 5056-5603) and §11.1-11.2 (masks, cross-attention, online
softmax, KV cache).

>>> import numpy as np
>>> from alice_lab.attention import scaled_dot_product_attention, causal_mask
>>> scaled_dot_product_attention(np.ones((3, 2)), np.ones((3, 2)), np.eye(3),
...                              mask=causal_mask(3)).round(3).tolist()[1]
[0.5, 0.5, 0.0]
"""

from __future__ import annotations

from alice_lab._compat import lazy_getattr
from alice_lab.attention.chunked import chunked_attention
from alice_lab.attention.kv_cache import KVCache, kv_cache_bytes
from alice_lab.attention.masks import (
    apply_mask,
    boolean_causal_mask,
    causal_mask,
    literal_book_causal_attention,
    padding_mask,
)
from alice_lab.attention.multihead import (
    cross_attention,
    merge_heads,
    mha_init,
    mha_param_count,
    multi_head_attention,
    multi_query_attention,
    qkv_projections,
    self_attention,
    split_heads,
)
from alice_lab.attention.positional import (
    add_positional,
    alibi_bias,
    alibi_slopes,
    frequencies,
    linear_scalar_positions,
    one_hot_positions,
    relative_bias_attention,
    rope,
    sinusoidal_positions,
    toeplitz_bias,
)
from alice_lab.attention.scoring import (
    attention_weights,
    dot_scores,
    hard_attention,
    naive_attention,
    parameter_free_attention,
    scaled_dot_product_attention,
    tempered_attention,
)

__all__ = [
    "KVCache",
    "MultiHeadAttention",
    "add_positional",
    "alibi_bias",
    "alibi_slopes",
    "apply_mask",
    "attention_weights",
    "boolean_causal_mask",
    "causal_mask",
    "chunked_attention",
    "cross_attention",
    "dot_scores",
    "frequencies",
    "hard_attention",
    "kv_cache_bytes",
    "linear_scalar_positions",
    "literal_book_causal_attention",
    "merge_heads",
    "mha_init",
    "mha_param_count",
    "multi_head_attention",
    "multi_query_attention",
    "naive_attention",
    "one_hot_positions",
    "padding_mask",
    "parameter_free_attention",
    "qkv_projections",
    "relative_bias_attention",
    "rope",
    "scaled_dot_product_attention",
    "self_attention",
    "sinusoidal_positions",
    "split_heads",
    "tempered_attention",
    "toeplitz_bias",
]

_TORCH = ("MultiHeadAttention",)


__getattr__ = lazy_getattr(__name__, dict.fromkeys(_TORCH, ".torch_modules"))
