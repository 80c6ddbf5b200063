"""Noticing a submission that hands an exercise back to ``alice_lab``'s own code.

``alice_lab`` is installed where students work, so ``grad_f = alice2d_grad`` or a
``gradient_descent`` that calls :func:`alice_lab.optim.gradient_descent` would pass
every comparison. In the grading worker, before any student code runs,
:func:`watch` looks at each check's reference solution (``check.reference()``): the
function itself and the ``alice_lab`` functions it names (its globals and closure),
outside the array helpers of :mod:`alice_lab.backend`, and the same for a reference
written in the lab's check module. Each of those is replaced,
wherever an ``alice_lab`` or ``alice_course`` module holds it, by a wrapper that notes
a call made while that check runs with a frame of the submission on the stack. The
check then fails with a message naming the function; the checks' own calls (a
reference gradient handed to the student's ``gradient_descent`` as an input) have no
submission frame above them and are not noted. Then every check's ``reference`` and
``mutants`` are withheld from the worker.

What this does not catch: code copied out of ``alice_lab``'s source, a call to an
``alice_lab`` function that the reference does not name, and a submission that digs
the original function out of the wrapper (``__closure__``) or reimplements the call
through ``ctypes``. The instructors' page says so.
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable

__all__ = ["delegated", "running", "watch"]

_STATE: dict = {"check": None, "files": frozenset(), "targets": {}, "noted": {}}
_SKIP = ("alice_lab.backend",)  # the array helpers every answer may use


def _is_library_function(obj) -> bool:
    """A function of ``alice_lab`` (outside its array helpers) or of a lab's checks
    (``alice_course.grading.labNN``, where references written for a check live)."""
    module = getattr(obj, "__module__", "") or ""
    return (
        isinstance(obj, types.FunctionType)
        and module.startswith(("alice_lab", "alice_course.grading.lab"))
        and not module.startswith(_SKIP)
    )


def targets_of(reference: Callable) -> set:
    """The reference function (or class's methods) and the ``alice_lab`` functions
    it names directly."""
    found: set = set()
    functions = (
        [v for v in vars(reference).values() if isinstance(v, types.FunctionType)]
        if isinstance(reference, type)
        else [reference]
    )
    for fn in functions:
        fn = getattr(fn, "__func__", fn)
        if not isinstance(fn, types.FunctionType):
            continue
        if _is_library_function(fn):
            found.add(fn)
        names = _names(fn.__code__)
        for name in names:
            value = fn.__globals__.get(name)
            if _is_library_function(value):
                found.add(value)
        for cell in fn.__closure__ or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if _is_library_function(value):
                found.add(value)
    return found


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _wrap(fn: Callable) -> Callable:
    @functools.wraps(fn)
    def noticed(*args, **kwargs):
        check = _STATE["check"]
        if check is not None and fn in _STATE["targets"].get(check, ()):
            frame = sys._getframe(1)
            while frame is not None:
                if frame.f_code.co_filename in _STATE["files"]:
                    _STATE["noted"].setdefault(check, _qualified(fn))
                    break
                frame = frame.f_back
        return fn(*args, **kwargs)

    del noticed.__wrapped__  # not handed out on a plate
    return noticed


def _qualified(fn: Callable) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def watch(checks: dict, ids: list[str], files: set[str]) -> None:
    """Set up the watch for checks ``ids`` of ``checks`` (the registry) against the
    submission's frames (code whose file name is in ``files``), then withhold every
    check's reference and mutants."""
    targets: dict[str, set] = {}
    for check_id in ids:
        check = checks.get(check_id)
        if check is None:
            continue
        try:
            targets[check_id] = targets_of(check.reference())
        except Exception:  # noqa: BLE001 - a reference that cannot load: no watch
            targets[check_id] = set()
    everything = set().union(*targets.values()) if targets else set()
    wrappers = {fn: _wrap(fn) for fn in everything}
    for name, module in list(sys.modules.items()):
        if not name.startswith(("alice_lab", "alice_course")) or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, types.FunctionType) and value in wrappers:
                setattr(module, attr, wrappers[value])
    _STATE.update(targets=targets, files=frozenset(files), noted={})
    for check in checks.values():
        check.reference = _withheld
        check.mutants = {}


def _withheld():
    raise PermissionError("reference solutions are not available while grading")


def running(check_id: str | None) -> None:
    """Say which check runs now (None between checks)."""
    _STATE["check"] = check_id


def delegated(check_id: str) -> str | None:
    """The ``alice_lab`` function the submission called in place of its own answer
    while ``check_id`` ran, if any."""
    return _STATE["noted"].get(check_id)
