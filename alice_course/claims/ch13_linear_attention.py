"""Checkable claims of Chapter 13, §13.1 (linearised attention, lines 6333-6381) and
the erratum about when the linear form pays off (line 6357).

Checks compare ``alice_lab.recurrent`` with torch's attention kernel, hand-written
NumPy sums and closed forms.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng


def _qkv(seed: int, n: int = 8, c: int = 3, v: int = 4):
    r = _rng(seed)
    return (
        r.standard_normal((n, c)),
        r.standard_normal((n, c)),
        r.standard_normal((n, v)),
    )


def _elu1(x):
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


@claim(
    "C13-01",
    section="13.1.1",
    lines=6341,
    equation="E.13.1",
    statement="Kernel attention with α(x, y) = exp(xᵀy) is softmax attention "
    "(without the 1/√k scaling).",
)
def _c13_01() -> str:
    import torch

    from alice_lab.recurrent import kernel_attention

    Q, K, V = _qkv(0)
    got = kernel_attention(Q, K, V)
    want = torch.nn.functional.scaled_dot_product_attention(
        *(torch.as_tensor(M) for M in (Q, K, V)), scale=1.0
    ).numpy()
    err = _maxerr(got, want)
    assert err < 1e-12, f"vs torch SDPA(scale=1): {err:.1e}"
    return f"= torch scaled_dot_product_attention(scale=1) to {err:.0e}"


@claim(
    "C13-02",
    section="13.1.1",
    lines=6341,
    statement="Softmax attention costs O(n²) in time (the (n, n) matrix), and a "
    "KV cache grows linearly: t tokens store t·(k + v) numbers.",
)
def _c13_02() -> str:
    from alice_lab.recurrent import kernel_attention

    calls = []

    def alpha(q, k):  # counts the similarities it evaluates
        calls.append(q.shape[0] * k.shape[0])
        return np.exp(q @ k.T)

    for n in (16, 32):
        kernel_attention(*_qkv(1, n=n), alpha)
    sizes = calls
    assert sizes[1] == 4 * sizes[0], sizes
    cache = [t * (3 + 4) for t in (1, 2, 3)]
    assert np.all(np.diff(cache) == 7)
    return f"similarities evaluated: n=16 → {sizes[0]}, n=32 → {sizes[1]} (×4)"


@claim(
    "C13-03",
    section="13.1.1",
    lines=6343,
    statement="ELU(x)+1 is strictly positive (even at x = −50) and the quadratic "
    "features give φ(x)ᵀφ(y) = (xᵀy)² ≥ 0: both are valid non-negative "
    "similarities.",
)
def _c13_03() -> str:
    from alice_lab.recurrent import elu_plus_one, quadratic_features

    x = np.array([-50.0, -1.0, 0.0, 2.0])
    assert (elu_plus_one(x) > 0).all() and elu_plus_one(x)[0] == np.exp(-50.0)
    r = _rng(2)
    a, b = r.standard_normal((20, 4)), r.standard_normal((20, 4))
    k = np.sum(quadratic_features(a) * quadratic_features(b), axis=1)
    err = _maxerr(k, np.einsum("ij,ij->i", a, b) ** 2)
    assert err < 1e-12 and (k >= 0).all()
    return (
        f"min ELU+1 on [-50, 2] = {elu_plus_one(x).min():.1e} > 0; (xᵀy)² to {err:.0e}"
    )


@claim(
    "C13-04",
    section="13.1.1",
    lines=(6349, 6355),
    equation="E.13.3",
    statement="The factored form φ(qᵢ)ᵀΣⱼφ(kⱼ)vⱼᵀ / φ(qᵢ)ᵀΣⱼφ(kⱼ) equals the "
    "pairwise sum over (i, j).",
)
def _c13_04() -> str:
    from alice_lab.recurrent import linear_attention

    Q, K, V = _qkv(3)
    fQ, fK = _elu1(Q), _elu1(K)
    pair = np.array(
        [
            sum((fQ[i] @ fK[j]) * V[j] for j in range(8))
            / sum(fQ[i] @ fK[j] for j in range(8))
            for i in range(8)
        ]
    )
    err = _maxerr(linear_attention(Q, K, V), pair)
    assert err < 1e-12, err
    return f"factored vs pairwise: {err:.0e}"


def _matmul_flops(f, n, e, v):
    """Multiply-adds of f(Q, K, V) on torch tensors, counted by torch's FlopCounterMode
    (it counts matrix products, 2 flops per multiply-add), halved."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    r = _rng(n)
    Q, K = (torch.from_numpy(r.standard_normal((n, e))) for _ in range(2))
    V = torch.from_numpy(r.standard_normal((n, v)))
    with FlopCounterMode(display=False) as counter:
        f(Q, K, V)
    return counter.get_total_flops() // 2


def _measured_costs(n, e, v):
    from alice_lab.attention import scaled_dot_product_attention
    from alice_lab.recurrent import linear_attention

    return (
        _matmul_flops(linear_attention, n, e, v),
        _matmul_flops(scaled_dot_product_attention, n, e, v),
    )


@claim(
    "C13-05",
    section="13.1.1",
    lines=6357,
    statement="The cost of linearised attention, O(n(e² + ev)), is linear in n "
    "(doubling n doubles it), softmax attention's O(n²(e + v)) is quadratic "
    "(multiply-adds of the library's two layers, counted by torch's FlopCounterMode).",
)
def _c13_05() -> str:
    e = v = 16
    (lin1, soft1), (lin2, soft2) = (_measured_costs(n, e, v) for n in (500, 1000))
    assert lin2 == 2 * lin1 and soft2 == 4 * soft1, (lin1, lin2, soft1, soft2)
    assert lin1 == 500 * (e * e + e * v) and soft1 == 500**2 * (e + v), (lin1, soft1)
    return (
        f"n = 500 → 1000, e = v = 16: linear {lin1:,} → {lin2:,} multiply-adds (×2), "
        f"softmax {soft1:,} → {soft2:,} (×4)"
    )


@claim(
    "E13-01",
    section="13.1.1",
    lines=6357,
    statement="Linearised attention beats softmax attention for *long* sequences: "
    "with v = e, n(e² + ev) < n²(e + v) exactly when n > e.",
    erratum="advantageous whenever n < e²",
)
def _e13_01() -> str:
    e = v = 16
    ns = (4, 10, 16, 17, 32, 200)
    wins = {n: (lambda c: c[0] < c[1])(_measured_costs(n, e, v)) for n in ns}
    assert all(wins[n] == (n > e) for n in ns), wins
    assert not wins[10] and 10 < e * e  # n < e² yet no advantage
    first = min(n for n in ns if wins[n])
    return (
        f"e = v = 16, counted multiply-adds: linear form cheaper from n = {first} on "
        f"(n > e), not for n = 10 < e²"
    )


@claim(
    "C13-06",
    section="13.1.2",
    lines=(6363, 6381),
    equation="E.13.4–E.13.9",
    statement="Causal linear attention: the masked parallel form equals the "
    "recurrence S_i = S_{i−1} + φ(k_i)v_iᵀ, z_i = z_{i−1} + φ(k_i), whose state "
    "keeps the size (e, v) + (e) at every step, and h_i ignores tokens after i.",
)
def _c13_06() -> str:
    from alice_lab.recurrent import (
        causal_linear_attention_parallel,
        causal_linear_attention_recurrent,
    )

    Q, K, V = _qkv(4, n=12)
    par = causal_linear_attention_parallel(Q, K, V)
    H, (S, z) = causal_linear_attention_recurrent(Q, K, V, return_state=True)
    # independent reference: a cumulative sum with NumPy
    fQ, fK = _elu1(Q), _elu1(K)
    num = np.einsum(
        "ie,ijev->iv", fQ, np.cumsum(fK[:, None, :, None] * V[:, None, None, :], axis=0)
    )
    den = np.einsum("ie,ie->i", fQ, np.cumsum(fK, axis=0))[:, None]
    err = max(_maxerr(par, H), _maxerr(H, num / den))
    assert err < 1e-12 and S.shape == (3, 4) and z.shape == (3,)
    K2 = K.copy()
    K2[7:] += 3.0
    assert np.array_equal(causal_linear_attention_recurrent(Q, K2, V)[:7], H[:7])
    return f"parallel = recurrent = cumsum reference ({err:.0e}); state (3, 4) + (3,)"
