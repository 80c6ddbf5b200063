"""The stride-1 NumPy fast path (alice_lab.conv.shifted: one in-place BLAS product per
kernel tap) against torch.nn.functional.conv1d/2d/3d, and the rule that decides when
conv2d takes it."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from test_conv import _torch_conv

from alice_lab import conv as C
from alice_lab.conv._args import conv_spec

torch = pytest.importorskip("torch")
shifted = importlib.import_module("alice_lab.conv.shifted")
patches_module = importlib.import_module("alice_lab.conv.patches")

CASES = [  # (spatial size, kernel size, padding, dilation)
    ((11,), (3,), "same", 1),
    ((13,), (5,), ((4, 0),), 2),  # causal-style left padding
    ((9, 8), (3, 3), "same", 1),
    ((9, 8), (3, 2), ((1, 2), (0, 1)), (2, 1)),  # uneven padding, even kernel
    ((10, 7), (1, 3), "valid", 1),
    ((5, 6, 7), (3, 3, 3), "same", 1),
    ((6, 5, 4), (2, 3, 1), 1, (2, 1, 1)),
]


@pytest.mark.parametrize("dtype, tol", [("float64", 1e-10), ("float32", 1e-4)])
@pytest.mark.parametrize("spatial, kernel, padding, dilation", CASES, ids=str)
def test_shifted_gemm_matches_torch(
    rng, spatial, kernel, padding, dilation, dtype, tol
):
    d = len(spatial)
    X = rng.standard_normal((3, *spatial, 8)).astype(dtype)
    W = (rng.standard_normal((*kernel, 8, 5)) / 4).astype(dtype)
    spec = conv_spec(X, W, None, d, padding=padding, dilation=dilation)
    got = shifted.shifted_gemm_convnd(X, W, spec)
    torch_pad = padding
    if not isinstance(padding, str) and not isinstance(padding, int):
        lo_hi = [tuple(p) for p in padding]
        torch_pad = 0
        pad_np = ((0, 0), *lo_hi, (0, 0))
        X_for_torch = np.pad(X, pad_np)
    else:
        X_for_torch = X
    expected = _torch_conv(
        X_for_torch.astype("float64"),
        W.astype("float64"),
        np.zeros(5),
        d,
        1,
        torch_pad,
        dilation,
        1,
    )
    assert got.shape == expected.shape and got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def test_shifted_gemm_handles_non_contiguous_input(rng):
    X = rng.standard_normal((2, 8, 9, 16))[
        :, ::-1, :, ::2
    ]  # reversed rows, every 2nd channel
    W = rng.standard_normal((3, 3, 8, 4))
    spec = conv_spec(X, W, None, 2, padding="valid")
    expected = _torch_conv(np.ascontiguousarray(X), W, np.zeros(4), 2, 1, 0, 1, 1)
    np.testing.assert_allclose(
        shifted.shifted_gemm_convnd(X, W, spec), expected, rtol=1e-10, atol=1e-10
    )


def _applies(x_shape, w_shape, *, dtype="float32", w_dtype=None, **kwargs):
    X = np.zeros(x_shape, dtype)
    W = np.zeros(w_shape, w_dtype or dtype)
    spec = conv_spec(X, W, None, len(w_shape) - 2, **kwargs)
    return shifted.shifted_gemm_applies(X, W, spec)


def test_the_fast_path_is_chosen_only_where_it_was_measured_to_win():
    # the benchmark's case: a 32x32 batch, 16 -> 32 channels, 3x3 "same"
    assert _applies((32, 32, 32, 16), (3, 3, 16, 32), padding="same")
    assert _applies((32, 32, 32, 16), (3, 3, 16, 32), dtype="float64", padding="same")
    assert not _applies((32, 32, 32, 16), (3, 3, 16, 32), stride=2, padding=1)
    assert not _applies((32, 32, 32, 16), (3, 3, 8, 32), groups=2, padding="same")
    assert not _applies((32, 32, 32, 4), (3, 3, 4, 32), padding="same")  # c < 8
    assert not _applies((8, 8, 8, 128), (3, 3, 128, 128), padding="same")  # c > 64
    assert not _applies((2, 7, 6, 16), (3, 3, 16, 32), padding="same")  # 72/42 border
    assert not _applies((4, 32, 32, 16), (3, 3, 16, 8), dtype="int64", padding="same")
    assert not _applies(
        (4, 32, 32, 16), (3, 3, 16, 8), w_dtype="float64", padding="same"
    )


def test_conv2d_routes_through_the_fast_path_when_it_applies(rng, monkeypatch):
    calls = []
    original = patches_module.shifted_gemm_convnd

    def spy(X, W, spec):
        calls.append(X.shape)
        return original(X, W, spec)

    monkeypatch.setattr(patches_module, "shifted_gemm_convnd", spy)
    X = rng.standard_normal((4, 16, 16, 16)).astype("float32")
    W = rng.standard_normal((3, 3, 16, 8)).astype("float32")
    bias = rng.standard_normal(8).astype("float32")
    fast = C.conv2d(X, W, bias, padding="same")
    assert calls == [X.shape]
    C.conv2d(X, W, bias, padding="same", stride=2)  # stride 2: the patch matrix
    assert len(calls) == 1
    expected = _torch_conv(X, W, bias, 2, 1, "same", 1, 1)
    np.testing.assert_allclose(fast, expected, rtol=1e-4, atol=1e-4)
    unbatched = C.conv2d(X[0], W, bias, padding="same")
    np.testing.assert_allclose(unbatched, fast[0], rtol=1e-6, atol=1e-6)
