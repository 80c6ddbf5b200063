"""The API reference (api/*.md, built by Sphinx autodoc into the site).

The first tests read the sources only: every public name of every library module (its
``__all__``) has a row in an autosummary table and an entry on its module's page, so
a new function cannot be left out, and every library module has a page in the table of
contents. The others read the built site (``ALICE_SITE``, else ``_build/html``, as in
tests/test_site.py) and skip when there is none (or it predates the reference): an entry
shows its docstring with the book citation and its doctest as code, and chapter 7 links
``conv2d`` to its entry.
"""

from __future__ import annotations

import html
import inspect
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
import yaml

import alice_lab

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "api"
HTML = ROOT / os.environ.get("ALICE_SITE", "_build/html")

#: The companion's own machinery: not part of the library reference.
COURSE = {"claims", "cli", "doctor", "experiments", "grading", "labs", "widgets"}
LIBRARY = sorted(set(alice_lab._SUBMODULES) - COURSE)
#: Submodules documented beyond the packages' ``__all__`` (public in their own right).
EXTRA_SUBMODULES = ["alice_lab.text.torch_models"]

_DIRECTIVE = re.compile(
    r"^\.\. (?:auto(?:function|class|data|exception)|py:(?:function|class|data))"
    r"::\s*(\S+?)(?:\(.*)?$"
)


def _page(module: str) -> str:
    return (API / f"{module}.md").read_text(encoding="utf-8")


def _documented(module: str) -> tuple[set[str], set[str]]:
    """Full names in the autosummary tables and in the entries of ``api/<module>.md``
    (short names are relative to ``alice_lab.<module>``, the page's current module)."""
    base = f"alice_lab.{module}"

    def full(name: str) -> str:
        return name if name.startswith("alice_lab.") else f"{base}.{name}"

    summary, entries = set(), set()
    in_table = False
    for line in _page(module).splitlines():
        stripped = line.strip()
        if stripped.startswith(".. autosummary::"):
            in_table = True
            continue
        if in_table:
            if stripped.startswith(":") or not stripped:
                continue
            if line.startswith("   ") and not stripped.startswith(".."):
                summary.add(full(stripped.lstrip("~")))
                continue
            in_table = False
        m = _DIRECTIVE.match(stripped)
        if m:
            entries.add(full(m.group(1)))
    return summary, entries


def _public(module: str) -> dict[str, str]:
    """Full name -> how to find it, for every public function, class and constant of
    ``alice_lab.<module>`` (for ``autodiff``, also its public submodules')."""
    mod = getattr(alice_lab, module)
    names = {}
    for name in mod.__all__:
        obj = getattr(mod, name)
        if isinstance(obj, types.ModuleType):
            for sub in obj.__all__:  # alice_lab.autodiff.ops, ...
                if getattr(mod, sub, None) is getattr(obj, sub):
                    continue  # re-exported: documented under the package's name
                names[f"{obj.__name__}.{sub}"] = f"{obj.__name__}.__all__"
        else:
            names[f"{mod.__name__}.{name}"] = f"{mod.__name__}.__all__"
    return names


@pytest.mark.parametrize("module", LIBRARY)
def test_every_public_name_has_a_row_and_an_entry(module):
    assert (API / f"{module}.md").exists(), f"no page api/{module}.md"
    summary, entries = _documented(module)
    public = _public(module)
    for extra in EXTRA_SUBMODULES:
        if extra.startswith(f"alice_lab.{module}."):
            sub = __import__(extra, fromlist=["__all__"])
            public.update({f"{extra}.{n}": f"{extra}.__all__" for n in sub.__all__})
    no_row = sorted(set(public) - summary)
    no_entry = sorted(set(public) - entries)
    assert not no_row and not no_entry, (
        f"api/{module}.md misses public names of alice_lab.{module}: "
        f"no autosummary row for {no_row}, no entry (autofunction/autoclass/autodata) "
        f"for {no_entry}; add them to the section of the submodule they come from"
    )
    unknown = sorted((summary | entries) - set(public))
    assert not unknown, f"api/{module}.md documents names not in __all__: {unknown}"


def test_every_library_module_is_on_the_index_and_in_the_table_of_contents():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    reference = next(p for p in toc["parts"] if p.get("caption") == "Reference")
    index = next(c for c in reference["chapters"] if c["file"] == "api/index")
    in_toc = {s["file"] for s in index.get("sections", [])}
    assert in_toc == {f"api/{m}" for m in LIBRARY}, in_toc ^ {
        f"api/{m}" for m in LIBRARY
    }
    pages = {p.stem for p in API.glob("*.md")} - {"index"}
    assert pages == set(LIBRARY), pages ^ set(LIBRARY)
    text = (API / "index.md").read_text(encoding="utf-8")
    missing = [m for m in LIBRARY if f"{{py:mod}}`alice_lab.{m}`" not in text]
    assert not missing, f"api/index.md does not list {missing}"
    for course in COURSE:
        assert f"`alice_course.{course}`" in text, f"the index does not name {course}"


def test_importing_the_documented_modules_imports_neither_torch_nor_jax():
    """autodoc imports every library module for the reference; like ``import
    alice_lab``, none of them may pull in torch or JAX (only the torch modules they
    load on first use, such as ``alice_lab.text.torch_models``, import torch)."""
    code = (
        "import importlib, sys\n"
        f"for m in {LIBRARY!r}: importlib.import_module('alice_lab.' + m)\n"
        "print('torch' in sys.modules, 'jax' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False"]


# --- the built site -----------------------------------------------------------------


def _need_site() -> None:
    """Skip unless a site with the API reference is built (``make test`` builds one;
    a site built before the reference existed counts as not built)."""
    if not (HTML / "index.html").exists():
        pytest.skip(f"no built site at {HTML}: run `make book` (or `make test`) first")
    if not (HTML / "api" / "index.html").exists():
        pytest.skip(
            f"the site at {HTML} was built without the API reference: rebuild it "
            "(`make book`, or `make test` for the quick copy)"
        )


def _site_page(path: str) -> str:
    _need_site()
    page = HTML / path
    assert page.exists(), f"{path} is missing from the built site at {HTML}"
    return page.read_text(encoding="utf-8")


def _text(fragment: str) -> str:
    """Visible text, with whitespace and Sphinx's smart quotes normalised."""
    text = html.unescape(re.sub(r"<[^>]+>", "", fragment))
    text = text.translate(str.maketrans("“”‘’", "\"\"''"))
    return " ".join(text.split())


def _entry(page: str, anchor: str) -> str:
    """The HTML of one autodoc entry: from its ``<dt id=...>`` to its ``</dl>``."""
    start = page.index(f'id="{anchor}"')
    return page[start : page.index("</dl>", start)]


@pytest.mark.parametrize(
    ("module", "name"),
    [("conv", "conv2d"), ("optim", "gradient_descent"), ("attention", "causal_mask")],
)
def test_an_entry_shows_the_docstring_with_its_book_citation(module, name):
    page = _site_page(f"api/{module}.html")
    doc = inspect.getdoc(getattr(getattr(alice_lab, module), name))
    cited = re.search(r"\b[Bb]ook:? §[^\n]+", doc)
    assert cited, f"alice_lab.{module}.{name}'s docstring cites no section of the book"
    citation = " ".join(cited.group(0).replace("``", "").split())
    entry = _entry(page, f"alice_lab.{module}.{name}")
    assert citation.rstrip(".") in _text(entry), (
        f"the entry of alice_lab.{module}.{name} does not show {citation!r}"
    )
    if ">>>" in doc:
        assert 'class="doctest' in entry and "&gt;&gt;&gt;" in entry, (
            f"the doctest of alice_lab.{module}.{name} is not rendered as code"
        )


def test_chapter7_links_conv2d_to_its_entry():
    page = _site_page("book/ch07_convolutions.html")
    links = re.findall(r'<a [^>]*href="([^"]*\.\./api/[^"]*)"[^>]*>(.*?)</a>', page)
    targets = {_text(inner): href for href, inner in links}
    assert targets.get("conv2d", "").endswith("api/conv.html#alice_lab.conv.conv2d"), (
        f"chapter 7 does not link conv2d to the API reference; its API links: "
        f"{sorted(targets)}"
    )
    assert "conv.patches" in targets and "alice_lab.conv" in targets


def test_chapters_link_only_library_names():
    """No framework name (``torch.nn.functional.conv2d``, ``F.unfold``) is linked."""
    _need_site()
    wrong = {}
    for path in sorted((HTML / "book").glob("*.html")):
        page = path.read_text(encoding="utf-8")
        links = re.findall(r'<a [^>]*href="\.\./api/[^"]*"[^>]*>(.*?)</a>', page)
        bad = [
            _text(inner)
            for inner in links
            if re.match(r"(torch|F|np|numpy|jax|jnp|nn|scipy)\.", _text(inner))
        ]
        if bad:
            wrong[path.stem] = bad
    assert not wrong, f"framework names linked to the API reference: {wrong}"
