r"""The cross-entropy family of §4.2.2-4.3.2: integer labels under softmax(logits),
one-hot or soft targets, probabilities, log-probabilities (``nll_loss``), and the
Brier score.

Book: §4.2.2, the cross-entropy loss (lines 1808-1842); §4.3.2, the logsumexp trick
(lines 1952-2014); §4.2, the Brier score (line 1620).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, check_labels, device_of, is_torch_array
from alice_lab.functional import log_softmax
from alice_lab.losses._checks import (
    _check_probs,
    _check_reduction,
    _check_scores,
    _check_simplex_rows,
    _label_mask,
    _pick,
    _reduce,
)

__all__ = [
    "brier_score",
    "cross_entropy",
    "cross_entropy_onehot",
    "cross_entropy_probs",
    "nll_loss",
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
    check_labels(labels, c, hint="one-hot or probability targets are not accepted here")
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


def cross_entropy_onehot(logits: Any, targets: Any, *, reduction: str = "mean") -> Any:
    r"""Cross-entropy of target distributions (one-hot or soft) under softmax(logits):
    :math:`-\sum_j t_{ij}\log[\mathrm{softmax}(\mathbf{p}_i)]_j` (E.4.17
    with :math:`\mathbf{t} = \mathbf{y}^{\mathrm{oh}}`), computed through
    :func:`~alice_lab.functional.log_softmax`. Equals
    ``torch.nn.functional.cross_entropy(logits, targets)`` with probability targets.

    Parameters
    ----------
    logits : (n, m) floating; targets : (n, m) floating, each row in the simplex
        (non-negative, summing to 1 within 1e-6).

    Book: §4.2.2, E.4.17 (lines 1810-1818).

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

    Book: §4.2.2, E.4.17 and E.4.18 (lines 1810-1830).

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
