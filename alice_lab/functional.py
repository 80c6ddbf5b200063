r"""Numerically stable logsumexp, softmax and log-softmax, for any array backend.

The softmax turns a vector of logits :math:`\mathbf{p}` into probabilities,
:math:`[\mathrm{softmax}(\mathbf{p})]_i = \exp(p_i) / \sum_j \exp(p_j)`. Computed as
written it overflows as soon as a logit exceeds about 709 in float64 (88.7 in float32).
The fix is the *logsumexp trick*: for any constant c,

.. math:: \mathrm{logsumexp}(\mathbf{p}) = \log\sum_j \exp p_j
          = \mathrm{logsumexp}(\mathbf{p} - c) + c,

and with :math:`c = \max_j p_j` every exponent is at most 0, so nothing overflows and
the largest term is exactly 1, so the sum never underflows to 0 either. The book states
the identity for :math:`c \ge 0`; it holds for every real c.

Infinite and NaN entries behave as :func:`scipy.special.logsumexp` does: a row of
only :math:`-\infty` gives :math:`-\infty`, any :math:`+\infty` gives
:math:`+\infty`, a NaN gives NaN, all without floating-point warnings.

The gradient of logsumexp is the softmax (the book's line 2014 prints the two the
other way round); ``tests/test_functional.py`` checks it with torch and JAX autodiff.

The two-class case gives the sigmoid :func:`sigmoid` (computed from
:math:`\exp(-|s|)`, so it never overflows either), whose inverse is the log-odds
:func:`logit`; :func:`one_hot` turns integer labels into vertices of the simplex.

Book: §4.2.1, the softmax (lines 1622-1722), §4.3.1, the sigmoid and the logit
(lines 1850-1946), and §4.3.2, the logsumexp trick (lines 1952-2014).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from alice_lab.backend import (
    array_namespace,
    as_float_array,
    check_int,
    check_labels,
    device_of,
)

__all__ = ["log_softmax", "logit", "logsumexp", "one_hot", "sigmoid", "softmax"]


def _prepare(x: Any, axis: Any) -> tuple[Any, Any, int]:
    """``x`` as a float array (:func:`~alice_lab.backend.as_float_array`), its
    namespace, and the axis normalised."""
    x = as_float_array(x)
    xp = array_namespace(x)
    if x.ndim == 0:
        raise ValueError("expected an array with at least one axis; got a 0-d array")
    try:
        axis = operator.index(axis)
    except TypeError:
        raise ValueError(f"axis must be an int; got {axis!r}") from None
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(
            f"axis {axis} is out of range for an array of shape {tuple(x.shape)}"
        )
    return x, xp, axis % x.ndim


def _shifted_sum(x: Any, xp: Any, axis: int) -> tuple[Any, Any, Any]:
    """``x - c``, ``c`` and ``sum(exp(x - c))`` along ``axis`` (kept), where ``c`` is
    the maximum where it is finite and 0 elsewhere.

    A slice without a finite maximum is all -inf (sum 0, log -inf), holds +inf (sum
    inf) or NaN (NaN): each comes out right without a special case, and errstate
    silences NumPy's warnings about them (the same choice as SciPy's).
    """
    m = xp.max(x, axis=axis, keepdims=True)
    c = xp.where(xp.isfinite(m), m, xp.zeros_like(m))
    with np.errstate(over="ignore", invalid="ignore"):
        shifted = x - c
        return shifted, c, xp.sum(xp.exp(shifted), axis=axis, keepdims=True)


def logsumexp(x: Any, axis: int = -1) -> Any:
    r"""Stable :math:`\log\sum_j \exp x_j` along ``axis``, shifted by the maximum.

    Parameters
    ----------
    x : (..., m, ...) array (NumPy, torch, JAX, ...; a list becomes NumPy float64)
    axis : int, the axis to reduce (default: the last one)

    Returns
    -------
    array with ``axis`` removed, same dtype and device as ``x``.

    Book: §4.3.2, the logsumexp trick (lines 1996-2014).

    >>> import numpy as np
    >>> float(logsumexp(np.array([1000.0, 1000.0])))  # 1000 + log 2; naively inf
    1000.6931471805599
    """
    x, xp, axis = _prepare(x, axis)
    if x.shape[axis] == 0:  # the empty sum is 0, its log -inf
        shape = tuple(n for i, n in enumerate(x.shape) if i != axis)
        return xp.full(shape, -float("inf"), dtype=x.dtype, device=device_of(x))
    _, c, s = _shifted_sum(x, xp, axis)
    with np.errstate(divide="ignore"):  # log(0) = -inf for an all -inf slice
        return xp.squeeze(xp.log(s) + c, axis=axis)


def softmax(x: Any, axis: int = -1, tau: float = 1.0) -> Any:
    r"""The softmax with temperature :math:`\tau`, along ``axis``:
    :math:`\mathrm{softmax}(\mathbf{x}/\tau)`, computed as
    :math:`\exp(\mathbf{z} - \max\mathbf{z}) / \sum_j\exp(z_j - \max\mathbf{z})`.

    Large :math:`\tau` flattens the output towards the uniform :math:`1/m`; small
    :math:`\tau` sharpens it towards the one-hot vector of the argmax. A slice holding
    +inf or NaN, or only -inf, has no well-defined softmax and gives NaN (as in SciPy
    and torch).

    Parameters
    ----------
    x : (..., m, ...) array
    axis : int
    tau : float > 0, the temperature

    Returns
    -------
    array shaped like ``x``; every slice along ``axis`` sums to 1.

    Book: §4.2.1, E.4.11 (line 1676) and the temperature, with its limits E.4.15 and
    E.4.16 (lines 1712-1722).

    >>> import numpy as np
    >>> softmax(np.array([0.0, np.log(3.0)])).round(6).tolist()
    [0.25, 0.75]
    """
    x, xp, axis = _prepare(x, axis)
    try:
        tau = float(tau)
    except (TypeError, ValueError):
        raise ValueError(f"tau must be a number > 0; got {tau!r}") from None
    if not (np.isfinite(tau) and tau > 0):
        raise ValueError(f"tau must be a finite number > 0; got {tau!r}")
    if x.shape[axis] == 0:
        return x
    z = x if tau == 1.0 else x / tau
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        e = xp.exp(z - xp.max(z, axis=axis, keepdims=True))
        return e / xp.sum(e, axis=axis, keepdims=True)


def log_softmax(x: Any, axis: int = -1) -> Any:
    r"""The logarithm of the softmax, :math:`x_i - \mathrm{logsumexp}(\mathbf{x})`,
    computed as :math:`(x_i - c) - \log\sum_j\exp(x_j - c)` with :math:`c = \max_j x_j`.

    Never forms the softmax itself, so it stays finite where :math:`\log` of a
    softmax that underflowed to 0 would give :math:`-\infty`.

    Parameters
    ----------
    x : (..., m, ...) array
    axis : int

    Returns
    -------
    array shaped like ``x``.

    Book: §4.3.2, the cross-entropy in terms of the logits (line 1996).

    >>> import numpy as np
    >>> float(log_softmax(np.array([0.0, 1000.0]))[0])
    -1000.0
    """
    x, xp, axis = _prepare(x, axis)
    if x.shape[axis] == 0:
        return x
    shifted, _, s = _shifted_sum(x, xp, axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        return shifted - xp.log(s)  # (x - c) - log sum exp(x - c): no cancellation


# --- chapter 4: sigmoid, logit, one-hot ----------------------------------------------


def sigmoid(s: Any, slope: float = 1.0) -> Any:
    r"""The sigmoid :math:`\sigma(s) = 1/(1 + \exp(-s))`, element-wise, and with
    ``slope`` a the generalised sigmoid :math:`\sigma_a(s) = \sigma(as)` of chapter 5.

    It is the first output of a two-class softmax with the second logit fixed at 0,
    :math:`\exp(s)/(1 + \exp(s))`. Written as printed it overflows in
    :math:`\exp(-s)` for :math:`s < -709` (float64; :math:`-88.7` in float32). Here
    :math:`e = \exp(-|s|) \in (0, 1]` is computed once and the result is
    :math:`1/(1+e)` for :math:`s \ge 0` and :math:`e/(1+e)` otherwise, so nothing
    overflows and tiny values keep their relative precision. As :math:`a \to \infty`,
    :math:`\sigma_a` tends to the step :math:`\mathbb{I}_{s \ge 0}` for every
    :math:`s \ne 0`, while :math:`\sigma_a(0) = 1/2` for every a: the steep neurons
    of appendix B. The one sigmoid of the library: :mod:`alice_lab.activations` and
    :mod:`alice_lab.approximation` export this same function.

    Parameters
    ----------
    s : array of any shape (a list becomes NumPy float64), real floating.
    slope : the a of :math:`\sigma(as)`, a number (default 1: the plain sigmoid).

    Returns
    -------
    array shaped like ``s``, values in [0, 1] (0 and 1 only where the float rounds).

    Book: §4.3.1, definition "Sigmoid function" (lines 1866-1880), Figure F.4.4; §5.4,
    the generalised sigmoid (lines 2438-2442); Appendix B, E.B.1 (line 7032).

    >>> sigmoid([0.0, -1000.0, 1000.0]).tolist()
    [0.5, 0.0, 1.0]
    >>> sigmoid([0.0, 0.01], slope=1e4).round(6).tolist()
    [0.5, 1.0]
    """
    s = as_float_array(s, "s")
    if slope != 1.0:
        s = slope * s
    xp = array_namespace(s)
    e = xp.exp(xp.where(s >= 0, -s, s))  # exp(-|s|), derivative -1 at 0 on both sides
    return xp.where(s >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def logit(p: Any, eps: float | None = None) -> Any:
    r"""The log-odds :math:`\sigma^{-1}(p) = \log\frac{p}{1-p}`, element-wise.

    Computed as :math:`\log p - \mathrm{log1p}(-p)`, accurate near both ends; it gives
    :math:`-\infty` at 0 and :math:`+\infty` at 1. With ``eps`` the input is first
    clipped to :math:`[\varepsilon, 1-\varepsilon]` (finite everywhere).

    Parameters
    ----------
    p : array of probabilities in [0, 1].
    eps : None, or a clipping margin in [0, 0.5).

    Raises
    ------
    ValueError when some entry lies outside [0, 1] (or is NaN).

    Book: §4.3.1, the logits as inverse sigmoid (lines 1934-1946).

    >>> [round(v, 6) for v in logit([0.5, 0.75]).tolist()]
    [0.0, 1.098612]
    """
    p = as_float_array(p, "p")
    xp = array_namespace(p)
    if not bool(xp.all((p >= 0) & (p <= 1))):
        raise ValueError(
            "logit expects probabilities in [0, 1]; got values from "
            f"{float(xp.min(p))} to {float(xp.max(p))}"
            + (" (and NaN)" if bool(xp.any(xp.isnan(p))) else "")
        )
    if eps is not None:
        eps = float(eps)
        if not 0.0 <= eps < 0.5:
            raise ValueError(f"eps must lie in [0, 0.5); got {eps}")
        p = xp.clip(p, eps, 1.0 - eps)
    with np.errstate(divide="ignore"):
        return xp.log(p) - xp.log1p(-p)


def one_hot(y: Any, m: int, *, dtype: Any = None) -> Any:
    r"""One-hot encoding: entry i of the result is :math:`\mathbf{e}_{y_i}`, the
    :math:`y_i`-th vertex of the simplex, for class labels (chapter 4) and token ids
    (chapter 8) alike.

    The book numbers classes 1..m; code numbers them 0..m-1. Labels of any shape are
    encoded entry by entry, a batch of token sequences ``(b, t)`` giving ``(b, t, m)``.
    The one one-hot of the library: :mod:`alice_lab.text` exports this same function.

    Parameters
    ----------
    y : (n,) integer array (or (..., n), or a list) with values in ``0..m-1``.
    m : int >= 1, the number of classes (the vocabulary size for tokens).
    dtype : the result's dtype; default the namespace's default floating dtype
        (float64 for NumPy, float32 for torch).

    Returns
    -------
    (n, m) array (``(..., n, m)``) of 0s and 1s on the device of ``y``.

    Book: §4.2, one-hot encoding (lines 1606-1618); §8.2.2, tokens (lines 3854-3862).

    >>> one_hot(np.array([0, 2]), 3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    >>> one_hot([[2], [0]], 3).shape
    (2, 1, 3)
    """
    if isinstance(y, list | tuple):
        y = np.asarray(y)
    xp = array_namespace(y)
    m = check_int(m, "m")
    if y.ndim == 0:
        raise ValueError("y must have shape (n,) or (..., n); got a 0-d array")
    check_labels(y, m)
    classes = xp.arange(m, device=device_of(y))
    mask = y[..., None] == classes  # (..., n, 1) == (m,) -> (..., n, m)
    if dtype is None:
        dtype = xp.zeros(1, device=device_of(y)).dtype
    return xp.astype(mask, dtype)
