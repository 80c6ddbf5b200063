"""``alice-lab doctor``: one OK/FAIL line per thing the companion needs.

Run it first when something does not work: it prints the versions of the pieces,
which array backends import, which device they would compute on, and whether the
offline datasets load (nothing in the companion needs the network).
"""

from __future__ import annotations

import importlib
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Check:
    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{'OK  ' if self.ok else 'FAIL'} {self.name:<22} {self.detail}"


def _version(module: str) -> Callable[[], str]:
    def probe() -> str:
        mod = importlib.import_module(module)
        return getattr(mod, "__version__", "installed")

    return probe


def _torch_device() -> str:
    import torch

    from alice_lab.backend import device

    d = device("torch")
    x = torch.ones(3, device=d)
    assert float((x @ x).item()) == 3.0
    return f"torch {torch.__version__} computes on {d}"


def _jax_device() -> str:
    import jax.numpy as jnp

    from alice_lab.backend import device

    d = device("jax")
    assert float(jnp.ones(3) @ jnp.ones(3)) == 3.0
    return f"jax computes on {d}"


def _datasets() -> str:
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    assert X.shape == (1797, 64), X.shape
    return f"scikit-learn digits {X.shape} (bundled, no download)"


def _alice_lab() -> str:
    import numpy as np

    from alice_lab.functional import logsumexp

    value = float(logsumexp(np.array([1000.0, 1000.0])))
    assert abs(value - (1000 + np.log(2))) < 1e-9, value
    return "logsumexp([1000, 1000]) = 1000 + log 2"


PROBES: list[tuple[str, Callable[[], str]]] = [
    ("python", lambda: f"{platform.python_version()} on {platform.machine()}"),
    ("alice_lab", _alice_lab),
    ("numpy", _version("numpy")),
    ("scipy", _version("scipy")),
    ("matplotlib", _version("matplotlib")),
    ("ipywidgets", _version("ipywidgets")),
    ("array-api-compat", _version("array_api_compat")),
    ("torch", _torch_device),
    ("jax", _jax_device),
    ("jupytext", _version("jupytext")),
    ("offline data", _datasets),
]


def run_checks() -> list[Check]:
    out = []
    for name, probe in PROBES:
        try:
            out.append(Check(name, True, probe()))
        except Exception as err:  # noqa: BLE001 - every failure becomes a FAIL line
            out.append(Check(name, False, f"{type(err).__name__}: {err}"))
    return out


def doctor(file=None) -> bool:
    """Print one line per check; return True when every check passed."""
    file = file or sys.stdout
    checks = run_checks()
    for c in checks:
        print(c.line(), file=file)
    ok = all(c.ok for c in checks)
    print("all good" if ok else "some checks failed (see FAIL lines)", file=file)
    return ok
