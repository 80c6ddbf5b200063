r"""Loss functions, written once against the array API.

:func:`cross_entropy` takes the *logits* rather than probabilities, as the stable
framework losses do (``torch.nn.functional.cross_entropy``): the loss of one example
is :math:`-\log[\mathrm{softmax}(\mathbf{p})]_y = -p_y +
\mathrm{logsumexp}(\mathbf{p})`, and computing it through
:func:`alice_lab.functional.log_softmax` never takes the logarithm of a probability
that underflowed to zero.

Book: §4.2.2, the cross-entropy loss (lines 1808-1842) and §4.3.2, the logsumexp trick
(lines 1952-2014).
"""

from __future__ import annotations

from typing import Any

from alice_lab.backend import array_namespace, device_of
from alice_lab.functional import log_softmax

__all__ = ["cross_entropy"]


def cross_entropy(logits: Any, labels: Any) -> Any:
    r"""Mean cross-entropy of integer class labels under softmax(logits).

    .. math:: \mathrm{CE} = \frac{1}{n}\sum_{i=1}^{n}
              \Big(-p_{i,y_i} + \mathrm{logsumexp}(\mathbf{p}_i)\Big)

    Parameters
    ----------
    logits : (n, c) floating array, the unnormalised scores :math:`\mathbf{p}_i`.
    labels : (n,) integer array with values in ``0..c-1``.

    Returns
    -------
    () array, the mean over the batch, in the dtype and on the device of ``logits``.

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
    logp = log_softmax(logits, axis=-1)  # (n, c)
    classes = xp.arange(c, device=device_of(logits))
    picked = labels[:, None] == classes[None, :]  # (n, c) one-hot mask
    nll = -xp.sum(xp.where(picked, logp, xp.zeros_like(logp)), axis=-1)  # (n,)
    return xp.mean(nll)
