r"""The fully-connected layer :math:`\phi(\mathbf{X}\mathbf{W}+\mathbf{b})` and the MLP
(eq. E.5.6) as functions of plain parameters, with back-propagation written out by
hand (:func:`mlp_value_and_grad`, derived in chapter 6).

Book: §5.2 (lines 2216-2314), §5.2.1 (lines 2316-2340).
"""

from __future__ import annotations

from typing import Any

from alice_lab import activations
from alice_lab.backend import array_namespace, device_of

__all__ = ["fully_connected", "mlp_forward", "mlp_value_and_grad"]


def fully_connected(X: Any, W: Any, b: Any, phi: Any = "relu") -> Any:
    r"""The FC layer :math:`\phi(\mathbf{X}\mathbf{W} + \mathbf{b})`.

    Parameters
    ----------
    X : (n, c) array (or (..., c)); W : (c, c'); b : (c',).
    phi : an activation name of :mod:`alice_lab.activations`, a callable, or
        ``"identity"``/``None`` for a linear layer.

    Returns
    -------
    (n, c') array.

    Book: §5.2, eq. E.5.7 (lines 2262-2268).

    >>> import numpy as np
    >>> fully_connected(np.ones((2, 3)), -np.ones((3, 1)), np.array([1.0])).tolist()
    [[0.0], [0.0]]
    """
    array_namespace(X, W, b)  # one array library for all three
    if (
        X.ndim < 1
        or W.ndim != 2
        or b.ndim != 1
        or X.shape[-1] != W.shape[0]
        or (b.shape[0] != W.shape[1])
    ):
        raise ValueError(
            "expected X (n, c), W (c, c') and b (c',); got X "
            f"{tuple(X.shape)}, W {tuple(W.shape)}, b {tuple(b.shape)}"
        )
    return activations.get(phi)(X @ W + b)  # (n, c) @ (c, c') + (c',) -> (n, c')


def _check_params(params: Any, c: int) -> None:
    if not isinstance(params, (list, tuple)) or not params:
        raise ValueError(
            "params must be a non-empty list of {'W': (c, c'), 'b': (c',)} dicts; "
            f"got {type(params).__name__}"
        )
    width = c
    for k, layer in enumerate(params):
        W, b = layer["W"], layer["b"]
        if W.ndim != 2 or W.shape[0] != width or b.shape != (W.shape[1],):
            raise ValueError(
                f"layer {k}: expected W ({width}, c') and b (c',); got W "
                f"{tuple(W.shape)}, b {tuple(b.shape)}"
            )
        width = W.shape[1]


def mlp_forward(params: Any, X: Any, phi: Any = "relu", output: Any = None) -> Any:
    r"""The MLP of eq. E.5.6 on a batch: φ after every layer but the last, whose
    activation is ``output`` (``None``: linear, e.g. the logits of a classifier).

    Parameters
    ----------
    params : list of ``{"W": (c_{k-1}, c_k), "b": (c_k,)}``, arrays of X's library.
    X : (n, c) array.

    Returns
    -------
    (n, c_out) array.

    Book: §5.2, eqs. E.5.3-E.5.6 (lines 2238-2254).

    >>> import numpy as np
    >>> p = [{"W": np.eye(2), "b": np.zeros(2)},
    ...      {"W": np.ones((2, 1)), "b": np.zeros(1)}]
    >>> mlp_forward(p, np.array([[1.0, -1.0]])).tolist()
    [[1.0]]
    """
    if getattr(X, "ndim", None) != 2:
        raise ValueError(
            f"X must have shape (n, c); got {tuple(getattr(X, 'shape', ()))}"
        )
    _check_params(params, X.shape[1])
    H = X
    for k, layer in enumerate(params):
        last = k == len(params) - 1
        H = fully_connected(H, layer["W"], layer["b"], output if last else phi)
    return H


def _loss_and_seed(out: Any, y: Any, loss: str, xp: Any) -> tuple[Any, Any]:
    """The loss on the network's output and its gradient with respect to that output."""
    n = out.shape[0]
    if loss == "cross_entropy":
        from alice_lab.functional import softmax
        from alice_lab.losses import cross_entropy

        value = cross_entropy(out, y)
        classes = xp.arange(out.shape[1], device=device_of(out))
        onehot = xp.astype(y[:, None] == classes[None, :], out.dtype)  # (n, m)
        return value, (softmax(out, axis=-1) - onehot) / n
    if loss == "mse":
        target = xp.reshape(y, out.shape) if y.ndim == 1 and out.shape[1] == 1 else y
        if tuple(target.shape) != tuple(out.shape):
            raise ValueError(
                f"mse needs y of shape (n,) for one output or {tuple(out.shape)}; "
                f"got {tuple(y.shape)}"
            )
        err = out - target
        m = out.shape[0] * out.shape[1]
        return xp.sum(err * err) / m, 2.0 * err / m
    raise ValueError(f"loss must be 'cross_entropy' or 'mse'; got {loss!r}")


def mlp_value_and_grad(
    params: Any, X: Any, y: Any, *, phi: str = "relu", loss: str = "cross_entropy"
) -> tuple[Any, list[dict[str, Any]]]:
    r"""The loss of :func:`mlp_forward` on ``(X, y)`` and its gradient with respect to
    every parameter, by back-propagation written out by hand.

    Forward, keeping the pre-activations :math:`\mathbf{H}_k = \mathbf{A}_{k-1}
    \mathbf{W}_k + \mathbf{b}_k` and :math:`\mathbf{A}_k = \phi(\mathbf{H}_k)`; then
    backward from :math:`\partial L/\partial\mathbf{H}_l`:
    :math:`\partial\mathbf{W}_k = \mathbf{A}_{k-1}^\top\partial\mathbf{H}_k`,
    :math:`\partial\mathbf{b}_k = \mathbf{1}^\top\partial\mathbf{H}_k`,
    :math:`\partial\mathbf{H}_{k-1} = (\partial\mathbf{H}_k\mathbf{W}_k^\top)\odot
    \phi'(\mathbf{H}_{k-1})`.

    Parameters
    ----------
    params : list of ``{"W", "b"}`` dicts; X : (n, c).
    y : (n,) integer labels for ``loss="cross_entropy"`` (mean over the batch), or
        float targets (n,) / (n, c_out) for ``loss="mse"`` (mean over every entry).
    phi : the hidden activation, a name from :data:`alice_lab.activations.ACTIVATIONS`.

    Returns
    -------
    ``(loss, grads)`` with ``grads`` shaped like ``params``.

    Book: §5.2.1, the training objective (line 2320); chapter 6 derives the rules.

    >>> import numpy as np
    >>> from alice_lab.layers import mlp_init
    >>> p = mlp_init([2, 3, 2], seed=0)
    >>> value, g = mlp_value_and_grad(p, np.ones((4, 2)), np.array([0, 1, 0, 1]))
    >>> [gk["W"].shape for gk in g]
    [(2, 3), (3, 2)]
    """
    xp = array_namespace(X)
    if isinstance(phi, str) or phi is None:
        act, act_grad = activations.get(phi), activations.get_grad(phi or "identity")
    else:
        raise ValueError(f"phi must be an activation name; got {phi!r}")
    if getattr(X, "ndim", None) != 2:
        raise ValueError(
            f"X must have shape (n, c); got {tuple(getattr(X, 'shape', ()))}"
        )
    _check_params(params, X.shape[1])
    if getattr(y, "shape", (None,))[0] != X.shape[0]:
        raise ValueError(
            f"y must have {X.shape[0]} rows to match X {tuple(X.shape)}; "
            f"got {tuple(getattr(y, 'shape', ()))}"
        )
    inputs, pre = [], []
    A = X
    for k, layer in enumerate(params):
        inputs.append(A)
        H = A @ layer["W"] + layer["b"]  # (n, c_{k-1}) @ (c_{k-1}, c_k) -> (n, c_k)
        pre.append(H)
        A = H if k == len(params) - 1 else act(H)
    value, dH = _loss_and_seed(A, y, loss, xp)
    grads: list[dict[str, Any]] = [{} for _ in params]
    for k in range(len(params) - 1, -1, -1):
        grads[k] = {"W": inputs[k].T @ dH, "b": xp.sum(dH, axis=0)}
        if k > 0:
            dH = (dH @ params[k]["W"].T) * act_grad(pre[k - 1])  # (n, c_{k-1})
    return value, grads
