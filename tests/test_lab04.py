"""Lab 04: the instructor source passes every check, the student notebook runs to the
end (Run all: no cell raises; each check says "not attempted", each demo waits for its
exercise, the score table is printed), every check rejects its known
wrong answers, and the committed student notebook is up to date."""

from __future__ import annotations

from pathlib import Path

import labkit
import pytest

from alice_course import grading

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab04_linear_models.py"
STUDENT_DIR = ROOT / "labs" / "student"
STUDENT = STUDENT_DIR / "lab04_linear_models.ipynb"
EXERCISES = [f"4.{k}" for k in range(1, 7)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab04."))


@pytest.fixture(scope="module")
def instructor_run():
    return labkit.run_instructor(SOURCE)


@pytest.fixture(scope="module")
def student_run():
    return labkit.run_student(SOURCE)


# --- the notebooks, executed -------------------------------------------------------


@pytest.mark.slow
def test_instructor_source_passes_every_check(instructor_run):
    nb, out = instructor_run
    labkit.assert_full_marks(out, "lab04", EXERCISES)
    labkit.assert_no_stderr(nb)
    assert (
        "rows sum to 1: True" in out
        and "finite for logits in the thousands: True" in out
    )
    assert "keys: ['W']" in out


@pytest.mark.slow
def test_student_notebook_runs_to_the_end_and_scores_zero(student_run):
    nb, out = student_run
    labkit.assert_ran_to_the_end(nb)
    labkit.assert_score_table(nb, "lab04", EXERCISES)
    # each exercise fails cleanly, and each demo waits for its exercise
    labkit.assert_scores_zero(out, "lab04", EXERCISES, skipped=EXERCISES)


# --- the checks ---------------------------------------------------------------------


def test_six_checks_named_like_the_lab():
    assert [grading.CHECKS[i].exercise for i in IDS] == EXERCISES
    names = [grading.CHECKS[i].name for i in IDS]
    assert names == [
        "init_params",
        "predict",
        "gradients",
        "loss_and_accuracy",
        "train",
        "compare",
    ]
    text = SOURCE.read_text(encoding="utf-8")
    for name in names:
        assert f"def {name}(" in text


def test_the_solutions_in_the_lab_pass_the_checks():
    """The instructor's own functions (executed from the source, not alice_lab's
    references) pass every check: the lab and its grader agree."""
    import jupytext

    nb = jupytext.read(SOURCE)
    ns: dict = {}
    exec("import numpy as np", ns)
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.lstrip().startswith("def "):
            exec(cell.source, ns)
    for i in IDS:
        c = grading.CHECKS[i]
        result = grading.run(i, ns[c.name])
        assert result.passed, (i, result.message)


def test_report_adds_up(capsys):
    ns = {grading.CHECKS[i].name: grading.CHECKS[i].reference() for i in IDS[:3]}
    results = grading.report("lab04", ns)
    out = capsys.readouterr().out
    assert [r.passed for r in results] == [True, True, True, False, False, False]
    assert "no function named 'loss_and_accuracy'" in out
    assert "Total for lab04: 7/14 pts" in out
