"""Checks of lab 07 (chapter 7: convolutions from scratch and a CNN in PyTorch and JAX).

Exercises: patch extraction (channels last), a convolution from ``F.unfold`` patches
and one matrix product, 2×2 max-pooling, and the forward pass of a small CNN in PyTorch
and in JAX. Every check compares with ``torch.nn`` or ``alice_lab.conv`` on seeded
inputs chosen to expose the classic mistakes: asymmetric kernels (a flipped kernel, i.e.
a true convolution instead of the layer's cross-correlation, gives other numbers),
non-square images and kernels (transposed axes fail), as many input as output channels
(a kernel read as (s, s, c', c) has the right shape), odd sizes (windows off by one) and
border pixels (a wrong offset / padding shows there). The references are
``alice_lab.conv``'s functions; most mutants are those functions fed a wrongly prepared
input or given a wrong setting.

Book: §7.1.3 (lines 3354-3432), §7.2 (lines 3434-3658), "From theory to practice"
(lines 3660-3682).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from alice_course.grading import _chain, _compare, mutant, register

# --- 7.1: patches --------------------------------------------------------------------


def _patches_ref():
    from alice_lab.conv import patches

    return patches


@register(
    "lab07.1", name="extract_patches", exercise="7.1", points=2, reference=_patches_ref
)
def check_extract_patches(extract_patches: Callable) -> tuple[bool, str]:
    """extract_patches(X (b, h, w, c), s) -> (b, h-s+1, w-s+1, s, s, c)."""
    from alice_lab import conv

    def case(shape, s, seed):
        X = np.random.default_rng(seed).standard_normal(shape)
        return lambda: _compare(
            f"patches of a {shape} batch, s={s}",
            extract_patches(X.copy(), s),
            lambda: conv.patches(X, s),
            rtol=0,
            atol=0,
        )

    return _chain(
        case((2, 6, 5, 3), 3, 0),
        case((1, 7, 4, 2), 2, 1),
        ok="patches (b, h-s+1, w-s+1, s, s, c), channels last",
    )


# the mutants rearrange the library's patches


@mutant("lab07.1", "channel axis mixed up: (b, h', w', c, s, s)")
def _p_channels_first(X, s):
    return np.moveaxis(_patches_ref()(X, s), -1, 3)


@mutant("lab07.1", "off by one: h - s windows instead of h - s + 1")
def _p_off_by_one(X, s):
    return _patches_ref()(X, s)[:, :-1, :-1]


@mutant("lab07.1", "patch rows and columns transposed")
def _p_transposed(X, s):
    return np.swapaxes(_patches_ref()(X, s), 3, 4)


# --- 7.2: convolution from unfold -----------------------------------------------------


def _unfold_ref():
    from alice_lab.conv import conv2d

    def conv2d_unfold(X, W, padding=0):
        """The library's channels-last convolution, which takes torch tensors too."""
        return conv2d(X, W, padding=padding)

    return conv2d_unfold


def _torch_conv(X, W, padding):
    """F.conv2d in the channels-last layout: what the check compares with."""
    import torch.nn.functional as F

    from alice_lab.conv import layout

    out = F.conv2d(
        layout.to_torch_layout(X), layout.to_torch_weight(W), padding=padding
    )
    return layout.from_torch_layout(out)


@register(
    "lab07.2", name="conv2d_unfold", exercise="7.2", points=3, reference=_unfold_ref
)
def check_conv2d_unfold(conv2d_unfold: Callable) -> tuple[bool, str]:
    """conv2d_unfold(X (b, h, w, c) torch, W (s, s, c, c') torch, padding) -> (b, h',
    w', c')."""
    import torch

    def case(xs, ws, padding, seed):
        g = torch.Generator().manual_seed(seed)
        X = torch.randn(*xs, generator=g, dtype=torch.float64)
        W = torch.randn(*ws, generator=g, dtype=torch.float64)
        return lambda: _compare(
            f"conv of {tuple(xs)} with {tuple(ws)}, padding={padding}",
            conv2d_unfold(X.clone(), W.clone(), padding),
            lambda: _torch_conv(X, W, padding).numpy(),
            rtol=1e-9,
            atol=1e-9,
        )

    return _chain(
        case((2, 7, 6, 3), (3, 3, 3, 4), 1, 0),
        case((1, 6, 6, 4), (3, 3, 4, 4), 0, 1),  # c = c': a swapped kernel fits
        case((1, 8, 5, 2), (5, 5, 2, 3), 2, 2),
        ok="unfold, one matrix product and a reshape give F.conv2d (cross-correlation)",
    )


# each mutant is the right convolution of a wrongly prepared image or kernel


@mutant("lab07.2", "kernel flipped (true convolution instead of cross-correlation)")
def _u_flipped(X, W, padding=0):
    return _unfold_ref()(X, W.flip(0, 1), padding)


@mutant("lab07.2", "wrong offset: padding on one side only")
def _u_offset(X, W, padding=0):
    import torch.nn.functional as F

    # pad (left, right, top, bottom) of the (w, c) slices: zeros before rows/columns
    Xp = F.pad(X, (0, 0, 2 * padding, 0, 2 * padding, 0))
    return _unfold_ref()(Xp, W, 0)


@mutant("lab07.2", "kernel channel axes mixed up (read as (s, s, c', c))")
def _u_channels(X, W, padding=0):
    return _unfold_ref()(X, W.transpose(2, 3), padding)


@mutant("lab07.2", "patch flattened as (s, s, c) against a (c, s, s) weight")
def _u_order(X, W, padding=0):
    # the kernel's entries, listed in (s, s, c) order, read back as a (c, s, s) block
    s, _, c, c_out = W.shape
    scrambled = W.reshape(-1, c_out).reshape(c, s, s, c_out).permute(1, 2, 0, 3)
    return _unfold_ref()(X, scrambled, padding)


# --- 7.3: max-pooling -----------------------------------------------------------------


def _pool_ref():
    from alice_lab.conv import max_pool2d

    return max_pool2d


@register("lab07.3", name="max_pool", exercise="7.3", points=2, reference=_pool_ref)
def check_max_pool(max_pool: Callable) -> tuple[bool, str]:
    """max_pool(X (b, h, w, c)) -> (b, h//2, w//2, c), 2×2 windows, stride 2."""
    import torch
    import torch.nn.functional as F

    def case(shape, seed):
        X = np.random.default_rng(seed).standard_normal(shape)

        def want():
            Xt = torch.as_tensor(X).permute(0, 3, 1, 2)
            return F.max_pool2d(Xt, 2).permute(0, 2, 3, 1).numpy()

        return lambda: _compare(
            f"max-pool of {shape}", max_pool(X.copy()), want, rtol=0, atol=0
        )

    return _chain(
        case((2, 6, 8, 3), 0),
        case((1, 7, 5, 2), 1),
        ok="2×2 max per channel, odd sizes floored like F.max_pool2d",
    )


@mutant("lab07.3", "average instead of max")
def _m_avg(X):
    from alice_lab.conv import avg_pool2d

    return avg_pool2d(X)


@mutant("lab07.3", "reshape mixes rows and columns (no axis swap)")
def _m_reshape(X):
    # reshaping (b, h, w, c) to (b, h/2, w/2, 4, c) groups 4 pixels that follow each
    # other in reading order: a max-pool of size 4 over the raster-scanned image
    from alice_lab.conv import max_pool1d

    h2, w2 = X.shape[1] // 2, X.shape[2] // 2
    raster = X[:, : 2 * h2, : 2 * w2].reshape(len(X), -1, X.shape[-1])
    return max_pool1d(raster, 4).reshape(len(X), h2, w2, -1)


@mutant("lab07.3", "max over the channels too")
def _m_channels(X):
    Y = _pool_ref()(X)
    return np.broadcast_to(Y.max(axis=-1, keepdims=True), Y.shape)


# --- 7.4 / 7.5: a small CNN, forward pass ---------------------------------------------


def cnn_init(seed: int = 0, c1: int = 8, c2: int = 16, classes: int = 10) -> dict:
    """Parameters of the lab's CNN, channels last: W1 (3, 3, 1, c1), W2 (3, 3, c1, c2),
    W3 (c2, classes), biases; He-scaled normal weights from a seeded generator."""
    r = np.random.default_rng(seed)
    return {
        "W1": r.standard_normal((3, 3, 1, c1)) * np.sqrt(2 / 9),
        "b1": np.zeros(c1),
        "W2": r.standard_normal((3, 3, c1, c2)) * np.sqrt(2 / (9 * c1)),
        "b2": np.zeros(c2),
        "W3": r.standard_normal((c2, classes)) * np.sqrt(1 / c2),
        "b3": np.zeros(classes),
    }


def _cnn_forward(
    params, X, *, relu2=True, pool_stride=2, padding1="same", head_pool="avg"
):
    """The lab's CNN with ``alice_lab.conv`` (channels last; NumPy, torch and JAX
    arrays alike): the reference of both forward passes. The keywords turn it into
    the mistakes the mutants stand for."""
    from alice_lab.activations import relu
    from alice_lab.conv import conv2d, global_avg_pool, global_sum_pool, max_pool2d

    p = params
    first = relu(conv2d(X, p["W1"], p["b1"], padding=padding1))
    second = conv2d(max_pool2d(first, 2, pool_stride), p["W2"], p["b2"], padding="same")
    features = relu(second) if relu2 else second
    pooled = global_avg_pool if head_pool == "avg" else global_sum_pool
    return pooled(features) @ p["W3"] + p["b3"]


def _cnn_logits(params: dict, X: np.ndarray) -> np.ndarray:
    """The expected logits, from ``torch.nn`` layers holding the same weights."""
    import torch
    from torch import nn

    from alice_lab.conv.layout import to_torch_layout, to_torch_weight

    t = {k: torch.as_tensor(v) for k, v in params.items()}
    c1, c2, classes = len(t["b1"]), len(t["b2"]), len(t["b3"])
    net = nn.Sequential(
        nn.Conv2d(1, c1, 3, padding=1, dtype=torch.float64),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(c1, c2, 3, padding=1, dtype=torch.float64),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(c2, classes, dtype=torch.float64),
    )
    conv1, conv2, head = net[0], net[3], net[7]
    with torch.no_grad():
        conv1.weight.copy_(to_torch_weight(t["W1"]))
        conv2.weight.copy_(to_torch_weight(t["W2"]))
        head.weight.copy_(t["W3"].T)
        for layer, bias in ((conv1, "b1"), (conv2, "b2"), (head, "b3")):
            layer.bias.copy_(t[bias])
        return net(to_torch_layout(torch.as_tensor(X))).numpy()


def _cnn_case(forward: Callable, to_array: Callable, seed: int, rtol: float):
    r = np.random.default_rng(seed)
    params = cnn_init(seed)
    params = {k: v + 0.1 * r.standard_normal(v.shape) for k, v in params.items()}
    X = r.standard_normal((5, 8, 6, 1))
    # copies: torch.as_tensor would share the arrays the expected value is made of
    got_params = {k: to_array(v.copy()) for k, v in params.items()}
    return lambda: _compare(
        f"logits of a (5, 8, 6, 1) batch (seed {seed})",
        forward(got_params, to_array(X.copy())),
        lambda: _cnn_logits(params, X),
        rtol=rtol,
        atol=rtol,
    )


def _cnn_torch_ref():
    return _cnn_forward


@register(
    "lab07.4",
    name="cnn_forward_torch",
    exercise="7.4",
    points=2,
    reference=_cnn_torch_ref,
)
def check_cnn_forward_torch(cnn_forward_torch: Callable) -> tuple[bool, str]:
    """cnn_forward_torch(params, X (b, h, w, 1)) -> logits (b, 10), torch tensors."""
    import torch

    return _chain(
        _cnn_case(cnn_forward_torch, torch.as_tensor, 0, 1e-9),
        _cnn_case(cnn_forward_torch, torch.as_tensor, 1, 1e-9),
        ok="conv-ReLU-pool-conv-ReLU-global average pool-linear = the reference",
    )


def _with_kernels(params: dict, change: Callable) -> dict:
    """``params`` with ``change`` applied to both convolution kernels."""
    return {k: change(v) if k in ("W1", "W2") else v for k, v in params.items()}


@mutant("lab07.4", "ReLU missing after the second convolution")
def _c_no_relu(params, X):
    return _cnn_forward(params, X, relu2=False)


@mutant("lab07.4", "global sum pooling instead of the average")
def _c_sum(params, X):
    return _cnn_forward(params, X, head_pool="sum")


@mutant("lab07.4", "kernel spatial axes transposed (permute(3, 2, 1, 0))")
def _c_transposed(params, X):
    return _cnn_forward(_with_kernels(params, lambda W: W.transpose(0, 1)), X)


def _cnn_jax_ref():
    return _cnn_forward


def _jax_array(x):
    import jax.numpy as jnp

    return jnp.asarray(np.asarray(x, dtype=np.float32))


@register(
    "lab07.5", name="cnn_forward_jax", exercise="7.5", points=3, reference=_cnn_jax_ref
)
def check_cnn_forward_jax(cnn_forward_jax: Callable) -> tuple[bool, str]:
    """cnn_forward_jax(params, X (b, h, w, 1)) -> logits (b, 10), JAX arrays
    (float32)."""
    return _chain(
        _cnn_case(cnn_forward_jax, _jax_array, 0, 1e-4),
        _cnn_case(cnn_forward_jax, _jax_array, 2, 1e-4),
        ok="the JAX forward pass (NHWC/HWIO, channels last) = the PyTorch reference",
    )


@mutant("lab07.5", "kernel flipped (true convolution)")
def _j_flipped(params, X):
    return _cnn_forward(_with_kernels(params, lambda W: W[::-1, ::-1]), X)


@mutant("lab07.5", "max-pooling with stride 1 (overlapping windows)")
def _j_stride1(params, X):
    return _cnn_forward(params, X, pool_stride=1)


@mutant("lab07.5", "'VALID' convolutions instead of 'SAME' (wrong padding)")
def _j_valid(params, X):
    # the second convolution of a zero-padded input is 'SAME' again: only the first
    # one loses its border
    return _cnn_forward(params, X, padding1="valid")
