"""Checkable claims of Chapter 4, §4.2-4.3.2: one-hot targets, the softmax, logistic
regression, binary classification and the logsumexp trick (book lines 1588-2014).

Each check computes what the book states and compares it with something outside
``alice_lab``: NumPy, SciPy, PyTorch, JAX, a closed form, or the book's own numbers.
JAX comparisons use tolerances that hold whether or not ``jax_enable_x64`` is on.
"""

from __future__ import annotations

import math

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _np, _rng

# =====================================================================================
# 4.2 Linear models for classification
# =====================================================================================


@claim(
    "C4-27",
    section="4.2",
    lines=(1594, 1606),
    statement="Regressing on the class index and rounding (1.3 → class 1, 3.7 → "
    "class 4) imposes a spurious order on the classes: three clusters along a line "
    "are all classified right when their indices follow the line, and not when two "
    "labels are swapped, although the data are the same.",
)
def _c4_27() -> str:
    from alice_lab.linear import least_squares

    assert np.rint(1.3) == 1 and np.rint(3.7) == 4  # the book's two examples
    rng = _rng(27)
    x = np.repeat([0.0, 1.0, 2.0], 30) + 0.1 * rng.standard_normal(90)
    X = np.stack([x, np.ones_like(x)], 1)
    acc = {}
    for order in ((1, 2, 3), (1, 3, 2)):
        y = np.repeat(np.asarray(order, dtype=float), 30)
        w = _np(least_squares(X, y))
        ref = np.linalg.lstsq(X, y, rcond=None)[0]
        assert _maxerr(w, ref) < 1e-10, (order, w, ref)
        pred = np.clip(np.rint(X @ w), 1, 3)
        acc[order] = float(np.mean(pred == y))
    assert acc[(1, 2, 3)] == 1.0 and acc[(1, 3, 2)] <= 2 / 3, acc
    return (
        f"labels in line order: accuracy {acc[(1, 2, 3)]:.2f}; two labels swapped: "
        f"{acc[(1, 3, 2)]:.2f}"
    )


@claim(
    "C4-28",
    section="4.2",
    lines=(1606, 1618),
    statement="One-hot encoding with three classes: classes 1, 2, 3 become the rows "
    "of the 3 × 3 identity (0, 1, 2 in code).",
)
def _c4_28() -> str:
    import torch

    from alice_lab.functional import one_hot

    Y = one_hot(np.array([0, 1, 2]), 3)
    assert np.array_equal(Y, np.eye(3))
    ref = torch.nn.functional.one_hot(torch.tensor([2, 0, 1]), 3).numpy()
    assert np.array_equal(one_hot(np.array([2, 0, 1]), 3), ref)
    return "one_hot([0, 1, 2], 3) = I₃; matches torch.nn.functional.one_hot"


@claim(
    "C4-29",
    section="4.2",
    lines=(1620, 1620),
    statement="One-hot vectors carry no order: two of them are at Euclidean distance "
    "0 (same class) or √2 (different classes).",
)
def _c4_29() -> str:
    from alice_lab.functional import one_hot

    Y = one_hot(np.arange(6), 6)
    D = np.linalg.norm(Y[:, None, :] - Y[None, :, :], axis=-1)
    off = ~np.eye(6, dtype=bool)
    assert np.allclose(D[off], np.sqrt(2), rtol=1e-15) and np.all(np.diag(D) == 0)
    return f"all {off.sum()} pairs of distinct classes at distance {D[0, 1]:.6f} = √2"


@claim(
    "C4-30",
    section="4.2.1",
    lines=(1628, 1648),
    statement="[0.2, 0.05, 0.75] lies in the simplex Δ₃ and its closest vertex is "
    "class 3; for every point of the simplex the closest vertex is the argmax.",
)
def _c4_30() -> str:
    from alice_lab.linear import predict_class
    from alice_lab.tensors import is_simplex

    x = np.array([0.2, 0.05, 0.75])
    assert is_simplex(x) and predict_class(x[None])[0] == 2  # class 3, 1-based
    P = _rng(30).dirichlet(np.ones(4), size=2000)
    dist = np.linalg.norm(P[:, None, :] - np.eye(4)[None], axis=-1)
    assert np.array_equal(dist.argmin(axis=1), _np(predict_class(P)))
    return "[0.2, 0.05, 0.75] → class 3; argmin distance = argmax on 2000 points"


@claim(
    "C4-31",
    section="4.2.1",
    lines=(1656, 1668),
    statement="The multi-output model Wx + b with W ~ (m, c) is m linear regressions "
    "in parallel: output i is the linear model with weights Wᵢ and bias bᵢ.",
    equation="E.4.10",
)
def _c4_31() -> str:
    import torch

    from alice_lab.linear import linear_model, multi_linear

    rng = _rng(31)
    X, W, b = rng.normal(size=(20, 5)), rng.normal(size=(3, 5)), rng.normal(size=3)
    H = multi_linear(X, W, b)
    # torch's F.linear stores W ~ (m, c) like the book: x Wᵀ + b, all outputs at once
    ref = torch.nn.functional.linear(*(torch.from_numpy(a) for a in (X, W, b))).numpy()
    # and output i, one regression at a time, written out: X wᵢ + bᵢ
    cols = np.stack([X @ W[i] + b[i] for i in range(3)], axis=1)
    one = np.stack([linear_model(X, W[i], b[i]) for i in range(3)], axis=1)
    err = max(_maxerr(H, ref), _maxerr(H, cols), _maxerr(one, cols))
    assert H.shape == (20, 3) and err < 1e-13, err
    return (
        f"XWᵀ + b (20, 3) = torch's F.linear = three regressions X wᵢ + bᵢ ({err:.0e})"
    )


@claim(
    "C4-32",
    section="4.2.1",
    lines=(1670, 1704),
    statement="The softmax exp(xᵢ)/Σⱼexp(xⱼ) lands in the simplex: hᵢ = exp(xᵢ) > 0 "
    "normalised by Z = Σhⱼ; it agrees with scipy.special.softmax, torch.softmax and "
    "jax.nn.softmax.",
    equation="E.4.11",
)
def _c4_32() -> str:
    import jax
    import scipy.special as sp
    import torch

    from alice_lab.functional import softmax

    X = _rng(32).normal(size=(50, 6)) * 3
    S = softmax(X)
    h = np.exp(X)
    assert np.all(S >= 0) and np.allclose(S.sum(axis=1), 1, rtol=0, atol=1e-14)
    assert _maxerr(S, h / h.sum(axis=1, keepdims=True)) < 1e-15
    assert _maxerr(S, sp.softmax(X, axis=1)) < 1e-15
    assert _maxerr(S, torch.softmax(torch.tensor(X), dim=1).numpy()) < 1e-15
    assert _maxerr(S, np.asarray(jax.nn.softmax(X, axis=1))) < 1e-6
    return "rows ≥ 0 sum to 1; = h/Z, SciPy, torch, JAX"


@claim(
    "C4-33",
    section="4.2.1",
    lines=(1714, 1716),
    statement="A temperature τ > 0 keeps the order of the outputs: softmax(x/τ) is "
    "sorted like x for every τ.",
)
def _c4_33() -> str:
    from alice_lab.functional import softmax

    x = _rng(33).normal(size=8) * 2
    order = np.argsort(x)
    for tau in np.logspace(-2, 3, 26):
        s = softmax(x, tau=tau)
        assert np.array_equal(np.argsort(s, kind="stable"), order), tau
        assert np.all(np.diff(s[order]) > 0), tau
    return "same order as x for 26 temperatures from 0.01 to 1000"


@claim(
    "E4-06",
    section="4.2.1",
    lines=(1718, 1720),
    statement="As τ → ∞ the softmax of a vector of m logits tends to the uniform 1/m "
    "(m, the number of outputs, not c).",
    erratum="lim_{τ→∞} softmax(x; τ) = 1/c",
    equation="E.4.15",
)
def _e4_06() -> str:
    from alice_lab.functional import softmax
    from alice_lab.linear import multi_linear

    rng = _rng(34)
    m, c = 3, 5  # W ~ (m, c): m outputs from c features
    h = multi_linear(rng.normal(size=(1, c)), rng.normal(size=(m, c)))[0]
    s = softmax(h, tau=1e6)
    assert np.allclose(s, 1 / m, atol=1e-5) and not np.allclose(s, 1 / c, atol=0.05)
    return (
        f"τ = 1e6: {np.round(s, 6).tolist()} ≈ 1/m = {1 / m:.6f} (1/c would be {1 / c})"
    )


@claim(
    "C4-34",
    section="4.2.1",
    lines=(1720, 1724),
    statement="As τ → 0 the softmax tends to the one-hot vector of the argmax (a tie "
    "shares the mass equally): softmax is a soft argmax.",
)
def _c4_34() -> str:
    from alice_lab.functional import softmax

    x = np.array([1.0, 2.5, -0.3, 2.4])
    assert _maxerr(softmax(x, tau=1e-3), np.eye(4)[1]) < 1e-20
    tie = softmax(np.array([1.0, 3.0, 3.0]), tau=1e-4)
    assert _maxerr(tie, [0, 0.5, 0.5]) < 1e-15
    return f"τ = 1e-3 → {softmax(x, tau=1e-3).round(12).tolist()}; a tie → [0, ½, ½]"


@claim(
    "C4-35",
    section="4.2.1",
    lines=(1726, 1776),
    statement="Figure F.4.3: for the input [1, 2, −0.5] the softmax is [0.254, 0.690, "
    "0.057] at τ = 1, [0.337, 0.373, 0.290] at τ = 10 and [0.334, 0.337, 0.329] at τ "
    "= 100; inputs may be negative, outputs lie in [0, 1].",
    equation="Figure F.4.3",
)
def _c4_35() -> str:
    from alice_lab.functional import softmax

    x = np.array([1.0, 2.0, -0.5])
    want = {
        1: [0.254, 0.690, 0.057],
        10: [0.337, 0.373, 0.290],
        100: [0.334, 0.337, 0.329],
    }
    for tau, w in want.items():
        s = softmax(x, tau=tau)
        assert _maxerr(s.round(3), w) < 1e-12, (tau, s)
        assert np.all((s >= 0) & (s <= 1))
    return "τ = 1, 10, 100 reproduce the three panels to 3 decimals"


@claim(
    "C4-36",
    section="4.2.1",
    lines=(1720, 1776),
    statement="The entropy of softmax(x/τ) grows with τ, from 0 (one-hot) towards log "
    "m (uniform).",
    equation="Figure F.4.3",
)
def _c4_36() -> str:
    import scipy.stats

    from alice_lab.functional import softmax

    x = _rng(36).normal(size=5) * 2
    taus = np.logspace(-2, 4, 61)
    H = np.array([scipy.stats.entropy(softmax(x, tau=t)) for t in taus])
    assert np.all(np.diff(H) >= -1e-12), "entropy decreased"
    assert H[0] < 1e-6 and abs(H[-1] - np.log(5)) < 1e-6
    return f"entropy {H[0]:.1e} at τ = 0.01 → {H[-1]:.6f} = log 5 at τ = 1e4"


# =====================================================================================
# 4.2.2 The logistic regression model
# =====================================================================================


@claim(
    "C4-37",
    section="4.2.2",
    lines=(1792, 1824),
    statement="Maximum likelihood under the categorical distribution ∏ŷᵢ^yᵢ gives the "
    "cross-entropy; it equals the KL divergence from the one-hot target, whose "
    "entropy is 0.",
    equation="E.4.17",
)
def _c4_37() -> str:
    import scipy.special as sp
    import scipy.stats

    from alice_lab.functional import one_hot
    from alice_lab.losses import cross_entropy_probs

    rng = _rng(37)
    P = sp.softmax(rng.normal(size=(10, 4)), axis=1)
    y = rng.integers(0, 4, size=10)
    Y = one_hot(y, 4)
    nll = -np.log(np.prod(P**Y, axis=1))
    ce = cross_entropy_probs(P, Y, reduction="none")
    kl = np.array([scipy.stats.entropy(Y[i], P[i]) for i in range(10)])
    assert _maxerr(nll, ce) < 1e-14 and _maxerr(ce, kl) < 1e-14
    assert all(scipy.stats.entropy(Y[i]) == 0 for i in range(10))
    return "−log ∏ŷᵢ^yᵢ = CE = KL(y‖ŷ) on 10 examples (H(one-hot) = 0)"


@claim(
    "C4-38",
    section="4.2.2",
    lines=(1824, 1830),
    statement="With a one-hot target only the true class survives: CE(y, ŷ) = −log "
    "ŷ_y.",
    equation="E.4.18",
)
def _c4_38() -> str:
    import scipy.special as sp
    import torch

    from alice_lab.functional import one_hot
    from alice_lab.losses import cross_entropy_probs

    rng = _rng(38)
    Z = rng.normal(size=(12, 5))
    P, y = sp.softmax(Z, axis=1), rng.integers(0, 5, size=12)
    ce = cross_entropy_probs(P, one_hot(y, 5), reduction="none")
    assert _maxerr(ce, -np.log(P[np.arange(12), y])) < 1e-14
    ref = torch.nn.functional.cross_entropy(
        torch.tensor(Z), torch.tensor(y), reduction="none"
    )
    assert _maxerr(ce, ref.numpy()) < 1e-13
    return "CE(one-hot, ŷ) = −log ŷ_y = torch's cross_entropy on the logits"


@claim(
    "C4-39",
    section="4.2.2",
    lines=(1836, 1840),
    statement="Raising one logit lowers every other softmax output: the Jacobian "
    "diag(s) − ssᵀ has negative off-diagonal entries and rows summing to 0.",
)
def _c4_39() -> str:
    import torch

    from alice_lab.functional import softmax

    x = _rng(39).normal(size=5)
    s = softmax(x)
    J = np.diag(s) - np.outer(s, s)
    Jt = torch.func.jacrev(lambda v: softmax(v))(torch.tensor(x)).numpy()
    assert _maxerr(J, Jt) < 1e-15
    off = ~np.eye(5, dtype=bool)
    assert np.all(J[off] < 0) and np.abs(J.sum(axis=1)).max() < 1e-16
    return f"torch.func.jacrev = diag(s) − ssᵀ; off-diagonal max {J[off].max():.3f} < 0"


# =====================================================================================
# 4.3.1 Binary classification
# =====================================================================================


@claim(
    "E4-07",
    section="4.3.1",
    lines=(1852, 1858),
    statement="The last softmax output is redundant: f_m(x) = 1 − Σ_{i<m} fᵢ(x).",
    erratum="f_m(x) = Σ_{i=1}^{m−1} fᵢ(x) (the “1 −” is missing)",
)
def _e4_07() -> str:
    from alice_lab.functional import softmax

    H = _rng(40).normal(size=(100, 4)) * 3
    S = softmax(H)
    right = _maxerr(S[:, -1], 1 - S[:, :-1].sum(axis=1))
    printed = _maxerr(S[:, -1], S[:, :-1].sum(axis=1))
    assert right < 1e-15 and printed > 0.5, (right, printed)
    return f"1 − Σ: max error {right:.0e}; the printed Σ misses by up to {printed:.2f}"


@claim(
    "C4-41",
    section="4.3.1",
    lines=(1866, 1880),
    statement="The first output of a two-class softmax is the sigmoid of the "
    "difference of the logits: softmax([a, b])₀ = σ(a − b), and exp(x)/(1 + exp(x)) = "
    "σ(x).",
)
def _c4_41() -> str:
    import scipy.special as sp

    from alice_lab.functional import sigmoid, softmax

    ab = _rng(41).normal(size=(200, 2)) * 5
    assert _maxerr(softmax(ab)[:, 0], sigmoid(ab[:, 0] - ab[:, 1])) < 1e-15
    x = ab[:, 0]
    assert _maxerr(np.exp(x) / (1 + np.exp(x)), sigmoid(x)) < 1e-15
    assert _maxerr(sigmoid(x), sp.expit(x)) < 1e-15
    return "200 pairs: softmax([a, b])₀ = σ(a − b) = expit(a − b)"


@claim(
    "C4-42",
    section="4.3.1",
    lines=(1880, 1898),
    statement="σ(0) = 0.5, σ(−s) = 1 − σ(s), σ increases, and its limits 0 and 1 are "
    "only reached asymptotically (in float64 σ(40) already rounds to 1).",
    equation="Figure F.4.4",
)
def _c4_42() -> str:
    from alice_lab.functional import sigmoid

    s = np.linspace(-30, 30, 6001)
    v = sigmoid(s)
    assert sigmoid(np.float64(0.0)) == 0.5
    assert _maxerr(sigmoid(-s), 1 - v) < 1e-15
    assert np.all(np.diff(v) > 0) and np.all((v > 0) & (v < 1))
    assert sigmoid(np.float64(40.0)) == 1.0 and sigmoid(np.float64(36.0)) < 1.0
    return "σ(0) = 0.5, symmetric, increasing on [−30, 30]; σ(40) == 1.0 in float64"


@claim(
    "C4-43",
    section="4.3.1",
    lines=(1900, 1926),
    statement="Binary logistic regression σ(wᵀx + b) is the two-output softmax model "
    "with W = [wᵀ; 0] and b = [b, 0] (class 1 first): same probabilities, same "
    "cross-entropy.",
    equation="E.4.19",
)
def _c4_43() -> str:
    from alice_lab.linear import (
        binary_logreg_forward,
        binary_logreg_loss,
        logreg_forward,
        logreg_loss,
    )

    rng = _rng(43)
    X, w, b = rng.normal(size=(40, 3)), rng.normal(size=3), 0.4
    y = rng.integers(0, 2, size=40)
    W2, b2 = np.stack([np.zeros(3), w]), np.array([0.0, b])  # class 0 row fixed at 0
    p1 = binary_logreg_forward(X, w, b)
    P = logreg_forward(X, W2, b2)
    assert _maxerr(P[:, 1], p1) < 1e-15
    d = abs(float(logreg_loss(X, y, W2, b2)) - float(binary_logreg_loss(X, y, w, b)))
    assert d < 1e-14, d
    return f"probabilities equal to 1e-15, losses differ by {d:.0e}"


@claim(
    "C4-63",
    section="4.3.1",
    lines=(1914, 1924),
    statement=(
        "In the binary cross-entropy −y log ŷ − (1 − y) log(1 − ŷ) the first "
        "term is the loss when y = 1 and the second when y = 0."
    ),
    equation="E.4.19",
)
def _c4_63() -> str:
    from alice_lab.losses import binary_cross_entropy

    p = np.linspace(0.01, 0.99, 99)
    one = binary_cross_entropy(p, np.ones_like(p), reduction="none")
    zero = binary_cross_entropy(p, np.zeros_like(p), reduction="none")
    assert _maxerr(one, -np.log(p)) < 1e-14  # y = 1: only the first term
    assert _maxerr(zero, -np.log1p(-p)) < 1e-14  # y = 0: only the second term
    return "y = 1 keeps −log ŷ; y = 0 keeps −log(1 − ŷ): classes 1 and 0"


@claim(
    "C4-44",
    section="4.3.1",
    lines=(1926, 1932),
    statement="The gradient of the binary cross-entropy of σ(wᵀx + b) is (f(x) − y)x, "
    "and for softmax outputs (ŷ − y^oh)xᵀ, agreeing with torch.autograd and jax.grad.",
)
def _c4_44() -> str:
    import jax
    import torch

    from alice_lab.functional import one_hot, sigmoid
    from alice_lab.linear import binary_logreg_loss, logreg_forward, logreg_loss

    rng = _rng(44)
    x, w, b, y = rng.normal(size=(1, 4)), rng.normal(size=4), 0.3, np.array([1])
    wt = torch.tensor(w, requires_grad=True)
    binary_logreg_loss(torch.tensor(x), torch.tensor(y), wt, b).backward()
    book = (sigmoid(x[0] @ w + b) - y[0]) * x[0]
    assert _maxerr(wt.grad.numpy(), book) < 1e-15
    W, bb, c = rng.normal(size=(3, 4)), rng.normal(size=3), np.array([2])
    xj, cj, bj = (jax.numpy.asarray(a) for a in (x, c, bb))
    G = jax.grad(lambda V: logreg_loss(xj, cj, V, bj))(jax.numpy.asarray(W))
    multi = np.outer(logreg_forward(x, W, bb)[0] - one_hot(c, 3)[0], x[0])
    assert _maxerr(np.asarray(G), multi) < 1e-6
    return "binary: autograd = (σ − y)x; multi-class: jax.grad = (ŷ − y^oh)xᵀ"


@claim(
    "C4-45",
    section="4.3.1",
    lines=(1934, 1946),
    statement="The logits are the log-odds: logit(p) = log(p/(1 − p)) inverts the "
    "sigmoid, so binary logistic regression is linear in logit(ŷ).",
    equation="E.4.20",
)
def _c4_45() -> str:
    import scipy.special as sp

    from alice_lab.functional import logit, sigmoid

    rng = _rng(45)
    s = rng.normal(size=100) * 5
    p = rng.uniform(1e-6, 1 - 1e-6, size=100)
    assert _maxerr(logit(sigmoid(s)), s) < 1e-9
    assert _maxerr(sigmoid(logit(p)), p) < 1e-15
    assert _maxerr(logit(p), sp.logit(p)) < 1e-12
    X, w, b = rng.normal(size=(20, 3)), rng.normal(size=3), -0.2
    assert _maxerr(logit(sigmoid(X @ w + b)), X @ w + b) < 1e-12
    return "logit∘σ = id, σ∘logit = id, = scipy.special.logit; logit(ŷ) = Xw + b"


# =====================================================================================
# 4.3.2 The logsumexp trick
# =====================================================================================


@claim(
    "C4-46",
    section="4.3.2",
    lines=(1954, 1976),
    statement="The four losses of Box 4.4 agree where all are defined: "
    "cross_entropy(z, y) = nll_loss(log_softmax(z), y), and "
    "binary_cross_entropy_with_logits(z, t) = binary_cross_entropy(σ(z), t) for "
    "moderate logits.",
)
def _c4_46() -> str:
    import torch
    import torch.nn.functional as F

    from alice_lab import losses

    rng = _rng(46)
    z, y = (
        torch.tensor(rng.normal(size=(20, 4)) * 3),
        torch.tensor(rng.integers(0, 4, 20)),
    )
    a = F.cross_entropy(z, y)
    b = F.nll_loss(F.log_softmax(z, dim=1), y)
    ours = losses.cross_entropy(z.numpy(), y.numpy())
    assert abs(a - b) < 1e-14 and abs(float(ours) - a.item()) < 1e-14
    s = torch.tensor(rng.uniform(-9, 9, size=50))
    t = torch.tensor(rng.integers(0, 2, 50).astype(float))
    c = F.binary_cross_entropy_with_logits(s, t)
    d = F.binary_cross_entropy(torch.sigmoid(s), t)
    mine = losses.binary_cross_entropy_with_logits(s.numpy(), t.numpy())
    assert abs(c - d) < 1e-12 and abs(float(mine) - c.item()) < 1e-14
    return (
        f"CE = NLL∘log_softmax = ours ({a.item():.6f}); BCE-logits = BCE∘σ for |z| < 9"
    )


@claim(
    "C4-47",
    section="4.3.2",
    lines=(1984, 2014),
    statement="Computed as written, log Σ exp p overflows to inf at p = [1000, 1000] "
    "and −log softmax gives inf for a logit gap of 1000; the shifted forms stay "
    "exact, and binary cross-entropy from the logit is exact at |z| = 200 where the "
    "probability route gives inf (torch clamps it to 100).",
)
def _c4_47() -> str:
    import scipy.special as sp
    import torch

    from alice_lab.functional import log_softmax, logsumexp
    from alice_lab.losses import binary_cross_entropy_with_logits

    p = np.array([1000.0, 1000.0])
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        naive = np.log(np.sum(np.exp(p)))
        gap = np.array([0.0, 1000.0])
        naive_ce = -np.log(np.exp(gap[0]) / np.sum(np.exp(gap)))
        float32 = np.exp(np.float32(88.8))
    assert np.isinf(naive) and np.isinf(naive_ce) and np.isinf(float32)
    assert float(logsumexp(p)) == 1000 + math.log(2)
    assert -float(log_softmax(gap)[0]) == 1000.0 == -sp.log_softmax(gap)[0]
    exact = float(binary_cross_entropy_with_logits(np.array([200.0]), np.array([0.0])))
    clamped = torch.nn.functional.binary_cross_entropy(
        torch.sigmoid(torch.tensor([200.0], dtype=torch.float64)),
        torch.tensor([0.0], dtype=torch.float64),
    ).item()
    assert exact == 200.0 and clamped == 100.0
    return (
        "naive: inf, inf (float32 exp overflows past 88.7); stable: 1000 + log 2, "
        "1000; BCE(z = 200) = 200 vs torch's clamped 100"
    )


@claim(
    "C4-48",
    section="4.3.2",
    lines=(1984, 1996),
    statement="−log softmax(p)ᵢ = −pᵢ + logsumexp(p).",
)
def _c4_48() -> str:
    import scipy.special as sp

    from alice_lab.functional import log_softmax, logsumexp

    P = _rng(48).normal(size=(30, 6)) * 4
    lhs = -log_softmax(P)
    rhs = -P + logsumexp(P)[:, None]
    assert (
        _maxerr(lhs, rhs) < 1e-13
        and _maxerr(lhs, -np.log(sp.softmax(P, axis=1))) < 1e-12
    )
    return f"max difference {_maxerr(lhs, rhs):.0e} on 30 × 6 logits"


@claim(
    "C4-64",
    section="4.3.2",
    lines=(2000, 2010),
    statement=(
        "logsumexp(p) = logsumexp(p − c) + c holds for every real c (the book "
        "states it for c ≥ 0); with c = max p, which may be negative, the "
        "largest shifted logit is exactly 0."
    ),
)
def _c4_64() -> str:
    import scipy.special as sp

    from alice_lab.functional import logsumexp

    rng = _rng(49)
    p = rng.normal(size=7) * 10
    ref = sp.logsumexp(p)
    cs = np.concatenate([rng.uniform(-50, 0, 20), rng.uniform(0, 50, 20)])
    worst = max(abs(float(logsumexp(p - c)) + c - ref) for c in cs)
    assert worst < 1e-12, worst
    assert np.max(p - np.max(p)) == 0.0
    return f"40 shifts c ∈ [−50, 50]: max error {worst:.0e}"


@claim(
    "E4-10",
    section="4.3.2",
    lines=(2012, 2014),
    statement="The gradient of logsumexp is the softmax: ∇logsumexp(p) = softmax(p).",
    erratum="∇softmax(•) = logsumexp(•)",
)
def _e4_10() -> str:
    import jax
    import torch

    from alice_lab.calculus import grad_fd
    from alice_lab.functional import logsumexp, softmax

    p = _rng(50).normal(size=6) * 2
    t = torch.tensor(p, requires_grad=True)
    logsumexp(t).backward()
    s = softmax(p)
    assert _maxerr(t.grad.numpy(), s) < 1e-15
    assert _maxerr(np.asarray(jax.grad(lambda v: logsumexp(v))(p)), s) < 1e-6
    assert _maxerr(grad_fd(logsumexp, p), s) < 1e-8
    return "torch.autograd, jax.grad and finite differences of logsumexp = softmax"


@claim(
    "C4-51",
    section="4.3.2",
    lines=(2014, 2014),
    statement="Softmax in the model plus cross-entropy on probabilities, or logits "
    "plus cross-entropy from logits: the same number for moderate logits, but only "
    "the second stays finite for large ones.",
)
def _c4_51() -> str:
    import torch
    import torch.nn.functional as F

    from alice_lab.functional import softmax
    from alice_lab.losses import cross_entropy, cross_entropy_probs

    rng = _rng(51)
    Z, y = rng.normal(size=(25, 4)) * 3, rng.integers(0, 4, size=25)
    Zt, yt = torch.from_numpy(Z), torch.from_numpy(y)
    ref = float(F.cross_entropy(Zt, yt))
    a, b = float(cross_entropy_probs(softmax(Z), y)), float(cross_entropy(Z, y))
    assert abs(a - ref) < 1e-12 and abs(b - ref) < 1e-12, (a, b, ref)
    big = Z * 400
    with np.errstate(divide="ignore", over="ignore"):
        via_probs = float(cross_entropy_probs(softmax(big), y))
    ref_probs = float(F.nll_loss(torch.log(torch.softmax(400 * Zt, -1)), yt))
    ref_big = float(F.cross_entropy(400 * Zt, yt))
    from_logits = float(cross_entropy(big, y))
    assert np.isinf(via_probs) and np.isinf(ref_probs), (via_probs, ref_probs)
    assert abs(from_logits - ref_big) < 1e-9 * ref_big, (from_logits, ref_big)
    return (
        f"{b:.6f} both ways (torch {ref:.6f}); logits × 400: inf via probabilities "
        f"(torch too), {from_logits:.1f} from logits (torch {ref_big:.1f})"
    )
