"""Checkable claims of Chapter 10, §10.2: permutation equivariance and positional
embeddings (book lines 5216-5462).

References outside ``alice_lab``: ``torch.nn.MultiheadAttention`` for the
equivariance of MHA, SciPy's softmax, closed forms of sines and rotations, hand-built
rotation matrices for RoPE.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng


def _torch_mha(e: int = 8, h: int = 2, seed: int = 0):
    """A float64 torch MHA with random biases, as a NumPy function (n, e) -> (n, e)."""
    import torch

    torch.manual_seed(seed)
    m = torch.nn.MultiheadAttention(e, h, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        m.in_proj_bias.normal_()

    def f(X):
        x = torch.as_tensor(X)[None]
        return m(x, x, x, need_weights=False)[0][0].detach().numpy()

    return f


def _perm(n: int, seed: int) -> np.ndarray:
    r = _rng(seed)
    while True:
        p = r.permutation(n)
        if np.any(p != np.arange(n)):
            return np.eye(n)[p]


# =====================================================================================
# 10.2.1 Permutation equivariance
# =====================================================================================


@claim(
    "C10-21",
    section="10.2.1",
    lines=(5226, 5236),
    statement="Permutation matrices (one 1 per row and column) are doubly stochastic, "
    "as are their convex combinations; a softmax attention matrix is row-stochastic "
    "but in general not column-stochastic.",
)
def _c10_21() -> str:
    from alice_lab.attention import attention_weights

    r = _rng(21)
    Ps = [_perm(5, s) for s in range(4)]
    for P in Ps:
        assert np.all(P.sum(0) == 1) and np.all(P.sum(1) == 1)
    w = r.dirichlet(np.ones(4))
    B = sum(wi * P for wi, P in zip(w, Ps, strict=True))
    assert _maxerr(B.sum(0), 1) < 1e-12 and _maxerr(B.sum(1), 1) < 1e-12
    Aw = attention_weights(r.standard_normal((5, 3)), r.standard_normal((5, 3)))
    col = float(np.abs(Aw.sum(0) - 1).max())
    assert _maxerr(Aw.sum(1), 1) < 1e-12 and col > 1e-2, col
    return f"attention rows sum to 1, columns differ from 1 by up to {col:.2f}"


@claim(
    "E10-05",
    section="10.2.1",
    lines=(5232, 5232),
    statement="A permutation matrix satisfies 1ᵀP = 1ᵀ (a row vector) and P1 = 1.",
    erratum="1ᵀP = 1",
)
def _e10_05() -> str:
    P = _perm(4, 5)
    one = np.ones((4, 1))
    assert (one.T @ P).shape == (1, 4) and np.array_equal(one.T @ P, one.T)
    assert np.array_equal(P @ one, one)
    return "1ᵀP has shape (1, 4) and equals 1ᵀ"


@claim(
    "C10-22",
    section="10.2.1",
    lines=(5244, 5252),
    statement="P = [[1,0,0],[0,0,1],[0,1,0]] swaps the second and third rows: "
    "P[x1; x2; x3] = [x1; x3; x2].",
)
def _c10_22() -> str:
    P = np.array([[1, 0, 0], [0, 0, 1], [0, 1, 0]])
    X = _rng(22).standard_normal((3, 4))
    assert np.array_equal(P @ X, X[[0, 2, 1]])
    return "exact"


@claim(
    "C10-23",
    section="10.2.1",
    lines=(5256, 5262),
    statement="MHA(PX) = P·MHA(X) for every permutation matrix P "
    "(torch.nn.MultiheadAttention, n from 1 to 12).",
)
def _c10_23() -> str:
    from alice_lab.attention import mha_init, multi_head_attention

    f = _torch_mha()
    p = mha_init(8, 2, rng=_rng(0))
    worst = 0.0
    for n in range(1, 13):
        X = _rng(n).standard_normal((n, 8))
        P = np.eye(n)[_rng(100 + n).permutation(n)]
        worst = max(worst, _maxerr(f(P @ X), P @ f(X)))
        ours = lambda Z: multi_head_attention(Z, p, heads=2)  # noqa: E731
        worst = max(worst, _maxerr(ours(P @ X), P @ ours(X)))
    assert worst < 1e-12, worst
    return f"largest |MHA(PX) − P MHA(X)| = {worst:.0e} (torch and ours)"


@claim(
    "C10-24",
    section="10.2.1",
    lines=(5276, 5282),
    statement="The row-wise softmax commutes with permutations: "
    "softmax(PXPᵀ) = P softmax(X) Pᵀ.",
)
def _c10_24() -> str:
    from scipy.special import softmax

    X, P = _rng(24).standard_normal((6, 6)), _perm(6, 24)
    err = _maxerr(softmax(P @ X @ P.T, axis=1), P @ softmax(X, axis=1) @ P.T)
    assert err < 1e-15, err
    return f"difference {err:.0e}"


@claim(
    "C10-25",
    section="10.2.1",
    lines=(5284, 5292),
    statement="SA(PX) = P·SA(X), using PᵀP = I.",
    equation="E.10.16, E.10.17",
)
def _c10_25() -> str:
    from alice_lab.attention import self_attention

    r = _rng(25)
    X, P = r.standard_normal((7, 5)), _perm(7, 25)
    W = [r.standard_normal((5, 3)) for _ in range(3)]
    assert np.array_equal(P.T @ P, np.eye(7))
    err = _maxerr(self_attention(P @ X, *W), P @ self_attention(X, *W))
    assert err < 1e-12, err
    return f"PᵀP = I exactly; |SA(PX) − P SA(X)| = {err:.0e}"


@claim(
    "C10-26",
    section="10.2.1",
    lines=(5292, 5292),
    statement="The output of one token does not change when the other tokens are "
    "reordered (invariance for a token, equivariance for the layer).",
)
def _c10_26() -> str:
    f = _torch_mha(seed=1)
    X = _rng(26).standard_normal((6, 8))
    perm = np.concatenate([[0], 1 + _rng(27).permutation(5)])
    err = _maxerr(f(X[perm])[0], f(X)[0])
    assert err < 1e-12, err
    return f"token 0's output after shuffling tokens 1-5 changes by {err:.0e}"


@claim(
    "C10-27",
    section="10.2.1",
    lines=(5294, 5294),
    statement="Without positions, reversing the input only reverses the output, and "
    "two copies of a token get identical outputs: MHA sees a multiset.",
)
def _c10_27() -> str:
    f = _torch_mha(seed=2)
    X = _rng(28).standard_normal((6, 8))
    rev = _maxerr(f(X[::-1].copy()), f(X)[::-1])
    X[4] = X[1]
    H = f(X)
    dup = _maxerr(H[4], H[1])
    assert rev < 1e-12 and dup < 1e-12, (rev, dup)
    return f"reversal {rev:.0e}; duplicate rows differ by {dup:.0e}"


# =====================================================================================
# 10.2.2 Absolute positional embeddings
# =====================================================================================


@claim(
    "C10-28",
    section="10.2.2",
    lines=(5300, 5306),
    statement="Absolute positions: X' = X + S_{1:n} with S ~ (m, e) needs n ≤ m; a "
    "longer sequence is an error.",
)
def _c10_28() -> str:
    from alice_lab.attention import add_positional

    S = _rng(29).standard_normal((10, 4))
    X = _rng(30).standard_normal((6, 4))
    assert _maxerr(add_positional(X, S), X + S[:6]) == 0
    try:
        add_positional(np.zeros((11, 4)), S)
    except ValueError as err:
        return f"(6, 4) + S[:6] works; n = 11 > m = 10: {err}"
    raise AssertionError("n > m accepted")


@claim(
    "C10-29",
    section="10.2.2",
    lines=(5318, 5322),
    statement="With positional embeddings, MHA(PX + S) ≠ P·MHA(X + S): the model "
    "depends on the order of the tokens.",
)
def _c10_29() -> str:
    from alice_lab.attention import sinusoidal_positions

    f = _torch_mha(seed=3)
    X, P = _rng(31).standard_normal((8, 8)), _perm(8, 31)
    S = sinusoidal_positions(8, 8)
    gap = _maxerr(f(P @ X + S), P @ f(X + S))
    assert gap > 1e-3, gap
    return f"|MHA(PX + S) − P MHA(X + S)| = {gap:.2f}"


@claim(
    "C10-30",
    section="10.2.2",
    lines=(5330, 5340),
    statement="The same token at two positions gets the same output without "
    "positional embeddings and different outputs with them.",
    equation="Figure F.10.5",
)
def _c10_30() -> str:
    from alice_lab.attention import sinusoidal_positions

    f = _torch_mha(seed=4)
    X = _rng(32).standard_normal((5, 8))
    X[3] = X[0]  # "the cat saw the table": token 'the' twice
    H, Hp = f(X), f(X + sinusoidal_positions(5, 8))
    same, diff = _maxerr(H[3], H[0]), _maxerr(Hp[3], Hp[0])
    assert same < 1e-12 and diff > 1e-3, (same, diff)
    return f"without PE {same:.0e}, with PE {diff:.2f}"


@claim(
    "C10-31",
    section="10.2.2",
    lines=(5350, 5350),
    statement="The scalar position i/m lies in [0, 1) and grows linearly; next to "
    "unit-variance embeddings its effect is small.",
)
def _c10_31() -> str:
    from alice_lab.attention import linear_scalar_positions

    m, e = 64, 32
    p = linear_scalar_positions(m)[:, 0]
    assert p.min() == 0 and p.max() < 1 and np.allclose(np.diff(p), 1 / m, atol=1e-15)
    X = _rng(33).standard_normal((m, e))
    rel = float(np.linalg.norm(p) / np.linalg.norm(X))
    assert rel < 0.2, rel
    return f"‖p‖/‖X‖ = {rel:.3f} for m = {m}, e = {e}"


@claim(
    "C10-32",
    section="10.2.2",
    lines=(5352, 5352),
    statement="A one-hot position is m-dimensional with a single non-zero: density "
    "1/m.",
)
def _c10_32() -> str:
    from alice_lab.attention import one_hot_positions

    H = one_hot_positions(50)
    assert H.shape == (50, 50) and np.all(H.sum(1) == 1)
    return f"(50, 50), density {H.mean():.2f}"


@claim(
    "E10-03",
    section="10.2.2",
    lines=(5370, 5370),
    statement="The sine alone does not tell positions in [0, 2π] apart "
    "(sin(π/4) = sin(3π/4)); the pair (sin x, cos x) does, which is why the table "
    "interleaves sines and cosines.",
    erratum="the sine assigns a unique value to any input x inside [0, 2π]",
)
def _e10_03() -> str:
    assert abs(np.sin(np.pi / 4) - np.sin(3 * np.pi / 4)) < 1e-15
    x = np.linspace(0, 2 * np.pi, 1000, endpoint=False)
    sin_unique = len(np.unique(np.round(np.sin(x), 9)))
    pair_unique = len(np.unique(np.round(np.c_[np.sin(x), np.cos(x)], 9), axis=0))
    assert sin_unique < 600 and pair_unique == 1000, (sin_unique, pair_unique)
    return f"1000 points of [0, 2π): {sin_unique} distinct sines, {pair_unique} pairs"


@claim(
    "C10-34",
    section="10.2.2",
    lines=(5376, 5382),
    statement="sin(ωx) has period 2π/ω, and so has the column of frequency ω of the "
    "sinusoidal table (ω = 2π/8: period 8 positions).",
)
def _c10_34() -> str:
    from alice_lab.attention import sinusoidal_positions

    x = np.linspace(0, 10, 101)
    worst = max(
        _maxerr(np.sin(w * (x + 2 * np.pi / w)), np.sin(w * x))
        for w in (0.1, 1.0, 10.0)
    )
    assert worst < 1e-12, worst
    # the library's table: with the book's ω_l = base^(−l/d), d = 2 and base = (8/2π)²
    # its second column has ω = 2π/8, so it must repeat every 8 positions, not sooner
    S = sinusoidal_positions(
        40, 2, base=(8 / (2 * np.pi)) ** 2, variant="sin", exponent="book"
    )
    col, i = S[:, 1], np.arange(40)
    err = _maxerr(col, np.sin(2 * np.pi / 8 * i))
    period = min(p for p in range(1, 40) if _maxerr(col[p:], col[:-p]) < 1e-12)
    assert err < 1e-12 and period == 8, (err, period)
    return (
        f"{worst:.0e} on the real line; the table's ω = 2π/8 column has period {period}"
    )


@claim(
    "C10-35",
    section="10.2.2",
    lines=(5384, 5384),
    statement="A seconds hand (1/60 Hz) and a minute hand (1/3600 Hz) tell apart "
    "every second of an hour, and collide after 3600 s.",
)
def _c10_35() -> str:
    t = np.arange(7200)
    ang = np.c_[2 * np.pi * t / 60, 2 * np.pi * t / 3600]
    E = np.round(np.c_[np.sin(ang), np.cos(ang)], 9)
    hour = len(np.unique(E[:3600], axis=0))
    assert hour == 3600 and _maxerr(E[:3600], E[3600:]) < 1e-8
    seconds_only = len(np.unique(E[:3600, [0, 2]], axis=0))
    assert seconds_only == 60
    return (
        f"{hour} distinct readings in an hour (the seconds hand alone: {seconds_only})"
    )


@claim(
    "C10-36",
    section="10.2.2",
    lines=(5392, 5404),
    statement="The sinusoidal table S ~ (m, e), e even, interleaves e/2 frequencies: "
    "S[:, 0::2] = sin(ω_l i), S[:, 1::2] = cos(ω_l i) with ω_l = 10000^(−2l/e).",
)
def _c10_36() -> str:
    from alice_lab.attention import sinusoidal_positions

    m, e = 100, 16
    S = sinusoidal_positions(m, e)
    i, l = np.arange(m)[:, None], np.arange(e // 2)[None]  # noqa: E741
    ang = i / 10000 ** (2 * l / e)
    err = max(_maxerr(S[:, 0::2], np.sin(ang)), _maxerr(S[:, 1::2], np.cos(ang)))
    assert S.shape == (m, e) and err < 1e-14, err
    return f"(100, 16), closed form within {err:.0e}"


@claim(
    "C10-37",
    section="10.2.2",
    lines=(5410, 5410),
    statement="Positions i and i + k are related by a rotation R(ω k) that depends "
    "only on the offset, so S_i·S_j = Σ_l cos(ω_l (i − j)) (SSᵀ is Toeplitz).",
)
def _c10_37() -> str:
    from alice_lab.attention import frequencies, sinusoidal_positions

    m, e = 200, 16
    S = sinusoidal_positions(m, e)
    w = frequencies(e)
    worst = 0.0
    for k in (1, 7, 50):
        for lvl, om in enumerate(w):
            c, s = np.cos(om * k), np.sin(om * k)
            R = np.array([[c, s], [-s, c]])  # acts on (sin, cos)
            pair = S[: m - k, 2 * lvl : 2 * lvl + 2]
            worst = max(worst, _maxerr(pair @ R.T, S[k:, 2 * lvl : 2 * lvl + 2]))
    G = S @ S.T
    i = np.arange(m)
    closed = np.cos((i[:, None] - i[None, :])[..., None] * w).sum(-1)
    toe = _maxerr(G, closed)
    assert worst < 1e-10 and toe < 1e-10, (worst, toe)
    assert len(np.unique(np.round(sinusoidal_positions(4000, 16), 8), axis=0)) == 4000
    return (
        f"rotation error {worst:.0e}; SSᵀ vs Σ cos(ω(i−j)) {toe:.0e}; "
        "4000 distinct rows"
    )


@claim(
    "E10-04",
    section="10.2.2",
    lines=(5416, 5422),
    statement="The frequencies decrease geometrically. ω_i = 10000^(−i/e) spans 1 to "
    "1/10000 only when i runs to e (e + 1 sines); with the e/2 sine-cosine pairs the "
    "standard exponent is 2i/e, i < e/2, which ends at 10000^(−(e−2)/e).",
    erratum="ω_i = 1/10000^(i/e) “varies from ω_0 = 1 to ω_e = 1/10000”",
)
def _e10_04() -> str:
    from alice_lab.attention import frequencies

    e = 16
    book = 10000.0 ** (-np.arange(e + 1) / e)
    assert book[0] == 1.0 and abs(book[-1] - 1e-4) < 1e-18
    vas = frequencies(e)
    assert vas.shape == (e // 2,) and np.all(np.diff(vas) < 0)
    assert abs(vas[-1] - 10000.0 ** (-(e - 2) / e)) < 1e-15
    book_pairs = 10000.0 ** (-np.arange(e // 2) / e)  # i/e with only e/2 frequencies
    return (
        f"e = 16: smallest ω {vas[-1]:.2e} (2i/e) vs {book_pairs[-1]:.2e} "
        "(i/e with e/2 "
        "pairs) vs 1e-4 (i up to e)"
    )


@claim(
    "C10-39",
    section="10.2.2",
    lines=(5424, 5434),
    statement="With ω = 0.1, 1, 10 the embedding of position 6 is "
    "(sin 0.6, sin 6, sin 60) = (0.5646, −0.2794, −0.3048).",
    equation="Figure F.10.6",
)
def _c10_39() -> str:
    v = np.round(np.sin(np.array([0.1, 1.0, 10.0]) * 6), 4)
    assert v.tolist() == [0.5646, -0.2794, -0.3048], v
    return str(v.tolist())


# =====================================================================================
# 10.2.3 Relative positional embeddings
# =====================================================================================


@claim(
    "C10-41",
    section="10.2.3",
    lines=(5452, 5458),
    statement="An offset bias B_ij = b_{i−j} added to the scores (circular offsets) "
    "keeps attention shift equivariant but breaks permutation equivariance.",
)
def _c10_41() -> str:
    from alice_lab.attention import relative_bias_attention

    r = _rng(41)
    n = 8
    b = r.standard_normal(n)
    i = np.arange(n)
    B = b[(i[:, None] - i[None, :]) % n]
    X = r.standard_normal((n, 4))
    f = lambda Z: relative_bias_attention(Z, Z, Z, B)  # noqa: E731
    shift = _maxerr(f(np.roll(X, 3, 0)), np.roll(f(X), 3, 0))
    P = _perm(n, 41)
    perm = _maxerr(f(P @ X), P @ f(X))
    assert shift < 1e-12 and perm > 1e-3, (shift, perm)
    return f"shift error {shift:.0e}, permutation error {perm:.2f}"


@claim(
    "C10-42",
    section="10.2.3",
    lines=(5460, 5462),
    statement="ALiBi adds to head h the matrix of offsets times one scalar, "
    "−s_h|i − j|: h parameters in all.",
)
def _c10_42() -> str:
    from alice_lab.attention import alibi_bias

    s = np.array([0.5, 0.25, 0.125])
    B = alibi_bias(6, 3, slopes=s)
    i = np.arange(6)
    want = -s[:, None, None] * np.abs(i[:, None] - i[None, :])
    assert B.shape == (3, 6, 6) and np.array_equal(B, want)
    return f"(h, n, n) = {B.shape}, {s.size} parameters"


@claim(
    "C10-43",
    section="10.2.3",
    lines=(5462, 5462),
    statement="RoPE: ⟨R_i q, R_j k⟩ depends only on the offset i − j "
    "(checked against explicit block rotations).",
)
def _c10_43() -> str:
    from alice_lab.attention import rope

    r = _rng(43)
    d = 8
    q, k = r.standard_normal((2, 1, d))
    th = 10000.0 ** (-2 * np.arange(d // 2) / d)

    def R(i):
        M = np.zeros((d, d))
        for lvl, t in enumerate(th):
            c, s = np.cos(i * t), np.sin(i * t)
            M[2 * lvl : 2 * lvl + 2, 2 * lvl : 2 * lvl + 2] = [[c, -s], [s, c]]
        return M

    err_rot = _maxerr(rope(q, positions=[5])[0], R(5) @ q[0])
    s0 = float(rope(q, positions=[3])[0] @ rope(k, positions=[9])[0])
    worst = max(
        abs(float(rope(q, positions=[3 + t])[0] @ rope(k, positions=[9 + t])[0]) - s0)
        for t in (1, 10, 100)
    )
    moved = abs(float(rope(q, positions=[3])[0] @ rope(k, positions=[10])[0]) - s0)
    assert err_rot < 1e-14 and worst < 1e-12 and moved > 1e-4, (err_rot, worst, moved)
    return (
        f"shifting both positions changes the score by {worst:.0e}; "
        f"the offset by {moved:.2f}"
    )
