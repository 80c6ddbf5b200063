"""Activations of §5.4: values against independent formulas (SciPy, NumPy) on every
backend, derivatives against finite differences, torch.autograd and jax.grad, and the
frameworks' own kernels (torch.nn.functional, jax.nn) where they have one."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.special as sp

from alice_lab import activations as A

S = np.concatenate([np.linspace(-6.0, 6.0, 241), [-40.0, -0.3, 1e-9, -1e-9, 0.7, 35.0]])
S_SMOOTH = S[np.abs(S) > 1e-3]  # away from the kinks at 0


def _phi(s):
    return 0.5 * sp.erfc(-s / math.sqrt(2.0))


#: name -> (our call, an independent reference on NumPy)
REFERENCES = {
    "relu": (A.relu, lambda s: np.maximum(s, 0.0)),
    "heaviside": (A.heaviside, lambda s: np.heaviside(s, 1.0)),
    "leaky_relu": (
        lambda s: A.leaky_relu(s, 0.1),
        lambda s: np.where(s >= 0, s, 0.1 * s),
    ),
    "sigmoid": (A.sigmoid, sp.expit),
    "sigmoid_slope": (lambda s: A.sigmoid(s, 7.0), lambda s: sp.expit(7.0 * s)),
    "tanh": (A.tanh, np.tanh),
    "softplus": (A.softplus, lambda s: np.logaddexp(0.0, s)),
    "elu": (A.elu, lambda s: np.where(s >= 0, s, np.expm1(np.minimum(s, 0)))),
    "elu_alpha": (
        lambda s: A.elu(s, 0.5),
        lambda s: np.where(s >= 0, s, 0.5 * np.expm1(np.minimum(s, 0))),
    ),
    "gelu": (A.gelu, lambda s: s * _phi(s)),
    "gelu_tanh": (
        lambda s: A.gelu(s, approximate=True),
        lambda s: 0.5 * s * (1 + np.tanh(np.sqrt(2 / np.pi) * (s + 0.044715 * s**3))),
    ),
    "silu": (A.silu, lambda s: s * sp.expit(s)),
    "swish2": (lambda s: A.swish(s, 2.0), lambda s: s * sp.expit(2.0 * s)),
    "poly3": (lambda s: A.polynomial(s, 3), lambda s: s**3),
    "normal_cdf": (A.normal_cdf, _phi),
    "erfc": (A.erfc, sp.erfc),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_values_match_reference_on_every_backend(name, backend):
    ours, ref = REFERENCES[name]
    s = backend.asarray(S)
    out = ours(s)
    assert type(out) is type(s) and out.dtype == s.dtype and out.shape == s.shape
    np.testing.assert_allclose(backend.to_numpy(out), ref(S), rtol=1e-13, atol=1e-14)


def test_erfc_is_accurate_over_the_whole_line():
    x = np.linspace(-8.0, 27.0, 20001)
    np.testing.assert_allclose(A.erfc(x), sp.erfc(x), rtol=5e-13, atol=1e-15)
    ours = A.normal_cdf(-x[x > 0])  # the lower tail keeps full relative precision
    np.testing.assert_allclose(ours, sp.ndtr(-x[x > 0]), rtol=5e-13, atol=1e-300)


# --- derivatives -------------------------------------------------------------------

GRADS = {
    "relu": (A.relu, A.relu_grad),
    "heaviside": (A.heaviside, A.heaviside_grad),
    "leaky_relu": (lambda s: A.leaky_relu(s, 0.2), lambda s: A.leaky_relu_grad(s, 0.2)),
    "sigmoid": (lambda s: A.sigmoid(s, 3.0), lambda s: A.sigmoid_grad(s, 3.0)),
    "tanh": (A.tanh, A.tanh_grad),
    "softplus": (A.softplus, A.softplus_grad),
    "elu": (lambda s: A.elu(s, 0.7), lambda s: A.elu_grad(s, 0.7)),
    "gelu": (A.gelu, A.gelu_grad),
    "silu": (A.silu, A.silu_grad),
    "poly": (lambda s: A.polynomial(s, 4), lambda s: A.polynomial_grad(s, 4)),
    "poly1": (lambda s: A.polynomial(s, 1), lambda s: A.polynomial_grad(s, 1)),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_derivative_matches_finite_differences(name):
    f, df = GRADS[name]
    s = S_SMOOTH[np.abs(S_SMOOTH) < 10]
    h = 1e-6
    fd = (f(s + h) - f(s - h)) / (2 * h)
    np.testing.assert_allclose(df(s), fd, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(GRADS))
def test_derivative_matches_torch_autograd_of_our_forward(name):
    torch = pytest.importorskip("torch")
    f, df = GRADS[name]
    s = torch.tensor(S, requires_grad=True)
    (g,) = torch.autograd.grad(f(s).sum(), s, allow_unused=True, materialize_grads=True)
    # at exactly 0 the kinks follow our conventions; autograd of the forward agrees
    np.testing.assert_allclose(g.numpy(), df(S), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(GRADS))
def test_derivative_matches_jax_grad_of_our_forward(name):
    jax = pytest.importorskip("jax")
    f, df = GRADS[name]
    g = jax.vmap(jax.grad(lambda x: f(x)))(jax.numpy.asarray(S))
    np.testing.assert_allclose(np.asarray(g), df(S), rtol=1e-12, atol=1e-14)


def test_jit_compiles_the_stable_formulas():
    jax = pytest.importorskip("jax")
    s = jax.numpy.asarray(S)
    for f in (A.gelu, A.softplus, A.sigmoid, A.elu, A.relu, A.silu):
        np.testing.assert_allclose(np.asarray(jax.jit(f)(s)), f(S), rtol=1e-13, atol=0)


# --- the frameworks' own activation kernels ---------------------------------------


def test_matches_torch_nn_functional():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    s = torch.tensor(S)
    pairs = {
        "relu": (A.relu(s), F.relu(s)),
        "leaky": (A.leaky_relu(s, 0.01), F.leaky_relu(s, 0.01)),
        "softplus": (A.softplus(s), F.softplus(s, threshold=1e6)),
        "elu": (A.elu(s), F.elu(s, alpha=1.0)),
        "elu_a": (A.elu(s, 0.3), F.elu(s, alpha=0.3)),
        "gelu": (A.gelu(s), F.gelu(s, approximate="none")),
        "gelu_tanh": (A.gelu(s, approximate=True), F.gelu(s, approximate="tanh")),
        "silu": (A.silu(s), F.silu(s)),
        "sigmoid": (A.sigmoid(s), torch.sigmoid(s)),
        "tanh": (A.tanh(s), torch.tanh(s)),
        "heaviside": (
            A.heaviside(s),
            torch.heaviside(s, torch.tensor(1.0, dtype=s.dtype)),
        ),
    }
    for name, (ours, theirs) in pairs.items():
        np.testing.assert_allclose(
            ours.numpy(), theirs.numpy(), rtol=1e-13, atol=1e-15, err_msg=name
        )


def test_gradients_match_torch_kernels_away_from_kinks():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    s = torch.tensor(S_SMOOTH, requires_grad=True)
    for ours, theirs in [
        (A.leaky_relu_grad(S_SMOOTH, 0.01), F.leaky_relu(s, 0.01)),
        (A.softplus_grad(S_SMOOTH), F.softplus(s, threshold=1e6)),
        (A.elu_grad(S_SMOOTH), F.elu(s)),
        (A.gelu_grad(S_SMOOTH), F.gelu(s)),
        (A.silu_grad(S_SMOOTH), F.silu(s)),
        (A.relu_grad(S_SMOOTH), F.relu(s)),
    ]:
        (g,) = torch.autograd.grad(theirs.sum(), s)
        np.testing.assert_allclose(ours, g.numpy(), rtol=1e-12, atol=1e-14)


def test_relu_derivative_at_zero_is_zero_like_the_frameworks():
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    z = torch.zeros(1, requires_grad=True, dtype=torch.float64)
    (g,) = torch.autograd.grad(torch.relu(z).sum(), z)
    assert (
        float(g)
        == float(A.relu_grad(np.zeros(1))[0])
        == float(jax.grad(jax.nn.relu)(0.0))
        == 0.0
    )


def test_matches_jax_nn():
    jax = pytest.importorskip("jax")
    jnn = jax.nn
    s = jax.numpy.asarray(S)
    pairs = [
        (A.relu, jnn.relu),
        (lambda x: A.leaky_relu(x, 0.05), lambda x: jnn.leaky_relu(x, 0.05)),
        (A.softplus, jnn.softplus),
        (A.elu, jnn.elu),
        (A.gelu, lambda x: jnn.gelu(x, approximate=False)),
        (
            lambda x: A.gelu(x, approximate=True),
            lambda x: jnn.gelu(x, approximate=True),
        ),
        (A.silu, jnn.silu),
        (A.sigmoid, jnn.sigmoid),
    ]
    for ours, theirs in pairs:
        np.testing.assert_allclose(
            np.asarray(ours(s)), np.asarray(theirs(s)), rtol=1e-12, atol=1e-15
        )


# --- extremes, NaN, dtypes, bad input ---------------------------------------------


def test_no_overflow_and_limits_at_the_extremes():
    big = np.array([-1e300, -1000.0, 1000.0, 1e300])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert A.sigmoid(big).tolist() == [0.0, 0.0, 1.0, 1.0]
        assert A.softplus(big).tolist() == [0.0, 0.0, 1000.0, 1e300]
        assert A.elu(big).tolist() == [-1.0, -1.0, 1000.0, 1e300]
        assert A.gelu(np.array([-1000.0, 1000.0])).tolist() == [-0.0, 1000.0]
    f32 = np.array([-100.0, 100.0], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = A.softplus(f32)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.logaddexp(np.float32(0), f32), rtol=1e-6)


@pytest.mark.parametrize(
    "name",
    [
        "relu",
        "heaviside",
        "leaky_relu",
        "sigmoid",
        "tanh",
        "softplus",
        "elu",
        "gelu",
        "silu",
    ],
)
def test_nan_propagates_and_infinities_map_to_limits(name):
    f = A.get(name)
    out = f(np.array([np.nan, -np.inf, np.inf]))
    assert np.isnan(out[0])
    want = {"relu": (0, np.inf), "heaviside": (0, 1), "leaky_relu": (-np.inf, np.inf),
            "sigmoid": (0, 1), "tanh": (-1, 1), "softplus": (0, np.inf),
            "elu": (-1, np.inf), "silu": (0, np.inf)}  # fmt: skip
    if name in want:
        assert out[1:].tolist() == list(map(float, want[name]))


def test_bad_input_raises_value_error():
    assert A.relu(np.arange(-1, 2)).tolist() == [0.0, 0.0, 1.0]  # ints: cast
    with pytest.raises(ValueError, match="real .*complex"):
        A.relu(np.ones(3, dtype=complex))
    with pytest.raises(ValueError, match="positive int"):
        A.polynomial(np.ones(2), 0)
    with pytest.raises(ValueError, match=r"shape \(c',\) = \(3,\)"):
        A.prelu(np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="unknown activation"):
        A.get("reLU")
    with pytest.raises(ValueError, match="unknown activation"):
        A.get_grad("swishy")
    with pytest.raises(ValueError, match=r"W1 \(c, c'\)"):
        A.glu(np.ones((2, 3)), np.ones((3, 4)), np.ones((3, 5)))
    with pytest.raises(ValueError, match=r"\(c', n\) = \(3, 4\)"):
        A.kaf(np.ones((2, 3)), np.ones((2, 4)), np.linspace(-1, 1, 4), 1.0)
    with pytest.raises(ValueError, match=r"hinges must have shape \(n,\)"):
        A.apl(np.ones(3), np.ones(2), np.ones((2, 1)))


def test_lists_become_float64_and_identity_is_available():
    assert A.relu([-1, 2]).dtype == np.float64
    assert A.get("identity")(np.array([-2.0])).tolist() == [-2.0]
    assert A.get_grad("identity")(np.array([-2.0, 3.0])).tolist() == [1.0, 1.0]
    assert A.get(np.sin) is np.sin


# --- trainable activations ----------------------------------------------------------


def test_prelu_matches_torch_prelu_values_and_alpha_gradient(rng):
    torch = pytest.importorskip("torch")
    X = rng.standard_normal((50, 4))
    theirs = torch.nn.PReLU(num_parameters=4, init=0.2).double()
    ours = A.PReLU(num_parameters=4, init=0.2).double()
    x = torch.tensor(X)
    up = torch.tensor(rng.standard_normal((50, 4)))
    y1, y2 = ours(x), theirs(x)
    np.testing.assert_allclose(y1.detach().numpy(), y2.detach().numpy(), rtol=0, atol=0)
    (y1 * up).sum().backward()
    (y2 * up).sum().backward()
    np.testing.assert_allclose(
        ours.alpha.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-13
    )
    by_formula = (A.prelu_grad_alpha(X) * up.numpy()).sum(axis=0)
    np.testing.assert_allclose(ours.alpha.grad.numpy(), by_formula, rtol=1e-13)
    assert sum(p.numel() for p in ours.parameters()) == 4
    np.testing.assert_allclose(A.prelu(X, 0.2 * np.ones(4)), A.leaky_relu(X, 0.2))


def test_trainable_swish_special_cases_and_gradients(rng):
    torch = pytest.importorskip("torch")
    s = rng.standard_normal(100) * 3
    np.testing.assert_allclose(A.trainable_swish(s), A.silu(s), rtol=1e-15)
    np.testing.assert_allclose(
        A.trainable_swish(s, 2.5, 0, 1, 0), A.swish(s, 2.5), rtol=1e-15
    )
    np.testing.assert_allclose(A.trainable_swish(s, 1e4, 0, 1, 0), A.relu(s), atol=1e-6)
    a, b, c, d = (
        torch.tensor(v, dtype=torch.float64, requires_grad=True)
        for v in (0.7, -0.3, 1.4, 0.2)
    )
    x = torch.tensor(s, requires_grad=True)
    y = A.trainable_swish(x, a, b, c, d)
    grads = torch.autograd.grad(y.sum(), (x, a, b, c, d))
    ours = A.trainable_swish_grads(s, 0.7, -0.3, 1.4, 0.2)
    np.testing.assert_allclose(grads[0].numpy(), ours["s"], rtol=1e-12)
    for g, k in zip(grads[1:], "abcd", strict=True):
        np.testing.assert_allclose(float(g), ours[k].sum(), rtol=1e-12)
    module = A.TrainableSwish(num_parameters=3)
    assert sum(p.numel() for p in module.parameters()) == 12
    X = torch.tensor(rng.standard_normal((5, 3)))
    np.testing.assert_allclose(module(X).detach().numpy(), A.silu(X.numpy()), rtol=1e-6)


def test_apl_is_piecewise_linear_with_kinks_only_at_the_hinges(rng):
    hinges = np.array([-1.0, 0.5, 2.0])
    alpha = rng.standard_normal(3)
    s = np.linspace(-3, 3, 6001)
    y = A.apl(s, alpha, hinges)
    by_hand = sum(a * np.maximum(s - h, 0) for a, h in zip(alpha, hinges, strict=True))
    np.testing.assert_allclose(y, by_hand, rtol=1e-14, atol=1e-14)
    second = np.abs(np.diff(y, 2))
    kinks = s[1:-1][second > 1e-9]
    assert len(kinks) <= 2 * len(hinges)
    assert all(np.min(np.abs(hinges - k)) <= 1e-3 for k in kinks)
    per_unit = rng.standard_normal((2, 3))  # one set of coefficients per unit
    X = rng.standard_normal((4, 2))
    out = A.apl(X, per_unit, hinges)
    assert out.shape == (4, 2)
    np.testing.assert_allclose(
        out[:, 1], A.apl(X[:, 1], per_unit[1], hinges), rtol=1e-14
    )


def test_kaf_matches_its_formula_and_modules_match_generic(rng):
    torch = pytest.importorskip("torch")
    grid = np.linspace(-2, 2, 9)
    alpha = rng.standard_normal(9)
    s = rng.standard_normal(30)
    want = (alpha * np.exp(-2.0 * (s[:, None] - grid) ** 2)).sum(axis=1)
    np.testing.assert_allclose(A.kaf(s, alpha, grid, 2.0), want, rtol=1e-14)
    X = torch.tensor(rng.standard_normal((6, 3)))
    kaf = A.KAF(grid, num_units=3)
    assert kaf.gamma == pytest.approx(1 / (2 * 0.5**2))
    assert sum(p.numel() for p in kaf.parameters()) == 27
    np.testing.assert_allclose(
        kaf(X).detach().numpy(),
        A.kaf(X.numpy(), kaf.alpha.detach().numpy(), grid, kaf.gamma),
        rtol=1e-6,
    )
    apl = A.APL(np.array([-1.0, 0.0, 1.0]))
    assert sum(p.numel() for p in apl.parameters()) == 3
    apl(X).sum().backward()
    assert apl.alpha.grad is not None and apl.alpha.grad.shape == (3,)


def test_glu_and_swiglu_against_torch(rng):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    X, W1, W2 = (
        rng.standard_normal((7, 4)),
        rng.standard_normal((4, 3)),
        rng.standard_normal((4, 3)),
    )
    out = A.glu(X, W1, W2)
    assert out.shape == (7, 3)
    x = torch.tensor(X)
    h = torch.cat([x @ torch.tensor(W2), x @ torch.tensor(W1)], dim=-1)
    np.testing.assert_allclose(out, F.glu(h, dim=-1).numpy(), rtol=1e-13)
    np.testing.assert_allclose(
        A.swiglu(X, W1, W2),
        (F.silu(x @ torch.tensor(W1)) * (x @ torch.tensor(W2))).numpy(),
        rtol=1e-13,
    )
    for cls, fn in ((A.GLU, A.glu), (A.SwiGLU, A.swiglu)):
        m = cls(4, 3).double()
        assert sum(p.numel() for p in m.parameters()) == 2 * 4 * 3
        np.testing.assert_allclose(
            m(x).detach().numpy(),
            fn(X, m.W1.detach().numpy(), m.W2.detach().numpy()),
            rtol=1e-13,
        )


def test_glu_runs_on_every_backend(backend, rng):
    X, W1, W2 = (
        rng.standard_normal((5, 3)),
        rng.standard_normal((3, 2)),
        rng.standard_normal((3, 2)),
    )
    out = A.glu(*(backend.asarray(a) for a in (X, W1, W2)))
    np.testing.assert_allclose(
        backend.to_numpy(out), sp.expit(X @ W1) * (X @ W2), rtol=1e-13
    )


def test_torch_classes_are_built_lazily():
    import subprocess
    import sys

    code = (
        "import sys, alice_lab.activations, alice_lab.layers; "
        "print('torch' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
    with pytest.raises(AttributeError):
        A.NotAModule  # noqa: B018
