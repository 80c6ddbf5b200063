r"""Losses of binary classification with labels in {-1, +1} (chapter 3): the
margin, the 0/1 loss, the hinge loss and its (sub)gradient.

Each works element-wise on predictions ``y_hat`` and targets ``y`` (prediction first,
like every loss here) of the same shape, e.g. ``(n,)``, and returns per-sample values
of that shape (average them for a risk).

Book: §3.2, "On the differentiability of the loss" (lines 1216-1222).
"""

from __future__ import annotations

from typing import Any

from alice_lab.backend import array_namespace

__all__ = ["hinge", "hinge_grad", "margin", "zero_one"]


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
