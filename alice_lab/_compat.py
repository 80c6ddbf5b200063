"""The compatibility module: what the frameworks and the array API do not give us
uniformly lives here once. Today it holds the one mechanism behind alice_lab's lazy
imports, names loaded on first access, and the one way a renamed public name keeps
working for a release (:func:`renamed`).

``import alice_lab`` imports neither torch nor JAX, nor any submodule: a submodule is
imported when a reader first touches it (``alice_lab.conv``), and a PyTorch module or
a JAX function is built or imported when a reader first asks for it
(``alice_lab.layers.FullyConnectedLayer``, ``alice_lab.graphs.GCN``). Every module
that does so sets its PEP 562 ``__getattr__`` with :func:`lazy_getattr`; this module
imports nothing but the standard library, so the package itself can use it
(``import alice_lab`` stays cheap).

Two places a name can come from:

- a module path (absolute, or relative to the package with a leading dot): the module
  is imported and the name is its attribute, or the module itself when the path is
  the package's submodule of that name (``".conv"`` for ``alice_lab.conv``);
- a function of no arguments returning ``{name: object}``: the way a module keeps
  ``torch.nn.Module`` classes beside the generic code they are tested against. The
  classes are defined inside the function (``import torch`` is its first line) and
  the function is wrapped in ``functools.cache``, so they are built once.
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr", "renamed"]

Source = str | Callable[[], Mapping[str, Any]]


def lazy_getattr(module: str, names: Mapping[str, Source]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` (PEP 562) that loads ``names`` on first access.

    Parameters
    ----------
    module : the module's ``__name__``; relative paths are resolved against it.
    names : lazily loaded name -> where it comes from (a module path, or a
        ``functools.cache``-d function returning ``{name: object}``).

    Any other name raises ``AttributeError`` as Python's own lookup would.

    >>> getattr_ = lazy_getattr("alice_lab", {"dumps": "json", "pi": lambda: {"pi": 3}})
    >>> getattr_("dumps").__module__, getattr_("pi")
    ('json', 3)
    """
    table = dict(names)

    def __getattr__(name: str) -> Any:
        source = table.get(name)
        if source is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        if callable(source):
            return source()[name]
        target = importlib.import_module(source, package=module)
        if target.__name__ == f"{module}.{name}":
            return target  # a lazily imported submodule
        return getattr(target, name)

    return __getattr__


def renamed(old: str, new: Callable, new_name: str, how: str = "") -> Callable:
    """The function a removed public name ``old`` becomes for one release: it warns
    (``FutureWarning``, naming ``new_name``) and calls ``new``.

    Notebooks and labs published with the old name keep running. The function is a
    module attribute but not in the module's ``__all__``, so the API reference and
    the one-object-per-name test (``tests/test_public_names.py``) see only the new
    name. ``how`` says how to call the new one when the call changed.

    >>> old = renamed("m.twice", lambda x: 2 * x, "m.double")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     old(3), caught[0].category.__name__
    (6, 'FutureWarning')
    """
    message = (
        f"{old} is now {new_name}{f' ({how})' if how else ''}; the old name goes "
        "away in the next release"
    )

    @functools.wraps(new, assigned=())  # __wrapped__: the new signature
    def shim(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(message, FutureWarning, stacklevel=2)
        return new(*args, **kwargs)

    shim.__name__ = shim.__qualname__ = old.rpartition(".")[2]
    shim.__doc__ = f"Deprecated: {message}."
    return shim
