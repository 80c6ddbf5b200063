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

One module per family: :mod:`alice_lab.losses.categorical` (integer, one-hot and
soft targets, log-probabilities, the Brier score), :mod:`alice_lab.losses.binary`
(binary cross-entropy on probabilities and logits), :mod:`alice_lab.losses.regression`
(§4.1.1) and :mod:`alice_lab.losses.margins` (chapter 3's losses for labels in
{-1, +1}); their shared argument checks are in ``alice_lab.losses._checks``.
"""

from alice_lab.losses.binary import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
)
from alice_lab.losses.categorical import (
    brier_score,
    cross_entropy,
    cross_entropy_onehot,
    cross_entropy_probs,
    nll_loss,
)
from alice_lab.losses.margins import hinge, hinge_grad, margin, zero_one
from alice_lab.losses.regression import (
    absolute_loss,
    gaussian_nll,
    huber_loss,
    prediction_error,
    squared_loss,
)

__all__ = [
    "absolute_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "brier_score",
    "cross_entropy",
    "cross_entropy_onehot",
    "cross_entropy_probs",
    "gaussian_nll",
    "hinge",
    "hinge_grad",
    "huber_loss",
    "margin",
    "nll_loss",
    "prediction_error",
    "squared_loss",
    "zero_one",
]
