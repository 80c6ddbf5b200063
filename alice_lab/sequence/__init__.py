"""Sequences: forecasting windows, causal models and autoregressive generation
(sampling with temperature / top-k / top-p, greedy, beam and exhaustive search).

Book: §8.1.1 and §8.3-§8.4 (lines 3688-3708, 3960-4298).
"""

from alice_lab.sequence.decoding import (
    beam_search,
    conditional_log_prob,
    exhaustive_search,
    generate,
    greedy_decode,
    next_token_distribution,
    sample_next_token,
    sequence_log_prob,
)
from alice_lab.sequence.forecasting import (
    autoregressive_rollout,
    generate_causal,
    is_causal,
    make_windows,
    num_samples,
    sequence_mse,
    shift_targets,
)

__all__ = [
    "autoregressive_rollout",
    "beam_search",
    "conditional_log_prob",
    "exhaustive_search",
    "generate",
    "generate_causal",
    "greedy_decode",
    "is_causal",
    "make_windows",
    "next_token_distribution",
    "num_samples",
    "sample_next_token",
    "sequence_log_prob",
    "sequence_mse",
    "shift_targets",
]
