r"""The activation functions of §5.4, their derivatives, and the gated layers of the
"Design variants" box, for any array backend.

Every function is element-wise unless it says otherwise, written once against the array
API, and safe at the extremes: the sigmoid and the softplus never evaluate
:math:`\exp` of a large positive number (they split on the sign and use
:math:`e^{-|s|}`), the ELU takes ``expm1`` of the negative part only, and NaN goes
in, NaN comes out. Derivatives sit next to each function (``relu_grad``, ...);
``tests/test_activations.py`` checks them against finite differences,
``torch.autograd``, ``jax.grad`` and ``torch.nn.functional``.

At a kink the derivative follows the book's case split: ``s >= 0`` takes the right
branch (LeakyReLU, PReLU, ELU), except for the ReLU, whose derivative at 0 is 0 as in
PyTorch and JAX (book, §6.4.4, line 3232).

The GELU needs the Gaussian CDF :math:`\Phi(s) = \tfrac12\mathrm{erfc}(-s/\sqrt2)`,
which the array API lacks; :func:`erfc` computes it from a 28-term Chebyshev expansion
(Numerical Recipes, 3rd ed., §6.2.2) accurate to a few units in the last place, so one
body of code serves NumPy, torch, JAX and array-api-strict alike.

Trainable activations come in two forms: functions of explicit parameters
(:func:`prelu`, :func:`trainable_swish`, :func:`apl`, :func:`kaf`, :func:`glu`,
:func:`swiglu`) and ``torch.nn.Module`` classes holding them (``PReLU``,
``TrainableSwish``, ``APL``, ``KAF``, ``GLU``, ``SwiGLU``), built on first access so
that importing this module does not import torch.

Book: §5.2, eq. E.5.5 (line 2250); §5.4 (lines 2414-2600); the "Design variants" box
(lines 2602-2630).

The package has one module per family: :mod:`alice_lab.activations.relu_family`,
:mod:`alice_lab.activations.sigmoids`, :mod:`alice_lab.activations.self_gated` (GELU,
SiLU, Swish), :mod:`alice_lab.activations.expansions` (APL, KAF),
:mod:`alice_lab.activations.gated_units` (GLU, SwiGLU),
:mod:`alice_lab.activations.registry` (by name) and
:mod:`alice_lab.activations.torch_modules` (the ``nn.Module`` classes).
"""

from __future__ import annotations

from alice_lab._compat import lazy_getattr
from alice_lab.activations.expansions import (
    apl,
    kaf,
)
from alice_lab.activations.gated_units import (
    glu,
    swiglu,
)
from alice_lab.activations.registry import (
    ACTIVATIONS,
    get,
    get_grad,
)
from alice_lab.activations.relu_family import (
    elu,
    elu_grad,
    heaviside,
    heaviside_grad,
    leaky_relu,
    leaky_relu_grad,
    polynomial,
    polynomial_grad,
    prelu,
    prelu_grad_alpha,
    relu,
    relu_grad,
)
from alice_lab.activations.self_gated import (
    erfc,
    gelu,
    gelu_grad,
    normal_cdf,
    silu,
    silu_grad,
    swish,
    trainable_swish,
    trainable_swish_grads,
)
from alice_lab.activations.sigmoids import (
    sigmoid,
    sigmoid_grad,
    softplus,
    softplus_grad,
    tanh,
    tanh_grad,
)
from alice_lab.activations.torch_modules import (
    TORCH_MODULES,
    _torch_classes,
)

__all__ = [
    "ACTIVATIONS",
    "apl",
    "elu",
    "elu_grad",
    "erfc",
    "gelu",
    "gelu_grad",
    "get",
    "get_grad",
    "glu",
    "heaviside",
    "heaviside_grad",
    "kaf",
    "leaky_relu",
    "leaky_relu_grad",
    "normal_cdf",
    "polynomial",
    "polynomial_grad",
    "prelu",
    "prelu_grad_alpha",
    "relu",
    "relu_grad",
    "sigmoid",
    "sigmoid_grad",
    "silu",
    "silu_grad",
    "softplus",
    "softplus_grad",
    "swiglu",
    "swish",
    "tanh",
    "tanh_grad",
    "trainable_swish",
    "trainable_swish_grads",
]

__getattr__ = lazy_getattr(__name__, dict.fromkeys(TORCH_MODULES, _torch_classes))
