"""No lab solution ships in the course package (issue #14): the checks judge against
library calls or references written another way, and mutants are knobs of one
reference, so no ``### BEGIN SOLUTION`` block of ``labs/`` reappears in
``alice_course`` (``tools/solution_copies.py``, which this test also holds to finding a
planted copy)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import solution_copies  # noqa: E402

LAB = """
def predict(params, X):
    ### BEGIN SOLUTION
    logits = X @ params["W"].T + params["b"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    ### END SOLUTION


def seed(s):
    ### BEGIN SOLUTION
    rng = np.random.default_rng(s)
    return rng.standard_normal(3)
    ### END SOLUTION
"""


def test_no_lab_solution_is_copied_into_the_course_package():
    blocks = solution_copies.find_copies()
    assert len(blocks) >= 50  # every lab's blocks were read
    copies = [
        f"{b.lab}:{b.line} ({b.share:.0%} in {b.module})" for b in blocks if b.copied
    ]
    assert not copies, copies


def test_the_scan_finds_a_planted_copy_and_ignores_a_common_line(tmp_path):
    (tmp_path / "labs").mkdir()
    (tmp_path / "labs" / "lab99_demo.py").write_text(LAB)
    course = tmp_path / "alice_course"
    course.mkdir()
    (course / "check.py").write_text(
        "def _ref(params, X):\n"
        "    logits = X @ params['W'].T + params['b']  # the same line, other quotes\n"
        '    logits = X @ params["W"].T + params["b"]\n'
        "    shifted = logits - logits.max(axis=1, keepdims=True)\n"
        "    return shifted\n"
        "rng = np.random.default_rng(s)\n"
    )
    predict, seed = solution_copies.find_copies(tmp_path)
    assert predict.copied and predict.module == "alice_course/check.py"
    assert not seed.copied  # one common line of two
