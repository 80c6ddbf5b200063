"""Labs: the instructor source passes every check, the student notebook runs to the
end (Run all) and scores zero, and ``make_student`` refuses to destroy anything (every
check's reference and mutants: test_lab_checks.py)."""

from __future__ import annotations

import re
from pathlib import Path

import labkit
import nbformat
import numpy as np
import pytest
from labkit import execute as _execute, outputs as _outputs, stdout as _stdout

from alice_course import grading
from alice_course.labs import check_student, make_student

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab02_gradient_descent.py"
STUDENT_DIR = ROOT / "labs" / "student"
EXERCISES = [f"2.{k}" for k in range(1, 7)]


@pytest.fixture(scope="module")
def instructor_run():
    import jupytext

    return _execute(jupytext.read(SOURCE), allow_errors=False)


@pytest.fixture(scope="module")
def student_run():
    return labkit.run_student(SOURCE)  # stops at the first cell that raises


# --- the notebooks, executed ------------------------------------------------------


@pytest.mark.slow
def test_instructor_source_passes_every_check(instructor_run):
    out = _stdout(instructor_run)
    for ex in EXERCISES:
        assert re.search(rf"^✓ Exercise {re.escape(ex)} \(\d+/\d+ pts\)", out, re.M), ex
    assert "✗" not in out and "skipped until" not in out  # every demo ran
    total = sum(c.points for id, c in grading.CHECKS.items() if id.startswith("lab02."))
    assert f"Total for lab02: {total}/{total} pts" in out
    assert not _outputs(instructor_run, "error")
    stderr = [o.text for o in _outputs(instructor_run, "stream") if o.name == "stderr"]
    assert not stderr, stderr  # no warnings either
    assert "True" in out and "False" not in out  # the comparisons printed in the demos


@pytest.mark.slow
def test_student_notebook_runs_to_the_end_and_scores_zero(student_run):
    nb, out = student_run
    labkit.assert_ran_to_the_end(nb)  # no cell raised, the widget at the end ran
    labkit.assert_score_table(nb, "lab02", EXERCISES)
    # each exercise fails cleanly, and each demo waits for its exercise
    labkit.assert_scores_zero(out, "lab02", EXERCISES, skipped=EXERCISES)
    labkit.assert_no_stderr(nb)


# --- the checks -------------------------------------------------------------------


def test_check_prints_one_line_per_outcome(capsys):
    def stub(X):
        raise NotImplementedError("Exercise 2.1")

    def broken(X):
        return X.nonexistent

    def swapped(X):
        return np.sin(X[:, 1]) * np.cos(X[:, 0]) + np.sin(0.5 * X[:, 1]) * np.cos(
            0.5 * X[:, 0]
        )

    ok = grading.check("lab02.1", grading.CHECKS["lab02.1"].reference())
    todo = grading.check("lab02.1", stub)
    err = grading.check("lab02.1", broken)
    bad = grading.check("lab02.1", swapped)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("✓ Exercise 2.1 (2/2 pts): ")
    assert lines[1] == (
        "✗ Exercise 2.1 (0/2 pts): not attempted "
        "(the stub still raises NotImplementedError)"
    )
    assert lines[2].startswith(
        "✗ Exercise 2.1 (0/2 pts): your code raised AttributeError"
    )
    assert lines[3].startswith(
        "✗ Exercise 2.1 (0/2 pts): f(X) differs from the reference"
    )
    assert [r.status for r in (ok, todo, err, bad)] == [
        "passed",
        "not attempted",
        "error",
        "failed",
    ]
    with pytest.raises(KeyError, match="no check named"):
        grading.run("lab99.1", stub)


def test_report_adds_up_and_tolerates_missing_names(capsys):
    ns = {
        "f": grading.CHECKS["lab02.1"].reference(),
        "grad_f": grading.CHECKS["lab02.2"].reference(),
    }
    results = grading.report("lab02", ns)
    out = capsys.readouterr().out
    assert [r.passed for r in results] == [True, True, False, False, False, False]
    assert "no function named 'gradient_descent'" in out
    assert "Total for lab02: 4/14 pts" in out


# --- make_student: what it writes and what it refuses -----------------------------

LAB = '''# %% [markdown]
# # A tiny lab
#
# ## Exercise 7.1 — first

# %%
def first(x):
    """Doc stays."""
    ### BEGIN SOLUTION
    return x + 1
    ### END SOLUTION

# %% [markdown]
# ## Exercise 7.2 — second (unlike Exercise 7.1, this one has hidden tests)

# %%
class Box:
    def second(self, x):
        if x:
            ### BEGIN SOLUTION
            return 2 * x
            ### END SOLUTION
        return 0

# %%
assert first(1) == 2
### BEGIN HIDDEN TESTS
assert Box().second(3) == 6
### END HIDDEN TESTS

# %% tags=["solution-only"]
print("instructor notes")
'''


def _write(tmp_path: Path, text: str, name: str = "lab07_tiny.py") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_stubs_keep_indentation_and_exercise_ids(tmp_path):
    out = make_student(_write(tmp_path, LAB), tmp_path / "student")
    nb = nbformat.read(out, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert code[0] == (
        'def first(x):\n    """Doc stays."""\n'
        '    raise NotImplementedError("Exercise 7.1")'
    )
    assert (
        '            raise NotImplementedError("Exercise 7.2")\n        return 0'
        in code[1]
    )
    assert code[2] == "assert first(1) == 2"  # hidden tests gone
    assert not any("instructor notes" in c for c in code)  # solution-only cell dropped
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert nb.metadata["alice_lab"]["generated"] is True
    ns: dict = {}
    exec(code[0] + "\n" + code[1], ns)
    with pytest.raises(NotImplementedError, match=r"^Exercise 7\.1$"):
        ns["first"](1)
    with pytest.raises(NotImplementedError, match=r"^Exercise 7\.2$"):
        ns["Box"]().second(1)


def test_refuses_to_overwrite_the_source(tmp_path):
    import jupytext

    source = tmp_path / "lab07_tiny.ipynb"
    jupytext.write(jupytext.reads(LAB, fmt="py:percent"), source)
    before = source.read_bytes()
    with pytest.raises(ValueError, match="instructor source"):
        make_student(source, tmp_path, force=True)
    assert source.read_bytes() == before


def test_refuses_to_overwrite_a_file_it_did_not_generate(tmp_path):
    source = _write(tmp_path, LAB)
    out = tmp_path / "student"
    out.mkdir()
    precious = out / "lab07_tiny.ipynb"
    precious.write_text('{"cells": [], "metadata": {}, "nbformat": 4}')
    for force in (False, True):
        with pytest.raises(FileExistsError, match="not a student notebook generated"):
            make_student(source, out, force=force)
    assert precious.read_text() == '{"cells": [], "metadata": {}, "nbformat": 4}'


def test_overwriting_a_generated_notebook_needs_force(tmp_path):
    source = _write(tmp_path, LAB)
    out = make_student(source, tmp_path / "student")
    with pytest.raises(FileExistsError, match="force=True"):
        make_student(source, tmp_path / "student")
    assert check_student(source, tmp_path / "student")
    source.write_text(LAB.replace("# # A tiny lab", "# # A tiny lab, revised"))
    assert not check_student(source, tmp_path / "student")
    assert make_student(source, tmp_path / "student", force=True) == out
    assert check_student(source, tmp_path / "student")


def _line(text: str, snippet: str, nth: int = 0) -> int:
    """1-based number of the ``nth`` line of ``text`` that contains ``snippet``."""
    return [i for i, ln in enumerate(text.splitlines(), 1) if snippet in ln][nth]


_NO_END = LAB.replace("    ### END SOLUTION\n\n# %% [markdown]", "\n# %% [markdown]")
_NO_BEGIN = LAB.replace("            ### BEGIN SOLUTION\n", "")
_NESTED = LAB.replace("    return x + 1\n", "    ### BEGIN SOLUTION\n")
_UNCLOSED = LAB + "\n# %%\n### BEGIN HIDDEN TESTS\nassert True\n"
_NO_HEADING = LAB.replace("# ## Exercise 7.1 — first", "# Intro")


@pytest.mark.parametrize(
    "broken, line, message",
    [
        (
            _NO_END,
            _line(_NO_END, "# %% [markdown]", 1),
            "new cell starts inside the SOLUTION",
        ),
        (_NO_BEGIN, _line(_NO_BEGIN, "END SOLUTION", 1), "END SOLUTION without"),
        (_NESTED, _line(_NESTED, "BEGIN SOLUTION", 1), "cannot nest"),
        (_UNCLOSED, _line(_UNCLOSED, "BEGIN HIDDEN TESTS", 1), "never closed"),
        (_NO_HEADING, _line(_NO_HEADING, "BEGIN SOLUTION"), "before any 'Exercise"),
    ],
    ids=["cell-boundary", "end-without-begin", "nested", "unclosed", "no-exercise"],
)
def test_unbalanced_markers_name_the_line(tmp_path, broken, line, message):
    source = _write(tmp_path, broken)
    with pytest.raises(ValueError, match=rf"lab07_tiny\.py:{line}: .*{message}"):
        make_student(source, tmp_path / "student")
    assert not (tmp_path / "student").exists()
