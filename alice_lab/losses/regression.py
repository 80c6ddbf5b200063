r"""The regression losses of §4.1.1: prediction error, squared, absolute and Huber
losses, and the Gaussian negative log-likelihood.

Each works element-wise on predictions ``y_hat`` and targets ``y`` of the same shape
(nothing is broadcast) and reduces with ``reduction``: "mean" (default, the empirical
risk), "sum", or "none" (per-sample values).

Book: §4.1.1, regression losses (lines 1334-1362).
"""

from __future__ import annotations

import math
from typing import Any

from alice_lab.backend import array_namespace
from alice_lab.losses._checks import _check_reduction, _reduce

__all__ = [
    "absolute_loss",
    "gaussian_nll",
    "huber_loss",
    "prediction_error",
    "squared_loss",
]


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
    v = _gaussian_nll_terms(y_hat, y, sigma2, log_s2)
    return _reduce(v, _check_reduction(reduction), xp)


def _gaussian_nll_terms(y_hat: Any, y: Any, sigma2: Any, log_s2: Any) -> Any:
    r"""E.4.2 negated, entry by entry, unchecked: :math:`\tfrac12\log\sigma^2 +
    \tfrac12\log 2\pi + (y - \hat{y})^2/(2\sigma^2)`. Also the Gaussian pseudo-loss
    of E.3.6 (:func:`alice_lab.probability.gaussian_pseudo_loss`), whose variance is a
    model output."""
    return 0.5 * log_s2 + 0.5 * math.log(2 * math.pi) + (y - y_hat) ** 2 / (2 * sigma2)
