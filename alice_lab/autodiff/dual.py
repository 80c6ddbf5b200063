r"""Forward mode with dual numbers: each value carries its tangent along.

A dual number :math:`a + b\varepsilon` with :math:`\varepsilon^2 = 0` behaves like a
first-order Taylor expansion: :math:`f(a + b\varepsilon) = f(a) + f'(a)\,b\,
\varepsilon`. Products show why: :math:`(a + b\varepsilon)(c + d\varepsilon) = ac +
(ad + bc)\varepsilon`, the product rule. Here the "number" is an array (the primal)
and the :math:`\varepsilon` part is an array of the same shape (the tangent); every
primitive pushes the tangent through its JVP rule as soon as it runs, interleaved with
the program, so nothing needs storing for later. One pass gives one
Jacobian-vector product :math:`\partial f(\mathbf{x})\,\mathbf{v}`: a column of the
Jacobian for :math:`\mathbf{v} = \mathbf{e}_j`, a directional derivative for a scalar
output.

A tangent of ``None`` stands for an exact zero (a constant), so constants cost
nothing.

Book: §6.2, forward-mode differentiation (lines 2746-2820); the JVP footnote (line
2956); "From theory to practice", autodidax (line 3246).

>>> x = Dual(3.0, 1.0)
>>> y = x * x + 2 * x          # y = x^2 + 2x, dy/dx = 2x + 2
>>> float(y.primal), float(y.tangent)
(15.0, 8.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.autodiff.overloads import EngineValue
from alice_lab.autodiff.rules import Primitive, apply_impl

__all__ = ["Dual"]


class Dual(EngineValue):
    """A primal array and its tangent (``None`` for zero), with NumPy's operators.

    >>> y = np.tanh(Dual(np.zeros(2), np.ones(2)))   # tanh'(0) = 1
    >>> y.tangent
    array([1., 1.])
    """

    __slots__ = ("primal", "tangent")

    def __init__(self, primal: Any, tangent: Any = None):
        self.primal = np.asarray(primal)
        if tangent is not None:
            tangent = np.asarray(tangent, dtype=np.result_type(self.primal, tangent))
            if tangent.shape != self.primal.shape:
                raise ValueError(
                    f"the tangent must have the primal's shape {self.primal.shape}; "
                    f"got {tangent.shape}"
                )
        self.tangent = tangent

    @property
    def _value(self) -> np.ndarray:
        return self.primal

    def __repr__(self) -> str:
        t = "0" if self.tangent is None else np.array2string(self.tangent, precision=4)
        return f"Dual({np.array2string(self.primal, precision=4)}, ε·{t})"

    @staticmethod
    def _bind(prim: Primitive, *args, **params) -> Dual:
        for a in args:
            if isinstance(a, EngineValue) and not isinstance(a, Dual):
                raise TypeError(
                    f"{prim.name}: cannot mix a Dual with a {type(a).__name__}"
                )
        primals = [a.primal if isinstance(a, Dual) else a for a in args]
        out = np.asarray(apply_impl(prim, *primals, **params))
        tangent = None
        for i, a in enumerate(args):
            if isinstance(a, Dual) and a.tangent is not None:
                part = prim.jvp_rule(i)(a.tangent, out, *primals, **params)
                part = np.broadcast_to(part, out.shape)  # a broadcast input's tangent
                tangent = part if tangent is None else tangent + part
        return Dual(out, None if tangent is None else np.array(tangent))

    def tangent_or_zeros(self) -> np.ndarray:
        """The tangent with a symbolic zero made explicit."""
        if self.tangent is None:
            return np.zeros_like(self.primal, dtype=np.result_type(self.primal, 0.0))
        return self.tangent
