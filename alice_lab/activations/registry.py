r"""Every fixed activation by name, with its derivative, for plots, widgets and
tests: :data:`ACTIVATIONS`, :func:`get` and :func:`get_grad`. (The derivative of any
function by finite differences is :func:`alice_lab.calculus.derivative`.)

Book: §5.4 (lines 2414-2600).
"""

from __future__ import annotations

from typing import Any

from alice_lab.activations.relu_family import (
    elu,
    elu_grad,
    heaviside,
    heaviside_grad,
    leaky_relu,
    leaky_relu_grad,
    polynomial,
    polynomial_grad,
    relu,
    relu_grad,
)
from alice_lab.activations.self_gated import gelu, gelu_grad, silu, silu_grad
from alice_lab.activations.sigmoids import (
    sigmoid,
    sigmoid_grad,
    softplus,
    softplus_grad,
    tanh,
    tanh_grad,
)
from alice_lab.backend import array_namespace, as_float_array

__all__ = [
    "ACTIVATIONS",
    "get",
    "get_grad",
]


#: name -> (function of s, its derivative), every fixed activation of §5.4
ACTIVATIONS: dict[str, tuple[Any, Any]] = {
    "relu": (relu, relu_grad),
    "leaky_relu": (leaky_relu, leaky_relu_grad),
    "softplus": (softplus, softplus_grad),
    "elu": (elu, elu_grad),
    "gelu": (gelu, gelu_grad),
    "silu": (silu, silu_grad),
    "sigmoid": (sigmoid, sigmoid_grad),
    "tanh": (tanh, tanh_grad),
    "heaviside": (heaviside, heaviside_grad),
    "polynomial": (polynomial, polynomial_grad),
}


def get(name: str) -> Any:
    """The activation called ``name`` (see :data:`ACTIVATIONS`), or the identity for
    ``"identity"``/``"linear"``/``None``.

    >>> get("relu") is relu
    True
    """
    if name in (None, "identity", "linear"):
        return lambda s: s
    if callable(name):
        return name
    try:
        return ACTIVATIONS[name][0]
    except KeyError:
        raise ValueError(
            f"unknown activation {name!r}; expected one of "
            f"{sorted(ACTIVATIONS) + ['identity']}"
        ) from None


def get_grad(name: str) -> Any:
    """The derivative of the activation called ``name`` (``relu_grad`` for
    ``"relu"``, ...), as :func:`get` gives the activation.

    >>> get_grad("softplus") is softplus_grad
    True
    """
    if name in ("identity", "linear"):

        def one(s: Any) -> Any:
            s = as_float_array(s, "s")
            xp = array_namespace(s)
            return xp.ones_like(s)

        return one
    try:
        return ACTIVATIONS[name][1]
    except KeyError:
        raise ValueError(
            f"unknown activation {name!r}; expected one of {sorted(ACTIVATIONS)}"
        ) from None
