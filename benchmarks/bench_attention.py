"""Chunked attention (the online softmax, NumPy) against PyTorch's fused
``torch.nn.functional.scaled_dot_product_attention`` on the CPU, and the memory each
needs (Book §11.2.2, lines 5695-5741; used in Chapter 10's notebook).

``memory_profile`` measures with ``tracemalloc`` the peak memory allocated while one
call runs, for the chunked and the naive (``softmax(QKᵀ/√d)V``, the ``(n, n)`` matrix
in memory) NumPy implementations; ``plot_memory`` draws it against n.
"""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np

from alice_lab import attention as A
from benchmarks.harness import Bench, benchmark

N, D = 2048, 64
CHUNK = 512  # keys per chunk in the timed case: few, large matmuls


def _torch_sdpa(Q, K, V):
    import torch

    return torch.nn.functional.scaled_dot_product_attention(Q, K, V)


@benchmark(
    "chunked attention (float32)",
    reference="torch.nn.functional.scaled_dot_product_attention",
    shape=(1, N, D),
    dtype="float32",
)
def _chunked(rng: np.random.Generator) -> Bench:
    import torch

    def reference(Q, K, V):  # from_numpy shares memory: no copy is timed
        return _torch_sdpa(*(torch.from_numpy(x) for x in (Q, K, V)))

    Q, K, V = (rng.standard_normal((1, N, D)).astype(np.float32) for _ in range(3))
    small = tuple(rng.standard_normal((1, 37, D)).astype(np.float32) for _ in range(3))
    big = (small[0] * np.float32(10.0), small[1], small[2])
    return Bench(
        alice=lambda Q, K, V: A.chunked_attention(Q, K, V, chunk_size=CHUNK),
        reference=reference,
        args=(Q, K, V),
        checks={"n = 37 (one short chunk)": small, "scores up to ~300": big},
        rtol=1e-4,
        atol=1e-4,
    )


def _peak(fn, *args) -> int:
    """Peak bytes allocated (tracemalloc) while ``fn(*args)`` runs, result included."""
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    out = fn(*args)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del out
    return int(peak)


def memory_profile(
    ns=(1024, 4096, 8192), d: int = 64, chunk_size: int = 256, *, seed: int = 0
) -> dict:
    """Peak extra memory (bytes, tracemalloc) of chunked vs naive attention, float32.

    Returns ``{"n": [...], "chunked": [...], "naive": [...], "ratio": [...], "d": d,
    "chunk_size": chunk_size}`` (ratio = chunked / naive). The naive peak grows like
    n² (the score matrix and its softmax), the chunked one like n (one
    ``(n, chunk_size)`` tile and the accumulators).
    """
    rng = np.random.default_rng(seed)
    warm = rng.standard_normal((3, 8, d)).astype(np.float32)  # imports, caches
    A.chunked_attention(*warm, chunk_size=4)
    A.scaled_dot_product_attention(*warm)
    out = {
        "n": [],
        "chunked": [],
        "naive": [],
        "ratio": [],
        "d": d,
        "chunk_size": chunk_size,
    }
    for n in ns:
        Q, K, V = (rng.standard_normal((n, d)).astype(np.float32) for _ in range(3))
        c = _peak(
            lambda q, k, v: A.chunked_attention(q, k, v, chunk_size=chunk_size), Q, K, V
        )
        nv = _peak(A.scaled_dot_product_attention, Q, K, V)
        out["n"].append(int(n))
        out["chunked"].append(c)
        out["naive"].append(nv)
        out["ratio"].append(c / nv)
    return out


def plot_memory(profile: dict):
    """Log-log plot of the two peaks against n, with n and n² guide slopes."""
    from matplotlib.figure import Figure

    n = np.asarray(profile["n"], dtype=float)
    fig = Figure(figsize=(5.5, 3.8), layout="constrained")
    ax = fig.subplots()
    mib = 2.0**20
    ax.loglog(n, np.asarray(profile["naive"]) / mib, "o-", label="naive (n×n scores)")
    ax.loglog(
        n,
        np.asarray(profile["chunked"]) / mib,
        "s-",
        label=f"chunked (chunk {profile['chunk_size']})",
    )
    ax.loglog(
        n, profile["naive"][0] / mib * (n / n[0]) ** 2, ":", color="gray", label="∝ n²"
    )
    ax.loglog(
        n, profile["chunked"][0] / mib * (n / n[0]), "--", color="gray", label="∝ n"
    )
    ax.set(
        xlabel="sequence length n",
        ylabel="peak extra memory (MiB)",
        title=f"attention memory, float32, d = {profile['d']}",
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig
