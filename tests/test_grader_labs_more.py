"""The other half of the labs through the sandboxed grader (see test_grader_labs.py):
every lab with a source in ``labs/`` that test_grader_labs.py does not take."""

from __future__ import annotations

import pytest
from graderkit import SOURCES, _lab, grade_solution_student_and_mutants, lab_params
from test_grader_labs import HERE

OTHERS = {_lab(s) for s in SOURCES} - HERE


def test_the_two_files_cover_every_lab():
    assert HERE <= {_lab(s) for s in SOURCES}, HERE
    assert OTHERS and OTHERS | HERE == {_lab(s) for s in SOURCES}


@pytest.mark.parametrize("source", lab_params(OTHERS))
def test_solution_student_and_mutants_through_the_grader(source, tmp_path):
    grade_solution_student_and_mutants(source, tmp_path)
