r"""The PyTorch counterparts: ``FullyConnectedLayer`` (the ``nn.Module`` of Box 5.1,
loaded when first asked for), and :func:`to_torch` / :func:`from_torch`, the same MLP
as a ``torch.nn.Sequential`` of ``nn.Linear`` and back.

Book: §5.2.1, Box 5.1 (lines 2316-2340).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from alice_lab import activations
from alice_lab._compat import lazy_getattr
from alice_lab.backend import to_numpy
from alice_lab.layers.initialisation import fc_init

__all__ = ["from_torch", "to_torch"]


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
