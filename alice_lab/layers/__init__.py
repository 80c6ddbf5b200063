r"""Fully-connected layers and multi-layer perceptrons, for any array backend.

A fully-connected (FC) layer maps a batch :math:`\mathbf{X} \sim (n, c)` to
:math:`\phi(\mathbf{X}\mathbf{W} + \mathbf{b}) \sim (n, c')` with
:math:`\mathbf{W} \sim (c, c')` and :math:`\mathbf{b} \sim (c')`: :math:`(c+1)c'`
parameters (book eq. E.5.7). An MLP chains them, with the non-linearity φ on every
hidden layer and none on the output (eq. E.5.6); without φ the chain collapses into one
linear map (:func:`collapse_linear`).

Parameters are plain data: a layer is a dict ``{"W": (c, c'), "b": (c',)}`` and an MLP a
list of them, so that the same :func:`mlp_forward` is a NumPy function, a torch
function (autograd flows through it) and a pure JAX function (``jax.grad`` and
``jax.jit`` take it as is). :func:`mlp_value_and_grad` is back-propagation written out
by hand (chapter 6 derives it), which is what trains an MLP in plain NumPy.
Initial weights are drawn on the host from a seeded NumPy generator (:func:`fc_init`),
so every backend starts from the same numbers.

Around them: :class:`FullyConnected` and :class:`Sequential`, small objects with the
signature of a layer (a model is a layer, and nests in a bigger one);
``FullyConnectedLayer``, the ``torch.nn.Module`` of Box 5.1, and :func:`to_torch`, the
same MLP as a ``torch.nn.Sequential`` of ``nn.Linear``; the "Design variants" layers
:func:`maxout` and :func:`kan_layer`; and :func:`sigmoid_staircase`, a one-hidden-layer
sigmoid MLP built by hand that approximates any continuous function of one variable
(the universal approximation theorem, made constructive).

Book: §5.2 (lines 2216-2314), §5.2.1 (lines 2316-2340), "Design variants"
(lines 2602-2630).

Modules: :mod:`~alice_lab.layers.initialisation` (weights and parameter counts),
:mod:`~alice_lab.layers.mlp` (the layer, the MLP and its hand-written backward pass),
:mod:`~alice_lab.layers.composition` (layers as objects),
:mod:`~alice_lab.layers.variants` (maxout, KAN, the sigmoid staircase) and
:mod:`~alice_lab.layers.torch_modules` (the PyTorch twins).
"""

from alice_lab._compat import lazy_getattr
from alice_lab.layers.composition import (
    FullyConnected,
    Sequential,
    collapse_linear,
    compose,
)
from alice_lab.layers.initialisation import (
    INIT_SCHEMES,
    fc_init,
    fc_param_count,
    mlp_init,
    mlp_param_count,
    params_to,
)
from alice_lab.layers.mlp import fully_connected, mlp_forward, mlp_value_and_grad
from alice_lab.layers.torch_modules import _torch_classes, from_torch, to_torch
from alice_lab.layers.variants import (
    gaussian_basis,
    kan_layer,
    maxout,
    sigmoid_staircase,
)

__getattr__ = lazy_getattr(__name__, {"FullyConnectedLayer": _torch_classes})

__all__ = [
    "FullyConnected",
    "INIT_SCHEMES",
    "Sequential",
    "collapse_linear",
    "compose",
    "fc_init",
    "fc_param_count",
    "from_torch",
    "fully_connected",
    "gaussian_basis",
    "kan_layer",
    "maxout",
    "mlp_forward",
    "mlp_init",
    "mlp_param_count",
    "mlp_value_and_grad",
    "params_to",
    "sigmoid_staircase",
    "to_torch",
]
