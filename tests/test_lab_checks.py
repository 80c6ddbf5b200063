"""Every check of every lab in labs/: the reference solution earns full points, a stub
still raising NotImplementedError is "not attempted", and each known wrong answer (the
check's mutants) is rejected with 0 points, not all for one catch-all reason."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from alice_lab import grading

ROOT = Path(__file__).resolve().parents[1]
LABS = sorted({p.stem[:5] for p in (ROOT / "labs").glob("lab*.py")})
MODULES = {lab: importlib.import_module(f"alice_lab.grading.{lab}") for lab in LABS}
IDS = sorted(i for i in grading.CHECKS if i.split(".")[0] in LABS)
#: the fewest mutants a check may have; labs not named here need 3
MIN_MUTANTS = {"lab06": 4, "lab10": 4}


def test_every_lab_source_has_checks_and_every_check_a_lab_source():
    assert LABS and all(MODULES.values())
    for lab in LABS:
        assert any(i.startswith(lab + ".") for i in IDS), f"{lab} registers no checks"
    assert IDS == sorted(grading.CHECKS), sorted(set(grading.CHECKS) - set(IDS))


@pytest.mark.parametrize("id", IDS)
def test_reference_passes_and_a_stub_is_not_attempted(id):
    c = grading.CHECKS[id]
    result = grading.run(id, c.reference())
    assert result.passed, result.message
    assert result.points == result.max_points == c.points

    def stub(*args, **kwargs):
        raise NotImplementedError(f"Exercise {c.exercise}")

    assert grading.run(id, stub).status == "not attempted"


@pytest.mark.parametrize("id", IDS)
def test_every_mutant_is_rejected_for_its_own_reason(id):
    c = grading.CHECKS[id]
    least = MIN_MUTANTS.get(id.split(".")[0], 3)
    assert len(c.mutants) >= least, f"{id} needs {least} plausible wrong answers"
    messages = set()
    for description, wrong in c.mutants.items():
        result = grading.run(id, wrong)
        assert not result.passed, f"{id} accepted the mutant {description!r}"
        assert result.points == 0 and result.status in ("failed", "error")
        messages.add(result.message)
    assert len(messages) >= 2  # not one catch-all failure
