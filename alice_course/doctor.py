"""``alice-lab doctor``: one OK/FAIL line per thing the companion needs.

Run it first when something does not work: it prints the versions of the pieces,
checks each installed dependency against the bounds the package declares (an older
NumPy or array-api-compat than the companion was tested with breaks chapters in
confusing ways), which array backends import, which device they would compute on, and
whether the offline datasets load (nothing in the companion needs the network).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
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


def check_bound(distribution: str, requirement: str) -> Check:
    """Whether the installed ``distribution`` satisfies ``requirement`` (a PEP 508
    line such as ``"numpy>=1.26"``)."""
    from packaging.requirements import Requirement

    wanted = Requirement(requirement).specifier
    try:
        have = importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return Check(
            distribution, False, f"not installed; the companion needs {wanted}"
        )
    if wanted.contains(have, prereleases=True):
        return Check(distribution, True, f"{have} (needs {wanted or 'any'})")
    return Check(
        distribution,
        False,
        f"{distribution} {have} is installed but the companion needs {wanted}: "
        f'pip install "{requirement}"',
    )


def version_checks() -> list[Check]:
    """One check per dependency of ``alice_lab`` (and per dependency of the extras
    whose framework is installed), against the bounds in its metadata."""
    from packaging.requirements import Requirement

    checks = []
    for line in importlib.metadata.requires("alice_lab") or []:
        req = Requirement(line)
        extra = req.marker is not None and "extra" in str(req.marker)
        if extra and not any(f'"{e}"' in str(req.marker) for e in ("torch", "jax")):
            continue  # the book and dev extras are the repository's, not a reader's
        if extra and importlib.util.find_spec(req.name) is None:
            continue  # an optional framework that is not installed
        checks.append(check_bound(req.name, f"{req.name}{req.specifier}"))
    return checks


PROBES: list[tuple[str, Callable[[], str]]] = [
    ("python", lambda: f"{platform.python_version()} on {platform.machine()}"),
    ("alice_lab", _alice_lab),
    ("torch", _torch_device),
    ("jax", _jax_device),
    ("offline data", _datasets),
]


def run_checks() -> list[Check]:
    out = []
    for name, probe in PROBES:
        try:
            out.append(Check(name, True, probe()))
        except Exception as err:  # noqa: BLE001 - every failure becomes a FAIL line
            out.append(Check(name, False, f"{type(err).__name__}: {err}"))
    return out + version_checks()


def doctor(file=None) -> bool:
    """Print one line per check; return True when every check passed."""
    file = file or sys.stdout
    checks = run_checks()
    for c in checks:
        print(c.line(), file=file)
    ok = all(c.ok for c in checks)
    print("all good" if ok else "some checks failed (see FAIL lines)", file=file)
    return ok
