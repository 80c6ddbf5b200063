"""Lab 09 (scaling up a CNN on the digits): the instructor source earns every point and
fine-tuning runs, the student notebook runs without a single error and scores zero, no
solution line leaks into it, and every check rejects its known wrong answers (dropout
without rescaling or rescaled by the drop probability, batch norm with the unbiased
variance or the running rate swapped, the skip added after the ReLU, a circular shift,
a backbone left unfrozen, ...)."""

from __future__ import annotations

import re
from pathlib import Path

import labkit
import numpy as np
import pytest

from alice_course import grading

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab09_scaling_up.py"
EXERCISES = [f"9.{k}" for k in range(1, 6)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab09."))


@pytest.mark.slow
def test_instructor_source_earns_every_point():
    nb, out = labkit.run_instructor(SOURCE)
    labkit.assert_full_marks(out, "lab09", EXERCISES)
    assert "backbone unchanged while training the head: True" in out
    m = re.search(r"pretrained on 0-4: held-out accuracy ([\d.]+)", out)
    assert m and float(m.group(1)) > 0.5
    labkit.assert_no_stderr(nb)


@pytest.mark.slow
def test_student_notebook_runs_cleanly_and_scores_zero():
    nb, out = labkit.run_student(SOURCE)  # stops at the first cell that raises
    labkit.assert_ran_to_the_end(nb)
    labkit.assert_score_table(nb, "lab09", EXERCISES)
    labkit.assert_scores_zero(out, "lab09", EXERCISES, skipped=("9.1", "9.3", "9.4"))


def test_five_exercises_are_registered():
    assert [grading.CHECKS[i].exercise for i in IDS] == EXERCISES
    assert [grading.CHECKS[i].name for i in IDS] == [
        "inverted_dropout",
        "batch_norm_forward",
        "residual_block",
        "random_shift",
        "prepare_finetuning",
    ]


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


def test_batch_norm_reference_matches_torch_batchnorm2d():
    torch = pytest.importorskip("torch")
    ref = grading.CHECKS["lab09.2"].reference()
    X = np.random.default_rng(0).normal(size=(4, 3, 3, 2))
    bn = torch.nn.BatchNorm2d(2, dtype=torch.float64)  # training mode, momentum 0.1
    Y = bn(torch.tensor(X).movedim(-1, 1)).movedim(1, -1).detach().numpy()
    got = ref(X, np.ones(2), np.zeros(2), np.zeros(2), np.ones(2), True)
    np.testing.assert_allclose(got[0], Y, atol=1e-12)
    np.testing.assert_allclose(got[1], bn.running_mean.numpy(), atol=1e-12)
    np.testing.assert_allclose(got[2], bn.running_var.numpy(), atol=1e-12)


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
