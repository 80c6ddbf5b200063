"""Argument checks and the reduction rule shared by the losses."""

from __future__ import annotations

from typing import Any

from alice_lab.backend import check_labels, device_of

_REDUCTIONS = ("mean", "sum", "none")


def _reduce(v: Any, reduction: str, xp: Any) -> Any:
    if reduction == "mean":
        return xp.mean(v)
    if reduction == "sum":
        return xp.sum(v)
    return v


def _check_reduction(reduction: Any) -> str:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}; got {reduction!r}")
    return reduction


def _check_probs(p: Any, name: str, xp: Any) -> None:
    if not xp.isdtype(p.dtype, "real floating"):
        raise ValueError(f"{name} must be a real floating array; got dtype {p.dtype}")
    if not bool(xp.all((p >= 0) & (p <= 1))):
        nan = bool(xp.any(xp.isnan(p)))
        got = "NaN" if nan else f"values from {float(xp.min(p))} to {float(xp.max(p))}"
        raise ValueError(
            f"{name} must be probabilities in [0, 1]; got {got} "
            "(pass logits to the *_with_logits / cross_entropy variants)"
        )


def _check_simplex_rows(p: Any, xp: Any) -> None:
    """Each row of the (n, m) probabilities sums to 1 (to 100 ulp, at least 1e-6)."""
    tol = max(1e-6, 100 * float(xp.finfo(p.dtype).eps))
    rows = xp.sum(p, axis=-1)
    if not bool(xp.all(xp.abs(rows - 1) <= tol)):
        raise ValueError(
            "probs must have rows in the simplex (summing to 1); got row sums from "
            f"{float(xp.min(rows))} to {float(xp.max(rows))}"
        )


def _check_scores(scores: Any, name: str, xp: Any) -> tuple[int, int]:
    if scores.ndim != 2:
        raise ValueError(f"{name} must have shape (n, m); got {tuple(scores.shape)}")
    n, m = scores.shape
    if n == 0 or m == 0:
        raise ValueError(
            f"{name} needs at least one example and one class; got shape "
            f"{tuple(scores.shape)}"
        )
    if not xp.isdtype(scores.dtype, "real floating"):
        raise ValueError(f"{name} must be a real floating array; got {scores.dtype}")
    return n, m


def _label_mask(labels: Any, n: int, m: int, xp: Any, like: Any) -> Any:
    """Integer labels (n,) or one-hot rows (n, m) -> (n, m) one-hot, like's dtype."""
    if labels.ndim == 2:
        if tuple(labels.shape) != (n, m):
            raise ValueError(
                f"one-hot labels must have shape (n, m) = ({n}, {m}); got "
                f"{tuple(labels.shape)}"
            )
        Y = xp.astype(labels, like.dtype)
        ok = xp.all((Y == 0) | (Y == 1)) & xp.all(xp.sum(Y, axis=-1) == 1)
        if not bool(ok):
            raise ValueError(
                "one-hot labels must hold a single 1 per row and 0 elsewhere "
                "(use cross_entropy_onehot for soft targets)"
            )
        return Y
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(
            f"labels must have shape (n,) = ({n},) or (n, m) = ({n}, {m}); got "
            f"{tuple(labels.shape)}"
        )
    check_labels(labels, m)
    classes = xp.arange(m, device=device_of(like))
    return xp.astype(labels[:, None] == classes[None, :], like.dtype)


def _pick(values: Any, Y: Any, xp: Any) -> Any:
    """Row-wise :math:`\\sum_j Y_{ij} v_{ij}` with 0 * (-inf) counted as 0."""
    return xp.sum(Y * xp.where(Y > 0, values, xp.zeros_like(values)), axis=-1)
