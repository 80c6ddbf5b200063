"""Helpers the lab tests share: run a lab notebook in a kernel and read its outputs."""

from __future__ import annotations

import os
from pathlib import Path

LABS = Path(__file__).resolve().parents[1] / "labs"


def execute(nb, *, allow_errors: bool):
    """Run ``nb`` in a fresh python3 kernel, from labs/, with ALICE_FAST=1 and the
    inline matplotlib backend (MPLBACKEND is dropped so the kernel picks its own)."""
    from nbclient import NotebookClient

    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env["ALICE_FAST"] = "1"
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=300,
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(LABS)}},
    )
    client.execute(env=env)
    return nb


def outputs(nb, kind: str) -> list:
    """Every output of type ``kind`` ("stream", "error", ...) in the code cells."""
    return [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == kind
    ]


def stdout(nb) -> str:
    return "".join(o.text for o in outputs(nb, "stream") if o.name == "stdout")


def stderr(nb) -> list[str]:
    """The text of every stderr stream (warnings included)."""
    return [o.text for o in outputs(nb, "stream") if o.name == "stderr"]


def run_instructor(source: Path):
    """Execute the instructor source (any cell error fails); return (nb, stdout)."""
    import jupytext

    nb = execute(jupytext.read(source), allow_errors=False)
    errors = outputs(nb, "error")
    assert not errors, [(e.ename, e.evalue) for e in errors]
    return nb, stdout(nb)


def run_student(source: Path):
    """Execute the student notebook generated from ``source``, errors allowed; return
    (nb, stdout)."""
    from alice_lab.labs import student_notebook

    nb = execute(student_notebook(source), allow_errors=True)
    return nb, stdout(nb)


def assert_full_marks(out: str, lab: str, exercises) -> None:
    """``out`` has "✓ Exercise N.k (x/y pts)" for each exercise, no "✗", no demo still
    waiting for its exercise, and "Total for labNN: T/T pts" with T the lab's points."""
    import re

    from alice_lab import grading

    for ex in exercises:
        assert re.search(rf"^✓ Exercise {re.escape(ex)} \(\d+/\d+ pts\)", out, re.M), ex
    assert "✗" not in out and "skipped until" not in out
    total = sum(c.points for i, c in grading.CHECKS.items() if i.startswith(lab + "."))
    assert total > 0, lab
    assert f"Total for {lab}: {total}/{total} pts" in out


def assert_scores_zero(out: str, lab: str, exercises, *, skipped=()) -> None:
    """``out`` has "✗ Exercise N.k (0/" for each exercise, "(skipped until Exercise
    N.k is done)" for each of ``skipped``, and "Total for labNN: 0/… pts"."""
    import re

    for ex in exercises:
        assert f"✗ Exercise {ex} (0/" in out, ex
    for ex in skipped:  # the demos that wait for their exercise
        assert f"(skipped until Exercise {ex} is done)" in out, ex
    assert re.search(rf"Total for {lab}: 0/\d+ pts", out)


def assert_no_errors(nb) -> None:
    errors = outputs(nb, "error")
    assert not errors, [(e.ename, e.evalue) for e in errors]


def assert_stubs_raise(nb, exercises) -> None:
    """The only errors are the stubs' NotImplementedError("Exercise N.k"), one each."""
    errors = outputs(nb, "error")
    assert {e.ename for e in errors} == {"NotImplementedError"}, [
        (e.ename, e.evalue) for e in errors
    ]
    want = sorted(f"Exercise {ex}" for ex in exercises)
    assert sorted(e.evalue for e in errors) == want


def assert_no_stderr(nb) -> None:
    """Nothing on stderr, warnings included."""
    text = stderr(nb)
    assert not text, text
