r"""Gradient descent and momentum as chapter 2 writes them (:func:`gradient_descent`),
keeping the whole path and the gradient norms, for many starting points at once, and
stopping with a :class:`DivergenceError` instead of filling the path with ``inf``.

Book: §2.3 (lines 882-1100).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_lab.backend import (
    array_namespace,
    as_float_array,
    check_int,
    check_positive,
    to_numpy,
)

__all__ = ["DivergenceError", "GDResult", "gradient_descent"]


#: an iterate larger than this (in absolute value) counts as diverged
DIVERGENCE_LIMIT = 1e100


class DivergenceError(RuntimeError):
    """Gradient descent produced a non-finite (or astronomically large) iterate or
    gradient, almost always because the step size is too large for the function.

    Attributes: ``step`` (the iteration that failed) and ``last_x`` (the last iterate
    whose value and gradient were finite, as a NumPy array).
    """

    def __init__(self, message: str, *, step: int, last_x: np.ndarray):
        super().__init__(message)
        self.step = step
        self.last_x = last_x


@dataclass(frozen=True)
class GDResult:
    """What :func:`gradient_descent` returns; arrays are in the namespace of ``x0``.

    Attributes
    ----------
    x : array, shape of ``x0``
        The final iterate :math:`\\mathbf{x}_T`.
    path : (T + 1, *x0.shape) array
        :math:`\\mathbf{x}_0, \\dots, \\mathbf{x}_T`.
    grad_norms : (T + 1, *x0.shape[:-1]) array
        :math:`\\lVert\\nabla f(\\mathbf{x}_t)\\rVert` over the last axis, for t = 0..T
        (the absolute value of the derivative when ``x0`` is a scalar).
    steps_taken : int
        T, the number of updates made (fewer than ``steps`` when ``tol`` was reached).
    converged : bool
        True when ``tol`` was given and every gradient norm fell below it.
    """

    x: Any
    path: Any
    grad_norms: Any
    steps_taken: int
    converged: bool


def _check_hyper(lr: Any, momentum: Any, steps: Any, tol: Any) -> tuple:
    lr = check_positive(lr, "lr")
    try:
        lam = float(momentum)
    except (TypeError, ValueError):
        raise ValueError(
            f"momentum must be a number in [0, 1); got {momentum!r}"
        ) from None
    if not 0.0 <= lam < 1.0:
        raise ValueError(f"momentum must lie in [0, 1); got {momentum!r}")
    steps = check_int(steps, "steps", low=0)
    if tol is not None:
        tol = check_positive(tol, "tol")
    return lr, lam, steps, tol


def _norms(g: Any, xp: Any) -> Any:
    """Gradient norms over the last axis (absolute value for a 0-d gradient)."""
    if g.ndim == 0:
        return xp.abs(g)
    return xp.linalg.vector_norm(g, axis=-1)


def _first_grad(grad_fn: Callable, x: Any, xp: Any) -> Any:
    g = grad_fn(x)
    if not hasattr(g, "shape"):
        raise ValueError(
            f"grad_fn must return an array shaped like x {tuple(x.shape)}; "
            f"got {type(g)}"
        )
    if tuple(g.shape) != tuple(x.shape):
        raise ValueError(
            f"grad_fn returned shape {tuple(g.shape)} for x of shape {tuple(x.shape)}; "
            "the gradient must have the shape of x"
        )
    if array_namespace(g) is not xp:
        raise ValueError(
            "grad_fn must return an array of the same library as x0; got "
            f"{type(g).__module__}.{type(g).__name__} for {type(x).__module__}."
            f"{type(x).__name__}"
        )
    if not bool(xp.all(xp.isfinite(g))):
        raise ValueError("grad_fn returned NaN or inf at the starting point x0")
    return g


def _divergence(bad: Any, what: str, x_last: Any, step: int, lr: float, xp: Any):
    """A DivergenceError when the boolean array ``bad`` has a True entry, else None."""
    if not bool(xp.any(bad)):
        return None
    last = to_numpy(x_last)
    shown = np.array2string(last, precision=6, threshold=12)
    return DivergenceError(
        f"gradient descent diverged at step {step}: {what}. Last finite iterate "
        f"x_{step - 1} = {shown}. The step size lr={lr:g} is probably too large for "
        "this function: lower lr (and/or momentum).",
        step=step,
        last_x=last,
    )


def gradient_descent(
    grad_fn: Callable[[Any], Any],
    x0: Any,
    *,
    lr: float,
    momentum: float = 0.0,
    steps: int,
    tol: float | None = None,
    progress: bool = False,
) -> GDResult:
    r"""Steepest gradient descent, with the book's momentum when ``momentum > 0``.

    With ``momentum = 0`` this is exactly
    :math:`\mathbf{x}_t = \mathbf{x}_{t-1} - \eta\nabla f(\mathbf{x}_{t-1})`;
    otherwise :math:`\mathbf{g}_t = -\eta\nabla f(\mathbf{x}_{t-1}) + \lambda
    \mathbf{g}_{t-1}`, :math:`\mathbf{x}_t = \mathbf{x}_{t-1} + \mathbf{g}_t`,
    :math:`\mathbf{g}_0 = \mathbf{0}`. The step size is constant.

    Parameters
    ----------
    grad_fn : callable, ``x -> ∇f(x)`` of the same shape and array library as ``x``.
        For several starting points it must be vectorised over the leading axis.
    x0 : (d,) array, or (k, d) for k independent starts (a 0-d array for a scalar
        function of one variable). NumPy, torch or JAX; lists become NumPy float64.
    lr : float > 0, the step size :math:`\eta`.
    momentum : float in [0, 1), :math:`\lambda`.
    steps : int >= 0, the maximum number of updates.
    tol : float > 0, optional. Stop as soon as every start has
        :math:`\lVert\nabla f(\mathbf{x}_t)\rVert < \mathrm{tol}`.
    progress : bool, show a ``tqdm`` progress bar.

    Returns
    -------
    GDResult with ``x``, ``path (T+1, *x0.shape)``,
    ``grad_norms (T+1, *x0.shape[:-1])``, ``steps_taken`` (T) and ``converged``.

    Raises
    ------
    ValueError for bad hyper-parameters, a non-finite ``x0`` or a ``grad_fn`` whose
    output does not match ``x0`` (checked on the first call); DivergenceError when an
    iterate or gradient stops being finite.

    Book: §2.3, E.2.27 (lines 948-962); §2.3.2, momentum
    (lines 1066-1078).

    >>> import numpy as np
    >>> from alice_lab.testfuncs import dquad_1d
    >>> res = gradient_descent(dquad_1d, np.array([2.0]), lr=0.25, steps=3)
    >>> res.path[:, 0].tolist(), res.steps_taken
    ([2.0, 1.375, 1.0625, 0.90625], 3)
    """
    lr, lam, steps, tol = _check_hyper(lr, momentum, steps, tol)
    x = as_float_array(x0, "x0")
    xp = array_namespace(x)
    if not bool(xp.all(xp.isfinite(x))):
        raise ValueError("x0 contains NaN or inf; every starting point must be finite")
    grad = _first_grad(grad_fn, x, xp)
    g = None  # the momentum buffer g_t; g_0 = 0 is implicit
    path, norms = [x], [_norms(grad, xp)]

    iterator = range(1, steps + 1)
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(iterator, desc="gradient descent", leave=False)
    converged = tol is not None and bool(xp.all(norms[-1] < tol))
    taken = 0
    for t in iterator:
        if converged:
            break
        if lam == 0.0:
            x_new = x - lr * grad  # steepest descent, eq. gradient_descent
        else:
            g = -(lr * grad) if g is None else -(lr * grad) + lam * g
            x_new = x + g
        bad = ~xp.isfinite(x_new) | (xp.abs(x_new) > DIVERGENCE_LIMIT)
        error = _divergence(
            bad,
            f"the iterate became non-finite or exceeded "
            f"{DIVERGENCE_LIMIT:g} in absolute value",
            x,
            t,
            lr,
            xp,
        )
        if error is None:
            grad = grad_fn(x_new)
            error = _divergence(
                ~xp.isfinite(grad), "the gradient became non-finite", x, t, lr, xp
            )
        if error is not None:
            if progress:
                iterator.close()
            raise error
        x, taken = x_new, t
        path.append(x)
        norms.append(_norms(grad, xp))
        if tol is not None:
            converged = bool(xp.all(norms[-1] < tol))
    if progress:
        iterator.close()
    return GDResult(
        x=x,
        path=xp.stack(path, axis=0),
        grad_norms=xp.stack(norms, axis=0),
        steps_taken=taken,
        converged=converged,
    )
