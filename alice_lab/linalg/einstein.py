r"""Einstein's notation (§2.1.4): :func:`einsum_naive`, ``einsum`` written as the
loops its specification stands for.

Book: §2.1.4.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from alice_lab.backend import (
    to_numpy,
)

__all__ = ["einsum_naive"]


def _parse_einsum(spec: str, n_operands: int) -> tuple[list[str], str]:
    spec = spec.replace(" ", "")
    if "." in spec:
        raise ValueError("einsum_naive does not support ellipsis ('...') in the spec")
    if (
        spec.count("->") > 1
        or (">" in spec and "->" not in spec)
        or spec.count("-") != spec.count("->")
    ):
        raise ValueError(f"malformed einsum spec {spec!r}: use at most one '->'")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    for t in terms + [rhs]:
        bad = [ch for ch in t if not ch.isalpha() or not ch.isascii()]
        if bad:
            raise ValueError(
                f"malformed einsum spec {spec!r}: invalid index {bad[0]!r}"
            )
    if len(terms) != n_operands:
        raise ValueError(
            f"einsum spec {spec!r} names {len(terms)} operand(s) but {n_operands} "
            "were given"
        )
    counts = {c: sum(t.count(c) for t in terms) for c in set(lhs) if c != ","}
    if not arrow:
        rhs = "".join(sorted(c for c, k in counts.items() if k == 1))
    if len(set(rhs)) != len(rhs):
        raise ValueError(f"output indices of {spec!r} repeat an index: {rhs!r}")
    missing = [c for c in rhs if c not in counts]
    if missing:
        raise ValueError(f"output index {missing[0]!r} of {spec!r} is not in any input")
    return terms, rhs


def einsum_naive(spec: str, *operands: Any) -> np.ndarray:
    r"""Einstein summation, interpreted from scratch with explicit loops.

    ``spec`` is ``"ij,jk->ik"``-style: one group of letters per operand, and after
    ``->`` the output's indices. Every index that does not appear in the output is
    summed over (Einstein's convention as simplified in the book). Without ``->`` the
    output is, as in NumPy, the indices appearing exactly once, in alphabetical order.
    An index repeated inside one operand walks its diagonal (``"ii->"`` is the trace).

    The interpreter loops with ``itertools.product`` over every value of the output
    indices and, for each, over every value of the summed ones: cost
    :math:`O(\prod \text{sizes})`, so keep axes small. Operands are converted to NumPy;
    the result is a NumPy array (0-d for a full contraction).

    Raises ``ValueError`` for a malformed spec, a wrong number of operands or axes, or
    an index bound to two different sizes.

    Book: §2.1.4 "Einstein's notation", eqs. einops_1 / einops_2 (lines 502-570).

    >>> import numpy as np
    >>> float(einsum_naive("ii->", np.array([[1.0, 2.0], [3.0, 4.0]])))
    5.0
    """
    if not operands:
        raise ValueError("einsum_naive needs at least one operand")
    ops = [to_numpy(op) for op in operands]
    terms, out = _parse_einsum(spec, len(ops))
    sizes: dict[str, int] = {}
    for k, (t, op) in enumerate(zip(terms, ops, strict=True)):
        if len(t) != op.ndim:
            raise ValueError(
                f"operand {k} has {op.ndim} axes but its indices {t!r} name {len(t)}"
            )
        for c, n in zip(t, op.shape, strict=True):
            if sizes.setdefault(c, n) != n:
                raise ValueError(
                    f"index {c!r} has size {sizes[c]} elsewhere and {n} in operand {k}"
                )
    summed = sorted(set(sizes) - set(out))
    dtype = np.result_type(*ops)
    result = np.zeros(tuple(sizes[c] for c in out), dtype=dtype)
    for out_vals in itertools.product(*(range(sizes[c]) for c in out)):
        env = dict(zip(out, out_vals, strict=True))
        acc = dtype.type(0)
        for sum_vals in itertools.product(*(range(sizes[c]) for c in summed)):
            env.update(zip(summed, sum_vals, strict=True))
            prod = dtype.type(1)
            for t, op in zip(terms, ops, strict=True):
                prod = prod * op[tuple(env[c] for c in t)]
            acc = acc + prod
        result[out_vals] = acc  # host NumPy array built index by index
    return result
