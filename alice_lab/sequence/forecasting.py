r"""Time series as 1-D data: sampling rates, forecasting windows, shifted targets,
autoregressive roll-outs with a FIFO buffer, causal models and their loss.

- :func:`make_windows` cuts a series ``(T, c)`` into all windows ``X ~ (t, c)`` with the
  next value ``y ~ (c)`` as target (line 3974);
- :func:`autoregressive_rollout` feeds a one-step forecaster its own predictions, the
  shifted input of eq. E.8.5 (lines 3986-4012);
- :func:`shift_targets` builds the whole-sequence targets ``[X_{2:t}; y]`` of a causal
  model (line 4072), :func:`sequence_mse` its loss eq. E.8.6 (line 4110);
- :func:`generate_causal` runs the book's ``t = 4`` zero-padded buffer schedule
  (lines 4134-4160) and logs which output position it reads at each step;
- :func:`is_causal` checks the definition of a causal layer (line 4020) by perturbing
  each input position.

Book: §8.1.1 (lines 3688-3708) and §8.3 (lines 3960-4162).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, check_int

__all__ = [
    "autoregressive_rollout",
    "generate_causal",
    "is_causal",
    "make_windows",
    "num_samples",
    "sequence_mse",
    "shift_targets",
]


def num_samples(duration_s: float, rate_hz: float) -> int:
    """Samples in ``duration_s`` seconds at ``rate_hz`` (rounded to an int).

    >>> num_samples(180, 44_100)
    7938000
    """
    if duration_s < 0 or rate_hz <= 0:
        raise ValueError(
            f"need duration >= 0 and rate > 0; got {duration_s}, {rate_hz}"
        )
    return int(round(duration_s * rate_hz))


def _series(series) -> np.ndarray:
    s = np.asarray(series, dtype=np.float64)
    if s.ndim == 1:
        s = s[:, None]
    if s.ndim != 2 or s.shape[0] == 0:
        raise ValueError(
            f"series must have shape (T,) or (T, c) with T >= 1; got {s.shape}"
        )
    return s


def make_windows(series, t: int, *, horizon: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """All windows of length ``t`` and the value ``horizon`` steps after each.

    series : (T,) or (T, c). Returns ``X (T - t - horizon + 1, t, c)`` and
    ``y (T - t - horizon + 1, c)`` with ``y[i] = series[i + t + horizon - 1]``.

    >>> X, y = make_windows(np.arange(6.0), 3)
    >>> X[:, :, 0].tolist(), y[:, 0].tolist()
    ([[0.0, 1.0, 2.0], [1.0, 2.0, 3.0], [2.0, 3.0, 4.0]], [3.0, 4.0, 5.0])
    """
    s = _series(series)
    t, horizon = check_int(t, "t"), check_int(horizon, "horizon")
    n = s.shape[0] - t - horizon + 1
    if n < 1:
        raise ValueError(
            f"a series of length {s.shape[0]} has no window of t={t} "
            f"+ horizon={horizon}"
        )
    idx = np.arange(n)[:, None] + np.arange(t)[None, :]
    return s[idx], s[np.arange(n) + int(t) + int(horizon) - 1]


def shift_targets(X: Any, y: Any) -> Any:
    """Targets of a causal model: ``[X_{2:t}; y]``, X (t, c), y (c,) -> (t, c)."""
    xp = array_namespace(X)
    if X.ndim != 2 or y.ndim != 1 or y.shape[0] != X.shape[1]:
        raise ValueError(
            f"expected X (t, c) and y (c,); got {tuple(X.shape)}, {tuple(y.shape)}"
        )
    return xp.concat([X[1:, :], y[None, :]], axis=0)


def sequence_mse(Yhat: Any, Y: Any) -> Any:
    r"""``‖Ŷ - Y‖² = Σ_i ‖Ŷ_i - Y_i‖²`` (eq. E.8.6): one term per position.

    Yhat, Y : (t, c) or (b, t, c) (summed over everything)."""
    xp = array_namespace(Yhat)
    if tuple(Yhat.shape) != tuple(Y.shape):
        raise ValueError(
            f"Yhat and Y must have the same shape; got {tuple(Yhat.shape)}, "
            f"{tuple(Y.shape)}"
        )
    return xp.sum((Yhat - Y) ** 2)


def autoregressive_rollout(
    f: Callable[[np.ndarray], Any], X0, steps: int
) -> np.ndarray:
    """Predict ``steps`` values with a one-step model ``f: (t, c) -> (c,)``: each
    prediction is appended to the window and its oldest element dropped (eq. E.8.5).

    Returns (steps, c)."""
    buf = _series(X0).copy()
    out = []
    for _ in range(check_int(steps, "steps", low=0)):
        yhat = np.asarray(f(buf), dtype=np.float64).reshape(buf.shape[1])
        out.append(yhat)
        buf = np.concatenate([buf[1:], yhat[None]], axis=0)
    return np.stack(out) if out else np.zeros((0, buf.shape[1]))


def generate_causal(
    f: Callable[[np.ndarray], Any], prefix, steps: int, *, context: int
) -> tuple[np.ndarray, list[tuple[np.ndarray, int]]]:
    """Generate with a causal sequence model ``f: (t, c) -> (t, c)`` and a buffer of
    ``context`` slots (lines 4134-4160).

    While the buffer is not full, it holds the known values then zeros; the prediction
    is read at the last known position (1-based ``read``) and written into the next
    slot.
    Once full, the oldest value is dropped (FIFO) and the last position is read.

    Returns the generated values (steps, c) and a log of ``(buffer copy, read)`` pairs.
    """
    known = _series(prefix)
    t, c = check_int(context, "context"), known.shape[1]
    if known.shape[0] > t:
        known = known[-t:]
    n = known.shape[0]
    buf = np.zeros((t, c))
    buf[:n] = known
    log, out = [], []
    for _ in range(check_int(steps, "steps", low=0)):
        H = np.asarray(f(buf.copy()), dtype=np.float64).reshape(t, c)
        log.append((buf.copy(), n))
        yhat = H[n - 1]
        out.append(yhat)
        if n < t:
            buf[n] = yhat
            n += 1
        else:
            buf = np.concatenate([buf[1:], yhat[None]], axis=0)
    return (np.stack(out) if out else np.zeros((0, c))), log


def is_causal(
    f: Callable[[np.ndarray], Any], X, *, atol: float = 1e-10, seed: int = 0
) -> bool:
    """Whether ``H = f(X)`` satisfies ``H_i = f(X_{:i})``: changing ``X_j`` must leave
    ``H_{:j}`` unchanged, for every ``j`` (X (t, c), f -> (t, c'))."""
    X = _series(X)
    rng = np.random.default_rng(seed)
    H = np.asarray(f(X), dtype=np.float64)
    for j in range(X.shape[0]):
        Xp = X.copy()
        Xp[j] += rng.standard_normal(X.shape[1])
        Hp = np.asarray(f(Xp), dtype=np.float64)
        if np.abs(Hp[:j] - H[:j]).max(initial=0.0) > atol:
            return False
    return True
