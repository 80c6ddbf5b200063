"""Judging a check outside the student's process: record, ship plain arrays, compare.

A check (:mod:`alice_course.grading`) calls the student's function and hands each answer
to :func:`~alice_course.grading.compare`. To grade untrusted code, the check runs in a
sandboxed worker (:mod:`alice_course.grading.worker`) with a *recorder* switched on:
every call to ``compare`` leaves a :class:`Step` holding the answer as a float64 NumPy
array. The steps travel to the grader as JSON with base64 float64 bytes (:func:`encode`,
:func:`decode`; nothing is ever unpickled). In its own process the grader records the
same check run on the *reference* solution, which gives the expected value and the
tolerance of every step, and :func:`judge` does each comparison with its own NumPy.
Checks hand ``compare`` the expected value as a function, which the worker never
calls: no expected value exists in the process that runs the student's code.

So what the student's process says about itself counts only against it: a failure it
reports is kept, but a pass needs every recorded answer to match the reference, step by
step and by name. Monkeypatching ``numpy.allclose`` or this package, printing fake
results or exiting early can lower a score, never raise it.

>>> s = Step("y", np.array([1.0, 2.0]))
>>> decode(encode(s)).value
array([1., 2.])
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from alice_course import grading
from alice_lab.backend import to_numpy

__all__ = ["Record", "Step", "decode", "encode", "judge", "record"]

#: the largest answer a step may carry (float64 entries); bigger ones become errors
MAX_ELEMENTS = 4_000_000
_MESSAGE_CHARS = 600


@dataclass
class Step:
    """One call of ``compare``: its name and the student's answer as a float64 array
    (or the reason it could not be read), or, in a reference record, the expected
    value with its tolerances."""

    name: str
    value: np.ndarray | None
    error: str | None = None
    rtol: float = 0.0
    atol: float = 0.0


@dataclass
class Record:
    """A check run once: the status and message :func:`grading.run` gave, and the
    steps recorded on the way."""

    id: str
    status: str
    message: str
    steps: list[Step] = field(default_factory=list)


def _plain(got: Any) -> tuple[np.ndarray | None, str | None]:
    """The student's answer as a float64 array, or why it cannot be one."""
    try:
        value = np.asarray(to_numpy(got), dtype=np.float64)
    except Exception as err:  # noqa: BLE001 - any failure is the student's answer
        return None, f"cannot be read as an array of numbers ({type(err).__name__})"
    if value.size > MAX_ELEMENTS:
        return None, f"is too large ({value.size} entries)"
    return np.array(value, dtype=np.float64, copy=True), None


def record(check_id: str, fn: Callable, *, side: str) -> Record:
    """Run check ``check_id`` on ``fn`` with a recorder on.

    ``side="student"`` keeps the answers handed to ``compare`` (the worker does this);
    ``side="reference"`` keeps the expected values and tolerances (the grader does
    this with the reference solution, in its own process).
    """
    if side not in ("student", "reference"):
        raise ValueError(f"side must be 'student' or 'reference'; got {side!r}")
    steps: list[Step] = []

    def recorder(name: str, got: Any, want: Any, rtol: float, atol: float):
        if side == "student":  # the worker: ``want`` is never computed here
            value, error = _plain(got)
            steps.append(Step(str(name), value, error))
            return (error is None, f"{name} {error}" if error else "")
        expected = np.asarray(grading.expected(want), dtype=np.float64)
        steps.append(Step(str(name), expected, None, float(rtol), float(atol)))
        return grading._match(name, got, expected, rtol=rtol, atol=atol)

    token = grading.RECORDER.set(recorder)
    try:
        result = grading.run(check_id, fn)
    finally:
        grading.RECORDER.reset(token)
    return Record(check_id, result.status, result.message, steps)


# --- the wire format: JSON-safe dicts, float64 bytes in base64 ----------------------


def encode(step: Step) -> dict:
    """A :class:`Step` as a JSON-safe dict (answers only: the student side)."""
    out: dict[str, Any] = {"name": step.name}
    if step.value is None:
        out["error"] = step.error or "no value"
    else:
        data = np.ascontiguousarray(step.value, dtype="<f8").tobytes()
        out["shape"] = list(step.value.shape)
        out["f8"] = base64.b64encode(data).decode("ascii")
    return out


def decode(raw: Any) -> Step:
    """The inverse of :func:`encode`, for data that came from an untrusted process:
    anything malformed becomes a step with an error, never an exception."""
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        return Step("?", None, "malformed step")
    name = raw["name"][:200]
    if "f8" not in raw:
        return Step(name, None, str(raw.get("error", "no value"))[:_MESSAGE_CHARS])
    shape = raw.get("shape")
    if not (
        isinstance(shape, list)
        and len(shape) <= 32
        and all(isinstance(n, int) and 0 <= n <= MAX_ELEMENTS for n in shape)
    ):
        return Step(name, None, "malformed shape")
    try:
        data = base64.b64decode(raw["f8"], validate=True)
    except (binascii.Error, TypeError, ValueError):
        return Step(name, None, "malformed data")
    size = math.prod(shape)  # Python integers: a forged shape cannot overflow
    if size > MAX_ELEMENTS or len(data) != 8 * size:
        return Step(name, None, "malformed data")
    return Step(name, np.frombuffer(data, dtype="<f8").reshape(shape).copy())


# --- the verdict --------------------------------------------------------------------


@dataclass
class Verdict:
    """What :func:`judge` decided: a status of :class:`grading.CheckResult`, the
    message for the student, and whether the pass was checked step by step (False
    only for a check that never calls ``compare``)."""

    status: str
    message: str
    verified: bool = True


def judge(student: Record, reference: Record) -> Verdict:
    """Decide a check from the student's record (from the worker) and the reference
    record (made here).

    Every recorded answer is compared with the reference's expected value, in order
    and by name; the first mismatch fails the check with a message written here (the
    worker never knew the expected values, so its own status says nothing about them).
    Otherwise a status other than passed/failed (not attempted, error) is kept, as is
    a failure the worker found without a comparison (inputs modified in place, ...):
    those can only cost the student points. A pass needs the worker to report a pass
    *and* every step of the reference to be matched.
    """
    if reference.status != "passed":
        raise RuntimeError(
            f"the reference solution fails check {reference.id}: {reference.message}"
        )
    message = _clip(student.message)
    want = reference.steps
    for k, got in enumerate(student.steps):
        if k >= len(want) or got.name != want[k].name:
            expected = repr(want[k].name) if k < len(want) else "nothing more"
            return Verdict(
                "failed",
                f"the check's steps did not line up with the reference (step {k + 1}: "
                f"{_clip(got.name)!r}, expected {expected}); the graded code seems "
                "to interfere with the checking code",
            )
        if got.value is None:
            return Verdict("failed", f"{got.name} {got.error}")
        ok, why = grading._match(
            got.name, got.value, want[k].value, rtol=want[k].rtol, atol=want[k].atol
        )
        if not ok:
            return Verdict("failed", why)
    if student.status != "passed":
        return Verdict(student.status, message)
    if not want:
        return Verdict("passed", reference.message, verified=False)
    if len(student.steps) < len(want):
        return Verdict(
            "failed",
            f"the check stopped after {len(student.steps)} of {len(want)} "
            "comparisons; the graded code seems to interfere with the checking code",
        )
    return Verdict("passed", reference.message)


def _clip(text: str, n: int = _MESSAGE_CHARS) -> str:
    text = str(text)
    return text if len(text) <= n else text[: n - 1] + "…"
