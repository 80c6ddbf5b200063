"""Lab 08 (a 1-D CNN text classifier): the instructor source earns every point and
trains to a good accuracy, the student notebook runs without a single error (each
check says "not attempted", each demo waits for its exercise), and every check
rejects its known wrong answers (a mask read off the ids, a lookup into columns,
an assignment that drops repeated ids, a mask forgotten in the pooling, a missing
zero_grad, ...)."""

from __future__ import annotations

import re
from pathlib import Path

import labkit
import numpy as np
import pytest

from alice_course import grading

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab08_text_cnn.py"
EXERCISES = [f"8.{k}" for k in range(1, 7)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab08."))


@pytest.mark.slow
def test_instructor_source_earns_every_point_and_learns():
    nb, out = labkit.run_instructor(SOURCE)
    labkit.assert_full_marks(out, "lab08", EXERCISES)
    accs = [float(a) for a in re.findall(r"test accuracy ([\d.]+)", out)]
    assert accs and max(accs[:-1]) > 0.8, accs  # the last one is the baseline
    labkit.assert_no_stderr(nb)


@pytest.mark.slow
def test_student_notebook_runs_cleanly_and_scores_zero():
    nb, out = labkit.run_student(SOURCE)  # stops at the first cell that raises
    labkit.assert_ran_to_the_end(nb)
    labkit.assert_score_table(nb, "lab08", EXERCISES)
    labkit.assert_scores_zero(out, "lab08", EXERCISES, skipped=("8.1", "8.2"))


def test_six_exercises_are_registered():
    assert [grading.CHECKS[i].exercise for i in IDS] == EXERCISES
    assert [grading.CHECKS[i].name for i in IDS] == [
        "pad_and_mask",
        "embedding_lookup",
        "embedding_grad",
        "masked_mean",
        "TextCNN",
        "train_epoch",
    ]


def test_messages_say_what_differs():
    bad = grading.run(
        "lab08.2",
        grading.CHECKS["lab08.2"].mutants["columns instead of rows (E.T[ids])"],
    )
    assert "has shape (3, 5, 11); expected (3, 5, 4)" in bad.message
    names = grading.run("lab08.5", lambda n, e, k: __import__("torch").nn.Linear(n, k))
    assert not names.passed and "parameters" in names.message


def test_repeated_ids_are_what_an_assignment_gets_wrong():
    wrong = grading.CHECKS["lab08.3"].mutants[
        "assignment dE[ids] = G (repeated ids keep only the last)"
    ]
    ids = np.array([[1, 2, 3]])
    G = np.ones((1, 3, 2))
    assert np.array_equal(
        wrong(ids, G, 5), grading.CHECKS["lab08.3"].reference()(ids, G, 5)
    )
    ids = np.array([[1, 1, 3]])
    assert not np.array_equal(
        wrong(ids, G, 5), grading.CHECKS["lab08.3"].reference()(ids, G, 5)
    )
