"""Graph diffusion (Book §12.1.3): ``alice_lab.graphs.diffusion`` on a dense NumPy
adjacency of a sparse graph, which it switches to ``scipy.sparse`` CSR by itself (the
density is below ``DENSITY_THRESHOLD``), against plain dense NumPy products.

The graph has 5,000 nodes and about 20 neighbours each (a random regular-ish graph
generated in code), row-normalised; X has 16 channels; 20 diffusion steps. The
conversion to CSR is inside the timed call.

:func:`scaling_curve` measures both paths for several sizes and :func:`plot_scaling`
draws them (for the benchmarks page).
"""

from __future__ import annotations

import time

import numpy as np

from alice_lab import graphs as g
from benchmarks.harness import Bench, benchmark

N, DEGREE, CHANNELS, STEPS = 5000, 20, 16, 20


def sparse_graph(n: int, degree: int = DEGREE, seed: int = 0) -> np.ndarray:
    """A dense (n, n) row-normalised adjacency (self-loops included) of a symmetric
    random graph with about ``degree`` neighbours per node."""
    rng = np.random.default_rng(seed)
    A = np.zeros((n, n))
    rows = np.repeat(np.arange(n), degree // 2)
    cols = rng.integers(0, n, size=rows.size)
    A[rows, cols] = A[cols, rows] = 1.0
    np.fill_diagonal(A, 0.0)
    return g.normalized_adjacency(A, mode="row")


def dense_diffusion(A: np.ndarray, X: np.ndarray, steps: int) -> np.ndarray:
    for _ in range(steps):
        X = A @ X
    return X


@benchmark(
    "graph diffusion (5k nodes, auto-sparse)",
    reference="dense numpy A @ X",
    shape=(N, N),
    dtype="float64",
)
def _diffusion(rng: np.random.Generator) -> Bench:
    A = sparse_graph(N)
    X = rng.standard_normal((N, CHANNELS))
    small = sparse_graph(300, seed=1)
    return Bench(
        alice=lambda A, X: g.diffusion(A, X, STEPS),
        reference=lambda A, X: dense_diffusion(A, X, STEPS),
        args=(A, X),
        checks={"300 nodes (stays dense)": (small, rng.standard_normal((300, 4)))},
        rtol=1e-9,
        atol=1e-12,
    )


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def scaling_curve(
    ns=(500, 1000, 2000, 5000),
    degree: int = DEGREE,
    *,
    steps: int = STEPS,
    channels: int = CHANNELS,
    repeat: int = 3,
    seed: int = 0,
) -> dict:
    """Seconds (best of ``repeat``) of ``g.diffusion`` (auto-sparse, conversion
    included) and of dense products, for each n. Returns ``{"n": [...], "sparse":
    [...], "dense": [...], "ratio": [...], "density": [...]}``."""
    out = {"n": [], "sparse": [], "dense": [], "ratio": [], "density": []}
    rng = np.random.default_rng(seed)
    for n in ns:
        A = sparse_graph(int(n), degree, seed)
        X = rng.standard_normal((int(n), channels))
        ts = _best(lambda A=A, X=X: g.diffusion(A, X, steps), repeat)
        td = _best(lambda A=A, X=X: dense_diffusion(A, X, steps), repeat)
        out["n"].append(int(n))
        out["sparse"].append(ts)
        out["dense"].append(td)
        out["ratio"].append(td / ts)
        out["density"].append(g.density(A))
    return out


def plot_scaling(curve: dict):
    """A log-log figure of both timings against n, with the speed-up annotated."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(curve["n"], curve["dense"], "o-", label="dense A @ X (NumPy)")
    ax.loglog(curve["n"], curve["sparse"], "s-", label="graphs.diffusion (auto CSR)")
    for n, t, r in zip(curve["n"], curve["sparse"], curve["ratio"], strict=True):
        ax.annotate(f"{r:.0f}×", (n, t), textcoords="offset points", xytext=(0, -14),
                    ha="center", fontsize=8)  # fmt: skip
    ax.set(xlabel="nodes n", ylabel="seconds", title="graph diffusion: sparse vs dense")
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    return fig
