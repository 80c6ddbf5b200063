"""Transformers in practice: blocks, tokens, ViT, Mixer, encoder-decoder and GPT.

Generic array functions (NumPy, torch, JAX; no torch import at ``import alice_lab``):

- :mod:`~alice_lab.transformer.blocks`: ``mlp_block``,
  ``transformer_block`` (pre/post-norm), ``decoder_block``, ``parallel_block``,
  gated units (``gated_unit``, ``glu``, ``swiglu_mlp``),
  ``init_block_params``, ``from_torch_encoder_layer`` / ``from_torch_decoder_layer``.
- :mod:`~alice_lab.transformer.tokens`: ``patchify`` / ``unpatchify`` /
  ``patchify_einops`` / ``patch_embed``, class and register tokens, ``mean_pool``,
  ``concat_modalities``.
- :mod:`~alice_lab.transformer.mixer`: ``mixer_block``, ``shift_channel_groups``,
  ``monet_block``.

PyTorch modules (loaded on first use): ``TransformerBlock``, ``DecoderBlock``,
``EncoderDecoder``, ``DecoderOnly`` (:mod:`.models`); ``PatchEmbed``,
``ViT``, ``MixerBlock``, ``Mixer`` (:mod:`.vit`); ``GPT``, ``gpt_generate``,
``train_gpt`` (:mod:`.gpt`). The attention module they use is
:class:`alice_lab.attention.MultiHeadAttention`.

Book: §10.3 (lines 5470-5564) and Chapter 11 (lines 5604-5942).
"""

from __future__ import annotations

from alice_lab._compat import lazy_getattr
from alice_lab.transformer.blocks import (
    block_param_count,
    decoder_block,
    from_torch_decoder_layer,
    from_torch_encoder_layer,
    gated_unit,
    glu,
    init_attention_params,
    init_block_params,
    layer_norm,
    mlp_block,
    parallel_block,
    swiglu_mlp,
    transformer_block,
)
from alice_lab.transformer.mixer import (
    mixer_block,
    mixer_param_count,
    monet_block,
    shift_channel_groups,
    token_shift as token_shift,  # shift_channel_groups's old name: warns, one release
)
from alice_lab.transformer.tokens import (
    add_class_token,
    add_register_tokens,
    concat_modalities,
    drop_register_tokens,
    mean_pool,
    patch_embed,
    patchify,
    patchify_einops,
    unpatchify,
)

_LAZY = {
    "TransformerBlock": ".models",
    "DecoderBlock": ".models",
    "EncoderDecoder": ".models",
    "DecoderOnly": ".models",
    "PatchEmbed": ".vit",
    "ViT": ".vit",
    "MixerBlock": ".vit",
    "Mixer": ".vit",
    "GPT": ".gpt",
    "gpt_generate": ".gpt",
    "train_gpt": ".gpt",
    "lm_batches": ".gpt",
}
#: ``generate``, gpt_generate's old name: warns for one release (not in ``__all__``)
_OLD_NAMES = {"generate": ".gpt"}

__all__ = [
    "add_class_token",
    "add_register_tokens",
    "block_param_count",
    "concat_modalities",
    "decoder_block",
    "drop_register_tokens",
    "from_torch_decoder_layer",
    "from_torch_encoder_layer",
    "gated_unit",
    "glu",
    "init_attention_params",
    "init_block_params",
    "layer_norm",
    "mean_pool",
    "mixer_block",
    "mixer_param_count",
    "mlp_block",
    "monet_block",
    "parallel_block",
    "patch_embed",
    "patchify",
    "patchify_einops",
    "shift_channel_groups",
    "swiglu_mlp",
    "transformer_block",
    "unpatchify",
    *sorted(_LAZY),
]


__getattr__ = lazy_getattr(__name__, {**_LAZY, **_OLD_NAMES})
