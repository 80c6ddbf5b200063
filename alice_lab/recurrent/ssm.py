r"""Linear state-space models: recurrence, closed form, long convolution, scan,
discretisation, diagonalisation, and the selective (input-dependent) variant.

The linear recurrent layer (book lines 6529-6531) is

.. math:: \mathbf{s}_i = \mathbf{A}\mathbf{s}_{i-1} + \mathbf{B}\mathbf{x}_i, \qquad
          \mathbf{y}_i = \mathbf{C}\mathbf{s}_i + \mathbf{D}\mathbf{x}_i,

with A (e, e), B (e, c), C (o, e), D (o, c). Unrolled,
:math:`\mathbf{s}_i = \sum_{j\le i}\mathbf{A}^{i-j}\mathbf{B}\mathbf{x}_j` (line 6547):
a
causal convolution with the kernel ``K = stack(A^{n-1}B, ..., AB, B)`` (n, e, c)
(line 6555); or a scan over the pairs :math:`(\mathbf{A}, \mathbf{B}\mathbf{x}_i)` with
:math:`(\mathbf{Z}, \mathbf{z})\star(\mathbf{V}, \mathbf{v}) = (\mathbf{V}\mathbf{Z},
\mathbf{V}\mathbf{z} + \mathbf{v})` (line 6637). If :math:`\mathbf{A} =
\mathbf{P}\mathbf{\Lambda}\mathbf{P}^{-1}`, the state :math:`\bar{\mathbf{s}} =
\mathbf{P}^{-1}\mathbf{s}` follows a *diagonal* SSM with
:math:`\bar{\mathbf{B}} = \mathbf{P}^{-1}\mathbf{B}` (the book prints
:math:`\mathbf{P}\mathbf{B}` on line 6679, an erratum) and :math:`\bar{\mathbf{C}} =
\mathbf{C}\mathbf{P}`; eigenvalues may be complex, outputs are the real part.

Sequences are ``X (n, c)`` or ``(b, n, c)`` NumPy arrays (real or complex).

Book: §13.3 (lines 6519-6711) and §13.4.3 (lines 6795-6837).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, as_float_array, check_int
from alice_lab.recurrent.scan import associative_scan, linear_recurrence

__all__ = [
    "diagonal_ssm",
    "diagonalize",
    "diagonalize_ssm",
    "discretize",
    "linear_ssm",
    "selective_ssm",
    "ssm_closed_form",
    "ssm_conv",
    "ssm_conv_fft",
    "ssm_kernel",
    "ssm_op",
    "ssm_scan",
]


def _seq(X: Any) -> tuple[np.ndarray, bool]:
    X = np.asarray(X)
    if X.ndim not in (2, 3):
        raise ValueError(f"X must have shape (n, c) or (batch, n, c); got {X.shape}")
    if X.shape[-2] == 0:
        raise ValueError("expected a non-empty sequence (n >= 1); got n = 0")
    return (X[None], True) if X.ndim == 2 else (X, False)


def _check_AB(A: Any, B: Any, c: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    A, B = np.asarray(A), np.asarray(B)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square (e, e); got {A.shape}")
    e = A.shape[0]
    if B.ndim != 2 or B.shape[0] != e or (c is not None and B.shape[1] != c):
        want = f"({e}, {c if c is not None else 'c'})"
        raise ValueError(
            f"B must have shape {want} for a state of size {e}"
            + (f" and inputs of size {c}" if c is not None else "")
            + f"; got {B.shape}"
        )
    return A, B


def _readout(S: np.ndarray, X: np.ndarray, C: Any, D: Any) -> np.ndarray:
    Y = S if C is None else S @ np.asarray(C).T
    if D is not None:
        Y = Y + X @ np.asarray(D).T
    return Y


def linear_ssm(
    X: Any, A: Any, B: Any, C: Any = None, D: Any = None, *, s0: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """The recurrence (lines 6529-6531): ``(Y, S)``, ``S (..., n, e)`` the states and
    ``Y = S Cᵀ + X Dᵀ`` (``Y = S`` when C and D are None).

    >>> import numpy as np
    >>> linear_ssm(np.ones((3, 1)), [[0.5]], [[1.0]])[1][:, 0].tolist()
    [1.0, 1.5, 1.75]
    """
    Xb, squeeze = _seq(X)
    A, B = _check_AB(A, B, Xb.shape[-1])
    dtype = np.result_type(A, B, Xb, 1.0)
    S = np.zeros((*Xb.shape[:2], A.shape[0]), dtype=dtype)
    s = np.zeros((Xb.shape[0], A.shape[0]), dtype=dtype)
    if s0 is not None:
        s = s + np.asarray(s0)
    for i in range(Xb.shape[1]):
        s = s @ A.T + Xb[:, i] @ B.T
        S[:, i] = s
    Y = _readout(S, Xb, C, D)
    return (Y[0], S[0]) if squeeze else (Y, S)


def ssm_closed_form(X: Any, A: Any, B: Any) -> np.ndarray:
    r"""States from the closed form :math:`\mathbf{s}_i = \sum_{j\le i}\mathbf{A}^{i-j}
    \mathbf{B}\mathbf{x}_j` (line 6547), with explicit matrix powers."""
    Xb, squeeze = _seq(X)
    A, B = _check_AB(A, B, Xb.shape[-1])
    n = Xb.shape[1]
    powers = [np.linalg.matrix_power(A, k) for k in range(n)]
    S = np.stack(
        [sum(Xb[:, j] @ (powers[i - j] @ B).T for j in range(i + 1)) for i in range(n)],
        axis=1,
    )
    return S[0] if squeeze else S


def ssm_kernel(A: Any, B: Any, n: int) -> np.ndarray:
    """``K = stack(A^{n-1}B, ..., AB, B)``, shape (n, e, c), computed iteratively (no
    matrix powers). Book line 6555."""
    A, B = _check_AB(A, B)
    n = check_int(n, "n")
    K = np.empty((n, *B.shape), dtype=np.result_type(A, B))
    M = B
    for k in range(n):
        K[n - 1 - k] = M
        M = A @ M
    return K


def ssm_conv(X: Any, K: Any) -> np.ndarray:
    r"""The long causal convolution ``S = Conv1D(X, K)`` of line 6563:
    :math:`\mathbf{s}_i = \sum_{j\le i} K[m-1-(i-j)]\,\mathbf{x}_j` with K (m, e, c),
    m >= n (the kernel for sequences up to length m)."""
    Xb, squeeze = _seq(X)
    K = np.asarray(K)
    n, c = Xb.shape[1], Xb.shape[2]
    if K.ndim != 3 or K.shape[2] != c or K.shape[0] < n:
        raise ValueError(
            f"K must have shape (m, e, {c}) with m >= n = {n}; got {K.shape}"
        )
    m = K.shape[0]
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    lag = np.where(i >= j, i - j, 0)
    T = K[m - 1 - lag] * (i >= j)[..., None, None]  # (n, n, e, c)
    S = np.einsum("ijec,bjc->bie", T, Xb)
    return S[0] if squeeze else S


def ssm_conv_fft(x: Any, k: Any) -> np.ndarray:
    """Causal convolution of one channel by FFT, ``y_i = sum_{j<=i} k_{i-j} x_j``, with
    ``k`` in *impulse-response* order (k[0] multiplies the current input), zero padded
    to 2n (book line 6567, FlashConv's idea)."""
    x, k = np.asarray(x), np.asarray(k)
    if x.ndim != 1 or k.ndim != 1 or x.shape[0] == 0:
        raise ValueError(f"expected 1-D x and k with n >= 1; got {x.shape}, {k.shape}")
    n = x.shape[0]
    if k.shape[0] < n:
        raise ValueError(f"k needs at least n = {n} taps; got {k.shape[0]}")
    size = 2 * n
    fft, ifft = (
        (np.fft.rfft, np.fft.irfft)
        if not (np.iscomplexobj(x) or np.iscomplexobj(k))
        else (np.fft.fft, np.fft.ifft)
    )
    y = ifft(fft(x, size) * fft(k[:n], size), size)[:n]
    return y


def ssm_op(earlier: tuple, later: tuple) -> tuple:
    """⋆ of line 6637: ``(Z, z) ⋆ (V, v) = (V Z, V z + v)``; matrices (e, e), vectors
    (..., e) (batched vectors use ``z @ V.T``)."""
    Z, z = earlier
    V, v = later
    return V @ Z, z @ np.swapaxes(V, -1, -2) + v


def ssm_scan(
    X: Any, A: Any, B: Any, *, algorithm: str = "blelloch", return_powers: bool = False
) -> Any:
    """States of the SSM by an associative scan over ``(A, B x_i)``; prefix i is
    ``(A^i, s_i)`` (line 6647). Returns ``S (n, e)`` (and the powers (n, e, e))."""
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must have shape (n, c) with n >= 1; got {X.shape}")
    A, B = _check_AB(A, B, X.shape[1])
    prefixes = associative_scan(
        ssm_op, [(A, B @ x) for x in X], algorithm=algorithm, check_associative=False
    )
    S = np.stack([p[1] for p in prefixes])
    return (S, np.stack([p[0] for p in prefixes])) if return_powers else S


def discretize(
    A: Any, B: Any, dt: float, method: str = "zoh"
) -> tuple[np.ndarray, np.ndarray]:
    r"""Continuous :math:`\dot{\mathbf{s}} = \mathbf{A}\mathbf{s} +
    \mathbf{B}\mathbf{x}`
    to discrete ``(A_d, B_d)`` with step ``dt``: "zoh" (zero-order hold,
    :math:`e^{\Delta A}`, :math:`A^{-1}(e^{\Delta A}-I)B` via one block exponential),
    "bilinear" (Tustin) or "euler". Not in the book's text (S4/S5, which it cites,
    start from here); checked against ``scipy.signal.cont2discrete``."""
    from scipy.linalg import expm

    A, B = _check_AB(A, B)
    if not dt > 0:
        raise ValueError(f"dt must be positive; got {dt}")
    e, c = B.shape
    eye = np.eye(e)
    if method == "zoh":
        M = np.zeros((e + c, e + c), dtype=np.result_type(A, B))
        M[:e, :e], M[:e, e:] = A, B
        E = expm(M * dt)
        return E[:e, :e], E[:e, e:]
    if method == "bilinear":
        inv = np.linalg.inv(eye - dt / 2 * A)
        return inv @ (eye + dt / 2 * A), inv @ B * dt
    if method == "euler":
        return eye + dt * A, dt * B
    raise ValueError(f"method must be 'zoh', 'bilinear' or 'euler'; got {method!r}")


def diagonalize(A: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""``(lam, P, P_inv)`` with :math:`\mathbf{A} = \mathbf{P}\,\mathrm{diag}(\lambda)
    \mathbf{P}^{-1}` (line 6661), complex in general. A non-diagonalisable A gives an
    ill-conditioned P (check ``np.linalg.cond(P)``)."""
    A = np.asarray(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square (e, e); got {A.shape}")
    lam, P = np.linalg.eig(A)
    return lam, P, np.linalg.inv(P)


def diagonalize_ssm(
    A: Any, B: Any, C: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""``(lam, B_bar, C_bar)`` of the equivalent diagonal SSM:
    :math:`\bar{\mathbf{B}} = \mathbf{P}^{-1}\mathbf{B}` (**not** the printed
    :math:`\mathbf{P}\mathbf{B}` of line 6679) and :math:`\bar{\mathbf{C}} =
    \mathbf{C}\mathbf{P}` (line 6693)."""
    A, B = _check_AB(A, B)
    C = np.asarray(C)
    if C.ndim != 2 or C.shape[1] != A.shape[0]:
        raise ValueError(f"C must have shape (o, {A.shape[0]}); got {C.shape}")
    lam, P, P_inv = diagonalize(A)
    return lam, P_inv @ B, C @ P


def diagonal_ssm(
    X: Any,
    lam: Any,
    B_bar: Any,
    C_bar: Any = None,
    D: Any = None,
    *,
    method: str = "recurrent",
    real: bool = True,
) -> np.ndarray:
    r"""The diagonal SSM of line 6705, :math:`\bar{\mathbf{s}}_i = \lambda\odot
    \bar{\mathbf{s}}_{i-1} + \bar{\mathbf{B}}\mathbf{x}_i`, :math:`\mathbf{y}_i =
    \bar{\mathbf{C}}\bar{\mathbf{s}}_i + \mathbf{D}\mathbf{x}_i`; outputs (n, o) (real
    part
    with ``real=True``), or the states (n, e) if C_bar is None. ``method``: "recurrent",
    "scan" (vectorised parallel scan) or "conv" (kernel :math:`\lambda^k`, FFT per
    state).
    """
    Xb, squeeze = _seq(X)
    lam = np.asarray(lam)
    B_bar = np.asarray(B_bar)
    if lam.ndim != 1 or B_bar.shape != (lam.shape[0], Xb.shape[-1]):
        raise ValueError(
            f"expected lam (e,) and B_bar (e, {Xb.shape[-1]}); got lam {lam.shape}, "
            f"B_bar {B_bar.shape}"
        )
    U = Xb @ B_bar.T  # (b, n, e)
    n = U.shape[1]
    if method in ("recurrent", "scan"):
        m = "sequential" if method == "recurrent" else "parallel"
        S = np.stack([linear_recurrence(lam, u, method=m) for u in U])
    elif method == "conv":
        k = lam[None, :] ** np.arange(n)[:, None]  # (n, e) impulse response
        S = np.stack(
            [
                np.stack(
                    [ssm_conv_fft(u[:, q], k[:, q]) for q in range(lam.shape[0])], -1
                )
                for u in U.astype(complex)
            ]
        )
    else:
        raise ValueError(
            f"method must be 'recurrent', 'scan' or 'conv'; got {method!r}"
        )
    if C_bar is None and D is None:
        return S[0] if squeeze else S
    Y = _readout(S, Xb, C_bar, D)
    if real:
        Y = Y.real
    return Y[0] if squeeze else Y


def selective_ssm(
    X: Any,
    A_bar: Any,
    W_B: Any,
    W_C: Any,
    W_delta: Any,
    b_delta: Any,
    D: Any = None,
    *,
    method: str = "recurrent",
    return_decay: bool = False,
) -> Any:
    r"""A selective (Mamba-style) SSM, applied per channel with a diagonal state
    (book lines 6823-6835), ``X (n, c)`` -> ``H (n, c)``:

    :math:`\Delta_i = \mathrm{softplus}(W_\Delta\mathbf{x}_i + b_\Delta)` (c),
    :math:`\mathbf{B}_i = W_B\mathbf{x}_i`, :math:`\mathbf{C}_i = W_C\mathbf{x}_i` (e),
    and for channel z: :math:`\mathbf{s}^z_i = \exp(\Delta_{iz}\bar{\mathbf{A}}_z)\odot
    \mathbf{s}^z_{i-1} + \Delta_{iz}\mathbf{B}_i x_{iz}`,
    :math:`h_{iz} = \mathbf{C}_i^\top\mathbf{s}^z_i + D_z x_{iz}`.

    ``A_bar (c, e)`` must be negative (so every decay lies in (0, 1), line 6823's
    footnote); W_B, W_C (e, c); W_delta (c, c); b_delta, D (c,). ``method``: "recurrent"
    or "scan" (time-varying coefficients: still a scan, no longer a convolution).
    Any array-API backend, all arrays from one library (a list X becomes NumPy float64
    and list parameters join X's library: :func:`alice_lab.backend.as_float_array`).
    """
    X = as_float_array(X, "X")
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must have shape (n, c) with n >= 1; got {tuple(X.shape)}")
    xp = array_namespace(X)
    n, c = X.shape
    A_bar, W_B, W_C, W_delta, b_delta = (
        as_float_array(M, name, like=X)
        for M, name in zip(
            (A_bar, W_B, W_C, W_delta, b_delta),
            ("A_bar", "W_B", "W_C", "W_delta", "b_delta"),
            strict=True,
        )
    )
    if A_bar.ndim != 2 or A_bar.shape[0] != c:
        raise ValueError(f"A_bar must have shape ({c}, e); got {tuple(A_bar.shape)}")
    e = A_bar.shape[1]
    if tuple(W_B.shape) != (e, c) or tuple(W_C.shape) != (e, c):
        raise ValueError(
            f"W_B and W_C must have shape ({e}, {c}); got {tuple(W_B.shape)}, "
            f"{tuple(W_C.shape)}"
        )
    if bool(xp.any(A_bar >= 0)):
        raise ValueError(
            "A_bar must be negative everywhere (decays exp(Δ A) in (0, 1))"
        )
    if method not in ("recurrent", "scan"):
        raise ValueError(f"method must be 'recurrent' or 'scan'; got {method!r}")
    z = X @ xp.matrix_transpose(W_delta) + b_delta
    delta = xp.logaddexp(xp.zeros_like(z), z)  # softplus, (n, c)
    Bx = X @ xp.matrix_transpose(W_B)  # (n, e)
    Cx = X @ xp.matrix_transpose(W_C)  # (n, e)
    decay = xp.exp(delta[:, :, None] * A_bar[None, :, :])  # (n, c, e)
    inp = (delta * X)[:, :, None] * Bx[:, None, :]  # (n, c, e)
    S = linear_recurrence(
        decay, inp, method="sequential" if method == "recurrent" else "parallel"
    )
    H = xp.sum(S * Cx[:, None, :], axis=-1)  # h_iz = C_i . s^z_i
    if D is not None:
        H = H + D * X
    return (H, decay) if return_decay else H
