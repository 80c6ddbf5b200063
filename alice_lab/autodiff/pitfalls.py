r"""Two wrong backward passes, kept to show what the right one must do.

Both walk the same graph with the same VJP rules as
:func:`alice_lab.autodiff.engine.backward_pass`; each drops one ingredient.

- :func:`backward_overwrite` *stores* each contribution instead of *adding* it: a
  value used twice (``b = a * a; c = a + b``) keeps only the last path's gradient.
- :func:`backward_unsorted` adds contributions but visits nodes in breadth-first
  order from the output instead of a topological order: a node can pass its adjoint
  on before all the nodes that use it have contributed, and what arrives later never
  reaches the inputs. Leaves still add up everything they receive (as ``.grad``
  does), so the book's diamond ``b = a * a; c = a + b`` with a leaf ``a`` comes out
  right; put one node in front, ``a = exp(x); y = a + a * a``, and the path through
  ``a * a`` never reaches ``x``.

The book's "From theory to practice" (line 3240) warns about exactly this: in a
general acyclic graph, sort the variables before the backward pass.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from alice_lab.autodiff.engine import Tensor, toposort

__all__ = ["backward_overwrite", "backward_unsorted"]


def backward_overwrite(root: Tensor, seed: np.ndarray | None = None) -> dict:
    """Topological order, but each adjoint is *overwritten* by the latest path."""
    adjoint = {id(root): np.ones_like(root.data) if seed is None else seed}
    result = {}
    for node in toposort(root):
        g = adjoint.get(id(node))
        if g is None:
            continue
        result[node] = g
        for parent, gp in zip(node.parents, node.local_vjp(g), strict=True):
            adjoint[id(parent)] = gp  # wrong: should be adjoint[...] + gp
    return result


def backward_unsorted(root: Tensor, seed: np.ndarray | None = None) -> dict:
    """Accumulates, but visits nodes breadth-first, each once, as soon as reached."""
    adjoint = {id(root): np.ones_like(root.data) if seed is None else seed}
    visited, queue, seen = [], deque([root]), {id(root)}
    while queue:
        node = queue.popleft()
        visited.append(node)
        g = adjoint[id(node)]  # may still be missing contributions
        for parent, gp in zip(node.parents, node.local_vjp(g), strict=True):
            k = id(parent)
            adjoint[k] = gp if k not in adjoint else adjoint[k] + gp
            if k not in seen:
                seen.add(k)
                queue.append(parent)
    return {node: adjoint[id(node)] for node in visited}  # what .grad would hold
