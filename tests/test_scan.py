"""Associative scans (book §13.3.2): every schedule equals the sequential loop for
associative operators (NumPy tree and jax.lax.associative_scan), the book's six-element
example costs 7 ops in 3 levels, and a non-associative operator is refused."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from alice_lab import recurrent as R
from alice_lab.backend import parity_precision


@pytest.mark.parametrize("alg", ["blelloch", "hillis_steele", "sequential"])
@pytest.mark.parametrize("n", [1, 2, 5, 6, 8, 13])
def test_scan_equals_loop_for_several_operators(alg, n):
    r = np.random.default_rng(n)
    xs = list(r.standard_normal(n))
    np.testing.assert_allclose(
        R.associative_scan(operator.add, xs, algorithm=alg), np.cumsum(xs), atol=1e-12
    )
    np.testing.assert_array_equal(
        R.associative_scan(max, xs, algorithm=alg), np.maximum.accumulate(xs)
    )
    Ms = list(r.standard_normal((n, 3, 3)))
    got = R.associative_scan(lambda a, b: b @ a, Ms, algorithm=alg)
    want = [Ms[0]]
    for M in Ms[1:]:  # the running product M_i ... M_1, written out
        want.append(M @ want[-1])
    np.testing.assert_allclose(got, want, atol=1e-10)


def test_book_example_and_tree_costs():
    t = R.scan_schedule(6, "blelloch")
    assert (t.work, t.depth) == (7, 3)
    assert [len(level) for level in t.levels] == [3, 2, 2]
    assert {o.out for o in t.levels[0]} == {(1, 2), (3, 4), (5, 6)}
    assert {o.out for o in t.levels[2]} == {(1, 5), (1, 6)}
    assert (
        R.scan_schedule(6, "sequential").work,
        R.scan_schedule(6, "sequential").depth,
    ) == (5, 5)
    for n in (7, 16, 33):
        hs = R.scan_schedule(n, "hillis_steele")
        assert hs.depth == int(np.ceil(np.log2(n)))
        bl = R.scan_schedule(n, "blelloch")
        assert bl.work <= 2 * n and bl.depth <= 2 * np.ceil(np.log2(n))
        assert hs.work == sum(n - 2**k for k in range(hs.depth))


def test_linear_recurrence_parallel_and_jax_match_the_loop():

    r = np.random.default_rng(0)
    a, b = r.uniform(0.5, 1.0, (300, 4)), r.standard_normal((300, 4))
    loop = R.linear_recurrence(a, b)
    h = np.zeros(4)
    for i in range(300):  # h_i = a_i h_{i-1} + b_i, written out
        h = a[i] * h + b[i]
        np.testing.assert_allclose(loop[i], h, atol=1e-12)
    np.testing.assert_allclose(
        R.linear_recurrence(a, b, method="parallel"), loop, atol=1e-10
    )
    with parity_precision():  # float64 in JAX
        for m in ("associative", "scan"):
            np.testing.assert_allclose(
                np.asarray(R.jax_linear_recurrence(a, b, method=m)), loop, atol=1e-10
            )
        jax_pairs = R.jax_associative_scan(R.linear_recurrence_op, (a, b))
    np.testing.assert_allclose(
        np.asarray(jax_pairs[0]), np.cumprod(a, axis=0), rtol=1e-10
    )
    np.testing.assert_allclose(
        R.linear_recurrence(a, b, h0=np.ones(4)),
        R.linear_recurrence(
            np.vstack([np.ones((1, 4)), a]), np.vstack([np.ones((1, 4)), b])
        )[1:],
        atol=1e-12,
    )


def test_non_associative_operator_and_bad_input_are_refused():
    with pytest.raises(ValueError, match="not associative"):
        R.associative_scan(operator.sub, [1.0, 2.0, 3.0, 4.0])
    avg = lambda a, b: (a + b) / 2  # noqa: E731
    with pytest.raises(ValueError, match="not associative"):
        R.associative_scan(avg, [1.0, 2.0, 7.0])
    # unchecked, the tree silently differs from the loop: why the check exists
    xs = [1.0, 2.0, 7.0, 4.0, 0.5, 3.0]
    tree = R.associative_scan(operator.sub, xs, check_associative=False)
    assert tree != R.sequential_scan(operator.sub, xs)
    assert R.is_associative(
        R.ssm_op,
        *[
            (M, v)
            for M, v in zip(
                np.random.default_rng(1).standard_normal((3, 2, 2)),
                np.random.default_rng(2).standard_normal((3, 2)),
                strict=True,
            )
        ],
    )
    with pytest.raises(ValueError, match="empty"):
        R.associative_scan(operator.add, [])
    with pytest.raises(ValueError, match="algorithm must be"):
        R.scan_schedule(4, "brent_kung")
    with pytest.raises(ValueError, match="callable"):
        R.associative_scan(3, [1, 2])
    with pytest.raises(ValueError, match="one shape"):
        R.linear_recurrence(np.ones((3, 2)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="n >= 1"):
        R.jax_linear_recurrence(np.ones(0), np.ones(0))


def test_bench_scan_curve_and_plot():
    """The benchmark's curve: both scans agree; the figure has one line per method
    (times are measured, never asserted)."""
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:  # `benchmarks/` is a folder of the repo, not installed
        sys.path.insert(0, root)
    from benchmarks.bench_scan import plot_scan, scan_curve

    curve = scan_curve((32, 128), repeat=1)
    assert curve["lengths"] == [32, 128]
    assert len(curve["associative_s"]) == len(curve["sequential_s"]) == 2
    assert max(curve["max_abs_diff"]) < 1e-4  # float32
    fig = plot_scan(curve)
    assert len(fig.axes[0].lines) == 2


@pytest.mark.parametrize("method", ["sequential", "parallel"])
def test_linear_recurrence_on_every_backend(backend, method):
    r = np.random.default_rng(3)
    a, b = r.uniform(0.5, 1.0, (37, 3)), r.standard_normal((37, 3))
    h0 = r.standard_normal(3)
    got = R.linear_recurrence(
        backend.asarray(a), backend.asarray(b), backend.asarray(h0), method=method
    )
    assert type(got) is type(backend.asarray(b))
    h, want = h0, []
    for i in range(37):  # h_i = a_i h_{i-1} + b_i, written out
        h = a[i] * h + b[i]
        want.append(h)
    np.testing.assert_allclose(backend.to_numpy(got), np.array(want), atol=1e-10)
