r"""Gradient descent and momentum, as chapter 2 writes them, for any array backend.

:func:`gradient_descent` runs steepest descent,
:math:`\mathbf{x}_t = \mathbf{x}_{t-1} - \eta\nabla f(\mathbf{x}_{t-1})`, or with
``momentum=λ > 0`` the book's momentum update

.. math::
    \mathbf{g}_t = -\eta\nabla f(\mathbf{x}_{t-1}) + \lambda\mathbf{g}_{t-1},\qquad
    \mathbf{x}_t = \mathbf{x}_{t-1} + \mathbf{g}_t,\qquad \mathbf{g}_0 = \mathbf{0}.

It keeps the whole path and the gradient norm at every iterate (the exercise at the end
of the chapter asks to plot both), runs many starting points at once when the gradient
function is vectorised, and stops with a :class:`DivergenceError` instead of filling
the path with ``inf``.

The helpers spell out the rest of §2.3: the closed form of the momentum sum
(:func:`momentum_unrolled`), descent directions (:func:`is_descent_direction`,
:func:`steepest_direction`) and the exact line search on a quadratic
(:func:`exact_line_search_quadratic`), under which consecutive gradients are orthogonal.

Chapter 5 adds stochastic optimisation: mini-batch SGD over epochs (:func:`sgd`),
parameters held in nests of dicts and lists (:func:`tree_map`), and data parallelism
(:func:`average_gradients`, :func:`data_parallel_grad`). :func:`adam` is the adaptive
optimiser §2.3 mentions, with the two kinds of weight decay of §9.2.1 (Adam and AdamW).

Book: §2.3 (lines 882-1100); §5.3 (lines 2342-2412); §9.2.1 (lines 4365-4369).

Modules: :mod:`~alice_lab.optim.descent` (gradient descent and momentum),
:mod:`~alice_lab.optim.directions` (closed forms and descent directions),
:mod:`~alice_lab.optim.stochastic` (SGD and data parallelism) and
:mod:`~alice_lab.optim.adaptive` (Adam and AdamW).
"""

from alice_lab.optim.adaptive import adam
from alice_lab.optim.descent import DivergenceError, GDResult, gradient_descent
from alice_lab.optim.directions import (
    exact_line_search_quadratic,
    is_descent_direction,
    momentum_unrolled,
    steepest_direction,
)
from alice_lab.optim.stochastic import (
    SGDResult,
    average_gradients,
    data_parallel_grad,
    iterations,
    sgd,
    sgd_step,
    tree_leaves,
    tree_map,
)

__all__ = [
    "DivergenceError",
    "GDResult",
    "SGDResult",
    "adam",
    "average_gradients",
    "data_parallel_grad",
    "exact_line_search_quadratic",
    "gradient_descent",
    "is_descent_direction",
    "iterations",
    "momentum_unrolled",
    "sgd",
    "sgd_step",
    "steepest_direction",
    "tree_leaves",
    "tree_map",
]
