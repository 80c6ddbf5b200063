"""Checkable claims of Chapter 5, §5.1-§5.2.1: the limits of linear models, composition
and hidden layers, approximation (book lines 2196-2340).

Each check computes what the book states and compares it with something outside
``alice_lab``: NumPy, scikit-learn, PyTorch, JAX, a closed form, or a brute-force
search. Torch and JAX are imported inside the checks that use them.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _np, _rng

# =====================================================================================
# 5.1 The limitations of linear models
# =====================================================================================


@claim(
    "C5-01",
    section="5.1",
    lines=(2198, 2206),
    statement="For a bias-free linear model, doubling feature j changes the output by "
    "exactly w_j x_j, whatever the other features are.",
)
def _c5_01() -> str:
    from alice_lab.layers import fully_connected

    rng = _rng(501)
    w, X = rng.standard_normal(6), rng.standard_normal((200, 6))
    gaps = []
    for j in range(6):
        Xp = X.copy()
        Xp[:, j] *= 2.0  # x'_i = x_i for i != j, 2 x_j otherwise
        f = lambda Z: _np(fully_connected(Z, w[:, None], np.zeros(1), phi=None))[:, 0]
        change = f(Xp) - f(X)
        gaps.append(_maxerr(change, w[j] * X[:, j]))
        assert np.allclose(change, np.dot(Xp, w) - np.dot(X, w), rtol=1e-12)
    assert max(gaps) < 1e-12, f"f(x') - f(x) vs w_j x_j: {max(gaps):.1e}"
    return f"200 inputs, 6 features: max |f(x') − f(x) − w_j x_j| = {max(gaps):.0e}"


def income_rule(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(income, age) and label 1 for a "good" client: income >= 1500, unless the
    person is younger than 30, in which case any income is fine."""
    rng = _rng(seed)
    X = np.column_stack([rng.uniform(500, 2500, n), rng.uniform(18, 58, n)])
    y = ((X[:, 0] >= 1500) | (X[:, 1] < 30)).astype(int)
    return X, y


@claim(
    "C5-02",
    section="5.1",
    lines=(2206, 2206),
    statement="A rule such as 'an income of 1500 is low, except if the age is < 30' is "
    "beyond a linear model: logistic regression misclassifies part of the data, two "
    "hidden ReLU units get it all right.",
)
def _c5_02() -> str:
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    from alice_lab.layers import mlp_forward

    X, y = income_rule(4000, 502)
    Z = StandardScaler().fit_transform(X)
    lin = LogisticRegression(C=1e4, max_iter=2000).fit(Z, y).score(Z, y)
    # hidden units: relu((income - 1500)/100) and relu((30 - age)/1); output: their
    # sum minus a small margin is positive exactly when one of the two conditions holds
    params = [
        {"W": np.array([[0.01, 0.0], [0.0, -1.0]]), "b": np.array([-15.0, 30.0])},
        {"W": np.array([[1.0], [1.0]]), "b": np.array([-1e-9])},
    ]
    score = _np(mlp_forward(params, X))[:, 0]
    mlp = float(np.mean((score > 0) == (y == 1)))
    on_edge = (X[:, 0] == 1500) | (X[:, 1] == 30)
    assert not on_edge.any()
    assert lin < 0.95, f"logistic regression reached {lin:.3f}"
    assert mlp == 1.0, f"the two-unit MLP reached {mlp:.4f}"
    return f"logistic regression {lin:.3f} vs 2 hidden ReLUs {mlp:.3f} (4000 clients)"


XOR_X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
XOR_Y = np.array([0, 1, 1, 0])


def _best_linear_accuracy(X: np.ndarray, y: np.ndarray, n_dirs: int = 3600) -> float:
    """Brute force over lines: for every direction, every threshold between two
    consecutive projections, both orientations."""
    best = 0.0
    for theta in np.linspace(0, np.pi, n_dirs, endpoint=False):
        p = X @ np.array([np.cos(theta), np.sin(theta)])
        cuts = np.concatenate([[p.min() - 1], (np.sort(p)[1:] + np.sort(p)[:-1]) / 2])
        for t in cuts:
            acc = np.mean((p > t) == (y == 1))
            best = max(best, acc, 1 - acc)
    return float(best)


@claim(
    "C5-03",
    section="5.1",
    lines=(2208, 2214),
    statement="XOR is not linearly separable: the best line classifies 3 of the 4 "
    "points, logistic regression does no better, while an MLP with two hidden ReLU "
    "units reproduces XOR exactly.",
    equation="Figure F.5.1",
)
def _c5_03() -> str:
    from sklearn.linear_model import LogisticRegression

    from alice_lab.layers import mlp_forward

    best = _best_linear_accuracy(XOR_X, XOR_Y)
    assert best == 0.75, f"best line: {best}"
    lr = LogisticRegression(C=1e6, max_iter=5000).fit(XOR_X, XOR_Y).score(XOR_X, XOR_Y)
    assert lr <= 0.75, f"logistic regression: {lr}"
    params = [  # h = ReLU([x1 + x2, x1 + x2 - 1]), y = h1 - 2 h2
        {"W": np.ones((2, 2)), "b": np.array([0.0, -1.0])},
        {"W": np.array([[1.0], [-2.0]]), "b": np.zeros(1)},
    ]
    out = _np(mlp_forward(params, XOR_X))[:, 0]
    assert np.array_equal(out, XOR_Y.astype(float)), out
    return f"best line {best:.2f}, logistic regression {lr:.2f}, MLP {out.tolist()}"


# =====================================================================================
# 5.2 Composition and hidden layers
# =====================================================================================


@claim(
    "C5-04",
    section="5.2",
    lines=(2228, 2236),
    statement="Two linear projections collapse into one: w₂ᵀ(W₁x + b₁) + b₂ = Ax + c "
    "with A = w₂ᵀW₁, c = w₂ᵀb₁ + b₂; any chain of linear layers is one linear layer, "
    "of rank at most its narrowest width.",
    equation="E.5.1-E.5.2",
)
def _c5_04() -> str:
    import torch

    from alice_lab.layers import collapse_linear, mlp_forward, mlp_init

    rng = _rng(504)
    W1, b1, w2, b2 = (rng.standard_normal(s) for s in ((8, 5), 8, 8, ()))
    x = rng.standard_normal(5)
    A, c = w2 @ W1, w2 @ b1 + b2
    assert abs(w2 @ (W1 @ x + b1) + b2 - (A @ x + c)) < 1e-12
    params = mlp_init([5, 9, 2, 7, 4], seed=504, scheme="glorot")
    # non-zero biases (the initialiser's are zero), so that c = w₂ᵀb₁ + b₂ is tested
    params = [{**p, "b": rng.standard_normal(p["b"].shape)} for p in params]
    X = rng.standard_normal((50, 5))
    # reference: torch's Linear layers in sequence (torch stores W transposed)
    net = torch.nn.Sequential(
        *(torch.nn.Linear(*p["W"].shape).double() for p in params)
    )
    with torch.no_grad():
        for lin, p in zip(net, params, strict=True):
            lin.weight.copy_(torch.from_numpy(np.asarray(p["W"]).T))
            lin.bias.copy_(torch.from_numpy(np.asarray(p["b"])))
        ref = net(torch.from_numpy(X)).numpy()
    err_chain = _maxerr(mlp_forward(params, X, phi=None), ref)
    assert err_chain < 1e-12, err_chain
    one = collapse_linear(params)
    W_ref = np.linalg.multi_dot([np.asarray(p["W"]) for p in params])
    err = _maxerr(X @ _np(one["W"]) + _np(one["b"]), ref)
    assert _maxerr(one["W"], W_ref) < 1e-12 and err < 1e-12, err
    rank = np.linalg.matrix_rank(_np(one["W"]))
    assert rank == 2, f"rank {rank} (narrowest width 2)"
    return (
        f"4 linear layers = one (5, 4) layer (error {err:.0e} against torch's "
        f"Sequential), rank {rank}"
    )


@claim(
    "C5-05",
    section="5.2",
    lines=(2238, 2244),
    statement="A non-linearity between the projections prevents the collapse: two ReLU "
    "units give |x| = ReLU(x) + ReLU(−x) exactly, which no affine map can (the best "
    "least-squares line on [−1, 1] is off by up to 1/2).",
    equation="E.5.3-E.5.4",
)
def _c5_05() -> str:
    from alice_lab.layers import mlp_forward

    x = np.linspace(-1, 1, 2001)[:, None]
    params = [
        {"W": np.array([[1.0, -1.0]]), "b": np.zeros(2)},
        {"W": np.ones((2, 1)), "b": np.zeros(1)},
    ]
    net = _np(mlp_forward(params, x))[:, 0]
    assert _maxerr(net, np.abs(x[:, 0])) == 0.0
    design = np.column_stack([x[:, 0], np.ones(len(x))])
    coef, *_ = np.linalg.lstsq(design, np.abs(x[:, 0]), rcond=None)
    worst = np.abs(design @ coef - np.abs(x[:, 0])).max()
    assert abs(coef[0]) < 1e-12 and worst > 0.49, (coef, worst)
    return (
        f"ReLU net exact; best line {coef[1]:.3f} + {coef[0]:.0e}·x, off by {worst:.3f}"
    )


@claim(
    "C5-06",
    section="5.2",
    lines=(2246, 2250),
    statement="ReLU(s) = max(0, s) = s·𝕀[s ≥ 0], the same as torch.relu and "
    "jax.nn.relu.",
    equation="E.5.5",
)
def _c5_06() -> str:
    import jax
    import torch

    from alice_lab.activations import relu

    s = np.concatenate([np.linspace(-5, 5, 1001), [0.0, -0.0, 1e-300, -1e-300]])
    ours = _np(relu(s))
    assert np.array_equal(ours, np.maximum(0.0, s))
    assert np.array_equal(ours, s * (s >= 0))
    assert np.array_equal(ours, torch.relu(torch.tensor(s)).numpy())
    s32 = s.astype(np.float32)  # JAX computes in float32 unless x64 is switched on
    j = np.asarray(jax.nn.relu(jax.numpy.asarray(s32)), dtype=np.float32)
    assert np.array_equal(j, np.maximum(s32, 0)) and np.array_equal(j, _np(relu(s32)))
    return "identical on 1005 points, torch.relu and jax.nn.relu included"


@claim(
    "C5-07",
    section="5.2",
    lines=(2262, 2312),
    statement="An FC layer maps (n, c) to (n, c′) with (c + 1)c′ parameters: 20 for "
    "FC(3, 5), 24 for FC(5, 4), and nn.Sequential of the two has 44 and maps (n, 3) "
    "to (n, 4).",
    equation="E.5.7",
)
def _c5_07() -> str:
    import torch

    from alice_lab.layers import FullyConnectedLayer, fc_param_count

    l1, l2 = FullyConnectedLayer(3, 5, seed=0), FullyConnectedLayer(5, 4, seed=1)
    counts = [sum(p.numel() for p in m.parameters()) for m in (l1, l2)]
    assert counts == [fc_param_count(3, 5), fc_param_count(5, 4)] == [20, 24], counts
    model = torch.nn.Sequential(l1, l2)
    total = sum(p.numel() for p in model.parameters())
    out = model(torch.randn(7, 3))
    assert total == 44 and tuple(out.shape) == (7, 4), (total, out.shape)
    assert tuple(l1(torch.randn(7, 3)).shape) == (7, 5)
    return (
        f"parameters {counts[0]} + {counts[1]} = {total}; (7, 3) -> {tuple(out.shape)}"
    )


@claim(
    "C5-08",
    section="5.2",
    lines=(2292, 2312),
    statement="Box 5.1 applies the ReLU in every layer, the last one included, so the "
    "model of the Sequential snippet only outputs values ≥ 0 (an output layer "
    "normally has no φ).",
)
def _c5_08() -> str:
    import torch

    from alice_lab.layers import FullyConnectedLayer

    torch.manual_seed(508)
    model = torch.nn.Sequential(
        FullyConnectedLayer(3, 5, seed=2), FullyConnectedLayer(5, 4, seed=3)
    )
    with torch.no_grad():
        out = model(torch.randn(2000, 3)).numpy()
    zeros = float(np.mean(out == 0))
    assert out.min() >= 0.0 and zeros > 0.05, (out.min(), zeros)
    return f"min output {out.min():.1f}; {zeros:.0%} of the outputs are exactly 0"


@claim(
    "C5-09",
    section="5.2",
    lines=(2282, 2290),
    statement="With Box 5.1's torch.randn initialisation and standard-normal inputs, "
    "the pre-activation variance grows like the input width c (var(xW) ≈ c); a "
    "1/c-scaled (LeCun) initialisation keeps it ≈ 1.",
)
def _c5_09() -> str:
    import torch

    from alice_lab.layers import fc_init

    g = torch.Generator().manual_seed(509)
    found = {}
    for c in (16, 64, 256):
        X = torch.randn(4000, c, generator=g, dtype=torch.float64)
        W = torch.randn(c, 64, generator=g, dtype=torch.float64)  # as in Box 5.1
        v = float((X @ W).var())
        assert abs(v / c - 1) < 0.1, f"c={c}: var {v:.1f}"
        Wl = torch.as_tensor(fc_init(c, 64, seed=c, scheme="lecun")["W"])
        vl = float((X @ Wl).var())
        assert abs(vl - 1) < 0.1, f"c={c}, LeCun: var {vl:.3f}"
        found[c] = (v, vl)
    return "; ".join(f"c={c}: {v:.1f} (LeCun {vl:.2f})" for c, (v, vl) in found.items())


@claim(
    "C5-10",
    section="5.2",
    lines=(2314, 2314),
    statement="A model has the signature of a layer: a Sequential can be used as a "
    "layer of a bigger model, and the parameters are collected through the nesting.",
)
def _c5_10() -> str:
    import torch

    from alice_lab.layers import FullyConnected, FullyConnectedLayer, Sequential

    inner = torch.nn.Sequential(FullyConnectedLayer(3, 5), FullyConnectedLayer(5, 4))
    outer = torch.nn.Sequential(inner, FullyConnectedLayer(4, 2))
    x = torch.randn(6, 3)
    n_t = sum(p.numel() for p in outer.parameters())
    assert n_t == 44 + 10 and torch.equal(outer(x), outer[1](inner(x)))
    ours = Sequential(Sequential(FullyConnected(3, 5), FullyConnected(5, 4)),
                      FullyConnected(4, 2))  # fmt: skip
    X = x.double().numpy()
    assert ours.n_params == 54 and np.array_equal(ours(X), ours[1](ours[0](X)))
    return (
        f"nested torch model: {n_t} parameters; alice_lab Sequential: {ours.n_params}"
    )


# =====================================================================================
# 5.2.1 Approximation properties of MLPs
# =====================================================================================


def train_moons(seed: int, steps: int = 400):
    from alice_lab.data import make_moons
    from alice_lab.layers import mlp_init, mlp_value_and_grad
    from alice_lab.optim import sgd_step

    X, y = make_moons(200, noise=0.1, seed=0)
    params = mlp_init([2, 8, 2], seed=seed)
    for _ in range(steps):
        _, g = mlp_value_and_grad(params, X, y)
        params = sgd_step(params, g, lr=0.5)
    return params, X, y


@claim(
    "C5-11",
    section="5.2.1",
    lines=(2318, 2324),
    statement="Training an MLP is non-convex: permuting the hidden units gives a "
    "different parameter vector with the same function and loss, yet the midpoint of "
    "the two has a strictly higher loss; different seeds end at different parameters.",
)
def _c5_11() -> str:
    from alice_lab.layers import mlp_forward, mlp_value_and_grad

    params, X, y = train_moons(seed=0)
    perm = _rng(511).permutation(8)
    swapped = [
        {"W": params[0]["W"][:, perm], "b": params[0]["b"][perm]},
        {"W": params[1]["W"][perm], "b": params[1]["b"]},
    ]
    assert _maxerr(mlp_forward(params, X), mlp_forward(swapped, X)) < 1e-12
    loss = lambda p: float(mlp_value_and_grad(p, X, y)[0])
    mid = [
        {k: (a[k] + b[k]) / 2 for k in a} for a, b in zip(params, swapped, strict=True)
    ]
    l0, lm = loss(params), loss(mid)
    assert lm > l0 + 1e-3, f"loss {l0:.4f}, midpoint {lm:.4f}"
    other, _, _ = train_moons(seed=1)
    gap = _maxerr(np.sort(other[0]["b"]), np.sort(params[0]["b"]))
    assert gap > 1e-2, gap
    return f"loss {l0:.4f} at θ and at its permutation, {lm:.4f} at the midpoint"


@claim(
    "C5-12",
    section="5.2.1",
    lines=(2326, 2336),
    statement="Universal approximation, made constructive in 1-D: a one-hidden-layer "
    "sigmoid MLP of N soft steps approximates sin(2πx) on [0, 1] with a sup error that "
    "shrinks as N grows (below 0.01 at N = 200), but only on that compact domain.",
)
def _c5_12() -> str:
    from scipy.special import expit

    from alice_lab.layers import mlp_forward, sigmoid_staircase

    g = lambda x: np.sin(2 * np.pi * x)
    xs = np.linspace(0, 1, 5001)
    errs = {}
    for N in (10, 50, 200):
        f = _np(mlp_forward(sigmoid_staircase(g, N), xs[:, None], phi="sigmoid"))[:, 0]
        k = np.arange(1, N + 1)  # the same sum, written with SciPy's sigmoid
        ref = g(0) + (
            np.diff(g(np.linspace(0, 1, N + 1)))
            * expit(10 * N * (xs[:, None] - (k - 0.5) / N))
        ).sum(1)
        assert _maxerr(f, ref) < 1e-10
        errs[N] = float(np.abs(f - g(xs)).max())
    assert errs[10] > errs[50] > errs[200] and errs[200] < 0.01, errs
    outside = np.linspace(1.2, 2.0, 101)
    f_out = _np(mlp_forward(sigmoid_staircase(g, 200), outside[:, None], "sigmoid"))
    far = float(np.abs(f_out[:, 0] - g(outside)).max())
    assert far > 0.9, far
    return (
        ", ".join(f"N={N}: {e:.4f}" for N, e in errs.items()) + f"; outside: {far:.2f}"
    )


@claim(
    "C5-13",
    section="5.2.1",
    lines=(2338, 2338),
    statement="Over-parameterised MLPs can fit their training data exactly: 20 random "
    "targets are fitted to near-zero error by a net with 321 parameters.",
)
def _c5_13() -> str:
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny model: threads only add overhead
    torch.manual_seed(513)
    X = torch.randn(20, 3, dtype=torch.float64)
    y = torch.randn(20, 1, dtype=torch.float64)
    model = torch.nn.Sequential(
        torch.nn.Linear(3, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1)
    ).double()
    opt = torch.optim.Adam(model.parameters(), lr=2e-2)
    try:
        for _ in range(300):
            opt.zero_grad()
            loss = torch.mean((model(X) - y) ** 2)
            loss.backward()
            opt.step()
    finally:
        torch.set_num_threads(threads)
    n_params = sum(p.numel() for p in model.parameters())
    final = torch.mean((model(X) - y) ** 2).item()
    assert final < 1e-3, f"training MSE {final:.2e}"
    return f"{n_params} parameters, 20 points: training MSE {final:.1e}"
