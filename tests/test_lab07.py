"""Lab 07 (convolutions from scratch, a CNN in PyTorch and JAX): the instructor source
earns every point and trains both CNNs, the student notebook runs without an error and
scores zero, and every check rejects its known wrong answers (a flipped kernel, a wrong
offset, the channel axis mixed up, average instead of max, a missing ReLU, ...)."""

from __future__ import annotations

import re
from pathlib import Path

import labkit
import numpy as np
import pytest

from alice_course import grading

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab07_cnn.py"
EXERCISES = [f"7.{k}" for k in range(1, 6)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab07."))


@pytest.mark.slow
def test_instructor_source_earns_every_point_and_trains():
    nb, out = labkit.run_instructor(SOURCE)
    labkit.assert_full_marks(out, "lab07", EXERCISES)
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
    nb, out = labkit.run_student(SOURCE)  # stops at the first cell that raises
    labkit.assert_ran_to_the_end(nb)
    labkit.assert_score_table(nb, "lab07", EXERCISES)
    # the demos wait for their exercise
    labkit.assert_scores_zero(
        out, "lab07", EXERCISES, skipped=("7.1", "7.2", "7.4", "7.5")
    )


def test_five_exercises_are_registered():
    assert [grading.CHECKS[i].exercise for i in IDS] == EXERCISES
    assert [grading.CHECKS[i].name for i in IDS] == [
        "extract_patches",
        "conv2d_unfold",
        "max_pool",
        "cnn_forward_torch",
        "cnn_forward_jax",
    ]


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
