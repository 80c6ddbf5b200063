"""alice_lab: from-scratch code for *Alice's Adventures in a differentiable wonderland*.

Every function is written once against the Python array API and runs on NumPy arrays,
PyTorch tensors (CPU or CUDA) and JAX arrays, returning the caller's array type.
Submodules are imported on first use, so ``import alice_lab`` imports neither torch
nor JAX.

Python lists, tuples and numbers passed as arrays become NumPy float64 arrays, and
integer arrays become float64 in their own library
(:func:`alice_lab.backend.as_float_array`); arrays of two libraries in one call raise a
``TypeError`` that names both.

>>> import alice_lab
>>> alice_lab.functional.logsumexp([0.0, 0.0]).round(6)
np.float64(0.693147)
"""

from __future__ import annotations

import importlib.metadata

from alice_lab._compat import lazy_getattr

try:  # the version in pyproject.toml, the one place it is written
    __version__ = importlib.metadata.version("alice_lab")
except importlib.metadata.PackageNotFoundError:  # imported from a source tree
    __version__ = "unknown"

_SUBMODULES = (
    "activations",
    "approximation",
    "attention",
    "augmentation",
    "autodiff",
    "backend",
    "calculus",
    "calibration",
    "conv",
    "data",
    "functional",
    "graphs",
    "layers",
    "linalg",
    "linear",
    "losses",
    "normalization",
    "optim",
    "probability",
    "recurrent",
    "regularization",
    "residual",
    "risk",
    "sequence",
    "tensors",
    "testfuncs",
    "text",
    "transformer",
)

__all__ = [*_SUBMODULES, "__version__"]


__getattr__ = lazy_getattr(__name__, {name: f".{name}" for name in _SUBMODULES})


def __dir__():
    return sorted(__all__)
