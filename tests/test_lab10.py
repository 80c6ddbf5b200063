"""Lab 10 (a multi-view model with a transformer block): the instructor source earns
every point and its model beats nothing-but-chance and is invariant to the views'
order, the student notebook runs without a single error (each check says "not
attempted", each demo waits for its exercise), and every check rejects its known wrong
answers (a missing 1/√d, the softmax over the queries, a multiplicative or post-softmax
mask, the book's printed causal mask, heads split without a transpose, a model that
pools one view or adds view positions, ...)."""

from __future__ import annotations

import re
from pathlib import Path

import labkit
import pytest

from alice_course import grading

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab10_multiview.py"
EXERCISES = [f"10.{k}" for k in range(1, 5)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab10."))


@pytest.mark.slow
def test_instructor_source_earns_every_point_and_trains():
    nb, out = labkit.run_instructor(SOURCE)
    labkit.assert_full_marks(out, "lab10", EXERCISES)
    m = re.search(r"multi-view transformer ([\d.]+), averaging baseline ([\d.]+)", out)
    assert m and float(m.group(1)) > 0.3  # well above chance (0.1) after a short run
    gap = float(re.search(r"after reordering the views: ([\d.e+-]+)", out).group(1))
    assert gap < 1e-5
    labkit.assert_no_stderr(nb)


@pytest.mark.slow
def test_student_notebook_runs_cleanly_and_scores_zero():
    nb, out = labkit.run_student(SOURCE)  # stops at the first cell that raises
    labkit.assert_ran_to_the_end(nb)
    labkit.assert_score_table(nb, "lab10", EXERCISES)
    labkit.assert_scores_zero(out, "lab10", EXERCISES, skipped=("10.2", "10.4"))


def test_four_exercises_are_registered():
    assert [grading.CHECKS[i].exercise for i in IDS] == EXERCISES
    assert [grading.CHECKS[i].name for i in IDS] == [
        "attention",
        "causal_mask",
        "mha",
        "MultiViewModel",
    ]


def test_the_issue_s_named_mistakes_are_among_the_mutants():
    descriptions = {d for i in IDS for d in grading.CHECKS[i].mutants}
    for phrase in ("multiplicative", "missing 1/√d", "wrong axis"):
        assert any(phrase in d for d in descriptions), phrase


def test_messages_say_what_differs():
    bad = grading.run(
        "lab10.2",
        grading.CHECKS["lab10.2"].mutants[
            "the book's printed triangle (-inf below the diagonal)"
        ],
    )
    assert "causal_mask(4)[1, 0] = -inf" in bad.message and "must be 0" in bad.message
    pos = grading.run(
        "lab10.4",
        grading.CHECKS["lab10.4"].mutants["adds a learned embedding per view position"],
    )
    assert "views' order" in pos.message or "order" in pos.message
