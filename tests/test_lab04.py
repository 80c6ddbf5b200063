"""Lab 04: the instructor source passes every check, the student notebook fails each
exercise cleanly (one NotImplementedError per exercise), every check rejects its known
wrong answers, and the committed student notebook is up to date."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from labkit import execute as _execute
from labkit import outputs as _outputs
from labkit import stdout as _stdout

from alice_lab import grading
from alice_lab.labs import student_notebook

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab04_linear_models.py"
STUDENT_DIR = ROOT / "labs" / "student"
STUDENT = STUDENT_DIR / "lab04_linear_models.ipynb"
EXERCISES = [f"4.{k}" for k in range(1, 7)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab04."))


@pytest.fixture(scope="module")
def instructor_run():
    import jupytext

    return _execute(jupytext.read(SOURCE), allow_errors=False)


@pytest.fixture(scope="module")
def student_run():
    return _execute(student_notebook(SOURCE), allow_errors=True)


# --- the notebooks, executed -------------------------------------------------------


@pytest.mark.slow
def test_instructor_source_passes_every_check(instructor_run):
    out = _stdout(instructor_run)
    for ex in EXERCISES:
        assert re.search(rf"^✓ Exercise {re.escape(ex)} \(\d+/\d+ pts\)", out, re.M), ex
    assert "✗" not in out
    total = sum(grading.CHECKS[i].points for i in IDS)
    assert f"Total for lab04: {total}/{total} pts" in out
    assert not _outputs(instructor_run, "error")
    stderr = [o.text for o in _outputs(instructor_run, "stream") if o.name == "stderr"]
    assert not stderr, stderr
    assert (
        "rows sum to 1: True" in out
        and "finite for logits in the thousands: True" in out
    )
    assert "keys: ['W']" in out


@pytest.mark.slow
def test_student_notebook_fails_each_exercise_cleanly(student_run):
    errors = _outputs(student_run, "error")
    assert {e.ename for e in errors} == {"NotImplementedError"}, [
        (e.ename, e.evalue) for e in errors
    ]
    assert sorted(e.evalue for e in errors) == [f"Exercise {ex}" for ex in EXERCISES]
    out = _stdout(student_run)
    for ex in EXERCISES:
        assert f"✗ Exercise {ex} (0/" in out
    assert re.search(r"Total for lab04: 0/\d+ pts", out)


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


@pytest.mark.parametrize("id", IDS)
def test_reference_passes(id):
    c = grading.CHECKS[id]
    result = grading.run(id, c.reference())
    assert result.passed, result.message
    assert result.points == result.max_points == c.points


@pytest.mark.parametrize("id", IDS)
def test_every_mutant_is_rejected(id):
    c = grading.CHECKS[id]
    assert len(c.mutants) >= 3, f"{id} needs known wrong answers to reject"
    for description, wrong in c.mutants.items():
        result = grading.run(id, wrong)
        assert not result.passed, f"{id} accepted the mutant {description!r}"
        assert result.points == 0 and result.status in ("failed", "error")


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
