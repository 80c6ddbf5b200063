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
# (including on `inf`, `-inf` and `NaN` inputs), and writes the table below. Ratios are
# alice_lab's time over the reference's: below 1 means alice_lab is faster. The table
# shows the last run committed to the repository, with the machine it ran on.

# %%
from pathlib import Path

from IPython.display import Markdown, display

table = Path("../benchmarks/results/latest.md")
if not table.exists():  # when the notebook is opened from the repository root
    table = Path("benchmarks/results/latest.md")
display(Markdown(table.read_text(encoding="utf-8")))
