r"""Binary cross-entropy of §4.3.1-4.3.2, on probabilities and on logits (labels
in {0, 1}).

Book: §4.3.1, binary cross-entropy (lines 1914-1932); §4.3.2, Box 4.4 (line 1964).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace
from alice_lab.losses._checks import _check_probs, _check_reduction, _reduce

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits"]


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
