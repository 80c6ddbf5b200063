"""Lab 09 (scaling up a CNN on the digits): the instructor source earns every point and
fine-tuning runs, the student notebook runs without a single error and scores zero, no
solution line leaks into it, and every check rejects its known wrong answers (dropout
without rescaling or rescaled by the drop probability, batch norm with the unbiased
variance or the running rate swapped, the skip added after the ReLU, a circular shift,
a backbone left unfrozen, ...)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from labkit import execute as _execute
from labkit import outputs as _outputs
from labkit import stdout as _stdout

from alice_lab import grading
from alice_lab.labs import student_notebook

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab09_scaling_up.py"
EXERCISES = [f"9.{k}" for k in range(1, 6)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab09."))


@pytest.mark.slow
def test_instructor_source_earns_every_point():
    import jupytext

    nb = _execute(jupytext.read(SOURCE), allow_errors=False)
    out = _stdout(nb)
    for ex in EXERCISES:
        assert re.search(rf"^✓ Exercise {re.escape(ex)} \(\d+/\d+ pts\)", out, re.M), ex
    assert "✗" not in out and "skipped until" not in out
    total = sum(grading.CHECKS[i].points for i in IDS)
    assert f"Total for lab09: {total}/{total} pts" in out
    assert "backbone unchanged while training the head: True" in out
    m = re.search(r"pretrained on 0-4: held-out accuracy ([\d.]+)", out)
    assert m and float(m.group(1)) > 0.5
    stderr = [o.text for o in _outputs(nb, "stream") if o.name == "stderr"]
    assert not stderr, stderr


@pytest.mark.slow
def test_student_notebook_runs_cleanly_and_scores_zero():
    nb = _execute(student_notebook(SOURCE), allow_errors=True)
    errors = _outputs(nb, "error")
    assert not errors, [(e.ename, e.evalue) for e in errors]
    out = _stdout(nb)
    for ex in EXERCISES:
        assert f"✗ Exercise {ex} (0/" in out
    for ex in ("9.1", "9.3", "9.4"):
        assert f"(skipped until Exercise {ex} is done)" in out
    assert re.search(r"Total for lab09: 0/\d+ pts", out)


def test_five_exercises_are_registered():
    assert [grading.CHECKS[i].exercise for i in IDS] == EXERCISES
    assert [grading.CHECKS[i].name for i in IDS] == [
        "inverted_dropout",
        "batch_norm_forward",
        "residual_block",
        "random_shift",
        "prepare_finetuning",
    ]


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


def test_the_issue_s_named_mistakes_are_among_the_mutants():
    descriptions = {d for i in IDS for d in grading.CHECKS[i].mutants}
    for phrase in (
        "without rescaling",
        "drop_prob instead of keep_prob",
        "unbiased variance",
        "rate swapped",
        "after the final ReLU",
    ):
        assert any(phrase in d for d in descriptions), phrase


def test_batch_norm_reference_matches_alice_lab_batchnorm():
    from alice_lab.normalization import BatchNorm

    ref = grading.CHECKS["lab09.2"].reference()
    X = np.random.default_rng(0).normal(size=(4, 3, 3, 2))
    bn = BatchNorm(2)
    Y = bn(X)
    got = ref(X, np.ones(2), np.zeros(2), np.zeros(2), np.ones(2), True)
    np.testing.assert_allclose(got[0], Y, atol=1e-12)
    np.testing.assert_allclose(got[2], bn.running_var, atol=1e-12)


def test_messages_say_what_differs():
    bad = grading.run(
        "lab09.1",
        grading.CHECKS["lab09.1"].mutants["keep_prob used as the drop probability"],
    )
    assert "were kept; expected about 0.8" in bad.message
    roll = grading.run(
        "lab09.4",
        grading.CHECKS["lab09.4"].mutants[
            "circular shift (np.roll) instead of zero fill"
        ],
    )
    assert "zero-filled border" in roll.message
