"""Everything the notebooks and the package import is declared: in the package's
dependencies, or in the extra that the notebook's install cell asks for (the cell is
what Colab and a fresh environment run). ``alice-lab doctor`` checks the versions."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
#: import name -> distribution name, where they differ
DISTRIBUTION = {
    "sklearn": "scikit-learn",
    "array_api_compat": "array-api-compat",
    "PIL": "pillow",
}
#: imported only where present (an optional demo checks find_spec first), or shipped
#: with a dependency (IPython comes with ipywidgets; benchmarks/ is the repository's)
OPTIONAL = {"datasets", "IPython", "benchmarks", "alice_lab", "alice_course"}
NOTEBOOKS = sorted(ROOT.glob("book/ch*.py")) + sorted(ROOT.glob("book/app*.py"))
LABS = sorted(ROOT.glob("labs/lab*.py"))


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()


def imported(path: Path) -> set[str]:
    """Top-level third-party modules that ``path`` imports anywhere."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names}


def declared(extras: set[str]) -> set[str]:
    found = {_name(r) for r in PROJECT["dependencies"]}
    for extra in extras:
        found |= {_name(r) for r in PROJECT["optional-dependencies"][extra]}
    return found


def install_extras(path: Path) -> set[str]:
    m = re.search(r"alice_lab(?:\[([\w,]*)\])? @ git\+", path.read_text())
    assert m, f"{path.name} has no install cell"
    return set(filter(None, (m.group(1) or "").split(",")))


@pytest.mark.parametrize("path", NOTEBOOKS + LABS, ids=lambda p: p.stem)
def test_the_install_cell_brings_everything_the_notebook_imports(path):
    extras = install_extras(path)
    have = declared(extras)
    missing = {
        DISTRIBUTION.get(m, m).lower()
        for m in imported(path) - OPTIONAL
        if DISTRIBUTION.get(m, m).lower() not in have
    }
    assert not missing, f"{path.name} asks for alice_lab[{','.join(extras)}]: {missing}"


def test_the_package_imports_only_declared_distributions():
    """The two packages import nothing that `pip install alice_lab` leaves out,
    torch and JAX aside (extras)."""
    have = declared({"torch", "jax"})
    files = [
        *(ROOT / "alice_lab").rglob("*.py"),
        *(ROOT / "alice_course").rglob("*.py"),
    ]
    used = set().union(*(imported(p) for p in files))
    missing = {DISTRIBUTION.get(m, m).lower() for m in used - OPTIONAL} - have
    assert not missing, missing


def test_doctor_checks_the_installed_versions_against_the_bounds():
    from alice_course import doctor

    checks = {c.name: c for c in doctor.version_checks()}
    assert "numpy" in checks and "scikit-learn" in checks
    assert all(c.ok for c in checks.values()), [c.line() for c in checks.values()]
    low = doctor.check_bound("numpy", "numpy>=99.0")
    assert not low.ok and "99.0" in low.detail and "numpy" in low.detail
