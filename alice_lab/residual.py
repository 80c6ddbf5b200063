r"""Residual connections: blocks, bottlenecks, unrolled paths and the ODE (Euler) view.

A residual block computes :math:`r(x) = f(x) + x`, so ``f`` only has to learn the
*residual* :math:`r(x) - x`; a block whose ``f`` outputs zero is exactly the identity,
and its vector-Jacobian product is :math:`\text{vjp}_f(v) + v` (the skip adds an
identity path for the gradient). Stacking blocks and expanding the sums gives
:math:`2^L` paths (:func:`residual_paths`); reading :math:`x_t = x_{t-1} + h f(x_{t-1},
t)` as an explicit Euler step of :math:`\partial_t x = f(x, t)` makes a weight-tied
residual network an ODE solver (:func:`euler`, :func:`weight_tied_resnet`, :func:`rk4`
for comparison).

The generic functions take any callable and any array library. The convolutional blocks
(``NaiveResBlock``, ``BasicBlock``, ``BottleneckBlock``, ``ConvNeXtBlock``) are
``torch.nn.Module`` classes in PyTorch's native layout ``(b, c, h, w)`` (use
``x.permute(0, 3, 1, 2)`` from the book's channels-last layout); they are imported
lazily.

Book: §9.4 (lines 4837-5027).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from alice_lab._compat import lazy_getattr

__all__ = [
    "Residual",
    "bottleneck_param_count",
    "convnext_param_count",
    "euler",
    "residual",
    "residual_paths",
    "rk4",
    "weight_tied_resnet",
]


def residual(
    f: Callable[[Any], Any], x: Any, shortcut: Callable[[Any], Any] | None = None
) -> Any:
    r""":math:`r(x) = f(x) + x` (or ``f(x) + shortcut(x)``, e.g. a 1×1 projection when
    the channels change). Raises ``ValueError`` when the shapes differ.
    Book: §9.4.1 (lines 4869-4889).

    >>> residual(lambda x: 2 * x, np.array([1.0, 2.0])).tolist()
    [3.0, 6.0]
    """
    fx = f(x)
    skip = x if shortcut is None else shortcut(x)
    if tuple(fx.shape) != tuple(skip.shape):
        raise ValueError(
            f"a residual connection needs f(x) shaped like the skip path: got f(x) "
            f"{tuple(fx.shape)} and skip {tuple(skip.shape)}; use a projection shortcut"
        )
    return fx + skip


class Residual:
    """A residual block as an object: ``Residual(f)(x) == f(x) + x``."""

    def __init__(
        self, f: Callable[[Any], Any], shortcut: Callable[[Any], Any] | None = None
    ):
        self.f, self.shortcut = f, shortcut

    def __call__(self, x: Any) -> Any:
        return residual(self.f, x, self.shortcut)


def residual_paths(
    Fs: Sequence[np.ndarray],
) -> list[tuple[tuple[int, ...], np.ndarray]]:
    r"""The :math:`2^L` paths of ``L`` stacked *linear* residual blocks ``x ↦ x + F_i
    x``: :math:`\prod_i (I + F_i) = \sum_{S\subseteq[L]}\prod_{i\in S} F_i` (ordered
    products, later blocks on the left). Returns ``[(S, product), ...]``; their sum
    equals the network. Book: §9.4.2 (lines 4951-4989).

    >>> len(residual_paths([np.eye(2)] * 3))
    8
    """
    Fs = [np.asarray(F, dtype=float) for F in Fs]
    c = Fs[0].shape[0]
    if any(F.shape != (c, c) for F in Fs):
        raise ValueError(f"every F_i must be ({c}, {c}); got {[F.shape for F in Fs]}")
    out = []
    for r in range(len(Fs) + 1):
        for S in itertools.combinations(range(len(Fs)), r):
            P = np.eye(c)
            for i in S:
                P = Fs[i] @ P
            out.append((S, P))
    return out


def euler(
    f: Callable[[Any, float], Any],
    x0: Any,
    T: float,
    h: float,
    *,
    return_path: bool = False,
) -> Any:
    r"""Explicit Euler for :math:`\partial_t x = f(x, t)`: :math:`x_t = x_{t-1} +
    h f(x_{t-1}, t)` for ``round(T / h)`` steps from ``x0``. Global error O(h).
    Book: §9.4.2 (lines 4991-5023).

    >>> float(euler(lambda x, t: -x, np.array(1.0), 1.0, 0.5))
    0.25
    """
    n = int(round(T / h))
    x, path = x0, [x0]
    for k in range(n):
        x = x + h * f(x, k * h)
        path.append(x)
    return path if return_path else x


def weight_tied_resnet(
    f: Callable[[Any, float], Any], x0: Any, n_blocks: int, h: float
) -> Any:
    r"""``n_blocks`` residual blocks that share one function ``f`` (the "weights"), each
    ``x ↦ x + h f(x, t)``: the same numbers as :func:`euler` with ``T = n_blocks · h``
    (line 5027, [chen2018neural])."""
    x = x0
    for k in range(n_blocks):
        x = residual(lambda z, t=k * h: h * f(z, t), x)
    return x


def rk4(f: Callable[[Any, float], Any], x0: Any, T: float, h: float) -> Any:
    """Classical fourth-order Runge-Kutta (global error O(h⁴)), for comparison."""
    x = x0
    for k in range(int(round(T / h))):
        t = k * h
        k1 = f(x, t)
        k2 = f(x + h / 2 * k1, t + h / 2)
        k3 = f(x + h / 2 * k2, t + h / 2)
        k4 = f(x + h * k3, t + h)
        x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x


def bottleneck_param_count(c: int, mid: int, kernel: int = 3) -> int:
    """Weights of the original bottleneck (1×1 c→mid, k×k mid→mid, 1×1 mid→c), no
    biases or norms: ``c·mid + k²·mid² + mid·c`` (line 4947).

    >>> bottleneck_param_count(256, 64)
    69632
    """
    return c * mid + kernel * kernel * mid * mid + mid * c


def convnext_param_count(c: int, expansion: int = 4, kernel: int = 7) -> int:
    """Weights of a ConvNeXt inverted bottleneck (depthwise k×k, 1×1 c→ec, 1×1 ec→c), no
    biases or norms (the book calls it "ResNeXt", lines 4941-4947; erratum).

    >>> convnext_param_count(96)
    78432
    """
    return kernel * kernel * c + 2 * c * expansion * c


@functools.cache
def _torch_classes() -> dict[str, type]:
    import torch
    from torch import nn

    class NaiveResBlock(nn.Module):
        """``h = ReLU(BN(Conv(x))) + x`` (lines 4909-4921): since ReLU ≥ 0, h ≥ x."""

        def __init__(self, c: int):
            super().__init__()
            self.f = nn.Sequential(
                nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU()
            )

        def forward(self, x):
            return self.f(x) + x

    class BasicBlock(nn.Module):
        """The original 2-conv block, ``Conv-BN-ReLU-Conv-BN`` plus the skip (a 1×1
        conv + BN projection when ``c_out != c`` or ``stride > 1``), followed by a ReLU
        when ``post_relu`` (He et al.; the book's formula, lines 4923-4931, omits it).
        ``zero_init=True`` zeroes the last BN's scale, so the block starts as the
        identity on the skip path."""

        def __init__(
            self,
            c: int,
            c_out: int | None = None,
            *,
            stride: int = 1,
            post_relu: bool = True,
            zero_init: bool = False,
        ):
            super().__init__()
            c_out = c_out or c
            self.f = nn.Sequential(
                nn.Conv2d(c, c_out, 3, stride=stride, padding=1, bias=False),
                nn.BatchNorm2d(c_out),
                nn.ReLU(),
                nn.Conv2d(c_out, c_out, 3, padding=1, bias=False),
                nn.BatchNorm2d(c_out),
            )
            if zero_init:
                nn.init.zeros_(self.f[-1].weight)
            self.shortcut = (
                nn.Identity()
                if c_out == c and stride == 1
                else nn.Sequential(
                    nn.Conv2d(c, c_out, 1, stride=stride, bias=False),
                    nn.BatchNorm2d(c_out),
                )
            )
            self.post_relu = post_relu

        def forward(self, x):
            h = self.f(x) + self.shortcut(x)
            return torch.relu(h) if self.post_relu else h

    class BottleneckBlock(nn.Module):
        """1×1 compression (c → c/reduction), 3×3 conv, 1×1 expansion back to c, with BN
        and ReLU, plus the skip (line 4947)."""

        def __init__(self, c: int, reduction: int = 4):
            super().__init__()
            m = c // reduction
            self.f = nn.Sequential(
                nn.Conv2d(c, m, 1, bias=False),
                nn.BatchNorm2d(m),
                nn.ReLU(),
                nn.Conv2d(m, m, 3, padding=1, bias=False),
                nn.BatchNorm2d(m),
                nn.ReLU(),
                nn.Conv2d(m, c, 1, bias=False),
                nn.BatchNorm2d(c),
            )

        def forward(self, x):
            return torch.relu(self.f(x) + x)

    class ConvNeXtBlock(nn.Module):
        """ConvNeXt inverted bottleneck: depthwise k×k, LayerNorm over channels, 1×1 to
        ``expansion·c``, GELU, 1×1 back to c, plus the skip (lines 4941-4947)."""

        def __init__(
            self, c: int, expansion: int = 4, kernel: int = 7, *, bias: bool = True
        ):
            super().__init__()
            self.dw = nn.Conv2d(c, c, kernel, padding=kernel // 2, groups=c, bias=bias)
            self.norm = nn.LayerNorm(c)
            self.up = nn.Linear(c, expansion * c, bias=bias)
            self.down = nn.Linear(expansion * c, c, bias=bias)

        def forward(self, x):
            h = self.dw(x).permute(0, 2, 3, 1)  # channels last for LN and the 1×1s
            h = self.down(torch.nn.functional.gelu(self.up(self.norm(h))))
            return x + h.permute(0, 3, 1, 2)

    return {
        "NaiveResBlock": NaiveResBlock,
        "BasicBlock": BasicBlock,
        "BottleneckBlock": BottleneckBlock,
        "ConvNeXtBlock": ConvNeXtBlock,
    }


__getattr__ = lazy_getattr(
    __name__,
    dict.fromkeys(
        ("NaiveResBlock", "BasicBlock", "BottleneckBlock", "ConvNeXtBlock"),
        _torch_classes,
    ),
)
