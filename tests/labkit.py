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
    """Execute the student notebook generated from ``source`` the way Jupyter's *Run
    all* does: the first cell that raises stops the run, and fails here with that cell's
    source and error. Returns (nb, stdout)."""
    import re

    from nbclient.exceptions import CellExecutionError

    from alice_course.labs import student_notebook

    nb = student_notebook(source)
    try:
        execute(nb, allow_errors=False)
    except CellExecutionError as err:
        where = [i for i, c in enumerate(nb.cells) if c.get("execution_count")]
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(err))  # no terminal colours
        raise AssertionError(
            f"Run all stops at cell {where[-1] if where else '?'} of the student "
            f"notebook of {source.name} ({err.ename}: {err.evalue}):\n{text}"
        ) from None
    return nb, stdout(nb)


def assert_full_marks(out: str, lab: str, exercises) -> None:
    """``out`` has "✓ Exercise N.k (x/y pts)" for each exercise, no "✗", no demo still
    waiting for its exercise, and "Total for labNN: T/T pts" with T the lab's points."""
    import re

    from alice_course import grading

    for ex in exercises:
        assert re.search(rf"^✓ Exercise {re.escape(ex)} \(\d+/\d+ pts\)", out, re.M), ex
    assert "✗" not in out and "skipped until" not in out
    total = sum(c.points for i, c in grading.CHECKS.items() if i.startswith(lab + "."))
    assert total > 0, lab
    assert f"Total for {lab}: {total}/{total} pts" in out


def assert_scores_zero(out: str, lab: str, exercises, *, skipped=()) -> None:
    """``out`` has "✗ Exercise N.k (0/… pts): not attempted" for each exercise,
    "(skipped until Exercise N.k is done)" for each of ``skipped``, and
    "Total for labNN: 0/… pts"."""
    import re

    for ex in exercises:
        line = rf"^✗ Exercise {re.escape(ex)} \(0/\d+ pts\): not attempted"
        assert re.search(line, out, re.M), ex
    for ex in skipped:  # the demos that wait for their exercise
        assert f"(skipped until Exercise {ex} is done)" in out, ex
    assert re.search(rf"Total for {lab}: 0/\d+ pts", out)


def assert_no_errors(nb) -> None:
    errors = outputs(nb, "error")
    assert not errors, [(e.ename, e.evalue) for e in errors]


def assert_ran_to_the_end(nb) -> None:
    """Every code cell ran (has an execution count), the last one included, and none
    left an error: what *Run all* needs to reach the end of the notebook."""
    code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    assert code, "no code cells"
    last, cell = code[-1]
    assert cell.execution_count is not None, (
        f"the last code cell (cell {last}) did not run:\n{cell.source}"
    )
    not_run = [i for i, c in code if c.execution_count is None]
    assert not not_run, f"cells that did not run: {not_run}"
    assert_no_errors(nb)


def assert_score_table(nb, lab: str, exercises) -> None:
    """The cell calling ``grading.report("labNN", ...)`` ran and printed the table of
    an untouched notebook: "✗ Exercise N.k (0/p pts): not attempted ..." for each of
    ``exercises`` (every check of ``lab``, in order), then "Total for labNN: 0/T
    pts"."""
    from alice_course import grading

    checks = [c for i, c in sorted(grading.CHECKS.items()) if i.startswith(lab + ".")]
    assert [c.exercise for c in checks] == list(exercises), lab
    cells = [
        c
        for c in nb.cells
        if c.cell_type == "code" and f'grading.report("{lab}"' in c.source
    ]
    assert len(cells) == 1, f"{len(cells)} cells call grading.report({lab!r}, ...)"
    (cell,) = cells
    assert cell.execution_count is not None, "the score cell did not run"
    text = "".join(
        o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout"
    )
    lines = text.splitlines()
    total = sum(c.points for c in checks)
    assert len(lines) == len(checks) + 1, text
    for line, c in zip(lines, checks, strict=False):
        head = f"✗ Exercise {c.exercise} (0/{c.points} pts): not attempted"
        assert line.startswith(head), (line, head)
    assert lines[-1] == f"Total for {lab}: 0/{total} pts", text


def assert_no_stderr(nb) -> None:
    """Nothing on stderr, warnings included."""
    text = stderr(nb)
    assert not text, text
