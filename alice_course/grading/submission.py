"""Reading a student's submission and extracting the definitions that are graded.

A submission is a notebook (``.ipynb``) or a Python file (``.py``, plain or jupytext
py:percent). Grading identifies answers by the *names* the lab asks for (``f``,
``grad_f``, ...), not by cell ids or metadata, because students reorder, duplicate,
retype and delete cells (nbgrader's most reported breakages). :func:`load_submission`
never raises on a bad file: an empty file, broken JSON or a notebook from another
kernel comes back with ``problem`` or ``notes`` set, in words a student can act on.

:func:`extract` then builds the :class:`Program` the sandboxed worker runs: from every
code cell, in notebook order,

- the function and class definitions of the graded names, and, transitively, the
  definitions, plain assignments and imports they refer to (helpers, constants,
  ``np``; imports inside a ``try:`` block such as the lab's Colab guard count too);
  the last definition of a name wins, as when the notebook is run top to bottom;
- a few configuration calls that change results (``jax.config.update``,
  ``torch.set_default_dtype``, seeding).

Everything else (plots, prints, training loops, calls to ``grading.check``,
``sys.exit()``) is left out: the grader calls the student's functions itself, on inputs
it chooses. Cells that do not parse are salvaged definition by definition; IPython
magics are skipped; a graded definition found only in a markdown or raw cell (a
retyped cell) is used, with a note asking the student to change the cell back.

>>> text = "import numpy as np\\nprint('hi')\\ndef f(X):\\n    return np.sin(X)"
>>> sub = parse_text(text)
>>> [s.source.split()[0] for s in extract(sub, ["f"]).statements]
['import', 'def']
"""

from __future__ import annotations

import ast
import json
import re
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from alice_course.grading.intake import MAX_BYTES, read_submission_bytes

__all__ = [
    "Program",
    "Submission",
    "extract",
    "load_bytes",
    "load_submission",
    "parse_text",
]

_KEEP_CELL_MAGICS = {"time", "timeit", "capture", "prun"}
_CONFIG_CALLS = {
    "jax.config.update",
    "config.update",
    "torch.set_default_dtype",
    "torch.manual_seed",
    "np.random.seed",
    "numpy.random.seed",
    "random.seed",
}
_PERCENT = re.compile(r"^#\s*%%(?P<rest>.*)$")
_MAGIC_TARGET = re.compile(r"[\w.\[\], ]+")
_CHUNK_START = re.compile(
    r"^(?:@|def\s|async\s+def\s|class\s|import\s|from\s|if\s|for\s|while\s|with\s|"
    r"try\s*:|[A-Za-z_][\w.]*\s*(?:[-+*/]?=(?!=)|:))"
)


@dataclass
class Cell:
    """One cell: its 1-based position, its type, its text, and how to name a line in
    it (``filename`` and the file line of its first line, for ``.py`` files)."""

    index: int
    kind: str
    source: str
    filename: str
    first_line: int = 1


@dataclass
class Submission:
    """A submission as read: its cells, kernel and assignment name when the notebook
    says, ``problem`` when it cannot be graded at all, and notes for the student."""

    path: Path
    cells: list[Cell] = field(default_factory=list)
    kernel: str | None = None
    assignment: str | None = None
    problem: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class Statement:
    """One top-level statement for the worker to run, with where it came from."""

    source: str
    filename: str
    line: int

    def to_json(self) -> dict:
        return {"source": self.source, "filename": self.filename, "line": self.line}


@dataclass
class Program:
    """What the worker runs before it calls the graded functions."""

    statements: list[Statement]
    found: dict[str, str]
    notes: list[str] = field(default_factory=list)


# --- reading files --------------------------------------------------------------------


def load_submission(path: Path, *, max_bytes: int = MAX_BYTES) -> Submission:
    """Read ``path`` (``.ipynb`` or ``.py``) without following a link; never raises
    for a bad file."""
    path = Path(path)
    data = read_submission_bytes(path, max_bytes)
    if isinstance(data, str):
        return Submission(path, problem=data)
    return load_bytes(data, path)


def load_bytes(data: bytes, path: Path) -> Submission:
    """A submission from the bytes of a file named ``path``."""
    sub = Submission(Path(path))
    text = data.decode("utf-8-sig", errors="replace")
    if "\ufffd" in text:
        sub.notes.append("the file is not valid UTF-8; unreadable bytes were replaced")
    if not text.strip():
        sub.problem = "the submission is empty; save your notebook and submit it again"
        return sub
    if sub.path.suffix.lower() == ".ipynb" or text.lstrip().startswith("{"):
        return _read_notebook(sub, text)
    return _read_python(sub, text)


def parse_text(text: str, name: str = "submission.py") -> Submission:
    """A submission from Python source text (py:percent or plain)."""
    return _read_python(Submission(Path(name)), text)


def _read_notebook(sub: Submission, text: str) -> Submission:
    try:
        nb = json.loads(text)
    except ValueError as err:
        if _parses(text):
            sub.notes.append(
                "the notebook file holds Python source, not a notebook; it was graded "
                "as a Python file"
            )
            return _read_python(sub, text)
        where = (
            f" (line {err.lineno}, column {err.colno})"
            if hasattr(err, "lineno")
            else ""
        )
        sub.problem = (
            f"the notebook file is not valid JSON{where}, so it cannot be opened; "
            "it was probably damaged while saving or editing by hand: open it in "
            "Jupyter, or download it again, and resubmit"
        )
        return sub
    if not isinstance(nb, dict):
        sub.problem = (
            "the notebook file does not hold a notebook (JSON object expected)"
        )
        return sub
    meta = nb.get("metadata") if isinstance(nb.get("metadata"), dict) else {}
    sub.kernel, language = _kernel(meta)
    if language and language.lower() != "python":
        sub.notes.append(
            f"the notebook's kernel is {sub.kernel or language!r} ({language}), not "
            "Python; its code cells were graded as Python"
        )
    flag = meta.get("alice_lab")
    if isinstance(flag, dict) and isinstance(flag.get("assignment"), str):
        sub.assignment = flag["assignment"]
    raw_cells = nb.get("cells")
    if raw_cells is None and isinstance(nb.get("worksheets"), list):  # nbformat 3
        raw_cells = [
            c
            for ws in nb["worksheets"]
            if isinstance(ws, dict)
            for c in ws.get("cells", [])
            if isinstance(ws.get("cells"), list)
        ]
    if not isinstance(raw_cells, list):
        sub.problem = "the notebook has no list of cells; it may be damaged"
        return sub
    for i, cell in enumerate(raw_cells, start=1):
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", cell.get("input", ""))
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            continue
        kind = (
            cell.get("cell_type") if isinstance(cell.get("cell_type"), str) else "raw"
        )
        sub.cells.append(Cell(i, kind, source, f"cell {i}"))
    if not any(c.kind == "code" and c.source.strip() for c in sub.cells):
        sub.notes.append("the notebook has no code cells with code in them")
    return sub


def _kernel(meta: dict) -> tuple[str | None, str | None]:
    spec = meta.get("kernelspec") if isinstance(meta.get("kernelspec"), dict) else {}
    info = meta.get("language_info")
    info = info if isinstance(info, dict) else {}
    name = spec.get("name") if isinstance(spec.get("name"), str) else None
    language = spec.get("language") or info.get("name")
    if not isinstance(language, str):
        language = None
    if language is None and name and not name.startswith("python"):
        language = name
    return name, language


def _read_python(sub: Submission, text: str) -> Submission:
    lines = text.splitlines()
    starts = [i for i, ln in enumerate(lines) if _PERCENT.match(ln)]
    bounds = ([0] if not starts or starts[0] != 0 else []) + starts + [len(lines)]
    filename = sub.path.name
    for n, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False), start=1):
        header = _PERCENT.match(lines[a]) if a < len(lines) else None
        kind = "code"
        if header:
            if re.search(r"\[(markdown|md|raw)\]", header.group("rest")):
                kind = "markdown"
            a += 1
        sub.cells.append(Cell(n, kind, "\n".join(lines[a:b]), filename, a + 1))
    return sub


_AST_LOCK = threading.Lock()


def _parse(text: str) -> ast.Module:
    """``ast.parse``, one thread at a time, ignoring the student's SyntaxWarnings.

    ``grade_batch`` grades submissions in threads, and CPython 3.11's AST builder
    keeps its recursion counter per interpreter, not per thread: two parses at once
    can fail with "SystemError: AST constructor recursion depth mismatch"
    (python/cpython#106905). A warning (an invalid escape in a string) is no reason
    to fail a submission either. Code nested too deeply to build its tree raises
    ``ValueError``, as a syntax error would.
    """
    with _AST_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text)
        except (RecursionError, MemoryError) as err:  # e.g. `1+1+...` 20 000 terms
            why = f"too deeply nested to read ({type(err).__name__})"
            raise ValueError(why) from None


def _parses(text: str) -> bool:
    try:
        _parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


# --- parsing cells ------------------------------------------------------------------


def _strip_magics(source: str) -> tuple[str, str | None]:
    """IPython syntax replaced by ``pass`` (line numbers kept), or a reason to skip the
    whole cell (a ``%%bash``-style cell magic)."""
    lines = source.splitlines()
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = (
            lines[first].lstrip()[2:].split(maxsplit=1)[0]
            if lines[first].strip("% ")
            else ""
        )
        if magic not in _KEEP_CELL_MAGICS:
            return "", f"a %%{magic} cell magic"
        lines[first] = ""
    out = []
    for line in lines:
        stripped = line.strip()
        help_line = stripped.endswith("?") and not stripped.startswith("#")
        if _magic_indent(line) is not None or help_line:
            out.append(line[: len(line) - len(line.lstrip())] + "pass")
        else:
            out.append(line)
    return "\n".join(out), None


def _magic_indent(line: str) -> str | None:
    """The indentation of an IPython line magic or shell escape (``%time f(x)``,
    ``!ls``, ``files = !ls``), or None; in time linear in the line's length."""
    body = line.lstrip()
    indent = line[: len(line) - len(body)]
    if body.startswith(("%", "!")):
        return indent
    target, eq, rest = body.partition("=")
    if eq and rest.lstrip().startswith(("%", "!")):
        if _MAGIC_TARGET.fullmatch(target.rstrip()):
            return indent
    return None


def _chunks(source: str) -> list[tuple[int, str]]:
    """Split a cell that does not parse at top-level statement starts, so that one
    broken definition does not take the others down: ``(first line, text)`` pairs."""
    lines = source.splitlines()
    chunks: list[tuple[int, list[str]]] = []
    decorating = False
    for i, line in enumerate(lines, start=1):
        starts = bool(_CHUNK_START.match(line)) and not decorating
        if starts or not chunks:
            chunks.append((i, [line]))
        else:
            chunks[-1][1].append(line)
        if line.startswith("@"):
            decorating = True
        elif line and not line[0].isspace() and not line.startswith("#"):
            decorating = False
    return [(i, "\n".join(body)) for i, body in chunks]


@dataclass
class _Stmt:
    node: ast.stmt
    text: str
    cell: Cell
    line: int  # 1-based line within the cell

    @property
    def file_line(self) -> int:
        """The line in the cell (notebooks) or in the file (``.py``)."""
        if self.cell.filename.startswith("cell "):
            return self.line
        return self.cell.first_line + self.line - 1

    @property
    def where(self) -> str:
        if self.cell.filename.startswith("cell "):
            return f"{self.cell.filename}, line {self.line}"
        return f"{self.cell.filename}, line {self.cell.first_line + self.line - 1}"


def _parse_cell(cell: Cell, notes: list[str]) -> list[_Stmt]:
    source, skip = (
        _strip_magics(cell.source) if not _parses(cell.source) else (cell.source, None)
    )
    if skip:
        notes.append(f"{cell.filename} was skipped: it is {skip}")
        return []
    try:
        pieces = [(1, source, _parse(source))]
    except (SyntaxError, ValueError) as err:
        line = getattr(err, "lineno", None) or 1
        notes.append(
            f"{_where(cell, line)} has a syntax error ({getattr(err, 'msg', err)}); "
            "the rest of that cell was graded where it could be read"
        )
        pieces = []
        for start, text in _chunks(source):
            try:
                pieces.append((start, text, _parse(text)))
            except (SyntaxError, ValueError):
                continue
    out = []
    for start, text, tree in pieces:
        lines = text.splitlines()
        for node in tree.body:
            first = min(
                [node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]
            )
            body = "\n".join(lines[first - 1 : node.end_lineno])
            if not _single_statement(body):  # e.g. `import os; os._exit(0)`
                body = ast.unparse(node)
            out.append(_Stmt(node, body, cell, start + first - 1))
    return out


def _single_statement(text: str) -> bool:
    try:
        return len(_parse(text).body) == 1
    except (SyntaxError, ValueError):
        return False


def _where(cell: Cell, line: int) -> str:
    if cell.filename.startswith("cell "):
        return f"{cell.filename} (line {line})"
    return f"{cell.filename}, line {cell.first_line + line - 1}"


# --- choosing what to run -----------------------------------------------------------


def _bound(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _loads(*nodes: ast.AST | None) -> set[str]:
    return {
        n.id
        for node in nodes
        if node is not None
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }


def _used(node: ast.AST) -> set[str]:
    """The global names a statement needs: for a function, the names its body reads
    but does not bind (its free variables), plus its decorators and defaults."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        a = node.args
        outer = _loads(*a.defaults, *[d for d in a.kw_defaults if d is not None])
        if not isinstance(node, ast.Lambda):
            outer |= _loads(*node.decorator_list, node.returns)
            outer |= _loads(
                *[x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs]
            )
        body = [node.body] if isinstance(node, ast.Lambda) else node.body
        bound = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
        bound |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
        declared: set[str] = set()
        for n in (n for stmt in body for n in ast.walk(stmt)):
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                bound.add(n.id)
            elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound.add(n.name)
            elif isinstance(n, ast.arg):
                bound.add(n.arg)
            elif isinstance(n, ast.Import | ast.ImportFrom):
                bound |= _bound(n)
            elif isinstance(n, ast.Global | ast.Nonlocal):
                declared |= set(n.names)
        return outer | (_loads(*body) - (bound - declared))
    if isinstance(node, ast.ClassDef):
        outer = _loads(*node.bases, *node.keywords, *node.decorator_list)
        here = {n for stmt in node.body for n in _bound(stmt)}
        inner = (
            set().union(*(_used(stmt) for stmt in node.body)) if node.body else set()
        )
        methods = set().union(
            *(
                _used(stmt)
                for stmt in node.body
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
            )
        )
        return outer | methods | (inner - here)
    return _loads(node)


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


_DEFINITIONS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
)


def _is_config(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and _dotted(node.value.func) in _CONFIG_CALLS
    )


def _imports_in_try(node: ast.stmt) -> list[ast.stmt]:
    if (
        isinstance(node, ast.Try)
        and node.body
        and all(
            isinstance(s, ast.Import | ast.ImportFrom | ast.Pass) for s in node.body
        )
    ):
        return [s for s in node.body if not isinstance(s, ast.Pass)]
    return []


def _close_over_uses(pool: list[_Stmt], needed: set[str]) -> None:
    """Add to ``needed`` every name that the definitions of needed names use, and so
    on (imports are kept by name later). Each statement is looked at once, so a
    chain of thousands of assignments costs linear time."""
    binders: dict[str, list[int]] = {}
    for k, s in enumerate(pool):
        if not isinstance(s.node, ast.Import | ast.ImportFrom):
            for n in _bound(s.node):
                binders.setdefault(n, []).append(k)
    todo, seen = list(needed), set()
    while todo:
        for k in binders.get(todo.pop(), ()):
            if k in seen:
                continue
            seen.add(k)
            new = _used(pool[k].node) - needed
            needed |= new
            todo += new


def extract(sub: Submission, names: list[str]) -> Program:
    """The statements that define ``names`` (and what they need), in notebook order."""
    notes: list[str] = []
    code = [s for c in sub.cells if c.kind == "code" for s in _parse_cell(c, notes)]
    defined = {n for s in code for n in _bound(s.node)}
    missing = [n for n in names if n not in defined]
    rescued: list[_Stmt] = []
    for cell in (c for c in sub.cells if c.kind != "code" and missing):
        stmts = _parse_cell(cell, []) if _parses(_strip_magics(cell.source)[0]) else []
        got = sorted({n for s in stmts for n in _bound(s.node)} & set(missing))
        if got:
            kind = "a markdown" if cell.kind == "markdown" else f"a {cell.kind}"
            notes.append(
                f"{', '.join(got)} was found in {kind} cell ({cell.filename}) and "
                "graded anyway; change that cell back to a Code cell"
            )
            rescued += stmts
            missing = [n for n in missing if n not in got]
    pool = sorted(code + rescued, key=lambda s: (s.cell.index, s.line))
    needed = set(names)
    for s in pool:  # configuration calls run, so what they use is needed too
        if _is_config(s.node):
            needed |= _used(s.node)
    _close_over_uses(pool, needed)
    chosen: list[Statement] = []
    found: dict[str, list[str]] = {}
    for s in pool:
        node = s.node
        if isinstance(node, ast.Import | ast.ImportFrom):
            keep = bool(_bound(node) & needed) or any(a.name == "*" for a in node.names)
        elif isinstance(node, _DEFINITIONS):
            keep = bool(_bound(node) & needed)
        else:
            keep = _is_config(node)
        for imp in _imports_in_try(node):
            if _bound(imp) & needed:
                chosen.append(Statement(ast.unparse(imp), s.cell.filename, s.file_line))
        if keep:
            chosen.append(Statement(s.text, s.cell.filename, s.file_line))
            for n in _bound(node) & set(names):
                found.setdefault(n, []).append(s.where)
    for n, places in found.items():
        if len(places) > 1:
            notes.append(
                f"{n} is defined {len(places)} times ({'; '.join(places)}); "
                "the last definition was graded"
            )
    return Program(chosen, {n: p[-1] for n, p in found.items()}, notes)
