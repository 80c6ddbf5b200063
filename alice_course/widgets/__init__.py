"""Interactive views of the book's ideas, three layers each.

Every widget module offers a pure function computing what is drawn (unit-tested), a
``live_view(...)`` built from core ipywidgets only (Jupyter and Colab, no extra
front-end code) and a ``static_view(...)``: an HTML animation with its own slider for
the built site, where no kernel runs. Submodules load on first use, so importing this
package imports neither ipywidgets nor matplotlib.

- :mod:`alice_course.widgets.gd_momentum`: gradient descent with and without momentum on
  the chapter-2 exercise function (book §2.3.2 and "From theory to practice").
- :mod:`alice_course.widgets.sigmoid_step`, :mod:`alice_course.widgets.staircase`: a
  sigmoid neuron becoming a step, and the staircase approximation of appendix B.
- chapter 3: :mod:`~alice_course.widgets.embedding` (pixels versus learned features),
  :mod:`~alice_course.widgets.loss_margin`, :mod:`~alice_course.widgets.mc_risk`,
  :mod:`~alice_course.widgets.bayes_coin`; appendix A:
  :mod:`~alice_course.widgets.gaussian_pdf`,
  :mod:`~alice_course.widgets.mc_convergence`,
  :mod:`~alice_course.widgets.kl_divergence`.
- chapter 4: :mod:`~alice_course.widgets.softmax_temperature`,
  :mod:`~alice_course.widgets.reliability`.
- chapter 5: :mod:`~alice_course.widgets.xor_playground`,
  :mod:`~alice_course.widgets.activation_gallery`,
  :mod:`~alice_course.widgets.minibatch_sgd`.
- chapter 6: :mod:`~alice_course.widgets.fd_step` (§6.1.2),
  :mod:`~alice_course.widgets.ad_modes` (§6.2-6.3),
  :mod:`~alice_course.widgets.graph_viewer` (§6.4.2, F.6.1),
  :mod:`~alice_course.widgets.vanishing` (§6.4.3).
- chapter 7: :mod:`~alice_course.widgets.conv_filter` (a filter editor on a photo),
  :mod:`~alice_course.widgets.receptive_field`,
  :mod:`~alice_course.widgets.conv_sliding`; chapter 8:
  :mod:`~alice_course.widgets.sampling` (temperature, top-k, top-p),
  :mod:`~alice_course.widgets.causal_conv`, :mod:`~alice_course.widgets.tokenizer_view`;
  chapter 9: :mod:`~alice_course.widgets.dropout_view`,
  :mod:`~alice_course.widgets.batchnorm_stats`,
  :mod:`~alice_course.widgets.early_stopping`, :mod:`~alice_course.widgets.norm_axes`.
- chapter 10: :mod:`~alice_course.widgets.attention_lab`,
  :mod:`~alice_course.widgets.dictionary_lookup`,
  :mod:`~alice_course.widgets.positional`; chapter 11:
  :mod:`~alice_course.widgets.mask_gallery`,
  :mod:`~alice_course.widgets.online_softmax`, :mod:`~alice_course.widgets.kv_cache`;
  chapter 12: :mod:`~alice_course.widgets.graph_diffusion`,
  :mod:`~alice_course.widgets.gat_ranking`,
  :mod:`~alice_course.widgets.graph_receptive_field`; chapter 13:
  :mod:`~alice_course.widgets.recurrent_vs_parallel`,
  :mod:`~alice_course.widgets.scan_tree`, :mod:`~alice_course.widgets.ssm_kernel`.
- :mod:`alice_course.widgets.static`: the offline-safe animation player every static
  view uses.
- :mod:`alice_course.widgets.describe`: a figure's text description, the alt text of the
  book's figures and of the static views' frames.
"""

from __future__ import annotations

from alice_lab._compat import lazy_getattr

_SUBMODULES = (
    "activation_gallery",
    "ad_modes",
    "attention_lab",
    "batchnorm_stats",
    "bayes_coin",
    "causal_conv",
    "conv_filter",
    "conv_sliding",
    "describe",
    "dictionary_lookup",
    "dropout_view",
    "early_stopping",
    "embedding",
    "fd_step",
    "gat_ranking",
    "gaussian_pdf",
    "gd_momentum",
    "graph_diffusion",
    "graph_receptive_field",
    "graph_viewer",
    "kl_divergence",
    "kv_cache",
    "loss_margin",
    "mask_gallery",
    "mc_convergence",
    "mc_risk",
    "minibatch_sgd",
    "norm_axes",
    "online_softmax",
    "positional",
    "receptive_field",
    "recurrent_vs_parallel",
    "reliability",
    "sampling",
    "scan_tree",
    "sigmoid_step",
    "softmax_temperature",
    "ssm_kernel",
    "staircase",
    "static",
    "tokenizer_view",
    "vanishing",
    "xor_playground",
)

__all__ = list(_SUBMODULES)


__getattr__ = lazy_getattr(__name__, {name: f".{name}" for name in _SUBMODULES})


def __dir__():
    return sorted(__all__)
