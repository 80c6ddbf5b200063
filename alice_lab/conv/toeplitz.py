r"""A convolution is a matrix: its Toeplitz (doubly-block-Toeplitz in 2-D) form.

Without bias a convolution is linear (book line 3386), so it is multiplication by a
matrix. In 1-D with a 3-tap kernel ``[W_1, W_2, W_3]`` and zero padding
(eq. E.7.5, lines 3378-3386):

.. math::
    \begin{bmatrix} h_1\\h_2\\h_3\\h_4\end{bmatrix} =
    \begin{bmatrix} W_2&W_3&0&0\\ W_1&W_2&W_3&0\\ 0&W_1&W_2&W_3\\
    0&0&W_1&W_2\end{bmatrix}
    \begin{bmatrix} x_1\\x_2\\x_3\\x_4\end{bmatrix},

a matrix that is constant along every diagonal. :func:`conv_matrix` builds that matrix
for any number of spatial axes, channels, stride, padding and dilation, so that
``vect(conv(X, W)) == conv_matrix(W, X.shape) @ vect(X)``. It is built from a constant
0/1 "which input pixel does tap ``k`` of output ``o`` read" tensor contracted with
``W``,
so it is differentiable in ``W`` on every backend. Book: §7.1.3 (lines 3376-3386).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, device_of
from alice_lab.conv._args import conv_spec, prod

__all__ = ["conv_matrix", "toeplitz_matrix"]


class _Shape:
    def __init__(self, shape):
        self.shape = tuple(shape)
        self.ndim = len(self.shape)


def _selection(spatial, spec) -> np.ndarray:
    """``S[o, k, p] = 1`` when tap ``k`` of output position ``o`` reads input position
    ``p``
    (taps that fall on the zero padding read nothing)."""
    n_out, n_in, K = prod(spec.out), prod(spatial), prod(spec.kernel)
    S = np.zeros((n_out, K, n_in))
    for o, pos in enumerate(itertools.product(*(range(n) for n in spec.out))):
        for k, taps in enumerate(itertools.product(*(range(s) for s in spec.kernel))):
            src = []
            for q, t, st, r, (lo, _), n in zip(
                pos,
                taps,
                spec.stride,
                spec.dilation,
                spec.padding,
                spatial,
                strict=True,
            ):
                x = q * st + t * r - lo
                if not 0 <= x < n:
                    break
                src.append(x)
            else:
                S[o, k, int(np.ravel_multi_index(src, spatial))] = 1.0
    return S


def conv_matrix(
    W: Any, input_shape: tuple[int, ...], *, stride=1, padding=0, dilation=1
) -> Any:
    """The ``(n'·c', n·c)`` matrix ``M`` with ``vect(conv(X, W)) == M @ vect(X)``.

    ``input_shape`` is one unbatched input's shape ``(n_1, …, n_d, c)`` and
    ``W ~ (s_1, …, s_d, c, c')`` (``groups = 1``). Rows and columns follow the row-major
    ``vect`` of the output ``(n'_1, …, n'_d, c')`` and of the input.

    >>> conv_matrix(np.array([1.0, 2.0, 3.0]).reshape(3, 1, 1), (4, 1), padding=1)[:2]
    array([[2., 3., 0., 0.],
           [1., 2., 3., 0.]])
    """
    d = W.ndim - 2
    if d < 1 or len(input_shape) != d + 1:
        raise ValueError(
            f"conv_matrix expects W ~ (s_1..s_d, c, c') and input_shape (n_1..n_d, c); "
            f"got W {tuple(W.shape)} and input_shape {tuple(input_shape)}"
        )
    spec = conv_spec(
        _Shape(input_shape),
        W,
        None,
        d,
        stride=stride,
        padding=padding,
        dilation=dilation,
    )
    xp = array_namespace(W)
    spatial = tuple(input_shape[:-1])
    S = xp.asarray(_selection(spatial, spec), dtype=W.dtype, device=device_of(W))
    K, c, c_out = prod(spec.kernel), spec.c_in, spec.c_out
    Wk = xp.reshape(W, (K, c * c_out))
    M = xp.reshape(
        xp.permute_dims(S, (0, 2, 1)) @ Wk, (S.shape[0], S.shape[2], c, c_out)
    )  # (O, P, c, c')
    M = xp.permute_dims(M, (0, 3, 1, 2))  # (O, c', P, c)
    return xp.reshape(M, (S.shape[0] * c_out, S.shape[2] * c))


def toeplitz_matrix(w: Any, n: int, padding: Any = "same") -> Any:
    """The Toeplitz matrix of a single-channel 1-D convolution with taps ``w ~ (s,)``
    on a
    length-``n`` signal: ``(n, n)`` for ``"same"``, ``(n - s + 1, n)`` for ``"valid"``
    (book eq. E.7.5, line 3380)."""
    if w.ndim != 1:
        raise ValueError(
            f"toeplitz_matrix expects taps w of shape (s,); got {tuple(w.shape)}"
        )
    xp = array_namespace(w)
    return conv_matrix(xp.reshape(w, (w.shape[0], 1, 1)), (n, 1), padding=padding)
