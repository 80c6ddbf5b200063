r"""Tensors and the book's notation: rank, shape specs, Binary, simplex, broadcasting.

The book writes a tensor's shape as :math:`X \sim (s_1, \dots, s_n)` and calls the
number of axes its *rank* (NumPy's ``ndim``, not the linear-algebra rank). A vector is
``(d)``, a batch of vectors ``(n, d)``, an image ``(h, w, c)``, a batch of images
``(b, h, w, c)``. This module turns that notation into checks and shape arithmetic that
need no array at all: the broadcasting rule, the shape of a slice, and the "shape flow"
through a chain of primitives (Fig. 1.3).

Book: §1 "Notation and symbols" (lines 123-153), §2.1 "Linear algebra" (lines 186-222).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from alice_lab.backend import array_namespace

__all__ = [
    "as_column",
    "as_row",
    "assert_no_silent_broadcast",
    "broadcast_shape",
    "check_shape",
    "compose_shapes",
    "elementwise_prim",
    "is_binary",
    "is_simplex",
    "linear_prim",
    "rank",
    "reduce_prim",
    "reshape_prim",
    "slice_shape",
]

Shape = tuple[int, ...]


def _shape_of(a: Any) -> Shape:
    """The shape of an array, or ``a`` itself when it is already a shape (tuple/int)."""
    if hasattr(a, "shape"):
        return tuple(int(s) for s in a.shape)
    if isinstance(a, int):
        return (a,)
    return tuple(operator.index(s) for s in a)


# --- rank and shape specs (§1, lines 125-141) ---------------------------------------


def rank(x: Any) -> int:
    """Number of axes of ``x`` (the book's tensor *rank*, i.e. ``ndim``).

    ``x : (s_1, ..., s_n)`` has rank ``n``: 0 a scalar, 1 a vector, 2 a matrix.
    Python scalars have rank 0.

    Book: §1 "Notation and symbols", lines 125-141 (X ~ (b, h, w, 3) has rank 4).

    >>> import numpy as np; rank(np.zeros((2, 8, 8, 3)))
    4
    """
    if hasattr(x, "ndim"):
        return int(x.ndim)
    if isinstance(x, (int, float, complex, bool)):
        return 0
    raise TypeError(f"rank() needs an array or a Python scalar, got {type(x).__name__}")


def check_shape(
    x: Any,
    spec: Sequence[int | str | None],
    name: str = "x",
    *,
    bound: dict | None = None,
) -> dict[str, int]:
    """Check that ``x`` has the shape ``spec`` and return the sizes bound to names.

    ``spec`` holds one entry per axis: an ``int`` (that exact size), a ``str`` (a name;
    every axis with the same name must have the same size) or ``None`` (any size). Pass
    the dict returned by a previous call as ``bound`` to check several arrays against
    the same names, e.g. ``X ~ (n, d)`` then ``y ~ (n)``.

    Parameters
    ----------
    x : array (anything with ``.shape``) or a shape tuple
    spec : tuple such as ``("b", "h", "w", 3)``
    name : what to call ``x`` in the error message
    bound : sizes already bound to names (not modified)

    Returns
    -------
    dict : name -> size, including the entries of ``bound``.

    Raises ``ValueError`` naming the expected and the actual shape.

    Book: §1 "Notation and symbols", lines 137-141 (shape notation X ~ (b, h, w, 3)).

    >>> import numpy as np; check_shape(np.zeros((2, 5, 5, 3)), ("b", "h", "h", 3))
    {'b': 2, 'h': 5}
    """
    if not hasattr(x, "shape") and not isinstance(x, tuple):
        raise TypeError(
            f"check_shape needs an array or a shape tuple, got {type(x).__name__}"
        )
    shape = _shape_of(x)
    names = dict(bound or {})
    spec = tuple(spec)
    pretty = "(" + ", ".join("*" if s is None else str(s) for s in spec) + ")"

    def fail(why: str) -> ValueError:
        return ValueError(f"{name} should have shape {pretty}, got {shape}: {why}")

    if len(shape) != len(spec):
        raise fail(f"expected rank {len(spec)}, got rank {len(shape)}")
    for axis, (want, got) in enumerate(zip(spec, shape, strict=True)):
        if want is None:
            continue
        if isinstance(want, str):
            if want in names and names[want] != got:
                raise fail(
                    f"axis {axis} is {want!r}={names[want]} elsewhere but {got} here"
                )
            names[want] = got
        elif isinstance(want, int) and not isinstance(want, bool):
            if want != got:
                raise fail(f"axis {axis} should have size {want}")
        else:
            raise TypeError(
                f"shape spec entries must be int, str or None, got {want!r}"
            )
    return names


def as_column(x: Any) -> Any:
    """Turn a vector ``x : (d)`` into a column ``(d, 1)`` (the book's default vector).

    Book: §1 line 125 and §2.1.1 line 208 (vectors are columns unless stated otherwise).

    >>> import numpy as np; as_column(np.arange(3)).shape
    (3, 1)
    """
    xp = array_namespace(x)
    check_shape(x, ("d",), "x")
    return xp.reshape(x, (x.shape[0], 1))


def as_row(x: Any) -> Any:
    """Turn a vector ``x : (d)`` into a row ``(1, d)`` (the book's :math:`x^\\top`).

    Book: §2.1.1, line 208.

    >>> import numpy as np; as_row(np.arange(3)).shape
    (1, 3)
    """
    xp = array_namespace(x)
    check_shape(x, ("d",), "x")
    return xp.reshape(x, (1, x.shape[0]))


# --- Binary and simplex (§1, lines 143-145) -----------------------------------------


def is_binary(x: Any) -> bool:
    r"""True when every element of ``x`` is 0 or 1: :math:`x \sim \text{Binary}(c)`.

    Works for bool, integer and floating dtypes; an empty array is binary.

    Book: §1 "Notation and symbols", line 143.

    >>> import numpy as np; is_binary(np.array([0, 1, 1])), is_binary(np.array([0, 2]))
    (True, False)
    """
    xp = array_namespace(x)
    if x.dtype == xp.bool:
        return True
    return bool(xp.all((x == 0) | (x == 1)))


_SIMPLEX_ATOL = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-12}


def _dtype_name(dtype: Any) -> str:
    return str(dtype).rsplit(".", 1)[-1].replace("'>", "").replace("dtype('", "")


def is_simplex(x: Any, axis: int = -1, atol: float | None = None) -> bool:
    r"""True when ``x`` lies in the probability simplex along ``axis``.

    :math:`x \sim \Delta(a)` means :math:`x_i \ge 0` and :math:`\sum_i x_i = 1`; for
    ``X ~ (n, c)`` the book normalises along the last axis, so every row must be in the
    simplex. Non-negativity is checked exactly; the sum is compared with 1 up to
    ``atol`` (default by dtype: 1e-6 for float32, 1e-12 for float64, 0 for integers),
    because floating-point sums of probabilities are rarely exactly 1.

    Parameters
    ----------
    x : (..., c) array (or any shape, with the simplex axis given by ``axis``)
    axis : the axis that must sum to one
    atol : tolerance on the sum

    Book: §1 "Notation and symbols", line 145.

    >>> import numpy as np; is_simplex(np.array([[0.2, 0.8], [1.0, 0.0]]))
    True
    """
    xp = array_namespace(x)
    if rank(x) == 0:
        raise ValueError(
            f"is_simplex needs at least one axis, got shape {tuple(x.shape)}"
        )
    if x.dtype == xp.bool:
        x = xp.astype(x, xp.int64)  # a bool vector is in the simplex iff one-hot
    nonneg = bool(xp.all(x >= 0))
    total = xp.sum(x, axis=axis)
    if not xp.isdtype(x.dtype, "real floating"):
        return nonneg and bool(xp.all(total == 1))  # integer or bool: exact
    if atol is None:
        atol = _SIMPLEX_ATOL.get(_dtype_name(x.dtype), 1e-6)
    return nonneg and bool(xp.all(xp.abs(total - 1) <= atol))


# --- broadcasting and indexing (§2.1, lines 198-222) --------------------------------


def broadcast_shape(*shapes: Shape | int) -> Shape:
    """The shape that NumPy broadcasting gives to ``shapes``, computed from scratch.

    The rule: align the shapes on the right, pad the shorter ones with 1s on the left;
    on every axis the sizes must be equal or 1, and the result takes the size that is
    not 1. This is the rule behind Box 2.1, where ``(4, 1) + (4,)`` silently becomes
    ``(4, 4)``.

    Raises ``ValueError`` naming the shapes and the (negative, right-aligned) axis that
    clash, as ``np.broadcast_shapes`` would refuse them.

    Book: §2.1.1, line 208 and Box 2.1 (lines 210-222).

    >>> broadcast_shape((4, 1), (4,))
    (4, 4)
    """
    shapes_t = [_shape_of(s) for s in shapes]
    for s in shapes_t:
        if any(n < 0 for n in s):
            raise ValueError(f"negative dimensions are not allowed: {s}")
    ndim = max((len(s) for s in shapes_t), default=0)
    out = []
    for axis in range(-ndim, 0):
        size, owner = 1, None
        for s in shapes_t:
            n = s[axis] if -axis <= len(s) else 1
            if n == 1:
                continue
            if size == 1:
                size, owner = n, s
            elif n != size:
                raise ValueError(
                    f"shapes {owner} and {s} cannot be broadcast together: axis {axis} "
                    f"(from the right) has sizes {size} and {n}, and neither is 1"
                )
        out.append(size)
    return tuple(out)


def slice_shape(shape: Shape, index: Any) -> Shape:
    """Shape of ``x[index]`` for ``x`` of shape ``shape``, without building ``x``.

    Handles NumPy *basic* indexing: integers (drop the axis), slices (keep it, with
    ``len(range(start, stop, step))`` elements), one ``Ellipsis`` and ``None`` (a new
    axis of size 1). For ``X ~ (a, b, c)``: ``X[i] ~ (b, c)``, ``X[i, j, k]`` is a
    scalar ``()``, ``X[i, :, j:k] ~ (b, k - j)``.

    Raises ``IndexError`` (as NumPy does) for too many indices or an integer out of
    range, and ``TypeError`` for advanced indices (arrays, lists, booleans).

    Book: §2.1, line 198 (slices of a tensor and their shapes).

    >>> slice_shape((3, 7, 9), (1, slice(None), slice(2, 5)))
    (7, 3)
    """
    shape = _shape_of(shape)
    index = index if isinstance(index, tuple) else (index,)
    if sum(i is Ellipsis for i in index) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(i is not None and i is not Ellipsis for i in index)
    if consumed > len(shape):
        raise IndexError(
            f"too many indices: shape {shape} has {len(shape)} axes but {consumed} "
            "were indexed"
        )
    if Ellipsis in index:
        at = index.index(Ellipsis)
        index = index[:at] + (slice(None),) * (len(shape) - consumed) + index[at + 1 :]
    else:
        index = index + (slice(None),) * (len(shape) - consumed)
    out, axis = [], 0
    for item in index:
        if item is None:
            out.append(1)
            continue
        n = shape[axis]
        if isinstance(item, slice):
            out.append(len(range(*item.indices(n))))
        elif isinstance(item, bool) or not hasattr(item, "__index__"):
            raise TypeError(f"slice_shape handles basic indexing only, got {item!r}")
        else:
            i = operator.index(item)
            if not -n <= i < n:
                raise IndexError(
                    f"index {i} is out of bounds for axis {axis} with size {n}"
                )
        axis += 1
    return tuple(out)


def assert_no_silent_broadcast(a: Any, b: Any) -> Shape:
    """Refuse shapes that would broadcast by enlarging *both* operands (Box 2.1).

    ``(n, d) + (d,)`` is fine (a bias added to every row: the larger operand keeps its
    shape), but ``(d, 1) + (d,)`` gives ``(d, d)``: both operands grow, which is almost
    always a bug rather than an intent. "Grow" means the broadcast result has more
    elements than the operand. Returns the broadcast shape when it is safe.

    a, b : arrays or shape tuples.

    Raises ``ValueError`` naming both shapes and the result they would produce.

    Book: §2.1.1, Box 2.1 (lines 208-222).

    >>> assert_no_silent_broadcast((5, 3), (3,))
    (5, 3)
    """
    sa, sb = _shape_of(a), _shape_of(b)
    out = broadcast_shape(sa, sb)

    def size(s: Shape) -> int:
        n = 1
        for k in s:
            n *= k
        return n

    if size(out) > size(sa) and size(out) > size(sb):
        raise ValueError(
            f"shapes {sa} and {sb} would silently broadcast to {out}, enlarging both "
            "operands; reshape one explicitly (e.g. x[:, None] or x.squeeze(-1)) if "
            "that is what you mean"
        )
    return out


# --- shape flow through a chain of primitives (Fig. 1.3) ----------------------------

ShapeFn = Callable[[Shape], Shape]


def compose_shapes(
    prims: Sequence[tuple[str, ShapeFn] | ShapeFn],
    in_shape: Shape,
    *,
    on_error: str = "raise",
) -> list[tuple[str, Any]]:
    """Follow a shape through a chain of primitives, as in the book's Fig. 1.3.

    Each primitive is a pair ``(name, fn)`` or a plain callable (its ``__name__`` is
    used), where ``fn`` maps an input shape tuple to an output shape tuple and raises
    ``ValueError`` when the input shape does not fit its signature. The helpers
    :func:`linear_prim`, :func:`reduce_prim`, :func:`reshape_prim` and
    :func:`elementwise_prim` build common ones.

    Returns a list of ``(name, shape)`` steps, starting with ``("input", in_shape)``.
    At the first incompatible step, ``on_error="raise"`` raises ``ValueError`` (naming
    the step, its input shape and the reason); ``on_error="return"`` instead returns
    the steps so far followed by ``(name, the ValueError)``, which a widget can show.

    Book: §1, Fig. 1.3 (line 105): a network is a composition of primitives whose
    input/output signatures decide what may follow what.

    >>> [s for _, s in compose_shapes([linear_prim(4), reduce_prim(0)], (10, 3))]
    [(10, 3), (10, 4), (4,)]
    """
    if on_error not in ("raise", "return"):
        raise ValueError(f"on_error must be 'raise' or 'return', got {on_error!r}")
    shape = _shape_of(in_shape)
    steps: list[tuple[str, Any]] = [("input", shape)]
    for k, prim in enumerate(prims, start=1):
        name, fn = (
            prim if isinstance(prim, tuple) else (getattr(prim, "__name__", "?"), prim)
        )
        try:
            shape = _shape_of(fn(shape))
        except ValueError as err:
            err = ValueError(f"step {k} {name!r} cannot take shape {shape}: {err}")
            if on_error == "raise":
                raise err from None
            steps.append((name, err))
            return steps
        steps.append((name, shape))
    return steps


def linear_prim(o: int) -> tuple[str, ShapeFn]:
    """Shape primitive of a linear layer ``(..., d) -> (..., o)`` (see compose_shapes).

    Book: Fig. 1.3 (line 105); the layer itself is §2.1.2, line 360.

    >>> linear_prim(4)[1]((10, 3))
    (10, 4)
    """

    def fn(s: Shape) -> Shape:
        if len(s) == 0:
            raise ValueError("a linear layer needs at least one axis")
        return s[:-1] + (o,)

    return (f"linear(->{o})", fn)


def reduce_prim(axis: int, op: str = "sum") -> tuple[str, ShapeFn]:
    """Shape primitive of a reduction (sum, mean, max, ...) over ``axis``.

    Book: Fig. 1.3 (line 105); reductions are §2.1.2, lines 414-428.

    >>> reduce_prim(0)[1]((10, 3))
    (3,)
    """

    def fn(s: Shape) -> Shape:
        if not -len(s) <= axis < len(s):
            raise ValueError(f"axis {axis} does not exist in a rank-{len(s)} tensor")
        a = axis % len(s)
        return s[:a] + s[a + 1 :]

    return (f"{op}(axis={axis})", fn)


def reshape_prim(new_shape: Shape) -> tuple[str, ShapeFn]:
    """Shape primitive of ``reshape`` (one entry may be ``-1``; sizes must agree).

    Book: Fig. 1.3 (line 105).

    >>> reshape_prim((-1,))[1]((4, 5))
    (20,)
    """
    new_shape = tuple(new_shape)

    def fn(s: Shape) -> Shape:
        total = 1
        for k in s:
            total *= k
        known = 1
        for k in new_shape:
            known *= k if k != -1 else 1
        if new_shape.count(-1) > 1:
            raise ValueError("at most one size may be -1")
        if -1 in new_shape:
            if known == 0 or total % known:
                raise ValueError(f"{total} elements do not fit {new_shape}")
            return tuple(total // known if k == -1 else k for k in new_shape)
        if known != total:
            raise ValueError(f"{total} elements do not fit {new_shape}")
        return new_shape

    return (f"reshape{new_shape}", fn)


def elementwise_prim(name: str = "relu") -> tuple[str, ShapeFn]:
    """Shape primitive of an element-wise function: the shape is unchanged.

    Book: Fig. 1.3 (line 105); element-wise functions such as exp, §2.1.2 line 378.

    >>> elementwise_prim()[1]((2, 3))
    (2, 3)
    """
    return (name, lambda s: tuple(s))
