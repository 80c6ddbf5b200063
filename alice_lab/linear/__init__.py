r"""Linear models: least squares (closed form, ridge, gradient descent) and logistic
regression (binary and multi-class) with hand-written gradients, for any backend.

Least squares (§4.1) minimises :math:`\frac1n\lVert\mathbf{y}-\mathbf{X}\mathbf{w}
\rVert^2`; its minimiser solves the *normal equations*
:math:`\mathbf{X}^\top\mathbf{X}\mathbf{w} = \mathbf{X}^\top\mathbf{y}`.
:func:`least_squares` solves them four ways (``solve``, ``inv``, ``lstsq`` through the
SVD, and gradient descent ``gd``), with an optional ridge term
:math:`\lambda\mathbf{I}` (§4.1.5). :func:`ls_gd` is the book's Box 4.3 loop, with
the loss at every iterate (Figure F.4.2) and the book's convergence test.

Logistic regression (§4.2-4.3) has no closed form: :func:`fit_logreg` runs gradient
descent (:func:`alice_lab.optim.gradient_descent`) on the mean cross-entropy, with the
gradients written by hand, :math:`\nabla_{\mathbf{W}} = \frac1n(\hat{\mathbf{Y}} -
\mathbf{Y}^{\mathrm{oh}})^\top\mathbf{X}` for softmax outputs and
:math:`\nabla_{\mathbf{w}} = \frac1n\mathbf{X}^\top(\sigma(\mathbf{X}\mathbf{w}+b) -
\mathbf{y})` for the sigmoid; ``tests/test_linear.py`` checks them against finite
differences, ``torch.autograd`` and ``jax.grad``.

Shapes follow the book: ``X (n, c)``, ``y (n)``, ``w (c)``, ``W (m, c)``, ``b (m)``.
A model's parameters can also travel as a dict (``{"W": ..., "b": ...}`` or
``{"w": ..., "b": ...}``) for the chapter's exercise: :func:`init_params`,
:func:`predict`, :func:`predict_proba`, :func:`gradients`; dropping the ``"b"`` key
drops the bias and its gradient.

Book: §4.1 (lines 1316-1586), §4.2 (lines 1588-1846), §4.3.1 (lines 1850-1946),
"From theory to practice" (lines 2176-2192).

The package has one module per idea: :mod:`alice_lab.linear.model` (the linear model),
:mod:`alice_lab.linear.regression` (least squares and ridge),
:mod:`alice_lab.linear.closed_form` (pseudoinverse, hat matrix, conditioning, cost),
:mod:`alice_lab.linear.logistic` (logistic regression) and
:mod:`alice_lab.linear.params` (the exercise's dict-of-parameters form and
:func:`fit_logreg`).
"""

from alice_lab.linear.closed_form import (
    condition_number,
    dual_weights,
    gradient_flops,
    hat_matrix,
    pseudoinverse,
)
from alice_lab.linear.logistic import (
    binary_logreg_forward,
    binary_logreg_gradient,
    binary_logreg_loss,
    binary_predict,
    logreg_forward,
    logreg_gradient,
    logreg_loss,
    predict_class,
)
from alice_lab.linear.model import add_bias_column, linear_model, multi_linear
from alice_lab.linear.params import (
    LogRegFit,
    fit_logreg,
    gradients,
    init_params,
    loss,
    predict,
    predict_proba,
)
from alice_lab.linear.regression import (
    METHODS,  # noqa: F401  (the methods of least_squares)
    LSGDResult,
    least_squares,
    ls_gd,
    ls_gradient,
    ls_loss,
    ls_noise_variance,
    normal_equations,
    ridge_loss,
)

__all__ = [
    "LSGDResult",
    "LogRegFit",
    "add_bias_column",
    "binary_logreg_forward",
    "binary_logreg_gradient",
    "binary_logreg_loss",
    "binary_predict",
    "condition_number",
    "dual_weights",
    "fit_logreg",
    "gradient_flops",
    "gradients",
    "hat_matrix",
    "init_params",
    "least_squares",
    "linear_model",
    "logreg_forward",
    "logreg_gradient",
    "logreg_loss",
    "loss",
    "ls_gd",
    "ls_gradient",
    "ls_loss",
    "ls_noise_variance",
    "multi_linear",
    "normal_equations",
    "predict",
    "predict_class",
    "predict_proba",
    "pseudoinverse",
    "ridge_loss",
]
