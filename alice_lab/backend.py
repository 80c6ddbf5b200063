"""Array namespaces, devices, seeding and test precision for NumPy, PyTorch and JAX.

Every function in ``alice_lab`` is written once against the Python array API: its
first line is ``xp = array_namespace(x)`` and it returns arrays of the caller's type,
on the caller's device. This module holds the few helpers that let a notebook or a
test pick a backend and move data between them. Importing it imports neither torch
nor JAX; they are imported on demand.

Book: §1 ("Notation and symbols") and §2.1 (tensors).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import random
from typing import Any

import numpy as np
from array_api_compat import array_namespace, is_jax_array, is_torch_array
from array_api_compat import device as device_of

__all__ = [
    "BACKENDS",
    "array_namespace",
    "available_backends",
    "device",
    "device_of",
    "is_fast",
    "rng",
    "seed_everything",
    "parity_precision",
    "to_backend",
    "to_numpy",
]

BACKENDS = ("numpy", "torch", "jax")


def available_backends() -> list[str]:
    """Names of the installed backends among ``"numpy"``, ``"torch"``, ``"jax"``."""
    return [name for name in BACKENDS if importlib.util.find_spec(name) is not None]


def device(backend: str = "torch") -> Any:
    """The device to compute on: CUDA when the backend sees a GPU, else the CPU.

    Never picks Apple's MPS silently (its float64 support is partial and results
    differ from the CPU's); ask for it with ``to_backend(..., device="mps")``.

    >>> device("numpy")
    'cpu'
    """
    if backend == "numpy":
        return "cpu"
    if backend == "torch":
        import torch

        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if backend == "jax":
        import jax

        gpus = [d for d in jax.devices() if d.platform == "gpu"]
        return gpus[0] if gpus else jax.devices("cpu")[0]
    raise ValueError(f"unknown backend {backend!r}; expected one of {BACKENDS}")


def to_numpy(x: Any) -> np.ndarray:
    """Copy any backend's array to a NumPy array on the host (for plots and asserts)."""
    if is_torch_array(x):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def to_backend(x: Any, backend: str, device: Any = None, dtype: Any = None) -> Any:
    """Convert ``x`` (NumPy, torch, JAX or nested lists) to ``backend``'s array type.

    Parameters
    ----------
    x : array-like
    backend : ``"numpy"``, ``"torch"`` or ``"jax"``
    device : the target device; ``None`` means :func:`device` (GPU when present).
    dtype : a dtype name such as ``"float64"``, or ``None`` to keep ``x``'s.

    >>> to_backend([1.0, 2.0], "numpy").dtype
    dtype('float64')
    """
    host = to_numpy(x)
    if dtype is not None:
        host = host.astype(str(dtype).replace("torch.", ""))
    if backend == "numpy":
        if device not in (None, "cpu"):
            raise ValueError(f"NumPy arrays live on the CPU; got device={device!r}")
        return host
    if backend == "torch":
        import torch

        target = device if device is not None else globals()["device"]("torch")
        return torch.as_tensor(host, device=target)
    if backend == "jax":
        import jax

        target = device if device is not None else globals()["device"]("jax")
        if host.dtype == np.float64 and not jax.config.jax_enable_x64:
            raise ValueError(
                "float64 data given to JAX with jax_enable_x64 off would be silently "
                "cast to float32; call jax.config.update('jax_enable_x64', True) "
                "first or pass dtype='float32'"
            )
        return jax.device_put(host, target)
    raise ValueError(f"unknown backend {backend!r}; expected one of {BACKENDS}")


def rng(seed: int = 0) -> np.random.Generator:
    """A seeded NumPy generator. Draw on the host, then move with :func:`to_backend`,
    so that every backend sees the same numbers."""
    return np.random.default_rng(seed)


def seed_everything(seed: int = 0) -> None:
    """Seed Python's, NumPy's legacy and (when installed and imported) torch's RNGs."""
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 - seeds code that still uses the legacy API
    import sys

    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(seed)


def is_fast() -> bool:
    """True when ``ALICE_FAST=1``: notebooks shrink epochs and grids (tests set it)."""
    return os.environ.get("ALICE_FAST", "0") not in ("", "0", "false", "False")


@contextlib.contextmanager
def parity_precision():
    """Float64 everywhere and no TF32: the setting for parity tests.

    Enables ``jax_enable_x64`` and the highest matmul precision in JAX, and turns
    TF32 off in torch's CUDA matmuls and cuDNN convolutions. Restores on exit.
    """
    restore = []
    if importlib.util.find_spec("jax") is not None:
        import jax

        old = (jax.config.jax_enable_x64, jax.config.jax_default_matmul_precision)
        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_default_matmul_precision", "highest")
        restore.append(
            lambda: (
                jax.config.update("jax_enable_x64", old[0]),
                jax.config.update("jax_default_matmul_precision", old[1]),
            )
        )
    if importlib.util.find_spec("torch") is not None:
        import torch

        old_t = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

        def _restore_torch():
            torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = (
                old_t
            )

        restore.append(_restore_torch)
    try:
        yield
    finally:
        for undo in reversed(restore):
            undo()


def namespace_name(x: Any) -> str:
    """``"numpy"``, ``"torch"`` or ``"jax"`` for an array of that library."""
    if is_torch_array(x):
        return "torch"
    if is_jax_array(x):
        return "jax"
    array_namespace(x)  # raises TypeError for non-arrays
    return "numpy"
