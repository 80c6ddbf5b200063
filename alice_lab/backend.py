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
import math
import operator
import os
from typing import Any

import numpy as np
from array_api_compat import (
    array_namespace as _compat_namespace,
    device as device_of,
    is_array_api_obj,
    is_jax_array,
    is_jax_namespace,
    is_torch_array,
)

__all__ = [
    "BACKENDS",
    "array_namespace",
    "as_float_array",
    "available_backends",
    "check_int",
    "check_labels",
    "check_positive",
    "device",
    "device_of",
    "is_fast",
    "rng",
    "parity_precision",
    "to_backend",
    "to_numpy",
]

BACKENDS = ("numpy", "torch", "jax")

#: how to move an array into each library, for the mixed-libraries error
_CONVERT = {
    "numpy": "to NumPy: x.numpy() or alice_lab.backend.to_numpy(x)",
    "torch": "to torch: torch.as_tensor(x)",
    "jax": "to JAX: jax.numpy.asarray(x)",
}


def _library(x: Any) -> tuple[str, str]:
    """``("torch", "torch.Tensor")``, ``("numpy", "numpy.ndarray")``, ...: an array's
    library and its type as a reader writes it."""
    if is_torch_array(x):
        return "torch", "torch.Tensor"
    if is_jax_array(x):
        return "jax", "jax.Array"
    t = type(x)
    lib = t.__module__.split(".")[0]
    return lib, f"{lib}.{t.__name__}"


def array_namespace(*xs: Any, **kwargs: Any) -> Any:
    """The array-API namespace of ``xs`` (``array_api_compat.array_namespace``), with
    errors a reader can act on.

    Arrays of two libraries in one call (a torch tensor with a NumPy array) raise
    ``TypeError`` naming both and how to convert, instead of a list of modules; a
    Python list where an array is expected raises ``TypeError`` saying so. Python
    scalars are ignored, as in array-api-compat.

    >>> array_namespace(np.ones(2)).__name__
    'array_api_compat.numpy'
    """
    try:
        return _compat_namespace(*xs, **kwargs)
    except TypeError:
        libs = dict(_library(x) for x in xs if is_array_api_obj(x))
        if len(libs) > 1:
            tips = "; ".join(
                _CONVERT.get(lib, f"to {lib}: its asarray") for lib in libs
            )
            raise TypeError(
                f"got {' and '.join(libs.values())} in one call; alice_lab computes "
                f"with one array library at a time, so convert first ({tips})"
            ) from None
        for x in xs:
            if not (x is None or is_array_api_obj(x) or isinstance(x, (int, float))):
                raise TypeError(
                    f"expected an array (NumPy, torch, JAX, ...); got "
                    f"{type(x).__name__}: convert it with numpy.asarray(...)"
                ) from None
        raise


def _float_dtype(xp: Any) -> Any:
    """float64 in ``xp``; JAX's default float (float32 unless ``jax_enable_x64``)."""
    if is_jax_namespace(xp):
        return xp.__array_namespace_info__().default_dtypes()["real floating"]
    return xp.float64


def as_float_array(
    x: Any, name: str = "x", *, like: Any = None, complex_ok: bool = False
) -> Any:
    """``x`` as a real floating array: the one rule for array arguments of alice_lab.

    - An array of any array-API library (NumPy, PyTorch, JAX, ...) keeps its library
      and device. A real floating array is returned as it is (a tensor keeps its
      ``requires_grad``); an integer or boolean array is cast to float64 in its own
      library (JAX without ``jax_enable_x64``: its default float, float32); a complex
      array raises ``ValueError``.
    - Python lists, tuples and numbers (and NumPy scalars) become NumPy float64
      arrays, so ``f([1, 2, 3])`` gives what ``f(np.array([1.0, 2.0, 3.0]))``
      gives. With ``like`` (an array), they become arrays of ``like``'s library,
      device and floating dtype instead: a Python number next to a tensor joins it.
    - Anything else (strings, None, ragged lists): ``TypeError`` naming ``name``.

    ``complex_ok=True`` lets complex arrays (and lists of complex numbers, as
    complex128) through, for the few functions that are defined on them (a linear
    recurrence with complex coefficients).

    Returns the array alone; take the namespace with :func:`array_namespace`.

    >>> as_float_array([1, 2]).dtype
    dtype('float64')
    >>> as_float_array(np.arange(2)).tolist()
    [0.0, 1.0]
    """
    if is_array_api_obj(x) and not isinstance(x, np.generic):
        xp = array_namespace(x)
        if xp.isdtype(x.dtype, "real floating") or (
            complex_ok and xp.isdtype(x.dtype, "complex floating")
        ):
            return x
        if xp.isdtype(x.dtype, ("integral", "bool")):
            return xp.astype(x, _float_dtype(xp))
        raise ValueError(
            f"{name} must be a real (integer or floating) array; got dtype {x.dtype}"
        )
    need = f"{name} must be an array or a (nested) list of real numbers"
    try:
        host = np.asarray(x)
    except ValueError:  # NumPy refuses ragged nested lists
        raise TypeError(f"{need}; got a ragged {type(x).__name__}") from None
    cplx = complex_ok and host.dtype.kind == "c"
    if host.dtype.kind not in "biuf" and not cplx:
        what = type(x).__name__ if host.dtype.kind == "O" else f"dtype {host.dtype}"
        raise TypeError(f"{need}; got {what}")
    if like is None:
        return host.astype(np.complex128 if cplx else np.float64)
    xp = array_namespace(like)
    kind = "complex floating" if cplx else "real floating"
    dtype = like.dtype if xp.isdtype(like.dtype, kind) else None
    if dtype is None:
        dtype = xp.complex128 if cplx else _float_dtype(xp)
    return xp.asarray(host.tolist(), dtype=dtype, device=device_of(like))


def check_int(value: Any, name: str, *, low: int = 1, why: str | None = None) -> int:
    """``value`` as a Python int ``>= low``: the one check for sizes, counts and steps.

    Python and NumPy integers pass; ``True`` (a bool is not a count), ``3.0`` (even a
    whole float: pass ``int(...)`` yourself if you mean it), strings and values below
    ``low`` raise ``ValueError`` naming the parameter, what it must be and what it got;
    ``why`` says in the message why the bound is what it is (``"the byte tokens"``).

    >>> check_int(np.int64(3), "steps")
    3
    """
    kind = {1: " (a positive integer)", 0: " (a non-negative integer)"}.get(low, "")
    kind = f" ({why})" if why else kind
    need = f"an int >= {low}{kind}"
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be {need}; got {value!r} (a bool)")
    try:
        v = operator.index(value)
    except TypeError:
        got = f"{value!r} ({type(value).__name__})"
        raise ValueError(f"{name} must be {need}; got {got}") from None
    if v < low:
        raise ValueError(f"{name} must be {need}; got {v}")
    return v


def check_positive(value: Any, name: str) -> float:
    """``value`` as a finite Python float ``> 0``: the one check for step sizes,
    tolerances and time limits. Strings, booleans, NaN, infinities, zero and negatives
    raise ``ValueError`` naming the parameter.

    >>> check_positive(np.float32(0.5), "lr")
    0.5
    """
    if isinstance(value, (str, bytes)):
        raise ValueError(f"{name} must be a real number; got {value!r}")
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number; got {value!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return v


def check_labels(labels: Any, m: int, name: str = "labels", *, hint: str = "") -> None:
    """Check that ``labels`` holds integer class labels in ``0..m-1`` (any backend;
    the shape is the caller's to check). ``hint`` is added to the dtype error.

    >>> check_labels(np.array([0, 2]), 3)
    >>> check_labels(np.array([0, 3]), 3)
    Traceback (most recent call last):
    ...
    ValueError: labels must lie in 0..2; got values from 0 to 3
    """
    xp = array_namespace(labels)
    if not xp.isdtype(labels.dtype, "integral"):
        extra = f" ({hint})" if hint else ""
        raise ValueError(
            f"{name} must hold integer class labels; got dtype {labels.dtype}{extra}"
        )
    if math.prod(labels.shape) and (
        bool(xp.any(labels < 0)) or bool(xp.any(labels >= m))
    ):
        lo, hi = int(xp.min(labels)), int(xp.max(labels))
        raise ValueError(f"{name} must lie in 0..{m - 1}; got values from {lo} to {hi}")


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
