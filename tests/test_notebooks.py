"""Every notebook of the site runs from top to bottom: each code cell executed, none
raised (what nbval's lax mode checked; the assertions are in the cells).

`make test` executes each notebook once, in its quick site build
(``tools/notebook_runs.py``, two at a time); this file checks those runs and fails
with the failing cell's traceback. Run without a fresh record (``make test-fast``, or
after editing a notebook or ``alice_lab``), it executes the stale notebooks first, the
same way.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import notebook_runs  # noqa: E402

NAMES = notebook_runs.site_notebooks()


@pytest.fixture(scope="module")
def records():
    return notebook_runs.run_all(fast=True, jobs=2)


def test_the_site_notebooks_are_found():
    assert "book/ch02_preliminaries.ipynb" in NAMES
    assert "book/benchmarks.ipynb" in NAMES
    # the Claims and Errata pages are Markdown, made from the chapters' logs
    assert not [n for n in NAMES if "claims" in n or "errata" in n]
    assert not [n for n in NAMES if n.startswith("labs/student/")]


@pytest.mark.notebooks
@pytest.mark.parametrize("name", NAMES)
def test_every_cell_runs(records, name):
    rec = records[name]
    if not rec.ok:
        pytest.fail(
            f"{name}: cell {rec.failed_cell} raised\n{rec.error}", pytrace=False
        )
    assert rec.fast and notebook_runs.is_fresh(
        rec, inputs_sha=notebook_runs.inputs_hash()
    )
    nb = nbformat.read(notebook_runs.executed_dir(True) / Path(name).name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert code, f"{name} has no code cell"
    not_run = [i for i, c in enumerate(code) if c.execution_count is None]
    assert not not_run, f"{name}: code cells {not_run} never ran"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, [(e.ename, e.evalue) for e in errors]


def test_the_claims_pages_list_what_the_chapters_logged(records):
    """The Claims and Errata pages are built from the chapters' logs, not by running
    every check: every registered claim was logged by a chapter, with the anchor of
    the block it showed there, and the pages made from the logs list none as not
    verified."""
    from alice_course import claims

    sys.path.insert(0, str(ROOT / "tools"))
    import claims_pages

    executed = notebook_runs.executed_dir(True)
    logged = claims.recorded(executed)
    assert {r.claim.id for r in logged} == {c.id for c in claims.all_claims()}
    rows = claims_pages.rows(executed)
    assert [r for r in rows if r.status != "holds"] == []
    assert [r.claim.id for r in rows if not r.anchor] == []
    shown: dict[str, str] = {}  # the HTML outputs of each executed chapter
    for r in rows:  # the block is on the page the row links to
        if r.page not in shown:
            nb = nbformat.read(
                executed / r.page.replace(".html", ".ipynb"), as_version=4
            )
            shown[r.page] = "".join(
                "".join(o.get("data", {}).get("text/html", ""))
                for c in nb.cells
                if c.cell_type == "code"
                for o in c.outputs
            )
        assert f'id="{r.anchor}"' in shown[r.page], r.href
