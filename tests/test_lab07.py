"""Lab 07 (convolutions from scratch, a CNN in PyTorch and JAX): the instructor source
earns every point and trains both CNNs, the student notebook runs without an error and
scores zero, and every check rejects its known wrong answers (a flipped kernel, a wrong
offset, the channel axis mixed up, average instead of max, a missing ReLU, ...)."""

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
SOURCE = ROOT / "labs" / "lab07_cnn.py"
EXERCISES = [f"7.{k}" for k in range(1, 6)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab07."))


@pytest.mark.slow
def test_instructor_source_earns_every_point_and_trains():
    import jupytext

    nb = _execute(jupytext.read(SOURCE), allow_errors=False)
    out = _stdout(nb)
    for ex in EXERCISES:
        assert re.search(rf"^✓ Exercise {re.escape(ex)} \(\d+/\d+ pts\)", out, re.M), ex
    assert "✗" not in out and "skipped until" not in out
    total = sum(grading.CHECKS[i].points for i in IDS)
    assert f"Total for lab07: {total}/{total} pts" in out
    for framework in ("PyTorch", "JAX"):
        acc = float(
            re.search(rf"{framework} CNN: test accuracy ([\d.]+)", out).group(1)
        )
        assert acc > 0.3, (
            framework,
            acc,
        )  # 10 classes: chance is 0.1 (few epochs here)
    assert (
        float(re.search(r"max \|mine - F.conv2d\| = ([\d.e+-]+)", out).group(1)) < 1e-5
    )


@pytest.mark.slow
def test_student_notebook_runs_cleanly_and_scores_zero():
    nb = _execute(student_notebook(SOURCE), allow_errors=True)
    errors = _outputs(nb, "error")
    assert not errors, [(e.ename, e.evalue) for e in errors]
    out = _stdout(nb)
    for ex in EXERCISES:
        assert f"✗ Exercise {ex} (0/" in out
    for ex in ("7.1", "7.2", "7.4", "7.5"):  # the demos wait for their exercise
        assert f"(skipped until Exercise {ex} is done)" in out
    assert re.search(r"Total for lab07: 0/\d+ pts", out)


def test_five_exercises_are_registered():
    assert [grading.CHECKS[i].exercise for i in IDS] == EXERCISES
    assert [grading.CHECKS[i].name for i in IDS] == [
        "extract_patches",
        "conv2d_unfold",
        "max_pool",
        "cnn_forward_torch",
        "cnn_forward_jax",
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
        "kernel flipped",
        "wrong offset",
        "channel axis mixed up",
        "channel axes mixed up",
    ):
        assert any(phrase in d for d in descriptions), phrase


def test_square_channels_catch_a_swapped_kernel_by_value():
    """With c = c' a kernel read as (s, s, c', c) has the right shape: only values
    tell."""
    import torch

    wrong = grading.CHECKS["lab07.2"].mutants[
        "kernel channel axes mixed up (read as (s, s, c', c))"
    ]
    right = grading.CHECKS["lab07.2"].reference()
    X = torch.as_tensor(np.random.default_rng(0).standard_normal((1, 5, 5, 4)))
    W = torch.as_tensor(np.random.default_rng(1).standard_normal((3, 3, 4, 4)))
    assert wrong(X, W, 1).shape == right(X, W, 1).shape
    assert not torch.allclose(wrong(X, W, 1), right(X, W, 1))


def test_messages_say_what_differs():
    bad = grading.run(
        "lab07.1",
        grading.CHECKS["lab07.1"].mutants[
            "off by one: h - s windows instead of h - s + 1"
        ],
    )
    assert "has shape (2, 3, 2, 3, 3, 3); expected (2, 4, 3, 3, 3, 3)" in bad.message
    flipped = grading.run(
        "lab07.2",
        grading.CHECKS["lab07.2"].mutants[
            "kernel flipped (true convolution instead of cross-correlation)"
        ],
    )
    assert "differs from the reference" in flipped.message
