"""alice_lab.backend: conversions, devices, and the CPU fallback."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from alice_lab import backend as B


def test_import_alice_lab_imports_neither_torch_nor_jax():
    code = (
        "import alice_lab, alice_lab.backend, alice_course.claims, sys; "
        "print('torch' in sys.modules, 'jax' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False"]


def test_available_backends_lists_installed_ones():
    assert B.available_backends() == ["numpy", "torch", "jax"]


@pytest.mark.parametrize("name", ["numpy", "torch", "jax"])
def test_round_trip_keeps_values_and_dtype(name):
    x = np.arange(6.0).reshape(2, 3)
    y = B.to_backend(x, name)
    assert B.namespace_name(y) == name
    np.testing.assert_array_equal(B.to_numpy(y), x)
    assert B.to_numpy(y).dtype == np.float64


def test_device_is_cpu_without_a_gpu():
    import torch

    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert B.device("torch").type == expected
    assert B.device("numpy") == "cpu"
    assert B.device("jax").platform in ("cpu", "gpu")


def test_unknown_backend_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown backend 'tensorflow'"):
        B.to_backend([1.0], "tensorflow")
    with pytest.raises(ValueError, match="unknown backend"):
        B.device("mxnet")


def test_numpy_on_a_gpu_is_refused():
    with pytest.raises(ValueError, match="NumPy arrays live on the CPU"):
        B.to_backend([1.0], "numpy", device="cuda")


def test_jax_float64_without_x64_is_refused():
    code = (
        "import numpy as np, jax; from alice_lab.backend import to_backend\n"
        "try:\n    to_backend(np.ones(2), 'jax')\n"
        "except ValueError as e:\n    print('refused', 'jax_enable_x64' in str(e))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "refused True"


def test_rng_is_seeded_and_backend_independent():
    a = B.rng(3).normal(size=4)
    b = B.rng(3).normal(size=4)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(B.to_numpy(B.to_backend(a, "torch")), a)


def test_parity_precision_restores_settings():
    import jax
    import torch

    before = torch.backends.cuda.matmul.allow_tf32
    x64 = jax.config.jax_enable_x64
    with B.parity_precision():
        assert jax.config.jax_enable_x64 is True
        assert torch.backends.cuda.matmul.allow_tf32 is False
    assert torch.backends.cuda.matmul.allow_tf32 == before
    assert jax.config.jax_enable_x64 == x64


def test_is_fast_reads_the_environment(monkeypatch):
    monkeypatch.setenv("ALICE_FAST", "1")
    assert B.is_fast()
    monkeypatch.setenv("ALICE_FAST", "0")
    assert not B.is_fast()


def test_network_is_blocked_in_tests():
    import socket
    import urllib.request

    with pytest.raises(RuntimeError, match="network"):
        urllib.request.urlopen("https://pypi.org", timeout=5)
    with pytest.raises(RuntimeError, match="network"):
        socket.create_connection(("8.8.8.8", 53), timeout=1)
