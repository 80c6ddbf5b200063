"""Bad input gets a clear error, and one rule for lists, integers and sizes.

Issue #17 (NaN/inf, non-integer sizes, causal attention with more queries than keys,
rank-deficient least squares) and issue #14 (one coercion rule, one size check, one
error for arrays of two libraries in one call). Every error is checked for its type
and for what its message says: the parameter, what was expected, what was got.
"""

from __future__ import annotations

import numpy as np
import pytest

from alice_course.widgets import (
    appA_mc_convergence as mc_convergence,
    ch05_xor_playground as xor_playground,
    ch06_ad_modes as ad_modes,
    ch08_causal_conv as causal_conv,
    ch11_kv_cache as kv_cache,
)
from alice_lab import (
    activations,
    approximation,
    calculus,
    functional,
    graphs,
    linalg,
    linear,
    losses,
    probability as P,
    risk,
    transformer,
)
from alice_lab.attention import (
    boolean_causal_mask,
    causal_mask,
    chunked_attention,
    scaled_dot_product_attention,
)
from alice_lab.attention.multihead import mha_init, multi_head_attention, split_heads
from alice_lab.autodiff import (
    gradient_flow,
    mlp as autodiff_mlp,
    subgradients,
    symbolic,
)
from alice_lab.backend import as_float_array, check_int
from alice_lab.calculus import grad_fd
from alice_lab.conv import conv2d
from alice_lab.graphs import diffusion, normalized_adjacency
from alice_lab.graphs.message_passing import segment_sum
from alice_lab.optim import gradient_descent
from alice_lab.recurrent.bptt import bptt_weight_jacobian
from alice_lab.recurrent.reservoir import esn_reservoir
from alice_lab.recurrent.scan import linear_recurrence
from alice_lab.recurrent.ssm import ssm_kernel
from alice_lab.risk import sample_linear
from alice_lab.sequence.decoding import exhaustive_search
from alice_lab.sequence.forecasting import autoregressive_rollout, generate_causal
from alice_lab.text.tokenizers import BPETokenizer, WordTokenizer

torch = pytest.importorskip("torch")

LIBS = ["numpy", "torch"]


def on(lib: str, a) -> object:
    """``a`` as a float64 array of ``lib`` (NumPy or torch, CPU)."""
    host = np.asarray(a, dtype=np.float64)
    return host if lib == "numpy" else torch.as_tensor(host)


def host(x) -> np.ndarray:
    return x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


# --- arrays of two libraries in one call ----------------------------------------------

TWO_LIBS = r"(torch\.Tensor and numpy\.ndarray|numpy\.ndarray and torch\.Tensor)"


def _mixed_calls():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((6, 3)), rng.standard_normal(6)
    Q, K, V = (rng.standard_normal((4, 2)) for _ in range(3))
    t = torch.as_tensor
    return {
        "least_squares(torch X, numpy y)": lambda: linear.least_squares(t(X), y),
        "least_squares(numpy X, torch y)": lambda: linear.least_squares(X, t(y)),
        "attention(torch Q, numpy K, V)": lambda: scaled_dot_product_attention(
            t(Q), K, V
        ),
        "chunked_attention(numpy Q, K, torch V)": lambda: chunked_attention(
            Q, K, t(V), chunk_size=2
        ),
        "cosine_similarity(torch, numpy)": lambda: linalg.cosine_similarity(t(y), y),
        "linear_recurrence(torch a, numpy b)": lambda: linear_recurrence(t(y), y),
    }


@pytest.mark.parametrize("call", list(_mixed_calls()))
def test_two_array_libraries_in_one_call_name_both_and_how_to_convert(call):
    with pytest.raises(TypeError, match=TWO_LIBS + " in one call") as err:
        _mixed_calls()[call]()
    msg = str(err.value)
    assert "torch.as_tensor(x)" in msg and ".numpy()" in msg, msg
    assert "array_api_compat" not in msg, msg  # not the module dump


def test_jax_with_numpy_names_both_libraries():
    jnp = pytest.importorskip("jax.numpy")
    a = np.ones(3)
    with pytest.raises(TypeError, match=r"jax\.Array and numpy\.ndarray in one call"):
        linalg.cosine_similarity(jnp.asarray(a), a)


# --- least squares: NaN / inf and rank deficiency -------------------------------------


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("method", ["solve", "inv", "lstsq", "gd"])
@pytest.mark.parametrize("where", ["X", "y"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_least_squares_rejects_nan_and_inf(lib, method, where, bad):
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((8, 3)), rng.standard_normal(8)
    (X if where == "X" else y)[2] = bad
    with pytest.raises(ValueError, match=f"^{where} contains NaN or inf"):
        linear.least_squares(on(lib, X), on(lib, y), method=method)


def _collinear(rng):
    X = rng.standard_normal((20, 3))
    return np.column_stack([X, 2.0 * X[:, 0]]), rng.standard_normal(20)  # rank 3 of 4


def _wide(rng):
    return rng.standard_normal((3, 5)), rng.standard_normal(3)  # n < c: rank 3 of 5


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("method", ["solve", "inv"])
@pytest.mark.parametrize("make", [_collinear, _wide], ids=["collinear", "n<c"])
def test_rank_deficient_least_squares_points_to_lstsq(lib, method, make):
    X, y = make(np.random.default_rng(2))
    with pytest.raises(ValueError, match=r'method="lstsq"') as err:
        linear.least_squares(on(lib, X), on(lib, y), method=method)
    msg = str(err.value)
    assert f'least_squares(method="{method}") needs X with full column rank' in msg
    assert "has rank 3 < " in msg, msg
    # ... and the way out works: the minimum-norm solution, as NumPy's pinv gives it
    w = linear.least_squares(on(lib, X), on(lib, y), method="lstsq")
    np.testing.assert_allclose(host(w), np.linalg.pinv(X) @ y, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("method", ["solve", "inv"])
@pytest.mark.parametrize(
    "dtype, kappa_X, tol",
    [("float64", 1e6, 1e-2), ("float32", 1e4, None)],
    ids=["float64 κ(XᵀX)=1e12", "float32 κ(XᵀX)=1e8"],
)
def test_ill_conditioned_but_full_rank_least_squares_still_solves(
    method, dtype, kappa_X, tol
):
    """The chapter's demos (inv against solve at κ(XᵀX) = 1e12; float32 losing every
    digit as κ grows) are computed, not refused: X has full rank."""
    rng = np.random.default_rng(3)
    U, _ = np.linalg.qr(rng.standard_normal((200, 8)))
    V, _ = np.linalg.qr(rng.standard_normal((8, 8)))
    X = (U * np.logspace(0, -np.log10(kappa_X), 8)) @ V.T
    y = rng.standard_normal(200)
    w = linear.least_squares(X.astype(dtype), y.astype(dtype), method=method)
    assert w.dtype == dtype and np.isfinite(w).all()
    if tol is not None:
        ref = np.linalg.lstsq(X, y, rcond=None)[0]
        assert np.linalg.norm(w - ref) / np.linalg.norm(ref) < tol


@pytest.mark.parametrize("make", [_collinear, _wide], ids=["collinear", "n<c"])
@pytest.mark.parametrize("method", ["solve", "inv"])
def test_ridge_makes_a_rank_deficient_system_solvable(make, method):
    X, y = make(np.random.default_rng(4))
    w = linear.least_squares(X, y, method=method, ridge=1e-2)
    c = X.shape[1]
    ref = np.linalg.solve(X.T @ X + 1e-2 * np.eye(c), X.T @ y)
    np.testing.assert_allclose(w, ref, rtol=1e-8)


# --- graphs: NaN weights, non-integer steps -------------------------------------------


def _adjacency_kinds():
    import scipy.sparse as sp

    return {
        "numpy": lambda A: A,
        "torch": torch.as_tensor,
        "scipy.sparse": sp.csr_array,
        "torch sparse": lambda A: torch.as_tensor(A).to_sparse(),
    }


@pytest.mark.parametrize("kind", list(_adjacency_kinds()))
@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("mode", ["sym", "row", "col"])
def test_normalized_adjacency_rejects_a_nan_or_inf_weight(kind, bad, mode):
    A = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 2.0], [0.0, 2.0, 0.0]])
    A[1, 2] = A[2, 1] = bad
    with pytest.raises(ValueError, match="A has a NaN or infinite edge weight"):
        normalized_adjacency(_adjacency_kinds()[kind](A), mode=mode)


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize(
    "steps, got",
    [
        (2.7, "got 2.7 (float)"),
        (2.0, "got 2.0 (float)"),
        (True, "got True (a bool)"),
        ("2", "got '2' (str)"),
        (None, "got None (NoneType)"),
        (-1, "got -1"),
    ],
)
def test_diffusion_steps_must_be_a_non_negative_int(lib, steps, got):
    A, X = on(lib, [[0.0, 1.0], [1.0, 0.0]]), on(lib, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"^steps must be an int >= 0") as err:
        diffusion(A, X, steps)
    assert got in str(err.value)


@pytest.mark.parametrize("lib", LIBS)
def test_diffusion_takes_numpy_integers(lib):
    A = np.array([[0.0, 1.0], [1.0, 0.0]])
    out = diffusion(on(lib, A), on(lib, [1.0, 2.0]), np.int64(3))
    np.testing.assert_array_equal(host(out), [2.0, 1.0])  # three swaps


# --- one size check everywhere --------------------------------------------------------


def _tiny_gpt():
    torch.manual_seed(0)
    return transformer.GPT(3, e=4, heads=1, depth=1, context=4)


SIZED = {
    "diffusion steps": (
        "steps",
        0,
        lambda v: diffusion(np.eye(2), np.ones(2), v),
    ),
    "one_hot m": ("m", 1, lambda v: functional.one_hot(np.array([0, 1]), v)),
    "polynomial p": ("p", 1, lambda v: activations.polynomial([1.0, 2.0], v)),
    "causal_mask n": ("n", 1, lambda v: causal_mask(v)),
    "chunked_attention chunk_size": (
        "chunk_size",
        1,
        lambda v: chunked_attention(
            np.ones((2, 2)), np.ones((3, 2)), np.ones((3, 1)), chunk_size=v
        ),
    ),
    "gradient_descent steps": (
        "steps",
        0,
        lambda v: gradient_descent(lambda x: 2 * x, np.ones(2), lr=0.1, steps=v),
    ),
    "expm_series n_terms": (
        "n_terms",
        1,
        lambda v: linalg.expm_series(np.zeros((2, 2)), n_terms=v),
    ),
    "esn_reservoir e": ("e", 1, lambda v: esn_reservoir(v, 1)),
    "ssm_kernel n": ("n", 1, lambda v: ssm_kernel(np.eye(2) / 2, np.ones((2, 1)), v)),
    "adjoint_norms depth": (
        "depth",
        1,
        lambda v: gradient_flow.adjoint_norms(v, width=2),
    ),
    "chain_derivative depth": (
        "depth",
        0,
        lambda v: gradient_flow.chain_derivative("sigmoid", v),
    ),
    "expression_swell depth": ("depth", 1, lambda v: symbolic.expression_swell(v)),
    "mvn_sample n": (
        "n",
        0,
        lambda v: P.mvn_sample([0, 0], np.eye(2), v, np.random.default_rng(0)),
    ),
    "conv2d padding": (
        "padding",
        0,
        lambda v: conv2d(np.ones((4, 4, 1)), np.ones((3, 3, 1, 1)), padding=(v, v)),
    ),
    "split_heads heads": ("heads", 1, lambda v: split_heads(np.zeros((3, 4)), v)),
    "bptt_weight_jacobian truncate": (
        "truncate",
        0,
        lambda v: bptt_weight_jacobian(
            np.eye(2) / 2, np.ones((2, 1)), np.ones((3, 1)), truncate=v
        ),
    ),
    "segment_sum num_segments": (
        "num_segments",
        0,
        lambda v: segment_sum(np.ones((2, 1)), np.array([0, 1]), v),
    ),
    "sample_linear n": ("n", 1, lambda v: sample_linear(v, np.random.default_rng(0))),
    "sample_drifting n": (
        "n",
        1,
        lambda v: risk.sample_drifting(v, 0.0, np.random.default_rng(0)),
    ),
    "sample_biased n": (
        "n",
        1,
        lambda v: risk.sample_biased(v, 0.5, np.random.default_rng(0)),
    ),
    "expected_risk_mc n": (
        "n",
        1,
        lambda v: risk.expected_risk_mc(
            losses.squared_loss,
            lambda X: X[:, 0],
            sample_linear,
            v,
            np.random.default_rng(0),
        ),
    ),
    "multi_head_attention heads": (
        "heads",
        1,
        lambda v: multi_head_attention(
            np.ones((3, 4)), mha_init(4, 2, rng=np.random.default_rng(0)), heads=v
        ),
    ),
    "generate_causal steps": (
        "steps",
        0,
        lambda v: generate_causal(lambda b: b, [[1.0]], v, context=2),
    ),
    "generate_causal context": (
        "context",
        1,
        lambda v: generate_causal(lambda b: b, [[1.0]], 2, context=v),
    ),
    "train_node_classifier epochs": (
        "epochs",
        0,
        lambda v: graphs.train_node_classifier(
            graphs.GCN(np.eye(3), [3, 2]), np.eye(3), [0, 1, 0], [1, 1, 0], epochs=v
        ),
    ),
    "gpt_generate max_new_tokens": (
        "max_new_tokens",
        0,
        lambda v: transformer.gpt_generate(_tiny_gpt(), [0], v),
    ),
    "train_gpt steps": (
        "steps",
        0,
        lambda v: transformer.train_gpt(
            [0, 1, 2] * 8, 3, steps=v, batch=2, context=4, e=4, heads=1, depth=1
        ),
    ),
    "autoregressive_rollout steps": (
        "steps",
        0,
        lambda v: autoregressive_rollout(lambda b: b[-1], [[1.0]], v),
    ),
    "exhaustive_search vocab_size": (
        "vocab_size",
        1,
        lambda v: exhaustive_search(lambda p: np.log(np.full(2, 0.5)), [], 1, v),
    ),
    "subgradient_descent steps": (
        "steps",
        0,
        lambda v: subgradients.subgradient_descent(np.sign, 1.0, v, 0.1),
    ),
    "batch_indices steps": ("steps", 0, lambda v: autodiff_mlp.batch_indices(4, v, 2)),
    # widgets' pure functions (their sliders give ints; a notebook may not)
    "xor train_mlp hidden": (
        "hidden",
        1,
        lambda v: xor_playground.train_mlp(v, steps=1, n_snapshots=1),
    ),
    "kv_costs T": ("T", 1, lambda v: kv_cache.kv_costs(v)),
    "mc_run n": ("n", 1, lambda v: mc_convergence.mc_run("x", v)),
    "ad_modes schedule depth": ("depth", 1, lambda v: ad_modes.schedule(2, 2, v)),
    "receptive_field_graph layers": (
        "layers",
        1,
        lambda v: causal_conv.receptive_field_graph(v, t=8),
    ),
}


@pytest.mark.parametrize("where", list(SIZED))
@pytest.mark.parametrize(
    "value, got",
    [(True, "True (a bool)"), (3.0, "3.0 (float)"), ("3", "'3' (str)"), (-1, "-1")],
)
def test_sizes_refuse_bools_floats_and_strings_everywhere(where, value, got):
    name, low, call = SIZED[where]
    with pytest.raises(ValueError, match=f"^{name} must be an int >= {low}") as err:
        call(value)
    assert f"got {got}" in str(err.value)


@pytest.mark.parametrize("where", list(SIZED))
def test_sizes_accept_numpy_integers(where):
    name, low, call = SIZED[where]
    call(np.int64(2))  # no error
    call(2)


@pytest.mark.parametrize("value", [True, 300.0, "300", 2])
@pytest.mark.parametrize(
    "train, low, why",
    [
        (lambda v: BPETokenizer.train("abab", v), 256, "the byte tokens"),
        (lambda v: WordTokenizer("a b", v), 3, "two special tokens + words"),
    ],
    ids=["BPETokenizer", "WordTokenizer"],
)
def test_a_bound_with_a_reason_says_it(train, low, why, value):
    with pytest.raises(ValueError) as err:
        train(value)
    assert str(err.value).startswith(f"vocab_size must be an int >= {low} ({why}); got")


def test_check_int_returns_a_python_int():
    v = check_int(np.int32(5), "k")
    assert v == 5 and type(v) is int
    with pytest.raises(
        ValueError, match=r"^k must be an int >= 1 \(a positive integer\)"
    ):
        check_int(0, "k")


# --- causal attention with more queries than keys -------------------------------------


@pytest.mark.parametrize("lib", LIBS)
def test_causal_attention_with_more_queries_than_keys_raises(lib):
    rng = np.random.default_rng(5)
    Q, K, V = rng.standard_normal((5, 4)), rng.standard_normal((3, 4)), np.eye(3)
    Q, K, V = on(lib, Q), on(lib, K), on(lib, V)
    expected = r"at least as many keys as queries; got n=5 queries and m=3 keys"
    with pytest.raises(ValueError, match=expected):
        scaled_dot_product_attention(Q, K, V, causal=True)
    with pytest.raises(ValueError, match=expected):
        chunked_attention(Q, K, V, chunk_size=2, causal=True)
    with pytest.raises(ValueError, match=expected):
        boolean_causal_mask(5, 3)


def test_the_suggested_mask_reproduces_torch_is_causal():
    """The message's way out, ``mask=boolean_causal_mask(n)[:, :m]``, is torch's
    top-left aligned ``is_causal=True``."""
    rng = np.random.default_rng(6)
    Q, K, V = (rng.standard_normal(s) for s in ((5, 4), (3, 4), (3, 2)))
    ours = scaled_dot_product_attention(Q, K, V, mask=boolean_causal_mask(5)[:, :3])
    ref = torch.nn.functional.scaled_dot_product_attention(
        *(torch.as_tensor(a) for a in (Q, K, V)), is_causal=True
    )
    np.testing.assert_allclose(ours, ref.numpy(), rtol=1e-12, atol=1e-12)


# --- one rule for lists, Python numbers and integer arrays ----------------------------

X3 = [[1, 0], [0, 2], [1, 1]]

PUBLIC = {
    "softmax": ([1, 2, 3], functional.softmax),
    "logsumexp": ([1, 2, 3], functional.logsumexp),
    "sigmoid": ([-1, 0, 2], functional.sigmoid),
    "relu": ([-1, 0, 2], activations.relu),
    "norm": ([3, 4], linalg.norm),
    "least_squares": (X3, lambda X: linear.least_squares(X, [1, -4, -1])),
    "attention": (X3, lambda X: scaled_dot_product_attention(X, X, X)),
    "linear_recurrence": ([1, 2, 3], lambda b: linear_recurrence(0.5, b)),
    "gradient_descent": (
        [1, -2],
        lambda x0: gradient_descent(lambda x: 2 * x, x0, lr=0.25, steps=2).x,
    ),
    "grad_fd": ([1, 2], lambda x: grad_fd(lambda z: (z * z).sum(), x)),
}


@pytest.mark.parametrize("name", list(PUBLIC))
def test_a_list_gives_what_the_float_array_gives(name):
    data, f = PUBLIC[name]
    want = host(f(np.asarray(data, dtype=np.float64)))
    as_tuples = tuple(tuple(r) if isinstance(r, list) else r for r in data)
    for given in (data, as_tuples, np.asarray(data)):  # the last: an int64 array
        got = f(given)
        assert not isinstance(got, torch.Tensor), type(got)
        assert np.asarray(got).dtype == np.float64
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", list(PUBLIC))
def test_an_integer_tensor_becomes_float64_in_its_own_library(name):
    data, f = PUBLIC[name]
    want = host(f(np.asarray(data, dtype=np.float64)))
    got = f(torch.as_tensor(np.asarray(data)))  # int64 tensor
    assert isinstance(got, torch.Tensor) and got.dtype == torch.float64
    np.testing.assert_allclose(host(got), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", list(PUBLIC))
@pytest.mark.parametrize("bad", ["abc", [[1.0, 2.0], [3.0]], None])
def test_what_is_not_numbers_is_refused_everywhere_with_one_message(name, bad):
    data, f = PUBLIC[name]
    with pytest.raises(TypeError, match=r"must be an array or a \(nested\) list"):
        f(bad)


@pytest.mark.parametrize("name", sorted(set(PUBLIC) - {"linear_recurrence"}))
def test_complex_numbers_are_refused_where_the_function_is_real(name):
    data, f = PUBLIC[name]
    with pytest.raises(TypeError, match=r"real numbers; got dtype complex128"):
        f([1j, 2j])
    with pytest.raises(
        ValueError, match=r"real \(integer or floating\) array; got dtype"
    ):
        f(np.array([1j, 2j]))


def test_a_linear_recurrence_takes_complex_coefficients():
    """h_t = a h_(t-1) + b_t with a = i: the one place complex numbers are meant."""
    h = linear_recurrence([1j, 1j, 1j], [1.0, 1.0, 1.0])
    np.testing.assert_allclose(h, [1.0, 1j + 1.0, 1j * (1j + 1.0) + 1.0])


def test_as_float_array_keeps_a_float_tensor_and_its_graph():
    t = torch.ones(3, dtype=torch.float32, requires_grad=True)
    assert as_float_array(t) is t
    s = as_float_array(3, like=t)  # a Python number joins the tensor's library/dtype
    assert isinstance(s, torch.Tensor) and s.dtype == torch.float32 and s.ndim == 0
    with pytest.raises(ValueError, match=r"^z must be a real .* got dtype complex128"):
        as_float_array(np.ones(2, dtype=complex), "z")


# --- lists for parameters, against values worked out by hand -------------------------


def _expit(z):
    return 1.0 / (1.0 + np.exp(-np.asarray(z, dtype=np.float64)))


def _norm_logpdf(x, mu, var):
    x, mu, var = (np.asarray(a, dtype=np.float64) for a in (x, mu, var))
    return -0.5 * np.log(2 * np.pi * var) - (x - mu) ** 2 / (2 * var)


#: function -> (call(lib): its main array in ``lib``, every other argument a list,
#: the expected value from a closed form, whether the result joins ``lib``)
LISTED = {
    "directional_derivative": (  # D_v (z·z) = 2 z·v
        lambda lib: calculus.directional_derivative(
            lambda z: (z * z).sum(), on(lib, [1, 2]), [1, 0]
        ),
        2.0,
        True,
    ),
    "linearize": (  # f(x0) + <grad, x - x0> = 5 + 2·1 + 4·0
        lambda lib: calculus.linearize(
            lambda z: (z * z).sum(), on(lib, [1, 2]), [2, 4]
        )([2, 2]),
        7.0,
        True,
    ),
    "classify_stationary_point": (
        lambda lib: calculus.classify_stationary_point([[2, 0], [0, -2]]),
        "saddle",
        False,
    ),
    "staircase": (  # two bins on [0, 1/2] and [1/2, 1], heights 2 and -1
        lambda lib: approximation.staircase(
            on(lib, [0.25, 0.75]), [0.25, 0.75], 0.5, [2, -1]
        ),
        [2.0, -1.0],
        True,
    ),
    "staircase_forward": (  # σ(10x) - σ(10x - 10)
        lambda lib: approximation.staircase_forward(
            on(lib, [0.0, 0.5, 1.0]), [[10, 10]], [0, -10], [[1], [-1]]
        ),
        _expit([0.0, 5.0, 10.0]) - _expit([-10.0, -5.0, 0.0]),
        True,
    ),
    "loglog_slope": (  # error = m^-2
        lambda lib: approximation.loglog_slope([1, 2, 4], [1, 0.25, 0.0625]),
        -2.0,
        False,
    ),
    "bernoulli_logpmf": (
        lambda lib: P.bernoulli_logpmf(on(lib, [1, 0]), [0.3, 0.4]),
        np.log([0.3, 0.6]),
        True,
    ),
    "normal_logpdf": (
        lambda lib: P.normal_logpdf(on(lib, [0, 3]), [0, 1], [1, 4]),
        _norm_logpdf([0, 3], [0, 1], [1, 4]),
        True,
    ),
    "gaussian_loglik": (
        lambda lib: P.gaussian_loglik(on(lib, [0, 2]), 1, 1),
        _norm_logpdf([0, 2], 1, 1).sum(),
        True,
    ),
    "mvn_sample": (  # mu + L z with L = diag(2, 1), z the generator's own draws
        lambda lib: P.mvn_sample([1, 2], [[4, 0], [0, 1]], 3, np.random.default_rng(0)),
        np.array([1.0, 2.0])
        + np.random.default_rng(0).standard_normal((3, 2)) * [2.0, 1.0],
        False,
    ),
}


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("name", list(LISTED))
def test_list_arguments_give_the_worked_out_value(name, lib):
    call, want, joins = LISTED[name]
    got = call(lib)
    if isinstance(want, str):
        assert got == want
        return
    if joins:  # list parameters join the main argument's library
        assert isinstance(got, torch.Tensor) == (lib == "torch"), type(got)
    np.testing.assert_allclose(host(got), want, rtol=1e-9, atol=1e-12)


def test_a_distribution_parameter_of_the_wrong_shape_is_refused():
    with pytest.raises(ValueError, match=r"^mu must be a scalar or have the shape"):
        P.normal_logpdf(np.zeros(3), [0.0, 1.0])
    with pytest.raises(ValueError, match=r"^mu must be a scalar"):
        P.gaussian_loglik(np.zeros(2), np.zeros(2), 1.0)  # () only, as documented
    with pytest.raises(TypeError, match=r"^var must be an array or a \(nested\) list"):
        P.normal_logpdf(np.zeros(2), 0.0, "1")
