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

from alice_lab._compat import lazy_getattr
from alice_lab.normalization.batch import (
    BatchNorm,
    batch_norm,
    batch_stats,
    running_average,
)
from alice_lab.normalization.per_example import (
    group_norm,
    instance_norm,
    layer_norm,
    rms_norm,
)
from alice_lab.normalization.scaling import minmax_scale, standard_scale
from alice_lab.normalization.torch_modules import _torch_classes

__getattr__ = lazy_getattr(
    __name__,
    dict.fromkeys(
        ("BatchNormModule", "LayerNormModule", "RMSNormModule"), _torch_classes
    ),
)

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
