# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Benchmarks
#
# `alice_lab` is written to be read, but it should not be needlessly slow. `make bench`
# times each from-scratch function against the framework kernel that does the same job,
# **in the same run on the same machine**, checks that both give the same numbers
# (including on `inf`, `-inf` and `NaN` inputs), and writes the table below. Each ratio
# is the median, over at least five interleaved rounds (alice_lab, then the reference,
# again and again), of alice_lab's time over the reference's: below 1 means alice_lab
# is faster. The table also gives the range of the rounds' ratios and the load average
# while the case ran, and marks with ⚠ a case whose rounds spread by more than 25%:
# its ratio should not be trusted. Where `alice_lab` takes a torch path on torch
# tensors (layer norm's fused kernel; cross-entropy's `log_softmax` and `gather`), the
# book's array-API path is timed as a case of its own. The table shows the last run committed to the repository, with the machine it
# ran on.

# %%
from pathlib import Path

from IPython.display import Image, Markdown, display

table = Path("../benchmarks/results/latest.md")
if not table.exists():  # when the notebook is opened from the repository root
    table = Path("benchmarks/results/latest.md")
display(Markdown(table.read_text(encoding="utf-8")))

# %% [markdown]
# ## Cost curves
#
# Three costs the book discusses are better seen as curves than as single ratios.
# `python -m benchmarks.curves` (part of `make bench`) measures them and stores the
# numbers in `benchmarks/results/curves.json`; the figures below are drawn from that
# file, with the machine it came from.
#
# * **Attention memory** (§11.2): naive attention holds the $(n, n)$ score matrix, so its
#   peak memory grows like $n^2$; the chunked version with the online softmax keeps one
#   $(n, \text{chunk})$ tile and running maxima and sums, so it grows like $n$.
# * **Graph diffusion** (§12.1): with about 20 neighbours per node the adjacency matrix is
#   almost all zeros; `alice_lab.graphs.diffusion` switches to a sparse product by itself.
# * **Parallel scan** (§13.3): the associative scan does more work than the loop but in
#   $O(\log n)$ sequential steps; whether that pays depends on the hardware (on a couple
#   of CPU cores it usually does not).

# %%
import io
import json
import sys

root = table.resolve().parents[2]
sys.path.insert(0, str(root))
import matplotlib.pyplot as plt  # noqa: E402

from benchmarks import bench_attention, bench_graphs, bench_scan  # noqa: E402


def show(fig):
    """Display a figure as a PNG, once, whether or not pyplot made it."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    display(Image(buffer.getvalue()))


curves = json.loads((root / "benchmarks" / "results" / "curves.json").read_text())
print(
    f"measured on {curves['date']}, {curves['machine']['platform']}, "
    f"{curves['machine']['cpus']} CPUs"
)
mem = curves["attention_memory"]
for n, c, nv, r in zip(
    mem["n"], mem["chunked"], mem["naive"], mem["ratio"], strict=True
):
    print(
        f"n = {n:5d}: chunked {c / 2**20:7.1f} MiB, naive {nv / 2**20:7.1f} MiB, "
        f"ratio {r:.3f}"
    )
show(bench_attention.plot_memory(mem))

# %%
graph = curves["graph_diffusion"]
for n, r in zip(graph["n"], graph["ratio"], strict=True):
    print(f"{n:5d} nodes: sparse is {r:.1f}× faster than dense")
show(bench_graphs.plot_scaling(graph))

# %%
scan = curves["scan"]
for n, p, s in zip(
    scan["lengths"], scan["associative_s"], scan["sequential_s"], strict=True
):
    print(f"n = {n:6d}: associative {1e3 * p:8.2f} ms, sequential {1e3 * s:8.2f} ms")
show(bench_scan.plot_scan(scan))

# %% [markdown]
# The asserted versions of these statements (chunked attention equals the naive result,
# sparse and dense diffusion agree, the scan equals the loop) are unit tests in `tests/`;
# this page only reports costs.
