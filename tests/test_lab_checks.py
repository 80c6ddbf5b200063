"""Every check of every lab in labs/: each lab registers checks, a stub still raising
NotImplementedError is "not attempted", and each check has enough known wrong answers
(mutants). The reference earning full points and each mutant being rejected, not all
for one catch-all reason, are checked in tests/test_grader_judge.py from the runs the
grader judges."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from alice_course import grading

ROOT = Path(__file__).resolve().parents[1]
LABS = sorted({p.stem[:5] for p in (ROOT / "labs").glob("lab*.py")})
MODULES = {lab: importlib.import_module(f"alice_course.grading.{lab}") for lab in LABS}
IDS = sorted(i for i in grading.CHECKS if i.split(".")[0] in LABS)
#: the fewest mutants a check may have; labs not named here need 3
MIN_MUTANTS = {"lab06": 4, "lab10": 4}


def test_every_lab_source_has_checks_and_every_check_a_lab_source():
    assert LABS and all(MODULES.values())
    for lab in LABS:
        assert any(i.startswith(lab + ".") for i in IDS), f"{lab} registers no checks"
    assert IDS == sorted(grading.CHECKS), sorted(set(grading.CHECKS) - set(IDS))


@pytest.mark.parametrize("id", IDS)
def test_a_stub_is_not_attempted_and_mutants_are_enough(id):
    """(The reference passing and every mutant failing, each for its own reason, are
    checked from the same runs the grader judges: tests/test_grader_judge.py.)"""
    c = grading.CHECKS[id]

    def stub(*args, **kwargs):
        raise NotImplementedError(f"Exercise {c.exercise}")

    result = grading.run(id, stub)
    assert result.status == "not attempted" and result.points == 0, result.message
    least = MIN_MUTANTS.get(id.split(".")[0], 3)
    assert len(c.mutants) >= least, f"{id} needs {least} plausible wrong answers"
