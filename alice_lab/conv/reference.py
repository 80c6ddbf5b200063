r"""The convolution written as loops, index by index, as in the book's eq. E.7.7.

.. math:: H_{ijz} = \sum_{i'=1}^{2k+1}\sum_{j'=1}^{2k+1}\sum_{d=1}^{c}
          W_{i',j',d,z}\, X_{i'+t(i),\, j'+t(j),\, d},\qquad t(i) = i - k - 1

(book lines 3394-3418; 1-based indices, ``X`` zero-padded by ``k`` on each side, so the
printed ``t`` of chapter 8, ``i + k - 1`` at line 3726, is an erratum). We index the
kernel as ``W[i', j', d, z]`` (input channel before output channel, the layout the book
announces at line 3390), whereas E.7.7 prints ``W_{i',j',z,d}``: the two differ only by
a transpose of the last two axes.

Also here: the small pieces of §7.1 that the notebook and the claims use (``offset``,
``pixel_distance``, ``extract_patch``, ``zero_pad``, the named filters and the
parameter counts of a fully-connected, a locally-connected and a convolutional layer).
Book: §7.1.1-§7.1.3 (lines 3264-3432).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace
from alice_lab.conv._args import conv_spec, pad_spatial

__all__ = [
    "FILTERS",
    "conv2d_loop",
    "conv_params",
    "extract_patch",
    "fc_image_params",
    "locally_connected2d",
    "locally_connected_params",
    "offset",
    "pixel_distance",
    "separable_params",
    "zero_pad",
]

#: Named 3×3 filters for the filter playground (book lines 3420-3428: the ridge
#: detector).
FILTERS: dict[str, np.ndarray] = {
    "identity": np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]], dtype=float),
    "ridge": np.array([[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]], dtype=float),
    "box blur": np.full((3, 3), 1 / 9),
    "gaussian": np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], dtype=float) / 16,
    "sobel x": np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=float),
    "sobel y": np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], dtype=float),
    "sharpen": np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], dtype=float),
}


def offset(i: int, k: int) -> int:
    """The book's convolutive offset ``t(i) = i - k - 1`` (eq. E.7.6, line 3396;
    1-based).

    With it, ``i' + t(i)`` runs over ``i-k, …, i+k`` as ``i'`` runs over ``1, …, 2k+1``.

    >>> [i2 + offset(5, 1) for i2 in (1, 2, 3)]
    [4, 5, 6]
    """
    return i - k - 1


def pixel_distance(p: tuple[int, int], q: tuple[int, int]) -> int:
    """Chebyshev distance between pixels (book eq. E.7.3, line 3296)."""
    return max(abs(p[0] - q[0]), abs(p[1] - q[1]))


def extract_patch(X: Any, i: int, j: int, k: int) -> Any:
    """The patch :math:`P_k(i,j) = X_{i-k:i+k, j-k:j+k, :}` (book line 3300), 0-based.

    ``X ~ (h, w, c)``; returns ``(2k+1, 2k+1, c)``. Defined only ``k`` steps or more
    from
    the border (line 3308): closer than that, pad first (:func:`zero_pad`).
    """
    if X.ndim != 3:
        raise ValueError(
            f"extract_patch expects X of shape (h, w, c); got {tuple(X.shape)}"
        )
    h, w = X.shape[0], X.shape[1]
    if not (k <= i < h - k and k <= j < w - k):
        raise ValueError(
            f"P_k(i, j) needs k = {k} pixels on every side of (i, j) = ({i}, {j}) in a "
            f"{h}×{w} image (book line 3308); zero-pad the image first"
        )
    return X[i - k : i + k + 1, j - k : j + k + 1, :]


def zero_pad(X: Any, k: int) -> Any:
    """``k`` rows and columns of zeros on each side of ``(h, w, c)`` or ``(b, h, w, c)``
    (book line 3334)."""
    xp = array_namespace(X)
    if X.ndim == 3:
        return pad_spatial(xp.expand_dims(X, axis=0), ((k, k), (k, k)))[0, ...]
    if X.ndim == 4:
        return pad_spatial(X, ((k, k), (k, k)))
    raise ValueError(
        f"zero_pad expects (h, w, c) or (b, h, w, c); got {tuple(X.shape)}"
    )


def conv2d_loop(X, W, b=None, *, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution as explicit loops over output pixels and kernel taps (E.7.7).

    Same signature and result as :func:`alice_lab.conv.conv2d`; slow, for teaching and
    for testing the fast paths. Any array-API backend (the innermost sum over input
    channels is a matmul).
    """
    spec = conv_spec(
        X, W, b, 2, stride=stride, padding=padding, dilation=dilation, groups=groups
    )
    xp = array_namespace(X, W)
    Xb = X if spec.batched else xp.expand_dims(X, axis=0)
    Xp = pad_spatial(Xb, spec.padding)
    (sh, sw), (rh, rw), (th, tw) = spec.kernel, spec.dilation, spec.stride
    cg, og = spec.c_in // groups, spec.c_out // groups
    rows = []
    for i in range(spec.out[0]):
        cols = []
        for j in range(spec.out[1]):
            outs = []
            for g in range(groups):
                acc = None
                for a in range(sh):  # i' in the book, 0-based
                    for c_ in range(sw):  # j'
                        x = Xp[
                            :, i * th + a * rh, j * tw + c_ * rw, g * cg : (g + 1) * cg
                        ]
                        term = x @ W[a, c_, :, g * og : (g + 1) * og]
                        acc = term if acc is None else acc + term
                outs.append(acc)
            cols.append(xp.concat(outs, axis=-1))
        rows.append(xp.stack(cols, axis=1))
    H = xp.stack(rows, axis=1)
    if b is not None:
        H = H + b
    return H if spec.batched else H[0, ...]


def locally_connected2d(X: Any, W: Any, *, padding: Any = "same") -> Any:
    """Locally-connected layer (book lines 3320-3324): a different ``(s·s·c, c')``
    matrix at
    every pixel, ``W ~ (h', w', s, s, c, c')``; no weight sharing, so no
    equivariance."""
    from alice_lab.conv.patches import patches

    xp = array_namespace(X, W)
    P = patches(X, (W.shape[2], W.shape[3]), padding=padding)  # (b?, h', w', s, s, c)
    if tuple(P.shape[-5:-3]) != tuple(W.shape[:2]):
        raise ValueError(
            f"locally_connected2d: the output grid is {tuple(P.shape[-5:-3])} but W "
            f"has one "
            f"matrix per pixel of a {tuple(W.shape[:2])} grid"
        )
    Pf = xp.reshape(P, (*P.shape[:-3], -1))
    Wf = xp.reshape(W, (W.shape[0], W.shape[1], -1, W.shape[-1]))
    return xp.sum(Pf[..., :, None] * Wf, axis=-2)


def fc_image_params(h: int, w: int, c: int, c_out: int) -> int:
    """Weights of a fully-connected layer from ``(h, w, c)`` to ``(h, w, c')``:
    ``(hw)²cc'``
    (book line 3280)."""
    return (h * w) ** 2 * c * c_out


def locally_connected_params(h: int, w: int, c: int, c_out: int, s: int) -> int:
    """Weights of a locally-connected layer: ``hw·s²cc'`` (book line 3324)."""
    return h * w * s * s * c * c_out


def conv_params(c: int, c_out: int, s: int, *, bias: bool = True) -> int:
    """Parameters of a convolution: ``s²cc' (+ c')``, independent of the resolution
    (book lines 3352-3360)."""
    return s * s * c * c_out + (c_out if bias else 0)


def separable_params(c: int, c_out: int, s: int) -> int:
    """Weights of a depthwise-separable convolution: ``s²c + cc'`` (book line 3658)."""
    return s * s * c + c * c_out
