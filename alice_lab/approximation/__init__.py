r"""Universal approximation in one dimension: steps, bins and staircases of sigmoids.

Appendix B proves Cybenko's theorem for one input and one output by building the
network by hand. One hidden sigmoid neuron with a huge slope is a step,
:math:`a\,\sigma(w(x - s))` (E.B.1); two opposite steps make a "bin", a function
equal to :math:`a` on :math:`[s - \Delta/2, s + \Delta/2]` and zero elsewhere (E.B.2);
and ``m`` bins whose heights are the averages of a target :math:`g` over each bin give a
staircase that approximates :math:`g` as closely as wanted (E.B.3), with ``2m`` hidden
neurons.

The staircase is written here twice, so that the two can be compared:

- :func:`staircase` is the book's sum of bins, one bin at a time;
- :func:`mlp_weights` writes the same model as a one-hidden-layer network,
  :math:`f(x) = \sigma(x\mathbf{W}_1 + \mathbf{b}_1)\mathbf{W}_2`, with explicit
  weights, evaluated by :func:`staircase_forward` (any backend) or loaded into a
  ``torch.nn.Sequential`` by :func:`torch_sequential`.

Parameters of a construction (bin centres, heights) are small host-side NumPy arrays;
everything evaluated on inputs ``x`` is written against the Python array API and
returns the caller's array type on the caller's device.

Book: Appendix B (lines 7011-7087).

Modules: :mod:`~alice_lab.approximation.construction` (step, bin, staircase),
:mod:`~alice_lab.approximation.network` (the same staircase as a network) and
:mod:`~alice_lab.approximation.error` (measuring the error).
"""

from alice_lab.approximation.construction import (
    CONVENTIONS,
    bin_averages,
    bin_fn,
    bins,
    box,
    neuron,
    sigmoid,
    staircase,
    step,
)
from alice_lab.approximation.error import (
    hidden_units,
    loglog_slope,
    mse,
    mse_on_grid,
    sin_over_x,
)
from alice_lab.approximation.network import (
    MLPWeights,
    Staircase,
    bin_approximation,
    mlp_forward as mlp_forward,  # staircase_forward's old name: warns, one release
    mlp_weights,
    staircase_forward,
    torch_sequential,
)

__all__ = [
    "CONVENTIONS",
    "MLPWeights",
    "Staircase",
    "bin_approximation",
    "bin_averages",
    "bin_fn",
    "bins",
    "box",
    "hidden_units",
    "loglog_slope",
    "mlp_weights",
    "mse",
    "mse_on_grid",
    "neuron",
    "sigmoid",
    "sin_over_x",
    "staircase",
    "staircase_forward",
    "step",
    "torch_sequential",
]
