"""alice_lab.data: seeded mini-batches against torch's DataLoader and the book's Box
5.2 arithmetic, the split against scikit-learn's sizes, the loaders against the
bundled datasets, and the chapter-4 generators against their definitions."""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import data

# --- minibatches ---------------------------------------------------------------------


@pytest.mark.parametrize("n, r", [(1000, 32), (10, 3), (12, 4), (5, 8)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_minibatches_match_torch_dataloader_sizes(n, r, drop_last):
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, TensorDataset

    ours = [len(b) for b in data.minibatches(n, r, seed=0, drop_last=drop_last)]
    loader = DataLoader(
        TensorDataset(torch.arange(n)), batch_size=r, shuffle=True, drop_last=drop_last
    )
    theirs = [len(b[0]) for b in loader]
    assert ours == theirs


def test_box_5_2_last_batch_has_eight_elements():
    sizes = [len(b) for b in data.minibatches(1000, 32, seed=1)]
    assert len(sizes) == 32 and sizes[:-1] == [32] * 31 and sizes[-1] == 8
    dropped = [len(b) for b in data.minibatches(1000, 32, seed=1, drop_last=True)]
    assert dropped == [32] * 31


def test_one_epoch_is_a_permutation_and_seeded():
    a = np.concatenate(list(data.minibatches(103, 10, seed=7)))
    assert sorted(a.tolist()) == list(range(103))
    assert not np.array_equal(a, np.arange(103))  # shuffled
    b = np.concatenate(list(data.minibatches(103, 10, seed=7)))
    c = np.concatenate(list(data.minibatches(103, 10, seed=8)))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert a.dtype == np.int64
    # the permutation is numpy's, then sliced in order (shuffle then slice, L2358)
    assert np.array_equal(a, np.random.default_rng(7).permutation(103))
    ordered = np.concatenate(list(data.minibatches(7, 3, seed=None)))
    assert ordered.tolist() == list(range(7))
    assert list(data.minibatches(0, 4, seed=0)) == []  # an empty dataset: no batch


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n": 10, "batch_size": 0, "seed": 0}, "batch_size must be an int >= 1"),
        ({"n": -1, "batch_size": 2, "seed": 0}, "n must be an int >= 0"),
        ({"n": 10, "batch_size": 2.5, "seed": 0}, "batch_size must be an int"),
        ({"n": 10, "batch_size": True, "seed": 0}, "batch_size must be an int"),
        ({"n": 10, "batch_size": 2, "seed": -3}, "seed must be an int >= 0"),
        ({"n": 10, "batch_size": 2, "seed": 1.5}, "seed must be an int >= 0"),
    ],
)
def test_minibatches_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        list(data.minibatches(**kwargs))


def test_batches_follow_the_indices_on_every_backend(backend, rng):
    X, y = rng.standard_normal((11, 3)), rng.integers(0, 4, size=11)
    idx = list(data.minibatches(11, 4, seed=3))
    got = list(data.batches(backend.asarray(X), backend.asarray(y), 4, seed=3))
    assert len(got) == len(idx) == 3
    for (Xb, yb), i in zip(got, idx, strict=True):
        assert type(Xb) is type(backend.asarray(X))
        np.testing.assert_array_equal(backend.to_numpy(Xb), X[i])
        np.testing.assert_array_equal(backend.to_numpy(yb), y[i])
    only_X = list(data.batches(backend.asarray(X), None, 5, seed=None, drop_last=True))
    assert [backend.to_numpy(b).shape for b in only_X] == [(5, 3), (5, 3)]


def test_batches_bad_shapes():
    with pytest.raises(ValueError, match=r"y must have shape \(n,\) = \(4,\)"):
        list(data.batches(np.zeros((4, 2)), np.zeros(3), 2, seed=0))
    with pytest.raises(ValueError, match=r"X must have shape \(n, c\)"):
        list(data.batches(np.zeros(4), np.zeros(4), 2, seed=0))


# --- split and scaling ---------------------------------------------------------------


@pytest.mark.parametrize("n, frac", [(150, 0.25), (10, 0.3), (1797, 0.2)])
def test_split_sizes_match_sklearn(n, frac):
    from sklearn.model_selection import train_test_split as sk_split

    X, y = np.arange(2.0 * n).reshape(n, 2), np.arange(n)
    Xtr, Xte, ytr, yte = data.train_test_split(X, y, test_size=frac, seed=0)
    sk = sk_split(X, y, test_size=frac, random_state=0)
    assert [a.shape for a in (Xtr, Xte, ytr, yte)] == [a.shape for a in sk]
    assert sorted(np.concatenate([ytr, yte]).tolist()) == list(range(n))
    np.testing.assert_array_equal(Xtr[:, 0], 2 * ytr)  # rows stay paired
    again = data.train_test_split(X, y, test_size=frac, seed=0)
    other = data.train_test_split(X, y, test_size=frac, seed=1)
    assert np.array_equal(again[3], yte) and not np.array_equal(other[3], yte)


def test_stratified_split_keeps_proportions():
    X, y = data.load_iris()
    _, _, ytr, yte = data.train_test_split(X, y, test_size=0.2, seed=0, stratify=True)
    assert np.bincount(yte).tolist() == [10, 10, 10]
    assert np.bincount(ytr).tolist() == [40, 40, 40]


def test_split_parity(backend, rng):
    X, y = rng.standard_normal((20, 3)), rng.integers(0, 3, size=20)
    want = data.train_test_split(X, y, test_size=0.25, seed=2)
    got = data.train_test_split(
        backend.asarray(X), backend.asarray(y), test_size=0.25, seed=2
    )
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(backend.to_numpy(g), w)


@pytest.mark.parametrize(
    "X, y, kwargs, message",
    [
        (np.zeros((5, 2)), np.zeros(4), {}, r"y must have shape \(n,\) = \(5,\)"),
        (np.zeros((5, 2)), np.zeros(5), {"test_size": 1.0}, r"test_size must lie"),
        (np.zeros((5, 2)), np.zeros(5), {"test_size": "a"}, r"test_size must be"),
        (np.zeros((5, 2)), np.zeros(5), {"stratify": True}, "integer labels"),
    ],
)
def test_split_bad_input(X, y, kwargs, message):
    with pytest.raises(ValueError, match=message):
        data.train_test_split(X, y, **{"seed": 0, **kwargs})


def test_standardize_matches_sklearn(rng):
    from sklearn.preprocessing import StandardScaler

    Xtr, Xte = rng.normal(3.0, 2.0, (40, 3)), rng.normal(3.0, 2.0, (9, 3))
    Xtr[:, 2] = 5.0  # a constant column is centred, not divided by 0
    a, b = data.standardize(Xtr, Xte)
    sc = StandardScaler().fit(Xtr)
    np.testing.assert_allclose(a, sc.transform(Xtr), atol=1e-12)
    np.testing.assert_allclose(b, sc.transform(Xte), atol=1e-12)
    with pytest.raises(ValueError, match="X_test must have shape"):
        data.standardize(Xtr, Xte[:, :2])


# --- generators and loaders ----------------------------------------------------------


def test_linear_generator_follows_its_definition():
    X, y, w = data.make_linear_regression(10, 3, seed=0)
    assert X.shape == (10, 3) and y.shape == (10,) and w.shape == (3,)
    rng = np.random.default_rng(0)  # the documented order of the draws
    w_ref, X_ref = rng.standard_normal(3), rng.standard_normal((10, 3))
    eps = rng.standard_normal(10) * 0.1
    np.testing.assert_array_equal(w, w_ref)
    np.testing.assert_allclose(y, X_ref @ w_ref + eps, rtol=1e-15)
    # the noise variance is 0.01 (the book's N(0, 0.01)): check on many points
    Xb, yb, wb = data.make_linear_regression(100_000, 3, seed=1)
    assert abs(np.var(yb - Xb @ wb) - 0.01) < 5e-4
    with pytest.raises(ValueError, match="noise_var"):
        data.make_linear_regression(10, 3, noise_var=-1.0)


def test_xor_is_not_linearly_separable():
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    X, y = data.make_xor(400, noise=0.2, seed=0)
    assert X.shape == (400, 2) and set(np.unique(y)) == {0, 1}
    assert np.array_equal(np.bincount(y), [200, 200])
    signs = np.sign(X)
    agree = (signs[:, 0] * signs[:, 1] < 0).astype(int)
    assert np.mean(agree == y) > 0.99  # the label is the XOR of the quadrant signs
    assert LogisticRegression().fit(X, y).score(X, y) < 0.7
    assert DecisionTreeClassifier(random_state=0).fit(X, y).score(X, y) > 0.99


@pytest.mark.parametrize(
    "name, shape, kind",
    [
        ("load_digits", (1797, 64), "int"),
        ("load_iris", (150, 4), "int"),
        ("load_breast_cancer", (569, 30), "int"),
        ("load_diabetes", (442, 10), "float"),
    ],
)
def test_bundled_loaders(name, shape, kind):
    from sklearn import datasets

    X, y = getattr(data, name)()
    Xs, ys = getattr(datasets, name)(return_X_y=True)
    assert X.shape == shape and X.dtype == np.float64 and y.shape == (shape[0],)
    assert y.dtype == (np.int64 if kind == "int" else np.float64)
    np.testing.assert_array_equal(X, Xs)
    np.testing.assert_array_equal(y, ys)


def test_moons_and_blobs_are_sklearns():
    from sklearn import datasets

    X, y = data.make_moons(50, noise=0.1, seed=3)
    Xs, ys = datasets.make_moons(n_samples=50, noise=0.1, random_state=3)
    np.testing.assert_array_equal(X, Xs)
    np.testing.assert_array_equal(y, ys)
    X, y = data.make_blobs(60, centers=4, c=3, seed=2)
    assert X.shape == (60, 3) and y.dtype == np.int64 and set(y) == {0, 1, 2, 3}
