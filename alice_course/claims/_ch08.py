"""Shared pieces of the Chapter 8 claim modules: the book's 1-D / 3-D convolution in
index form (E.8.3, with the corrected offset), torch conv wrappers in the book's
channels-last layout, the matrix of a linear sequence map, and the measured receptive
field of a stack of alice_lab convolutions."""

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


def linear_map_matrix(f, t: int, c: int) -> np.ndarray:
    """The ``(t·c', t·c)`` matrix of a linear map ``f: (t, c) -> (t, c')``, one column
    per basis input: entry ``[i·c' + z, j·c + d]`` is ``∂ f(X)[i, z] / ∂ X[j, d]``."""
    basis = np.eye(t * c)
    cols = [
        np.asarray(f(basis[j].reshape(t, c)), dtype=float).reshape(-1)
        for j in range(t * c)
    ]
    return np.stack(cols, axis=1)


def conv_stack_support(
    kernel: int, dilations, *, causal: bool, t: int = 200
) -> tuple[int, int, int]:
    """Measured receptive field of one output of a stack of single-channel alice_lab
    convolutions (``causal_conv1d``, or ``conv1d`` with 'same' padding), run on torch
    tensors: the support of the gradient of that output with respect to the input,
    taken by torch.autograd (positive weights, so nothing cancels). The stack's values
    are checked against torch's ``F.conv1d`` (after ``F.pad`` on the left if causal).
    Returns ``(first, last, position)``: the support's ends and the output's index."""
    import torch
    import torch.nn.functional as F

    from alice_lab.conv import causal_conv1d, conv1d

    torch.manual_seed(0)
    x = torch.randn(1, t, 1, dtype=torch.float64, requires_grad=True)  # (b, t, c)
    h, ref = x, x.detach().transpose(1, 2)  # ref: torch's (b, c, t)
    for d in dilations:
        w = torch.rand(kernel, 1, 1, dtype=torch.float64) + 0.1  # (s, c, c')
        wt = w.permute(2, 1, 0)  # torch's (c', c, s)
        if causal:
            h = causal_conv1d(h, w, dilation=d)
            ref = F.conv1d(F.pad(ref, ((kernel - 1) * d, 0)), wt, dilation=d)
        else:
            h = conv1d(h, w, dilation=d, padding=d * (kernel - 1) // 2)
            ref = F.conv1d(ref, wt, dilation=d, padding=d * (kernel - 1) // 2)
        assert h.shape == ref.transpose(1, 2).shape, (h.shape, ref.shape)
        err = float((h.detach() - ref.transpose(1, 2)).abs().max())
        assert err < 1e-9, err
    i = 3 * t // 4 if causal else t // 2
    (g,) = torch.autograd.grad(h[0, i, 0], x)
    nz = np.flatnonzero(g[0, :, 0].numpy())
    return int(nz.min()), int(nz.max()), i


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
