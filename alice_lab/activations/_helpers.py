"""Helpers shared by the activation modules: stable pieces of the formulas."""

from __future__ import annotations

from typing import Any


def _neg_abs(s: Any, xp: Any) -> Any:
    """:math:`-|s|`, written with ``where`` so that its derivative at 0 is -1 (the
    ``s >= 0`` branch), which keeps autodiff of the stable formulas exact at 0."""
    return xp.where(s >= 0, -s, s)


def _zeros(s: Any, xp: Any) -> Any:
    return xp.zeros_like(s)


def _no_neg_inf(s: Any, xp: Any) -> Any:
    r"""``s`` with -inf replaced by 0, for gates :math:`s\,\beta(s)` whose limit at
    -inf is 0 (the product itself would be -inf * 0 = NaN)."""
    return xp.where((s < 0) & xp.isinf(s), _zeros(s, xp), s)


def _check_alpha(s: Any, alpha: Any) -> None:
    if hasattr(alpha, "shape") and alpha.ndim > 0:
        c = s.shape[-1] if s.ndim else None
        if alpha.ndim != 1 or alpha.shape[0] not in (1, c):
            raise ValueError(
                f"alpha must be a scalar or have shape (c',) = ({c},), one slope per "
                f"unit of the last axis of s {tuple(s.shape)}; got {tuple(alpha.shape)}"
            )
