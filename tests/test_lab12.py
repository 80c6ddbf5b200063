"""Lab 12 (GCN, GAT/GATv2 and images as patch graphs, in PyTorch): the instructor
source runs and passes every check, the student notebook fails each exercise cleanly,
every check rejects its known wrong answers."""

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
SOURCE = ROOT / "labs" / "lab12_gnn.py"
EXERCISES = [f"12.{k}" for k in range(1, 6)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab12."))


@pytest.mark.slow
def test_instructor_source_passes_every_check():
    import jupytext

    nb = _execute(jupytext.read(SOURCE), allow_errors=False)
    out = _stdout(nb)
    for ex in EXERCISES:
        assert re.search(rf"^✓ Exercise {re.escape(ex)} \(\d+/\d+ pts\)", out, re.M), ex
    assert "✗" not in out
    total = sum(grading.CHECKS[i].points for i in IDS)
    assert f"Total for lab12: {total}/{total} pts" in out
    assert not _outputs(nb, "error")
    accs = {
        (m, d): float(a)
        for m, d, a in re.findall(r"(GCN|GATv2) on (\w+): test accuracy ([0-9.]+)", out)
    }
    assert len(accs) == 4 and min(accs.values()) > 0.85, accs
    digits = float(re.search(r"on the digits: test accuracy ([0-9.]+)", out).group(1))
    assert digits > 0.2  # chance is 0.1; no positional information (see the lab)


@pytest.mark.slow
def test_student_notebook_fails_each_exercise_cleanly():
    nb = _execute(student_notebook(SOURCE), allow_errors=True)
    errors = _outputs(nb, "error")
    assert {e.ename for e in errors} == {"NotImplementedError"}, [
        (e.ename, e.evalue) for e in errors
    ]
    assert sorted(e.evalue for e in errors) == sorted(
        f"Exercise {ex}" for ex in EXERCISES
    )
    out = _stdout(nb)
    for ex in EXERCISES:
        assert f"✗ Exercise {ex} (0/" in out
    assert re.search(r"Total for lab12: 0/\d+ pts", out)


def test_five_exercises_are_registered():
    assert IDS == [f"lab12.{k}" for k in range(1, 6)]
    names = [grading.CHECKS[i].name for i in IDS]
    assert names == ["normalize_adjacency", "gcn_forward", "gat_attention",
                     "patch_adjacency", "mean_readout"]  # fmt: skip


@pytest.mark.parametrize("id", IDS)
def test_reference_passes_and_a_stub_is_not_attempted(id):
    c = grading.CHECKS[id]
    result = grading.run(id, c.reference())
    assert result.passed, result.message
    assert result.points == c.points

    def stub(*args, **kwargs):
        raise NotImplementedError(f"Exercise {c.exercise}")

    assert grading.run(id, stub).status == "not attempted"


@pytest.mark.parametrize("id", IDS)
def test_every_mutant_is_rejected_for_its_own_reason(id):
    c = grading.CHECKS[id]
    assert len(c.mutants) >= 3, f"{id} needs at least three plausible wrong answers"
    messages = set()
    for description, wrong in c.mutants.items():
        result = grading.run(id, wrong)
        assert not result.passed, f"{id} accepted the mutant {description!r}"
        assert result.points == 0 and result.status in ("failed", "error")
        messages.add(result.message)
    assert len(messages) >= 2


def test_a_broken_answer_is_an_error_not_a_crash():
    result = grading.run("lab12.1", lambda A: A.nonexistent)
    assert result.status == "error" and "AttributeError" in result.message
