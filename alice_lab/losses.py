r"""Loss functions, written once against the array API.

:func:`cross_entropy` takes the *logits* rather than probabilities, as the stable
framework losses do (``torch.nn.functional.cross_entropy``): the loss of one example
is :math:`-\log[\mathrm{softmax}(\mathbf{p})]_y = -p_y +
\mathrm{logsumexp}(\mathbf{p})`, and computing it through
:func:`alice_lab.functional.log_softmax` never takes the logarithm of a probability
that underflowed to zero.

Chapter 4 adds the regression losses of §4.1.1 (squared, absolute, Huber, Gaussian
negative log-likelihood) and the other classification losses of §4.2-4.3: the
cross-entropy of one-hot or soft targets, on probabilities, on log-probabilities
(``nll_loss``), the binary cross-entropy on probabilities and on logits, and the Brier
score. Every one takes the prediction first and the target second, and reduces with
``reduction="mean"`` (or "sum", or "none" for per-example values).

Book: §4.1.1, regression losses (lines 1334-1362); §4.2.2, the cross-entropy loss
(lines 1808-1842); §4.3.1, binary cross-entropy (lines 1914-1932); §4.3.2, the
logsumexp trick (lines 1952-2014).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, device_of, is_torch_array
from alice_lab.functional import log_softmax

__all__ = [
    "absolute_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "brier_score",
    "cross_entropy",
    "cross_entropy_onehot",
    "cross_entropy_probs",
    "gaussian_nll",
    "huber_loss",
    "nll_loss",
    "prediction_error",
    "squared_loss",
]


def cross_entropy(logits: Any, labels: Any, *, reduction: str = "mean") -> Any:
    r"""Mean cross-entropy of integer class labels under softmax(logits).

    .. math:: \mathrm{CE} = \frac{1}{n}\sum_{i=1}^{n}
              \Big(-p_{i,y_i} + \mathrm{logsumexp}(\mathbf{p}_i)\Big)

    Parameters
    ----------
    logits : (n, c) floating array, the unnormalised scores :math:`\mathbf{p}_i`.
    labels : (n,) integer array with values in ``0..c-1``.
    reduction : "mean" (default), "sum" or "none" (the (n,) per-example losses).

    Returns
    -------
    () array, the mean over the batch, in the dtype and on the device of ``logits``.
    For one-hot or soft targets use :func:`cross_entropy_onehot`.

    Which code runs
    ---------------
    After the same checks of the inputs:

    * floating **torch tensors**: :func:`_cross_entropy_torch`, the same two steps
      with torch's kernels (the fused ``torch.log_softmax``, then a ``gather`` of the
      labelled entry), within about 1.5× of ``torch.nn.functional.cross_entropy``;
    * anything else (NumPy, JAX, array-api-strict): :func:`_cross_entropy_generic`,
      the array-API code of the book (the log-softmax, then a one-hot mask).

    Both give the same values and gradients to rounding, including on rows holding
    ``inf``, ``-inf`` or NaN (``tests/test_losses.py`` compares them).

    Raises
    ------
    ValueError for wrong shapes, an empty batch, non-integer labels or labels out of
    range.

    Book: §4.2.2, definition of the cross-entropy (lines 1808-1842); §4.3.2 (line 1996).

    >>> import numpy as np
    >>> round(float(cross_entropy(np.zeros((2, 4)), np.array([0, 3]))), 6)  # log 4
    1.386294
    """
    xp = array_namespace(logits, labels)
    if logits.ndim != 2:
        raise ValueError(f"logits must have shape (n, c); got {tuple(logits.shape)}")
    n, c = logits.shape
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(
            f"labels must have shape (n,) = ({n},) to match logits "
            f"{tuple(logits.shape)}; got {tuple(labels.shape)}"
        )
    if n == 0 or c == 0:
        raise ValueError(
            f"cross_entropy needs at least one example and one class; "
            f"got logits of shape {tuple(logits.shape)}"
        )
    if not xp.isdtype(labels.dtype, "integral"):
        raise ValueError(
            f"labels must be integer class indices; got dtype {labels.dtype} "
            "(one-hot or probability targets are not accepted here)"
        )
    if bool(xp.any(labels < 0)) or bool(xp.any(labels >= c)):
        lo, hi = int(xp.min(labels)), int(xp.max(labels))
        raise ValueError(f"labels must lie in 0..{c - 1}; got values from {lo} to {hi}")
    if is_torch_array(logits) and logits.is_floating_point():
        nll = _cross_entropy_torch(logits, labels)
    else:
        nll = _cross_entropy_generic(logits, labels, xp)
    return _reduce(nll, _check_reduction(reduction), xp)


def _cross_entropy_generic(logits: Any, labels: Any, xp: Any) -> Any:
    r"""Per-example :math:`-[\log\mathrm{softmax}(\mathbf{p}_i)]_{y_i}` in array-API
    code, as the book writes it: the (n, c) log-probabilities, then the labelled one
    of each row picked with a one-hot mask."""
    logp = log_softmax(logits, axis=-1)  # (n, c)
    classes = xp.arange(logits.shape[1], device=device_of(logits))
    picked = labels[:, None] == classes[None, :]  # (n, c) one-hot mask
    return -xp.sum(xp.where(picked, logp, xp.zeros_like(logp)), axis=-1)  # (n,)


def _cross_entropy_torch(logits: Any, labels: Any) -> Any:
    """The torch path, the same two steps with torch's kernels: the fused
    ``torch.log_softmax`` (one pass over each row), then a ``gather`` of the labelled
    log-probability instead of the one-hot mask. Autograd flows through both.

    One difference is patched: torch's log-softmax turns a whole row holding +inf
    into NaN, where the generic path (:func:`alice_lab.functional.log_softmax`)
    gives the limit, +inf, for a label whose logit is not +inf. Such rows are
    recognised from the row maximum (+inf; NaN when the row holds a NaN, which
    stays NaN), one extra read of the logits and no synchronisation with a GPU.
    """
    import torch

    idx = labels.to(torch.int64)[:, None]  # (n, 1)
    nll = -torch.gather(torch.log_softmax(logits, dim=-1), 1, idx)[:, 0]  # (n,)
    row_max = torch.amax(logits, dim=-1)  # +inf: the row holds +inf and no NaN
    finite_label = torch.gather(logits, 1, idx)[:, 0] != torch.inf
    return torch.where((row_max == torch.inf) & finite_label, torch.inf, nll)


# --- chapter 4: regression losses -----------------------------------------------------
#
# Book: §4.1.1 (lines 1334-1362). Each works element-wise on predictions ``y_hat`` and
# targets ``y`` of the same shape (nothing is broadcast) and reduces with ``reduction``:
# "mean" (default, the empirical risk), "sum", or "none" (per-sample values).

_REDUCTIONS = ("mean", "sum", "none")


def _reduce(v: Any, reduction: str, xp: Any) -> Any:
    if reduction == "mean":
        return xp.mean(v)
    if reduction == "sum":
        return xp.sum(v)
    return v


def _check_reduction(reduction: Any) -> str:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}; got {reduction!r}")
    return reduction


def _regression_pair(y_hat: Any, y: Any, what: str) -> tuple[Any, Any, Any]:
    """Check shapes and dtypes; return ``(xp, y_hat, y as y_hat's dtype)``."""
    xp = array_namespace(y_hat, y)
    if tuple(y_hat.shape) != tuple(y.shape):
        raise ValueError(
            f"{what} needs y_hat and y of the same shape (nothing is broadcast); got "
            f"{tuple(y_hat.shape)} and {tuple(y.shape)}"
        )
    if not xp.isdtype(y_hat.dtype, "real floating"):
        raise ValueError(f"y_hat must be a real floating array; got {y_hat.dtype}")
    if not xp.isdtype(y.dtype, ("real floating", "integral")):
        raise ValueError(f"y must be a real array; got dtype {y.dtype}")
    return xp, y_hat, xp.astype(y, y_hat.dtype)


def prediction_error(y_hat: Any, y: Any) -> Any:
    r"""The prediction error :math:`e = \hat{y} - y`, element-wise.

    Book: §4.1.1 (line 1336).

    >>> import numpy as np
    >>> prediction_error(np.array([1.5, 0.0]), np.array([1.0, 1.0])).tolist()
    [0.5, -1.0]
    """
    _, y_hat, y = _regression_pair(y_hat, y, "prediction_error")
    return y_hat - y


def squared_loss(y_hat: Any, y: Any, *, reduction: str = "mean") -> Any:
    r"""The squared loss :math:`(\hat{y} - y)^2` (E.4.1); with "mean", the MSE.

    Its derivative :math:`2(\hat{y} - y)` is linear in the prediction, which is what
    gives least squares its closed form.

    Parameters
    ----------
    y_hat, y : arrays of the same shape, e.g. (n,).
    reduction : "mean", "sum" or "none".

    Book: §4.1.1, eq. E.4.1 (line 1338).

    >>> import numpy as np
    >>> float(squared_loss(np.array([1.0, 3.0]), np.array([0.0, 0.0])))
    5.0
    """
    xp, y_hat, y = _regression_pair(y_hat, y, "squared_loss")
    return _reduce((y_hat - y) ** 2, _check_reduction(reduction), xp)


def absolute_loss(y_hat: Any, y: Any, *, reduction: str = "mean") -> Any:
    r"""The absolute loss :math:`|\hat{y} - y|`: linear in the error, so a large
    error (an outlier) pulls less than under the squared loss. Not differentiable at
    0, where any value in [-1, 1] is a subgradient.

    Book: §4.1.1 (lines 1354, 1362).

    >>> import numpy as np
    >>> absolute_loss(np.array([1.0, -3.0]), np.zeros(2), reduction="none").tolist()
    [1.0, 3.0]
    """
    xp, y_hat, y = _regression_pair(y_hat, y, "absolute_loss")
    return _reduce(xp.abs(y_hat - y), _check_reduction(reduction), xp)


def huber_loss(
    y_hat: Any, y: Any, *, delta: float = 1.0, reduction: str = "mean"
) -> Any:
    r"""The Huber loss (E.4.3): quadratic near 0, linear beyond ``delta``,

    .. math:: L_\delta(e) = \begin{cases} \tfrac12 e^2 & |e| \le \delta \\
              \delta\,(|e| - \tfrac12\delta) & \text{otherwise.} \end{cases}

    The book fixes :math:`\delta = 1` (the default), where the second branch is
    :math:`|e| - \tfrac12`; the :math:`-\tfrac12\delta^2` makes the two branches meet,
    and their slopes meet too (:math:`\pm\delta`), so the loss is continuously
    differentiable. Same as ``torch.nn.functional.huber_loss(..., delta=delta)``.

    Book: §4.1.1, eq. E.4.3 (lines 1356-1360), Figure F.4.1.

    >>> import numpy as np
    >>> huber_loss(np.array([0.5, 3.0]), np.zeros(2), reduction="none").tolist()
    [0.125, 2.5]
    """
    xp, y_hat, y = _regression_pair(y_hat, y, "huber_loss")
    try:
        delta = float(delta)
    except (TypeError, ValueError):
        raise ValueError(f"delta must be a number > 0; got {delta!r}") from None
    if not delta > 0:
        raise ValueError(f"delta must be a number > 0; got {delta!r}")
    e = xp.abs(y_hat - y)
    v = xp.where(e <= delta, 0.5 * e**2, delta * (e - 0.5 * delta))
    return _reduce(v, _check_reduction(reduction), xp)


def gaussian_nll(y_hat: Any, y: Any, sigma2: Any, *, reduction: str = "mean") -> Any:
    r"""Negative log-likelihood of ``y`` under :math:`\mathcal{N}(\hat{y}, \sigma^2)`:

    .. math:: -\log p(y \mid \hat{y}, \sigma^2) = \log\sigma + \tfrac12\log 2\pi
              + \frac{(y - \hat{y})^2}{2\sigma^2}   \qquad\text{(minus E.4.2)}

    For a fixed :math:`\sigma^2` the first two terms are constants and the last is the
    squared loss scaled by :math:`1/(2\sigma^2)`: maximum likelihood is least squares.
    Equals ``torch.nn.functional.gaussian_nll_loss(y_hat, y, var, full=True)``.

    Parameters
    ----------
    y_hat, y : arrays of the same shape.
    sigma2 : the variance, > 0: a number, or an array shaped like ``y``
        (heteroscedastic models predict one per example).

    Book: §4.1.1, eq. E.4.2 (lines 1342-1352).

    >>> import numpy as np
    >>> round(float(gaussian_nll(np.zeros(1), np.zeros(1), 1.0)), 6)  # ½ log 2π
    0.918939
    """
    import math

    xp, y_hat, y = _regression_pair(y_hat, y, "gaussian_nll")
    if hasattr(sigma2, "shape") and tuple(sigma2.shape) not in ((), tuple(y.shape)):
        raise ValueError(
            f"sigma2 must be a number or shaped like y {tuple(y.shape)}; got "
            f"{tuple(sigma2.shape)}"
        )
    if not hasattr(sigma2, "shape"):
        try:
            sigma2 = float(sigma2)
        except (TypeError, ValueError):
            raise ValueError(f"sigma2 must be a number > 0; got {sigma2!r}") from None
        if not sigma2 > 0:
            raise ValueError(f"sigma2 must be > 0; got {sigma2!r}")
        log_s2 = math.log(sigma2)
    else:
        if not bool(xp.all(sigma2 > 0)):
            raise ValueError("sigma2 must be > 0 everywhere; got a value <= 0 or NaN")
        log_s2 = xp.log(sigma2)
    v = 0.5 * log_s2 + 0.5 * math.log(2 * math.pi) + (y - y_hat) ** 2 / (2 * sigma2)
    return _reduce(v, _check_reduction(reduction), xp)


# --- chapter 4: classification losses -------------------------------------------------
#
# Book: §4.2.2 (lines 1778-1846), §4.3.1 (lines 1850-1932), §4.3.2 (Box 4.4, lines
# 1952-2014). Probabilities outside [0, 1], labels that are not integers in 0..m-1 and
# one-hot rows that are not in the simplex raise ValueError.


def _check_probs(p: Any, name: str, xp: Any) -> None:
    if not xp.isdtype(p.dtype, "real floating"):
        raise ValueError(f"{name} must be a real floating array; got dtype {p.dtype}")
    if not bool(xp.all((p >= 0) & (p <= 1))):
        nan = bool(xp.any(xp.isnan(p)))
        got = "NaN" if nan else f"values from {float(xp.min(p))} to {float(xp.max(p))}"
        raise ValueError(
            f"{name} must be probabilities in [0, 1]; got {got} "
            "(pass logits to the *_with_logits / cross_entropy variants)"
        )


def _check_simplex_rows(p: Any, xp: Any) -> None:
    """Each row of the (n, m) probabilities sums to 1 (to 100 ulp, at least 1e-6)."""
    tol = max(1e-6, 100 * float(xp.finfo(p.dtype).eps))
    rows = xp.sum(p, axis=-1)
    if not bool(xp.all(xp.abs(rows - 1) <= tol)):
        raise ValueError(
            "probs must have rows in the simplex (summing to 1); got row sums from "
            f"{float(xp.min(rows))} to {float(xp.max(rows))}"
        )


def _check_scores(scores: Any, name: str, xp: Any) -> tuple[int, int]:
    if scores.ndim != 2:
        raise ValueError(f"{name} must have shape (n, m); got {tuple(scores.shape)}")
    n, m = scores.shape
    if n == 0 or m == 0:
        raise ValueError(
            f"{name} needs at least one example and one class; got shape "
            f"{tuple(scores.shape)}"
        )
    if not xp.isdtype(scores.dtype, "real floating"):
        raise ValueError(f"{name} must be a real floating array; got {scores.dtype}")
    return n, m


def _label_mask(labels: Any, n: int, m: int, xp: Any, like: Any) -> Any:
    """Integer labels (n,) or one-hot rows (n, m) -> (n, m) one-hot, like's dtype."""
    if labels.ndim == 2:
        if tuple(labels.shape) != (n, m):
            raise ValueError(
                f"one-hot labels must have shape (n, m) = ({n}, {m}); got "
                f"{tuple(labels.shape)}"
            )
        Y = xp.astype(labels, like.dtype)
        ok = xp.all((Y == 0) | (Y == 1)) & xp.all(xp.sum(Y, axis=-1) == 1)
        if not bool(ok):
            raise ValueError(
                "one-hot labels must hold a single 1 per row and 0 elsewhere "
                "(use cross_entropy_onehot for soft targets)"
            )
        return Y
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(
            f"labels must have shape (n,) = ({n},) or (n, m) = ({n}, {m}); got "
            f"{tuple(labels.shape)}"
        )
    if not xp.isdtype(labels.dtype, "integral"):
        raise ValueError(f"labels must be integer class indices; got {labels.dtype}")
    if bool(xp.any(labels < 0)) or bool(xp.any(labels >= m)):
        lo, hi = int(xp.min(labels)), int(xp.max(labels))
        raise ValueError(f"labels must lie in 0..{m - 1}; got values from {lo} to {hi}")
    classes = xp.arange(m, device=device_of(like))
    return xp.astype(labels[:, None] == classes[None, :], like.dtype)


def _pick(values: Any, Y: Any, xp: Any) -> Any:
    """Row-wise :math:`\\sum_j Y_{ij} v_{ij}` with 0 * (-inf) counted as 0."""
    return xp.sum(Y * xp.where(Y > 0, values, xp.zeros_like(values)), axis=-1)


def cross_entropy_onehot(logits: Any, targets: Any, *, reduction: str = "mean") -> Any:
    r"""Cross-entropy of target distributions (one-hot or soft) under softmax(logits):
    :math:`-\sum_j t_{ij}\log[\mathrm{softmax}(\mathbf{p}_i)]_j` (eq. ``cross_entropy``
    with :math:`\mathbf{t} = \mathbf{y}^{\mathrm{oh}}`), computed through
    :func:`~alice_lab.functional.log_softmax`. Equals
    ``torch.nn.functional.cross_entropy(logits, targets)`` with probability targets.

    Parameters
    ----------
    logits : (n, m) floating; targets : (n, m) floating, each row in the simplex
        (non-negative, summing to 1 within 1e-6).

    Book: §4.2.2, eq. ``cross_entropy`` (lines 1810-1818).

    >>> import numpy as np
    >>> round(float(cross_entropy_onehot(np.zeros((1, 4)), np.eye(4)[:1])), 6)
    1.386294
    """
    xp = array_namespace(logits, targets)
    n, m = _check_scores(logits, "logits", xp)
    if tuple(targets.shape) != (n, m):
        raise ValueError(
            f"targets must have shape (n, m) = ({n}, {m}) like the logits; got "
            f"{tuple(targets.shape)}"
        )
    T = xp.astype(targets, logits.dtype)
    rows = xp.sum(T, axis=-1)
    if not bool(xp.all(T >= 0) & xp.all(xp.abs(rows - 1) <= 1e-6)):
        raise ValueError(
            "targets must be rows of the simplex (entries >= 0 summing to 1); got row "
            f"sums from {float(xp.min(rows))} to {float(xp.max(rows))}"
        )
    nll = -_pick(log_softmax(logits, axis=-1), T, xp)  # (n,)
    return _reduce(nll, _check_reduction(reduction), xp)


def cross_entropy_probs(probs: Any, labels: Any, *, reduction: str = "mean") -> Any:
    r"""The book's cross-entropy on probabilities,
    :math:`\mathrm{CE}(\mathbf{y}^{\mathrm{oh}}, \hat{\mathbf{y}}) =
    -\sum_i y^{\mathrm{oh}}_i \log\hat{y}_i = -\log\hat{y}_y`.

    Use it when the model already outputs probabilities; a probability that underflowed
    to 0 gives :math:`+\infty` (prefer :func:`cross_entropy` on the logits). Labels may
    be integers (n,) or one-hot rows (n, m).

    Parameters
    ----------
    probs : (n, m) array, rows in the simplex; labels : (n,) int or (n, m) one-hot.

    Book: §4.2.2, eqs. ``cross_entropy`` and ``ce_single_term`` (lines 1810-1830).

    >>> import numpy as np
    >>> p = np.array([[0.2, 0.05, 0.75]])
    >>> round(float(cross_entropy_probs(p, np.array([2]))), 6)  # -log 0.75
    0.287682
    """
    xp = array_namespace(probs, labels)
    n, m = _check_scores(probs, "probs", xp)
    _check_probs(probs, "probs", xp)
    _check_simplex_rows(probs, xp)
    Y = _label_mask(labels, n, m, xp, probs)
    with np.errstate(divide="ignore"):
        logp = xp.log(probs)
    return _reduce(-_pick(logp, Y, xp), _check_reduction(reduction), xp)


def nll_loss(log_probs: Any, labels: Any, *, reduction: str = "mean") -> Any:
    r""":math:`-\log\hat{y}_y` given log-probabilities (e.g. from
    :func:`~alice_lab.functional.log_softmax`), like ``torch.nn.functional.nll_loss``.

    Parameters
    ----------
    log_probs : (n, m) floating; labels : (n,) int in 0..m-1 or (n, m) one-hot.

    Book: §4.3.2, Box 4.4 (line 1974).

    >>> import numpy as np
    >>> round(float(nll_loss(np.log(np.array([[0.5, 0.5]])), np.array([1]))), 6)
    0.693147
    """
    xp = array_namespace(log_probs, labels)
    n, m = _check_scores(log_probs, "log_probs", xp)
    Y = _label_mask(labels, n, m, xp, log_probs)
    return _reduce(-_pick(log_probs, Y, xp), _check_reduction(reduction), xp)


def _binary_pair(a: Any, y: Any, what: str, name: str) -> tuple[Any, Any, Any]:
    xp = array_namespace(a, y)
    if tuple(a.shape) != tuple(y.shape):
        raise ValueError(
            f"{what} needs {name} and y of the same shape (nothing is broadcast); got "
            f"{tuple(a.shape)} and {tuple(y.shape)}"
        )
    if not xp.isdtype(a.dtype, "real floating"):
        raise ValueError(f"{name} must be a real floating array; got dtype {a.dtype}")
    y = xp.astype(y, a.dtype)
    if not bool(xp.all((y >= 0) & (y <= 1))):
        raise ValueError(
            f"{what} needs targets y in [0, 1] (labels 0/1, not -1/+1); got values "
            f"from {float(xp.min(y))} to {float(xp.max(y))}"
        )
    return xp, a, y


def binary_cross_entropy(p: Any, y: Any, *, reduction: str = "mean") -> Any:
    r"""Binary cross-entropy on probabilities,
    :math:`-y\log\hat{y} - (1-y)\log(1-\hat{y})`.

    The first term is the loss when the label is 1, the second when it is 0 (the book's
    annotations at lines 1922-1924 say "class 1" and "class 2"). Terms with a zero
    weight count as 0 even where the log is infinite, and
    :math:`\log(1-\hat{y})` uses ``log1p``. Unlike ``torch.nn.functional.
    binary_cross_entropy`` nothing is clamped: :math:`\hat{y} = 0` with ``y = 1`` gives
    :math:`+\infty`, the true value (torch clamps the log at -100).

    Parameters
    ----------
    p : probabilities in [0, 1]; y : targets in [0, 1] of the same shape.

    Book: §4.3.1 (lines 1914-1926).

    >>> import numpy as np
    >>> round(float(binary_cross_entropy(np.array([0.8]), np.array([1.0]))), 6)
    0.223144
    """
    xp, p, y = _binary_pair(p, y, "binary_cross_entropy", "p")
    _check_probs(p, "p", xp)
    zero = xp.zeros_like(p)
    with np.errstate(divide="ignore", invalid="ignore"):
        pos = xp.where(y > 0, y * xp.log(p), zero)
        neg = xp.where(y < 1, (1 - y) * xp.log1p(-p), zero)
    return _reduce(-(pos + neg), _check_reduction(reduction), xp)


def binary_cross_entropy_with_logits(z: Any, y: Any, *, reduction: str = "mean") -> Any:
    r"""Binary cross-entropy of :math:`\sigma(z)`, computed from the logit z:

    .. math:: -y\log\sigma(z) - (1-y)\log(1-\sigma(z)) = \mathrm{softplus}(z) - yz
              = \max(z, 0) - yz + \mathrm{log1p}(e^{-|z|}),

    exact for every z (at z = 200, y = 0 it is 200, where the probability route
    gives inf, or 100 with torch's clamp). Equals
    ``torch.nn.functional.binary_cross_entropy_with_logits``.

    Book: §4.3.2, Box 4.4 (line 1964).

    >>> import numpy as np
    >>> float(binary_cross_entropy_with_logits(np.array([200.0]), np.array([0.0])))
    200.0
    """
    xp, z, y = _binary_pair(z, y, "binary_cross_entropy_with_logits", "z")
    neg_abs = xp.where(z >= 0, -z, z)
    v = xp.where(z >= 0, z, xp.zeros_like(z)) - y * z + xp.log1p(xp.exp(neg_abs))
    return _reduce(v, _check_reduction(reduction), xp)


def brier_score(probs: Any, labels: Any, *, reduction: str = "mean") -> Any:
    r"""The Brier score: squared distance between the predicted distribution and the
    one-hot label, :math:`\sum_j (\hat{y}_{ij} - y^{\mathrm{oh}}_{ij})^2`, averaged over
    the examples (so it lies in [0, 2]).

    For two classes this is twice scikit-learn's ``brier_score_loss`` of the positive
    class (which halves it to lie in [0, 1]).

    Parameters
    ----------
    probs : (n, m) probabilities, rows summing to 1; labels : (n,) int in 0..m-1 or
        (n, m) one-hot.

    Book: §4.2, the Brier score (line 1620).

    >>> import numpy as np
    >>> round(float(brier_score(np.array([[0.8, 0.2]]), np.array([0]))), 6)
    0.08
    """
    xp = array_namespace(probs, labels)
    n, m = _check_scores(probs, "probs", xp)
    _check_probs(probs, "probs", xp)
    _check_simplex_rows(probs, xp)
    Y = _label_mask(labels, n, m, xp, probs)
    v = xp.sum((probs - Y) ** 2, axis=-1)
    return _reduce(v, _check_reduction(reduction), xp)


# --- chapter 3: losses of binary classification with labels in {-1, +1} --------------
#
# Book: §3.2, "On the differentiability of the loss" (lines 1216-1222). Each function
# works elementwise on predictions ``y_hat`` and targets ``y`` (prediction first, like
# every loss here) of the same shape, e.g.
# ``(n,)``, and returns per-sample values of that shape (average them for a risk).

__all__ += ["hinge", "hinge_grad", "margin", "zero_one"]


def _pm1_pair(y: Any, y_hat: Any, what: str) -> tuple[Any, Any, Any]:
    """Check ``y`` in {-1, +1} and ``y_hat`` real floating of the same shape; return
    ``(xp, y as y_hat's dtype, y_hat)``."""
    xp = array_namespace(y, y_hat)
    if tuple(y.shape) != tuple(y_hat.shape):
        raise ValueError(
            f"{what} needs y and y_hat of the same shape (nothing is broadcast); got "
            f"{tuple(y.shape)} and {tuple(y_hat.shape)}"
        )
    if not xp.isdtype(y_hat.dtype, "real floating"):
        raise ValueError(
            f"y_hat must be a real floating array; got dtype {y_hat.dtype}"
        )
    if not bool(xp.all((y == 1) | (y == -1))):
        raise ValueError(
            f"{what} needs labels y in {{-1, +1}} (map 0/1 labels with 2*y - 1); got "
            f"values outside that set"
        )
    return xp, xp.astype(y, y_hat.dtype), y_hat


def margin(y_hat: Any, y: Any) -> Any:
    r"""The margin :math:`y\hat{y}`: positive when the sign of the prediction agrees
    with the label, negative when it does not, and continuous in :math:`\hat{y}`.

    Parameters
    ----------
    y_hat : (n,) real floating array, the model's real-valued outputs.
    y : (n,) array of labels in {-1, +1} (integer or floating).

    Returns
    -------
    (n,) array in ``y_hat``'s dtype and namespace.

    Book: §3.2, the margin (line 1222).

    >>> import numpy as np
    >>> margin(np.array([0.5, 0.5]), np.array([1, -1])).tolist()
    [0.5, -0.5]
    """
    _, y, y_hat = _pm1_pair(y, y_hat, "margin")
    return y * y_hat


def zero_one(y_hat: Any, y: Any) -> Any:
    r"""The 0/1 loss of eq. E.3.3: 0 when :math:`\mathrm{sign}(\hat{y}) = y`, else 1.

    :math:`\mathrm{sign}(0) = 0` matches neither label, so a prediction of exactly 0
    counts as an error (so does NaN). The loss is piecewise constant in
    :math:`\hat{y}`: its derivative is 0 wherever it exists, which is why gradient
    descent cannot train with it.

    Parameters
    ----------
    y_hat : (n,) real floating array; y : (n,) array of labels in {-1, +1}.

    Returns
    -------
    (n,) array of 0.0 and 1.0 in ``y_hat``'s dtype.

    Book: §3.2, eq. E.3.3 (lines 1218-1220).

    >>> import numpy as np
    >>> zero_one(np.array([2.0, 0.3, 0.0]), np.array([1, -1, 1])).tolist()
    [0.0, 1.0, 1.0]
    """
    xp, y, y_hat = _pm1_pair(y, y_hat, "zero_one")
    wrong = xp.sign(y_hat) != y
    return xp.where(wrong, xp.ones_like(y_hat), xp.zeros_like(y_hat))


def hinge(y_hat: Any, y: Any) -> Any:
    r"""The hinge loss :math:`\max(0, 1 - y\hat{y})`, used to train support vector
    machines: 0 once the margin reaches 1, growing linearly below. It is a convex upper
    bound of the 0/1 loss.

    Parameters
    ----------
    y_hat : (n,) real floating array; y : (n,) array of labels in {-1, +1}.

    Returns
    -------
    (n,) array in ``y_hat``'s dtype.

    Book: §3.2, the hinge loss (line 1222).

    >>> import numpy as np
    >>> hinge(np.array([2.0, 0.25, 0.5]), np.array([1, 1, -1])).tolist()
    [0.0, 0.75, 1.5]
    """
    xp, y, y_hat = _pm1_pair(y, y_hat, "hinge")
    m = y * y_hat
    return xp.where(m < 1, 1 - m, xp.zeros_like(m))


def hinge_grad(y_hat: Any, y: Any) -> Any:
    r"""A subgradient of the hinge loss with respect to :math:`\hat{y}`:
    :math:`-y` where the margin :math:`y\hat{y} < 1`, and 0 where it is :math:`\ge 1`.

    At the kink (margin exactly 1) every value between :math:`-y` and 0 is a
    subgradient; we choose 0, so a point sitting exactly on the margin stops pulling.

    Parameters
    ----------
    y_hat : (n,) real floating array; y : (n,) array of labels in {-1, +1}.

    Returns
    -------
    (n,) array in ``y_hat``'s dtype, :math:`\partial l / \partial \hat{y}_i`.

    Book: §3.2, the hinge loss (line 1222).

    >>> import numpy as np
    >>> hinge_grad(np.array([0.0, 0.0, 1.0]), np.array([1, -1, 1])).tolist()
    [-1.0, 1.0, 0.0]
    """
    xp, y, y_hat = _pm1_pair(y, y_hat, "hinge_grad")
    return xp.where(y * y_hat < 1, -y, xp.zeros_like(y_hat))
