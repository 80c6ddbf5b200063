"""Two packages, one direction: ``alice_lab`` (the textbook library) never imports
``alice_course`` (the course machinery: claims, widgets, grading, CLI), except the
one-release aliases of the moved modules, which warn; ``import alice_lab`` exposes
library modules only."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "alice_lab"
#: the moved modules' aliases, kept for notebooks published with the old imports
ALIASES = {"claims", "grading", "widgets"}
COURSE = {"claims", "cli", "doctor", "experiments", "grading", "labs", "widgets"}


def _imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.startswith("alice_course"):  # importlib.import_module("...")
                found.add("alice_course")
    return found


def test_the_library_never_imports_the_course():
    offenders = [
        p.relative_to(ROOT).as_posix()
        for p in sorted(LIBRARY.rglob("*.py"))
        if "alice_course" in _imported_packages(p)
        and not (p.parent == LIBRARY and p.stem in ALIASES)
    ]
    assert not offenders, f"alice_lab modules importing alice_course: {offenders}"


def test_the_library_exposes_library_modules_only():
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys, alice_lab\n"
            "for name in alice_lab.__all__:\n"
            "    getattr(alice_lab, name)\n"
            "print(json.dumps(sorted(dir(alice_lab))))\n"
            "print(json.dumps(sorted(m for m in sys.modules\n"
            "                        if m.startswith('alice_course'))))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    names, course_modules = (json.loads(line) for line in done.stdout.splitlines())
    assert not COURSE & set(names), COURSE & set(names)
    assert "optim" in names and "attention" in names
    assert course_modules == []  # every library module imported, nothing of the course


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_the_old_names_still_import_for_one_release_with_a_warning(name):
    import importlib

    sys.modules.pop(f"alice_lab.{name}", None)
    with pytest.warns(FutureWarning, match=f"moved to alice_course.{name}"):
        old = importlib.import_module(f"alice_lab.{name}")
    assert old is importlib.import_module(f"alice_course.{name}")
    sys.modules.pop(f"alice_lab.{name}", None)


def test_widgets_are_named_by_chapter_and_old_names_warn():
    """Chapter N's widgets are the modules ``chNN_*``; a name from before the prefixes
    still imports (one release), with a FutureWarning naming the new one."""
    from alice_course import widgets

    views = [n for n in widgets.__all__ if n not in ("describe", "static")]
    assert views and all(re.match(r"(ch\d\d|app[AB])_[a-z_]+$", n) for n in views)
    done = subprocess.run(
        [
            sys.executable,
            "-W",
            "error::FutureWarning",
            "-c",
            "from alice_course.widgets.minibatch_sgd import live_view",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "alice_course.widgets.ch05_minibatch_sgd" in done.stderr


def test_published_lab_imports_keep_working():
    """What the student notebooks of the last release import."""
    done = subprocess.run(
        [
            sys.executable,
            "-W",
            "ignore::FutureWarning",
            "-c",
            "from alice_lab.grading import attempted\n"
            "from alice_lab import grading\n"
            "from alice_lab.widgets.gd_momentum import live_view\n"
            "print(callable(attempted), 'lab02.1' in grading.CHECKS,"
            " callable(live_view))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["True", "True", "True"]
