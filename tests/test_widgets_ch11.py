"""Chapter 11 widgets: the pure functions against independent computations (torch
autograd and SDPA, closed-form counts), the live views driven through their controls,
and the static HTML animations (a slider, the expected frames, nothing remote)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from alice_course.widgets import (
    ch11_kv_cache as kv_cache,
    ch11_mask_gallery as mask_gallery,
    ch11_online_softmax as online_softmax,
)


def _core_only(widget) -> None:
    assert widget._view_module in ("@jupyter-widgets/controls", "@jupyter-widgets/base")
    for child in getattr(widget, "children", ()):
        _core_only(child)


def _check_static(html, frames: int) -> None:
    import matplotlib.pyplot as plt

    assert re.search(r'<input[^>]*type="range"', html)
    found = len(re.findall(r"frames\[\d+\] = \"data:image/png;base64,", html))
    assert found == frames
    assert "https://" not in html
    assert plt.get_fignums() == []


# --- mask gallery -----------------------------------------------------------------


def test_mask_kinds_against_torch():
    import torch

    X = np.random.default_rng(0).standard_normal((5, 4))
    t = torch.as_tensor(X)
    want = torch.nn.functional.scaled_dot_product_attention(t, t, t, is_causal=True)
    for kind in ("additive -inf", "-1e9"):
        np.testing.assert_allclose(
            mask_gallery.attend(X, kind)[2], want.numpy(), atol=1e-12
        )
    unmasked = torch.nn.functional.scaled_dot_product_attention(t, t, t)
    np.testing.assert_allclose(
        mask_gallery.attend(X, "zero mask")[2], unmasked.numpy(), atol=1e-12
    )
    with pytest.raises(ValueError, match="kind must be one of"):
        mask_gallery.attend(X, "upper")


def test_leak_matrix_matches_autograd_and_flags_the_wrong_masks():
    import torch

    v = mask_gallery.mask_gallery(5, "post-softmax", seed=1)
    X = torch.as_tensor(
        np.random.default_rng(1).standard_normal((5, 4)), dtype=torch.float64
    )
    tri = torch.tril(torch.ones(5, 5, dtype=torch.float64))

    def f(X):
        return (torch.softmax(X @ X.T / 2, -1) * tri) @ X

    J = torch.autograd.functional.jacobian(f, X).abs().amax(dim=(1, 3)).numpy()
    np.testing.assert_allclose(v.leak, J, rtol=1e-5, atol=1e-7)
    assert v.leaks and v.row_sums[0] < 1
    good = mask_gallery.mask_gallery(5, "additive -inf", seed=1)
    assert not good.leaks and np.all(np.triu(good.leak, 1) < 1e-8)
    np.testing.assert_allclose(good.row_sums, 1)
    assert mask_gallery.mask_gallery(5, "zero mask", seed=1).leaks
    lit = mask_gallery.mask_gallery(4, "book literal", seed=6)
    assert lit.leaks


def test_mask_gallery_live_and_static():
    box = mask_gallery.live_view()
    _core_only(box)
    live = box.live
    assert "causal" in live.label.value and "LEAKS" not in live.label.value
    live.controls["kind"].value = "post-softmax"
    assert "LEAKS the future" in live.label.value
    _check_static(mask_gallery.static_view(n=4).data, len(mask_gallery.KINDS))


# --- online softmax ---------------------------------------------------------------


def test_online_steps_converge_to_torch_attention():
    import torch

    st = online_softmax.online_steps(24, 5)
    r = np.random.default_rng(0)
    q, K, V = (
        r.standard_normal(4),
        r.standard_normal((24, 4)),
        r.standard_normal((24, 3)),
    )
    want = torch.nn.functional.scaled_dot_product_attention(
        torch.as_tensor(q[None]), torch.as_tensor(K), torch.as_tensor(V), scale=1.0
    )[0].numpy()
    np.testing.assert_allclose(st.estimate[-1], want, rtol=1e-12)
    np.testing.assert_allclose(st.exact, want, rtol=1e-12)
    assert len(st.L) == 5 and st.error[0] > 1e-3  # a partial estimate is not the answer
    # the running max equals the max of the scores seen so far
    np.testing.assert_array_equal(st.m, [st.scores[:b].max() for b in st.bounds[1:]])


def test_book_formula_overflows_and_the_stable_one_does_not():
    bad = online_softmax.online_steps(24, 4, scale=1000.0, stable=False)
    good = online_softmax.online_steps(24, 4, scale=1000.0, stable=True)
    assert np.isnan(bad.estimate[-1]).any()
    assert good.error[-1] < 1e-12
    with pytest.raises(ValueError, match="must be positive"):
        online_softmax.online_steps(24, 0)


def test_online_softmax_live_and_static():
    box = online_softmax.live_view()
    _core_only(box)
    live = box.live
    live.controls["i"].value = 7
    assert "after block 6" in live.label.value  # clipped to the last of 6 blocks
    live.controls["scale"].value = 1000.0
    live.controls["stable"].value = False
    assert "OVERFLOW" in live.label.value
    _check_static(online_softmax.static_view(n=12, block=3).data, 4)


# --- KV cache ---------------------------------------------------------------------


def test_kv_costs_count_the_attention_work():
    c = kv_cache.kv_costs(10, layers=2, heads=3, head_dim=4)
    t = np.arange(1, 11)
    np.testing.assert_array_equal(c.cached, 2 * t * 24)
    np.testing.assert_array_equal(c.full, t * (t + 1) * 24)
    # no cache: sum of t(t+1) = T(T+1)(T+2)/3, cubic; cache: T(T+1), quadratic
    assert c.cum_full[-1] == 10 * 11 * 12 // 3 * 24 and c.cum_cached[-1] == 10 * 11 * 24
    assert np.all(np.diff(c.cache_bytes) == c.cache_bytes[0])
    assert np.all(c.conv_bytes == c.conv_bytes[0])
    # keys and values: 2 · layers · heads · head_dim · T float32 numbers of 4 bytes
    assert c.cache_bytes[-1] == 2 * 2 * 3 * 4 * 10 * 4
    g = kv_cache.reuse_grid(4)
    assert (g == 2).sum() == 4 and (g == 1).sum() == 6 and (g == 0).sum() == 6
    assert (kv_cache.reuse_grid(4, use_cache=False) == 2).sum() == 10


def test_kv_cache_live_and_static():
    box = kv_cache.live_view()
    _core_only(box)
    live = box.live
    live.controls["t"].value = 10
    assert "step 10: 2560 multiply-adds (cache)" in live.label.value
    live.controls["cache"].value = False
    assert "14080 multiply-adds (recompute)" in live.label.value
    _check_static(kv_cache.static_view(T=6).data, 6)
    with pytest.raises(ValueError):
        kv_cache.static_view(T=41)
