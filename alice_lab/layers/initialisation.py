r"""Initial weights of fully-connected layers and MLPs, drawn on the host from a
seeded NumPy generator so that every backend starts from the same numbers, and the
parameter counts of eq. E.5.7.

Book: §5.2 (lines 2216-2314), Box 5.1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from alice_lab.backend import check_int

__all__ = [
    "INIT_SCHEMES",
    "fc_init",
    "fc_param_count",
    "mlp_init",
    "mlp_param_count",
    "params_to",
]


#: weight variance of each scheme as a function of (fan_in, fan_out); the book's Box 5.1
#: draws W and b from a standard normal ("normal"), which makes the pre-activation
#: variance grow like c; the others keep it O(1) (LeCun: 1/c; Glorot/Xavier: 2/(c+c');
#: He/Kaiming, for ReLU: 2/c).
INIT_SCHEMES: dict[str, Callable[[int, int], float]] = {
    "normal": lambda c, c_prime: 1.0,
    "lecun": lambda c, c_prime: 1.0 / c,
    "glorot": lambda c, c_prime: 2.0 / (c + c_prime),
    "he": lambda c, c_prime: 2.0 / c,
}


def fc_init(
    c: int,
    c_prime: int,
    *,
    seed: int | np.random.Generator,
    scheme: str = "he",
    distribution: str = "normal",
    dtype: str = "float64",
) -> dict[str, np.ndarray]:
    r"""Initial parameters of an FC layer, drawn on the host from a seeded generator.

    ``W`` has variance ``INIT_SCHEMES[scheme](c, c')``, from a zero-mean normal or a
    uniform on :math:`[-\sqrt{3v}, \sqrt{3v}]` (same variance). ``b`` is 0, except in
    the book's ``"normal"`` scheme (Box 5.1), which draws it from N(0, 1) too.

    Parameters
    ----------
    c, c_prime : int, the input and output widths.
    seed : int or a NumPy ``Generator`` (pass one generator to draw several layers).
    scheme : ``"normal"``, ``"lecun"``, ``"glorot"`` or ``"he"``.
    distribution : ``"normal"`` or ``"uniform"``.

    Returns
    -------
    ``{"W": (c, c') array, "b": (c',) array}`` (NumPy; move it with :func:`params_to`).

    Book: §5.2, eq. E.5.7 and Box 5.1 (lines 2262-2296).

    >>> {k: v.shape for k, v in fc_init(3, 5, seed=0).items()}
    {'W': (3, 5), 'b': (5,)}
    """
    c, c_prime = check_int(c, "c"), check_int(c_prime, "c_prime")
    if scheme not in INIT_SCHEMES:
        raise ValueError(
            f"unknown scheme {scheme!r}; expected one of {list(INIT_SCHEMES)}"
        )
    if distribution not in ("normal", "uniform"):
        raise ValueError(
            f"distribution must be 'normal' or 'uniform'; got {distribution!r}"
        )
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    std = math.sqrt(INIT_SCHEMES[scheme](c, c_prime))
    if distribution == "normal":
        W = std * rng.standard_normal((c, c_prime))
    else:
        W = rng.uniform(-math.sqrt(3.0) * std, math.sqrt(3.0) * std, (c, c_prime))
    b = rng.standard_normal(c_prime) if scheme == "normal" else np.zeros(c_prime)
    return {"W": W.astype(dtype), "b": b.astype(dtype)}


def mlp_init(
    sizes: Sequence[int], *, seed: int, scheme: str = "he", **kwargs: Any
) -> list[dict[str, np.ndarray]]:
    """Parameters of an MLP with widths ``sizes = [c, h_1, ..., h_{l-1}, c_out]``: one
    :func:`fc_init` dict per layer, all drawn from one generator seeded with ``seed``.

    >>> [p["W"].shape for p in mlp_init([64, 32, 10], seed=0)]
    [(64, 32), (32, 10)]
    """
    sizes = [check_int(s, "every width in sizes") for s in sizes]
    if len(sizes) < 2:
        raise ValueError(f"sizes needs an input and an output width; got {sizes}")
    rng = np.random.default_rng(seed)
    return [
        fc_init(a, b, seed=rng, scheme=scheme, **kwargs)
        for a, b in zip(sizes[:-1], sizes[1:], strict=True)
    ]


def fc_param_count(c: int, c_prime: int) -> int:
    """(c + 1) c': the weights and the biases of one FC layer (book line 2268).

    >>> fc_param_count(3, 5), fc_param_count(5, 4)
    (20, 24)
    """
    return (check_int(c, "c") + 1) * check_int(c_prime, "c_prime")


def mlp_param_count(sizes: Sequence[int]) -> int:
    """The total number of parameters of an MLP with widths ``sizes``.

    >>> mlp_param_count([3, 5, 4])
    44
    """
    return sum(fc_param_count(a, b) for a, b in zip(sizes[:-1], sizes[1:], strict=True))


def params_to(params: Any, backend: str, *, device: Any = None) -> Any:
    """The same parameters (a dict, a list of dicts, ...) as ``backend`` arrays
    (``"numpy"``, ``"torch"`` or ``"jax"``), via :func:`alice_lab.backend.to_backend`.

    >>> params_to([{"W": np.ones((1, 1)), "b": np.zeros(1)}], "numpy")[0]["W"].shape
    (1, 1)
    """
    from alice_lab.backend import to_backend
    from alice_lab.optim import tree_map

    return tree_map(lambda a: to_backend(a, backend, device=device), params)
