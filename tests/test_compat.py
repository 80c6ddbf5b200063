"""alice_lab._compat: the one mechanism for names loaded on first access.

That importing the library imports neither torch nor JAX is checked in
tests/test_backend.py and tests/test_api_reference.py; here, that every lazily loaded
name resolves to the same object each time, and that other names fail as Python's
own lookup does.
"""

from __future__ import annotations

import importlib
import json
import sys

import pytest

from alice_lab._compat import lazy_getattr

#: a module that loads names lazily -> one name of each kind it loads
LAZY = {
    "alice_lab": ["conv"],
    "alice_course.widgets": ["static"],
    "alice_lab.activations": ["SwiGLU"],
    "alice_lab.layers": ["FullyConnectedLayer"],
    "alice_lab.normalization": ["RMSNormModule"],
    "alice_lab.regularization": ["DropoutModule"],
    "alice_lab.residual": ["ConvNeXtBlock"],
    "alice_lab.autodiff.frameworks": ["SwishFunctionDemo", "trainable_swish_jax"],
    "alice_lab.graphs": ["GCN"],
    "alice_lab.attention": ["MultiHeadAttention"],
    "alice_lab.transformer": ["GPT", "gpt_generate"],
}


@pytest.mark.parametrize("module", sorted(LAZY))
def test_lazy_names_resolve_once_and_others_raise(module):
    mod = importlib.import_module(module)
    for name in LAZY[module]:
        obj = getattr(mod, name)
        assert getattr(mod, name) is obj  # built or imported once
        if isinstance(obj, type(sys)):
            assert obj.__name__ == f"{module}.{name}"
    with pytest.raises(AttributeError, match=f"'{module}' has no attribute 'nope'"):
        mod.nope  # noqa: B018


def test_sources_are_module_paths_or_builders():
    calls = []

    def build():
        calls.append(1)
        return {"pi": 3}

    get = lazy_getattr("alice_lab", {"dumps": "json", "pi": build, "conv": ".conv"})
    assert get("dumps") is json.dumps
    assert get("pi") == 3 and calls == [1]
    assert get("conv") is importlib.import_module("alice_lab.conv")
    with pytest.raises(AttributeError):
        get("loads")
