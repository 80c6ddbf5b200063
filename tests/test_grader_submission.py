"""Reading submissions: definitions are found by name, whatever happened to the cells,
and bad files come back with a problem a student can act on instead of an exception."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from alice_course.grading.submission import extract, load_submission, parse_text

CORPUS = Path(__file__).parent / "grader_corpus"
NAMES = ["f", "grad_f", "gradient_descent", "momentum_descent"]


def _notebook(tmp_path: Path, cells, metadata=None, name="nb.ipynb") -> Path:
    nb = {
        "cells": [
            {"cell_type": kind, "metadata": {}, "source": src, "outputs": []}
            if kind == "code"
            else {"cell_type": kind, "metadata": {}, "source": src}
            for kind, src in cells
        ],
        "metadata": metadata if metadata is not None else {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / name
    path.write_text(json.dumps(nb))
    return path


def _run(program) -> dict:
    """Execute the extracted statements as the worker would (trusted input here)."""
    ns: dict = {}
    for s in program.statements:
        exec(compile(s.source, f"<{s.filename}>", "exec"), ns)
    return ns


def test_only_definitions_and_what_they_need_are_kept():
    sub = parse_text(
        "import os; os._exit(0)\n"
        "import numpy as np\n"
        "import matplotlib.pyplot as plt\n"
        "SCALE = 2.0\n"
        "UNUSED = heavy_computation()\n"
        "def helper(x):\n    return SCALE * x\n"
        "def f(X):\n    total = helper(X)\n    return np.sum(total, axis=1)\n"
        "plt.plot([1, 2])\n"
        "print(f(np.ones((2, 2))))\n"
        "for i in range(10**9):\n    pass\n"
    )
    program = extract(sub, ["f"])
    sources = [s.source for s in program.statements]
    assert sources == [  # `import os; os._exit(0)`: neither is needed, neither runs
        "import numpy as np",
        "SCALE = 2.0",
        "def helper(x):\n    return SCALE * x",
        "def f(X):\n    total = helper(X)\n    return np.sum(total, axis=1)",
    ]
    assert list(_run(program)["f"](np.array([[1.0, 2.0]]))) == [6.0]


def test_last_definition_wins_and_duplicates_are_noted(tmp_path):
    path = _notebook(
        tmp_path,
        [
            ("code", "def f(X):\n    return 'old'"),
            ("markdown", "# text"),
            ("code", "def f(X):\n    return 'new'"),
        ],
    )
    program = extract(load_submission(path), ["f"])
    assert _run(program)["f"](None) == "new"
    assert program.found == {"f": "cell 3, line 1"}
    assert any("defined 2 times" in n and "last definition" in n for n in program.notes)


def test_reordered_cells_still_resolve():
    sub = parse_text(
        "# %%\ndef f(X):\n    return helper(X) + OFFSET\n"
        "# %%\nOFFSET = 1\n# %%\ndef helper(X):\n    return 2 * X\n"
    )
    assert _run(extract(sub, ["f"]))["f"](3) == 7


def test_retyped_cells_are_rescued_with_a_note(tmp_path):
    path = _notebook(
        tmp_path,
        [
            ("code", "import numpy as np"),
            ("markdown", "def f(X):\n    return np.zeros(len(X))"),
            ("raw", "def grad_f(X):\n    return X"),
            ("markdown", "def unrelated():\n    pass"),
        ],
    )
    program = extract(load_submission(path), ["f", "grad_f"])
    assert set(program.found) == {"f", "grad_f"}
    notes = " ".join(program.notes)
    assert "markdown cell (cell 2)" in notes and "raw cell (cell 3)" in notes
    assert "unrelated" not in " ".join(s.source for s in program.statements)


def test_syntax_errors_and_magics_cost_only_the_broken_definition(tmp_path):
    path = _notebook(
        tmp_path,
        [
            (
                "code",
                "%matplotlib inline\nimport numpy as np\n!pip install foo\n"
                "def f(X):\n    %time y = 1\n    return X\n",
            ),
            ("code", "def grad_f(X):\n    return (X\n\ndef keep(x):\n    return x\n"),
            ("code", "%%bash\necho hi\n"),
        ],
    )
    sub = load_submission(path)
    program = extract(sub, ["f", "grad_f", "keep"])
    assert set(program.found) == {"f", "keep"}
    notes = " ".join(program.notes)
    assert "cell 2 (line 2) has a syntax error" in notes
    assert "cell 3 was skipped: it is a %%bash cell magic" in notes
    assert _run(program)["keep"](5) == 5


@pytest.mark.parametrize(
    "name, problem",
    [
        ("empty.ipynb", "the submission is empty"),
        ("malformed.ipynb", "not valid JSON (line"),
    ],
)
def test_unreadable_files_have_a_problem_not_an_exception(name, problem):
    sub = load_submission(CORPUS / name)
    assert sub.problem is not None and problem in sub.problem
    assert sub.cells == []


def test_missing_file_and_oversized_file(tmp_path):
    assert "could not be read" in load_submission(tmp_path / "missing.ipynb").problem
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * 100)
    assert "limit" in load_submission(big, max_bytes=100).problem


def test_unknown_kernel_is_graded_as_python_with_a_note():
    sub = load_submission(CORPUS / "unknown_kernel.ipynb")
    assert sub.problem is None and sub.kernel == "ir"
    assert any("not Python" in n for n in sub.notes)
    assert set(extract(sub, NAMES).found) == set(NAMES)


def test_notebook_holding_python_source_and_nbformat3(tmp_path):
    py_in_disguise = tmp_path / "lab.ipynb"
    py_in_disguise.write_text("def f(X):\n    return X\n")
    sub = load_submission(py_in_disguise)
    assert sub.problem is None and "graded as a Python file" in sub.notes[0]
    v3 = tmp_path / "old.ipynb"
    v3.write_text(
        json.dumps(
            {
                "nbformat": 3,
                "worksheets": [
                    {"cells": [{"cell_type": "code", "input": ["def f(X):", " 1"]}]}
                ],
            }
        )
    )
    assert extract(load_submission(v3), ["f"]).found == {"f": "cell 1, line 1"}


def test_py_percent_lines_are_file_lines():
    sub = parse_text(
        "# %% [markdown]\n# # Title\n\n# %%\nimport numpy as np\n\n\ndef f(X):\n"
        "    return np.asarray(X)\n",
        name="lab.py",
    )
    program = extract(sub, ["f"])
    assert program.found == {"f": "lab.py, line 8"}
    assert [(s.filename, s.line) for s in program.statements] == [
        ("lab.py", 5),
        ("lab.py", 8),
    ]


def test_config_calls_are_kept_with_their_imports():
    sub = parse_text(
        "import jax\nimport jax.numpy as jnp\n"
        "jax.config.update('jax_enable_x64', True)\nprint('noise')\n"
        "def f(x):\n    return jnp.sin(x)\n"
    )
    sources = [s.source for s in extract(sub, ["f"]).statements]
    assert "jax.config.update('jax_enable_x64', True)" in sources
    assert "import jax" in sources and "print('noise')" not in sources


def test_generated_student_notebook_defines_every_graded_name():
    root = Path(__file__).resolve().parents[1]
    sub = load_submission(root / "labs" / "student" / "lab02_gradient_descent.ipynb")
    assert sub.assignment == "lab02_gradient_descent"
    names = NAMES + ["f_single_jax", "f_single_torch"]
    assert set(extract(sub, names).found) == set(names)
