r"""Recurrent cells (vanilla/Elman, Li-GRU, GRU, LSTM) and their unrolling over time.

A recurrent layer (book E.13.10-E.13.11) is a state update and a readout,
:math:`\mathbf{s}_i = f(\mathbf{s}_{i-1}, \mathbf{x}_i)`,
:math:`\mathbf{h}_i = g(\mathbf{s}_i, \mathbf{x}_i)`, with :math:`\mathbf{s}_0 =
\mathbf{0}`.
Cells here take a batch, ``s (b, e)`` and ``x (b, c)`` (or unbatched ``(e,)``,
``(c,)``),
and weights in the book's orientation, which is also PyTorch's: ``A (e, e)`` multiplies
the
state and ``B (e, c)`` the input, so :math:`\mathbf{A}\mathbf{s}` is ``s @ A.T``.

GRU and LSTM parameters use PyTorch's layout and names (``weight_ih`` stacked gates
``[r, z, n]`` for the GRU and ``[i, f, g, o]`` for the LSTM, ``weight_hh``, ``bias_ih``,
``bias_hh``): :func:`params_from_torch` copies them out of ``nn.GRUCell``/``nn.GRU``
etc.
The book only names these two cells (line 6517); the equations are PyTorch's.

Sequences are batch first: ``X (b, n, c)`` (or ``(n, c)``) -> states ``(b, n, e)``.

Book: §13.2 (lines 6383-6517), the code box on lines 6417-6443.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from alice_lab.backend import array_namespace, device_of, to_numpy
from alice_lab.functional import sigmoid

__all__ = [
    "bidirectional",
    "elman_rnn",
    "gru",
    "gru_cell",
    "li_gru_cell",
    "lstm",
    "lstm_cell",
    "params_from_torch",
    "rnn",
    "rnn_cell",
    "unroll",
]


def _act(name: str | Callable, xp: Any) -> Callable:
    if callable(name):
        return name
    if name == "tanh":
        return xp.tanh
    if name == "relu":
        return lambda a: xp.maximum(a, 0.0 * a)
    if name in ("linear", "identity", None):
        return lambda a: a
    raise ValueError(
        f"phi must be 'tanh', 'relu', 'linear' or a callable; got {name!r}"
    )


def _check(s: Any, x: Any, W_s: Any, W_x: Any, gates: int = 1) -> None:
    e = s.shape[-1]
    if W_s.shape != (gates * e, e):
        raise ValueError(
            f"the state weight must have shape ({gates * e}, {e}) for a state of size "
            f"{e}; got {tuple(W_s.shape)}"
        )
    if W_x.shape != (gates * e, x.shape[-1]):
        raise ValueError(
            f"the input weight must have shape ({gates * e}, {x.shape[-1]}) for inputs "
            f"of size {x.shape[-1]}; got {tuple(W_x.shape)}"
        )
    if s.shape[:-1] != x.shape[:-1]:
        raise ValueError(
            f"state and input must share their batch shape; got s {tuple(s.shape)}, "
            f"x {tuple(x.shape)}"
        )


def rnn_cell(
    s: Any, x: Any, A: Any, B: Any, bias: Any = None, *, phi: str | Callable = "tanh"
) -> Any:
    r"""Vanilla (Elman) update E.13.14, :math:`\phi(\mathbf{A}\mathbf{s} +
    \mathbf{B}\mathbf{x}
    + \mathbf{b})`: ``s (..., e)``, ``x (..., c)``, ``A (e, e)``, ``B (e, c)`` -> (...,
    e).

    ``nn.RNNCell`` is this with ``A = weight_hh``, ``B = weight_ih`` and
    ``bias = bias_ih + bias_hh``.

    >>> import numpy as np
    >>> rnn_cell(np.zeros(2), np.ones(1), np.eye(2), np.zeros((2, 1))).tolist()
    [0.0, 0.0]
    """
    xp = array_namespace(s, x)
    _check(s, x, A, B)
    pre = s @ xp.matrix_transpose(A) + x @ xp.matrix_transpose(B)
    if bias is not None:
        pre = pre + bias
    return _act(phi, xp)(pre)


def li_gru_cell(
    s: Any,
    x: Any,
    A: Any,
    B: Any,
    V: Any,
    U: Any,
    *,
    gate_bias: Any = 0.0,
    phi: str | Callable = "tanh",
    return_gate: bool = False,
) -> Any:
    r"""The light GRU of book line 6509:
    :math:`\gamma = \sigma(\mathbf{V}\mathbf{s} + \mathbf{U}\mathbf{x} + b_\gamma)`,
    :math:`f = \gamma\odot\phi(\mathbf{A}\mathbf{s} + \mathbf{B}\mathbf{x}) +
    (1 - \gamma)\odot\mathbf{s}`. γ ≈ 0 keeps the state, γ ≈ 1 is the vanilla cell.

    Book: §13.2.3 (lines 6493-6515).
    """
    xp = array_namespace(s, x)
    _check(s, x, V, U)
    z = s @ xp.matrix_transpose(V) + x @ xp.matrix_transpose(U) + gate_bias
    gamma = sigmoid(z)
    out = gamma * rnn_cell(s, x, A, B, phi=phi) + (1.0 - gamma) * s
    return (out, gamma) if return_gate else out


def _params(p: Mapping[str, Any], gates: int, s: Any, x: Any) -> tuple:
    for key in ("weight_ih", "weight_hh"):
        if key not in p:
            raise ValueError(
                f"params must hold 'weight_ih', 'weight_hh' (and optionally 'bias_ih', "
                f"'bias_hh'); missing {key!r}"
            )
    _check(s, x, p["weight_hh"], p["weight_ih"], gates)
    return p["weight_ih"], p["weight_hh"], p.get("bias_ih"), p.get("bias_hh")


def _affine(xp: Any, x: Any, W: Any, b: Any) -> Any:
    y = x @ xp.matrix_transpose(W)
    return y if b is None else y + b


def gru_cell(s: Any, x: Any, params: Mapping[str, Any]) -> Any:
    r"""PyTorch's GRU update (gates r, z, candidate n):
    :math:`\mathbf{r} = \sigma(W_{ir}x + b_{ir} + W_{hr}s + b_{hr})`, the same for
    :math:`\mathbf{z}`, :math:`\mathbf{n} = \tanh(W_{in}x + b_{in} + \mathbf{r}\odot
    (W_{hn}s + b_{hn}))`, :math:`s' = (1-\mathbf{z})\odot\mathbf{n} + \mathbf{z}\odot
    s`.

    ``params`` as in ``nn.GRUCell`` (weight_ih (3e, c), weight_hh (3e, e), biases
    (3e,)).
    Book: line 6517 (the GRU is only named).
    """
    xp = array_namespace(s, x)
    W_ih, W_hh, b_ih, b_hh = _params(params, 3, s, x)
    e = s.shape[-1]
    gi, gh = _affine(xp, x, W_ih, b_ih), _affine(xp, s, W_hh, b_hh)
    r = sigmoid(gi[..., :e] + gh[..., :e])
    z = sigmoid(gi[..., e : 2 * e] + gh[..., e : 2 * e])
    n = xp.tanh(gi[..., 2 * e :] + r * gh[..., 2 * e :])
    return (1.0 - z) * n + z * s


def lstm_cell(
    state: tuple[Any, Any], x: Any, params: Mapping[str, Any]
) -> tuple[Any, Any]:
    r"""PyTorch's LSTM update, gates ``[i, f, g, o]``: ``(h, c) -> (h', c')`` with
    :math:`c' = f\odot c + i\odot g`, :math:`h' = o\odot\tanh(c')`; the *forget* gate f
    is the book's third gate (line 6517). ``params`` as in ``nn.LSTMCell``.
    """
    h, c = state
    xp = array_namespace(h, x)
    if c.shape != h.shape:
        raise ValueError(
            f"the LSTM state (h, c) needs h and c of one shape; got {tuple(h.shape)} "
            f"and {tuple(c.shape)}"
        )
    W_ih, W_hh, b_ih, b_hh = _params(params, 4, h, x)
    e = h.shape[-1]
    g_all = _affine(xp, x, W_ih, b_ih) + _affine(xp, h, W_hh, b_hh)
    i = sigmoid(g_all[..., :e])
    f = sigmoid(g_all[..., e : 2 * e])
    g = xp.tanh(g_all[..., 2 * e : 3 * e])
    o = sigmoid(g_all[..., 3 * e :])
    c_new = f * c + i * g
    return o * xp.tanh(c_new), c_new


def _seq(X: Any) -> tuple[Any, bool]:
    if X.ndim not in (2, 3):
        raise ValueError(
            f"X must have shape (n, c) or (batch, n, c); got {tuple(X.shape)}"
        )
    if X.shape[-2] == 0:
        raise ValueError("expected a non-empty sequence (n >= 1); got n = 0")
    return (X[None, ...], True) if X.ndim == 2 else (X, False)


def unroll(
    cell: Callable[[Any, Any], Any], X: Any, s0: Any, *, reverse: bool = False
) -> tuple[Any, Any]:
    """Run ``s = cell(s, x_i)`` along a sequence: ``X (b, n, c)`` or ``(n, c)``; returns
    ``(S (b, n, e), s_n)`` where ``S[:, i]`` is the state after token i (for the LSTM
    the state is the pair (h, c), and ``S`` stacks h). ``reverse`` reads right to left
    (outputs are still in the original order).

    Book: E.13.10, the loop of the code box (lines 6417-6443).
    """
    Xb, squeeze = _seq(X)
    xp = array_namespace(Xb)
    n = Xb.shape[1]
    s, outs = s0, [None] * n
    for i in range(n - 1, -1, -1) if reverse else range(n):
        s = cell(s, Xb[:, i, :])
        outs[i] = s[0] if isinstance(s, tuple) else s
    S = xp.stack(outs, axis=1)
    if squeeze:
        S = S[0, ...]
        s = tuple(t[0, ...] for t in s) if isinstance(s, tuple) else s[0, ...]
    return S, s


def _zeros(X: Any, e: int) -> Any:
    Xb, _ = _seq(X)
    xp = array_namespace(Xb)
    return xp.zeros((Xb.shape[0], e), dtype=Xb.dtype, device=device_of(Xb))


def elman_rnn(
    X: Any,
    A: Any,
    B: Any,
    C: Any = None,
    D: Any = None,
    *,
    s0: Any = None,
    bias: Any = None,
    phi: str | Callable = "tanh",
) -> tuple[Any, Any]:
    r"""A full Elman layer E.13.14-E.13.15: ``(H, S)`` with ``S (b, n, e)`` the states
    and
    ``H = S Cᵀ + X Dᵀ`` (b, n, o) (``H = S`` when C and D are None).

    Book: §13.2.2 (lines 6405-6413).
    """
    xp = array_namespace(X)
    s = _zeros(X, A.shape[0]) if s0 is None else s0
    if X.ndim == 2 and s0 is not None and s0.ndim == 1:
        s = s0[None, :]
    S, _ = unroll(lambda s, x: rnn_cell(s, x, A, B, bias, phi=phi), X, s)
    if C is None and D is None:
        return S, S
    H = 0.0
    if C is not None:
        H = S @ xp.matrix_transpose(C)
    if D is not None:
        H = H + X @ xp.matrix_transpose(D)
    return H, S


def rnn(X: Any, params: Mapping[str, Any], s0: Any = None, *, reverse: bool = False):
    """``nn.RNN`` (one layer, tanh, batch first) from torch-layout params: ``(S,
    s_n)``."""
    b = None if params.get("bias_ih") is None else params["bias_ih"] + params["bias_hh"]

    def cell(s, x):
        return rnn_cell(s, x, params["weight_hh"], params["weight_ih"], b)

    e = params["weight_hh"].shape[1]
    return unroll(cell, X, _zeros(X, e) if s0 is None else s0, reverse=reverse)


def gru(X: Any, params: Mapping[str, Any], s0: Any = None, *, reverse: bool = False):
    """``nn.GRU`` (one layer, batch first) from torch-layout params: ``(S, s_n)``."""
    e = params["weight_hh"].shape[1]
    s = _zeros(X, e) if s0 is None else s0
    return unroll(lambda s, x: gru_cell(s, x, params), X, s, reverse=reverse)


def lstm(
    X: Any,
    params: Mapping[str, Any],
    state: tuple | None = None,
    *,
    reverse: bool = False,
):
    """``nn.LSTM`` (one layer, batch first): ``(H (b, n, e), (h_n, c_n))``."""
    e = params["weight_hh"].shape[1]
    if state is None:
        state = (_zeros(X, e), _zeros(X, e))
    return unroll(lambda s, x: lstm_cell(s, x, params), X, state, reverse=reverse)


def bidirectional(layer_fwd: Callable, layer_bwd: Callable, X: Any) -> Any:
    """Two independent layers, one left to right and one right to left (book line
    6401), outputs concatenated on the last axis: ``(b, n, o_f + o_b)``.
    ``layer(X, reverse=...)`` must return ``(H, ...)`` like :func:`rnn`."""
    xp = array_namespace(X)
    H_f = layer_fwd(X, reverse=False)[0]
    H_b = layer_bwd(X, reverse=True)[0]
    return xp.concat([H_f, H_b], axis=-1)


def params_from_torch(module: Any, *, layer: int = 0, suffix: str = "") -> dict:
    """NumPy copies of a torch cell's or layer's weights, keyed ``weight_ih`` etc.

    For ``nn.RNN``/``nn.GRU``/``nn.LSTM`` pick the layer (and ``suffix="_reverse"`` for
    the backward direction of a bidirectional layer).
    """
    out = {}
    for key in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        name = key if hasattr(module, key) else f"{key}_l{layer}{suffix}"
        t = getattr(module, name, None)
        if t is not None:
            out[key] = to_numpy(t).astype("float64")
    if "weight_ih" not in out:
        raise ValueError(f"{type(module).__name__} has no recurrent weights")
    return out
