"""Interactive views of the book's ideas, three layers each.

Widget modules are named for the chapter whose notebook shows them and for the idea
they show (``ch02_gd_momentum``, ``appB_staircase``): chapter N's widgets are the
modules ``chNN_*``. Every widget module offers a pure function computing what is drawn
(unit-tested), a ``live_view(...)`` built from core ipywidgets only (Jupyter and Colab,
no extra front-end code) and a ``static_view(...)``: an HTML animation with its own
slider for the built site, where no kernel runs. Submodules load on first use, so
importing this package imports neither ipywidgets nor matplotlib.

- chapter 2: ``gd_momentum`` (gradient descent with and without momentum on the
  exercise function, §2.3.2); chapter 3: ``embedding`` (pixels versus learned
  features), ``loss_margin``, ``mc_risk``, ``bayes_coin``; chapter 4:
  ``softmax_temperature``, ``reliability``; chapter 5: ``xor_playground``,
  ``activation_gallery``, ``minibatch_sgd``.
- chapter 6: ``fd_step`` (§6.1.2), ``ad_modes`` (§6.2-6.3), ``graph_viewer`` (§6.4.2,
  F.6.3), ``vanishing`` (§6.4.3); chapter 7: ``conv_filter`` (a filter editor on a
  photo), ``receptive_field``, ``conv_sliding``; chapter 8: ``sampling``
  (temperature, top-k, top-p), ``causal_conv``, ``tokenizer_view``; chapter 9:
  ``dropout_view``, ``batchnorm_stats``, ``early_stopping``, ``norm_axes``.
- chapter 10: ``attention_lab``, ``dictionary_lookup``, ``positional``; chapter 11:
  ``mask_gallery``, ``online_softmax``, ``kv_cache``; chapter 12:
  ``graph_diffusion``, ``gat_ranking``, ``graph_receptive_field``; chapter 13:
  ``recurrent_vs_parallel``, ``scan_tree``, ``ssm_kernel``.
- appendix A: ``gaussian_pdf``, ``mc_convergence``, ``kl_divergence``; appendix B:
  ``sigmoid_step`` (a sigmoid neuron becoming a step), ``staircase``.
- :mod:`alice_course.widgets.static`: the offline-safe animation player every static
  view uses; :mod:`alice_course.widgets.describe`: a figure's text description, the
  alt text of the book's figures and of the static views' frames.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

from alice_lab._compat import lazy_getattr

_SUBMODULES = (
    "appA_gaussian_pdf",
    "appA_kl_divergence",
    "appA_mc_convergence",
    "appB_sigmoid_step",
    "appB_staircase",
    "ch02_gd_momentum",
    "ch03_bayes_coin",
    "ch03_embedding",
    "ch03_loss_margin",
    "ch03_mc_risk",
    "ch04_reliability",
    "ch04_softmax_temperature",
    "ch05_activation_gallery",
    "ch05_minibatch_sgd",
    "ch05_xor_playground",
    "ch06_ad_modes",
    "ch06_fd_step",
    "ch06_graph_viewer",
    "ch06_vanishing",
    "ch07_conv_filter",
    "ch07_conv_sliding",
    "ch07_receptive_field",
    "ch08_causal_conv",
    "ch08_sampling",
    "ch08_tokenizer_view",
    "ch09_batchnorm_stats",
    "ch09_dropout_view",
    "ch09_early_stopping",
    "ch09_norm_axes",
    "ch10_attention_lab",
    "ch10_dictionary_lookup",
    "ch10_positional",
    "ch11_kv_cache",
    "ch11_mask_gallery",
    "ch11_online_softmax",
    "ch12_gat_ranking",
    "ch12_graph_diffusion",
    "ch12_graph_receptive_field",
    "ch13_recurrent_vs_parallel",
    "ch13_scan_tree",
    "ch13_ssm_kernel",
    "describe",
    "static",
)

#: the names before the chapter prefixes, for one release (notebooks published with
#: ``alice_lab.widgets.gd_momentum`` and the like); each use warns
_RENAMED = {
    "activation_gallery": "ch05_activation_gallery",
    "ad_modes": "ch06_ad_modes",
    "attention_lab": "ch10_attention_lab",
    "batchnorm_stats": "ch09_batchnorm_stats",
    "bayes_coin": "ch03_bayes_coin",
    "causal_conv": "ch08_causal_conv",
    "conv_filter": "ch07_conv_filter",
    "conv_sliding": "ch07_conv_sliding",
    "dictionary_lookup": "ch10_dictionary_lookup",
    "dropout_view": "ch09_dropout_view",
    "early_stopping": "ch09_early_stopping",
    "embedding": "ch03_embedding",
    "fd_step": "ch06_fd_step",
    "gat_ranking": "ch12_gat_ranking",
    "gaussian_pdf": "appA_gaussian_pdf",
    "gd_momentum": "ch02_gd_momentum",
    "graph_diffusion": "ch12_graph_diffusion",
    "graph_receptive_field": "ch12_graph_receptive_field",
    "graph_viewer": "ch06_graph_viewer",
    "kl_divergence": "appA_kl_divergence",
    "kv_cache": "ch11_kv_cache",
    "loss_margin": "ch03_loss_margin",
    "mask_gallery": "ch11_mask_gallery",
    "mc_convergence": "appA_mc_convergence",
    "mc_risk": "ch03_mc_risk",
    "minibatch_sgd": "ch05_minibatch_sgd",
    "norm_axes": "ch09_norm_axes",
    "online_softmax": "ch11_online_softmax",
    "positional": "ch10_positional",
    "receptive_field": "ch07_receptive_field",
    "recurrent_vs_parallel": "ch13_recurrent_vs_parallel",
    "reliability": "ch04_reliability",
    "sampling": "ch08_sampling",
    "scan_tree": "ch13_scan_tree",
    "sigmoid_step": "appB_sigmoid_step",
    "softmax_temperature": "ch04_softmax_temperature",
    "ssm_kernel": "ch13_ssm_kernel",
    "staircase": "appB_staircase",
    "tokenizer_view": "ch08_tokenizer_view",
    "vanishing": "ch06_vanishing",
    "xor_playground": "ch05_xor_playground",
}

__all__ = list(_SUBMODULES)

_lazy = lazy_getattr(__name__, {name: f".{name}" for name in _SUBMODULES})


def _warn_renamed(name: str) -> str:
    warnings.warn(
        f"alice_course.widgets.{name} is now alice_course.widgets.{_RENAMED[name]} "
        "(widgets are named by chapter); the old name goes away in the next release",
        FutureWarning,
        stacklevel=3,
    )
    return _RENAMED[name]


def __getattr__(name: str):
    return _lazy(_warn_renamed(name) if name in _RENAMED else name)


class _RenamedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``from alice_lab.widgets.gd_momentum import live_view`` (a published lab's
    import) finds the renamed module, with the warning."""

    def find_spec(self, fullname, path, target=None):
        package, _, name = fullname.rpartition(".")
        if (
            package in ("alice_course.widgets", "alice_lab.widgets")
            and name in _RENAMED
        ):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        name = _warn_renamed(spec.name.rpartition(".")[2])
        return importlib.import_module(f"{__name__}.{name}")

    def exec_module(self, module):
        pass


if not any(isinstance(f, _RenamedFinder) for f in sys.meta_path):
    sys.meta_path.append(_RenamedFinder())


def __dir__():
    return sorted(__all__)
