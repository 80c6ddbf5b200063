"""Lab 05 (an MLP on the digits in NumPy, PyTorch and JAX, then data-parallel with
torch.distributed): the instructor source runs and passes every check, the student
notebook runs to the end (no cell raises; each check says "not attempted", each demo
waits for its exercise), every check rejects its known wrong answers, and
the committed student notebook is what the source generates."""

from __future__ import annotations

import re
from pathlib import Path

import labkit
import numpy as np
import pytest

from alice_course import grading
from alice_course.grading import lab05

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab05_mlp.py"
STUDENT_DIR = ROOT / "labs" / "student"
EXERCISES = [f"5.{k}" for k in range(1, 6)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab05."))


# --- the notebooks, executed ------------------------------------------------------


@pytest.mark.slow
def test_instructor_source_passes_every_check():
    nb, out = labkit.run_instructor(SOURCE)
    labkit.assert_full_marks(out, "lab05", EXERCISES)
    labkit.assert_no_stderr(nb)
    assert "same as alice_lab.layers.mlp_forward: True" in out
    assert "rank 0 vs rank 1: identical = True" in out
    gap = float(re.search(r"joined mini-batches: ([0-9.e+-]+)", out).group(1))
    assert gap < 1e-12
    accs = [float(a) for a in re.findall(r"test accuracy (0\.\d+)", out)]
    assert accs and accs[-1] > 0.85  # PyTorch, after 2 epochs in fast mode
    jax_acc = float(
        re.search(r"JAX: test accuracy after \d+ epochs: ([0-9.]+)", out).group(1)
    )
    assert jax_acc > 0.85


@pytest.mark.slow
def test_student_notebook_runs_to_the_end_and_scores_zero():
    nb, out = labkit.run_student(SOURCE)  # stops at the first cell that raises
    labkit.assert_ran_to_the_end(nb)
    labkit.assert_score_table(nb, "lab05", EXERCISES)
    # each exercise fails cleanly, and each demo waits for its exercise
    labkit.assert_scores_zero(out, "lab05", EXERCISES, skipped=EXERCISES)


# --- the checks -------------------------------------------------------------------


def test_five_exercises_are_registered():
    assert IDS == [f"lab05.{k}" for k in range(1, 6)]
    names = [grading.CHECKS[i].name for i in IDS]
    assert names == ["mlp_forward", "sgd_epoch", "torch_train_step", "jax_sgd_step",
                     "ddp_train_step"]  # fmt: skip


def test_a_broken_answer_is_an_error_not_a_crash():
    def broken(params, X):
        return X.nonexistent

    result = grading.run("lab05.1", broken)
    assert result.status == "error" and "AttributeError" in result.message


def test_simulated_ranks_that_never_meet_fail_instead_of_hanging():
    torch = pytest.importorskip("torch")

    shards = lab05.ddp_shards()
    rank0 = {xb.tobytes() for xb, _ in shards[0]}

    def lopsided(model, xb, yb, lr, world_size, all_reduce):  # rank 1 never reduces
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        if xb.numpy().tobytes() in rank0:
            for p in model.parameters():
                all_reduce(p.grad)
        return loss.item()

    with pytest.raises(RuntimeError, match="did not meet"):
        lab05.simulate_ranks(
            lopsided, lab05._params(lab05.SIZES, 8), shards, 0.1, timeout=1.0
        )


def test_thread_all_reduce_sums_in_place():
    torch = pytest.importorskip("torch")
    import threading

    group = lab05.ThreadGroup(3, timeout=5)
    tensors = [torch.full((2,), float(r + 1)) for r in range(3)]
    threads = [
        threading.Thread(target=group.all_reduce_for(r), args=(tensors[r],))
        for r in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(t.numpy(), [6.0, 6.0]) for t in tensors)


def test_data_parallel_reference_is_sgd_on_the_joined_batches():
    pytest.importorskip("torch")
    from alice_lab.layers import mlp_value_and_grad
    from alice_lab.optim import sgd_step

    params, shards = lab05._params(lab05.SIZES, 8), lab05.ddp_shards()
    got = lab05.single_process_reference(params, shards, 0.5)
    want = params
    for t in range(lab05.DDP_STEPS):
        X = np.concatenate([s[t][0] for s in shards])
        y = np.concatenate([s[t][1] for s in shards])
        want = sgd_step(want, mlp_value_and_grad(want, X, y)[1], lr=0.5)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a["W"], b["W"], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(a["b"], b["b"], rtol=1e-10, atol=1e-12)
