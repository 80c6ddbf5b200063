"""One training step of an MLP: the chapter-6 engine against torch.autograd (CPU).

The step is the whole thing a training loop repeats: forward pass of a 784-512-10
ReLU network on a batch of 256 random inputs, mean cross-entropy, backward pass,
and the gradient-descent update, in float32. Both sides start from the same weights
and return the updated weights (flattened into one vector), which must agree to
float32 precision. The engine's time is mostly NumPy's matrix products; the rest is
Python bookkeeping of about twenty recorded operations.

Book: §6.3-6.4 (reverse mode, VJPs), "From theory to practice" (line 3238).
"""

from __future__ import annotations

import numpy as np

from alice_lab.autodiff import mlp
from benchmarks.harness import Bench, benchmark

WIDTHS = (784, 512, 10)
BATCH = 256
LR = 0.1


def _engine_step(X, y, params):
    new, _ = mlp.backprop_step(params, X, y, LR)
    return np.concatenate([p.ravel() for pair in new for p in pair])


def _torch_step_factory():
    import torch

    def step(X, y, params):
        (W1, b1), (W2, b2) = params
        logits = torch.relu(X @ W1 + b1) @ W2 + b2
        loss = torch.nn.functional.cross_entropy(logits, y)
        grads = torch.autograd.grad(loss, [W1, b1, W2, b2])
        with torch.no_grad():
            new = [p - LR * g for p, g in zip((W1, b1, W2, b2), grads, strict=True)]
            return torch.cat([p.reshape(-1) for p in new])

    return step


@benchmark(
    "autodiff MLP step",
    reference="torch.autograd",
    shape=(BATCH, *WIDTHS),
    dtype="float32",
)
def _mlp_step(rng: np.random.Generator) -> Bench:
    import torch

    X = rng.standard_normal((BATCH, WIDTHS[0])).astype(np.float32)
    y = rng.integers(0, WIDTHS[-1], BATCH)
    params = mlp.init_mlp(WIDTHS, seed=0, dtype=np.float32)
    torch_params = [
        (torch.tensor(W, requires_grad=True), torch.tensor(b, requires_grad=True))
        for W, b in params
    ]
    X2 = rng.standard_normal((BATCH, WIDTHS[0])).astype(np.float32)
    y2 = rng.integers(0, WIDTHS[-1], BATCH)
    torch_step = _torch_step_factory()

    def reference(X, y, params):  # the same call signature, torch tensors inside
        return torch_step(
            torch.from_numpy(X) if isinstance(X, np.ndarray) else X,
            torch.from_numpy(y) if isinstance(y, np.ndarray) else y,
            torch_params,
        )

    return Bench(
        alice=_engine_step,
        reference=reference,
        args=(X, y, params),
        checks={"another batch": (X2, y2, params)},
        rtol=1e-4,
        atol=1e-6,
    )
