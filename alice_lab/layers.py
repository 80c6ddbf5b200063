r"""Fully-connected layers and multi-layer perceptrons, for any array backend.

A fully-connected (FC) layer maps a batch :math:`\mathbf{X} \sim (n, c)` to
:math:`\phi(\mathbf{X}\mathbf{W} + \mathbf{b}) \sim (n, c')` with
:math:`\mathbf{W} \sim (c, c')` and :math:`\mathbf{b} \sim (c')`: :math:`(c+1)c'`
parameters (book eq. E.5.7). An MLP chains them, with the non-linearity φ on every
hidden layer and none on the output (eq. E.5.6); without φ the chain collapses into one
linear map (:func:`collapse_linear`).

Parameters are plain data: a layer is a dict ``{"W": (c, c'), "b": (c',)}`` and an MLP a
list of them, so that the same :func:`mlp_forward` is a NumPy function, a torch
function (autograd flows through it) and a pure JAX function (``jax.grad`` and
``jax.jit`` take it as is). :func:`mlp_value_and_grad` is back-propagation written out
by hand (chapter 6 derives it), which is what trains an MLP in plain NumPy.
Initial weights are drawn on the host from a seeded NumPy generator (:func:`fc_init`),
so every backend starts from the same numbers.

Around them: :class:`FullyConnected` and :class:`Sequential`, small objects with the
signature of a layer (a model is a layer, and nests in a bigger one);
``FullyConnectedLayer``, the ``torch.nn.Module`` of Box 5.1, and :func:`to_torch`, the
same MLP as a ``torch.nn.Sequential`` of ``nn.Linear``; the "Design variants" layers
:func:`maxout` and :func:`kan_layer`; and :func:`sigmoid_staircase`, a one-hidden-layer
sigmoid MLP built by hand that approximates any continuous function of one variable
(the universal approximation theorem, made constructive).

Book: §5.2 (lines 2216-2314), §5.2.1 (lines 2316-2340), "Design variants"
(lines 2602-2630).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from alice_lab import activations
from alice_lab._compat import lazy_getattr
from alice_lab.backend import array_namespace, check_int, device_of, to_numpy

__all__ = [
    "INIT_SCHEMES",
    "FullyConnected",
    "Sequential",
    "collapse_linear",
    "compose",
    "fc_init",
    "fc_param_count",
    "from_torch",
    "fully_connected",
    "gaussian_basis",
    "kan_layer",
    "maxout",
    "mlp_forward",
    "mlp_init",
    "mlp_param_count",
    "mlp_value_and_grad",
    "params_to",
    "sigmoid_staircase",
    "to_torch",
]

#: weight variance of each scheme as a function of (fan_in, fan_out); the book's Box 5.1
#: draws W and b from a standard normal ("normal"), which makes the pre-activation
#: variance grow like c; the others keep it O(1) (LeCun: 1/c; Glorot/Xavier: 2/(c+c');
#: He/Kaiming, for ReLU: 2/c).
INIT_SCHEMES: dict[str, Callable[[int, int], float]] = {
    "normal": lambda c, c_prime: 1.0,
    "lecun": lambda c, c_prime: 1.0 / c,
    "glorot": lambda c, c_prime: 2.0 / (c + c_prime),
    "he": lambda c, c_prime: 2.0 / c,
}


# --- initialisation -------------------------------------------------------------------


def fc_init(
    c: int,
    c_prime: int,
    *,
    seed: int | np.random.Generator,
    scheme: str = "he",
    distribution: str = "normal",
    dtype: str = "float64",
) -> dict[str, np.ndarray]:
    r"""Initial parameters of an FC layer, drawn on the host from a seeded generator.

    ``W`` has variance ``INIT_SCHEMES[scheme](c, c')``, from a zero-mean normal or a
    uniform on :math:`[-\sqrt{3v}, \sqrt{3v}]` (same variance). ``b`` is 0, except in
    the book's ``"normal"`` scheme (Box 5.1), which draws it from N(0, 1) too.

    Parameters
    ----------
    c, c_prime : int, the input and output widths.
    seed : int or a NumPy ``Generator`` (pass one generator to draw several layers).
    scheme : ``"normal"``, ``"lecun"``, ``"glorot"`` or ``"he"``.
    distribution : ``"normal"`` or ``"uniform"``.

    Returns
    -------
    ``{"W": (c, c') array, "b": (c',) array}`` (NumPy; move it with :func:`params_to`).

    Book: §5.2, eq. E.5.7 and Box 5.1 (lines 2262-2296).

    >>> {k: v.shape for k, v in fc_init(3, 5, seed=0).items()}
    {'W': (3, 5), 'b': (5,)}
    """
    c, c_prime = check_int(c, "c"), check_int(c_prime, "c_prime")
    if scheme not in INIT_SCHEMES:
        raise ValueError(
            f"unknown scheme {scheme!r}; expected one of {list(INIT_SCHEMES)}"
        )
    if distribution not in ("normal", "uniform"):
        raise ValueError(
            f"distribution must be 'normal' or 'uniform'; got {distribution!r}"
        )
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    std = math.sqrt(INIT_SCHEMES[scheme](c, c_prime))
    if distribution == "normal":
        W = std * rng.standard_normal((c, c_prime))
    else:
        W = rng.uniform(-math.sqrt(3.0) * std, math.sqrt(3.0) * std, (c, c_prime))
    b = rng.standard_normal(c_prime) if scheme == "normal" else np.zeros(c_prime)
    return {"W": W.astype(dtype), "b": b.astype(dtype)}


def mlp_init(
    sizes: Sequence[int], *, seed: int, scheme: str = "he", **kwargs: Any
) -> list[dict[str, np.ndarray]]:
    """Parameters of an MLP with widths ``sizes = [c, h_1, ..., h_{l-1}, c_out]``: one
    :func:`fc_init` dict per layer, all drawn from one generator seeded with ``seed``.

    >>> [p["W"].shape for p in mlp_init([64, 32, 10], seed=0)]
    [(64, 32), (32, 10)]
    """
    sizes = [check_int(s, "every width in sizes") for s in sizes]
    if len(sizes) < 2:
        raise ValueError(f"sizes needs an input and an output width; got {sizes}")
    rng = np.random.default_rng(seed)
    return [
        fc_init(a, b, seed=rng, scheme=scheme, **kwargs)
        for a, b in zip(sizes[:-1], sizes[1:], strict=True)
    ]


def fc_param_count(c: int, c_prime: int) -> int:
    """(c + 1) c': the weights and the biases of one FC layer (book line 2268).

    >>> fc_param_count(3, 5), fc_param_count(5, 4)
    (20, 24)
    """
    return (check_int(c, "c") + 1) * check_int(c_prime, "c_prime")


def mlp_param_count(sizes: Sequence[int]) -> int:
    """The total number of parameters of an MLP with widths ``sizes``.

    >>> mlp_param_count([3, 5, 4])
    44
    """
    return sum(fc_param_count(a, b) for a, b in zip(sizes[:-1], sizes[1:], strict=True))


def params_to(params: Any, backend: str, *, device: Any = None) -> Any:
    """The same parameters (a dict, a list of dicts, ...) as ``backend`` arrays
    (``"numpy"``, ``"torch"`` or ``"jax"``), via :func:`alice_lab.backend.to_backend`.

    >>> params_to([{"W": np.ones((1, 1)), "b": np.zeros(1)}], "numpy")[0]["W"].shape
    (1, 1)
    """
    from alice_lab.backend import to_backend
    from alice_lab.optim import tree_map

    return tree_map(lambda a: to_backend(a, backend, device=device), params)


# --- the fully-connected layer and the MLP --------------------------------------------


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

    >>> p = mlp_init([2, 3, 2], seed=0)
    >>> value, g = mlp_value_and_grad(p, np.ones((4, 2)), np.array([0, 1, 0, 1]))
    >>> [gk["W"].shape for gk in g]
    [(2, 3), (3, 2)]
    """
    xp = array_namespace(X)
    if isinstance(phi, str) or phi is None:
        act, act_grad = activations.get(phi), activations.derivative(phi or "identity")
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


# --- layers and models as objects -----------------------------------------------------


def compose(*fs: Callable) -> Callable:
    r"""The composition :math:`f_l\circ\cdots\circ f_2\circ f_1`, written in the
    book's order: ``compose(f2, f1)(x) == f2(f1(x))``.

    Book: §5.2 (lines 2218-2226).

    >>> compose(lambda x: x + 1, lambda x: 2 * x)(3)
    7
    """
    if not fs or not all(callable(f) for f in fs):
        raise ValueError("compose needs at least one callable")

    def composed(x: Any) -> Any:
        for f in reversed(fs):
            x = f(x)
        return x

    return composed


class FullyConnected:
    """An FC layer as an object: its parameters (NumPy, or moved with ``.to``) and a
    call, ``layer(X) = φ(X W + b)``.

    >>> FullyConnected(3, 5, seed=0).n_params
    20
    """

    def __init__(self, c: int, c_prime: int, phi: Any = "relu", *, seed: int = 0,
                 scheme: str = "he"):  # fmt: skip
        self.params = fc_init(c, c_prime, seed=seed, scheme=scheme)
        self.phi = phi

    def __call__(self, X: Any) -> Any:
        return fully_connected(X, self.params["W"], self.params["b"], self.phi)

    def parameters(self) -> list[Any]:
        return [self.params["W"], self.params["b"]]

    def to(self, backend: str, device: Any = None) -> FullyConnected:
        self.params = params_to(self.params, backend, device=device)
        return self

    @property
    def n_params(self) -> int:
        return sum(math.prod(p.shape) for p in self.parameters())

    def __repr__(self) -> str:
        c, c_prime = self.params["W"].shape
        return f"FullyConnected({c}, {c_prime}, phi={self.phi!r})"


class Sequential:
    """Layers applied in order, ``Sequential(f1, f2)(X) == f2(f1(X))``. A Sequential
    is itself a layer: it nests in a bigger one, and :meth:`parameters` collects the
    parameters of every layer below it.

    Book: §5.2, the ``Sequential`` snippet and the remark after it (lines 2298-2314).

    >>> model = Sequential(FullyConnected(3, 5), FullyConnected(5, 4))
    >>> model(np.ones((2, 3))).shape, model.n_params
    ((2, 4), 44)
    """

    def __init__(self, *layers: Callable):
        if not layers or not all(callable(f) for f in layers):
            raise ValueError("Sequential needs at least one callable layer")
        self.layers = list(layers)

    def __call__(self, X: Any) -> Any:
        for layer in self.layers:
            X = layer(X)
        return X

    def parameters(self) -> list[Any]:
        return [
            p for f in self.layers if hasattr(f, "parameters") for p in f.parameters()
        ]

    def to(self, backend: str, device: Any = None) -> Sequential:
        for f in self.layers:
            if hasattr(f, "to"):
                f.to(backend, device)
        return self

    @property
    def n_params(self) -> int:
        return sum(math.prod(p.shape) for p in self.parameters())

    def __len__(self) -> int:
        return len(self.layers)

    def __getitem__(self, i: int) -> Callable:
        return self.layers[i]


def collapse_linear(params: Any) -> dict[str, Any]:
    r"""The single linear layer equal to a chain of linear layers (no φ):
    :math:`\mathbf{W} = \mathbf{W}_1\mathbf{W}_2\cdots\mathbf{W}_l` and
    :math:`\mathbf{b} = (\cdots(\mathbf{b}_1\mathbf{W}_2 + \mathbf{b}_2)\cdots)
    \mathbf{W}_l + \mathbf{b}_l`, so that ``mlp_forward(params, X, phi=None)`` equals
    ``X @ W + b``. In the book's column form (E.5.1-E.5.2):
    :math:`\mathbf{A} = \mathbf{w}_2^\top\mathbf{W}_1`,
    :math:`\mathbf{c} = \mathbf{w}_2^\top\mathbf{b}_1 + b_2`.

    Book: §5.2, the collapse of two projections (lines 2228-2236).

    >>> p = [{"W": 2 * np.eye(2), "b": np.ones(2)},
    ...      {"W": np.ones((2, 1)), "b": np.ones(1)}]
    >>> {k: v.ravel().tolist() for k, v in collapse_linear(p).items()}
    {'W': [2.0, 2.0], 'b': [3.0]}
    """
    _check_params(params, params[0]["W"].shape[0] if params else 0)
    W, b = params[0]["W"], params[0]["b"]
    for layer in params[1:]:
        W, b = W @ layer["W"], b @ layer["W"] + layer["b"]
    return {"W": W, "b": b}


# --- design variants: maxout and KAN --------------------------------------------------


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


# --- universal approximation, by construction -----------------------------------------


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


# --- PyTorch counterparts -------------------------------------------------------------


def to_torch(params: Any, phi: str = "relu", *, dtype: Any = None, device: Any = None):
    """The same MLP as a ``torch.nn.Sequential`` of ``nn.Linear`` layers (with
    ``nn.ReLU``, ``nn.Sigmoid``, ... in between), holding copies of ``params``.

    ``nn.Linear`` computes ``X @ weight.T + bias`` with ``weight (c', c)``: it stores
    the transpose of the book's W.
    """
    import torch
    from torch import nn

    modules = {"relu": nn.ReLU, "sigmoid": nn.Sigmoid, "tanh": nn.Tanh,
               "gelu": nn.GELU, "silu": nn.SiLU, "elu": nn.ELU,
               "softplus": lambda: nn.Softplus(threshold=1e6)}  # fmt: skip
    if phi not in modules:
        raise ValueError(f"phi must be one of {sorted(modules)}; got {phi!r}")
    dtype = dtype or torch.float64
    layers = []
    for k, p in enumerate(params):
        W = torch.as_tensor(to_numpy(p["W"]), dtype=dtype)
        lin = nn.Linear(W.shape[0], W.shape[1], dtype=dtype)
        with torch.no_grad():
            lin.weight.copy_(W.T)
            lin.bias.copy_(torch.as_tensor(to_numpy(p["b"]), dtype=dtype))
        layers.append(lin)
        if k < len(params) - 1:
            layers.append(modules[phi]())
    return (
        nn.Sequential(*layers).to(device)
        if device is not None
        else nn.Sequential(*layers)
    )


def from_torch(model: Any) -> list[dict[str, np.ndarray]]:
    """The ``{"W", "b"}`` list (NumPy) of the ``nn.Linear`` layers of ``model``, in
    order, with W transposed back to the book's (c, c')."""
    from torch import nn

    return [
        {"W": to_numpy(m.weight).T.copy(), "b": to_numpy(m.bias).copy()}
        for m in model.modules()
        if isinstance(m, nn.Linear)
    ]


@functools.cache
def _torch_classes() -> dict[str, type]:
    import torch
    from torch import nn

    class FullyConnectedLayer(nn.Module):
        """Box 5.1: W (c, c') and b (1, c') as parameters, forward ``φ(x @ W + b)``.

        The book draws both from ``torch.randn`` (``scheme="normal"``); here they come
        from :func:`fc_init` with a seed, so the layer equals :class:`FullyConnected`
        with the same seed and scheme.
        """

        def __init__(self, c: int, cprime: int, phi: str = "relu", *, seed: int = 0,
                     scheme: str = "normal"):  # fmt: skip
            super().__init__()
            p = fc_init(c, cprime, seed=seed, scheme=scheme)
            dtype = torch.get_default_dtype()
            self.W = nn.Parameter(torch.as_tensor(p["W"], dtype=dtype))
            self.b = nn.Parameter(torch.as_tensor(p["b"][None, :], dtype=dtype))
            self.phi = phi

        def forward(self, x):
            return activations.get(self.phi)(x @ self.W + self.b)

    return {"FullyConnectedLayer": FullyConnectedLayer}


__getattr__ = lazy_getattr(__name__, {"FullyConnectedLayer": _torch_classes})
