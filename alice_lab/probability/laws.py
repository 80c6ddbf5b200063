r"""The basic laws of probability on a table: a joint distribution from counts, its
marginals (the sum rule), its conditionals (the product rule), Bayes' rule and a test
of independence, on the book's lottery example (Table T.A.1, :data:`LOTTERY_COUNTS`).

Book: Appendix A.1, "Basic laws of probability" (lines 6853-6900).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, as_float_array

__all__ = [
    "LOTTERY_COUNTS",
    "bayes",
    "conditional",
    "is_independent",
    "joint_from_counts",
    "marginal",
]


#: Table T.A.1: 100 lottery tickets by outcome w (rows: no win, small win, large win)
#: and ticket r (columns: real, fake).
LOTTERY_COUNTS = np.array([[58, 2], [27, 3], [2, 8]])


def joint_from_counts(counts: Any) -> Any:
    """A joint distribution from a table of counts: ``counts / counts.sum()``.

    counts : (a, b) non-negative array -> (a, b) array summing to 1.

    Book: §A.1, Table T.A.1 and the joint p(r=2, w=3) = 8/100 (lines 6869-6881).

    >>> joint_from_counts(LOTTERY_COUNTS)[2, 1]
    np.float64(0.08)
    """
    c = as_float_array(counts, "counts")
    xp = array_namespace(c)
    if c.ndim < 1 or bool(xp.any(c < 0)) or not bool(xp.sum(c) > 0):
        raise ValueError(
            "counts must be a non-empty array of non-negative numbers with a positive "
            f"total; got shape {tuple(c.shape)}"
        )
    return c / xp.sum(c)


def marginal(joint: Any, axis: int) -> Any:
    r"""Sum rule (E.A.2): sum the joint over the variable on ``axis``.

    joint : (a, b) -> (b,) for ``axis=0`` or (a,) for ``axis=1``. For the lottery
    table (rows w, columns r), ``marginal(joint, axis=1)`` is :math:`p(w)`.

    Book: §A.1, eq. E.A.2 (line 6893).

    >>> marginal(joint_from_counts(LOTTERY_COUNTS), axis=1).round(6).tolist()
    [0.6, 0.3, 0.1]
    """
    j = as_float_array(joint, "joint")
    xp = array_namespace(j)
    if j.ndim != 2:
        raise ValueError(f"joint must have shape (a, b); got {tuple(j.shape)}")
    return xp.sum(j, axis=axis)


def conditional(joint: Any, given_axis: int) -> Any:
    r"""Product rule (E.A.1) solved for the conditional: divide the joint by the
    marginal of the variable on ``given_axis``.

    joint : (a, b). ``given_axis=0`` gives :math:`p(\text{col} \mid \text{row})`
    (each row sums to 1); ``given_axis=1`` gives :math:`p(\text{row} \mid
    \text{col})` (each column sums to 1). Conditioning on an event of probability 0
    is undefined and raises.

    Book: §A.1, :math:`p(r=1 \mid w=3) = 0.2` and eq. E.A.1 (lines 6883-6889).

    >>> conditional(joint_from_counts(LOTTERY_COUNTS), 0)[2].round(6).tolist()
    [0.2, 0.8]
    """
    j = as_float_array(joint, "joint")
    xp = array_namespace(j)
    if j.ndim != 2 or given_axis not in (0, 1, -1, -2):
        raise ValueError(
            f"expected joint (a, b) and given_axis 0 or 1; got {tuple(j.shape)}, "
            f"{given_axis!r}"
        )
    given = given_axis % 2
    m = xp.sum(j, axis=1 - given, keepdims=True)  # p(given)
    if bool(xp.any(m == 0)):
        raise ValueError("cannot condition on an event of probability 0")
    return j / m


def bayes(likelihood: Any, prior: Any) -> Any:
    r"""Bayes' rule (E.A.3): :math:`p(h \mid o) = p(o \mid h)p(h) / \sum_{h'}
    p(o \mid h')p(h')` for hypotheses h on the last axis.

    likelihood : (..., k) array, :math:`p(o \mid h)` for each hypothesis h;
    prior : (k,) array on the simplex -> (..., k) posterior, summing to 1 on the last
    axis.

    Book: §A.1, eq. E.A.3 and "try it" (lines 6895-6899).

    >>> bayes(np.array([2 / 87, 8 / 13]), np.array([0.87, 0.13])).round(6).tolist()
    [0.2, 0.8]
    """
    lik = as_float_array(likelihood, "likelihood")
    xp = array_namespace(lik)
    pr = as_float_array(prior, "prior")
    if pr.ndim != 1 or lik.ndim < 1 or lik.shape[-1] != pr.shape[0]:
        raise ValueError(
            f"expected likelihood (..., k) and prior (k,); got {tuple(lik.shape)} and "
            f"{tuple(pr.shape)}"
        )
    num = lik * pr
    den = xp.sum(num, axis=-1, keepdims=True)  # the evidence p(o)
    if bool(xp.any(den == 0)):
        raise ValueError(
            "the evidence sum_h p(o|h)p(h) is 0: the observation is impossible"
        )
    return num / den


def is_independent(joint: Any, atol: float = 1e-12) -> bool:
    r"""True when :math:`p(a, b) = p(a)p(b)` for every cell (up to ``atol``).

    Book: §A.1, independence (line 6891).

    >>> is_independent(joint_from_counts(LOTTERY_COUNTS))
    False
    """
    j = as_float_array(joint, "joint")
    xp = array_namespace(j)
    outer = xp.sum(j, axis=1)[:, None] * xp.sum(j, axis=0)[None, :]
    return bool(xp.all(xp.abs(j - outer) <= atol))
