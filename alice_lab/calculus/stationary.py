r"""Convexity along segments and the classification of a stationary point from its
Hessian's eigenvalues (§2.3.1).

Book: §2.3.1 (lines 966-1058).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from alice_lab.backend import array_namespace, as_float_array

__all__ = ["check_convexity", "classify_stationary_point"]


def check_convexity(
    f: Callable,
    x1s: Sequence[Any],
    x2s: Sequence[Any],
    alphas: Sequence[float],
    *,
    atol: float = 1e-12,
    rtol: float = 1e-9,
) -> tuple[Any, Any, float] | None:
    r"""Search for a violation of the convexity inequality on given points.

    Convexity means
    :math:`f(\alpha x_1 + (1-\alpha) x_2) \le \alpha f(x_1) + (1-\alpha) f(x_2)`.

    x1s, x2s : paired points, shape (k,) for a scalar f or (k, d) for f : (d) -> ()
    (``x1s[t]`` is paired with ``x2s[t]``); alphas : (m,) values in [0, 1], each tried
    on every pair. Returns the first violating ``(x1, x2, alpha)`` or ``None``. A
    violation must exceed ``atol + rtol * (|alpha f(x1)| + |(1 - alpha) f(x2)|)`` so
    that rounding on linear pieces is not reported. ``None`` is evidence of convexity,
    not a proof; a returned triple is a proof of non-convexity.

    Book: §2.3.1, definition "Convex function", eq. convex_function (lines 1018-1040).

    >>> import numpy as np
    >>> check_convexity(lambda x: x * np.sin(2 * x), [0.0], [2.0], [0.5])
    (0.0, 2.0, 0.5)
    """
    if len(x1s) != len(x2s):
        raise ValueError(
            f"x1s and x2s must pair up, got {len(x1s)} and {len(x2s)} points"
        )
    alphas = [float(a) for a in alphas]
    if any(not 0.0 <= a <= 1.0 for a in alphas):
        raise ValueError(f"alphas must lie in [0, 1], got {alphas}")
    for t in range(len(x1s)):
        x1, x2 = x1s[t], x2s[t]
        f1, f2 = float(f(x1)), float(f(x2))
        for a in alphas:
            lhs = float(f(a * x1 + (1 - a) * x2))
            chord = a * f1 + (1 - a) * f2
            if lhs > chord + atol + rtol * (abs(a * f1) + abs((1 - a) * f2)):
                return (x1, x2, a)
    return None


def classify_stationary_point(hess: Any, tol: float = 1e-6) -> str:
    r"""Classify a stationary point from the eigenvalues of its Hessian.

    hess : (d, d) (or a scalar second derivative) -> ``"minimum"`` (all eigenvalues
    positive), ``"maximum"`` (all negative), ``"saddle"`` (both signs) or
    ``"degenerate"`` (some eigenvalue is zero and the second-order test cannot decide,
    e.g. :math:`x^3` or :math:`x^4` at 0). Eigenvalues within
    ``tol * max(1, max |lambda|)`` of zero count as zero, so finite-difference noise
    does not decide. The matrix is symmetrised first.

    Book: §2.3.1, definition "Stationary points" and Fig. 2.3 (lines 988-1006); the
    second-order test is beyond the text (line 1048).

    >>> import numpy as np; classify_stationary_point(np.diag([2.0, -2.0]))
    'saddle'
    """
    hess = as_float_array(hess, "hess")
    xp = array_namespace(hess)
    if hess.ndim == 0:
        hess = xp.reshape(hess, (1, 1))
    if hess.ndim != 2 or hess.shape[0] != hess.shape[1] or hess.shape[0] == 0:
        raise ValueError(
            f"hess must be a square (d, d) matrix, got shape {tuple(hess.shape)}"
        )
    lam = xp.linalg.eigvalsh((hess + hess.T) / 2)
    lo, hi = float(xp.min(lam)), float(xp.max(lam))
    thr = tol * max(1.0, abs(lo), abs(hi))
    pos, neg = hi > thr, lo < -thr
    if pos and neg:
        return "saddle"
    if float(xp.min(xp.abs(lam))) <= thr:
        return "degenerate"
    return "minimum" if pos else "maximum"
