"""One public name, one object (issue #14: one helper per job).

Every ``__all__`` of every ``alice_lab`` module is read; a name that two modules export
must be the same object there (a re-export, such as ``activations.sigmoid``, which is
``functional.sigmoid``). Two different objects under one name are allowed only in the
short list below, each with its reason. Names that were renamed or moved keep working
for one release, as functions that warn (``FutureWarning``, naming the new name) and
then do what the new one does; the last test calls each of them.
"""

from __future__ import annotations

import importlib
import pkgutil
import types
from collections import defaultdict

import numpy as np
import pytest

import alice_lab

#: the course modules' one-release aliases (tests/test_two_packages.py checks them)
ALIASES = {"alice_lab.claims", "alice_lab.grading", "alice_lab.widgets"}
#: frameworks a module or a lazily built name may need, which may not be installed
OPTIONAL = {"torch", "jax", "jaxlib"}

#: (engine module, name): a second object under a public name, on purpose.
#: Chapter 6 rebuilds differentiation from scratch, and its engine computes on its own
#: values (reverse-mode ``Tensor``, forward-mode ``Dual``), which the array-API
#: functions of the library refuse. So the engine has its own elementwise ops and
#: reductions, and its own MLP forward pass and cross-entropy for the chapter's MLP
#: trained by reverse mode; rebuilding them is the chapter's point.
ENGINE = {
    ("alice_lab.autodiff.ops", "relu"),
    ("alice_lab.autodiff.ops", "sigmoid"),
    ("alice_lab.autodiff.ops", "tanh"),
    ("alice_lab.autodiff.ops", "softmax"),
    ("alice_lab.autodiff.ops", "log_softmax"),
    ("alice_lab.autodiff.ops", "logsumexp"),
    ("alice_lab.autodiff.mlp", "mlp_forward"),
    ("alice_lab.autodiff.mlp", "cross_entropy"),
}


def _modules() -> list[types.ModuleType]:
    out = []
    for info in pkgutil.walk_packages(alice_lab.__path__, "alice_lab."):
        if info.name in ALIASES:
            continue
        try:
            out.append(importlib.import_module(info.name))
        except ModuleNotFoundError as err:
            if (err.name or "").split(".")[0] not in OPTIONAL:
                raise
    return out


def _public_objects() -> dict[str, dict[int, tuple[object, list[str]]]]:
    """name -> {id(object): (object, [modules exporting it under that name])}."""
    found: dict[str, dict[int, tuple[object, list[str]]]] = defaultdict(dict)
    for mod in _modules():
        for name in getattr(mod, "__all__", ()):
            try:
                obj = getattr(mod, name)
            except ModuleNotFoundError as err:  # a lazily built torch or JAX name
                if (err.name or "").split(".")[0] in OPTIONAL:
                    continue
                raise
            if isinstance(obj, types.ModuleType):
                continue  # a package listing its submodules
            found[name].setdefault(id(obj), (obj, []))[1].append(mod.__name__)
    return found


@pytest.fixture(scope="module")
def public():
    return _public_objects()


def test_every_public_name_is_one_object(public):
    clashes = {}
    for name, objects in public.items():
        kept = [
            modules
            for _, modules in objects.values()
            if not any((m, name) in ENGINE for m in modules)
        ]
        if len(kept) > 1:
            clashes[name] = kept
    assert not clashes, (
        "public names bound to different objects (keep one implementation under the "
        "book's name and re-export it, or rename the other for what it is): "
        + "; ".join(f"{n}: {mods}" for n, mods in sorted(clashes.items()))
    )


def test_the_engine_list_holds_only_real_twins(public):
    """An entry of ENGINE whose twin went away is stale: remove it."""
    stale = [
        (module, name)
        for module, name in sorted(ENGINE)
        if len(public.get(name, {})) < 2
        or not any(module in mods for _, mods in public[name].values())
    ]
    assert not stale, f"ENGINE lists names that are no longer duplicated: {stale}"


def test_re_exports_are_the_same_object():
    from alice_lab import activations, approximation, functional, text, transformer

    assert activations.sigmoid is functional.sigmoid is approximation.sigmoid
    assert text.one_hot is functional.one_hot
    assert transformer.glu is activations.glu


class Build:
    """An argument made when the test runs (a model, torch tensors): ``fn()``, spliced
    into the arguments when it returns a tuple."""

    def __init__(self, fn):
        self.fn = fn


def _gpt():
    torch = pytest.importorskip("torch")
    from alice_lab import transformer

    torch.manual_seed(0)
    return transformer.GPT(7, e=8, heads=2, depth=1, context=8).double().eval()


def _logits_and_labels():
    torch = pytest.importorskip("torch")
    return torch.tensor([[2.0, 0.0], [0.0, 1.0], [3.0, 1.0]]), [0, 1, 1]


X2 = np.array([[1.0, 2.0], [3.0, -1.0]])
W2 = np.array([0.5, -1.0])
Y2 = np.array([0.5, 2.0])
F2 = np.array([[0.1, -0.7], [0.4, 1.3]])

#: (module, old name, new name, arguments[, keywords]): the old name warns, then gives
#: what the new call gives; the new call is "module.attribute" of alice_lab, or a
#: function
RENAMED = [
    ("probability", "gaussian_nll", "probability.gaussian_pseudo_loss", (Y2, F2)),
    (
        "risk",
        "squared_loss",
        lambda yh, y: alice_lab.losses.squared_loss(yh, y, reduction="none"),
        (W2, Y2),
    ),
    ("approximation", "mlp_forward", "approximation.staircase_forward",
     (np.array([0.0, 0.5]), [[10.0, 10.0]], [0.0, -5.0], [[1.0], [-1.0]])),
    ("transformer", "token_shift", "transformer.shift_channel_groups",
     (np.arange(8.0).reshape(4, 2), (1, -1))),
    ("regularization", "adam", "optim.adam",
     (lambda w: 2 * w, np.array([1.0])), {"lr": 0.1, "steps": 3}),
    ("autodiff.frameworks", "trainable_swish",
     "autodiff.frameworks.trainable_swish_engine",
     (np.array([-1.0, 2.0]), 1.5, 0.1, 0.8, 0.2)),
    ("transformer", "generate", "transformer.gpt_generate",
     (Build(_gpt), [1, 2], 4), {"temperature": 0.0}),
    ("graphs", "accuracy", "graphs.masked_accuracy", (Build(_logits_and_labels),)),
]  # fmt: skip


def _resolve(path: str):
    obj = alice_lab
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("case", RENAMED, ids=[f"{c[0]}.{c[1]}" for c in RENAMED])
def test_old_names_warn_for_one_release_and_do_what_the_new_ones_do(case):
    module, old, new, args, *rest = case
    kwargs = rest[0] if rest else {}
    built = []
    for a in args:
        made = a.fn() if isinstance(a, Build) else a
        built.extend(
            made if isinstance(a, Build) and isinstance(made, tuple) else [made]
        )
    new_fn = _resolve(new) if isinstance(new, str) else new
    mod = importlib.import_module(f"alice_lab.{module}")
    assert old not in mod.__all__
    with pytest.warns(FutureWarning, match=rf"alice_lab\.{module}\.{old} is now"):
        got = getattr(mod, old)(*built, **kwargs)
    want = new_fn(*built, **kwargs)
    if isinstance(want, list) and want and hasattr(want[0], "shape"):
        got, want = np.stack(got), np.stack(want)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_risk_linear_model_warns_and_is_linear_models_model():
    from alice_lab import linear, risk

    with pytest.warns(FutureWarning, match=r"risk\.linear_model is now .*linear_model"):
        f = risk.linear_model(W2)
    np.testing.assert_array_equal(f(X2), linear.linear_model(X2, W2))
