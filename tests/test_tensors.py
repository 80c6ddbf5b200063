"""Tests for alice_lab.tensors: notation checks and shape arithmetic (§1, §2.1).

References: NumPy's own broadcasting (``np.broadcast_shapes``) and indexing
(``x[index].shape``), and the shapes the frameworks produce in Box 2.1.
"""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import tensors as T

# --- rank and check_shape -------------------------------------------------------------


def test_rank_book_examples(backend):
    """C1-01/C1-02 (lines 125-141): X ~ (b, h, w, 3) is rank 4; scalars rank 0."""
    for shape in [(), (5,), (2, 3), (2, 8, 8, 3)]:
        x = backend.asarray(np.zeros(shape))
        assert T.rank(x) == len(shape) == np.zeros(shape).ndim
    assert T.rank(3.0) == 0
    with pytest.raises(TypeError, match="needs an array"):
        T.rank([1, 2])


def test_rank_on_real_images():
    """C1-01 with real data: load_digits images repeated to RGB are (n, 8, 8, 3)."""
    datasets = pytest.importorskip("sklearn.datasets")
    imgs = datasets.load_digits().images
    rgb = np.repeat(imgs[..., None], 3, axis=-1)
    assert T.rank(rgb) == 4
    assert T.check_shape(rgb, ("b", "h", "w", 3)) == {"b": 1797, "h": 8, "w": 8}


def test_check_shape_binds_names(backend):
    x = backend.asarray(np.zeros((2, 5, 5, 3)))
    assert T.check_shape(x, ("b", "h", "h", 3)) == {"b": 2, "h": 5}
    assert T.check_shape(x, (None, "h", None, 3)) == {"h": 5}
    bound = T.check_shape(backend.asarray(np.zeros((7, 4))), ("n", "d"), "X")
    y = backend.asarray(np.zeros(7))
    assert T.check_shape(y, ("n",), "y", bound=bound) == {"n": 7, "d": 4}
    assert bound == {"n": 7, "d": 4}  # not modified


def test_check_shape_errors():
    x = np.zeros((2, 5, 4, 3))
    with pytest.raises(ValueError, match=r"x should have shape \(b, h, h, 3\), got"):
        T.check_shape(x, ("b", "h", "h", 3))
    with pytest.raises(ValueError, match="axis 3 should have size 1"):
        T.check_shape(x, ("b", "h", "w", 1))
    with pytest.raises(ValueError, match="expected rank 3, got rank 4"):
        T.check_shape(x, ("b", "h", "w"), name="img")
    with pytest.raises(ValueError, match=r"y should have shape \(n\).*'n'=3 elsewhere"):
        T.check_shape(np.zeros(4), ("n",), "y", bound={"n": 3})
    with pytest.raises(TypeError, match="an array or a shape tuple"):
        T.check_shape([1.0, 2.0], ("d",))
    assert T.check_shape((3, 4), ("n", "d")) == {"n": 3, "d": 4}
    with pytest.raises(TypeError, match="spec entries"):
        T.check_shape(x, ("b", 2.0, "w", 3))


def test_as_column_and_row(backend):
    x = backend.asarray(np.arange(3.0))
    assert tuple(T.as_column(x).shape) == (3, 1)
    assert tuple(T.as_row(x).shape) == (1, 3)
    np.testing.assert_array_equal(
        backend.to_numpy(T.as_column(x))[:, 0], np.arange(3.0)
    )
    with pytest.raises(ValueError, match="should have shape"):
        T.as_column(backend.asarray(np.zeros((3, 1))))


# --- Binary and simplex -------------------------------------------------------------


def test_is_binary(backend):
    """C1-03 (line 143)."""
    assert T.is_binary(backend.asarray(np.array([0, 1, 1])))
    assert not T.is_binary(backend.asarray(np.array([0, 2])))
    assert T.is_binary(backend.asarray(np.array([[0.0, 1.0], [1.0, 1.0]])))
    assert not T.is_binary(backend.asarray(np.array([0.0, 0.5])))
    assert T.is_binary(backend.asarray(np.array([True, False])))
    assert not T.is_binary(backend.asarray(np.array([-1, 1])))


def test_is_simplex(backend, rng):
    """C1-04 (line 145): row-normalised non-negative rows pass along the last axis."""
    A = rng.random((5, 4))
    P = A / A.sum(axis=1, keepdims=True)
    assert T.is_simplex(backend.asarray(P))
    assert not T.is_simplex(backend.asarray(P.T))  # columns do not sum to 1
    assert T.is_simplex(backend.asarray(P.T), axis=0)
    Q = P.copy()
    Q[0, :2] = [-0.1, Q[0, 0] + Q[0, 1] + 0.1]
    assert np.isclose(Q[0].sum(), 1.0)
    assert not T.is_simplex(backend.asarray(Q))  # a negative entry fails
    assert T.is_simplex(backend.asarray(np.eye(3, dtype=np.int64)))  # one-hot ints
    assert T.is_simplex(backend.asarray(np.eye(3, dtype=bool)))
    assert not T.is_simplex(backend.asarray(np.array([True, True])))
    with pytest.raises(ValueError, match="at least one axis"):
        T.is_simplex(backend.asarray(np.array(1.0)))


def test_is_simplex_tolerance_by_dtype(rng):
    """Float sums are not exactly one: float32 softmax passes at 1e-6, but an error
    of 1e-9 fails in float64 (atol 1e-12) and passes in float32."""
    logits = rng.standard_normal((50, 10)).astype(np.float32)
    e = np.exp(logits - logits.max(1, keepdims=True))
    probs = e / e.sum(1, keepdims=True)
    assert np.any(probs.sum(1, dtype=np.float64) != 1.0)
    assert T.is_simplex(probs)
    off = np.array([0.5, 0.5 + 1e-9])
    assert not T.is_simplex(off)
    assert T.is_simplex(off.astype(np.float32))
    assert T.is_simplex(off, atol=1e-8)
    torch = pytest.importorskip("torch")
    assert T.is_simplex(torch.softmax(torch.as_tensor(logits), dim=-1))


# --- broadcasting ---------------------------------------------------------------------


def _random_shapes(rng, k):
    base = tuple(int(s) for s in rng.integers(0, 4, size=rng.integers(0, 5)))
    out = []
    for _ in range(k):
        s = list(base[len(base) - rng.integers(0, len(base) + 1) :])
        s = [
            1 if rng.random() < 0.3 else (n if rng.random() < 0.85 else n + 1)
            for n in s
        ]
        out.append(tuple(s))
    return out


def test_broadcast_shape_matches_numpy(rng):
    n_ok = n_err = 0
    for _ in range(400):
        shapes = _random_shapes(rng, int(rng.integers(1, 4)))
        try:
            want = np.broadcast_shapes(*shapes)
        except ValueError:
            n_err += 1
            with pytest.raises(ValueError, match="cannot be broadcast together"):
                T.broadcast_shape(*shapes)
        else:
            n_ok += 1
            assert T.broadcast_shape(*shapes) == want
    assert n_ok > 100 and n_err > 20  # both branches exercised


def test_broadcast_shape_cases():
    assert T.broadcast_shape((4, 1), (4,)) == (4, 4)  # Box 2.1
    assert T.broadcast_shape() == ()
    assert T.broadcast_shape(3, (2, 1)) == np.broadcast_shapes(3, (2, 1))
    assert T.broadcast_shape((0,), (1,)) == (0,)
    with pytest.raises(
        ValueError, match=r"\(4, 3\) and \(2,\).*axis -1 .*sizes 3 and 2"
    ):
        T.broadcast_shape((4, 3), (2,))
    with pytest.raises(ValueError, match="negative dimensions"):
        T.broadcast_shape((-1, 2))


def test_box_2_1_broadcast_pitfall_in_every_framework(rng):
    """C2-03 (lines 208-222): (4, 1) + (4,) silently gives (4, 4) in all frameworks."""
    import jax.numpy as jnp
    import torch

    col, vec = rng.standard_normal((4, 1)), rng.standard_normal(4)
    want = T.broadcast_shape(col.shape, vec.shape)
    assert want == (4, 4)
    assert (col + vec).shape == want
    assert tuple((torch.as_tensor(col) + torch.as_tensor(vec)).shape) == want
    assert (jnp.asarray(col) + jnp.asarray(vec)).shape == want
    with pytest.raises(ValueError, match="enlarging both"):
        T.assert_no_silent_broadcast(col, vec)
    # the fixes the book suggests are accepted
    assert T.assert_no_silent_broadcast(col[:, 0], vec) == (4,)
    assert T.assert_no_silent_broadcast(col, vec[:, None]) == (4, 1)


def test_assert_no_silent_broadcast_cases():
    assert T.assert_no_silent_broadcast((5, 3), (3,)) == (5, 3)  # bias add
    assert T.assert_no_silent_broadcast((3,), (5, 3)) == (5, 3)
    assert T.assert_no_silent_broadcast((), (2, 2)) == (2, 2)  # scalar
    assert T.assert_no_silent_broadcast((1, 1), (3,)) == (
        1,
        3,
    )  # b keeps its 3 elements
    with pytest.raises(ValueError, match=r"\(3, 1\) and \(1, 3\).*\(3, 3\)"):
        T.assert_no_silent_broadcast((3, 1), (1, 3))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        T.assert_no_silent_broadcast((3,), (4,))


# --- slicing ------------------------------------------------------------------------


def test_slice_shape_book_examples():
    """C2-02 (line 198): X ~ (a,b,c); X_i ~ (b,c); X_ijk ~ (); X_{i,:,j:k} ~ (b,k-j)."""
    X = np.zeros((3, 7, 9))
    assert T.slice_shape(X.shape, 1) == X[1].shape == (7, 9)
    assert T.slice_shape(X.shape, (1, 2, 3)) == X[1, 2, 3].shape == ()
    assert T.slice_shape(X.shape, (1, slice(None), slice(2, 5))) == (7, 3)


def _random_index(rng, ndim):
    items = []
    for _ in range(int(rng.integers(0, ndim + 1))):
        r = rng.random()
        if r < 0.35:
            items.append(int(rng.integers(-3, 3)))
        elif r < 0.85:
            vals = [None, *range(-6, 7)]
            start, stop = (vals[int(i)] for i in rng.integers(0, len(vals), size=2))
            step = [None, 1, 2, 3, -1, -2][int(rng.integers(0, 6))]
            items.append(slice(start, stop, step))
        else:
            items.append(None)
    if rng.random() < 0.4:
        items.insert(int(rng.integers(0, len(items) + 1)), Ellipsis)
    return tuple(items)


def test_slice_shape_matches_numpy(rng):
    checked = 0
    for _ in range(500):
        shape = tuple(int(s) for s in rng.integers(1, 6, size=rng.integers(0, 4)))
        index = _random_index(rng, len(shape))
        x = np.zeros(shape)
        try:
            want = x[index].shape
        except IndexError:
            with pytest.raises(IndexError):
                T.slice_shape(shape, index)
            continue
        assert T.slice_shape(shape, index) == want, (shape, index)
        checked += 1
    assert checked > 300


def test_slice_shape_errors():
    with pytest.raises(IndexError, match="too many indices"):
        T.slice_shape((2, 3), (0, 0, 0))
    with pytest.raises(IndexError, match="out of bounds for axis 1 with size 3"):
        T.slice_shape((2, 3), (0, 3))
    with pytest.raises(IndexError, match="single ellipsis"):
        T.slice_shape((2, 3), (Ellipsis, Ellipsis))
    with pytest.raises(TypeError, match="basic indexing"):
        T.slice_shape((2, 3), ([0, 1],))
    with pytest.raises(TypeError, match="basic indexing"):
        T.slice_shape((2, 3), True)
    assert T.slice_shape((2, 3), np.int64(1)) == (3,)


# --- shape flow (Fig. 1.3) ----------------------------------------------------------


def test_compose_shapes_matches_real_ops(rng):
    """The predicted shape flow equals the shapes NumPy produces step by step."""
    X = rng.standard_normal((10, 3))
    W = rng.standard_normal((3, 8))
    prims = [
        T.linear_prim(8),
        T.elementwise_prim("relu"),
        T.reshape_prim((-1, 4)),
        T.reduce_prim(0, "sum"),
    ]
    steps = T.compose_shapes(prims, X.shape)
    H = X @ W
    R = np.maximum(H, 0)
    S = R.reshape(-1, 4)
    P = S.sum(0)
    assert [s for _, s in steps] == [X.shape, H.shape, R.shape, S.shape, P.shape]
    assert [n for n, _ in steps] == [
        "input",
        "linear(->8)",
        "relu",
        "reshape(-1, 4)",
        "sum(axis=0)",
    ]


def test_compose_shapes_errors_and_plain_callables():
    def flatten(s):
        return (int(np.prod(s)),)

    assert T.compose_shapes([flatten], (2, 3, 4))[-1] == ("flatten", (24,))
    prims = [T.reduce_prim(0), T.reduce_prim(0), T.linear_prim(3)]
    with pytest.raises(
        ValueError, match=r"step 2 'sum\(axis=0\)' cannot take shape \(\)"
    ):
        T.compose_shapes(prims, (5,))
    steps = T.compose_shapes(prims, (5,), on_error="return")
    assert steps[:2] == [("input", (5,)), ("sum(axis=0)", ())]
    assert isinstance(steps[2][1], ValueError) and len(steps) == 3
    with pytest.raises(ValueError, match="do not fit"):
        T.compose_shapes([T.reshape_prim((7, -1))], (4, 5))
    with pytest.raises(ValueError, match="on_error"):
        T.compose_shapes([], (1,), on_error="ignore")
