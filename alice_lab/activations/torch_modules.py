r"""``torch.nn.Module`` versions of the trainable activations: ``PReLU``,
``TrainableSwish``, ``APL``, ``KAF``, ``GLU`` and ``SwiGLU``, each holding the
parameters of the generic function it calls. They are built on first access
(``alice_lab.activations.PReLU``), so that importing the package does not import
torch.

Book: §5.4 (lines 2414-2600); the "Design variants" box (lines 2602-2630).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from alice_lab.activations.expansions import apl, kaf
from alice_lab.activations.gated_units import glu, swiglu
from alice_lab.activations.relu_family import prelu
from alice_lab.activations.self_gated import trainable_swish

#: torch.nn.Module versions, built on first access (``activations.PReLU``)
TORCH_MODULES = ("APL", "GLU", "KAF", "PReLU", "SwiGLU", "TrainableSwish")


@functools.cache
def _torch_classes() -> dict[str, type]:
    import torch
    from torch import nn

    def _param(value: float, n: int) -> nn.Parameter:
        return nn.Parameter(
            torch.full((n,), float(value), dtype=torch.get_default_dtype())
        )

    class PReLU(nn.Module):
        """LeakyReLU with a trainable slope per unit (``num_parameters`` of them, or 1
        shared), applied along the last axis; same numbers as ``torch.nn.PReLU`` on
        (n, c') inputs."""

        def __init__(self, num_parameters: int = 1, init: float = 0.25):
            super().__init__()
            self.alpha = _param(init, num_parameters)

        def forward(self, s):
            return prelu(s, self.alpha)

    class TrainableSwish(nn.Module):
        """:math:`\\sigma(as + b)(cs + d)` with trainable a, b, c, d (shared, or one
        each per unit with ``num_parameters = c'``)."""

        def __init__(self, num_parameters: int = 1, a=1.0, b=0.0, c=1.0, d=0.0):
            super().__init__()
            self.a, self.b = _param(a, num_parameters), _param(b, num_parameters)
            self.c, self.d = _param(c, num_parameters), _param(d, num_parameters)

        def forward(self, s):
            return trainable_swish(s, self.a, self.b, self.c, self.d)

    class _Expansion(nn.Module):
        def __init__(self, centres, num_units: int | None, init):
            super().__init__()
            centres = torch.as_tensor(centres, dtype=torch.get_default_dtype())
            self.register_buffer("centres", centres)
            shape = (
                (centres.shape[0],) if num_units is None else (num_units, len(centres))
            )
            self.alpha = nn.Parameter(torch.as_tensor(init(shape), dtype=centres.dtype))

    class APL(_Expansion):
        """:func:`apl` with trainable coefficients (shared, or per unit), drawn small
        (0.01 · N(0, 1), seeded) so that training starts near the zero function."""

        def __init__(self, hinges, num_units: int | None = None, seed: int = 0):
            rng = np.random.default_rng(seed)
            super().__init__(
                hinges, num_units, lambda sh: 0.01 * rng.standard_normal(sh)
            )

        def forward(self, s):
            return apl(s, self.alpha, self.centres)

    class KAF(_Expansion):
        """:func:`kaf` with trainable coefficients on a fixed dictionary; γ defaults
        to 1 / (2 Δ²) for a grid spacing Δ (neighbouring kernels overlap)."""

        def __init__(self, dictionary, gamma=None, num_units=None, seed: int = 0):
            rng = np.random.default_rng(seed)
            super().__init__(
                dictionary, num_units, lambda sh: 0.3 * rng.standard_normal(sh)
            )
            if gamma is None:
                spacing = float(self.centres[1] - self.centres[0])
                gamma = 1.0 / (2.0 * spacing**2)
            self.gamma = float(gamma)

        def forward(self, s):
            return kaf(s, self.alpha, self.centres, self.gamma)

    class GLU(nn.Module):
        """:func:`glu` with two bias-free (c, c') weights (2cc' parameters)."""

        gate = staticmethod(glu)

        def __init__(self, c: int, c_prime: int, seed: int = 0):
            super().__init__()
            rng = np.random.default_rng(seed)
            dtype = torch.get_default_dtype()
            scale = 1.0 / math.sqrt(c)
            self.W1 = nn.Parameter(
                torch.as_tensor(scale * rng.standard_normal((c, c_prime)), dtype=dtype)
            )
            self.W2 = nn.Parameter(
                torch.as_tensor(scale * rng.standard_normal((c, c_prime)), dtype=dtype)
            )

        def forward(self, X):
            return self.gate(X, self.W1, self.W2)

    class SwiGLU(GLU):
        """:func:`swiglu` with two bias-free (c, c') weights."""

        gate = staticmethod(swiglu)

    return {
        "PReLU": PReLU,
        "TrainableSwish": TrainableSwish,
        "APL": APL,
        "KAF": KAF,
        "GLU": GLU,
        "SwiGLU": SwiGLU,
    }
