r"""The "Design variants" layers (maxout, KAN with a Gaussian basis) and
:func:`sigmoid_staircase`, a one-hidden-layer sigmoid MLP built by hand that
approximates any continuous function of one variable (the universal approximation
theorem, made constructive).

Book: "Design variants" (lines 2602-2630); §5.2, universal approximation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, check_int

__all__ = ["gaussian_basis", "kan_layer", "maxout", "sigmoid_staircase"]


def maxout(X: Any, W: Any, b: Any) -> Any:
    r"""Maxout: each of the c' units outputs the largest of k projections,
    :math:`h_i = \max_j (\mathbf{X}\mathbf{W}_j + \mathbf{b}_j)_i`.

    Parameters
    ----------
    X : (n, c); W : (k, c, c'); b : (k, c').

    Returns
    -------
    (n, c') array; k (c + 1) c' parameters.

    Book: "Design variants" box (line 2622).

    >>> W = np.array([[[1.0]], [[0.0]]])  # k = 2 projections: s and 0
    >>> maxout(np.array([[-2.0]]), W, np.zeros((2, 1))).tolist()  # ReLU(-2)
    [[0.0]]
    """
    xp = array_namespace(X, W, b)
    if (
        X.ndim != 2
        or W.ndim != 3
        or W.shape[1] != X.shape[1]
        or tuple(b.shape)
        != (
            W.shape[0],
            W.shape[2],
        )
    ):
        raise ValueError(
            "expected X (n, c), W (k, c, c') and b (k, c'); got X "
            f"{tuple(X.shape)}, W {tuple(W.shape)}, b {tuple(b.shape)}"
        )
    H = X[None, :, :] @ W + b[:, None, :]  # (1, n, c) @ (k, c, c') -> (k, n, c')
    return xp.max(H, axis=0)


def gaussian_basis(grid: Any, gamma: float) -> Callable[[Any], Any]:
    r"""Basis functions :math:`x \mapsto \exp(-\gamma(x - d_k)^2)` on a grid, as a
    function ``X (n, c) -> (n, c, m)`` for :func:`kan_layer`.

    >>> gaussian_basis(np.array([0.0, 1.0]), 1.0)(np.zeros((1, 1))).round(4).tolist()
    [[[1.0, 0.3679]]]
    """

    def basis(X: Any) -> Any:
        xp = array_namespace(X, grid)
        diff = X[..., None] - grid  # (n, c, m)
        return xp.exp(-gamma * diff * diff)

    return basis


def kan_layer(X: Any, alpha: Any, basis: Callable[[Any], Any]) -> Any:
    r"""A Kolmogorov-Arnold layer: :math:`h_i = \sum_j \phi_{ij}(x_j)`, each
    :math:`\phi_{ij}(x) = \sum_k \alpha_{jik}\,\beta_k(x)` a trainable combination of
    fixed bases (the weight :math:`W_{ij}` becomes a function).

    Parameters
    ----------
    X : (n, c); alpha : (c, c', m); basis : ``X (n, c) -> (n, c, m)``, e.g.
        :func:`gaussian_basis`; ``lambda X: X[..., None]`` (m = 1) gives back the
        bias-free linear layer ``X @ alpha[:, :, 0]``.

    Returns
    -------
    (n, c') array; c c' m parameters.

    Book: "Design variants" box (lines 2622-2626).

    >>> kan_layer(np.ones((1, 2)), np.ones((2, 3, 1)), lambda X: X[..., None]).tolist()
    [[2.0, 2.0, 2.0]]
    """
    xp = array_namespace(X, alpha)
    B = basis(X)
    if (
        X.ndim != 2
        or alpha.ndim != 3
        or alpha.shape[0] != X.shape[1]
        or (B.shape != (X.shape[0], X.shape[1], alpha.shape[2]))
    ):
        raise ValueError(
            "expected X (n, c), alpha (c, c', m) and basis(X) (n, c, m); got X "
            f"{tuple(X.shape)}, alpha {tuple(alpha.shape)}, basis(X) {tuple(B.shape)}"
        )
    n, c = X.shape
    c_prime, m = alpha.shape[1], alpha.shape[2]
    flat = xp.reshape(xp.permute_dims(alpha, (0, 2, 1)), (c * m, c_prime))
    return xp.reshape(B, (n, c * m)) @ flat  # (n, c m) @ (c m, c') -> (n, c')


def sigmoid_staircase(
    g: Callable[[np.ndarray], np.ndarray],
    n_units: int,
    *,
    domain: tuple[float, float] = (0.0, 1.0),
    slope: float | None = None,
) -> list[dict[str, np.ndarray]]:
    r"""A one-hidden-layer sigmoid MLP that approximates ``g`` on ``domain``.

    With the grid :math:`x_0 < \dots < x_N` and the midpoints :math:`t_k`, the
    network is :math:`f(x) = g(x_0) + \sum_{k=1}^N (g(x_k) - g(x_{k-1}))\,
    \sigma(a(x - t_k))`: each unit is a soft step that adds the next increment of g.
    Steeper, more numerous steps make the error as small as we like on the domain
    (the default slope is 10 N / (domain length)); outside it f is flat while g need
    not be.

    Returns
    -------
    params for ``mlp_forward(params, X, phi="sigmoid")`` with X (n, 1): layer 1
    ``W (1, N)``, ``b (N,)``; layer 2 ``W (N, 1)``, ``b (1,)``.

    Book: §5.2.1, universal approximation (lines 2326-2336).

    >>> import numpy as np
    >>> from alice_lab.layers import mlp_forward
    >>> p = sigmoid_staircase(np.sin, 50, domain=(0.0, 3.0))
    >>> f = mlp_forward(p, np.array([[1.0]]), "sigmoid")
    >>> bool(abs(f[0, 0] - np.sin(1.0)) < 0.05)
    True
    """
    N = check_int(n_units, "n_units")
    lo, hi = (float(v) for v in domain)
    if not hi > lo:
        raise ValueError(f"domain must be (lo, hi) with hi > lo; got {domain}")
    a = 10.0 * N / (hi - lo) if slope is None else float(slope)
    x = np.linspace(lo, hi, N + 1)
    gx = np.asarray(g(x), dtype=np.float64)
    if gx.shape != x.shape:
        raise ValueError(f"g must map (N+1,) to (N+1,); got {gx.shape} for {x.shape}")
    t = 0.5 * (x[1:] + x[:-1])
    return [
        {"W": np.full((1, N), a), "b": -a * t},
        {"W": np.diff(gx)[:, None], "b": np.array([gx[0]])},
    ]
