"""Write the paired ``.ipynb`` of each notebook source, the same bytes every time.

``jupytext --to ipynb`` gives every cell a new random id on each run, so regenerating
a notebook rewrote all of its ids and every diff was noise. Here cell ``i`` of
``book/chNN_slug.py`` gets the id ``chNN-slug-NNN`` (as the student labs do), so a
regenerated notebook differs from the committed one only where a cell changed.

    python tools/pair.py                      # every book/*.py
    python tools/pair.py book/ch02_preliminaries.py
    python tools/pair.py --check              # exit 1 when a pair is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parents[1]


def paired(source: Path):
    """The notebook of ``source`` with deterministic cell ids and no outputs."""
    nb = jupytext.read(source)
    stem = source.stem[:40].replace("_", "-")
    for i, cell in enumerate(nb.cells):
        cell.id = f"{stem}-{i:03d}"
    return nb


def render(source: Path) -> str:
    return jupytext.writes(paired(source), fmt="ipynb")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", type=Path, help="default: book/*.py")
    parser.add_argument("--check", action="store_true", help="only compare")
    args = parser.parse_args(argv)
    sources = args.sources or sorted((ROOT / "book").glob("*.py"))
    stale = []
    for source in sources:
        target = source.with_suffix(".ipynb")
        text = render(source)
        if target.exists() and target.read_text(encoding="utf-8") == text:
            continue
        stale.append(target)
        if not args.check:
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target}")
    if args.check:
        for target in stale:
            source = target.with_suffix(".py")
            print(f"{target} is out of date: python tools/pair.py {source}")
        return 1 if stale else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
