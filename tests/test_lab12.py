"""Lab 12 (GCN, GAT/GATv2 and images as patch graphs, in PyTorch): the instructor
source runs and passes every check, the student notebook runs to the end (no cell
raises; each check says "not attempted", each demo waits for its exercise), and every
check rejects its known wrong answers."""

from __future__ import annotations

import re
from pathlib import Path

import labkit
import pytest

from alice_course import grading

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labs" / "lab12_gnn.py"
EXERCISES = [f"12.{k}" for k in range(1, 6)]
IDS = sorted(k for k in grading.CHECKS if k.startswith("lab12."))


@pytest.mark.slow
def test_instructor_source_passes_every_check():
    nb, out = labkit.run_instructor(SOURCE)
    labkit.assert_full_marks(out, "lab12", EXERCISES)
    accs = {
        (m, d): float(a)
        for m, d, a in re.findall(r"(GCN|GATv2) on (\w+): test accuracy ([0-9.]+)", out)
    }
    assert len(accs) == 4 and min(accs.values()) > 0.85, accs
    digits = float(re.search(r"on the digits: test accuracy ([0-9.]+)", out).group(1))
    assert digits > 0.2  # chance is 0.1; no positional information (see the lab)


@pytest.mark.slow
def test_student_notebook_runs_to_the_end_and_scores_zero():
    nb, out = labkit.run_student(SOURCE)  # stops at the first cell that raises
    labkit.assert_ran_to_the_end(nb)
    labkit.assert_score_table(nb, "lab12", EXERCISES)
    # each exercise fails cleanly, and each demo waits for its exercise
    labkit.assert_scores_zero(out, "lab12", EXERCISES, skipped=EXERCISES)


def test_five_exercises_are_registered():
    assert IDS == [f"lab12.{k}" for k in range(1, 6)]
    names = [grading.CHECKS[i].name for i in IDS]
    assert names == ["normalize_adjacency", "gcn_forward", "gat_attention",
                     "patch_adjacency", "mean_readout"]  # fmt: skip


def test_a_broken_answer_is_an_error_not_a_crash():
    result = grading.run("lab12.1", lambda A: A.nonexistent)
    assert result.status == "error" and "AttributeError" in result.message
