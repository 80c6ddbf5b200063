"""Judging outside the student's process: every registered check (of every lab) routes
the student's answers through ``grading.compare``, and on the worker's side computes no
expected value (nothing of the reference runs outside the student's own calls); the
judge passes the reference and rejects every known wrong answer (each check's mutants)
from its recorded steps alone, as the check itself does in a notebook, not all for one
catch-all reason, and forged records (too few steps, renamed steps, wrong values,
garbage) never pass."""

from __future__ import annotations

import functools
import sys
import types

import numpy as np
import pytest

from alice_course import grading
from alice_course.grading import delegation, judge

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
    student = _wire(_worker_side_without_reference(check_id))
    verdict = judge.judge(student, ref)
    assert (verdict.status, verdict.verified) == ("passed", True), verdict.message
    assert [s.name for s in student.steps] == [s.name for s in ref.steps]


def _worker_side_without_reference(check_id: str) -> judge.Record:
    """Record check ``check_id`` as the grading worker does, with the reference
    solution as the student's answer, and fail if the check computes anything with
    the reference (or the library functions it names) outside the student's own
    calls, or hands ``compare`` an expected value instead of a function: in the
    worker, such a value would be there for the student's code to find."""
    reference = grading.CHECKS[check_id].reference()
    targets = delegation.targets_of(reference) | {reference}
    codes = {
        getattr(getattr(t, "__func__", t), "__code__", None)
        for t in targets
        if not isinstance(t, type)
    }
    if isinstance(reference, type):
        codes |= {f.__code__ for f in vars(reference).values() if _is_fn(f)}
    codes.discard(None)
    depth = [0]
    outside: list[str] = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in codes and not depth[0]:
            outside.append(frame.f_code.co_qualname)

    student = _as_student(reference, depth)
    eager: list[str] = []
    real = grading.RECORDER

    class Spy:
        """grading.RECORDER, with each ``want`` the worker's recorder is given seen."""

        def set(self, recorder):
            def seeing(name, got, want, rtol, atol):
                if not callable(want):
                    eager.append(str(name))
                return recorder(name, got, want, rtol, atol)

            return real.set(seeing)

        def get(self):
            return real.get()

        def reset(self, token):
            real.reset(token)

    grading.RECORDER = Spy()
    sys.setprofile(profile)
    try:
        record = judge.record(check_id, student, side="student")
    finally:
        sys.setprofile(None)
        grading.RECORDER = real
    assert not eager, (
        f"check {check_id} hands compare an expected value, not a function, for "
        f"{eager}: the grading worker would hold it"
    )
    assert not outside, (
        f"on the worker's side, check {check_id} runs reference code outside the "
        f"student's calls: {sorted(set(outside))}; compute expected values only "
        "inside the functions handed to compare"
    )
    return record


def _is_fn(obj) -> bool:
    return isinstance(obj, types.FunctionType)


def _as_student(reference, depth: list[int]):
    """The reference, as a function or class whose own calls are counted in
    ``depth`` (what the student's code runs is the student's business)."""

    def counted(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            depth[0] += 1
            try:
                return fn(*args, **kwargs)
            finally:
                depth[0] -= 1

        return inner

    if not isinstance(reference, type):
        return counted(reference)
    methods = {k: counted(v) for k, v in vars(reference).items() if _is_fn(v)}
    return type(reference.__name__, (reference,), methods)


_MUTANT_RECORDS: dict[tuple[str, str], judge.Record] = {}


def _mutant(check_id: str, description: str) -> judge.Record:
    """The check run on the mutant as in a notebook (``compare`` computes the expected
    value and decides), with each answer kept as the worker would send it: one run
    serves both tests below."""
    key = (check_id, description)
    if key not in _MUTANT_RECORDS:
        wrong = grading.CHECKS[check_id].mutants[description]
        steps: list[judge.Step] = []

        def in_notebook(name, got, want, rtol, atol):
            value, error = judge._plain(got)
            steps.append(judge.Step(str(name), value, error))
            return grading._match(
                name, got, grading.expected(want), rtol=rtol, atol=atol
            )

        token = grading.RECORDER.set(in_notebook)
        try:
            result = grading.run(check_id, wrong)
        finally:
            grading.RECORDER.reset(token)
        _MUTANT_RECORDS[key] = judge.Record(
            check_id, result.status, result.message, steps
        )
    return _MUTANT_RECORDS[key]


@pytest.mark.parametrize("check_id, description", MUTANTS)
def test_every_mutant_is_rejected_from_its_record(check_id, description):
    """Rejected twice over: by the check run in a notebook (a failure or an error,
    never a pass) and by the judge from the recorded answers alone."""
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
    assert (
        grading.compare("y", [1.0], lambda: np.array([2.0]), rtol=0, atol=0)[0] is False
    )
    rec = judge.record("lab02.1", lambda X: np.zeros(len(X)), side="student")
    # the worker never knows the expected values: it records both answers ...
    assert rec.status == "passed" and len(rec.steps) == 2
    assert np.array_equal(rec.steps[0].value, np.zeros(50))
    # ... and the judge rejects the first
    verdict = judge.judge(_wire(rec), _reference("lab02.1"))
    assert verdict.status == "failed" and verdict.message.startswith("f(X) differs")
    with pytest.raises(ValueError, match="side must be"):
        judge.record("lab02.1", lambda X: X, side="teacher")


def test_a_mismatch_outranks_a_later_error_in_the_worker():
    """With every comparison passing on the worker's side, a wrong answer may go on
    to raise in a later call; the student hears about the first wrong answer."""
    ref, honest = _lab02_1_steps()
    wrong = [judge.Step(honest[0].name, honest[0].value + 1.0)]
    verdict = judge.judge(judge.Record("lab02.1", "error", "boom", wrong), ref)
    assert (
        verdict.status == "failed" and "differs from the reference" in verdict.message
    )
