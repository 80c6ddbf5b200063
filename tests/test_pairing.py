"""Each book/*.py (the source) regenerates exactly its committed paired .ipynb.

The .py wins: the .ipynb is what Colab and the site's launch buttons open, so it must
hold the same cells, and it is committed without outputs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import pair  # noqa: E402

SOURCES = sorted((ROOT / "book").glob("*.py"))


def _cells(nb) -> list[tuple[str, str, dict]]:
    return [(c.cell_type, c.source, dict(c.metadata)) for c in nb.cells]


def test_there_are_chapter_sources():
    names = {p.stem for p in SOURCES}
    assert {"ch01_introduction", "ch02_preliminaries"} <= names, names


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_source_is_a_paired_percent_script(source):
    text = source.read_text(encoding="utf-8")
    assert "formats: ipynb,py:percent" in text, (
        f"{source.name} lacks the jupytext pairing header"
    )


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_committed_ipynb_matches_its_source(source):
    paired = source.with_suffix(".ipynb")
    assert paired.exists(), (
        f"{paired.name} is missing: run `python tools/pair.py {source}`"
    )
    regenerated = jupytext.reads(pair.render(source), fmt="ipynb")
    committed = jupytext.read(paired)
    assert _cells(committed) == _cells(regenerated), (
        f"{paired.name} drifted from {source.name}: run `python tools/pair.py {source}`"
    )
    assert committed.metadata.get("kernelspec") == regenerated.metadata.get(
        "kernelspec"
    )


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_regenerating_gives_the_same_bytes(source):
    """Cell ids are derived from the cell's place, not drawn at random, so that
    regenerating a notebook changes nothing but the cells that changed."""
    assert pair.render(source) == pair.render(source)
    assert source.with_suffix(".ipynb").read_text(encoding="utf-8") == pair.render(
        source
    ), f"run `python tools/pair.py {source}`"
    ids = [c.id for c in pair.paired(source).cells]
    assert ids[0] == f"{source.stem[:40].replace('_', '-')}-000" and len(
        set(ids)
    ) == len(ids)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_committed_ipynb_has_no_outputs(source):
    raw = json.loads(source.with_suffix(".ipynb").read_text(encoding="utf-8"))
    for cell in raw["cells"]:
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{source.stem}: committed with outputs"
            assert cell.get("execution_count") is None


def test_pairing_check_detects_drift(tmp_path):
    """The comparison above can fail: an edited source no longer matches."""
    source = SOURCES[0]
    nb = jupytext.read(source)
    nb.cells[-1].source += "\n# an edit that was not synced"
    edited = tmp_path / source.name
    jupytext.write(nb, edited, fmt="py:percent")
    regenerated = jupytext.read(edited)
    assert _cells(regenerated) != _cells(jupytext.read(source.with_suffix(".ipynb")))
