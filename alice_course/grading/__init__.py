"""Checks for the labs: one registry feeds student feedback and instructor grading.

Every exercise of a lab has one registered check. A check receives the student's
callable, runs it on seeded inputs, compares the answer with ``alice_lab``'s reference
implementation within a tolerance, and returns ``(passed, message)``. Each check also
carries the reference solution (which must pass) and a set of *mutants*: plausible wrong
answers (swapped coordinates, a forgotten chain-rule factor, momentum with the wrong
sign, ...) which it must reject. The test suite holds every check to both.

In a notebook::

    from alice_course import grading
    grading.check("lab02.1", f)      # prints "✓ Exercise 2.1 (2/2 pts): ..."

:func:`run` does the same without printing and is what a grader builds on.

Checks compare every value that comes from the student's code with :func:`compare`
(``_compare`` is the same function). That is what lets ``alice-lab grade`` judge a
submission outside the student's process: the sandboxed worker runs the check and
records what :func:`compare` was given, and the grader compares those plain arrays with
the values the check computes from the reference solution in its own process
(:mod:`alice_course.grading.judge`). A check should call :func:`compare` the same number
of times, with the same names, whatever the student's answers (stopping early on the
first failure is fine).

Each lab's checks live in ``alice_course/grading/labNN.py`` and are registered when this
package is imported.

>>> sorted(CHECKS)[:2]
['lab02.1', 'lab02.2']
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from alice_lab.backend import to_numpy

__all__ = [
    "CHECKS",
    "attempted",
    "Check",
    "CheckResult",
    "check",
    "compare",
    "mutant",
    "register",
    "report",
    "run",
]


# --- the registry -----------------------------------------------------------------


@dataclass
class Check:
    """One registered exercise check.

    ``fn(student_callable) -> (passed, message)``; ``name`` is what the notebook calls
    the student's function; ``reference()`` returns the callable that solves the
    exercise; ``mutants`` maps a description to a wrong answer.
    """

    id: str
    exercise: str
    points: int
    name: str
    fn: Callable[[Callable], tuple[bool, str]]
    reference: Callable[[], Callable]
    mutants: dict[str, Callable] = field(default_factory=dict)


@dataclass
class CheckResult:
    """The outcome of running one check on one student callable.

    ``status`` is ``"passed"``, ``"failed"``, ``"not attempted"`` (the stub still raises
    ``NotImplementedError``) or ``"error"`` (the student's code raised something else).
    """

    id: str
    exercise: str
    status: str
    points: int
    max_points: int
    message: str

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def line(self) -> str:
        mark = "✓" if self.passed else "✗"
        return (
            f"{mark} Exercise {self.exercise} ({self.points}/{self.max_points} pts): "
            f"{self.message}"
        )

    _printed: bool = field(default=False, repr=False, compare=False)

    def __repr__(self) -> str:
        return self.line()

    def _ipython_display_(self) -> None:
        # check() has just printed the line: don't show it a second time as the cell's
        # value; any later display shows it again.
        if self._printed:
            self._printed = False
        else:
            print(self.line())


CHECKS: dict[str, Check] = {}


def register(
    id: str, *, exercise: str, points: int, name: str, reference: Callable[[], Callable]
) -> Callable:
    """Decorator: register ``fn(student) -> (passed, message)`` as the check ``id``.

    ``name`` is the name the lab gives the student's function (what a grader looks up);
    ``reference`` is a zero-argument function returning the model solution (a function,
    so that torch or JAX are imported only when needed).
    """
    if points <= 0:
        raise ValueError(f"points must be positive; got {points}")

    def decorate(fn: Callable[[Callable], tuple[bool, str]]) -> Callable:
        if id in CHECKS:
            raise ValueError(f"check {id!r} is already registered")
        CHECKS[id] = Check(id, exercise, points, name, fn, reference)
        return fn

    return decorate


def mutant(id: str, description: str) -> Callable:
    """Decorator: register a known wrong answer that check ``id`` must reject."""

    def decorate(fn: Callable) -> Callable:
        CHECKS[id].mutants[description] = fn
        return fn

    return decorate


def run(id: str, fn: Callable) -> CheckResult:
    """Run check ``id`` on the student's callable ``fn``; a student's error becomes a
    result, never an exception."""
    if id not in CHECKS:
        raise KeyError(f"no check named {id!r}; known checks: {sorted(CHECKS)}")
    c = CHECKS[id]
    try:
        passed, message = c.fn(fn)
    except NotImplementedError:
        return CheckResult(
            id,
            c.exercise,
            "not attempted",
            0,
            c.points,
            "not attempted (the stub still raises NotImplementedError)",
        )
    except Exception as err:  # noqa: BLE001 - any student error is a failed check
        return CheckResult(
            id,
            c.exercise,
            "error",
            0,
            c.points,
            f"your code raised {type(err).__name__}: {err}{_locate(err)}",
        )
    status = "passed" if passed else "failed"
    return CheckResult(
        id, c.exercise, status, c.points if passed else 0, c.points, message
    )


def check(id: str, fn: Callable, *, file=None) -> CheckResult:
    """Run check ``id`` on ``fn``; print one line, ``✓ Exercise 2.1 (2/2 pts): ...``."""
    result = run(id, fn)
    print(result.line(), file=file or sys.stdout)
    result._printed = True
    return result


def attempted(fn: Callable, *args: Any, file=None) -> bool:
    """Run ``fn(*args)`` once, for a lab's demo cell: ``False`` (and a note saying
    which exercise it waits for) while the student's function is still a stub.

    >>> def stub():
    ...     raise NotImplementedError("Exercise 9.1")
    >>> attempted(stub)
    (skipped until Exercise 9.1 is done)
    False
    """
    try:
        fn(*args)
        return True
    except NotImplementedError as err:
        print(f"(skipped until {err} is done)", file=file or sys.stdout)
        return False


def report(lab: str, namespace: dict, *, file=None) -> list[CheckResult]:
    """Run every check of ``lab`` (e.g. ``"lab02"``) on the functions of that name in
    ``namespace`` (a notebook passes ``globals()``); print a line each, then the total.
    """
    file = file or sys.stdout
    results = []
    for c in (c for id, c in sorted(CHECKS.items()) if id.startswith(lab + ".")):
        if c.name in namespace:
            results.append(run(c.id, namespace[c.name]))
        else:
            results.append(
                CheckResult(
                    c.id,
                    c.exercise,
                    "not attempted",
                    0,
                    c.points,
                    f"no function named {c.name!r} is defined",
                )
            )
        print(results[-1].line(), file=file)
    if not results:
        raise KeyError(f"no checks registered for {lab!r}")
    got, total = sum(r.points for r in results), sum(r.max_points for r in results)
    print(f"Total for {lab}: {got}/{total} pts", file=file)
    return results


# --- comparison helpers -----------------------------------------------------------


#: set by :mod:`alice_course.grading.judge` while it records a check's comparisons
RECORDER: ContextVar[Callable | None] = ContextVar("alice_lab_recorder", default=None)
#: set by the grading worker: turns a traceback into " (cell 3, line 2)"
LOCATOR: ContextVar[Callable | None] = ContextVar("alice_lab_locator", default=None)


def _locate(err: BaseException) -> str:
    locate = LOCATOR.get()
    return locate(err.__traceback__) if locate is not None else ""


def compare(
    name: str, got: Any, want: Any, *, rtol: float, atol: float
) -> tuple[bool, str]:
    """Compare ``got`` (from the student's code) with the reference value ``want``.

    ``want`` is the expected value or, as checks pass it, a zero-argument function
    that computes it: a grading worker, which runs the student's code, never calls
    it (see below). Shape first, then values; the message says what differed and
    where.

    While a grader records the check (:data:`RECORDER` is set) the recorder does the
    work instead. In the worker it keeps ``got`` as a plain array and answers
    ``(True, "")`` without computing ``want``: the verdict is the grader's, which
    runs the same check on the reference solution in its own process
    (:mod:`alice_course.grading.judge`).

    >>> compare("y", [1.0, 2.0], lambda: np.array([1.0, 2.5]), rtol=0, atol=1e-9)[0]
    False
    """
    record = RECORDER.get()
    if record is not None:
        return record(name, got, want, rtol, atol)
    return _match(name, got, expected(want), rtol=rtol, atol=atol)


def expected(want: Any) -> Any:
    """The value ``want`` stands for: ``want()`` if it is a function, else itself."""
    return want() if callable(want) else want


_compare = compare  # the name lab modules import


def _match(
    name: str, got: Any, want: Any, *, rtol: float, atol: float
) -> tuple[bool, str]:
    """The comparison itself, with nothing recorded (the grader calls it directly)."""
    want = np.asarray(want, dtype=np.float64)
    got = np.asarray(to_numpy(got), dtype=np.float64)
    if got.shape != want.shape:
        return False, f"{name} has shape {got.shape}; expected {want.shape}"
    if not np.all(np.isfinite(got)):
        return False, f"{name} contains NaN or inf"
    bad = ~np.isclose(got, want, rtol=rtol, atol=atol)
    if bad.any():
        i = tuple(int(j) for j in np.argwhere(bad)[0])
        return False, (
            f"{name} differs from the reference at index {i}: "
            f"got {got[i]:.6g}, expected {want[i]:.6g} "
            f"({int(bad.sum())} of {bad.size} entries differ)"
        )
    return True, ""


def _points(n: int, seed: int) -> np.ndarray:
    """``n`` seeded points in the exercise's domain [0, 10]^2, shape (n, 2)."""
    return np.random.default_rng(seed).uniform(0.0, 10.0, size=(n, 2))


def _lazy(fn: Callable, *args: Any, **kwargs: Any) -> Callable[[], Any]:
    """``fn(*args, **kwargs)``, computed on the first call of the returned function and
    kept: one reference result for several comparisons, computed only where the
    expected values are wanted (never in the grading worker)."""
    import functools

    @functools.cache
    def value():
        return fn(*args, **kwargs)

    return value


def _chain(*steps: Callable[[], tuple[bool, str]], ok: str) -> tuple[bool, str]:
    for step in steps:
        passed, message = step()
        if not passed:
            return False, message
    return True, ok


def _load_labs() -> None:
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("lab"):
            importlib.import_module(f"{__name__}.{info.name}")


_load_labs()
