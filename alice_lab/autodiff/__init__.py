r"""Automatic differentiation from scratch, in NumPy (book chapter 6).

The chapter's ideas, each in its own module, written to be read:

======================  ===============================================================
:mod:`.numerical`       finite differences: call counts, the error-versus-step V,
                        random-direction checks of VJPs and JVPs (§6.1.2)
:mod:`.symbolic`        SymPy's derivatives and expression swell (§6.1.2, Box 6.1)
:mod:`.rules`           the primitives, each forward next to its VJP and JVP rules
:mod:`.ops`             the engine's functions (``exp``, ``relu``, ``logsumexp``, ...)
:mod:`.dual`            forward mode: dual numbers carrying tangents (§6.2)
:mod:`.engine`          reverse mode: ``Tensor``, topological sort, ``backward`` (§6.3)
:mod:`.pitfalls`        two wrong backward passes (no accumulation, no toposort)
:mod:`.functional`      ``grad``, ``vjp``, ``jvp``, Jacobians with call counts (§6.4)
:mod:`.trace`           F-AD and R-AD on an evaluation trace, Jacobians in the open
:mod:`.checkpoint`      gradient checkpointing with recomputation counts
:mod:`.gradient_flow`   vanishing and exploding gradients, float32 underflow (§6.4.3)
:mod:`.subgradients`    subgradients and AD at kinks (§6.4.4)
:mod:`.mlp`             an MLP with cross-entropy, trained by the engine
:mod:`.frameworks`      the trainable Swish as ``torch.autograd.Function`` and
                        ``jax.custom_vjp``; the MLP in PyTorch for comparison
======================  ===============================================================

Functions written with NumPy operators work unchanged on engine values::

    >>> import numpy as np
    >>> from alice_lab import autodiff as ad
    >>> A = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> ad.grad(lambda x: np.tanh(A @ x).sum())(np.zeros(2))   # A^T 1 at x = 0
    array([ 9., 12.])
"""

from __future__ import annotations

from alice_lab.autodiff import (
    checkpoint,
    dual,
    engine,
    frameworks,
    functional,
    gradient_flow,
    mlp,
    numerical,
    ops,
    pitfalls,
    rules,
    subgradients,
    symbolic,
    trace,
)
from alice_lab.autodiff.checkpoint import checkpointed_gradients, recompute_factor
from alice_lab.autodiff.dual import Dual
from alice_lab.autodiff.engine import Tensor, backward_pass, no_grad, toposort
from alice_lab.autodiff.functional import (
    JacobianResult,
    grad,
    jacobian,
    jacobian_from_jvps,
    jacobian_from_vjps,
    jvp,
    value_and_grad,
    vjp,
)
from alice_lab.autodiff.numerical import check_grads, count_calls, numerical_grad
from alice_lab.autodiff.ops import (
    concatenate,
    log_softmax,
    logsumexp,
    maximum,
    relu,
    sigmoid,
    softmax,
    stack,
)
from alice_lab.autodiff.rules import PRIMITIVES, Primitive, defprimitive, unbroadcast
from alice_lab.autodiff.trace import forward_mode, reverse_mode

__all__ = [
    "checkpoint",
    "dual",
    "engine",
    "frameworks",
    "functional",
    "gradient_flow",
    "mlp",
    "numerical",
    "ops",
    "pitfalls",
    "rules",
    "subgradients",
    "symbolic",
    "trace",
    "PRIMITIVES",
    "Dual",
    "JacobianResult",
    "Primitive",
    "Tensor",
    "backward_pass",
    "check_grads",
    "checkpointed_gradients",
    "concatenate",
    "count_calls",
    "defprimitive",
    "forward_mode",
    "grad",
    "jacobian",
    "jacobian_from_jvps",
    "jacobian_from_vjps",
    "jvp",
    "log_softmax",
    "logsumexp",
    "maximum",
    "no_grad",
    "numerical_grad",
    "recompute_factor",
    "relu",
    "reverse_mode",
    "sigmoid",
    "softmax",
    "stack",
    "toposort",
    "unbroadcast",
    "value_and_grad",
    "vjp",
]
