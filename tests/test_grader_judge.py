"""Judging outside the student's process: every registered check (of every lab) routes
the student's answers through ``grading.compare``, the judge passes the reference and
rejects every known wrong answer (each check's mutants) from its recorded steps alone,
as the check itself does, not all for one catch-all reason, and forged records
(too few steps, renamed steps, wrong values, garbage) never pass."""

from __future__ import annotations

import numpy as np
import pytest

from alice_course import grading
from alice_course.grading import judge

CHECK_IDS = sorted(grading.CHECKS)
MUTANTS = [(i, d) for i in CHECK_IDS for d in grading.CHECKS[i].mutants]


def _wire(rec: judge.Record) -> judge.Record:
    """The record as the grader receives it from the worker (JSON-safe dicts)."""
    steps = [judge.decode(judge.encode(s)) for s in rec.steps]
    return judge.Record(rec.id, rec.status, rec.message, steps)


_REFS: dict[str, judge.Record] = {}


def _reference(check_id: str) -> judge.Record:
    if check_id not in _REFS:
        fn = grading.CHECKS[check_id].reference()
        _REFS[check_id] = judge.record(check_id, fn, side="reference")
    return _REFS[check_id]


@pytest.mark.parametrize("check_id", CHECK_IDS)
def test_reference_passes_and_is_judged_step_by_step(check_id):
    ref = _reference(check_id)
    assert ref.status == "passed", ref.message
    assert ref.steps, (
        f"check {check_id} never calls grading.compare on the student's answers, so "
        "the grader cannot judge it outside the student's process; route every value "
        "that comes from the student's code through grading.compare"
    )
    fn = grading.CHECKS[check_id].reference()
    student = _wire(judge.record(check_id, fn, side="student"))
    verdict = judge.judge(student, ref)
    assert (verdict.status, verdict.verified) == ("passed", True), verdict.message
    assert [s.name for s in student.steps] == [s.name for s in ref.steps]


_MUTANT_RECORDS: dict[tuple[str, str], judge.Record] = {}


def _mutant(check_id: str, description: str) -> judge.Record:
    """The check run on the mutant (one run serves both tests below)."""
    key = (check_id, description)
    if key not in _MUTANT_RECORDS:
        wrong = grading.CHECKS[check_id].mutants[description]
        _MUTANT_RECORDS[key] = judge.record(check_id, wrong, side="student")
    return _MUTANT_RECORDS[key]


@pytest.mark.parametrize("check_id, description", MUTANTS)
def test_every_mutant_is_rejected_from_its_record(check_id, description):
    """Rejected twice over: by the check run in the student's process (a failure
    or an error, never a pass) and by the judge from the recorded answers alone."""
    record = _mutant(check_id, description)
    assert record.status in ("failed", "error"), (
        f"{check_id} gave mutant {description!r} the status {record.status!r}"
    )
    student = _wire(record)
    verdict = judge.judge(student, _reference(check_id))
    assert verdict.status != "passed", f"{check_id} accepted mutant {description!r}"
    assert verdict.message
    names = [s.name for s in _reference(check_id).steps]
    got = [s.name for s in student.steps]
    assert got == names[: len(got)], (
        f"check {check_id} calls compare with other names or in another order for "
        f"mutant {description!r} ({got}) than for the reference ({names}); the "
        "grader lines the steps up by position and name"
    )


@pytest.mark.parametrize("check_id", sorted({i for i, _ in MUTANTS}))
def test_mutants_fail_for_their_own_reasons(check_id):
    """A check's mutants are not all turned away by one catch-all message."""
    messages = {_mutant(check_id, d).message for d in grading.CHECKS[check_id].mutants}
    assert len(messages) >= 2, (check_id, messages)


def _lab02_1_steps(values=None):
    ref = _reference("lab02.1")
    return ref, [
        judge.Step(s.name, s.value if values is None else values[k])
        for k, s in enumerate(ref.steps)
    ]


def test_forged_records_never_pass():
    ref, honest = _lab02_1_steps()
    good = judge.judge(judge.Record("lab02.1", "passed", "forged!", honest), ref)
    assert good.status == "passed" and good.message == ref.message  # not the worker's
    cases = {
        "no steps": [],
        "one step of two": honest[:1],
        "a step renamed": [judge.Step("f(X)", honest[0].value), judge.Step("x", None)],
        "an extra step": honest + [judge.Step("more", np.zeros(1))],
        "a wrong value": [judge.Step(honest[0].name, honest[0].value + 1e-3)]
        + honest[1:],
        "NaN": [judge.Step(honest[0].name, honest[0].value * np.nan)] + honest[1:],
        "a wrong shape": [judge.Step(honest[0].name, honest[0].value[:, None])]
        + honest[1:],
        "an unreadable value": [judge.Step(honest[0].name, None, "is garbage")],
    }
    for what, steps in cases.items():
        verdict = judge.judge(judge.Record("lab02.1", "passed", "ok", steps), ref)
        assert verdict.status == "failed", what
    wrong = judge.Record("lab02.1", "passed", "", cases["a wrong value"])
    assert "differs from the reference at index (0,)" in judge.judge(wrong, ref).message


def test_a_failure_or_error_reported_by_the_worker_is_kept():
    ref, honest = _lab02_1_steps()
    for status in ("failed", "error", "not attempted", "timeout"):
        verdict = judge.judge(judge.Record("lab02.1", status, "why", honest), ref)
        assert (verdict.status, verdict.message) == (status, "why")


def test_a_check_without_compare_passes_unverified():
    ref = judge.Record("x.1", "passed", "reference ok", [])
    verdict = judge.judge(judge.Record("x.1", "passed", "claimed", []), ref)
    assert (verdict.status, verdict.verified) == ("passed", False)
    broken = judge.Record("x.1", "failed", "a bug in the check", [])
    with pytest.raises(RuntimeError, match="reference solution fails check x.1"):
        judge.judge(judge.Record("x.1", "passed", "", []), broken)


@pytest.mark.parametrize(
    "raw",
    [
        None,
        {"name": 3},
        {"name": "y", "shape": [2], "f8": "not base64!"},
        {"name": "y", "shape": [3], "f8": "AAAAAAAAAAA="},  # 8 bytes for 3 entries
        {"name": "y", "shape": [-1], "f8": ""},
        {"name": "y", "shape": "2", "f8": ""},
        {"name": "y", "shape": [10**9], "f8": ""},
        {"name": "y", "error": "x" * 5000},
    ],
)
def test_decode_turns_garbage_into_an_error_step(raw):
    step = judge.decode(raw)
    assert step.value is None and step.error
    assert len(step.error) <= 600


def test_wire_round_trip_keeps_shape_and_bits():
    cube = np.arange(24.0).reshape(2, 3, 4)
    for value in (np.float64(np.pi), np.zeros((0, 3)), cube):
        back = judge.decode(judge.encode(judge.Step("v", np.asarray(value)))).value
        assert back.shape == np.shape(value) and np.array_equal(back, value)


def test_compare_records_only_inside_record():
    assert grading.compare("y", [1.0], np.array([1.0]), rtol=0, atol=0) == (True, "")
    rec = judge.record("lab02.1", lambda X: np.zeros(len(X)), side="student")
    assert rec.status == "failed" and len(rec.steps) == 1  # stops at the first failure
    assert np.array_equal(rec.steps[0].value, np.zeros(50))
    with pytest.raises(ValueError, match="side must be"):
        judge.record("lab02.1", lambda X: X, side="teacher")
