"""Shared pieces of the Chapter 8 claim modules: the book's 1-D / 3-D convolution in
index form (E.8.3, with the corrected offset) and torch conv wrappers in the book's
channels-last layout."""

from __future__ import annotations

import numpy as np


def conv1d_index_form(X: np.ndarray, W3: np.ndarray, offset) -> np.ndarray:
    """E.8.3 with 1-based indices: ``H[i, z] = Σ_{i'=1}^{s} Σ_d W3[i', z, d] X[i' +
    offset(i, k), d]`` (zero outside ``1..t``). X (t, c), W3 (s, c', c) -> (t, c')."""
    t, c = X.shape
    s, c_out, _ = W3.shape
    k = (s - 1) // 2
    H = np.zeros((t, c_out))
    for i in range(1, t + 1):
        for ip in range(1, s + 1):
            j = ip + offset(i, k)
            if 1 <= j <= t:
                H[i - 1] += W3[ip - 1] @ X[j - 1]
    return H


def torch_conv1d(X, W3, b=None, *, padding="same", dilation=1, left=0):
    """torch.nn.functional.conv1d on channels-last data: X (t, c), W3 (s, c', c)."""
    import torch
    import torch.nn.functional as F

    x = torch.as_tensor(np.asarray(X, dtype=np.float64).T[None])  # (1, c, t)
    w = torch.as_tensor(np.asarray(W3, dtype=np.float64).transpose(1, 2, 0))
    bb = None if b is None else torch.as_tensor(np.asarray(b, dtype=np.float64))
    if left:
        x = F.pad(x, (left, 0))
    y = F.conv1d(x, w, bb, padding=padding, dilation=dilation)
    return y[0].numpy().T  # (t', c')


def tree_log_probs(prefix):
    """The counterexample tree of C8-47: p(A)=0.6, p(B)=0.4 (C has ~0), then
    p(·|A) = (0.34, 0.33, 0.33), p(·|B) = (0.9, 0.05, 0.05)."""
    if len(prefix) == 0:
        return np.log([0.6, 0.4, 1e-12])
    rows = {0: [0.34, 0.33, 0.33], 1: [0.9, 0.05, 0.05], 2: [1 / 3, 1 / 3, 1 / 3]}
    return np.log(rows[prefix[0]])


def table_model(V: int, order: int, seed: int):
    """A random autoregressive model whose logits depend on the last ``order`` tokens;
    returns ``next_log_probs`` and the table (filled lazily, seeded)."""
    from scipy.special import log_softmax

    rng = np.random.default_rng(seed)
    table: dict = {}

    def next_log_probs(prefix):
        key = tuple(prefix[-order:]) if order else ()
        if key not in table:
            table[key] = rng.standard_normal(V) * 1.5
        return log_softmax(table[key])

    return next_log_probs
