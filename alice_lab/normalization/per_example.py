r"""Normalizations with statistics per example: layer norm (with the torch kernel
where it gives the same numbers), RMSNorm, group norm and instance norm.

Book: §9.3.2 (lines 4669-4835), Figure F.9.4.
"""

from __future__ import annotations

from typing import Any

from alice_lab.backend import array_namespace, check_int, is_torch_array
from alice_lab.normalization._checks import (
    _affine,
    _axes,
    _check_affine,
    _moments,
    _ndim,
)

__all__ = ["group_norm", "instance_norm", "layer_norm", "rms_norm"]


def layer_norm(
    x: Any, gamma: Any = None, beta: Any = None, *, eps: float = 1e-5, axes: Any = -1
) -> Any:
    r"""Layer normalization: each example (row) standardised on its own.

    Parameters
    ----------
    x : (..., c); by default the statistics run over the last axis (the book's
        variant B for images, the transformer's); ``axes=(1, 2, 3)`` on ``(b, h, w, c)``
        gives variant A (``nn.LayerNorm([c, h, w])``).
    gamma, beta : shaped like the normalised axes (``(c,)`` by default), elementwise.

    Which code runs
    ---------------
    * a floating **torch tensor** normalised over its *trailing* axes (the default
      ``axes=-1``, or ``(1, 2, 3)`` on ``(b, h, w, c)``), with ``gamma`` and ``beta``
      None or tensors of its dtype and device: :func:`_layer_norm_torch`, the
      framework path (``torch.nn.functional.layer_norm``: one fused kernel with its
      own backward, about 6× faster on the CPU than the generic code on torch
      tensors);
    * anything else (NumPy, JAX, array-api-strict, other axes, mixed dtypes):
      :func:`_layer_norm_generic`, the array-API code of the book's formula.

    Both give the same values and gradients to rounding (``tests/test_normalization.py``
    compares them).

    Book: §9.3.2 "Variants of batch normalization" (lines 4789-4821); the row mean is
    :math:`\mu_i = \frac1c\sum_j X_{ij}` (the book swaps the indices; erratum).

    >>> import numpy as np
    >>> layer_norm(np.array([[1.0, 3.0]]), eps=0.0).tolist()
    [[-1.0, 1.0]]
    """
    _ndim(x, 1, "x", "(..., c)")
    ax = _axes(x, axes)
    shape = tuple(x.shape[a] for a in ax)
    _check_affine(gamma, beta, shape, "layer_norm")
    if _torch_layer_norm_applies(x, ax, gamma, beta):
        return _layer_norm_torch(x, gamma, beta, eps, shape)
    return _layer_norm_generic(x, gamma, beta, eps, ax)


def _layer_norm_generic(
    x: Any, gamma: Any, beta: Any, eps: float, ax: tuple[int, ...]
) -> Any:
    """Layer norm in array-API code, as the book writes it: the row mean and biased
    variance (two passes), then standardise and apply the affine map. Any backend,
    any axes."""
    mu, var = _moments(x, ax)
    y = (x - mu) / array_namespace(x).sqrt(var + eps)
    return _affine(y, gamma, beta, tuple(x.shape[a] for a in ax), "layer_norm")


def _torch_layer_norm_applies(
    x: Any, ax: tuple[int, ...], gamma: Any, beta: Any
) -> bool:
    """Whether :func:`_layer_norm_torch` can take ``x``: a floating torch tensor
    normalised over trailing axes, with affine tensors of its dtype and device."""
    if not (is_torch_array(x) and x.is_floating_point()):
        return False
    if ax != tuple(range(x.ndim - len(ax), x.ndim)):
        return False
    return all(
        p is None or (is_torch_array(p) and p.dtype == x.dtype and p.device == x.device)
        for p in (gamma, beta)
    )


def _layer_norm_torch(
    x: Any, gamma: Any, beta: Any, eps: float, shape: tuple[int, ...]
) -> Any:
    """The framework path: ``torch.nn.functional.layer_norm`` over the trailing
    ``shape``, one fused kernel (autograd uses torch's own backward).

    A composed torch version (``torch.var_mean``, then one fused affine) was
    measured first: ``var_mean`` alone over the last axis of a float64 CPU tensor
    took longer than the whole fused kernel, and the composed path stayed 5-10×
    slower, so the kernel is used."""
    import torch

    return torch.nn.functional.layer_norm(x, shape, gamma, beta, eps=eps)


def rms_norm(x: Any, gamma: Any = None, *, eps: float = 1e-6, axes: Any = -1) -> Any:
    r"""RMSNorm, :math:`x / \sqrt{\frac1c\sum_i x_i^2 + \varepsilon}\odot\alpha`:
    layer norm without the centring and without β. The book's equation has no ε; every
    implementation adds one inside the root (``torch.nn.RMSNorm`` with ``eps=eps``).

    x : (..., c); gamma : (c,) or None. Book: §9.3.2, eq. E.9.12 (lines 4823-4835).

    >>> import numpy as np
    >>> rms_norm(np.array([3.0, -3.0]), eps=0.0).tolist()
    [1.0, -1.0]
    """
    xp = array_namespace(x)
    _ndim(x, 1, "x", "(..., c)")
    ax = _axes(x, axes)
    ms = xp.mean(x * x, axis=ax, keepdims=True)
    y = x / xp.sqrt(ms + eps)
    return _affine(y, gamma, None, tuple(x.shape[a] for a in ax), "rms_norm")


def group_norm(
    x: Any, groups: int, gamma: Any = None, beta: Any = None, *, eps: float = 1e-5
) -> Any:
    r"""Group normalization of ``x (b, ..., c)``: the ``c`` channels are split into
    ``groups`` consecutive groups, and each (example, group) is standardised over its
    spatial positions and its ``c / groups`` channels. ``groups=1`` is layer norm over
    everything but the batch (variant A); ``groups=c`` is :func:`instance_norm`.
    gamma, beta : (c,), per channel (as ``torch.nn.GroupNorm``).

    Book: §9.3.2 (line 4811).

    >>> import numpy as np
    >>> group_norm(np.array([[1.0, 3.0]]), 1, eps=0.0).tolist()
    [[-1.0, 1.0]]
    """
    xp = array_namespace(x)
    _ndim(x, 2, "x", "(b, ..., c)")
    c = x.shape[-1]
    groups = check_int(groups, "groups")
    if c % groups:
        raise ValueError(f"groups must be a positive divisor of c={c}; got {groups!r}")
    shape = tuple(x.shape)
    g = xp.reshape(x, shape[:-1] + (groups, c // groups))  # (b, ..., G, c/G)
    pooled = tuple(range(1, g.ndim - 2)) + (g.ndim - 1,)
    mu, var = _moments(g, pooled)
    y = xp.reshape((g - mu) / xp.sqrt(var + eps), shape)
    return _affine(y, gamma, beta, (c,), "group_norm")


def instance_norm(
    x: Any, gamma: Any = None, beta: Any = None, *, eps: float = 1e-5
) -> Any:
    r"""Instance normalization of ``x (b, ..., c)``: each channel of each example
    standardised over its spatial positions (group norm with one channel per group).
    Book: §9.3.2 (line 4811).

    >>> import numpy as np
    >>> instance_norm(np.array([[[1.0], [3.0]]]), eps=0.0).ravel().tolist()
    [-1.0, 1.0]
    """
    _ndim(x, 3, "x", "(b, spatial..., c)")
    return group_norm(x, x.shape[-1], gamma, beta, eps=eps)
