"""Lab 06 (a reverse-mode engine of your own): the instructor source earns every point
and trains to PyTorch's accuracy, the student notebook runs without a single error
(each check says "not attempted", each demo waits for its exercise), no solution line
leaks into the student notebook, and every check rejects its known wrong answers
(transposed VJPs, a missing broadcasting reduction, gradients overwritten instead of
accumulated, an unstable softmax, ...)."""

from __future__ import annotations

import re
from pathlib import Path

import labkit
import numpy as np
import pytest

from alice_course import grading

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab06_autodiff.py"
STUDENT_DIR = ROOT / "labs" / "student"
EXERCISES = [f"6.{k}" for k in range(1, 7)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab06."))


# --- the notebooks, executed ----------------------------------------------------------


@pytest.mark.slow
def test_instructor_source_earns_every_point_and_matches_pytorch():
    nb, out = labkit.run_instructor(SOURCE)
    labkit.assert_full_marks(out, "lab06", EXERCISES)
    m = re.search(r"test accuracy: your engine ([\d.]+), PyTorch ([\d.]+)", out)
    assert m and m.group(1) == m.group(2) and float(m.group(1)) > 0.85
    gap = float(re.search(r"between the final weights: ([\d.e+-]+)", out).group(1))
    assert gap < 1e-10
    labkit.assert_no_stderr(nb)


@pytest.mark.slow
def test_student_notebook_runs_cleanly_and_scores_zero():
    nb, out = labkit.run_student(SOURCE)  # stops at the first cell that raises
    labkit.assert_ran_to_the_end(nb)
    labkit.assert_score_table(nb, "lab06", EXERCISES)
    # the demos wait for their exercise
    labkit.assert_scores_zero(
        out, "lab06", EXERCISES, skipped=("6.1", "6.2", "6.3", "6.5", "6.6")
    )


# --- the checks -----------------------------------------------------------------------


def test_six_exercises_are_registered():
    assert [grading.CHECKS[i].exercise for i in IDS] == EXERCISES
    names = [grading.CHECKS[i].name for i in IDS]
    assert names == [
        "matmul_vjp",
        "add_bias_vjp",
        "softplus_vjp",
        "logsumexp_vjp",
        "backward",
        "train_step",
    ]


def test_the_issue_s_named_mistakes_are_among_the_mutants():
    descriptions = {d for i in IDS for d in grading.CHECKS[i].mutants}
    for phrase in ("transposed", "missing broadcasting reduction", "not accumulated"):
        assert any(phrase in d for d in descriptions), phrase


def test_square_shapes_catch_a_transposed_weight_gradient():
    """(Xᵀ G)ᵀ has the right shape when W is square: only the values give it away."""
    wrong = grading.CHECKS["lab06.1"].mutants[
        "weight gradient transposed, written (Xᵀ G)ᵀ"
    ]
    r = np.random.default_rng(0)
    X, W, g = (
        r.standard_normal((4, 4)),
        r.standard_normal((4, 4)),
        r.standard_normal((4, 4)),
    )
    assert wrong(g, X, W)[1].shape == W.shape
    assert not np.allclose(wrong(g, X, W)[1], X.T @ g)


def test_messages_say_what_differs():
    bad = grading.run(
        "lab06.2",
        grading.CHECKS["lab06.2"].mutants["missing broadcasting reduction (db = G)"],
    )
    assert "has shape (6, 3); expected (3,)" in bad.message
    deep = grading.run(
        "lab06.5",
        grading.CHECKS["lab06.5"].mutants[
            "recursive, path by path (hits the recursion limit)"
        ],
    )
    assert deep.status == "error" and "RecursionError" in deep.message
