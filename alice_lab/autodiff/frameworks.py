r"""New primitives in the frameworks: the trainable Swish with hand-written VJPs.

The book's exercise (§6.4.2 and "From theory to practice") is to add a primitive to
PyTorch and to JAX by giving its forward pass and its VJPs. The primitive is the
trainable Swish of §5.4,

.. math:: f(s; a, b, c, d) = \sigma(as + b)\,(cs + d),

whose VJPs, with :math:`u = as + b`, :math:`v = cs + d` and :math:`\sigma' =
\sigma(u)(1 - \sigma(u))`, are

.. math:: \bar s = g\,(a\,\sigma' v + c\,\sigma), \quad
          \bar a = \textstyle\sum g\,\sigma' s v, \quad
          \bar b = \sum g\,\sigma' v, \quad
          \bar c = \sum g\,\sigma s, \quad \bar d = \sum g\,\sigma,

the sums running over the axes along which a parameter was broadcast (all of them for
the book's four scalars). The same formulas serve three implementations:

- :func:`trainable_swish_engine`: engine operations (NumPy, Tensor or Dual inputs);
- ``TrainableSwishFunction``: a ``torch.autograd.Function`` (forward + backward), and
  ``SwishFunctionDemo``: the ``nn.Module`` of the demo, which runs either through that
  Function or lets autograd work the backward out;
- ``trainable_swish_jax``: a ``jax.custom_vjp`` function (``fwd`` saves residuals,
  ``bwd`` returns the cotangents).

The activation itself, for any array library, is
:func:`alice_lab.activations.trainable_swish` (its module,
``alice_lab.activations.TrainableSwish``, holds per-unit parameters).

torch and JAX are imported on first use of their versions.

Book: §5.4, eq. trainable_swish (line 2572); §6.4.2 (lines 3110-3180); "From theory to
practice" (lines 3242-3248).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from alice_lab._compat import lazy_getattr, renamed
from alice_lab.autodiff import ops
from alice_lab.backend import to_numpy

# TrainableSwishFunction, SwishFunctionDemo and trainable_swish_jax are built on first
# access (module __getattr__), so that importing this module imports neither framework.
__all__ = ["swish_vjp", "train_mlp_torch", "trainable_swish_engine"]


def trainable_swish_engine(s, a=1.0, b=0.0, c=1.0, d=0.0):
    """σ(a s + b)(c s + d) with engine operations; a = c = 1, b = d = 0 is the Swish.
    (On arrays of any library: :func:`alice_lab.activations.trainable_swish`.)

    >>> float(trainable_swish_engine(np.array(0.0), 1.0, 0.0, 1.0, 1.0))  # sigma(0)
    0.5
    """
    return ops.sigmoid(a * s + b) * (c * s + d)


#: the name before ``trainable_swish_engine``, for one release (chapter 6's notebook)
trainable_swish = renamed(
    "alice_lab.autodiff.frameworks.trainable_swish",
    trainable_swish_engine,
    "alice_lab.autodiff.frameworks.trainable_swish_engine",
    "alice_lab.activations.trainable_swish is the activation for any array library",
)


def swish_vjp(g, s, a, b, c, d, *, sigmoid: Callable, sum_to: Callable):
    """The five cotangents ``(s̄, ā, b̄, c̄, d̄)``, written with operators only so that
    NumPy, torch and JAX share them; ``sum_to(x, like)`` reduces a broadcast product
    to a parameter's shape."""
    sig = sigmoid(a * s + b)
    v = c * s + d
    dsig = sig * (1 - sig)
    return (
        g * (a * dsig * v + c * sig),
        sum_to(g * dsig * s * v, a),
        sum_to(g * dsig * v, b),
        sum_to(g * sig * s, c),
        sum_to(g * sig, d),
    )


# --- PyTorch --------------------------------------------------------------------------


@functools.cache
def _torch_classes() -> dict[str, type]:
    import torch

    def sum_to(x, like):
        return x.sum_to_size(like.shape) if like.dim() else x.sum()

    class TrainableSwishFunction(torch.autograd.Function):
        """Trainable Swish as a PyTorch primitive: ``apply(s, a, b, c, d)``."""

        @staticmethod
        def forward(ctx, s, a, b, c, d):
            ctx.save_for_backward(s, a, b, c, d)
            return torch.sigmoid(a * s + b) * (c * s + d)

        @staticmethod
        def backward(ctx, g):
            s, a, b, c, d = ctx.saved_tensors
            return swish_vjp(g, s, a, b, c, d, sigmoid=torch.sigmoid, sum_to=sum_to)

    class SwishFunctionDemo(torch.nn.Module):
        """Chapter 6's demo: the trainable Swish as a module with four scalar
        parameters; ``custom=True`` routes it through the hand-written
        ``TrainableSwishFunction``, otherwise autograd derives the backward pass. (The
        activation's own module is ``alice_lab.activations.TrainableSwish``.)"""

        def __init__(
            self,
            a=1.0,
            b=0.0,
            c=1.0,
            d=0.0,
            *,
            custom: bool = False,
            dtype=torch.float32,
        ):
            super().__init__()
            self.custom = custom
            for name, value in zip("abcd", (a, b, c, d), strict=True):
                param = torch.nn.Parameter(torch.as_tensor(value, dtype=dtype))
                self.register_parameter(name, param)

        def forward(self, s):
            if self.custom:
                return TrainableSwishFunction.apply(s, self.a, self.b, self.c, self.d)
            return torch.sigmoid(self.a * s + self.b) * (self.c * s + self.d)

    return {
        "TrainableSwishFunction": TrainableSwishFunction,
        "SwishFunctionDemo": SwishFunctionDemo,
    }


@functools.cache
def _jax_function() -> dict[str, Callable]:
    import jax
    import jax.numpy as jnp

    def sum_to(x, like):
        like = jnp.asarray(like)
        lead = x.ndim - like.ndim
        x = jnp.sum(x, axis=tuple(range(lead))) if lead else x
        axes = tuple(i for i, n in enumerate(like.shape) if n == 1 and x.shape[i] != 1)
        return jnp.sum(x, axis=axes, keepdims=True) if axes else x

    @jax.custom_vjp
    def trainable_swish_jax(s, a, b, c, d):
        return jax.nn.sigmoid(a * s + b) * (c * s + d)

    def fwd(s, a, b, c, d):
        return trainable_swish_jax(s, a, b, c, d), (s, a, b, c, d)

    def bwd(residuals, g):
        s, a, b, c, d = residuals
        return swish_vjp(g, s, a, b, c, d, sigmoid=jax.nn.sigmoid, sum_to=sum_to)

    trainable_swish_jax.defvjp(fwd, bwd)
    return {"trainable_swish_jax": trainable_swish_jax}


__getattr__ = lazy_getattr(
    __name__,
    {
        "TrainableSwishFunction": _torch_classes,
        "SwishFunctionDemo": _torch_classes,
        "trainable_swish_jax": _jax_function,
    },
)


# --- the same MLP training in PyTorch, for comparisons --------------------------------


def train_mlp_torch(
    params,
    X: np.ndarray,
    y: np.ndarray,
    *,
    lr: float,
    steps: int,
    batch_size: int | None = None,
    seed: int = 0,
    threads: int | None = 1,
):
    """PyTorch twin of :func:`alice_lab.autodiff.mlp.train_mlp` (ReLU, mean
    cross-entropy, plain SGD) from the same initial parameters and batches.

    ``threads``: torch's intra-op threads during the run (restored afterwards). One
    thread suits these small matrices: with several, each tiny operation pays for
    synchronising the threads, which on a busy machine costs far more than the
    arithmetic. ``None`` keeps torch's setting.

    Returns ``(params as NumPy, losses)``.
    """
    import torch

    if threads is not None:
        before = torch.get_num_threads()
        torch.set_num_threads(int(threads))
        try:
            return train_mlp_torch(
                params,
                X,
                y,
                lr=lr,
                steps=steps,
                batch_size=batch_size,
                seed=seed,
                threads=None,
            )
        finally:
            torch.set_num_threads(before)

    from alice_lab.autodiff.mlp import batch_indices

    tp = [
        (torch.tensor(W, requires_grad=True), torch.tensor(b, requires_grad=True))
        for W, b in params
    ]
    Xt, yt = torch.as_tensor(X), torch.as_tensor(y)
    flat = [p for pair in tp for p in pair]
    losses = []
    for idx in batch_indices(len(X), steps, batch_size, seed):
        idx = torch.as_tensor(idx)
        h = Xt[idx]
        for k, (W, b) in enumerate(tp):
            h = h @ W + b
            if k < len(tp) - 1:
                h = torch.relu(h)
        loss = torch.nn.functional.cross_entropy(h, yt[idx])
        grads = torch.autograd.grad(loss, flat)
        with torch.no_grad():  # plain SGD (torch.optim.SGD without momentum)
            for p, g in zip(flat, grads, strict=True):
                p -= lr * g
        losses.append(float(loss.detach()))
    return [(to_numpy(W), to_numpy(b)) for W, b in tp], losses
