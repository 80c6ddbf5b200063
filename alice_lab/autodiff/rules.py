r"""Primitives: each forward computation with its VJP and JVP rules beside it.

A *primitive* is an operation the engine does not look inside: it knows how to compute
it (``impl``, plain NumPy) and, for every argument, how to pull a cotangent back
through it (a VJP, used by reverse mode) and how to push a tangent forward through it
(a JVP, used by forward mode). For ``z = f(x, w)`` the book writes these as

.. math:: \mathrm{vjp}_{f,\mathbf{x}}(\mathbf{v}) = \mathbf{v}^\top\partial_\mathbf{x}f,
   \qquad \mathrm{vjp}_{f,\mathbf{w}}(\mathbf{v}) = \mathbf{v}^\top\partial_\mathbf{w}f,

and the JVPs are the transposed maps :math:`\mathbf{t}\mapsto\partial_\mathbf{x}f\,
\mathbf{t}`. No Jacobian is ever built: each rule is a few array operations.

Rule signatures (``z`` is the forward output, reused where it saves work)::

    vjp[i](g, z, *args, **params) -> cotangent of args[i], shaped like args[i]
    jvp[i](t, z, *args, **params) -> contribution of args[i]'s tangent t to z's tangent

Broadcasting in the forward pass copies an operand along new or size-1 axes; its
adjoint sums over those axes (:func:`unbroadcast`). JVP contributions may come back
unbroadcast; the forward-mode machinery broadcasts them to ``z``'s shape.

Calling a primitive goes through :func:`bind`: on plain arrays it just runs ``impl``;
when an argument is an engine value (a :class:`~alice_lab.autodiff.engine.Tensor` or a
:class:`~alice_lab.autodiff.dual.Dual`) that value's type takes over.

The :class:`Primitive` machinery (:func:`defprimitive`, :func:`bind`,
:func:`unbroadcast`) lives in :mod:`alice_lab.autodiff.primitive` and is re-exported
here; this module holds the rules.

Book: §6.1 (primitives, lines 2670-2684), §6.4.1 (VJPs, lines 2954-3108), footnote on
JVPs (line 2956).
"""

from __future__ import annotations

import numpy as np

from alice_lab.autodiff.primitive import (
    PRIMITIVES,
    Primitive,
    _expand,
    apply_impl,
    bind,
    defprimitive,
    unbroadcast,
)

__all__ = [
    "PRIMITIVES",
    "Primitive",
    "apply_impl",
    "bind",
    "defprimitive",
    "unbroadcast",
]


# =====================================================================================
# Arithmetic: z = x + y, x - y, -x, x * y, x / y, x ** y (NumPy broadcasting)
# =====================================================================================

add_p = defprimitive(
    "add",
    lambda x, y: np.add(x, y),
    vjp=(lambda g, z, x, y: unbroadcast(g, x), lambda g, z, x, y: unbroadcast(g, y)),
    jvp=(lambda t, z, x, y: t, lambda t, z, x, y: t),
)

sub_p = defprimitive(
    "sub",
    lambda x, y: np.subtract(x, y),
    vjp=(lambda g, z, x, y: unbroadcast(g, x), lambda g, z, x, y: unbroadcast(-g, y)),
    jvp=(lambda t, z, x, y: t, lambda t, z, x, y: -t),
)

neg_p = defprimitive(
    "neg",
    lambda x: np.negative(x),
    vjp=(lambda g, z, x: -g,),
    jvp=(lambda t, z, x: -t,),
)

mul_p = defprimitive(  # d(xy) = y dx + x dy
    "mul",
    lambda x, y: np.multiply(x, y),
    vjp=(
        lambda g, z, x, y: unbroadcast(g * y, x),
        lambda g, z, x, y: unbroadcast(g * x, y),
    ),
    jvp=(lambda t, z, x, y: t * y, lambda t, z, x, y: x * t),
)

div_p = defprimitive(  # d(x/y) = dx / y - (x/y) dy / y
    "div",
    lambda x, y: np.divide(x, y),
    vjp=(
        lambda g, z, x, y: unbroadcast(g / y, x),
        lambda g, z, x, y: unbroadcast(-g * z / y, y),
    ),
    jvp=(lambda t, z, x, y: t / y, lambda t, z, x, y: -t * z / y),
)


def _log_base(x):
    """log x where x > 0 and 0 elsewhere: d(x^y)/dy = x^y log x is only needed (and
    only defined) for positive bases."""
    x = np.asarray(x)
    return np.log(np.where(x > 0, x, 1))


pow_p = defprimitive(  # d(x^y) = y x^(y-1) dx + x^y log(x) dy
    "pow",
    lambda x, y: np.power(x, y),
    vjp=(
        lambda g, z, x, y: unbroadcast(g * y * np.power(x, y - 1), x),
        lambda g, z, x, y: unbroadcast(g * z * _log_base(x), y),
    ),
    jvp=(
        lambda t, z, x, y: t * y * np.power(x, y - 1),
        lambda t, z, x, y: t * z * _log_base(x),
    ),
)

# =====================================================================================
# Element-wise functions: the Jacobian is diagonal, so both rules scale by phi'(x)
# (book eq. backward_pass_activation_function, line 3100)
# =====================================================================================

exp_p = defprimitive(  # exp' = exp: reuse the output
    "exp",
    lambda x: np.exp(x),
    vjp=(lambda g, z, x: g * z,),
    jvp=(lambda t, z, x: t * z,),
)

log_p = defprimitive(
    "log",
    lambda x: np.log(x),
    vjp=(lambda g, z, x: g / x,),
    jvp=(lambda t, z, x: t / x,),
)

sin_p = defprimitive(
    "sin",
    lambda x: np.sin(x),
    vjp=(lambda g, z, x: g * np.cos(x),),
    jvp=(lambda t, z, x: t * np.cos(x),),
)

cos_p = defprimitive(
    "cos",
    lambda x: np.cos(x),
    vjp=(lambda g, z, x: -g * np.sin(x),),
    jvp=(lambda t, z, x: -t * np.sin(x),),
)

tanh_p = defprimitive(  # tanh' = 1 - tanh^2
    "tanh",
    lambda x: np.tanh(x),
    vjp=(lambda g, z, x: g * (1 - z * z),),
    jvp=(lambda t, z, x: t * (1 - z * z),),
)

sigmoid_p = defprimitive(  # sigma' = sigma (1 - sigma); via tanh: no overflow for any x
    "sigmoid",
    lambda x: 0.5 * (np.tanh(0.5 * np.asarray(x)) + 1),
    vjp=(lambda g, z, x: g * z * (1 - z),),
    jvp=(lambda t, z, x: t * z * (1 - z),),
)

relu_p = defprimitive(  # ReLU'(s) = 1 for s > 0, else 0 (the subgradient 0 at s = 0)
    "relu",
    lambda x: np.maximum(x, 0),
    vjp=(lambda g, z, x: g * (x > 0),),
    jvp=(lambda t, z, x: t * (x > 0),),
)

abs_p = defprimitive(  # |x|' = sign(x), and 0 at x = 0 (a subgradient)
    "abs",
    lambda x: np.abs(x),
    vjp=(lambda g, z, x: g * np.sign(x),),
    jvp=(lambda t, z, x: t * np.sign(x),),
)


def _tie_share(x, y, g):
    """The share of max(x, y)'s gradient that goes to x: 1, 0, or 1/2 on ties (as JAX
    does; a different but equally valid subgradient than ReLU's 0 at 0)."""
    share = np.where(np.greater(x, y), 1.0, np.where(np.equal(x, y), 0.5, 0.0))
    return share.astype(np.result_type(g), copy=False)


maximum_p = defprimitive(
    "maximum",
    lambda x, y: np.maximum(x, y),
    vjp=(
        lambda g, z, x, y: unbroadcast(g * _tie_share(x, y, g), x),
        lambda g, z, x, y: unbroadcast(g * _tie_share(y, x, g), y),
    ),
    jvp=(
        lambda t, z, x, y: t * _tie_share(x, y, t),
        lambda t, z, x, y: t * _tie_share(y, x, t),
    ),
)

# =====================================================================================
# Reductions: the adjoint of a sum copies g back along the summed axes
# =====================================================================================

sum_p = defprimitive(
    "sum",
    lambda x, axis=None, keepdims=False: np.sum(x, axis=axis, keepdims=keepdims),
    vjp=(
        lambda g, z, x, axis=None, keepdims=False: np.broadcast_to(
            g if keepdims else _expand(g, axis, np.ndim(x)), np.shape(x)
        ),
    ),
    jvp=(
        lambda t, z, x, axis=None, keepdims=False: t.sum(axis=axis, keepdims=keepdims),
    ),
)


def _count(x, axis) -> int:
    """How many entries a reduction over ``axis`` averages."""
    if axis is None:
        return int(np.size(x))
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    return int(np.prod([np.shape(x)[a] for a in axes]))


mean_p = defprimitive(
    "mean",
    lambda x, axis=None, keepdims=False: np.mean(x, axis=axis, keepdims=keepdims),
    vjp=(
        lambda g, z, x, axis=None, keepdims=False: np.broadcast_to(
            (g if keepdims else _expand(g, axis, np.ndim(x))) / _count(x, axis),
            np.shape(x),
        ),
    ),
    jvp=(
        lambda t, z, x, axis=None, keepdims=False: t.mean(axis=axis, keepdims=keepdims),
    ),
)


def _argmax_mask(z, x, axis, keepdims):
    """Where x attains its max along ``axis``, divided by the number of ties."""
    zz = z if keepdims else _expand(z, axis, np.ndim(x))
    hit = (x == zz).astype(np.result_type(x), copy=False)
    return hit / hit.sum(axis=axis, keepdims=True)


max_p = defprimitive(  # the gradient flows to the arg-max (shared equally between ties)
    "max",
    lambda x, axis=None, keepdims=False: np.max(x, axis=axis, keepdims=keepdims),
    vjp=(
        lambda g, z, x, axis=None, keepdims=False: (
            (g if keepdims else _expand(g, axis, np.ndim(x)))
            * _argmax_mask(z, x, axis, keepdims)
        ),
    ),
    jvp=(
        lambda t, z, x, axis=None, keepdims=False: (
            t * _argmax_mask(z, x, axis, keepdims)
        ).sum(axis=axis, keepdims=keepdims),
    ),
)

# =====================================================================================
# Shape: reshape, transpose, indexing, concatenation (linear maps: the VJP undoes
# the rearrangement, the JVP repeats it)
# =====================================================================================

reshape_p = defprimitive(
    "reshape",
    lambda x, shape: np.reshape(x, shape),
    vjp=(lambda g, z, x, shape: np.reshape(g, np.shape(x)),),
    jvp=(lambda t, z, x, shape: np.reshape(t, shape),),
)

transpose_p = defprimitive(
    "transpose",
    lambda x, axes=None: np.transpose(x, axes),
    vjp=(
        lambda g, z, x, axes=None: np.transpose(
            g, None if axes is None else np.argsort(axes)
        ),
    ),
    jvp=(lambda t, z, x, axes=None: np.transpose(t, axes),),
)


def _getitem_vjp(g, z, x, index):
    """Scatter g back into zeros; ``np.add.at`` adds up entries picked twice."""
    out = np.zeros(np.shape(x), dtype=np.result_type(g))
    np.add.at(out, index, g)
    return out


getitem_p = defprimitive(
    "getitem",
    lambda x, index: np.asarray(x)[index],
    vjp=(_getitem_vjp,),
    jvp=(lambda t, z, x, index: np.broadcast_to(t, np.shape(x))[index],),
)


def _concat_bounds(xs, axis):
    sizes = [np.shape(x)[axis] for x in xs]
    return np.cumsum([0, *sizes])


def _concat_vjp(i):
    def rule(g, z, *xs, axis=0):
        lo, hi = _concat_bounds(xs, axis)[i : i + 2]
        return np.take(g, np.arange(lo, hi), axis=axis)

    return rule


def _concat_jvp(i):
    def rule(t, z, *xs, axis=0):
        parts = [
            np.broadcast_to(t, np.shape(x))
            if j == i
            else np.zeros_like(x, dtype=t.dtype)
            for j, x in enumerate(xs)
        ]
        return np.concatenate(parts, axis=axis)

    return rule


concatenate_p = defprimitive(
    "concatenate",
    lambda *xs, axis=0: np.concatenate(xs, axis=axis),
    vjp=_concat_vjp,
    jvp=_concat_jvp,
)

# =====================================================================================
# Matrix multiplication (book §6.4.1, lines 3026-3068): for Z = X W,
#   input VJP  dX = G W^T   (the book's v^T W = [W^T v]^T for f(x) = W x)
#   weight VJP dW = X^T G   (a sum of outer products v x^T, one per row)
# =====================================================================================


def _as_matrices(x, y):
    """Promote 1-D operands the way ``np.matmul`` does: x (k,) -> (1, k), y (k,) ->
    (k, 1)."""
    x2 = x[None, :] if np.ndim(x) == 1 else x
    y2 = y[:, None] if np.ndim(y) == 1 else y
    return x2, y2


def _as_out_matrix(g, x, y):
    """The output cotangent with the axes that 1-D operands dropped put back."""
    if np.ndim(y) == 1:
        g = g[..., None]
    if np.ndim(x) == 1:
        g = g[..., None, :]
    return g


def _matmul_vjp_x(g, z, x, y):
    x2, y2 = _as_matrices(x, y)
    dx = _as_out_matrix(g, x, y) @ np.swapaxes(y2, -1, -2)  # (..., n, m) @ (..., m, k)
    dx = unbroadcast(dx, x2)
    return dx.reshape(np.shape(x))


def _matmul_vjp_y(g, z, x, y):
    x2, y2 = _as_matrices(x, y)
    dy = np.swapaxes(x2, -1, -2) @ _as_out_matrix(g, x, y)  # (..., k, n) @ (..., n, m)
    dy = unbroadcast(dy, y2)
    return dy.reshape(np.shape(y))


matmul_p = defprimitive(
    "matmul",
    lambda x, y: np.matmul(x, y),
    vjp=(_matmul_vjp_x, _matmul_vjp_y),
    jvp=(lambda t, z, x, y: t @ y, lambda t, z, x, y: x @ t),
)

# =====================================================================================
# logsumexp, softmax, log-softmax (book §4.3.2): computed with the max subtracted;
# the gradient of logsumexp is the softmax
# =====================================================================================


def _logsumexp(x, axis=-1, keepdims=False):
    x = np.asarray(x)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _softmax_of(z, x, axis, keepdims):
    """softmax(x) from logsumexp's output z, without recomputing the max."""
    return np.exp(x - (z if keepdims else np.expand_dims(z, axis)))


logsumexp_p = defprimitive(
    "logsumexp",
    _logsumexp,
    vjp=(
        lambda g, z, x, axis=-1, keepdims=False: (
            (g if keepdims else np.expand_dims(g, axis))
            * _softmax_of(z, x, axis, keepdims)
        ),
    ),
    jvp=(
        lambda t, z, x, axis=-1, keepdims=False: (
            t * _softmax_of(z, x, axis, keepdims)
        ).sum(axis=axis, keepdims=keepdims),
    ),
)


def _softmax(x, axis=-1):
    return np.exp(np.asarray(x) - _logsumexp(x, axis=axis, keepdims=True))


softmax_p = defprimitive(  # vjp: z * (g - <g, z>), with the inner product along axis
    "softmax",
    _softmax,
    vjp=(lambda g, z, x, axis=-1: z * (g - (g * z).sum(axis=axis, keepdims=True)),),
    jvp=(lambda t, z, x, axis=-1: z * (t - (t * z).sum(axis=axis, keepdims=True)),),
)

log_softmax_p = defprimitive(  # vjp: g - softmax * sum(g)
    "log_softmax",
    lambda x, axis=-1: np.asarray(x) - _logsumexp(x, axis=axis, keepdims=True),
    vjp=(lambda g, z, x, axis=-1: g - np.exp(z) * g.sum(axis=axis, keepdims=True),),
    jvp=(lambda t, z, x, axis=-1: t - (np.exp(z) * t).sum(axis=axis, keepdims=True),),
)
