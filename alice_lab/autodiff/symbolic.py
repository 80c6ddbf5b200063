r"""Symbolic differentiation with SymPy, and why its expressions swell.

A computer-algebra system differentiates the *formula*: for the book's
:math:`f(x) = a\sin(x) + bx\sin(x)` it returns :math:`a\cos(x) + bx\cos(x) +
b\sin(x)`. Written out as one expression, nothing is shared: :math:`\sin(x)` appears
twice and :math:`\cos(x)` twice, while a program would compute each once and reuse it.
For compositions the gap becomes exponential: the function
:math:`f_k = \sin(f_{k-1})\,f_{k-1}`, :math:`f_0 = x`, is a program of 2k operations,
yet its expression tree has :math:`2^{k+1}-2` of them and its derivative even more.
Common-subexpression elimination (``sympy.cse``) recovers much of the sharing: the
size then grows only quadratically in k. Automatic differentiation gets the sharing
for free, and a size linear in k, by working on the program (the evaluation trace)
instead of the formula.

SymPy is imported inside the functions (it is an optional dependency).

Book: §6.1.2 and Box 6.1 (lines 2720-2744).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from alice_lab.backend import check_int

__all__ = [
    "SwellRow",
    "box_6_1",
    "expression_swell",
    "shared_subexpressions",
    "symbolic_derivative",
]


def symbolic_derivative(expr: Any, var: Any) -> Any:
    """``sympy.diff(expr, var)``, simplified only as far as SymPy does by default."""
    import sympy as sp

    return sp.diff(expr, var)


def box_6_1() -> dict[str, Any]:
    """The book's Box 6.1: symbols, f(x) = a sin(x) + b x sin(x) and its derivative.

    >>> d = box_6_1(); str(d["df"])
    'a*cos(x) + b*x*cos(x) + b*sin(x)'
    """
    import sympy as sp

    x, a, b = sp.symbols("x a b")
    f = a * sp.sin(x) + b * x * sp.sin(x)
    return {"x": x, "a": a, "b": b, "f": f, "df": sp.diff(f, x)}


def shared_subexpressions(exprs: list[Any]) -> tuple[list[tuple[Any, Any]], list[Any]]:
    """``sympy.cse(exprs)``: the shared pieces ``[(x0, sin(x)), ...]`` and the
    expressions rewritten with them."""
    import sympy as sp

    return sp.cse(exprs)


@dataclass(frozen=True)
class SwellRow:
    """Sizes (SymPy operation counts) at depth k of f_k = sin(f_{k-1}) f_{k-1}.

    program_ops : operations a program executes for f_k (2 per level).
    f_ops, df_ops : operations in the expression trees of f_k and df_k/dx.
    cse_ops : operations of [f_k, df_k/dx] after common-subexpression elimination.
    """

    k: int
    program_ops: int
    f_ops: int
    df_ops: int
    cse_ops: int


def expression_swell(depth: int = 6) -> list[SwellRow]:
    """Expression sizes for k = 1..depth, showing the swell and what CSE recovers.

    >>> [r.df_ops for r in expression_swell(3)]
    [4, 24, 88]
    """
    import sympy as sp

    depth = check_int(depth, "depth")
    x = sp.Symbol("x")
    f = x
    rows = []
    for k in range(1, depth + 1):
        f = sp.sin(f) * f
        df = sp.diff(f, x)
        shared, rewritten = sp.cse([f, df])
        cse_ops = sum(sp.count_ops(v) for _, v in shared) + sum(
            sp.count_ops(e) for e in rewritten
        )
        rows.append(SwellRow(k, 2 * k, sp.count_ops(f), sp.count_ops(df), cse_ops))
    return rows
