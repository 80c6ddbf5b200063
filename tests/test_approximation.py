"""Appendix B's construction against references outside it: SciPy's ``expit`` and
``quad``, hand-written sums, ``torch.nn.Sequential`` with the constructed weights, the
book's Figure F.B.3 numbers, and parity over every array backend."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import expit

from alice_lab import approximation as ap

DOMAIN = (0.0, 10.0)


def staircase_by_hand(x, centers, delta, heights, w):
    """E.B.3 with SciPy's sigmoid, one bin after the other."""
    out = np.zeros_like(x)
    for c, h in zip(centers, heights, strict=True):
        out += h * (expit(w * (x - c + delta / 2)) - expit(w * (x - c - delta / 2)))
    return out


def random_staircase(rng, m=7, w=50.0):
    centers = np.sort(rng.uniform(0, 10, m))
    return centers, 0.8, rng.normal(size=m), w


# --- one neuron, one bin ------------------------------------------------------------


def test_sigmoid_matches_expit_without_overflow():
    x = np.concatenate([np.linspace(-800, 800, 1601), [-1e300, 1e300, 0.0]])
    with np.errstate(over="raise"):
        got = ap.sigmoid(x)
    np.testing.assert_allclose(got, expit(x), rtol=1e-15, atol=1e-300)  # subnormals
    assert got[-3] == 0.0 and got[-2] == 1.0 and got[-1] == 0.5


def test_neuron_is_the_books_first_form_with_bias_minus_ws(rng):
    x = rng.uniform(-2, 2, 50)
    for a, w, s in [(1.0, 3.0, 0.3), (-2.5, 40.0, -0.7), (0.5, 1e4, 1.1)]:
        np.testing.assert_allclose(
            ap.neuron(x, a, w, s), a * expit(w * x + (-w * s)), rtol=1e-12, atol=1e-15
        )


def test_neuron_tends_to_the_step():
    x = np.array([0.3 - 1e-3, 0.3, 0.3 + 1e-3])
    errs = [
        np.abs(ap.neuron(x, 2.0, w, 0.3) - ap.step(x, 2.0, 0.3)).max()
        for w in (1e2, 1e3, 1e4, 1e5)
    ]
    assert errs == sorted(errs, reverse=True)
    assert errs[2] == pytest.approx(2.0 * expit(-10.0), rel=1e-6)  # a σ(-w·1e-3)
    assert ap.step(x, 2.0, 0.3).tolist() == [0.0, 1.0, 2.0]


def test_bin_is_two_opposite_neurons_and_tends_to_the_box(rng):
    x = rng.uniform(0, 1, 200)
    a, s, d, w = -1.7, 0.45, 0.2, 300.0
    want = a * expit(w * (x - (s - d / 2))) - a * expit(w * (x - (s + d / 2)))
    np.testing.assert_allclose(ap.bin_fn(x, a, s, d, w), want, rtol=1e-12, atol=1e-15)
    far = np.abs(np.abs(x - s) - d / 2) > 1e-2  # not within 1e-2 of an edge
    np.testing.assert_allclose(
        ap.bin_fn(x, a, s, d, 1e6)[far], ap.box(x, a, s, d)[far], atol=1e-12
    )
    edges = np.array([s - d / 2, s + d / 2])
    np.testing.assert_allclose(ap.box(edges, a, s, d), [a / 2, a / 2])
    np.testing.assert_allclose(
        ap.bin_fn(edges, a, s, d, 1e6), [a / 2, a / 2], atol=1e-9
    )


# --- bins and heights ---------------------------------------------------------------


def test_bin_conventions():
    c, d = ap.bins(5, DOMAIN, "mid")
    assert d == 2.0 and c.tolist() == [1.0, 3.0, 5.0, 7.0, 9.0]
    assert c[0] - d / 2 == 0.0 and c[-1] + d / 2 == 10.0  # tiles the domain
    c, d = ap.bins(5, DOMAIN, "linspace")
    assert d == 2.5 and c.tolist() == [0.0, 2.5, 5.0, 7.5, 10.0]
    c, d = ap.bins(4, (0.0, 1.0), "book")  # centres i/m: [1/8, 9/8] is covered
    assert d == 0.25 and c.tolist() == [0.25, 0.5, 0.75, 1.0]
    assert (c[0] - d / 2, c[-1] + d / 2) == (0.125, 1.125)


def test_bin_averages_match_scipy_quad():
    for conv in ap.CONVENTIONS:
        c, d = ap.bins(9, DOMAIN, conv)
        got = ap.bin_averages(ap.sin_over_x, c, d)
        want = [
            quad(lambda t: np.sinc(t / np.pi), ci - d / 2, ci + d / 2)[0] / d
            for ci in c
        ]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    c, d = ap.bins(3, (0.0, 1.0), "mid")
    np.testing.assert_allclose(
        ap.bin_averages(np.exp, c, d),
        (np.exp(c + d / 2) - np.exp(c - d / 2)) / d,
        rtol=1e-14,
    )


def test_sin_over_x_is_numpys_sinc_rescaled():
    x = np.linspace(-20, 20, 4001)  # includes 0
    np.testing.assert_allclose(ap.sin_over_x(x), np.sinc(x / np.pi), atol=1e-15)


# --- the staircase: step sum vs network ----------------------------------------------


def test_staircase_matches_the_hand_sum(rng):
    c, d, h, w = random_staircase(rng)
    x = np.linspace(-1, 11, 1201)
    np.testing.assert_allclose(
        ap.staircase(x, c, d, h, w),
        staircase_by_hand(x, c, d, h, w),
        rtol=1e-12,
        atol=1e-14,
    )


@pytest.mark.parametrize("w", [5.0, 50.0, 1e4])
def test_network_form_equals_the_step_sum(rng, w):
    c, d, h, _ = random_staircase(rng, m=11)
    p = ap.mlp_weights(c, d, h, w)
    assert p.W1.shape == (1, 22) and p.b1.shape == (22,) and p.W2.shape == (22, 1)
    assert p.hidden_units == 22 and p.n_params == 6 * 11
    x = np.linspace(-1, 11, 2001)
    np.testing.assert_allclose(
        ap.staircase_forward(x, p.W1, p.b1, p.W2),
        ap.staircase(x, c, d, h, w),
        rtol=0,
        atol=1e-10,
    )


def test_torch_sequential_with_the_weights_is_the_staircase():
    import torch

    s = ap.bin_approximation(ap.sin_over_x, 15, domain=DOMAIN)
    p = s.weights()
    x = np.linspace(0, 10, 5001)
    want = staircase_by_hand(x, s.centers, s.delta, s.heights, s.w)

    # built independently here, with torch's own layers and (out, in) layout
    hand = torch.nn.Sequential(
        torch.nn.Linear(1, 30, dtype=torch.float64),
        torch.nn.Sigmoid(),
        torch.nn.Linear(30, 1, bias=False, dtype=torch.float64),
    )
    with torch.no_grad():
        hand[0].weight.copy_(torch.as_tensor(p.W1).T)
        hand[0].bias.copy_(torch.as_tensor(p.b1))
        hand[2].weight.copy_(torch.as_tensor(p.W2).T)
    assert sum(q.numel() for q in hand.parameters()) == 6 * 15
    xt = torch.as_tensor(x)[:, None]
    with torch.no_grad():
        np.testing.assert_allclose(hand(xt)[:, 0].numpy(), want, atol=1e-9)
        model = ap.torch_sequential(p)
        np.testing.assert_allclose(model(xt)[:, 0].numpy(), want, atol=1e-9)
        # float32: w x + b cancels two numbers near 1e5, so near the edges the
        # argument of σ is off by up to ~1e-2 and σ' <= 1/4; away from them all agree
        out32 = ap.torch_sequential(p, dtype=torch.float32)(xt.float())[:, 0].double()
    err32 = np.abs(out32.numpy() - want)
    edges = np.concatenate([s.centers - s.delta / 2, s.centers + s.delta / 2])
    far = np.abs(x[:, None] - edges[None, :]).min(axis=1) > 5e-3
    assert err32[far].max() < 1e-5
    assert err32.max() < 5e-3


def test_gradients_flow_to_the_heights():
    import torch

    c, d = ap.bins(4, (0.0, 1.0), "mid")
    h = torch.tensor([0.5, -1.0, 2.0, 0.25], dtype=torch.float64, requires_grad=True)
    x = torch.linspace(0, 1, 101, dtype=torch.float64)
    ap.staircase(x, c, d, h, 1e3).sum().backward()
    # ∂/∂g_i Σ_j f(x_j) = Σ_j bin_i(x_j)
    want = [float(ap.bin_fn(x.numpy(), 1.0, ci, d, 1e3).sum()) for ci in c]
    np.testing.assert_allclose(h.grad.numpy(), want, rtol=1e-12)


# --- Figure F.B.3 and the error rate --------------------------------------------------


def test_figure_b3_numbers():
    got = [
        ap.mse_on_grid(
            ap.bin_approximation(ap.sin_over_x, m, domain=DOMAIN),
            ap.sin_over_x,
            DOMAIN,
            n=20_001,
        )
        for m in (5, 15, 50)
    ]
    np.testing.assert_allclose(got, [0.02, 0.002, 0.00016], rtol=0.15)
    np.testing.assert_allclose(got, [0.0218, 0.0020, 0.00016], rtol=0.03)


def test_rate_is_one_over_m_squared_for_smooth_g_and_one_over_m_for_a_jump():
    ms = [5, 10, 20, 50, 100]

    def errors(g):
        return [
            ap.mse_on_grid(
                ap.bin_approximation(g, m, domain=DOMAIN), g, DOMAIN, n=20_001
            )
            for m in ms
        ]

    smooth = errors(ap.sin_over_x)
    assert np.all(np.diff(smooth) < 0)
    assert ap.loglog_slope(ms, smooth) == pytest.approx(-2.0, abs=0.2)
    jump = errors(lambda x: ap.step(x, 1.0, 10 / 3))
    assert ap.loglog_slope(ms, jump) == pytest.approx(-1.0, abs=0.25)


def test_mse_on_grid_is_a_riemann_average():
    # f - g = x on [0, 1] with n points: mean of (k/(n-1))^2 = (2n - 1) / (6(n - 1))
    n = 101
    got = ap.mse_on_grid(lambda x: x, lambda x: 0 * x, (0.0, 1.0), n=n)
    assert got == pytest.approx((2 * n - 1) / (6 * (n - 1)), rel=1e-12)


def test_loglog_slope_and_hidden_units():
    ms = np.array([3.0, 7.0, 30.0])
    assert ap.loglog_slope(ms, 5.0 * ms**-1.5) == pytest.approx(-1.5, abs=1e-12)
    assert [ap.hidden_units(10, d) for d in range(1, 4)] == [20, 200, 2000]


# --- parity over backends ------------------------------------------------------------


def test_parity_over_backends(backend, rng):
    c, d, h, w = random_staircase(rng, m=6, w=80.0)
    xh = np.linspace(-0.5, 10.5, 301)
    x = backend.asarray(xh)
    p = ap.mlp_weights(c, d, h, w)
    outs = {
        "sigmoid": (ap.sigmoid(x * 40.0), expit(xh * 40.0)),
        "neuron": (ap.neuron(x, 1.5, 7.0, 5.0), 1.5 * expit(7.0 * (xh - 5.0))),
        "bin": (ap.bin_fn(x, 2.0, 5.0, 1.0, 30.0), ap.bin_fn(xh, 2.0, 5.0, 1.0, 30.0)),
        "staircase": (ap.staircase(x, c, d, h, w), staircase_by_hand(xh, c, d, h, w)),
        "network": (
            ap.staircase_forward(x, p.W1, p.b1, p.W2),
            staircase_by_hand(xh, c, d, h, w),
        ),
        "sin_over_x": (ap.sin_over_x(x), np.sinc(xh / np.pi)),
        "step": (ap.step(x, 1.0, 5.0), np.heaviside(xh - 5.0, 0.5)),
    }
    for name, (got, want) in outs.items():
        assert type(got) is type(x), name
        assert got.dtype == x.dtype, name
        np.testing.assert_allclose(
            backend.to_numpy(got), want, atol=1e-12, err_msg=name
        )
    cb = backend.asarray(c)
    avg = ap.bin_averages(ap.sin_over_x, cb, 0.5)
    assert type(avg) is type(x)
    np.testing.assert_allclose(
        backend.to_numpy(avg), ap.bin_averages(ap.sin_over_x, c, 0.5), atol=1e-14
    )
    g = ap.mse_on_grid(ap.sin_over_x, lambda t: 0 * t, DOMAIN, n=101, like=x)
    assert g == pytest.approx(
        ap.mse_on_grid(ap.sin_over_x, lambda t: 0 * t, DOMAIN, n=101), rel=1e-12
    )


def test_staircase_under_jax_jit():
    import jax
    import jax.numpy as jnp

    s = ap.bin_approximation(ap.sin_over_x, 12, domain=DOMAIN, convention="mid")
    x = jnp.linspace(0.0, 10.0, 501, dtype=jnp.float64)
    got = jax.jit(s)(x)
    np.testing.assert_allclose(
        np.asarray(got),
        staircase_by_hand(np.asarray(x), s.centers, s.delta, s.heights, s.w),
        atol=1e-12,
    )


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: ap.bins(0, DOMAIN), r"m must be an int >= 1 .*; got 0"),
        (lambda: ap.bins(1, DOMAIN, "linspace"), r"needs m >= 2"),
        (lambda: ap.bins(3.0, DOMAIN), r"m must be an int"),
        (lambda: ap.bins(3, (1.0, 0.0)), r"lo < hi"),
        (lambda: ap.bins(3, DOMAIN, "edges"), r"convention must be one of"),
        (lambda: ap.bin_fn(0.5, 1.0, 0.5, 0.0), r"delta must be a finite number > 0"),
        (lambda: ap.neuron(0.5, 1.0, float("nan"), 0.0), r"w must be a finite number"),
        (
            lambda: ap.sigmoid(np.ones(3, dtype=complex)),
            r"s must be a real \(integer or floating\) array; got dtype complex128",
        ),
        (
            lambda: ap.staircase(np.zeros(3), [0.5, 1.5], 1.0, [1.0]),
            r"heights must have shape \(2,\); got \(1,\)",
        ),
        (
            lambda: ap.staircase_forward(
                np.zeros((3, 1)), np.ones((1, 2)), np.ones(2), np.ones((2, 1))
            ),
            r"x must have shape \(N,\)",
        ),
        (
            lambda: ap.staircase_forward(
                np.zeros(3), np.ones((2, 1)), np.ones(2), np.ones((2, 1))
            ),
            r"W1 must have shape \(1, 2\); got \(2, 1\)",
        ),
        (
            lambda: ap.mse(np.zeros(3), np.zeros(4)),
            r"same shape; got \(3,\) and \(4,\)",
        ),
        (lambda: ap.loglog_slope([1, 2], [1.0, 0.0]), r"positive"),
        (lambda: ap.hidden_units(10, 0), r"d must be an int >= 1"),
        (
            lambda: ap.bin_approximation(
                lambda t: np.where(t < 0, np.nan, t), 5, domain=DOMAIN
            ),
            r"heights g_i .* contains NaN",
        ),
        (
            lambda: ap.bin_approximation(np.sin, 5, heights="median"),
            r"heights must be 'average' or 'center'",
        ),
        (
            lambda: ap.bin_averages(lambda t: t[:, 0], np.array([0.5]), 1.0),
            r"g must map an \(m, q\) array to the same shape",
        ),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()
