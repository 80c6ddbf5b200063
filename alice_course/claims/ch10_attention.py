"""Checkable claims of Chapter 10, §10.1: long convolutions, the attention layer,
multi-head attention and the dictionary analogy (book lines 5058-5214).

Every check compares ``alice_lab.attention`` with something outside it: PyTorch's
convolution, softmax and ``nn.MultiheadAttention``, per-token loops written here,
Monte Carlo estimates, Python's own ``dict``.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng

# =====================================================================================
# 10.1.1 Long-range dependencies and long convolutions
# =====================================================================================


def _conv_e101(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """E.10.1 as printed: h_i = sum_{j=1}^{2k+1} W_j x_{i+k+1-j} (zero padding),
    X (n, e), W (2k+1, e, e) with W[j-1] = W_j."""
    n, k = X.shape[0], (W.shape[0] - 1) // 2
    H = np.zeros((n, W.shape[1]))
    for i in range(n):
        for j in range(1, 2 * k + 2):
            t = i + k + 1 - j
            if 0 <= t < n:
                H[i] += W[j - 1] @ X[t]
    return H


def _long_conv(X: np.ndarray, g, *, circular: bool = False) -> np.ndarray:
    """h_i = sum_j g(i - j) x_j, g(offsets (q,)) -> (q, e, e)."""
    n = X.shape[0]
    i = np.arange(n)
    D = i[:, None] - i[None, :]
    if circular:
        D = D % n
    G = g(D.ravel().astype(float)).reshape(n, n, X.shape[1], X.shape[1])
    return np.einsum("ijab,jb->ia", G, X)


def _mlp_kernel(e: int, seed: int):
    """g: R -> R^{e x e}, a small MLP with fixed weights (a fixed parameter count)."""
    r = _rng(seed)
    W1, b1, W2 = r.normal(size=(1, 16)), r.normal(size=16), r.normal(size=(16, e * e))

    def g(d):
        return (np.tanh(d[:, None] / 4 @ W1 + b1) @ W2 / 4).reshape(-1, e, e)

    return g, W1.size + b1.size + W2.size


@claim(
    "C10-01",
    section="10.1.1",
    lines=(5066, 5074),
    statement="The offset between 'cat' and 'table' is 4 tokens in the short sentence "
    "and 9 in the long one: the same dependency at an input-dependent distance.",
)
def _c10_01() -> str:
    def offset(s):
        words = [w.strip(",.").lower() for w in s.split()]
        return words.index("table") - words.index("cat")

    a = offset("The cat is on the table")
    b = offset("The cat, who belongs to my mother, is on the table")
    assert (a, b) == (4, 9), (a, b)
    return f"offsets {a} and {b} (whitespace tokens)"


@claim(
    "C10-02",
    section="10.1.1",
    lines=(5078, 5080),
    equation="E.10.1",
    statement="A 1D convolution over 2k+1 tokens has one (e, e) matrix per offset: "
    "(2k+1)e² weights, linear in the receptive field.",
)
def _c10_02() -> str:
    import torch

    e = 6
    counts = [
        sum(
            p.numel() for p in torch.nn.Conv1d(e, e, 2 * k + 1, bias=False).parameters()
        )
        for k in (1, 2, 3)
    ]
    assert counts == [(2 * k + 1) * e * e for k in (1, 2, 3)], counts
    return f"e = {e}: torch Conv1d has {counts} weights for k = 1, 2, 3"


@claim(
    "C10-03",
    section="10.1.1",
    lines=(5076, 5078),
    equation="E.10.1",
    statement="E.10.1 (a sum over 2k+1 offsets with zero padding) equals "
    "torch.nn.functional.conv1d with padding k and the kernel flipped.",
)
def _c10_03() -> str:
    import torch

    r = _rng(3)
    n, e, k = 9, 4, 2
    X, W = r.standard_normal((n, e)), r.standard_normal((2 * k + 1, e, e))
    ref = torch.nn.functional.conv1d(
        torch.as_tensor(X.T[None]),
        torch.as_tensor(W[::-1].transpose(1, 2, 0).copy()),
        padding=k,
    )[0].T.numpy()
    err = _maxerr(_conv_e101(X, W), ref)
    assert err < 1e-12, err
    return f"max |E.10.1 − conv1d| = {err:.1e}"


@claim(
    "C10-04",
    section="10.1.1",
    lines=(5084, 5088),
    statement="A long convolution h_i = Σ_j g(i−j) x_j has the parameters of g only: "
    "the same g processes sequences of any length.",
)
def _c10_04() -> str:
    g, count = _mlp_kernel(3, 4)
    shapes = [_long_conv(_rng(n).standard_normal((n, 3)), g).shape for n in (8, 64)]
    assert shapes == [(8, 3), (64, 3)], shapes
    return f"g has {count} parameters for n = 8 and n = 64; outputs {shapes}"


@claim(
    "C10-05",
    section="10.1.1",
    lines=(5090, 5090),
    equation="E.10.2",
    statement="With g(i−j) = W_{i−j} for |i−j| ≤ k and 0 otherwise, the long "
    "convolution is exactly the standard convolution E.10.1.",
)
def _c10_05() -> str:
    r = _rng(5)
    n, e, k = 10, 3, 2
    X, W = r.standard_normal((n, e)), r.standard_normal((2 * k + 1, e, e))

    def banded(d):  # offset d = i - j uses W_{d + k + 1} (1-indexed) as in E.10.1
        out = np.zeros((d.size, e, e))
        ok = np.abs(d) <= k
        out[ok] = W[(d[ok] + k).astype(int)]
        return out

    err = _maxerr(_long_conv(X, banded), _conv_e101(X, W))
    assert err < 1e-12, err
    return f"max difference {err:.1e}"


@claim(
    "C10-06",
    section="10.1.1",
    lines=(5092, 5096),
    equation="E.10.3",
    statement="Offset-only weights make a (circular) long convolution shift "
    "equivariant; the non-local layer, weights g(x_i, x_j) from the contents, is "
    "permutation equivariant instead.",
)
def _c10_06() -> str:
    r = _rng(6)
    n, e = 9, 3
    X = r.standard_normal((n, e))
    g, _ = _mlp_kernel(e, 7)
    lc = lambda Z: _long_conv(Z, g, circular=True)  # noqa: E731
    shift = _maxerr(lc(np.roll(X, 2, axis=0)), np.roll(lc(X), 2, axis=0))
    P = np.eye(n)[r.permutation(n)]
    perm_lc = _maxerr(lc(P @ X), P @ lc(X))

    def nonlocal_(Z):  # E.10.3 with g = exp of the dot product, written as a loop
        return np.array([sum(np.exp(z @ zj) * zj for zj in Z) for z in Z])

    perm_nl = _maxerr(nonlocal_(P @ X), P @ nonlocal_(X))
    assert shift < 1e-12 and perm_nl < 1e-10 and perm_lc > 1e-3, (
        shift,
        perm_nl,
        perm_lc,
    )
    return (
        f"long conv: shift error {shift:.0e}, permutation error {perm_lc:.2f}; "
        f"non-local: permutation error {perm_nl:.0e}"
    )


# =====================================================================================
# 10.1.2 The attention layer
# =====================================================================================


@claim(
    "C10-07",
    section="10.1.2",
    lines=(5104, 5104),
    statement="Dot-product attention over the whole sequence is one matrix expression, "
    "softmax(XXᵀ)X, equal to the per-token loop of E.10.4.",
    equation="E.10.4",
)
def _c10_07() -> str:
    from scipy.special import softmax

    from alice_lab.attention import parameter_free_attention

    X = _rng(7).standard_normal((6, 4))
    loop = np.array([softmax([x @ xj for xj in X]) @ X for x in X])
    err = _maxerr(parameter_free_attention(X, scale=False), loop)
    assert err < 1e-12, err
    return f"vectorised vs loop: {err:.1e}"


@claim(
    "E10-01",
    section="10.1.2",
    lines=(5108, 5108),
    statement="For x_i, x_j ~ N(0, σ²I) in e dimensions, var(x_iᵀx_j) = eσ⁴ and "
    "var(x_iᵀx_j/√e) = σ⁴: the scaling makes the variance independent of e (it "
    "equals σ² only when σ = 1).",
    erratum="after scaling the variance “remains bounded at σ²”",
)
def _e10_01() -> str:
    r = _rng(8)
    parts = []
    for e in (16, 64, 256):
        z1, z2 = r.standard_normal((2, 20_000, e))
        dots = np.einsum("ne,ne->n", z1, z2)
        for sigma in (0.5, 2.0):
            v = np.var(sigma**2 * dots)
            v_scaled = np.var(sigma**2 * dots / np.sqrt(e))
            assert abs(v / (e * sigma**4) - 1) < 0.06, (e, sigma, v)
            assert abs(v_scaled / sigma**4 - 1) < 0.06, (e, sigma, v_scaled)
            if sigma == 2.0:
                assert abs(v_scaled / sigma**2 - 1) > 2.5  # σ² is off by a factor σ²
                parts.append(f"e={e}: {v:.0f} → {v_scaled:.1f}")
    return "σ = 2: var before → after scaling " + ", ".join(parts) + " (σ⁴ = 16)"


@claim(
    "C10-09",
    section="10.1.2",
    lines=(5114, 5114),
    statement="Each row of attention scores is a budget: non-negative, summing to 1, "
    "and raising one score lowers every other weight of that row.",
)
def _c10_09() -> str:
    from alice_lab.attention import attention_weights

    r = _rng(9)
    Q, K = r.standard_normal((5, 4)), r.standard_normal((6, 4))
    Aw = attention_weights(Q, K)
    assert np.all(Aw >= 0) and _maxerr(Aw.sum(1), 1) < 1e-12
    K2 = K.copy()
    K2[2] += 0.5 * Q[0]  # raises the score of key 2 for query 0
    A2 = attention_weights(Q, K2)
    others = np.delete(np.arange(6), 2)
    assert A2[0, 2] > Aw[0, 2] and np.all(A2[0, others] < Aw[0, others])
    return f"row 0: weight of key 2 {Aw[0, 2]:.3f} → {A2[0, 2]:.3f}, all others fall"


@claim(
    "C10-10",
    section="10.1.2",
    lines=(5116, 5138),
    equation="E.10.8-E.10.10",
    statement="The projections give 3n tokens: K = XW_k ~ (n, k), V = XW_v ~ (n, v), "
    "Q = XW_q ~ (n, k).",
)
def _c10_10() -> str:
    from alice_lab.attention import qkv_projections

    r = _rng(10)
    n, e, k, v = 7, 6, 3, 5
    X = r.standard_normal((n, e))
    Q, K, V = qkv_projections(X, *(r.standard_normal((e, s)) for s in (k, k, v)))
    assert (Q.shape, K.shape, V.shape) == ((n, k), (n, k), (n, v))
    return f"Q {Q.shape}, K {K.shape}, V {V.shape}"


@claim(
    "C10-11",
    section="10.1.2",
    lines=(5128, 5128),
    statement="Queries and keys must share their dimension, values need not: "
    "Q (n, 3), K (m, 3), V (m, 5) give (n, 5); a mismatch in k is an error.",
)
def _c10_11() -> str:
    from alice_lab.attention import scaled_dot_product_attention

    r = _rng(11)
    out = scaled_dot_product_attention(
        r.standard_normal((4, 3)), r.standard_normal((6, 3)), r.standard_normal((6, 5))
    )
    assert out.shape == (4, 5)
    try:
        scaled_dot_product_attention(np.ones((4, 3)), np.ones((6, 2)), np.ones((6, 5)))
    except ValueError as err:
        assert "same dimension" in str(err)
    else:
        raise AssertionError("mismatched k was accepted")
    return "shape (4, 5); Q (4, 3) with K (6, 2) raises ValueError"


@claim(
    "C10-12",
    section="10.1.2",
    lines=(5140, 5140),
    statement="The fused projection X[W_k ‖ W_v ‖ W_q], split in three, equals the "
    "three separate projections.",
)
def _c10_12() -> str:
    r = _rng(12)
    X = r.standard_normal((5, 6))
    Wk, Wv, Wq = (
        r.standard_normal((6, 3)),
        r.standard_normal((6, 4)),
        r.standard_normal((6, 3)),
    )
    K, V, Q = np.split(X @ np.concatenate([Wk, Wv, Wq], 1), [3, 7], axis=1)
    err = max(_maxerr(K, X @ Wk), _maxerr(V, X @ Wv), _maxerr(Q, X @ Wq))
    from alice_lab.attention import qkv_projections

    err2 = max(
        _maxerr(a, b)
        for a, b in zip(
            qkv_projections(X, Wq, Wk, Wv, fused=True),
            (X @ Wq, X @ Wk, X @ Wv),
            strict=True,
        )
    )
    assert err < 1e-12 and err2 < 1e-12, (err, err2)
    return f"difference {max(err, err2):.0e}"


@claim(
    "C10-13",
    section="10.1.2",
    lines=(5126, 5152),
    equation="E.10.11",
    statement="The compact self-attention softmax(QKᵀ/√k)V equals E.10.11, the "
    "per-token sum of line 5126 and torch's scaled_dot_product_attention.",
)
def _c10_13() -> str:
    import torch
    from scipy.special import softmax

    from alice_lab.attention import self_attention

    r = _rng(13)
    n, e, k, v = 6, 5, 3, 4
    X = r.standard_normal((n, e))
    Wq, Wk, Wv = (r.standard_normal((e, s)) for s in (k, k, v))
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    loop = np.array([softmax(K @ q / np.sqrt(k)) @ V for q in Q])
    ref = torch.nn.functional.scaled_dot_product_attention(
        *(torch.as_tensor(t) for t in (Q, K, V))
    ).numpy()
    ours = self_attention(X, Wq, Wk, Wv)
    err = max(_maxerr(ours, loop), _maxerr(ours, ref))
    assert err < 1e-12, err
    return f"ours vs loop and torch: {err:.1e}"


@claim(
    "C10-14",
    section="10.1.2",
    lines=(5154, 5154),
    statement="Self-attention has 2ke + ve parameters, independent of n: the same "
    "layer processes sequences of any length.",
)
def _c10_14() -> str:
    import torch

    e, k, v = 8, 3, 5
    layers = [torch.nn.Linear(e, s, bias=False) for s in (k, k, v)]
    count = sum(p.numel() for m in layers for p in m.parameters())
    assert count == 2 * k * e + v * e, count
    from alice_lab.attention import self_attention

    Ws = [m.weight.detach().numpy().T for m in layers]
    shapes = [self_attention(np.ones((n, e)), *Ws).shape for n in (3, 50)]
    assert shapes == [(3, v), (50, v)]
    return f"e={e}, k={k}, v={v}: {count} = 2ke + ve; n = 3 and 50 both work"


@claim(
    "E10-02",
    section="10.1.2",
    lines=(5154, 5154),
    statement="With X ~ (n, e) and Q = XW_q, the projections are W_q ~ (e, k), "
    "W_k ~ (e, k), W_v ~ (e, v) (as at line 5116); the count 2ke + ve is unchanged.",
    erratum="W_q ~ (k, e), W_k ~ (k, e), W_v ~ (v, e)",
)
def _e10_02() -> str:
    import torch
    import torch.nn.functional as F

    from alice_lab.attention import mha_init, self_attention

    n, e, k, v = 5, 6, 3, 4
    rng = _rng(1002)
    X = rng.standard_normal((n, e))
    Wq, Wk, Wv = (rng.standard_normal(s) for s in ((e, k), (e, k), (e, v)))
    # E.10.5 writes k_i = W_kᵀ x_i: row i of X W_k, which needs W_k ~ (e, k)
    assert _maxerr(np.stack([Wk.T @ X[i] for i in range(n)]), X @ Wk) < 1e-12
    # E.10.11 with the (e, k) shapes, against torch's attention kernel
    t = [torch.from_numpy(M) for M in (X @ Wq, X @ Wk, X @ Wv)]
    ref = F.scaled_dot_product_attention(*t).numpy()
    err = _maxerr(self_attention(X, Wq, Wk, Wv), ref)
    assert err < 1e-12, err
    # the printed (k, e), (k, e), (v, e) do not fit X ~ (n, e) when k, v ≠ e
    try:
        self_attention(X, Wq.T, Wk.T, Wv.T)
    except ValueError:
        pass
    else:
        raise AssertionError("self_attention accepted W ~ (k, e), (k, e), (v, e)")
    p = mha_init(e, 1, k=k, v=v)
    count = sum(p[name].size for name in ("Wq", "Wk", "Wv"))
    assert count == 2 * k * e + v * e, count
    assert [p[w].shape for w in ("Wq", "Wk", "Wv")] == [(e, k), (e, k), (e, v)]
    return (
        f"SA with W (e, k), (e, k), (e, v) = torch's kernel ({err:.0e}); (k, e) "
        f"weights rejected; {count} = 2ke + ve parameters"
    )


# =====================================================================================
# 10.1.3 Multi-head attention, and the dictionary analogy
# =====================================================================================


@claim(
    "C10-15",
    section="10.1.3",
    lines=(5164, 5172),
    equation="E.10.12-E.10.14",
    statement="h heads create 3hn tokens: stacked Q, K, V of shapes (h, n, k), "
    "(h, n, k), (h, n, v).",
)
def _c10_15() -> str:
    from alice_lab.attention import split_heads

    h, n, k, v = 3, 5, 2, 4
    X = _rng(15).standard_normal((n, 7))
    Wq, Wv = _rng(16).standard_normal((7, h * k)), _rng(17).standard_normal((7, h * v))
    Q, V = split_heads(X @ Wq, h), split_heads(X @ Wv, h)
    assert Q.shape == (h, n, k) and V.shape == (h, n, v)
    err = _maxerr(Q[1], X @ Wq[:, k : 2 * k])  # head 1 is its own projection
    assert err < 1e-12
    return f"Q {Q.shape}, V {V.shape}; 3hn = {3 * h * n} tokens"


@claim(
    "C10-16",
    section="10.1.3",
    lines=(5174, 5180),
    equation="E.10.15",
    statement="Each head gives (n, v), the concatenation (n, hv), and W_o ~ (hv, o) "
    "maps it to (n, o) for any o.",
)
def _c10_16() -> str:
    import torch
    import torch.nn.functional as F

    from alice_lab.attention import multi_head_attention

    r = _rng(16)
    n, e, h, k, v, o = 5, 6, 3, 2, 4, 7
    p = {
        "Wq": r.standard_normal((e, h * k)),
        "Wk": r.standard_normal((e, h * k)),
        "Wv": r.standard_normal((e, h * v)),
        "Wo": r.standard_normal((h * v, o)),
    }
    X = r.standard_normal((n, e))
    out = multi_head_attention(X, p, heads=h)
    # reference: torch's attention kernel head by head, concatenated (n, hv), times W_o
    Q, K, V = (torch.from_numpy(X @ p[w]) for w in ("Wq", "Wk", "Wv"))
    heads = [
        F.scaled_dot_product_attention(
            Q[:, i * k : (i + 1) * k],
            K[:, i * k : (i + 1) * k],
            V[:, i * v : (i + 1) * v],
        )
        for i in range(h)
    ]
    concat = torch.cat(heads, dim=1).numpy()
    err = _maxerr(out, concat @ p["Wo"])
    assert concat.shape == (n, h * v) and out.shape == (n, o) and err < 1e-12, err
    return (
        f"n={n}, h={h}, v={v}: concat ({n}, {h * v}) → output {out.shape}, = torch's "
        f"heads concatenated times W_o ({err:.0e})"
    )


@claim(
    "C10-17",
    section="10.1.3",
    lines=(5174, 5180),
    statement="MHA has h(2ke + ve) + hvo parameters, 4e² for k = v = e/h and o = e, "
    "as torch.nn.MultiheadAttention(e, h, bias=False); with its weights copied our "
    "MHA gives the same output.",
    equation="E.10.15",
)
def _c10_17() -> str:
    import torch

    from alice_lab.attention import (
        MultiHeadAttention,
        mha_param_count,
        multi_head_attention,
    )

    e, h = 512, 8
    ref = torch.nn.MultiheadAttention(e, h, bias=False)
    count = sum(p.numel() for p in ref.parameters())
    ours = mha_param_count(e, h, e // h, e // h, e)
    assert count == ours == 4 * e * e, (count, ours)
    torch.manual_seed(0)
    small = torch.nn.MultiheadAttention(
        8, 2, bias=False, batch_first=True, dtype=torch.float64
    )
    x = torch.as_tensor(_rng(17).standard_normal((2, 5, 8)))
    want = small(x, x, x, need_weights=False)[0].detach().numpy()
    params = MultiHeadAttention.from_torch(small).numpy_params()
    err = _maxerr(multi_head_attention(x.numpy(), params, heads=2), want)
    assert err < 1e-12, err
    return f"e=512, h=8: {count:,} parameters = 4e²; output difference {err:.0e}"


@claim(
    "C10-18",
    section="10.1.3",
    lines=(5186, 5198),
    statement="Box 10.1: a Python dict returns 2 for the exact key 'Alice' and raises "
    "KeyError for the misspelled 'Alce': it only answers perfect matches.",
)
def _c10_18() -> str:
    d = {}
    d["Alice"] = 2
    assert d["Alice"] == 2
    try:
        d["Alce"]
    except KeyError:
        return "d['Alice'] = 2; d['Alce'] raises KeyError"
    raise AssertionError("no KeyError")


@claim(
    "C10-19",
    section="10.1.3",
    lines=(5200, 5200),
    statement="Attention with an argmax instead of the softmax returns the value of "
    "the closest key (a vector-valued dictionary); softmax(βs) tends to it as β → ∞ "
    "and to the mean of the values as β → 0.",
)
def _c10_19() -> str:
    from alice_lab.attention import hard_attention, tempered_attention

    K = np.eye(4)
    V = _rng(19).standard_normal((4, 3))
    got = hard_attention(K[[2]], K, V)
    assert np.array_equal(got, V[[2]])
    q = K[[1]] + 0.1 * _rng(20).standard_normal((1, 4))
    err_hard = _maxerr(tempered_attention(q, K, V, 1e4), hard_attention(q, K, V))
    err_mean = _maxerr(tempered_attention(q, K, V, 1e-9), V.mean(0, keepdims=True))
    assert err_hard < 1e-10 and err_mean < 1e-8, (err_hard, err_mean)
    return f"β = 1e4 vs argmax: {err_hard:.0e}; β → 0 vs mean: {err_mean:.0e}"


@claim(
    "C10-20",
    section="10.1.3",
    lines=(5202, 5202),
    statement="The argmax has zero gradient almost everywhere: no gradient reaches "
    "the scores through hard attention, while soft attention passes one.",
)
def _c10_20() -> str:
    import torch

    s = torch.tensor(_rng(21).standard_normal(5), requires_grad=True)
    V = torch.as_tensor(_rng(22).standard_normal((5, 3)))
    hard = torch.nn.functional.one_hot(s.argmax(), 5).to(V.dtype) @ V
    assert not hard.requires_grad  # no path back to s at all
    (torch.softmax(s, 0) @ V).sum().backward()
    g = float(s.grad.abs().max())
    assert g > 1e-3, g
    return f"hard: no graph to s; soft: max |∂/∂s| = {g:.2f}"
