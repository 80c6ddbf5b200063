r"""Batch normalization (eqs. E.9.8-E.9.9): statistics pooled over every axis but the
channel one, running averages updated the PyTorch way, and :class:`BatchNorm`, the
layer with its training and inference modes.

Book: §9.3.2 (lines 4669-4835).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, check_int, device_of
from alice_lab.normalization._checks import _check_affine, _moments, _ndim

__all__ = ["BatchNorm", "batch_norm", "batch_stats", "running_average"]


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
