r"""Variable-length batches and embeddings: padding, masks, one-hot, lookup tables.

- :func:`pad_sequences` stacks sequences of different lengths into one
  ``(b, t_max, ...)`` array by appending zeros (book lines 3750-3754, Box 8.1);
- :func:`length_mask` is the book's masking matrix ``M ~ (b, t_max)``, ones on the first
  ``t_i`` entries of row ``i`` (lines 3782-3790); :func:`masked_mean_pool` averages only
  the real positions, so it equals the mean over the unpadded sequence;
- :func:`embedding_lookup` is ``LookUp(x)``: the rows ``E[x_1], ..., E[x_m]`` of an
  embedding matrix ``E ~ (n, e)`` (lines 3854-3862), which equals
  ``one_hot(x, n) @ E`` (:func:`one_hot` is :func:`alice_lab.functional.one_hot`,
  exported here as the same function); :class:`Embedding` adds the backward pass (a
  scatter-add into the rows that were used).

Generic code (NumPy, torch, JAX) uses ``array_namespace``; :func:`pad_sequences` and
:func:`length_mask` build NumPy arrays unless ``like=`` gives an array to follow.

Book: §8.2.1 (variable-length inputs) and §8.2.2 (embeddings).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, check_int, device_of
from alice_lab.functional import one_hot  # chapter 4's, for ids of any shape

__all__ = [
    "Embedding",
    "embedding_lookup",
    "length_mask",
    "masked_mean_pool",
    "nearest_neighbors",
    "one_hot",
    "pad_sequences",
]


def pad_sequences(
    seqs, *, padding_value: float = 0, side: str = "right", max_len: int | None = None
) -> np.ndarray:
    """Stack ``b`` sequences of shapes ``(t_i, ...)`` into ``(b, t_max, ...)``.

    Lists of token ids work too (``(t_i,)``). ``side="right"`` appends the padding (as
    ``torch.nn.utils.rnn.pad_sequence``), ``"left"`` prepends it. ``max_len`` pads to a
    fixed length (at least the longest sequence).

    >>> pad_sequences([[1, 2, 3], [4]]).tolist()
    [[1, 2, 3], [4, 0, 0]]
    """
    if side not in ("right", "left"):
        raise ValueError(f"side must be 'right' or 'left'; got {side!r}")
    arrays = [np.asarray(s) for s in seqs]
    if not arrays:
        raise ValueError("pad_sequences needs at least one sequence; got an empty list")
    lengths = [a.shape[0] if a.ndim else 0 for a in arrays]
    if min(lengths) == 0:
        i = lengths.index(0)
        raise ValueError(
            f"sequences must be non-empty (t_i >= 1); sequence {i} is empty"
        )
    tail = arrays[0].shape[1:]
    for i, a in enumerate(arrays):
        if a.shape[1:] != tail:
            raise ValueError(
                f"all sequences must have shape (t_i, *{tail}); "
                f"sequence {i} has {a.shape}"
            )
    t_max = max(lengths)
    if max_len is not None:
        t_max = check_int(max_len, "max_len", low=max(lengths))
    dtype = np.result_type(*arrays, np.asarray(padding_value))
    out = np.full((len(arrays), t_max, *tail), padding_value, dtype=dtype)
    for i, a in enumerate(arrays):
        if side == "right":
            out[i, : len(a)] = a
        else:
            out[i, t_max - len(a) :] = a
    return out


def length_mask(lengths, t_max: int | None = None, *, like: Any = None) -> Any:
    """The masking matrix ``M ~ (b, t_max)``: ``M[i, j] = 1`` for ``j < lengths[i]``.

    Returns floats (0./1.) in ``like``'s namespace and device (NumPy by default).

    >>> length_mask([3, 1]).tolist()
    [[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]]
    """
    lens = np.asarray(lengths)
    if lens.ndim != 1 or lens.shape[0] == 0:
        raise ValueError(
            f"lengths must be a non-empty 1-D list of ints; got shape {lens.shape}"
        )
    if not np.issubdtype(lens.dtype, np.integer) or (lens < 1).any():
        raise ValueError(f"lengths must be positive ints; got {lens.tolist()}")
    t = (
        int(lens.max())
        if t_max is None
        else check_int(t_max, "t_max", low=int(lens.max()))
    )
    m = (np.arange(t)[None, :] < lens[:, None]).astype(np.float64)
    if like is None:
        return m
    xp = array_namespace(like)
    return xp.asarray(m, dtype=like.dtype, device=device_of(like))


def masked_mean_pool(H: Any, mask: Any) -> Any:
    """Mean over the real positions: ``sum_j M[i,j] H[i,j] / sum_j M[i,j]``.

    H : (b, t, c); mask : (b, t) of 0/1. Returns (b, c).
    """
    xp = array_namespace(H)
    if H.ndim != 3 or mask.ndim != 2 or tuple(mask.shape) != tuple(H.shape[:2]):
        raise ValueError(
            f"expected H (b, t, c) and mask (b, t); got {tuple(H.shape)} and "
            f"{tuple(mask.shape)}"
        )
    m = xp.astype(mask, H.dtype)
    counts = xp.sum(m, axis=1)
    if bool(xp.any(counts <= 0)):
        raise ValueError("every row of the mask needs at least one real position")
    return xp.sum(H * m[:, :, None], axis=1) / counts[:, None]


def _check_ids(ids: Any, n: int, xp) -> Any:
    if not xp.isdtype(ids.dtype, "integral"):
        raise ValueError(f"token ids must be integers; got dtype {ids.dtype}")
    if ids.ndim == 0 or (ids.ndim >= 1 and ids.shape[-1] == 0):
        raise ValueError(
            f"expected a non-empty sequence of ids; got shape {tuple(ids.shape)}"
        )
    if bool(xp.any(ids < 0)) or bool(xp.any(ids >= n)):
        raise ValueError(
            f"token ids must lie in [0, {n}) (the vocabulary); got values from "
            f"{int(xp.min(ids))} to {int(xp.max(ids))}"
        )
    return ids


def embedding_lookup(E: Any, ids: Any) -> Any:
    r"""``LookUp(x)``: the rows of ``E ~ (n, e)`` picked by ``ids ~ (..., m)``, giving
    ``(..., m, e)``; the same as ``one_hot(ids, n) @ E`` without building the one-hot.

    Book: §8.2.2, lines 3854-3862.

    >>> embedding_lookup(np.eye(3), np.array([2, 2])).tolist()
    [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]
    """
    xp = array_namespace(E)
    if E.ndim != 2:
        raise ValueError(f"E must have shape (n, e); got {tuple(E.shape)}")
    if isinstance(ids, list | tuple) or not hasattr(ids, "dtype"):
        ids = xp.asarray(np.asarray(ids), device=device_of(E))
    _check_ids(ids, E.shape[0], xp)
    flat = xp.reshape(ids, (-1,))
    rows = xp.take(E, flat, axis=0)
    return xp.reshape(rows, (*ids.shape, E.shape[1]))


class Embedding:
    """A trainable lookup table in NumPy, forward and backward.

    ``emb(ids)`` gives ``E[ids]``; ``emb.backward(ids, grad_out)`` gives ``∂L/∂E``, zero
    except on the rows used, where the upstream gradients add up (a repeated id
    receives the sum), like ``torch.nn.Embedding``'s ``weight.grad``.
    """

    def __init__(self, n: int, e: int, *, rng: np.random.Generator | None = None):
        n, e = check_int(n, "n"), check_int(e, "e")
        rng = np.random.default_rng(0) if rng is None else rng
        self.E = rng.standard_normal((n, e))  # as torch.nn.Embedding: N(0, 1)

    def __call__(self, ids) -> np.ndarray:
        return embedding_lookup(self.E, np.asarray(ids))

    def backward(self, ids, grad_out) -> np.ndarray:
        ids, g = np.asarray(ids), np.asarray(grad_out, dtype=self.E.dtype)
        _check_ids(ids, self.E.shape[0], np)
        if g.shape != (*ids.shape, self.E.shape[1]):
            raise ValueError(
                f"grad_out must have shape {(*ids.shape, self.E.shape[1])}; "
                f"got {g.shape}"
            )
        dE = np.zeros_like(self.E)
        np.add.at(dE, ids.reshape(-1), g.reshape(-1, self.E.shape[1]))
        return dE


def nearest_neighbors(
    E: Any, query: Any, k: int = 5, *, metric: str = "cosine"
) -> np.ndarray:
    """Indices of the ``k`` rows of ``E ~ (n, e)`` closest to ``query ~ (e,)``, nearest
    first (cosine similarity or Euclidean distance; ties by index)."""
    E, q = np.asarray(E, dtype=float), np.asarray(query, dtype=float)
    if E.ndim != 2 or q.shape != (E.shape[1],):
        raise ValueError(
            f"expected E (n, e) and query (e,); got {E.shape} and {q.shape}"
        )
    k = check_int(k, "k")
    if metric == "cosine":
        score = -(E @ q) / (np.linalg.norm(E, axis=1) * np.linalg.norm(q) + 1e-12)
    elif metric == "euclidean":
        score = np.linalg.norm(E - q, axis=1)
    else:
        raise ValueError(f"metric must be 'cosine' or 'euclidean'; got {metric!r}")
    return np.argsort(score, kind="stable")[:k]
