r"""Numerical differentiation: derivatives, gradients, Jacobians, Hessians.

Everything here evaluates ``f`` at a few nearby points and divides, exactly as the
book defines the derivative as a limit of difference quotients. It is the independent
reference against which every hand-written or automatic derivative in the companion is
tested. Points are NumPy float64 arrays by default (Python scalars are converted);
PyTorch and JAX arrays work too and keep their type and device.

Choosing the step ``h``: the forward quotient :math:`(f(x+h)-f(x))/h` has a truncation
error of order :math:`h` and a rounding error of order :math:`\epsilon/h`, so the total
is smallest near :math:`h = \sqrt{\epsilon}` (about 1e-8 in float64); the central
quotient :math:`(f(x+h)-f(x-h))/2h` has truncation error of order :math:`h^2` and is
best near :math:`h = \epsilon^{1/3}` (about 6e-6). Plotted against ``h`` the error is a
V. The defaults use those steps, scaled by ``max(1, |x|)``.

Book: §2.2 "Gradients and Jacobians" (lines 572-880) and §2.3.1 (lines 966-1058).

Modules: :mod:`~alice_lab.calculus.finite_differences` (derivatives, gradients,
Jacobians, Hessians), :mod:`~alice_lab.calculus.linearization` (Taylor and the
Jacobian of a linear map) and :mod:`~alice_lab.calculus.stationary` (convexity and
stationary points).
"""

from alice_lab.calculus.finite_differences import (
    basis,
    derivative,
    directional_derivative,
    grad_fd,
    grad_fd_batched,
    hessian_fd,
    jacobian_fd,
    partial,
)
from alice_lab.calculus.linearization import (
    jacobian_linear_wrt_W,
    linearize,
    vjp_linear_wrt_W,
)
from alice_lab.calculus.stationary import check_convexity, classify_stationary_point

__all__ = [
    "basis",
    "check_convexity",
    "classify_stationary_point",
    "derivative",
    "directional_derivative",
    "grad_fd",
    "grad_fd_batched",
    "hessian_fd",
    "jacobian_fd",
    "jacobian_linear_wrt_W",
    "linearize",
    "partial",
    "vjp_linear_wrt_W",
]
