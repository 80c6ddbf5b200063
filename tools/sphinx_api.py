"""Sphinx extension for the API reference (``api/*.md``) and the links to it.

Loaded from ``_config.yml`` (``sphinx: local_extensions``). Two jobs:

**Docstrings.** ``alice_lab``'s docstrings use NumPy-style section headers
(``Parameters``, ``Returns``, ``Raises``, ``Attributes``, ``Yields``, underlined with
dashes) but keep writing after a section: the ``Book: §x.y`` citation and the doctest
follow the last section with no header of their own. ``sphinx.ext.napoleon`` would read
them as more parameters (``Book`` with type ``§1 ...``) or exceptions, so this extension
converts the sections itself (``autodoc-process-docstring``): a header becomes a rubric;
in ``Parameters``/``Attributes`` each ``name : type`` line becomes a list item with its
indented description, and the section ends at the first line that is neither; in
``Returns``/``Yields``/``Raises`` (prose in this code base) the paragraph stays as
written. A constant re-exported by a package (``alice_lab.conv.FILTERS``) gets the
``#:`` comment of the module that defines it, not the docstring of ``dict``.

**Links from the chapters.** The chapters (``book/ch*``, ``book/app*``) mention the
library in inline code: ```alice_lab.conv.conv2d```, ```conv.patches```,
```nz.layer_norm``` or a bare ```conv2d```. After every page has been read, the API
pages have registered each documented object in Sphinx's Python domain; a post-transform
then turns such a literal into a link to the object's entry, without touching the
notebooks. It links conservatively, and never guesses:

- a fully qualified name (```alice_lab.conv.conv2d```, a module such as
  ```alice_lab.conv```) that the API pages document;
- ``A.name`` where ``A`` is bound by the chapter's own imports to an ``alice_lab``
  module (``from alice_lab import normalization as nz`` makes ```nz.layer_norm```
  link), or where ``A`` is the short name of a library module the chapter imports
  under another name or imports names from (```losses.hinge_grad``` in a chapter with
  ``from alice_lab.losses import hinge``), and the chapter binds ``A`` to nothing else;
- a bare ``name`` only when the chapter imports it (``from alice_lab.x import name``),
  or when exactly one documented function, class or constant has that name and the
  chapter's code calls it through its module (``conv.conv2d(...)`` makes a bare
  ```conv2d``` link); never when the chapter binds ``name`` to something else (its
  own function, a widget), never when its sentence names a framework before it
  ("PyTorch's fused ```scaled_dot_product_attention```"), and never for the names
  that ``NOT_LINKED`` lists for a page.

Either form may end in ``()``; a qualified name may also carry arguments
(```linear.ls_gradient(..., scale="exact")```). Literals inside headings, existing
links, code cells and cell outputs stay as they are. The build log gets one line with
the number of links on each page.

It also resolves the docstrings' cross-references to a submodule that the API pages do
not document on its own (``:mod:`alice_lab.conv.shifted```,
``:func:`~alice_lab.autodiff.functional.grad```): a module goes to its section of the
package's page (an ``(api-<package>-<module>)=`` label) or to the package, an object to
the package-level name that re-exports it.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: Pages whose inline code may link (regular expressions on the docname).
PAGES = r"book/(ch\d\d|app[A-Z])_\w+"
#: Literal texts that name a framework's function on a page, not the library's.
NOT_LINKED: dict[str, set[str]] = {}
#: A framework named earlier in the sentence makes a bare name the framework's
#: ("PyTorch's fused `scaled_dot_product_attention`", "In a functional library (JAX,
#: `torch.func`) ... `vjp` maps", "Frameworks offer ... (`binary_cross_entropy`)").
_FRAMEWORK = re.compile(
    r"\b(PyTorch|torch|JAX|jax|NumPy|numpy|SciPy|scipy|TensorFlow|Keras|"
    r"scikit-learn|sklearn|einops|[Ff]rameworks?)\b"
)
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_MODULE_LEVEL = {"function", "class", "data", "exception"}


def _split_call(text: str) -> tuple[str, bool] | None:
    """``"conv.conv2d(x, w)"`` -> ``("conv.conv2d", True)``; ``None`` if not a name."""
    text = text.strip()
    m = _DOTTED.match(text)
    if not m:
        return None
    name, rest = m.group(0), text[m.end() :]
    if rest == "" or rest == "()":
        return name, False
    if rest.startswith("(") and rest.endswith(")"):
        return name, True
    return None


class _Chapter:
    """What a chapter's code cells bind: imports, and every other assigned name."""

    def __init__(self, path: Path):
        # local name -> the dotted path it was imported as
        self.imports: dict[str, str] = {}
        # names bound by anything but an import (functions, variables, arguments)
        self.bound: set[str] = set()
        self.code = ""
        if path.suffix == ".ipynb" and path.exists():
            nb = json.loads(path.read_text(encoding="utf8"))
            cells = [c for c in nb.get("cells", []) if c.get("cell_type") == "code"]
            sources = ["".join(c.get("source", "")) for c in cells]
            self.code = "\n".join(sources)
            for src in sources:
                self._scan(src)

    def _scan(self, src: str) -> None:
        lines = [
            ln for ln in src.splitlines() if not ln.lstrip().startswith(("%", "!"))
        ]
        try:
            tree = ast.parse("\n".join(lines))
        except SyntaxError:
            return
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.imports[a.asname] = a.name
                    else:
                        top = a.name.split(".")[0]
                        self.imports[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    self.imports[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            ):
                self.bound.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.bound.add(node.id)
            elif isinstance(node, ast.arg):
                self.bound.add(node.arg)

    def attribute_uses(self) -> set[tuple[str, str]]:
        """``(A, rest)`` for every ``A.rest`` chain in the code."""
        return {
            (m.group(1), m.group(2))
            for m in re.finditer(
                r"(?<![\w.])([A-Za-z_]\w*)\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)",
                self.code,
            )
        }


class _Index:
    """The documented ``alice_lab`` objects, by full name and by identity."""

    def __init__(self, env):
        py = env.get_domain("py")
        self.entries = {
            name: entry
            for name, entry in py.objects.items()
            if name.startswith("alice_lab")
            and entry.docname.startswith("api/")
            and not entry.aliased
        }
        self.modules = {n for n, e in self.entries.items() if e.objtype == "module"}
        self.by_short: dict[str, list[str]] = defaultdict(list)
        for name, entry in self.entries.items():
            if entry.objtype in _MODULE_LEVEL and _parent(name) in self.modules:
                self.by_short[name.rsplit(".", 1)[1]].append(name)
        self.by_id: dict[int, str] = {}
        for name, entry in self.entries.items():
            if entry.objtype in ("function", "class", "module"):
                obj = _lookup(name)
                if obj is not None:
                    self.by_id.setdefault(id(obj), name)

    def canonical(self, dotted: str) -> str | None:
        """The documented name of what ``dotted`` denotes, if any."""
        if dotted in self.entries:
            return dotted
        obj = _lookup(dotted)
        if obj is None or isinstance(obj, int | float | str | tuple | dict | list):
            return None
        return self.by_id.get(id(obj))

    def module_of(self, name: str) -> str:
        """The documented module an object's entry lives in."""
        while name not in self.modules and "." in name:
            name = _parent(name)
        return name


def _parent(name: str) -> str:
    return name.rsplit(".", 1)[0]


def _lookup(dotted: str):
    """The object ``dotted`` names, looked up in modules that are already imported
    (autodoc imported every documented one), so that nothing new is imported."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        mod = sys.modules.get(".".join(parts[:i]))
        if mod is None:
            continue
        obj = mod
        for attr in parts[i:]:
            obj = (
                getattr(obj, attr, None)
                if attr in getattr(obj, "__dict__", {})
                else None
            )
            if obj is None:
                return None
        return obj
    return None


class ChapterApiLinks(SphinxPostTransform):
    """Inline code in the chapter pages that names a documented object -> a link."""

    default_priority = 5  # before Sphinx's ReferencesResolver (10) resolves the links

    def run(self, **kwargs) -> None:
        docname = self.env.docname
        if not re.fullmatch(PAGES, docname):
            return
        index = _index(self.env)
        chapter = _Chapter(Path(self.env.doc2path(docname)))
        resolver = _Resolver(index, chapter, NOT_LINKED.get(docname, set()))
        made = 0
        for literal in list(self.document.findall(nodes.literal)):
            if _skipped(literal):
                continue
            target = resolver.resolve(literal.astext(), _sentence_before(literal))
            if target is None:
                continue
            xref = addnodes.pending_xref(
                "",
                refdomain="py",
                reftype="obj",
                reftarget=target,
                refexplicit=True,
                refwarn=True,
                refdoc=docname,
            )
            literal.parent.replace(literal, xref)
            xref += literal
            made += 1
        if getattr(self.env, "api_links", None) is None:
            self.env.api_links = {}
        self.env.api_links[docname] = made


class _Resolver:
    def __init__(self, index: _Index, chapter: _Chapter, not_linked: set[str]):
        self.index, self.chapter, self.not_linked = index, chapter, not_linked
        # local name -> the documented module / object (None: not documented)
        self.modules: dict[str, str] = {}
        self.names: dict[str, str | None] = {}
        for local, dotted in chapter.imports.items():
            found = index.canonical(dotted)
            if found in index.modules:
                self.modules[local] = found
            else:
                self.names[local] = found
        # library modules the chapter uses (under any name, or by importing from them)
        self.used_modules = set(self.modules.values()) | {
            index.module_of(n) for n in self.names.values() if n
        }
        self.called: set[str] = set()  # documented objects the code reaches as A.name
        for head, rest in chapter.attribute_uses():
            if head in self.modules:
                found = index.canonical(f"{self.modules[head]}.{rest}")
                if found:
                    self.called.add(found)

    def resolve(self, text: str, before: str) -> str | None:
        split = _split_call(text)
        if split is None:
            return None
        name, with_args = split
        if name in self.not_linked:
            return None
        if "." in name:
            return self._dotted(name)
        if with_args or _FRAMEWORK.search(before):
            return None
        return self._bare(name)

    def _dotted(self, name: str) -> str | None:
        index = self.index
        if name.split(".")[0] == "alice_lab":
            return index.canonical(name)
        head, rest = name.split(".", 1)
        if head in self.modules:
            return index.canonical(f"{self.modules[head]}.{rest}")
        if head in self.names or head in self.chapter.bound:
            return None  # the chapter binds it to something else
        module = f"alice_lab.{head}"
        if module in index.modules and module in self.used_modules:
            found = f"{module}.{rest}"
            return found if found in index.entries else None
        return None

    def _bare(self, name: str) -> str | None:
        if name in self.names:
            return self.names[name]  # imported by name: documented or not
        if name in self.modules or name in self.chapter.bound:
            return None
        candidates = self.index.by_short.get(name, [])
        if len(candidates) == 1 and candidates[0] in self.called:
            return candidates[0]
        return None


def _skipped(literal: nodes.literal) -> bool:
    node = literal.parent
    while node is not None:
        if isinstance(
            node,
            nodes.reference | nodes.title | nodes.literal_block | addnodes.pending_xref,
        ):
            return True
        if isinstance(node, nodes.container) and {
            "cell_output",
            "cell_input",
        } & set(node.get("classes", [])):
            return True
        node = node.parent
    return False


def _sentence_before(literal: nodes.literal) -> str:
    """The text of the literal's sentence up to the literal (its paragraph's text
    since the last full stop)."""
    block = literal.parent
    while block.parent is not None and not isinstance(
        block, nodes.paragraph | nodes.list_item | nodes.entry
    ):
        block = block.parent
    before = []
    for node in block.findall(nodes.Text):
        if any(a is literal for a in _ancestors(node)):
            break
        before.append(node.astext())
    return re.split(r"[.!?]\s", " ".join(before))[-1]


def _ancestors(node):
    while node is not None:
        yield node
        node = node.parent


def _index(env) -> _Index:
    cached = getattr(env, "_api_links_index", None)
    if cached is None:
        cached = env._api_links_index = _Index(env)
    return cached


def _reset(app, env, docnames) -> None:
    env._api_links_index = None
    env.api_links = {}


def _report(app, exception) -> None:
    counts = getattr(app.env, "api_links", {})
    if exception is None and counts:
        total = sum(counts.values())
        per_page = ", ".join(
            f"{d.split('/')[-1]} {n}" for d, n in sorted(counts.items())
        )
        logger.info(f"api links: {total} in the chapters ({per_page})")


# --- docstrings ---------------------------------------------------------------------

#: Sections whose entries are ``name : type`` lines with indented descriptions.
FIELD_SECTIONS = {"Parameters", "Other Parameters", "Attributes", "Keyword Arguments"}
_FIELD = re.compile(r"([A-Za-z_*][\w*]*(?:\s*,\s*[A-Za-z_*][\w*]*)*)\s+:(?:\s+(.*))?$")
_INLINE_CODE = re.compile(r"(``.+?``|:[\w:]+:`[^`]+`|`[^`]+`_?)")


def _escape_stars(text: str) -> str:
    """``*`` outside inline code and roles, escaped (``(T + 1, *x0.shape) array``)."""
    parts = _INLINE_CODE.split(text)
    return "".join(
        p if i % 2 else p.replace("\\*", "*").replace("*", "\\*")
        for i, p in enumerate(parts)
    )


def _is_header(lines: list[str], i: int) -> bool:
    if i + 1 >= len(lines) or not lines[i].strip() or lines[i][:1].isspace():
        return False
    under = lines[i + 1].rstrip()
    return len(under) >= 3 and set(under) == {"-"} and len(under) >= len(lines[i]) - 2


def _starts_description(head: str, line: str) -> bool:
    if head.count("`") % 2 or head.count("(") > head.count(")"):
        return False
    return line[0].isupper() or line[0] == ":"


def numpy_sections(lines: list[str]) -> list[str]:
    """The docstring with its NumPy-style sections turned into rubrics and lists."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not _is_header(lines, i):
            out.append(lines[i])
            i += 1
            continue
        title = lines[i].strip()
        out += [f".. rubric:: {title}", ""]
        i += 2
        if title not in FIELD_SECTIONS:
            continue  # prose: the paragraph that follows stays as written
        while i < len(lines):
            line = lines[i]
            if not line.strip():
                i += 1
                continue
            m = _FIELD.match(line)
            if line[:1].isspace() or not m:
                break
            names = ", ".join(f"``{n.strip()}``" for n in m.group(1).split(","))
            head = [m.group(2) or ""]
            i += 1
            body = []
            while i < len(lines) and (not lines[i].strip() or lines[i][:1].isspace()):
                body.append(lines[i].strip())
                i += 1
            while body and not body[-1]:
                body.pop()
            # the indented lines continue the type until one starts a description:
            # a capital, or a role, once the inline markup and brackets are closed
            while body and body[0] and not _starts_description(" ".join(head), body[0]):
                head.append(body.pop(0))
            kind = _escape_stars(" ".join(h for h in head if h))
            out.append(f"* {names} : {kind}" if kind else f"* {names}")
            if body:
                out.append("")
                out += ["  " + b if b else "" for b in body]
            out.append("")
        out.append("")
    return out


def _process_docstring(app, what, name, obj, options, lines) -> None:
    if not name.startswith("alice_lab"):
        return
    if what in ("data", "attribute") and _is_type_doc(obj, lines):
        lines[:] = _defining_comment(name, obj)
    lines[:] = numpy_sections(lines)


def _is_type_doc(obj, lines: list[str]) -> bool:
    """Whether autodoc fell back to the docstring of the value's type (``dict``)."""
    doc = type(obj).__doc__ or ""
    return bool(lines) and " ".join(lines).split()[:6] == doc.split()[:6]


def _defining_comment(name: str, obj) -> list[str]:
    """The ``#:`` comment above the constant in the submodule that defines it."""
    from sphinx.pycode import ModuleAnalyzer

    package, attr = name.rsplit(".", 1)
    for modname, module in sorted(sys.modules.items()):
        if not modname.startswith(package + ".") or vars(module).get(attr) is not obj:
            continue
        try:
            docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
        except Exception:  # noqa: BLE001 - no source: no comment
            continue
        if ("", attr) in docs:
            return list(docs[("", attr)])
    return []


# --- docstrings' cross-references -----------------------------------------------------


def _candidates(node) -> list[str]:
    """The full names a docstring's ``py`` reference may mean, ``alice_lab`` only."""
    target = node["reftarget"].lstrip(".")
    module, cls = node.get("py:module") or "", node.get("py:class") or ""
    names = [target]
    if module:
        if cls:
            names.append(f"{module}.{cls}.{target}")
        names.append(f"{module}.{target}")
    return [n for n in names if n.startswith("alice_lab.")]


def _resolve_docstring_ref(app, env, node, contnode):
    """A docstring's reference that Sphinx did not find: a submodule without an entry
    of its own goes to its section label (``api-<package>-<module>``) or its package;
    ``alice_lab.pkg.sub.name`` to ``alice_lab.pkg.name`` when that is the same object;
    a bare name to the one documented object of that name in the context's package."""
    if node.get("refdomain") != "py":
        return None
    index = _index(env)
    std = env.get_domain("std")
    for name in _candidates(node):
        parts = name.split(".")
        if node["reftype"] == "mod":
            label = "api-" + "-".join(parts[1:])
            if label in std.labels:
                docname, labelid, _ = std.labels[label]
                return _refnode(app, node, contnode, docname, labelid, name)
            package = ".".join(parts[:2])
            if package != name and package in index.modules:
                entry = index.entries[package]
                return _refnode(app, node, contnode, entry.docname, entry.node_id, name)
            continue
        obj = _lookup(name)
        for j in range(2, len(parts) - 1):  # drop one submodule from the path
            short = ".".join(parts[:j] + parts[j + 1 :])
            if obj is not None and short in index.entries and _lookup(short) is obj:
                entry = index.entries[short]
                return _refnode(
                    app, node, contnode, entry.docname, entry.node_id, short
                )
    target = node["reftarget"].lstrip(".")
    module = node.get("py:module") or ""
    if (
        node["reftype"] != "mod"
        and "." not in target
        and module.startswith("alice_lab.")
    ):
        package = ".".join(module.split(".")[:2])
        hits = [
            n
            for n, e in index.entries.items()
            if n.startswith(package + ".")
            and n.rsplit(".", 1)[1] == target
            and e.objtype in _MODULE_LEVEL
        ]
        if len(hits) == 1:
            entry = index.entries[hits[0]]
            return _refnode(app, node, contnode, entry.docname, entry.node_id, hits[0])
    return None


def _quiet_undocumented(app, domain, node) -> bool | None:
    """No nitpicky warning for a docstring naming a real ``alice_lab`` helper that is
    not public (not in its module's ``__all__``), such as ``batch_indices``: it stays
    code, without a link."""
    if domain is not None and domain.name == "py":
        if any(_lookup(name) is not None for name in _candidates(node)):
            return True
    return None


def _refnode(app, node, contnode, docname, anchor, title):
    from sphinx.util.nodes import make_refnode

    return make_refnode(app.builder, node["refdoc"], docname, anchor, contnode, title)


def setup(app):
    app.connect("autodoc-process-docstring", _process_docstring)
    app.add_post_transform(ChapterApiLinks)
    app.connect("env-before-read-docs", _reset)
    app.connect("missing-reference", _resolve_docstring_ref)
    app.connect("warn-missing-reference", _quiet_undocumented)
    app.connect("build-finished", _report)
    # written serially: the post-transform counts the links of every page in the env
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": False}
