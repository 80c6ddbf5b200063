"""The parallel scan against the sequential loop for h_t = a_t h_{t-1} + b_t in JAX
(Book §13.3.2, lines 6569-6651).

``jax.lax.associative_scan`` (what :func:`alice_lab.recurrent.jax_linear_recurrence`
calls with ``method="associative"``) does O(n log n)-ish work in O(log n) depth;
``jax.lax.scan`` (``method="scan"``) does n steps one after the other. On a GPU the
tree wins for long sequences; on a couple of CPU cores there is little parallelism to
use and the extra work can make it slower. The cases below time both, jitted, in
float32 on (n, 16) inputs; :func:`scan_curve` and :func:`plot_scan` give the curve
for the benchmarks page. Nothing here asserts a speed.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.harness import Bench, benchmark

LENGTHS = (1024, 8192, 65536)
WIDTH = 16


def _inputs(rng: np.random.Generator, n: int, d: int = WIDTH):
    a = rng.uniform(0.5, 1.0, (n, d)).astype("float32")
    b = rng.standard_normal((n, d)).astype("float32")
    return a, b


def _fns():
    """Jitted (parallel, sequential) functions of (a, b) -> h (n, d)."""
    import jax

    from alice_lab.recurrent import jax_linear_recurrence

    par = jax.jit(lambda a, b: jax_linear_recurrence(a, b, method="associative"))
    seq = jax.jit(lambda a, b: jax_linear_recurrence(a, b, method="scan"))
    return par, seq


def _sync(y):
    return y.block_until_ready()


def _case(n: int):
    def factory(rng: np.random.Generator) -> Bench:
        import jax

        par, seq = _fns()
        a, b = (jax.device_put(x) for x in _inputs(rng, n))
        small = tuple(jax.device_put(x) for x in _inputs(rng, 37))
        return Bench(
            alice=par,
            reference=seq,
            args=(a, b),
            checks={"n = 37 (not a power of 2)": small},
            rtol=1e-4,
            atol=1e-4,
            sync=_sync,
        )

    return factory


for _n in LENGTHS:
    benchmark(
        f"linear recurrence: jax.lax.associative_scan (n={_n})",
        reference="jax.lax.scan (sequential loop)",
        shape=(_n, WIDTH),
        dtype="float32",
    )(_case(_n))


def _best(fn, args, repeat: int) -> float:
    fn(*args).block_until_ready()  # compile
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args).block_until_ready()
        best = min(best, time.perf_counter() - t0)
    return best


def scan_curve(
    lengths=LENGTHS, *, width: int = WIDTH, repeat: int = 5, seed: int = 0
) -> dict:
    """Best-of-``repeat`` seconds of the parallel and the sequential scan per length.

    Returns ``{"lengths", "associative_s", "sequential_s", "max_abs_diff", "width",
    "device"}`` (lists aligned with ``lengths``).
    """
    import jax

    par, seq = _fns()
    rng = np.random.default_rng(seed)
    out = {
        "lengths": [int(n) for n in lengths],
        "associative_s": [],
        "sequential_s": [],
        "max_abs_diff": [],
        "width": width,
        "device": str(jax.devices()[0]),
    }
    for n in lengths:
        a, b = (jax.device_put(x) for x in _inputs(rng, int(n), width))
        out["associative_s"].append(_best(par, (a, b), repeat))
        out["sequential_s"].append(_best(seq, (a, b), repeat))
        out["max_abs_diff"].append(
            float(np.abs(np.asarray(par(a, b)) - np.asarray(seq(a, b))).max())
        )
    return out


def plot_scan(curve: dict):
    """A log-log figure of :func:`scan_curve`'s times against the sequence length."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5, 3.5), layout="constrained")
    ax = fig.subplots()
    n = np.asarray(curve["lengths"])
    ax.loglog(
        n,
        1e3 * np.asarray(curve["associative_s"]),
        "o-",
        label="jax.lax.associative_scan (parallel)",
    )
    ax.loglog(
        n,
        1e3 * np.asarray(curve["sequential_s"]),
        "s-",
        label="jax.lax.scan (sequential)",
    )
    ax.set(
        xlabel="sequence length n",
        ylabel="time (ms, best of repeats)",
        title=f"h_t = a_t h_(t-1) + b_t, width {curve['width']}, {curve['device']}",
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig
