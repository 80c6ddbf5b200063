r"""Linearised attention: kernel attention, its parallel and its recurrent forms.

Attention with a generic non-negative similarity α (book E.13.1) is

.. math:: \mathbf{h}_i = \frac{\sum_j \alpha(\mathbf{q}_i, \mathbf{k}_j)\mathbf{v}_j}
                              {\sum_j \alpha(\mathbf{q}_i, \mathbf{k}_j)},

which is softmax attention (without the :math:`1/\sqrt{k}`) for
:math:`\alpha(\mathbf{x}, \mathbf{y}) = \exp(\mathbf{x}^\top\mathbf{y})`. With a feature
map, :math:`\alpha(\mathbf{x}, \mathbf{y}) = \phi(\mathbf{x})^\top\phi(\mathbf{y})`
(E.13.2), the sums factor (E.13.3) and the cost becomes linear in n. In the causal case
the two running sums are a matrix memory :math:`\mathbf{S}_i` (e, v) and a vector
:math:`\mathbf{z}_i` (e) updated once per token (E.13.5-E.13.9): a recurrent layer.

Every function takes ``Q (..., n, c)``, ``K (..., n, c)``, ``V (..., n, v)`` of any
array
backend (NumPy, torch, JAX, array-api-strict) and returns ``H (..., n, v)``.

Book: §13.1 (lines 6333-6381); §13.4.3 for the unnormalised form (lines 6797-6809).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from alice_lab.backend import array_namespace, device_of

__all__ = [
    "causal_linear_attention_parallel",
    "causal_linear_attention_recurrent",
    "elu_plus_one",
    "kernel_attention",
    "linear_attention",
    "linear_attention_step",
    "quadratic_features",
    "unnormalized_linear_attention",
]


def elu_plus_one(x: Any) -> Any:
    r""":math:`\phi(x) = \mathrm{ELU}(x) + 1`, strictly positive (book line 6357).

    >>> import numpy as np
    >>> float(elu_plus_one(np.array([0.0]))[0])
    1.0
    """
    xp = array_namespace(x)
    return xp.where(x > 0, x + 1.0, xp.exp(xp.minimum(x, 0.0 * x)))


def quadratic_features(x: Any) -> Any:
    r""":math:`\phi(\mathbf{x}) = \mathrm{vec}(\mathbf{x}\mathbf{x}^\top)`, (..., c) ->
    (..., c²), so that :math:`\phi(\mathbf{x})^\top\phi(\mathbf{y}) =
    (\mathbf{x}^\top\mathbf{y})^2 \ge 0` (book line 6357)."""
    xp = array_namespace(x)
    c = x.shape[-1]
    outer = x[..., :, None] * x[..., None, :]
    return xp.reshape(outer, (*x.shape[:-1], c * c))


def _check_qkv(Q: Any, K: Any, V: Any, *, same_c: bool = True) -> Any:
    for name, M in (("Q", Q), ("K", K), ("V", V)):
        if M.ndim < 2:
            raise ValueError(
                f"{name} must have shape (..., n, features); got {M.shape}"
            )
    if same_c and Q.shape[-1] != K.shape[-1]:
        raise ValueError(
            f"Q and K must have the same feature size; got Q {tuple(Q.shape)}, "
            f"K {tuple(K.shape)}"
        )
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(
            f"K and V must have the same length n; got K {tuple(K.shape)}, "
            f"V {tuple(V.shape)}"
        )
    if K.shape[-2] == 0 or Q.shape[-2] == 0:
        raise ValueError("expected a non-empty sequence (n >= 1); got n = 0")
    return array_namespace(Q, K, V)


def _causal_keep(xp: Any, n: int, m: int, like: Any) -> Any:
    i = xp.arange(n, device=device_of(like))
    j = xp.arange(m, device=device_of(like))
    return i[:, None] >= j[None, :]


def kernel_attention(
    Q: Any,
    K: Any,
    V: Any,
    alpha: Callable[[Any, Any], Any] | None = None,
    *,
    causal: bool = False,
) -> Any:
    r"""Attention with a similarity α (E.13.1): ``H (..., n, v)``.

    ``alpha(Q, K)`` returns the (..., n, m) matrix of non-negative similarities; the
    default is :math:`\exp(\mathbf{q}_i^\top\mathbf{k}_j)`, computed with the row
    maximum subtracted (a softmax, no :math:`1/\sqrt{c}`). ``causal`` keeps j <= i.

    Book: §13.1.1, E.13.1 (lines 6337-6341).
    """
    xp = _check_qkv(Q, K, V, same_c=alpha is None)
    n, m = Q.shape[-2], K.shape[-2]
    if alpha is None:
        logits = Q @ xp.matrix_transpose(K)
        if causal:
            logits = xp.where(_causal_keep(xp, n, m, Q), logits, -xp.inf)
        logits = logits - xp.max(logits, axis=-1, keepdims=True)
        W = xp.exp(logits)
    else:
        W = alpha(Q, K)
        if causal:
            W = xp.where(_causal_keep(xp, n, m, Q), W, 0.0 * W)
    return (W @ V) / xp.sum(W, axis=-1, keepdims=True)


def linear_attention(
    Q: Any, K: Any, V: Any, phi: Callable = elu_plus_one, *, causal: bool = False
) -> Any:
    r"""Linearised attention in its *parallel* form, ``H (..., n, v)``.

    Non-causal: the factored form E.13.3,
    :math:`\mathbf{h}_i =
    \phi(\mathbf{q}_i)^\top\sum_j\phi(\mathbf{k}_j)\mathbf{v}_j^\top
    / \phi(\mathbf{q}_i)^\top\sum_j\phi(\mathbf{k}_j)`, cost O(n(e² + ev)).
    Causal: :func:`causal_linear_attention_parallel` (E.13.4).

    Book: §13.1.1, E.13.3 (lines 6349-6357).
    """
    if causal:
        return causal_linear_attention_parallel(Q, K, V, phi)
    xp = _check_qkv(Q, K, V)
    fQ, fK = phi(Q), phi(K)
    S = xp.matrix_transpose(fK) @ V  # (..., e, v)
    z = xp.sum(fK, axis=-2)  # (..., e)
    return (fQ @ S) / xp.sum(fQ * z[..., None, :], axis=-1, keepdims=True)


def causal_linear_attention_parallel(
    Q: Any, K: Any, V: Any, phi: Callable = elu_plus_one
) -> Any:
    r"""Causal linearised attention, parallel (masked) form E.13.4:
    ``M = tril(φ(Q) φ(K)ᵀ)``, ``H = M V / M 1``. Builds the (n, n) matrix.

    Book: §13.1.2, E.13.4 (lines 6361-6363).
    """
    xp = _check_qkv(Q, K, V)
    M = phi(Q) @ xp.matrix_transpose(phi(K))
    n = Q.shape[-2]
    M = xp.where(_causal_keep(xp, n, n, Q), M, 0.0 * M)
    return (M @ V) / xp.sum(M, axis=-1, keepdims=True)


def linear_attention_step(
    state: tuple[Any, Any] | None,
    q: Any,
    k: Any,
    v: Any,
    phi: Callable = elu_plus_one,
) -> tuple[Any, tuple[Any, Any]]:
    r"""One step of the recurrence E.13.5-E.13.9: ``(h, (S, z))``.

    ``q, k (..., c)``, ``v (..., v)``; ``state = (S (..., e, v), z (..., e))`` or None
    for :math:`\mathbf{S}_0 = \mathbf{0}, \mathbf{z}_0 = \mathbf{0}` (E.13.7-E.13.8).
    The state's size does not depend on how many tokens came before.

    Book: §13.1.2 (lines 6365-6381).
    """
    xp = array_namespace(q, k, v)
    fq, fk = phi(q), phi(k)
    if state is None:
        S = xp.zeros((*fk.shape, v.shape[-1]), dtype=v.dtype, device=device_of(v))
        z = xp.zeros(fk.shape, dtype=fk.dtype, device=device_of(fk))
    else:
        S, z = state
        if S.shape[-2:] != (fk.shape[-1], v.shape[-1]) or z.shape[-1] != fk.shape[-1]:
            raise ValueError(
                f"state must be (S (..., {fk.shape[-1]}, {v.shape[-1]}), z (..., "
                f"{fk.shape[-1]})) for these q, k, v; got S {tuple(S.shape)}, "
                f"z {tuple(z.shape)}"
            )
    S = S + fk[..., :, None] * v[..., None, :]
    z = z + fk
    num = xp.sum(fq[..., :, None] * S, axis=-2)
    den = xp.sum(fq * z, axis=-1, keepdims=True)
    return num / den, (S, z)


def causal_linear_attention_recurrent(
    Q: Any,
    K: Any,
    V: Any,
    phi: Callable = elu_plus_one,
    *,
    return_state: bool = False,
) -> Any:
    r"""Causal linearised attention as a recurrence over the tokens (E.13.5-E.13.9):
    a loop of :func:`linear_attention_step`. Returns ``H (..., n, v)`` (and the final
    ``(S, z)`` with ``return_state=True``).

    Book: §13.1.2 (lines 6365-6381).
    """
    xp = _check_qkv(Q, K, V)
    state, hs = None, []
    for i in range(Q.shape[-2]):
        h, state = linear_attention_step(
            state, Q[..., i, :], K[..., i, :], V[..., i, :], phi
        )
        hs.append(h)
    H = xp.stack(hs, axis=-2)
    return (H, state) if return_state else H


def unnormalized_linear_attention(
    Q: Any, K: Any, V: Any, phi: Callable = elu_plus_one, *, form: str = "parallel"
) -> Any:
    r"""Causal linear attention without the denominator (book lines 6803-6805):
    :math:`\mathbf{S}_i = \mathbf{S}_{i-1} + \phi(\mathbf{k}_i)\mathbf{v}_i^\top`,
    :math:`\mathbf{h}_i = \phi(\mathbf{q}_i)^\top\mathbf{S}_i`, a time-varying SSM with
    A = I, input-dependent B and C. ``form`` is "parallel" (masked matrix) or
    "recurrent" (loop).

    Book: §13.4.3 (lines 6797-6809).
    """
    xp = _check_qkv(Q, K, V)
    fQ, fK = phi(Q), phi(K)
    if form == "parallel":
        M = fQ @ xp.matrix_transpose(fK)
        n = Q.shape[-2]
        return xp.where(_causal_keep(xp, n, n, Q), M, 0.0 * M) @ V
    if form == "recurrent":
        S = xp.zeros(
            (*fK.shape[:-2], fK.shape[-1], V.shape[-1]),
            dtype=V.dtype,
            device=device_of(V),
        )
        hs = []
        for i in range(Q.shape[-2]):
            S = S + fK[..., i, :, None] * V[..., i, None, :]
            hs.append(xp.sum(fQ[..., i, :, None] * S, axis=-2))
        return xp.stack(hs, axis=-2)
    raise ValueError(f"form must be 'parallel' or 'recurrent'; got {form!r}")
