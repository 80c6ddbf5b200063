r"""``BatchNormModule``, ``LayerNormModule`` and ``RMSNormModule``: ``torch.nn.Module``
versions built on these functions, loaded when first asked for.

Book: §9.3.2 (lines 4669-4835).
"""

from __future__ import annotations

import functools

from alice_lab._compat import lazy_getattr
from alice_lab.normalization.batch import batch_norm, batch_stats, running_average
from alice_lab.normalization.per_example import layer_norm, rms_norm


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
