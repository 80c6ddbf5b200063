r"""Calibration of classifiers: reliability bins, calibration errors, temperature
scaling, cost-sensitive decisions and split-conformal prediction sets.

A classifier is *calibrated* when its confidence matches how often it is right: among
the inputs it labels with confidence 0.8, 80% are correct. :func:`reliability_bins`
groups predictions by confidence into b equal bins of [0, 1] (bin i covers
:math:`((i-1)/b, i/b]`, the first also holds 0) and returns per-bin counts, mean
confidence :math:`p_i` and accuracy :math:`a_i` (the reliability diagram, Figure F.4.5);
:func:`expected_calibration_error` is :math:`\sum_i \frac{|\mathcal{B}_i|}{n}|a_i -
p_i|` and :func:`max_calibration_error` the largest gap over non-empty bins.

:func:`fit_temperature` finds the temperature :math:`\tau` that minimises the
validation negative log-likelihood of :math:`\mathrm{softmax}(\mathbf{h}/\tau)` (the
argmax, hence the accuracy, does not change). :func:`bayes_decision` picks the class of
least expected cost under a cost matrix ``C[pred, true]``; :func:`conformal_threshold`
and :func:`prediction_sets` turn probabilities into sets of classes that contain the
true one with probability at least :math:`1 - \alpha`.

Everything runs on NumPy, torch and JAX arrays (scalars come back as 0-d arrays of the
caller's namespace, thresholds as Python floats).

Book: §4.3.3, calibration and decisions (lines 2016-2088); §4.3.4, estimating the
calibration error and conformal prediction (lines 2090-2162).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_lab.backend import (
    array_namespace,
    check_int,
    check_labels,
    device_of,
    to_numpy,
)
from alice_lab.functional import log_softmax

__all__ = [
    "ReliabilityBins",
    "bayes_decision",
    "binary_threshold",
    "confidences",
    "conformal_threshold",
    "coverage",
    "expected_calibration_error",
    "fit_temperature",
    "max_calibration_error",
    "prediction_sets",
    "reliability_bins",
    "temperature_nll",
]


# --- checks ---------------------------------------------------------------------------


def _check_probs(probs: Any, xp: Any) -> tuple[int, int]:
    if probs.ndim != 2:
        raise ValueError(f"probs must have shape (n, m); got {tuple(probs.shape)}")
    n, m = probs.shape
    if n == 0 or m == 0:
        raise ValueError(f"probs needs n >= 1 and m >= 1; got {tuple(probs.shape)}")
    if not xp.isdtype(probs.dtype, "real floating"):
        raise ValueError(f"probs must be a real floating array; got {probs.dtype}")
    if not bool(xp.all((probs >= 0) & (probs <= 1))):
        raise ValueError(
            "probs must hold probabilities in [0, 1]; got values from "
            f"{float(xp.min(probs))} to {float(xp.max(probs))} (or NaN); "
            "pass softmax(logits), not the logits"
        )
    return n, m


def _check_labels(labels: Any, n: int, m: int, xp: Any) -> None:
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(
            f"labels must have shape (n,) = ({n},); got {tuple(labels.shape)}"
        )
    check_labels(labels, m)


def _true_class_prob(probs: Any, labels: Any, xp: Any) -> Any:
    m = probs.shape[1]
    classes = xp.arange(m, device=device_of(probs))
    mask = labels[:, None] == classes[None, :]  # (n, m)
    return xp.sum(xp.where(mask, probs, xp.zeros_like(probs)), axis=1)  # (n,)


# --- reliability diagram and calibration errors ---------------------------------------


def confidences(probs: Any) -> tuple[Any, Any]:
    r"""The confidence :math:`\max_i \hat{y}_i` and the predicted class
    :math:`\arg\max_i \hat{y}_i` of each row: (n, m) -> ((n,), (n,)).

    >>> [a.tolist() for a in confidences(np.array([[0.2, 0.8], [0.6, 0.4]]))]
    [[0.8, 0.6], [1, 0]]
    """
    xp = array_namespace(probs)
    _check_probs(probs, xp)
    return xp.max(probs, axis=1), xp.argmax(probs, axis=1)


@dataclass(frozen=True)
class ReliabilityBins:
    """The reliability diagram's data, arrays in the caller's namespace.

    edges : (b + 1,) bin edges 0, 1/b, ..., 1.
    counts : (b,) :math:`|\\mathcal{B}_i|`, how many predictions fall in each bin.
    confidence : (b,) mean confidence :math:`p_i` per bin (NaN for an empty bin).
    accuracy : (b,) fraction correct :math:`a_i` per bin (NaN for an empty bin).
    """

    edges: Any
    counts: Any
    confidence: Any
    accuracy: Any

    @property
    def gaps(self) -> Any:
        """(b,) :math:`|a_i - p_i|` (NaN for an empty bin): the red bars of F.4.5."""
        xp = array_namespace(self.accuracy)
        return xp.abs(self.accuracy - self.confidence)


def reliability_bins(
    confidence: Any, correct: Any, n_bins: int = 10
) -> ReliabilityBins:
    r"""Bin predictions by confidence into b equal bins of [0, 1].

    Bin i (1-based) holds the confidences in :math:`((i-1)/b, i/b]`; a confidence of
    exactly 0 goes to the first bin. The binning is a one-hot matrix product, so it runs
    unchanged on every backend.

    Parameters
    ----------
    confidence : (n,) floating, values in [0, 1].
    correct : (n,) booleans (or 0/1): was the prediction right?
    n_bins : b >= 1.

    Book: §4.3.4 (lines 2092-2100), Figure F.4.5.

    >>> r = reliability_bins(np.array([0.05, 0.95, 0.9]), np.array([1, 1, 0]), 2)
    >>> r.counts.tolist(), r.accuracy.tolist()
    ([1.0, 2.0], [1.0, 0.5])
    """
    xp = array_namespace(confidence, correct)
    b = check_int(n_bins, "n_bins")
    if confidence.ndim != 1 or tuple(correct.shape) != tuple(confidence.shape):
        raise ValueError(
            "confidence and correct must both have shape (n,); got "
            f"{tuple(confidence.shape)} and {tuple(correct.shape)}"
        )
    if not xp.isdtype(confidence.dtype, "real floating"):
        raise ValueError(f"confidence must be real floating; got {confidence.dtype}")
    if not bool(xp.all((confidence >= 0) & (confidence <= 1))):
        raise ValueError("confidence must lie in [0, 1]; got values outside (or NaN)")
    dtype, dev = confidence.dtype, device_of(confidence)
    ok = xp.astype(correct, dtype)
    if not bool(xp.all((ok == 0) | (ok == 1))):
        raise ValueError("correct must hold booleans or 0/1 values")
    idx = xp.astype(xp.ceil(confidence * b), xp.int64) - 1  # (i-1)/b < p <= i/b -> i-1
    idx = xp.clip(idx, 0, b - 1)
    onehot = xp.astype(
        idx[:, None] == xp.arange(b, device=dev)[None, :], dtype
    )  # (n, b)
    counts = xp.sum(onehot, axis=0)
    sum_conf = xp.matmul(confidence, onehot)  # (n,) @ (n, b) -> (b,)
    sum_ok = xp.matmul(ok, onehot)
    safe = xp.where(counts > 0, counts, xp.ones_like(counts))
    nan = xp.full_like(counts, float("nan"))
    edges = xp.linspace(0.0, 1.0, b + 1, dtype=dtype, device=dev)
    return ReliabilityBins(
        edges,
        counts,
        xp.where(counts > 0, sum_conf / safe, nan),
        xp.where(counts > 0, sum_ok / safe, nan),
    )


def _bins_of(probs: Any, labels: Any, n_bins: int) -> tuple[ReliabilityBins, Any, int]:
    xp = array_namespace(probs, labels)
    n, m = _check_probs(probs, xp)
    _check_labels(labels, n, m, xp)
    conf, pred = confidences(probs)
    return reliability_bins(conf, pred == labels, n_bins), xp, n


def expected_calibration_error(probs: Any, labels: Any, n_bins: int = 10) -> Any:
    r"""The expected calibration error, :math:`\mathrm{ECE} = \sum_i
    \frac{|\mathcal{B}_i|}{n}\,|a_i - p_i|` over b equal confidence bins, in [0, 1].

    Parameters
    ----------
    probs : (n, m) predicted probabilities; labels : (n,) integer true classes.

    Returns
    -------
    0-d array in the namespace of ``probs``.

    Book: §4.3.4, E.4.21 (lines 2106-2116).

    >>> p = np.tile([0.2, 0.8], (5, 1))  # always 0.8 sure, always right
    >>> round(float(expected_calibration_error(p, np.ones(5, dtype=int))), 12)
    0.2
    """
    bins, xp, n = _bins_of(probs, labels, n_bins)
    gaps = xp.where(bins.counts > 0, bins.gaps, xp.zeros_like(bins.counts))
    return xp.sum(bins.counts * gaps) / n


def max_calibration_error(probs: Any, labels: Any, n_bins: int = 10) -> Any:
    r"""The largest gap :math:`\max_i |a_i - p_i|` over the non-empty bins
    (the "maximum over the bins" of line 2120); always at least the ECE.

    >>> p = np.array([[0.1, 0.9], [0.4, 0.6]])
    >>> round(float(max_calibration_error(p, np.array([1, 0]))), 12)
    0.6
    """
    bins, xp, _ = _bins_of(probs, labels, n_bins)
    gaps = xp.where(bins.counts > 0, bins.gaps, xp.zeros_like(bins.counts))
    return xp.max(gaps)


# --- temperature scaling --------------------------------------------------------------


def temperature_nll(logits: Any, labels: Any, tau: float) -> Any:
    r"""Mean negative log-likelihood of the labels under
    :math:`\mathrm{softmax}(\mathbf{h}/\tau)`, computed from the logits.

    >>> round(float(temperature_nll(np.zeros((2, 4)), np.array([0, 1]), 2.0)), 6)
    1.386294
    """
    xp = array_namespace(logits, labels)
    if logits.ndim != 2:
        raise ValueError(f"logits must have shape (n, m); got {tuple(logits.shape)}")
    n, m = logits.shape
    _check_labels(labels, n, m, xp)
    tau = float(tau)
    if not (math.isfinite(tau) and tau > 0):
        raise ValueError(f"tau must be a finite number > 0; got {tau}")
    return -xp.mean(_true_class_prob(log_softmax(logits / tau, axis=-1), labels, xp))


def fit_temperature(
    logits: Any, labels: Any, *, bounds: tuple[float, float] = (0.05, 20.0)
) -> float:
    r"""Temperature scaling: the :math:`\tau` in ``bounds`` minimising the mean
    negative log-likelihood of held-out labels under :math:`\mathrm{softmax}(
    \mathbf{h}/\tau)`.

    The NLL is convex in :math:`\beta = 1/\tau` (a logsumexp of :math:`\beta\mathbf{h}`
    minus a linear term), so a golden-section search over :math:`\beta` finds the
    minimum to about 1e-10. Dividing all logits by one positive number keeps their
    order, so predictions and accuracy do not change; only the confidences do.

    Parameters
    ----------
    logits : (n, m) validation logits; labels : (n,) integer classes.

    Returns
    -------
    float, the fitted temperature (:math:`\tau > 1` softens an over-confident model).

    Book: §4.3.4, temperature scaling (line 2120, citing Guo et al. 2017).
    """
    lo, hi = (float(v) for v in bounds)
    if not 0 < lo < hi:
        raise ValueError(f"bounds must satisfy 0 < low < high; got {bounds}")

    def f(beta: float) -> float:
        return float(temperature_nll(logits, labels, 1.0 / beta))

    a, b = 1.0 / hi, 1.0 / lo  # search beta = 1/tau in [1/hi, 1/lo]
    g = (math.sqrt(5.0) - 1.0) / 2.0
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    while b - a > 1e-10 * (1.0 + abs(a) + abs(b)):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return 2.0 / (a + b)


# --- decisions under costs ------------------------------------------------------------


def bayes_decision(probs: Any, C: Any) -> Any:
    r"""The class of least expected cost, :math:`\arg\min_i \sum_j C_{ij}
    [f(\mathbf{x})]_j`, with ``C[i, j]`` the cost of *predicting* i when the truth is j
    (the convention of Table T.4.2 and line 2082). Ties go to the lower class.

    With :math:`C_{ij} = 1 - \delta_{ij}` the expected cost of predicting i is
    :math:`1 - \hat{y}_i`, so this is the argmax.

    Parameters
    ----------
    probs : (n, m) probabilities; C : (m, m) costs.

    Returns
    -------
    (n,) integer classes.

    Book: §4.3.3 (lines 2044-2088), Table T.4.2.

    >>> C = np.array([[0.0, 10.0], [1.0, 0.0]])  # a missed class 1 costs 10
    >>> bayes_decision(np.array([[0.85, 0.15], [0.95, 0.05]]), C).tolist()
    [1, 0]
    """
    xp = array_namespace(probs, C)
    n, m = _check_probs(probs, xp)
    if tuple(C.shape) != (m, m):
        raise ValueError(
            f"C must have shape (m, m) = ({m}, {m}) to match probs; got "
            f"{tuple(C.shape)}"
        )
    risk = xp.matmul(probs, xp.matrix_transpose(xp.astype(C, probs.dtype)))  # (n, m)
    return xp.argmin(risk, axis=1)


def binary_threshold(C: Any) -> float:
    r"""For two classes and costs ``C[pred, true]``, the probability of class 1 above
    which predicting 1 is cheaper:
    :math:`t = (C_{10} - C_{00}) / ((C_{10} - C_{00}) + (C_{01} - C_{11}))`.
    Table T.4.2 gives 1/11: predict 1 as soon as :math:`p(1) > 0.0909`.

    >>> round(binary_threshold(np.array([[0.0, 10.0], [1.0, 0.0]])), 6)
    0.090909
    """
    c = np.asarray(to_numpy(C), dtype=np.float64)
    if c.shape != (2, 2):
        raise ValueError(f"C must have shape (2, 2); got {c.shape}")
    fp, fn = c[1, 0] - c[0, 0], c[0, 1] - c[1, 1]
    if fp <= 0 or fn <= 0:
        raise ValueError(
            "a mistake must cost more than the right answer (C[1,0] > C[0,0] and "
            f"C[0,1] > C[1,1]); got C = {c.tolist()}"
        )
    return float(fp / (fp + fn))


# --- conformal prediction -------------------------------------------------------------


def prediction_sets(probs: Any, gamma: float) -> Any:
    r"""The set of classes whose probability exceeds :math:`\gamma`,
    :math:`\mathcal{C}(\mathbf{x}) = \{i \mid [f(\mathbf{x})]_i > \gamma\}`, as an
    (n, m) boolean mask. With :math:`\gamma = 0` every class with non-zero probability
    is in the set.

    Book: §4.3.4, E.4.22 (lines 2124-2130), Figure F.4.6.

    >>> prediction_sets(np.array([[0.6, 0.3, 0.1]]), 0.2).tolist()
    [[True, True, False]]
    """
    xp = array_namespace(probs)
    _check_probs(probs, xp)
    gamma = float(gamma)
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must lie in [0, 1]; got {gamma}")
    return probs > gamma


def conformal_threshold(probs: Any, labels: Any, alpha: float) -> float:
    r"""Split-conformal calibration of :math:`\gamma`: with :math:`s_{(1)} \le \dots
    \le s_{(n)}` the sorted probabilities the model gives to the *true* class on a
    held-out calibration set and :math:`k = \lfloor (n+1)\alpha\rfloor`, return
    :math:`\gamma = s_{(k)}` (0 when k = 0).

    For a new example exchangeable with the calibration set, the true class falls in
    :math:`\{i \mid [f(\mathbf{x})]_i > \gamma\}` with probability at least
    :math:`1 - k/(n+1) \ge 1 - \alpha` (with no ties among the scores): the true
    class is left out only when its score ranks among the k lowest of the n + 1.
    Smaller :math:`\alpha` means smaller k, a lower :math:`\gamma` and larger sets.

    Parameters
    ----------
    probs : (n, m) calibration probabilities; labels : (n,) true classes.
    alpha : the miscoverage level in (0, 1), e.g. 0.1 for 90% coverage.

    Book: §4.3.4, E.4.23 (lines 2146-2160).
    """
    xp = array_namespace(probs, labels)
    n, m = _check_probs(probs, xp)
    _check_labels(labels, n, m, xp)
    alpha = float(alpha)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1); got {alpha}")
    k = math.floor((n + 1) * alpha)
    if k == 0:
        return 0.0
    scores = xp.sort(_true_class_prob(probs, labels, xp))
    return float(scores[min(k, n) - 1])


def coverage(sets: Any, labels: Any) -> Any:
    r"""Fraction of examples whose true class is in its prediction set.

    >>> coverage(np.array([[True, False], [False, False]]), np.array([0, 0])).item()
    0.5
    """
    xp = array_namespace(sets, labels)
    if sets.ndim != 2 or labels.ndim != 1 or labels.shape[0] != sets.shape[0]:
        raise ValueError(
            f"sets must be (n, m) and labels (n,); got {tuple(sets.shape)} and "
            f"{tuple(labels.shape)}"
        )
    dtype = xp.zeros(1, device=device_of(sets)).dtype  # the default floating dtype
    return xp.mean(_true_class_prob(xp.astype(sets, dtype), labels, xp))
