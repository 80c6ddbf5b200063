"""Noticing a submission that hands an exercise back to ``alice_lab``'s own code.

``alice_lab`` is installed where students work, so ``grad_f = alice2d_grad`` or a
``gradient_descent`` that calls :func:`alice_lab.optim.gradient_descent` would pass
every comparison. In the grading worker, before any student code runs,
:func:`watch` looks at each check's reference solution (``check.reference()``): the
function itself and the ``alice_lab`` functions it names (its globals, its closure,
imports in its body), outside the array helpers of :mod:`alice_lab.backend`, and the
same through the helpers of the lab's check module it calls. Each of those is replaced,
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

import dis
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
    it names: in its globals, its closure or an import inside its body, and, through
    a function of a lab's check module that it names, the same one level further."""
    found: set = set()
    todo = (
        [v for v in vars(reference).values() if isinstance(v, types.FunctionType)]
        if isinstance(reference, type)
        else [reference]
    )
    looked: set = set()
    while todo:
        fn = todo.pop()
        fn = getattr(fn, "__func__", fn)
        if not isinstance(fn, types.FunctionType) or fn in looked:
            continue
        looked.add(fn)
        if _is_library_function(fn):
            found.add(fn)
        named = [fn.__globals__.get(name) for name in _names(fn.__code__)]
        named += _imported(fn.__code__)
        for cell in fn.__closure__ or ():
            try:
                named.append(cell.cell_contents)
            except ValueError:
                continue
        for value in named:
            if not _is_library_function(value):
                continue
            found.add(value)
            if value.__module__.startswith("alice_course.grading.lab"):
                todo.append(value)  # a helper of the check module: look inside
    return found


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _imported(code: types.CodeType) -> list:
    """The objects that ``from alice_lab... import name`` statements in ``code`` (and
    the functions defined in it) bind, looked up in the modules already loaded."""
    out: list = []
    module = None
    for ins in dis.get_instructions(code):
        if ins.opname == "IMPORT_NAME":
            module = sys.modules.get(ins.argval)
        elif ins.opname == "IMPORT_FROM" and module is not None:
            out.append(getattr(module, ins.argval, None))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out += _imported(const)
    return out


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
