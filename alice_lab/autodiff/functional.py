r"""The functional interface: ``grad``, ``vjp``, ``jvp`` and Jacobians of functions.

These take an ordinary Python function written with NumPy operators and functions
(``lambda x: A @ x``, ``lambda x: (x * x).sum()``, ``lambda x: np.tanh(x)``) and
return derivatives as plain NumPy arrays, with the signatures of JAX and
``torch.func`` that the book describes:

- ``vjp(f, x)`` returns ``(f(x), vjp_fn)`` with ``vjp_fn(v)`` :math:`= \mathbf{v}^\top
  \partial f(\mathbf{x})`: :math:`(\mathbb{R}^c\to\mathbb{R}^{c'})\to\mathbb{R}^c\to
  (\mathbb{R}^{c'}\to\mathbb{R}^c)`; it runs ``f`` once on :class:`Tensor` leaves and
  each call of ``vjp_fn`` is one backward pass;
- ``grad(f)`` returns :math:`\nabla f`, a function
  :math:`\mathbb{R}^c\to\mathbb{R}^c`, for scalar ``f`` (the VJP with v = 1);
- ``jvp(f, x, v)`` returns ``(f(x), `` :math:`\partial f(\mathbf{x})\,\mathbf{v}`
  ``)`` in one forward pass with dual numbers.

A Jacobian :math:`(c', c)` is c' VJPs (one row each, reverse mode) or c JVPs (one
column each, forward mode); :func:`jacobian_from_vjps` and :func:`jacobian_from_jvps`
say how many calls they made, which is why reverse mode wins for scalar losses.

Book: §6.4.1 (VJPs, lines 2954-3016), §6.4.2 (higher-order signatures, lines
3136-3156), JVP footnote (line 2956).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_lab.autodiff.dual import Dual
from alice_lab.autodiff.engine import Tensor, backward_pass
from alice_lab.autodiff.overloads import EngineValue

__all__ = [
    "JacobianResult",
    "grad",
    "jacobian",
    "jacobian_from_jvps",
    "jacobian_from_vjps",
    "jvp",
    "value_and_grad",
    "vjp",
]


def _input(x: Any, what: str) -> np.ndarray:
    """A floating NumPy array to differentiate with respect to, or a clear error."""
    if isinstance(x, EngineValue):
        raise TypeError(f"{what}: pass NumPy arrays, not a {type(x).__name__}")
    arr = np.asarray(x)
    if not np.issubdtype(arr.dtype, np.floating):
        raise TypeError(
            f"{what}: cannot differentiate with respect to an input of dtype "
            f"{arr.dtype}; derivatives need floating-point inputs (use "
            "x.astype(float) for a quantity that is really continuous)"
        )
    return arr


def _output_tensor(out: Any, what: str) -> Tensor:
    if isinstance(out, Tensor):
        return out
    if isinstance(out, EngineValue):
        raise TypeError(f"{what}: f returned a {type(out).__name__}, not a Tensor")
    return Tensor(np.asarray(out))  # f ignored its input: a constant


def vjp(f: Callable, *primals: Any) -> tuple[np.ndarray, Callable]:
    r"""``(f(*primals), vjp_fn)``: reverse mode, one forward pass, a backward per call.

    ``vjp_fn(v)`` with v shaped like ``f``'s output returns
    :math:`\mathbf{v}^\top\partial f`, shaped like the primal (a tuple of arrays
    when there are several primals, one VJP per argument as the book's
    :math:`\mathrm{vjp}_{f,\mathbf{x}}` and :math:`\mathrm{vjp}_{f,\mathbf{w}}`).
    ``vjp_fn.calls`` counts the backward passes so far.

    >>> import numpy as np; W = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> y, vjp_fn = vjp(lambda x: W @ x, np.ones(3))
    >>> vjp_fn(np.array([1.0, 0.0]))          # v^T W = the first row of W
    array([1., 2., 3.])
    """
    if not primals:
        raise TypeError("vjp(f, x, ...) needs at least one primal input")
    leaves = [Tensor(_input(x, "vjp"), requires_grad=True) for x in primals]
    out = _output_tensor(f(*leaves), "vjp")
    y = out.data

    def vjp_fn(v: Any):
        v = np.asarray(v._value if isinstance(v, EngineValue) else v)
        if v.shape != y.shape:
            raise ValueError(
                f"vjp_fn: the cotangent must have the output's shape {y.shape}; "
                f"got {v.shape}"
            )
        vjp_fn.calls += 1
        adj = (
            backward_pass(out, v.astype(y.dtype, copy=False))
            if out.requires_grad
            else {}
        )
        grads = tuple(
            np.array(adj[leaf]) if leaf in adj else np.zeros_like(leaf.data)
            for leaf in leaves
        )
        return grads[0] if len(grads) == 1 else grads

    vjp_fn.calls = 0
    return y, vjp_fn


def value_and_grad(f: Callable, argnums: int | tuple[int, ...] = 0) -> Callable:
    """Like :func:`grad`, returning ``(f(x), gradient)``."""
    many = isinstance(argnums, tuple)
    nums = argnums if many else (argnums,)

    def vg(*args):
        for k in nums:
            if not -len(args) <= k < len(args):
                raise ValueError(f"argnums {k} is out of range for {len(args)} args")
        fixed = list(args)

        def g(*diff):
            call = list(fixed)
            for k, d in zip(nums, diff, strict=True):
                call[k] = d
            return f(*call)

        y, vjp_fn = vjp(g, *(args[k] for k in nums))
        if y.size != 1:
            raise ValueError(
                f"grad needs a scalar-valued function; f returned shape {y.shape} "
                "(use vjp or jacobian for vector outputs)"
            )
        grads = vjp_fn(np.ones_like(y))
        return y, grads

    return vg


def grad(f: Callable, argnums: int | tuple[int, ...] = 0) -> Callable:
    r""":math:`\nabla f` as a new function (``argnums`` picks the argument(s)).

    >>> import numpy as np
    >>> grad(lambda x: (x * x).sum())(np.array([1.0, -2.0]))
    array([ 2., -4.])
    """
    vg = value_and_grad(f, argnums)

    def grad_f(*args):
        return vg(*args)[1]

    return grad_f


def jvp(f: Callable, primals: Any, tangents: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""``(f(x), ∂f(x) v)`` in one forward pass with dual numbers.

    ``primals`` and ``tangents`` are arrays, or tuples of arrays for a function of
    several arguments (as ``jax.jvp``).

    >>> import numpy as np
    >>> jvp(np.sin, np.array(0.0), np.array(2.0))   # cos(0) * 2
    (array(0.), array(2.))
    """
    many = isinstance(primals, tuple)
    xs = primals if many else (primals,)
    vs = tangents if many else (tangents,)
    if not isinstance(vs, tuple) or len(vs) != len(xs):
        raise ValueError("jvp needs one tangent per primal")
    duals = []
    for x, v in zip(xs, vs, strict=True):
        x = _input(x, "jvp")
        v = np.asarray(v, dtype=x.dtype)
        if v.shape != x.shape:
            raise ValueError(
                f"jvp: the tangent must have the primal's shape {x.shape}; got "
                f"{v.shape}"
            )
        duals.append(Dual(x, v))
    out = f(*duals)
    if isinstance(out, Dual):
        return out.primal, out.tangent_or_zeros()
    if isinstance(out, EngineValue):
        raise TypeError(f"jvp: f returned a {type(out).__name__}, not a Dual")
    out = np.asarray(out)
    return out, np.zeros_like(out, dtype=np.result_type(out, 0.0))


@dataclass(frozen=True)
class JacobianResult:
    """A Jacobian and what it cost.

    matrix : ``f(x).shape + x.shape``. mode : ``"reverse"`` or ``"forward"``.
    calls : VJP calls (reverse: one per output entry) or JVP calls (forward: one per
    input entry). forward_passes : evaluations of ``f`` (reverse mode runs f once;
    forward mode runs it once per JVP, interleaved).
    """

    matrix: np.ndarray
    mode: str
    calls: int
    forward_passes: int


def jacobian_from_vjps(f: Callable, x: Any) -> JacobianResult:
    r"""Stack :math:`\mathrm{vjp}(\mathbf{e}_k)` for the c' output basis vectors: row k
    of the Jacobian is the VJP with the k-th basis vector of the *output* space."""
    x = _input(x, "jacobian_from_vjps")
    y, vjp_fn = vjp(f, x)
    basis = np.eye(y.size, dtype=y.dtype)
    rows = [vjp_fn(e.reshape(y.shape)) for e in basis]
    J = (
        np.stack(rows).reshape(y.shape + x.shape)
        if rows
        else np.zeros(y.shape + x.shape)
    )
    return JacobianResult(J, "reverse", vjp_fn.calls, 1)


def jacobian_from_jvps(f: Callable, x: Any) -> JacobianResult:
    r"""Stack :math:`\partial f(\mathbf{x})\,\mathbf{e}_j` for the c input basis
    vectors: column j of the Jacobian is the JVP with the j-th input basis vector."""
    x = _input(x, "jacobian_from_jvps")
    basis = np.eye(x.size, dtype=x.dtype)
    cols = [jvp(f, x, e.reshape(x.shape))[1] for e in basis]
    if not cols:
        y = np.asarray(f(x))
        return JacobianResult(np.zeros(y.shape + x.shape), "forward", 0, 0)
    y_shape = cols[0].shape
    J = np.stack(cols, axis=-1).reshape(y_shape + x.shape)
    return JacobianResult(J, "forward", len(cols), len(cols))


def jacobian(f: Callable, x: Any, mode: str = "reverse") -> np.ndarray:
    """The Jacobian ``f(x).shape + x.shape``, by stacked VJPs (``"reverse"``) or JVPs
    (``"forward"``).

    >>> import numpy as np; W = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> jacobian(lambda x: W @ x, np.zeros(2)).shape   # (c', c) = (3, 2)
    (3, 2)
    """
    if mode == "reverse":
        return jacobian_from_vjps(f, x).matrix
    if mode == "forward":
        return jacobian_from_jvps(f, x).matrix
    raise ValueError(f"mode must be 'reverse' or 'forward'; got {mode!r}")
