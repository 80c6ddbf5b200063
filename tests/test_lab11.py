"""Lab 11 (a ViT, a Mixer and a small GPT): the instructor source earns every point and
trains models well above chance, the student notebook runs without a single error
(each check says "not attempted", each demo waits for its exercise), and every check
rejects its known wrong answers (a multiplicative causal mask, a missing 1/√d, softmax
over the wrong axis, patches in the wrong order, a cache that is not appended to...)."""

from __future__ import annotations

import re
from pathlib import Path

import labkit
import numpy as np
import pytest

from alice_course import grading

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab11_vit_gpt.py"
EXERCISES = [f"11.{k}" for k in range(1, 5)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab11."))


@pytest.mark.slow
def test_instructor_source_earns_every_point_and_trains():
    nb, out = labkit.run_instructor(SOURCE)
    labkit.assert_full_marks(out, "lab11", EXERCISES)
    assert "your patchify = the models' tokenizer: True" in out
    m = re.search(r"ViT ([\d.]+), Mixer ([\d.]+)", out)
    assert m and float(m.group(1)) > 0.3 and float(m.group(2)) > 0.3, m
    assert "KV cache = recomputation: True" in out
    gap = float(re.search(r"max \|full − cached\| = ([\d.e+-]+)", out).group(1))
    assert gap < 1e-10


@pytest.mark.slow
def test_student_notebook_runs_cleanly_and_scores_zero():
    nb, out = labkit.run_student(SOURCE)  # stops at the first cell that raises
    labkit.assert_ran_to_the_end(nb)
    labkit.assert_score_table(nb, "lab11", EXERCISES)
    labkit.assert_scores_zero(out, "lab11", EXERCISES, skipped=("11.1",))


def test_four_exercises_are_registered():
    assert [grading.CHECKS[i].exercise for i in IDS] == EXERCISES
    names = [grading.CHECKS[i].name for i in IDS]
    assert names == [
        "patchify",
        "causal_attention",
        "mixer_block",
        "cached_attention_step",
    ]


def test_the_issue_s_named_mistakes_are_among_the_mutants():
    descriptions = {d for i in IDS for d in grading.CHECKS[i].mutants}
    for phrase in (
        "multiplicative causal mask",
        "missing 1/√d",
        "wrong axis",
        "patches in the wrong",
    ):
        assert any(phrase in d for d in descriptions), phrase


def test_the_reference_solutions_agree_with_the_library():
    import alice_lab.transformer as T
    from alice_lab.attention import scaled_dot_product_attention as sdpa

    r = np.random.default_rng(0)
    x = r.standard_normal((2, 8, 12, 3))
    patchify = grading.CHECKS["lab11.1"].reference()
    np.testing.assert_array_equal(patchify(x, 4), T.patchify(x, 4))
    Q, K, V = (
        r.standard_normal((5, 4)),
        r.standard_normal((5, 4)),
        r.standard_normal((5, 2)),
    )
    causal = grading.CHECKS["lab11.2"].reference()
    np.testing.assert_allclose(causal(Q, K, V), sdpa(Q, K, V, causal=True), rtol=1e-12)


def test_messages_say_what_differs():
    bad = grading.run(
        "lab11.2", grading.CHECKS["lab11.2"].mutants["missing 1/√d scaling"]
    )
    assert "causal attention (n=5, d=4" in bad.message and "differs" in bad.message
    wrong_axis = grading.CHECKS["lab11.3"].mutants[
        "token MLP applied to H instead of Hᵀ (wrong axis)"
    ]
    res = grading.run("lab11.3", wrong_axis)
    assert res.status == "error" and "ValueError" in res.message
