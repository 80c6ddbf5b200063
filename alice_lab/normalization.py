r"""Normalization layers for any array backend: batch, layer, RMS, group, instance.

All of them standardise some set of entries of the input to zero mean and unit variance
and then apply an affine map :math:`\alpha\odot\cdot+\beta`; they differ only in *which*
entries share one mean and one variance (book Figure F.9.4). With the book's layout,
batch first and channels last, for ``x (b, ..., c)``:

* **batch norm** pools over every axis but the channel one (``b`` and the spatial
  axes), so each channel has one statistic per mini-batch (eqs. E.9.8-E.9.9);
* **layer norm** pools over the last axis (or the axes given), one statistic per example
  (and per position);
* **RMSNorm** divides by the root mean square over the last axis, without centring;
* **group norm** pools over the spatial axes and a group of channels, **instance norm**
  over the spatial axes of each single channel (group norm with ``groups=c``).

Variances are the biased ones (divide by the number of entries), as in E.9.9 and in
every framework. Batch norm's running statistics are updated the PyTorch way,
``running ← (1 - momentum) * running + momentum * batch`` with ``momentum=0.1``, and the
running variance gets the *unbiased* batch variance; the book writes the same update as
:math:`\widehat{\mu}\gets\lambda\widehat{\mu}+(1-\lambda)\mu` with :math:`\lambda =
1-\text{momentum}\approx 0.9` (it prints λ = 0.01, an erratum: see the chapter
notebook).

``BatchNormModule``, ``LayerNormModule``, ``RMSNormModule`` are ``torch.nn.Module``
versions built on these functions (imported lazily; ``import alice_lab`` never imports
torch).

Book: §9.3.2 (lines 4669-4835).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from alice_lab._compat import lazy_getattr
from alice_lab.backend import array_namespace, check_int, device_of, is_torch_array

__all__ = [
    "BatchNorm",
    "batch_norm",
    "batch_stats",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "minmax_scale",
    "rms_norm",
    "running_average",
    "standard_scale",
]


def _ndim(x: Any, least: int, name: str, expected: str) -> None:
    if getattr(x, "ndim", -1) < least:
        raise ValueError(
            f"{name} must have shape {expected}; got {tuple(getattr(x, 'shape', ()))}"
        )


def _axes(x: Any, axes: Any) -> tuple[int, ...]:
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    out = tuple(sorted(a % x.ndim for a in axes))
    if len(set(out)) != len(out) or not out:
        raise ValueError(
            f"axes must be distinct axes of x with ndim {x.ndim}; got {axes}"
        )
    return out


def _check_affine(gamma: Any, beta: Any, shape: tuple[int, ...], name: str) -> None:
    for value, label in ((gamma, "gamma"), (beta, "beta")):
        if value is not None and tuple(value.shape) != shape:
            raise ValueError(
                f"{name}: {label} must have shape {shape}; got {tuple(value.shape)}"
            )


def _affine(y: Any, gamma: Any, beta: Any, shape: tuple[int, ...], name: str) -> Any:
    _check_affine(gamma, beta, shape, name)
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    return y


def _moments(x: Any, axes: tuple[int, ...]) -> tuple[Any, Any]:
    xp = array_namespace(x)
    mu = xp.mean(x, axis=axes, keepdims=True)
    var = xp.mean((x - mu) ** 2, axis=axes, keepdims=True)  # biased, two-pass
    return mu, var


def batch_stats(x: Any) -> tuple[Any, Any]:
    r"""Per-channel mean and biased variance of a batch ``x (b, ..., c)`` → two
    ``(c,)``.

    Eqs. E.9.8-E.9.9 (and the image version, line 4753): the statistics pool every axis
    but the last. Book: §9.3.2 (lines 4679-4683, 4749-4759).

    >>> [v.tolist() for v in batch_stats(np.array([[0.0, 1.0], [2.0, 3.0]]))]
    [[1.0, 2.0], [1.0, 1.0]]
    """
    xp = array_namespace(x)
    _ndim(x, 2, "x", "(b, ..., c)")
    axes = tuple(range(x.ndim - 1))
    mu, var = _moments(x, axes)
    return xp.reshape(mu, (x.shape[-1],)), xp.reshape(var, (x.shape[-1],))


def batch_norm(
    x: Any,
    gamma: Any = None,
    beta: Any = None,
    *,
    eps: float = 1e-5,
    training: bool = True,
    running_mean: Any = None,
    running_var: Any = None,
) -> Any:
    r"""Batch normalization,
    :math:`\alpha\odot(x-\mu)/\sqrt{\sigma^2+\varepsilon}+\beta`.

    Parameters
    ----------
    x : (b, ..., c) — a table ``(b, c)`` or images ``(b, h, w, c)`` (channels last).
    gamma, beta : (c,) or None — the book's α (scale, init 1) and β (shift, init 0).
    training : with ``True`` the statistics are those of this batch (biased variance);
        with ``False`` the given ``running_mean`` and ``running_var`` (c,) are used, so
        each example's output no longer depends on the rest of the batch.

    Returns
    -------
    (b, ..., c) array. Use :class:`BatchNorm` to keep the running statistics.

    Book: §9.3.2, definition "Batch normalization layer" (lines 4719-4731) and
    inference (lines 4761-4783).

    >>> batch_norm(np.array([[1.0], [3.0]]), eps=0.0).ravel().tolist()
    [-1.0, 1.0]
    """
    xp = array_namespace(x)
    _ndim(x, 2, "x", "(b, ..., c)")
    c = x.shape[-1]
    if training:
        mu, var = _moments(x, tuple(range(x.ndim - 1)))
    else:
        if running_mean is None or running_var is None:
            raise ValueError(
                "batch_norm(training=False) needs running_mean and running_var"
            )
        for value, label in (
            (running_mean, "running_mean"),
            (running_var, "running_var"),
        ):
            if tuple(value.shape) != (c,):
                raise ValueError(
                    f"{label} must have shape ({c},); got {tuple(value.shape)}"
                )
        mu, var = running_mean, running_var
    _check_affine(gamma, beta, (c,), "batch_norm")
    # (x - mu) / sqrt(var + eps) * gamma + beta with the per-channel factors folded
    # into one scale and one shift: two passes over x instead of four.
    scale = xp.reshape(1.0 / xp.sqrt(var + eps), (c,))
    if gamma is not None:
        scale = scale * gamma
    shift = -xp.reshape(mu, (c,)) * scale
    if beta is not None:
        shift = shift + beta
    return x * scale + shift


def running_average(running: Any, batch: Any, *, momentum: float = 0.1) -> Any:
    r"""One step of the exponential moving average of batch norm's buffers:
    ``(1 - momentum) * running + momentum * batch`` (PyTorch's convention).

    In the book's notation :math:`\widehat{\mu}\gets\lambda\widehat{\mu}+(1-\lambda)\mu`
    the weight on the old value is :math:`\lambda = 1 - \text{momentum}`, so PyTorch's
    default 0.1 is λ = 0.9 (the book's "λ = 0.01" would copy the last batch; erratum).
    Book: §9.3.2, line 4777.

    >>> running_average(np.array(0.0), np.array(1.0)).item()
    0.1
    """
    if not 0.0 <= momentum <= 1.0:
        raise ValueError(f"momentum must lie in [0, 1]; got {momentum}")
    return (1.0 - momentum) * running + momentum * batch


class BatchNorm:
    """A batch-norm layer with running statistics (generic; PyTorch semantics).

    ``bn(x)`` in training mode normalises with the batch statistics and updates
    ``running_mean`` (with the batch mean) and ``running_var`` (with the *unbiased*
    batch variance, n/(n-1) times the biased one, as ``torch.nn.BatchNorm1d/2d``);
    after ``bn.eval()`` it normalises with the running statistics. ``momentum=None``
    gives the cumulative average over all batches seen (the book's option 1, line 4769).
    Parameters ``gamma`` (ones) and ``beta`` (zeros): 2c of them; the running
    statistics are buffers, not parameters (footnote, line 4781).

    >>> bn = BatchNorm(2)
    >>> _ = bn(np.array([[0.0, 0.0], [2.0, 4.0]]))
    >>> np.round(bn.running_mean, 6).tolist(), np.round(bn.running_var, 6).tolist()
    ([0.1, 0.2], [1.1, 1.7])
    """

    def __init__(
        self,
        c: int,
        *,
        momentum: float | None = 0.1,
        eps: float = 1e-5,
        like: Any = None,
    ):
        c = check_int(c, "c")
        xp = np if like is None else array_namespace(like)
        kw = {} if like is None else {"dtype": like.dtype, "device": device_of(like)}
        self.gamma = xp.ones((c,), **kw)
        self.beta = xp.zeros((c,), **kw)
        self.running_mean = xp.zeros((c,), **kw)
        self.running_var = xp.ones((c,), **kw)
        self.num_batches_tracked = 0
        self.momentum, self.eps, self.training = momentum, eps, True

    def train(self, mode: bool = True) -> BatchNorm:
        self.training = mode
        return self

    def eval(self) -> BatchNorm:
        return self.train(False)

    def __call__(self, x: Any) -> Any:
        if not self.training:
            return batch_norm(
                x,
                self.gamma,
                self.beta,
                eps=self.eps,
                training=False,
                running_mean=self.running_mean,
                running_var=self.running_var,
            )
        mu, var = batch_stats(x)
        n = int(np.prod(x.shape[:-1]))
        if n < 2:
            raise ValueError(
                f"batch norm in training mode needs more than 1 value per "
                f"channel; got x {tuple(x.shape)}"
            )
        self.num_batches_tracked += 1
        m = (
            self.momentum
            if self.momentum is not None
            else 1.0 / self.num_batches_tracked
        )
        self.running_mean = running_average(self.running_mean, mu, momentum=m)
        self.running_var = running_average(
            self.running_var, var * (n / (n - 1)), momentum=m
        )
        return batch_norm(x, self.gamma, self.beta, eps=self.eps)


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

    >>> instance_norm(np.array([[[1.0], [3.0]]]), eps=0.0).ravel().tolist()
    [-1.0, 1.0]
    """
    _ndim(x, 3, "x", "(b, spatial..., c)")
    return group_norm(x, x.shape[-1], gamma, beta, eps=eps)


def minmax_scale(X: Any) -> Any:
    """Columns of ``X (n, c)`` squashed to [0, 1] (constant columns map to 0).
    Book: §9.3.2 (line 4671).

    >>> minmax_scale(np.array([[1.0], [3.0]])).ravel().tolist()
    [0.0, 1.0]
    """
    xp = array_namespace(X)
    _ndim(X, 2, "X", "(n, c)")
    lo, hi = xp.min(X, axis=0), xp.max(X, axis=0)
    span = hi - lo
    return (X - lo) / xp.where(span > 0, span, xp.ones_like(span))


def standard_scale(X: Any) -> Any:
    """Columns of ``X (n, c)`` to zero mean and unit (biased) variance; constant
    columns map to 0. Book: §9.3.2 (line 4671).

    >>> standard_scale(np.array([[1.0], [3.0]])).ravel().tolist()
    [-1.0, 1.0]
    """
    xp = array_namespace(X)
    _ndim(X, 2, "X", "(n, c)")
    mu, var = _moments(X, (0,))
    sd = xp.sqrt(var)
    return (X - mu) / xp.where(sd > 0, sd, xp.ones_like(sd))


# --- torch.nn.Module versions -------------------------------------------------------


@functools.cache
def _torch_classes() -> dict[str, type]:
    import torch
    from torch import nn

    class BatchNormModule(nn.Module):
        """Batch norm over the last axis of ``(b, ..., c)`` (channels last), built on
        :func:`batch_norm`, with PyTorch's buffers and momentum convention."""

        def __init__(self, c: int, *, momentum: float | None = 0.1, eps: float = 1e-5):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(c))
            self.bias = nn.Parameter(torch.zeros(c))
            self.register_buffer("running_mean", torch.zeros(c))
            self.register_buffer("running_var", torch.ones(c))
            self.register_buffer("num_batches_tracked", torch.tensor(0))
            self.momentum, self.eps = momentum, eps

        def forward(self, x):
            if not self.training:
                return batch_norm(
                    x,
                    self.weight,
                    self.bias,
                    eps=self.eps,
                    training=False,
                    running_mean=self.running_mean,
                    running_var=self.running_var,
                )
            with torch.no_grad():
                mu, var = batch_stats(x)
                n = x.numel() // x.shape[-1]
                self.num_batches_tracked += 1
                m = self.momentum
                if m is None:
                    m = 1.0 / float(self.num_batches_tracked)
                self.running_mean.copy_(
                    running_average(self.running_mean, mu, momentum=m)
                )
                self.running_var.copy_(
                    running_average(self.running_var, var * n / (n - 1), momentum=m)
                )
            return batch_norm(x, self.weight, self.bias, eps=self.eps)

    class LayerNormModule(nn.Module):
        """Layer norm over the last axis, built on :func:`layer_norm`."""

        def __init__(self, c: int, *, eps: float = 1e-5):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(c))
            self.bias = nn.Parameter(torch.zeros(c))
            self.eps = eps

        def forward(self, x):
            return layer_norm(x, self.weight, self.bias, eps=self.eps)

    class RMSNormModule(nn.Module):
        """RMSNorm over the last axis, built on :func:`rms_norm`."""

        def __init__(self, c: int, *, eps: float = 1e-6):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(c))
            self.eps = eps

        def forward(self, x):
            return rms_norm(x, self.weight, eps=self.eps)

    return {
        "BatchNormModule": BatchNormModule,
        "LayerNormModule": LayerNormModule,
        "RMSNormModule": RMSNormModule,
    }


__getattr__ = lazy_getattr(
    __name__,
    dict.fromkeys(
        ("BatchNormModule", "LayerNormModule", "RMSNormModule"), _torch_classes
    ),
)
