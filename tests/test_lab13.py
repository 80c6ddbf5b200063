"""Lab 13 (recurrent models): the instructor source earns every point and trains its
three models, the student notebook runs without a single error and scores zero, and
every check rejects its known wrong answers (state not carried, gates swapped, the
forget-gate bias with the wrong sign, the book's printed PB, a non-associative scan
combine, ...)."""

from __future__ import annotations

import re
from pathlib import Path

import labkit
import numpy as np
import pytest

from alice_course import grading

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab13_recurrent.py"
EXERCISES = [f"13.{k}" for k in range(1, 7)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab13."))


@pytest.mark.slow
def test_instructor_source_earns_every_point_and_trains():
    nb, out = labkit.run_instructor(SOURCE)
    labkit.assert_full_marks(out, "lab13", EXERCISES)
    m = re.search(r"RNN sine forecasting: MSE ([\d.]+) -> ([\d.]+)", out)
    assert m and float(m.group(2)) < 0.5 * float(m.group(1))
    gap = float(
        re.search(r"your diagonal form → your scan\): ([\d.e+-]+)", out).group(1)
    )
    assert gap < 1e-8
    ssm = float(re.search(r"delay 3: final MSE ([\d.]+)", out).group(1))
    assert ssm < 0.1
    labkit.assert_no_stderr(nb)


@pytest.mark.slow
def test_student_notebook_runs_cleanly_and_scores_zero():
    nb, out = labkit.run_student(SOURCE)  # stops at the first cell that raises
    labkit.assert_ran_to_the_end(nb)
    labkit.assert_score_table(nb, "lab13", EXERCISES)
    labkit.assert_scores_zero(out, "lab13", EXERCISES, skipped=("13.1", "13.6", "13.4"))


def test_six_exercises_are_registered():
    assert [grading.CHECKS[i].exercise for i in IDS] == EXERCISES
    assert [grading.CHECKS[i].name for i in IDS] == [
        "rnn_forward",
        "lstm_step",
        "init_forget_bias",
        "diagonalize_ssm",
        "combine",
        "adding_problem",
    ]


def test_the_issue_s_named_mistakes_are_among_the_mutants():
    descriptions = {d for i in IDS for d in grading.CHECKS[i].mutants}
    for phrase in (
        "hidden state not carried",
        "gates swapped",
        "wrong sign",
        "P B",
        "non-associative",
    ):
        assert any(phrase in d for d in descriptions), phrase


def test_non_associative_combine_would_pass_a_sequential_loop():
    """The mutant is right on the loop, wrong on a tree: only the scan exposes it."""
    from alice_lab.recurrent import associative_scan, sequential_scan

    wrong = grading.CHECKS["lab13.5"].mutants[
        "non-associative combine: keeps only the later a (a2, a2 b1 + b2)"
    ]
    r = np.random.default_rng(0)
    pairs = list(zip(r.uniform(0.5, 1, 8), r.standard_normal(8), strict=True))
    loop = [p[1] for p in sequential_scan(wrong, pairs)]
    h, ref = 0.0, []
    for a, b in pairs:
        h = a * h + b
        ref.append(h)
    np.testing.assert_allclose(loop, ref)
    tree = [p[1] for p in associative_scan(wrong, pairs, check_associative=False)]
    assert not np.allclose(tree, ref)


def test_messages_say_what_differs():
    bad = grading.run(
        "lab13.4", grading.CHECKS["lab13.4"].mutants["the book's printed B̄ = P B"]
    )
    assert "outputs of the diagonal SSM differs" in bad.message
    one = grading.run(
        "lab13.6",
        grading.CHECKS["lab13.6"].mutants[
            "markers drawn with replacement (sometimes only one marker)"
        ],
    )
    assert "exactly two markers" in one.message
