r"""Echo state networks: a vanilla RNN whose A and B are drawn once and never trained;
only a linear readout is fitted, here by ridge regression (the book names the idea on
line 6413 without a fitting method).

Book: §13.2.2 (line 6413).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import check_int

__all__ = ["esn_fit_readout", "esn_reservoir", "esn_states"]


def esn_reservoir(
    e: int,
    c: int,
    *,
    spectral_radius: float = 0.9,
    input_scale: float = 0.5,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """A random reservoir ``(A (e, e), B (e, c))`` with A rescaled to the given spectral
    radius (< 1 gives the echo-state property: the initial state is forgotten)."""
    e, c = check_int(e, "e"), check_int(c, "c")
    r = np.random.default_rng(seed)
    A = r.standard_normal((e, e))
    A *= spectral_radius / np.max(np.abs(np.linalg.eigvals(A)))
    B = input_scale * r.uniform(-1.0, 1.0, (e, c))
    return A, B


def esn_states(X: Any, A: Any, B: Any, s0: Any = None) -> np.ndarray:
    """The reservoir's states ``(n, e)`` for ``X (n, c)`` (tanh cell, no bias)."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] != np.shape(B)[1]:
        raise ValueError(
            f"X must have shape (n, {np.shape(B)[1]}) with n >= 1; got {X.shape}"
        )
    s = np.zeros(np.shape(A)[0]) if s0 is None else np.asarray(s0, dtype=float)
    out = np.empty((X.shape[0], s.shape[0]))
    for i, x in enumerate(X):
        s = np.tanh(A @ s + B @ x)
        out[i] = s
    return out


def esn_fit_readout(states: Any, targets: Any, *, ridge: float = 1e-6) -> np.ndarray:
    """Ridge regression of ``targets (n, o)`` on ``[states, 1]``: ``W (e + 1, o)``, so
    the
    prediction is ``[S, 1] @ W``."""
    S = np.asarray(states, dtype=float)
    Y = np.asarray(targets, dtype=float)
    if S.shape[0] != Y.shape[0]:
        raise ValueError(
            f"states and targets need the same n; got {S.shape}, {Y.shape}"
        )
    Z = np.hstack([S, np.ones((S.shape[0], 1))])
    return np.linalg.solve(Z.T @ Z + ridge * np.eye(Z.shape[1]), Z.T @ Y)
