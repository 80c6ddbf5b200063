"""Every lab through the sandboxed grader: the solution passes every check; for lab02
and lab05 (``graderkit.SANDBOX_ALL``) the generated student notebook also scores zero
with "not attempted" everywhere, and a round of mutants (one wrong answer per graded
function, substituted into the solution's notebook) fails each of those checks. (Other
checks of the same round may fail too: a lab's later exercises may call its earlier
functions.) Every mutant of every lab is judged from its record, without a sandbox, in
``test_grader_judge.py``.

Labs are discovered from ``labs/lab*.py``. They are split over this file and
``test_grader_labs_more.py`` (which takes every lab not named in ``HERE``) so that
the two halves run on different workers; the work itself is in ``graderkit.py``."""

from __future__ import annotations

import pytest
from graderkit import grade_solution_student_and_mutants, lab_params

#: the labs graded by this file (about half of the grading time)
HERE = {"lab05", "lab07", "lab11", "lab13"}


@pytest.mark.parametrize("source", lab_params(HERE))
def test_solution_student_and_mutants_through_the_grader(source, tmp_path):
    grade_solution_student_and_mutants(source, tmp_path)
