r"""A key-value cache for autoregressive decoding.

When a causal model generates token t, only one new row of the attention matrix is
needed: the new query against every key so far. The keys and values of earlier tokens
do not change (causality), so they are stored and each step appends one key and one
value. The cache grows linearly with the sequence (a causal convolution only ever
needs its receptive field).

>>> cache = KVCache()
>>> K, V = cache.append(np.ones((1, 4)), np.ones((1, 3)))
>>> K, V = cache.append(np.zeros((2, 4)), np.zeros((2, 3)))
>>> len(cache), K.shape, V.shape
(3, (3, 4), (3, 3))

Book: §11.2.3 "The KV cache" (lines 5755-5771).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.attention.scoring import scaled_dot_product_attention
from alice_lab.backend import array_namespace, as_float_array

__all__ = ["KVCache", "kv_cache_bytes"]


class KVCache:
    """Keys ``(..., t, d)`` and values ``(..., t, dv)`` appended along the token axis.

    ``append(k_new, v_new)`` takes ``(..., t_new, d)`` and ``(..., t_new, dv)`` and
    returns the whole ``(K, V)`` so far; ``attend(q)`` runs causal attention of new
    queries ``(..., t_q, d)`` (the last t_q tokens) against the cache. ``max_len``
    (optional) raises a ValueError when exceeded.
    """

    def __init__(self, max_len: int | None = None):
        self.max_len = max_len
        self.K: Any = None
        self.V: Any = None

    def __len__(self) -> int:
        return 0 if self.K is None else int(self.K.shape[-2])

    def reset(self) -> None:
        self.K = self.V = None

    def append(self, k_new: Any, v_new: Any) -> tuple[Any, Any]:
        k_new, v_new = as_float_array(k_new, "k_new"), as_float_array(v_new, "v_new")
        if k_new.ndim < 2 or v_new.ndim < 2 or k_new.shape[-2] != v_new.shape[-2]:
            raise ValueError(
                "k_new and v_new must be (..., t_new, d) and (..., t_new, dv) with the "
                f"same t_new; got {tuple(k_new.shape)} and {tuple(v_new.shape)}"
            )
        if self.K is not None and (
            k_new.shape[:-2] != self.K.shape[:-2]
            or k_new.shape[-1] != self.K.shape[-1]
            or v_new.shape[-1] != self.V.shape[-1]
        ):
            raise ValueError(
                f"the cache holds K {tuple(self.K.shape)} and V {tuple(self.V.shape)}; "
                f"new entries must match them except on the token axis; got "
                f"{tuple(k_new.shape)} and {tuple(v_new.shape)}"
            )
        if self.max_len is not None and len(self) + k_new.shape[-2] > self.max_len:
            raise ValueError(
                f"the cache holds at most max_len={self.max_len} tokens; it has "
                f"{len(self)} and {k_new.shape[-2]} more were appended"
            )
        if self.K is None:
            self.K, self.V = k_new, v_new
        else:
            xp = array_namespace(self.K, k_new)
            self.K = xp.concat([self.K, k_new], axis=-2)
            self.V = xp.concat([self.V, v_new], axis=-2)
        return self.K, self.V

    def attend(self, q: Any, *, scale: Any = None) -> Any:
        """Causal attention of the newest ``t_q`` queries against every cached key."""
        if self.K is None:
            raise ValueError("the cache is empty: append keys and values first")
        return scaled_dot_product_attention(q, self.K, self.V, causal=True, scale=scale)

    def nbytes(self) -> int:
        if self.K is None:
            return 0
        item = np.dtype(str(self.K.dtype).replace("torch.", "")).itemsize
        return int(item * (np.prod(self.K.shape) + np.prod(self.V.shape)))


def kv_cache_bytes(
    n: int, layers: int, heads: int, k: int, v: int, dtype: Any = "float32"
) -> int:
    """Bytes of a KV cache: layers · heads · n · (k + v) · itemsize (linear in n)."""
    return int(layers * heads * n * (k + v) * np.dtype(dtype).itemsize)
