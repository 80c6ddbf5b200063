"""Checkable claims of Appendix B, 1D universal approximation (book lines 7011-7087).

Ids follow the digest's numbering (digest-ch12-B.md, "B.6 Checkable claims"): CB-01 to
CB-13; the digest's claim 11 (the book's two statements about how fast the error
falls) is the erratum EB-03, and CB-11 is the quantitative law that replaces them.
References outside ``alice_lab``: SciPy's ``expit``, ``quad`` and ``heaviside``,
``torch.autograd``, ``torch.nn`` layers, and the numbers printed in Figure F.B.3.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
from scipy.integrate import quad
from scipy.special import expit

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng

DOMAIN = (0.0, 10.0)  # Figure F.B.3
GRID = 20_001  # points of the error grid (the numbers agree with 100 001 to 3 digits)


@functools.lru_cache(maxsize=64)
def _fig_b3_mse(m: int, n: int = GRID, convention: str = "linspace") -> float:
    from alice_lab.approximation import bin_approximation, mse_on_grid, sin_over_x

    approx = bin_approximation(sin_over_x, m, domain=DOMAIN, convention=convention)
    return mse_on_grid(approx, sin_over_x, DOMAIN, n=n)


def _mean_dg2() -> float:
    """mean of g'(x)² over [0, 10] for g = sin(x)/x, by SciPy quadrature."""

    def dg(t: float) -> float:
        return 0.0 if t == 0 else (t * np.cos(t) - np.sin(t)) / t**2

    return quad(lambda t: dg(t) ** 2, *DOMAIN, limit=200)[0] / (DOMAIN[1] - DOMAIN[0])


# =====================================================================================
# Outline (lines 7016-7022)
# =====================================================================================


@claim(
    "CB-01",
    section="B",
    lines=(7020, 7020),
    statement="m bins make a network with 2m hidden neurons; with no output bias "
    "it has 2m + 2m + 2m = 6m parameters.",
)
def _cb_01() -> str:
    import torch

    from alice_lab.approximation import bin_approximation, sin_over_x, torch_sequential

    counts = {}
    for m in (5, 15, 50):
        p = bin_approximation(sin_over_x, m, domain=DOMAIN).weights()
        model = torch_sequential(p)
        hidden = model[0].out_features
        n_params = sum(q.numel() for q in model.parameters())
        assert hidden == 2 * m and p.W1.shape == (1, 2 * m), f"m={m}: {hidden} hidden"
        assert n_params == 6 * m == p.n_params, f"m={m}: {n_params} parameters"
        assert isinstance(model[1], torch.nn.Sigmoid)
        counts[m] = (hidden, n_params)
    return ", ".join(
        f"m={m}: {h} hidden, {n} parameters" for m, (h, n) in counts.items()
    )


@claim(
    "CB-02",
    section="B",
    lines=(7022, 7022),
    statement="With d inputs, m intervals per input give m^d bins, so the construction "
    "needs at least 2m^d neurons: exponential in d.",
)
def _cb_02() -> str:
    from alice_lab.approximation import bins, hidden_units

    m = 5
    centers, _ = bins(m, (0.0, 1.0), "mid")
    for d in range(1, 5):
        cells = len(list(itertools.product(centers, repeat=d)))  # the grid of bins
        assert cells == m**d, f"d={d}: {cells} cells"
        assert hidden_units(m, d) == 2 * cells
    table = [hidden_units(10, d) for d in range(1, 7)]
    ratios = {b / a for a, b in itertools.pairwise(table)}
    assert ratios == {10.0}, f"growth factors {ratios}"
    return "m = 10, d = 1..6: " + ", ".join(f"{n:,}" for n in table) + " neurons"


# =====================================================================================
# B.1 Approximating a step function
# =====================================================================================


@claim(
    "CB-03",
    section="B.1",
    lines=(7028, 7032),
    statement="a·σ(wx + b) and a·σ(w(x − s)) are the same neuron, with b = −ws.",
    equation="E.B.1",
)
def _cb_03() -> str:
    from alice_lab.approximation import neuron

    rng = _rng(0)
    x = rng.uniform(-3, 3, 500)
    worst = 0.0
    for _ in range(20):
        a, w, b = rng.normal(), rng.uniform(0.1, 50), rng.normal(scale=5)
        s = -b / w
        worst = max(worst, _maxerr(neuron(x, a, w, s), a * expit(w * x + b)))
    assert worst < 1e-12, f"max |aσ(w(x−s)) − aσ(wx+b)| = {worst:.1e}"
    return f"20 random (a, w, b): max difference {worst:.0e}"


@claim(
    "CB-04",
    section="B.1",
    lines=(7038, 7038),
    statement="Increasing w makes the step steeper: the slope of aσ(w(x − s)) peaks at "
    "x = s with value aw/4, which grows with w.",
)
def _cb_04() -> str:
    import torch

    a, s = 1.0, 0.3
    slopes = []
    for w in (1.0, 5.0, 20.0, 100.0, 1e4):
        x = torch.linspace(0.0, 1.0, 2001, dtype=torch.float64, requires_grad=True)
        (dx,) = torch.autograd.grad((a * torch.sigmoid(w * (x - s))).sum(), x)
        peak = float(x.detach()[int(torch.argmax(dx))])
        assert abs(peak - s) <= 5e-4, f"w={w}: steepest at x={peak}"
        slope = float(dx.max())
        assert np.isclose(slope, a * w / 4, rtol=1e-9), f"w={w}: {slope} vs {a * w / 4}"
        slopes.append(slope)
    assert np.all(np.diff(slopes) > 0), f"slopes not increasing: {slopes}"
    return "slopes at x = s: " + ", ".join(f"{v:g}" for v in slopes)


@claim(
    "CB-05",
    section="B.1",
    lines=(7038, 7038),
    statement="With w = 10⁴ the neuron is a very good step: more than 10⁻³ away from s "
    "it is within a·σ(−10) ≈ 4.54e-5·a of the step, and it equals a/2 at s.",
)
def _cb_05() -> str:
    from alice_lab.approximation import neuron

    a, s, w = 1.5, 0.3, 1e4
    x = np.linspace(0.0, 1.0, 200_001)
    far = np.abs(x - s) >= 1e-3 - 1e-12
    err = np.abs(neuron(x, a, w, s) - a * np.heaviside(x - s, 0.5))[far].max()
    bound = a * expit(-10.0)
    assert err <= bound * (1 + 1e-9), f"error {err:.3e} > a·σ(−10) = {bound:.3e}"
    assert np.isclose(expit(-10.0), 4.54e-5, rtol=1e-3)
    mid = float(neuron(s, a, w, s))
    assert mid == a / 2, f"f(s) = {mid}"
    return f"max error beyond ±1e-3: {err:.3e} (bound {bound:.3e}); f(s) = a/2"


@claim(
    "CB-06",
    section="B.1",
    lines=(7046, 7046),
    statement="Figure F.B.2(a), a = 1 and s = 0.3: f(0.29) < 1e-4, f(0.31) > 1 − 1e-4, "
    "f(0.3) = 0.5.",
    equation="Figure F.B.2 (a)",
)
def _cb_06() -> str:
    from alice_lab.approximation import neuron

    v = neuron(np.array([0.29, 0.3, 0.31]), 1.0, 1e4, 0.3)
    assert v[0] < 1e-4 and v[2] > 1 - 1e-4 and v[1] == 0.5, f"values {v}"
    assert _maxerr(v, expit(1e4 * (np.array([0.29, 0.3, 0.31]) - 0.3))) < 1e-15
    return f"f(0.29) = {v[0]:.1e}, f(0.3) = {v[1]}, 1 − f(0.31) = {1 - v[2]:.1e}"


# =====================================================================================
# B.2 Approximating a constant function
# =====================================================================================


@claim(
    "CB-07",
    section="B.2",
    lines=(7050, 7054),
    statement="A bin f(x; a, s, Δ) (two neurons) is a inside [s − Δ/2, s + Δ/2], 0 "
    "outside (within 2a·σ(−10) more than 10⁻³ from the edges) and a/2 at the edges.",
    equation="E.B.2",
)
def _cb_07() -> str:
    from alice_lab.approximation import bin_fn

    a, s, d, w = 0.8, 0.5, 0.2, 1e4
    x = np.linspace(0.0, 1.0, 100_001)
    lo, hi = s - d / 2, s + d / 2
    box = a * (np.heaviside(x - lo, 0.5) - np.heaviside(x - hi, 0.5))
    f = bin_fn(x, a, s, d, w)
    far = np.minimum(np.abs(x - lo), np.abs(x - hi)) >= 1e-3 - 1e-12
    err = np.abs(f - box)[far].max()
    assert err <= 2 * a * expit(-10.0), f"error away from the edges {err:.2e}"
    edges = bin_fn(np.array([lo, hi]), a, s, d, w)
    assert _maxerr(edges, [a / 2, a / 2]) < 1e-12, f"edge values {edges}"
    inside, outside = (
        f[(x > lo + 1e-3) & (x < hi - 1e-3)],
        f[far & ((x < lo) | (x > hi))],
    )
    return (
        f"inside within {np.abs(inside - a).max():.1e} of a, outside within "
        f"{np.abs(outside).max():.1e} of 0, a/2 at the edges"
    )


@claim(
    "CB-09",
    section="B.2",
    lines=(7046, 7046),
    statement="Bins can be negative: a negative amplitude gives the mirror image, "
    "f(x; −a, s, Δ) = −f(x; a, s, Δ).",
    equation="Figure F.B.2",
)
def _cb_09() -> str:
    from alice_lab.approximation import bin_fn

    x = np.linspace(0.0, 1.0, 1001)
    pos, neg = bin_fn(x, 0.7, 0.4, 0.2), bin_fn(x, -0.7, 0.4, 0.2)
    assert np.array_equal(neg, -pos)
    inside = (x > 0.31) & (x < 0.49)
    assert np.all(neg[inside] < -0.7 + 1e-4), f"max inside {neg[inside].max()}"
    return f"inside the bin f ∈ [{neg[inside].min():.6f}, {neg[inside].max():.6f}]"


# =====================================================================================
# B.3 Approximating a generic function
# =====================================================================================


@claim(
    "CB-08",
    section="B.3",
    lines=(7060, 7060),
    statement="Bins on disjoint intervals do not interact: their sum equals each "
    "bin on its own interval (within 1e-4, more than 10⁻³ from the edges).",
)
def _cb_08() -> str:
    from alice_lab.approximation import bin_fn

    x = np.linspace(0.0, 1.0, 100_001)
    b1, b2 = bin_fn(x, 1.0, 0.3, 0.2), bin_fn(x, -0.5, 0.7, 0.1)
    total = b1 + b2
    edges = np.array([0.2, 0.4, 0.65, 0.75])
    far = np.abs(x[:, None] - edges[None, :]).min(axis=1) >= 1e-3 - 1e-12
    on1, on2 = far & (x < 0.5), far & (x >= 0.5)
    e1, e2 = _maxerr(total[on1], b1[on1]), _maxerr(total[on2], b2[on2])
    assert max(e1, e2) < 1e-4, f"interaction {e1:.1e}, {e2:.1e}"
    return f"max interaction away from edges: {max(e1, e2):.1e}"


@claim(
    "CB-10",
    section="B.3",
    lines=(7078, 7084),
    statement="Figure F.B.3: binning sin(x)/x on [0, 10] into m = 5, 15, 50 bins gives "
    "average squared errors of about 0.02, 0.002 and 0.00016 (bins centred on "
    "linspace(0, 10, m), heights the bin averages; measured 0.0218, 0.0020, 0.00016).",
    equation="Figure F.B.3",
)
def _cb_10() -> str:
    got = [_fig_b3_mse(m, n=100_001) for m in (5, 15, 50)]
    book = [0.02, 0.002, 0.00016]
    rel = [abs(g / b - 1) for g, b in zip(got, book, strict=True)]
    assert max(rel) < 0.15, f"MSE {got} vs the book's {book}"
    return "MSE " + ", ".join(f"{g:.2g}" for g in got) + " (book: 0.02, 0.002, 0.00016)"


@claim(
    "CB-11",
    section="B.3",
    lines=(7076, 7076),
    statement="The error can be made as small as wanted, and how small is predictable: "
    "for a differentiable g a staircase of bin averages has MSE ≈ Δ²/12 · mean(g′²), "
    "within 10% for sin(x)/x once m ≥ 50.",
)
def _cb_11() -> str:
    from alice_lab.approximation import bins

    mean_dg2 = _mean_dg2()
    ratios = {}
    for m in (50, 100, 200):
        _, delta = bins(m, DOMAIN, "linspace")
        predicted = delta**2 / 12 * mean_dg2
        ratios[m] = _fig_b3_mse(m) / predicted
        assert 0.9 < ratios[m] < 1.1, f"m={m}: measured/predicted = {ratios[m]:.3f}"
    return "measured / predicted: " + ", ".join(
        f"m={m}: {r:.3f}" for m, r in ratios.items()
    )


@claim(
    "CB-12",
    section="B.3",
    lines=(7064, 7064),
    statement="The more bins, the better: the MSE falls monotonically over "
    "m = 5, 10, 20, 50, 100.",
)
def _cb_12() -> str:
    errs = [_fig_b3_mse(m) for m in (5, 10, 20, 50, 100)]
    assert np.all(np.diff(errs) < 0), f"not decreasing: {errs}"
    return "MSE " + ", ".join(f"{e:.2e}" for e in errs)


@claim(
    "CB-13",
    section="B.3",
    lines=(7072, 7072),
    statement="The staircase is an ordinary one-hidden-layer network: a torch "
    "nn.Sequential(Linear(1, 2m), Sigmoid(), Linear(2m, 1, bias=False)) with the "
    "constructed weights computes the same function as the sum of bins.",
)
def _cb_13() -> str:
    import torch

    from alice_lab.approximation import bin_approximation, sin_over_x, torch_sequential

    approx = bin_approximation(sin_over_x, 15, domain=DOMAIN)
    x = np.linspace(0.0, 10.0, 10_001)
    bins_sum = np.zeros_like(x)
    for c, h in zip(approx.centers, approx.heights, strict=True):
        lo, hi = c - approx.delta / 2, c + approx.delta / 2
        bins_sum += h * (expit(approx.w * (x - lo)) - expit(approx.w * (x - hi)))
    model = torch_sequential(approx.weights())
    with torch.no_grad():
        net = model(torch.as_tensor(x)[:, None])[:, 0].numpy()
    err = _maxerr(net, bins_sum)
    assert err < 1e-9, f"network vs sum of bins: {err:.1e}"
    return f"m = 15, 30 hidden sigmoids: max |network − sum of bins| = {err:.0e}"


# =====================================================================================
# Errata
# =====================================================================================


@claim(
    "EB-01",
    section="B.3",
    lines=(7062, 7062),
    statement="Two bins are f(x; a₁, s₁, Δ₁) + f(x; a₂, s₂, Δ₂): the first term is "
    "centred at s₁; with s₂ in both terms the two bins pile up at s₂.",
    erratum="f(x) = f(x; a₁, s₂, Δ₁) + f(x; a₂, s₂, Δ₂)",
)
def _eb_01() -> str:
    from alice_lab.approximation import bin_fn

    a1, s1, d1, a2, s2, d2 = 1.0, 0.3, 0.2, -0.5, 0.7, 0.1
    probe = np.array([s1, s2])
    right = bin_fn(probe, a1, s1, d1) + bin_fn(probe, a2, s2, d2)
    printed = bin_fn(probe, a1, s2, d1) + bin_fn(probe, a2, s2, d2)
    assert _maxerr(right, [a1, a2]) < 1e-9, f"corrected form at s₁, s₂: {right}"
    assert abs(printed[0]) < 1e-9 and abs(printed[1] - (a1 + a2)) < 1e-9, printed
    return f"at (s₁, s₂): corrected {right.round(6)}, printed {printed.round(6)}"


@claim(
    "EB-02",
    section="B.3",
    lines=(7066, 7066),
    statement="Bins that tile [0, 1] are centred at (i − ½)/m; centred at i/m they "
    "cover [1/(2m), 1 + 1/(2m)], leaving [0, 1/(2m)) at zero.",
    erratum="B_i = [i/m − Δ/2, i/m + Δ/2], i = 1..m",
)
def _eb_02() -> str:
    from alice_lab.approximation import bin_approximation, mse_on_grid

    def one(x):
        return 0 * x + 1.0

    m = 10
    book = bin_approximation(one, m, convention="book")
    mid = bin_approximation(one, m, convention="mid")
    x = np.linspace(0.0, 1.0, 20_001)
    e_book, e_mid = mse_on_grid(book, one, (0, 1)), mse_on_grid(mid, one, (0, 1))
    assert abs(e_book / (1 / (2 * m)) - 1) < 0.02, f"book centres: MSE {e_book:.4f}"
    assert e_mid < 1e-4, f"centres (i − ½)/m: MSE {e_mid:.1e}"
    assert np.all(book(x[x < 1 / (2 * m) - 1e-3]) < 1e-4)  # the uncovered half bin
    return (
        f"g = 1, m = 10: MSE {e_book:.4f} (≈ 1/(2m)) with centres i/m, "
        f"{e_mid:.1e} with (i − ½)/m"
    )


@claim(
    "EB-03",
    section="B.3",
    lines=(7076, 7084),
    statement="The MSE of the staircase falls like 1/m², not like 1/m (the text) nor "
    "exponentially (the caption of Figure F.B.3): the log–log slope over "
    "m = 5..200 is −2 ± 0.2, and doubling m divides the error by about 4 at "
    "every m. The book's own three numbers give a slope of −2.1.",
    erratum="text: 'the MSE is inversely proportional to m'; caption of F.B.3: 'the "
    "average squared error … decreases exponentially'",
    equation="Figure F.B.3",
)
def _eb_03() -> str:
    from alice_lab.approximation import loglog_slope

    ms = [5, 10, 20, 50, 100, 200]
    errs = [_fig_b3_mse(m) for m in ms]
    slope = loglog_slope(ms, errs)
    assert abs(slope + 2) < 0.2, f"log-log slope {slope:.3f}"
    assert abs(slope + 1) > 0.5, "slope close to −1: 'inversely proportional' holds"
    # exponential decay e^{−cm} would make MSE(m)/MSE(2m) = e^{cm} grow with m
    ratios = [_fig_b3_mse(m) / _fig_b3_mse(2 * m) for m in (10, 25, 50, 100)]
    assert all(3.0 < r < 5.5 for r in ratios), f"MSE(m)/MSE(2m) = {ratios}"
    book = loglog_slope([5, 15, 50], [0.02, 0.002, 0.00016])
    assert abs(book + 2) < 0.2, f"book numbers slope {book:.2f}"
    return (
        f"slope {slope:.2f}; MSE(m)/MSE(2m) for m = 10, 25, 50, 100: "
        + ", ".join(f"{r:.1f}" for r in ratios)
        + f"; slope of the book's numbers {book:.2f}"
    )
