"""The engine's functions, and the NumPy functions they stand in for.

Each function applies one primitive of :mod:`alice_lab.autodiff.rules` through
``bind``: on plain NumPy arrays it computes the result, on engine values (a
:class:`~alice_lab.autodiff.engine.Tensor` for reverse mode, a
:class:`~alice_lab.autodiff.dual.Dual` for forward mode) it also records or propagates
derivatives. The tables :data:`UFUNCS` and :data:`FUNCTIONS` say which NumPy calls an
engine value takes over, so ``np.tanh(x)`` or ``np.sum(x * x)`` on a Tensor stays
differentiable; anything else raises a ``TypeError`` naming the function.

>>> import numpy as np
>>> float(logsumexp(np.array([0.0, 0.0])))  # log 2
0.6931471805599453
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from alice_lab.autodiff import rules as R
from alice_lab.autodiff.rules import bind

__all__ = [
    "FUNCTIONS",
    "UFUNCS",
    "abs",
    "add",
    "concatenate",
    "cos",
    "div",
    "dot",
    "exp",
    "log",
    "log_softmax",
    "logsumexp",
    "matmul",
    "max",
    "maximum",
    "mean",
    "mul",
    "neg",
    "pow",
    "relu",
    "reshape",
    "sigmoid",
    "sin",
    "softmax",
    "sqrt",
    "square",
    "stack",
    "sub",
    "sum",
    "tanh",
    "transpose",
]


def _axis(axis: Any) -> Any:
    """``None``, an int, or a tuple of ints (lists become tuples: params are hashed)."""
    if axis is None or isinstance(axis, int | np.integer):
        return None if axis is None else int(axis)
    return tuple(int(a) for a in axis)


# --- arithmetic -----------------------------------------------------------------------


def add(x, y):
    return bind(R.add_p, x, y)


def sub(x, y):
    return bind(R.sub_p, x, y)


def neg(x):
    return bind(R.neg_p, x)


def mul(x, y):
    return bind(R.mul_p, x, y)


def div(x, y):
    return bind(R.div_p, x, y)


def pow(x, y):
    return bind(R.pow_p, x, y)


def sqrt(x):
    return bind(R.pow_p, x, 0.5)


def square(x):
    return bind(R.mul_p, x, x)


def matmul(x, y):
    """``x @ y`` with NumPy's rules for 1-D and batched operands."""
    return bind(R.matmul_p, x, y)


def dot(x, y):
    """``np.dot`` for vectors and matrices (the same as ``matmul`` there)."""
    if builtins.max(np.ndim(_value(x)), np.ndim(_value(y))) > 2:
        raise TypeError("dot of arrays with more than 2 axes: use matmul (@) instead")
    if np.ndim(_value(x)) == 0 or np.ndim(_value(y)) == 0:
        return mul(x, y)
    return matmul(x, y)


# --- element-wise ---------------------------------------------------------------------


def exp(x):
    return bind(R.exp_p, x)


def log(x):
    return bind(R.log_p, x)


def sin(x):
    return bind(R.sin_p, x)


def cos(x):
    return bind(R.cos_p, x)


def tanh(x):
    return bind(R.tanh_p, x)


def sigmoid(x):
    r"""The logistic sigmoid :math:`\sigma(s) = 1/(1 + e^{-s})` (book §5.2)."""
    return bind(R.sigmoid_p, x)


def relu(x):
    """max(x, 0) with ReLU'(0) = 0, the choice of PyTorch and JAX (book §6.4.4)."""
    return bind(R.relu_p, x)


def abs(x):
    return bind(R.abs_p, x)


def maximum(x, y):
    """Element-wise maximum; on ties each side gets half the gradient (like JAX)."""
    return bind(R.maximum_p, x, y)


# --- reductions -----------------------------------------------------------------------


def sum(x, axis=None, keepdims=False):
    return bind(R.sum_p, x, axis=_axis(axis), keepdims=bool(keepdims))


def mean(x, axis=None, keepdims=False):
    return bind(R.mean_p, x, axis=_axis(axis), keepdims=bool(keepdims))


def max(x, axis=None, keepdims=False):
    return bind(R.max_p, x, axis=_axis(axis), keepdims=bool(keepdims))


def logsumexp(x, axis=-1, keepdims=False):
    r""":math:`\log\sum_i e^{x_i}` along ``axis``, computed with the max subtracted."""
    return bind(R.logsumexp_p, x, axis=int(axis), keepdims=bool(keepdims))


def softmax(x, axis=-1):
    return bind(R.softmax_p, x, axis=int(axis))


def log_softmax(x, axis=-1):
    return bind(R.log_softmax_p, x, axis=int(axis))


# --- shapes ---------------------------------------------------------------------------


def reshape(x, shape):
    shape = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
    return bind(R.reshape_p, x, shape=tuple(int(s) for s in shape))


def transpose(x, axes=None):
    return bind(R.transpose_p, x, axes=None if axes is None else _axis(axes))


def concatenate(xs, axis=0):
    xs = tuple(xs)
    if not xs:
        raise ValueError("concatenate needs at least one array")
    return bind(R.concatenate_p, *xs, axis=int(axis))


def stack(xs, axis=0):
    """Stack arrays of equal shape along a new axis (reshape, then concatenate)."""
    xs = tuple(xs)
    if not xs:
        raise ValueError("stack needs at least one array")
    shape = np.shape(_value(xs[0]))
    ax = int(axis) % (len(shape) + 1)
    new = (*shape[:ax], 1, *shape[ax:])
    return concatenate([reshape(x, new) for x in xs], axis=ax)


def _value(x):
    """The array inside an engine value (for shape decisions only)."""
    return getattr(x, "_value", x)


# --- what NumPy calls an engine value takes over --------------------------------------

#: ``np.<ufunc>(...)`` on an engine value calls these (``__array_ufunc__``)
UFUNCS = {
    np.add: add,
    np.subtract: sub,
    np.multiply: mul,
    np.divide: div,
    np.power: pow,
    np.negative: neg,
    np.positive: lambda x: x,
    np.exp: exp,
    np.log: log,
    np.sin: sin,
    np.cos: cos,
    np.tanh: tanh,
    np.sqrt: sqrt,
    np.square: square,
    np.absolute: abs,
    np.maximum: maximum,
    np.matmul: matmul,
}

#: ``np.<function>(...)`` on an engine value calls these (``__array_function__``)
FUNCTIONS = {
    np.sum: sum,
    np.mean: mean,
    np.max: max,
    np.amax: max,
    np.reshape: reshape,
    np.transpose: transpose,
    np.concatenate: concatenate,
    np.stack: stack,
    np.dot: dot,
}
