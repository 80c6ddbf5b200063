r"""Layers and models as objects with the signature of a layer: :func:`compose`,
:class:`FullyConnected`, :class:`Sequential` (a model is a layer and nests in a
bigger one), and :func:`collapse_linear`, the single linear map a chain without
non-linearities collapses into.

Book: §5.2 (lines 2216-2314).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from alice_lab.layers.initialisation import fc_init, params_to
from alice_lab.layers.mlp import _check_params, fully_connected

__all__ = ["FullyConnected", "Sequential", "collapse_linear", "compose"]


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

    >>> import numpy as np
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

    >>> import numpy as np
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
