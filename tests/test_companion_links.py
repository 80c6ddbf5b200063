"""Every install cell, Colab link, launch button and install line comes from the one
setting in pyproject.toml (tools/companion_links.py), and a fork changes them all."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import companion_links as links  # noqa: E402

FORK = links.Release("https://github.com/someone/alice-fork", "9.9.9")


def test_every_place_agrees_with_pyproject():
    rel = links.release()
    assert rel.repository.startswith("https://github.com/")
    assert links.disagreements(rel) == [], "run python tools/companion_links.py --write"


def test_the_package_reports_the_pyproject_version():
    import alice_lab

    assert alice_lab.__version__ == links.release().version


@pytest.mark.parametrize(
    "path",
    sorted(ROOT.glob("book/ch*.py"))
    + sorted(ROOT.glob("book/app*.py"))
    + sorted(ROOT.glob("labs/lab*.py")),
    ids=lambda p: p.stem,
)
def test_each_notebook_has_one_install_cell_of_its_release(path):
    text = path.read_text()
    cells = links._INSTALL_CELL.findall(text)
    assert len(cells) == 1, f"{path.name}: {len(cells)} install cells"
    rel = links.release()
    assert f"@{rel.tag}" in cells[0] and "@main" not in text
    assert f"/blob/{rel.tag}/" in text  # the Colab link of the same release


def test_a_fork_rewrites_every_address():
    """Rewritten for another repository and version, no source keeps the old address,
    a moving branch or the old tag."""
    rel = links.release()
    for path in links.sources():
        new = links.rewrite(path.read_text(), FORK, path.name)
        name = path.relative_to(ROOT)
        assert rel.repository not in new, name
        assert not re.search(r"/blob/main/|@main\b|branch: main", new), name
        assert f"@{rel.tag}" not in new and f"blob/{rel.tag}" not in new, name


def test_the_generated_install_cell_runs_and_fits_the_column():
    cell = FORK.install_cell("torch,jax")
    compile(cell, "<install cell>", "exec")
    assert 'PACKAGE = f"alice_lab[torch,jax] @ git+{REPOSITORY}@v9.9.9"' in cell
    assert 'REPOSITORY = "https://github.com/someone/alice-fork"' in cell
    assert max(len(line) for line in cell.splitlines()) <= 88
    assert links.rewrite(cell, FORK) == cell  # idempotent
    assert FORK.colab("book/ch02_preliminaries.ipynb") == (
        "https://colab.research.google.com/github/someone/alice-fork/blob/v9.9.9/"
        "book/ch02_preliminaries.ipynb"
    )


def test_a_non_github_repository_is_refused(tmp_path):
    bad = tmp_path / "pyproject.toml"
    bad.write_text(
        '[project]\nversion = "1.0"\n[project.urls]\nRepository = "https://x.org/a/b"\n'
    )
    with pytest.raises(SystemExit, match="GitHub"):
        links.release(bad)
