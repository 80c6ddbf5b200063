"""Convolutional layers, channels last, for NumPy, PyTorch, JAX and any array-API
library.

Book chapter 7 ("Convolutional layers", lines 3256-3682) and the 1-D pieces of
chapter 8. Layouts follow the book: ``X ~ (b, h, w, c)`` (batch optional), kernels
``W ~ (s_h, s_w, c // groups, c')``, as in JAX/TensorFlow; :func:`to_torch_layout` and
:func:`to_torch_weight` convert to PyTorch's channels-first ones.

Four implementations of the same layer, which the tests check against each other and
against ``torch.nn.functional``:

- :func:`conv2d` (and ``conv1d``, ``conv3d``): patches times a matrix, the default
  (on NumPy arrays with stride 1, one shifted BLAS product per kernel tap, see
  :mod:`alice_lab.conv.shifted`);
- :func:`conv2d_loop`: loops that mirror eq. E.7.7 index by index;
- :func:`conv_matrix`: the (doubly-block) Toeplitz matrix of the layer;
- :func:`fft_conv2d`: pointwise products in the frequency domain.

Every convolution here is a cross-correlation (no kernel flip), as in every
deep-learning
library (book line 3420).

>>> import numpy as np
>>> conv2d(np.ones((1, 4, 4, 3)), np.ones((3, 3, 3, 8)), padding="same").shape
(1, 4, 4, 8)
"""

from alice_lab.conv.fft import (
    dilate_kernel,
    fft_conv1d,
    fft_conv2d,
    fft_convnd,
)
from alice_lab.conv.layout import (
    from_torch_layout,
    from_torch_weight,
    to_torch_layout,
    to_torch_weight,
    unvect,
    vect,
)
from alice_lab.conv.patches import (
    causal_conv1d,
    conv1d,
    conv1x1,
    conv2d,
    conv3d,
    convnd,
    depthwise_conv2d,
    depthwise_separable_conv2d,
    patches,
)
from alice_lab.conv.pooling import (
    avg_pool1d,
    avg_pool2d,
    global_avg_pool,
    global_max_pool,
    global_sum_pool,
    max_pool1d,
    max_pool2d,
    max_pool3d,
    pool,
)
from alice_lab.conv.receptive_field import (
    empirical_receptive_field,
    receptive_field,
    receptive_field_table,
)
from alice_lab.conv.reference import (
    FILTERS,
    conv2d_loop,
    conv_params,
    extract_patch,
    fc_image_params,
    locally_connected2d,
    locally_connected_params,
    offset,
    pixel_distance,
    separable_params,
    zero_pad,
)
from alice_lab.conv.toeplitz import conv_matrix, toeplitz_matrix

__all__ = [
    "FILTERS",
    "avg_pool1d",
    "avg_pool2d",
    "causal_conv1d",
    "conv1d",
    "conv1x1",
    "conv2d",
    "conv2d_loop",
    "conv3d",
    "conv_matrix",
    "conv_params",
    "convnd",
    "depthwise_conv2d",
    "depthwise_separable_conv2d",
    "dilate_kernel",
    "empirical_receptive_field",
    "extract_patch",
    "fc_image_params",
    "fft_conv1d",
    "fft_conv2d",
    "fft_convnd",
    "from_torch_layout",
    "from_torch_weight",
    "global_avg_pool",
    "global_max_pool",
    "global_sum_pool",
    "locally_connected2d",
    "locally_connected_params",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "offset",
    "patches",
    "pixel_distance",
    "pool",
    "receptive_field",
    "receptive_field_table",
    "separable_params",
    "to_torch_layout",
    "to_torch_weight",
    "toeplitz_matrix",
    "unvect",
    "vect",
    "zero_pad",
]
