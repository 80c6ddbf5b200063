"""How engine values take over Python's operators and NumPy's functions.

:class:`EngineValue` is the common base of the reverse-mode
:class:`~alice_lab.autodiff.engine.Tensor` and the forward-mode
:class:`~alice_lab.autodiff.dual.Dual`. It turns ``x + y``, ``A @ x``, ``x[i]``,
``x.sum()`` and NumPy calls such as ``np.tanh(x)`` into primitives applied with the
subclass's ``_bind``. NumPy hands control over through two protocols:
``__array_ufunc__`` (element-wise functions and operators between an ``ndarray`` and
an engine value, so ``A @ x`` with ``A`` a plain array works) and
``__array_function__`` (``np.sum``, ``np.concatenate``, ...). A NumPy function with
no differentiable counterpart raises ``TypeError`` instead of silently dropping the
derivative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.autodiff import ops

__all__ = ["EngineValue"]


def _raw(x: Any) -> Any:
    return x._value if isinstance(x, EngineValue) else x


class EngineValue:
    """Operators, NumPy protocols and array attributes shared by Tensor and Dual.

    Subclasses provide ``_value`` (the NumPy array it stands for) and
    ``_bind(prim, *args, **params)``.
    """

    __slots__ = ()
    __array_priority__ = 1000.0
    __hash__ = object.__hash__  # comparisons are element-wise; hash by identity

    # --- array attributes -------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return self._value.shape

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def size(self) -> int:
        return self._value.size

    @property
    def dtype(self) -> np.dtype:
        return self._value.dtype

    def __len__(self) -> int:
        return len(self._value)

    def item(self) -> Any:
        return self._value.item()

    def __float__(self) -> float:
        return float(self._value)

    def __bool__(self) -> bool:
        raise TypeError(
            f"the truth value of a {type(self).__name__} is ambiguous and not "
            "differentiable; compare its values instead, e.g. float(x) > 0"
        )

    # --- arithmetic -------------------------------------------------------------------

    def __add__(self, other):
        return ops.add(self, other)

    def __radd__(self, other):
        return ops.add(other, self)

    def __sub__(self, other):
        return ops.sub(self, other)

    def __rsub__(self, other):
        return ops.sub(other, self)

    def __mul__(self, other):
        return ops.mul(self, other)

    def __rmul__(self, other):
        return ops.mul(other, self)

    def __truediv__(self, other):
        return ops.div(self, other)

    def __rtruediv__(self, other):
        return ops.div(other, self)

    def __pow__(self, other):
        return ops.pow(self, other)

    def __rpow__(self, other):
        return ops.pow(other, self)

    def __matmul__(self, other):
        return ops.matmul(self, other)

    def __rmatmul__(self, other):
        return ops.matmul(other, self)

    def __neg__(self):
        return ops.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return ops.abs(self)

    def __getitem__(self, index):
        if isinstance(index, tuple):
            index = tuple(_raw(i) for i in index)
        else:
            index = _raw(index)
        return self._bind(ops.R.getitem_p, self, index=index)

    # comparisons give plain boolean arrays: they have no derivative
    def __lt__(self, other):
        return self._value < _raw(other)

    def __le__(self, other):
        return self._value <= _raw(other)

    def __gt__(self, other):
        return self._value > _raw(other)

    def __ge__(self, other):
        return self._value >= _raw(other)

    def __eq__(self, other):  # type: ignore[override]
        return self._value == _raw(other)

    def __ne__(self, other):  # type: ignore[override]
        return self._value != _raw(other)

    # --- methods named like NumPy's ---------------------------------------------------

    def sum(self, axis=None, keepdims=False):
        return ops.sum(self, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        return ops.mean(self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return ops.max(self, axis=axis, keepdims=keepdims)

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return ops.reshape(self, shape)

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes
        return ops.transpose(self, axes or None)

    @property
    def T(self):
        return ops.transpose(self)

    def exp(self):
        return ops.exp(self)

    def log(self):
        return ops.log(self)

    def tanh(self):
        return ops.tanh(self)

    def sigmoid(self):
        return ops.sigmoid(self)

    def relu(self):
        return ops.relu(self)

    # --- NumPy's dispatch protocols ---------------------------------------------------

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        fn = ops.UFUNCS.get(ufunc)
        if method != "__call__" or fn is None or kwargs:
            known = ", ".join(sorted(f"np.{u.__name__}" for u in ops.UFUNCS))
            call = f"np.{ufunc.__name__}" + (
                "" if method == "__call__" else f".{method}"
            )
            extra = f" with {sorted(kwargs)}" if kwargs else ""
            raise TypeError(
                f"{call}{extra} is not differentiable by alice_lab.autodiff; "
                f"supported NumPy ufuncs: {known}"
            )
        return fn(*inputs)

    def __array_function__(self, func, types, args, kwargs):
        fn = ops.FUNCTIONS.get(func)
        if fn is None:
            known = ", ".join(sorted(f"np.{f.__name__}" for f in ops.FUNCTIONS))
            raise TypeError(
                f"np.{func.__name__} is not differentiable by alice_lab.autodiff; "
                f"supported NumPy functions: {known} (and the ufuncs)"
            )
        return fn(*args, **kwargs)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            f"a {type(self).__name__} cannot be turned into a NumPy array implicitly "
            "(its derivative would be lost); use .numpy() for the values"
        )

    def numpy(self) -> np.ndarray:
        """A copy of the values as a plain NumPy array (no derivative attached)."""
        return np.array(self._value)
