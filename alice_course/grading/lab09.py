"""Checks of lab 09 (chapter 9: scaling up a CNN on the digits).

Exercises: inverted dropout with a keep probability, batch normalization with running
statistics (training and inference), the original residual block, a random-shift
augmentation of image batches, and preparing a pretrained model for fine-tuning. The
reference solutions call the textbook library (``alice_lab.regularization.dropout``,
``alice_lab.normalization``, ``alice_lab.augmentation.random_shift``); the checks
compare with PyTorch's own layers (``torch.nn.functional.batch_norm`` with its
running buffers, ``alice_lab.residual.BasicBlock``) and statistics that any correct
answer must show on seeded inputs: each check rejects the classic mistakes (dropout
without rescaling or rescaled by the drop probability, the unbiased variance in the
normalization, the running average's rate swapped, the skip added after the ReLU, a
circular shift, a head that is not replaced or a backbone that is not frozen).

Book: §9.2.3 (augmentation), §9.3 (dropout and batch norm), §9.4 (residual blocks) and
"From theory to practice" (lines 5029-5051).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from alice_course.grading import _chain, _compare, mutant, register

# --- 9.1: inverted dropout ------------------------------------------------------------


def _dropout_ref():
    from alice_lab.regularization import dropout

    def inverted_dropout(X, keep_prob, rng):
        return dropout(X, keep_prob=keep_prob, rng=rng)

    return inverted_dropout


@register(
    "lab09.1", name="inverted_dropout", exercise="9.1", points=2, reference=_dropout_ref
)
def check_inverted_dropout(inverted_dropout: Callable) -> tuple[bool, str]:
    """inverted_dropout(X, keep_prob, rng) -> M ⊙ X / keep_prob, M ~ Bern(keep_prob)."""

    def case(keep_prob, seed):
        def run():
            X = np.random.default_rng(seed).uniform(1.0, 2.0, (200, 300))
            Y = np.asarray(
                inverted_dropout(X.copy(), keep_prob, np.random.default_rng(7))
            )
            if Y.shape != X.shape:
                return False, f"output has shape {Y.shape}; expected {X.shape}"
            kept = Y != 0
            frac = kept.mean()
            if abs(frac - keep_prob) > 0.01:
                return False, (
                    f"keep_prob={keep_prob}: {frac:.3f} of the units were kept; "
                    f"expected about {keep_prob}"
                )
            # keep_prob · Y / X is 1 on every kept unit (dropped units count as 1
            # too): the same shape whatever mask the student's generator drew
            ok, msg = _compare(
                f"keep_prob * Y / X on the kept units (keep_prob={keep_prob})",
                np.where(kept, keep_prob * Y / X, 1.0),
                lambda: np.ones(X.shape),
                rtol=1e-12,
                atol=1e-12,
            )
            if not ok:
                return False, msg + " (kept units must be divided by keep_prob)"
            if abs(Y.mean() - X.mean()) > 0.02:
                return False, f"the mean moved from {X.mean():.3f} to {Y.mean():.3f}"
            return True, ""

        return run

    return _chain(
        case(0.8, 0),
        case(0.5, 1),
        case(0.3, 2),
        ok="keeps a fraction keep_prob, rescales by 1/keep_prob: the "
        "expectation is preserved",
    )


def _dropout(X, keep_prob, rng, **kw):
    from alice_lab.regularization import dropout

    return dropout(X, keep_prob=keep_prob, rng=rng, **kw)


@mutant("lab09.1", "dropout without rescaling")
def _do_no_rescale(X, keep_prob, rng):
    return _dropout(X, keep_prob, rng, inverted=False)


@mutant("lab09.1", "rescaled by drop_prob instead of keep_prob")
def _do_drop_scale(X, keep_prob, rng):
    return _dropout(X, keep_prob, rng, inverted=False) / (1 - keep_prob)


@mutant("lab09.1", "keep_prob used as the drop probability")
def _do_swapped(X, keep_prob, rng):
    from alice_lab.regularization import dropout

    return dropout(X, drop_prob=keep_prob, rng=rng, inverted=False) / keep_prob


@mutant("lab09.1", "multiplied by keep_prob instead of divided")
def _do_times(X, keep_prob, rng):
    return _dropout(X, keep_prob, rng, inverted=False) * keep_prob


# --- 9.2: batch normalization with running statistics ---------------------------------


def _bn_ref():
    from alice_lab.normalization import batch_norm, batch_stats, running_average

    def batch_norm_forward(
        X, gamma, beta, running_mean, running_var, training, momentum=0.1, eps=1e-5
    ):
        if not training:
            return (
                batch_norm(
                    X,
                    gamma,
                    beta,
                    eps=eps,
                    training=False,
                    running_mean=running_mean,
                    running_var=running_var,
                ),
                running_mean,
                running_var,
            )
        mu, biased = batch_stats(X)
        per_channel = X[..., 0].size  # the values pooled into each channel's statistics
        unbiased = biased * per_channel / (per_channel - 1)
        return (
            batch_norm(X, gamma, beta, eps=eps),
            running_average(running_mean, mu, momentum=momentum),
            running_average(running_var, unbiased, momentum=momentum),
        )

    return batch_norm_forward


def _torch_batch_norm(X, gamma, beta, running_mean, running_var, training):
    """PyTorch's answer, channels last: (Y, new running mean, new running var).
    ``torch.nn.functional.batch_norm`` updates the running buffers in place."""
    import torch
    import torch.nn.functional as F

    rm, rv = torch.tensor(running_mean), torch.tensor(running_var)
    Y = F.batch_norm(
        torch.tensor(X).movedim(-1, 1),  # channels first for torch
        rm,
        rv,
        torch.tensor(gamma),
        torch.tensor(beta),
        training=training,
        momentum=0.1,
        eps=1e-5,
    )
    return Y.movedim(1, -1).numpy(), rm.numpy(), rv.numpy()


@register(
    "lab09.2", name="batch_norm_forward", exercise="9.2", points=3, reference=_bn_ref
)
def check_batch_norm(batch_norm_forward: Callable) -> tuple[bool, str]:
    """batch_norm_forward(X, gamma, beta, running_mean, running_var, training,
    momentum=0.1, eps=1e-5) -> (Y, new_running_mean, new_running_var), channels last,
    against torch.nn.functional.batch_norm (which updates its buffers in place)."""

    def case(shape, training, seed):
        def run():
            r = np.random.default_rng(seed)
            c = shape[-1]
            X = r.normal(2.0, 3.0, shape)
            g, b = r.uniform(0.5, 2.0, c), r.normal(size=c)
            rm, rv = r.normal(size=c), r.uniform(0.5, 2.0, c)
            got = batch_norm_forward(
                X.copy(), g.copy(), b.copy(), rm.copy(), rv.copy(), training
            )
            if not isinstance(got, tuple | list) or len(got) != 3:
                return False, "return a tuple (Y, new_running_mean, new_running_var)"
            want = functools.cache(lambda: _torch_batch_norm(X, g, b, rm, rv, training))
            mode = "training" if training else "inference"
            for k, label in enumerate(("Y", "new_running_mean", "new_running_var")):
                ok, msg = _compare(
                    f"{label} ({mode}, X {shape})",
                    got[k],
                    lambda k=k: want()[k],
                    rtol=1e-9,
                    atol=1e-10,
                )
                if not ok:
                    return False, msg
            return True, ""

        return run

    return _chain(
        case((16, 4), True, 0),
        case((4, 5, 5, 3), True, 1),
        case((6, 4), False, 2),
        case((2, 3, 3, 2), False, 3),
        ok="batch statistics (biased) in training, running averages "
        "(unbiased variance, momentum 0.1) updated like PyTorch; running "
        "statistics at inference",
    )


def _bn_variant(
    X,
    gamma,
    beta,
    running_mean,
    running_var,
    training,
    momentum=0.1,
    eps=1e-5,
    *,
    ddof=0,
    running_ddof=1,
    swap_rate=False,
    batch_at_inference=False,
    first_axis_only=False,
):
    """Batch norm with knobs that turn it into common mistakes: ``ddof`` of the
    variance that normalizes and of the one fed to the running average, the weight on
    the old running value (default ``1 - momentum``), batch statistics at inference,
    statistics pooled over the first axis only."""
    pooled = (0,) if first_axis_only else tuple(range(X.ndim - 1))
    if training or batch_at_inference:
        center, spread = X.mean(axis=pooled), X.var(axis=pooled, ddof=ddof)
    else:
        center, spread = running_mean, running_var
    Y = (X - center) * (gamma / np.sqrt(spread + eps)) + beta
    if not training:
        return Y, running_mean, running_var
    keep = momentum if swap_rate else 1 - momentum
    batch_var = X.var(axis=pooled, ddof=running_ddof)
    return (
        Y,
        keep * running_mean + (1 - keep) * center,
        keep * running_var + (1 - keep) * batch_var,
    )


def _bn_mutant(description: str, **knobs) -> None:
    """Register :func:`_bn_variant` with ``knobs`` as a mutant of check 9.2."""

    def wrong(
        X, gamma, beta, running_mean, running_var, training, momentum=0.1, eps=1e-5
    ):
        return _bn_variant(
            X, gamma, beta, running_mean, running_var, training, momentum, eps, **knobs
        )

    mutant("lab09.2", description)(wrong)


_bn_mutant("unbiased variance used to normalize", ddof=1)
_bn_mutant("biased variance in the running average", running_ddof=0)
_bn_mutant(
    "running average with the rate swapped (0.1 on the old value)", swap_rate=True
)
_bn_mutant("batch statistics at inference too", batch_at_inference=True)
_bn_mutant(
    "statistics over the first axis only (wrong for images)", first_axis_only=True
)


# --- 9.3: the original residual block -------------------------------------------------


def _res_ref():
    import torch.nn.functional as F
    from torch import nn

    def residual_block(x, conv1, bn1, conv2, bn2):
        branch = nn.Sequential(conv1, bn1, nn.ReLU(), conv2, bn2)
        return F.relu(branch(x) + x)

    return residual_block


def _res_block(c: int, training: bool, seed: int):
    """``alice_lab.residual.BasicBlock(c)`` (Conv-BN-ReLU-Conv-BN, identity skip, ReLU
    after the sum), seeded, in float64 and the given mode, with non-trivial batch-norm
    parameters and running statistics; and an input x (3, c, 6, 6)."""
    import torch

    from alice_lab.residual import BasicBlock

    torch.manual_seed(seed)
    block = BasicBlock(c).double().train(training)
    for bn in (block.f[1], block.f[4]):
        with torch.no_grad():
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.normal_()
            bn.running_mean.normal_()
            bn.running_var.uniform_(0.5, 2)
    x = torch.randn(3, c, 6, 6, dtype=torch.float64)
    return block, x


def _res_expected(c: int, training: bool, seed: int) -> np.ndarray:
    """The library block's output on its input, from a fresh copy of it."""
    import torch

    block, x = _res_block(c, training, seed)
    with torch.no_grad():
        return block(x).numpy()


@register(
    "lab09.3", name="residual_block", exercise="9.3", points=2, reference=_res_ref
)
def check_residual_block(residual_block: Callable) -> tuple[bool, str]:
    """residual_block(x, conv1, bn1, conv2, bn2) ->
    ReLU(BN(Conv(ReLU(BN(Conv(x))))) + x) (He et al., with the ReLU after the sum),
    in training and in eval mode, given the layers of alice_lab's BasicBlock and
    compared with that block."""
    import torch

    def case(c, training, seed):
        def run():
            block, x = _res_block(c, training, seed)
            conv1, bn1, _, conv2, bn2 = block.f
            with torch.no_grad():
                got = residual_block(x.clone(), conv1, bn1, conv2, bn2)
            mode = "train" if training else "eval"
            return _compare(
                f"block output ({mode} mode, {c} channels)",
                got.detach().numpy(),
                lambda: _res_expected(c, training, seed),
                rtol=1e-9,
                atol=1e-10,
            )

        return run

    return _chain(
        case(4, False, 0),
        case(3, True, 1),
        ok="Conv-BN-ReLU-Conv-BN, plus x, then ReLU",
    )


def _res_variant(x, conv1, bn1, conv2, bn2, *, skip="before the ReLU", relu=True):
    """The block with knobs that turn it into common mistakes: where the skip is
    added ("before the ReLU", "after the ReLU", "before the BN", "none") and whether
    a ReLU ends the block."""
    import torch.nn.functional as F

    inner = F.relu(bn1(conv1(x)))
    if skip == "before the BN":
        out = bn2(conv2(inner) + x)
    else:
        out = bn2(conv2(inner))
        if skip == "before the ReLU":
            out = out + x
    if relu:
        out = F.relu(out)
    return out + x if skip == "after the ReLU" else out


@mutant("lab09.3", "skip added after the final ReLU")
def _res_after_relu(*layers):
    return _res_variant(*layers, skip="after the ReLU")


@mutant("lab09.3", "no skip connection")
def _res_no_skip(*layers):
    return _res_variant(*layers, skip="none")


@mutant("lab09.3", "skip added before the second batch norm")
def _res_before_bn(*layers):
    return _res_variant(*layers, skip="before the BN")


@mutant("lab09.3", "no ReLU after the sum (the book's formula)")
def _res_no_post_relu(*layers):
    return _res_variant(*layers, relu=False)


# --- 9.4: random shifts ---------------------------------------------------------------


def _shift_ref():
    from alice_lab.augmentation import random_shift as library_shift

    def random_shift(X, rng):
        return library_shift(X, max_shift=1, rng=rng)

    return random_shift


def _shifted(img: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """``img`` (h, w, c) moved down by dy and right by dx pixels: a circular roll whose
    wrapped-around row and column are then zeroed."""
    out = np.roll(img, (dy, dx), axis=(0, 1))
    if dy:
        out[0 if dy > 0 else -1] = 0
    if dx:
        out[:, 0 if dx > 0 else -1] = 0
    return out


@register(
    "lab09.4", name="random_shift", exercise="9.4", points=2, reference=_shift_ref
)
def check_random_shift(random_shift: Callable) -> tuple[bool, str]:
    """random_shift(X, rng) -> each image of X (b, h, w, c) moved by dy, dx in
    {-1, 0, 1} (independently per image), the uncovered border filled with zeros."""
    X = np.random.default_rng(3).uniform(0.1, 1.0, (90, 6, 6, 2))
    Y = np.asarray(random_shift(X.copy(), np.random.default_rng(4)))
    if Y.shape != X.shape:
        return False, f"output has shape {Y.shape}; expected {X.shape}"
    # The shift each image got (or none); 1 marks an image that is a shifted copy.
    found = [
        next(
            (
                (dy, dx)
                for dy in (-1, 0, 1)
                for dx in (-1, 0, 1)
                if np.array_equal(Y[i], _shifted(X[i], dy, dx))
            ),
            None,
        )
        for i in range(len(X))
    ]
    hits = np.array([m is not None for m in found], dtype=float)
    ok, _ = _compare(
        "is a zero-filled shift of its input (1 = yes), per image",
        hits,
        lambda: np.ones(len(X)),
        rtol=0.0,
        atol=0.0,
    )
    if not ok:
        i = int(np.argmin(hits))
        return False, (
            f"image {i} is not its input shifted by at most one pixel "
            "with a zero-filled border"
        )
    seen = {m for m in found}
    ok, _ = _compare(
        "number of different shifts in the batch (at least 6 of 9, capped at 6)",
        float(min(len(seen), 6)),
        lambda: 6.0,
        rtol=0.0,
        atol=0.0,
    )
    if not ok:
        return False, f"only {len(seen)} of the 9 shifts appear in a batch of 90 images"
    return True, "every image shifted by its own (dy, dx) ∈ {-1, 0, 1}², zeros in"


@mutant("lab09.4", "circular shift (np.roll) instead of zero fill")
def _shift_roll(X, rng):
    out = X.copy()
    for i, (dy, dx) in enumerate(rng.integers(-1, 2, size=(len(X), 2))):
        out[i] = np.roll(X[i], (dy, dx), axis=(0, 1))
    return out


@mutant("lab09.4", "one shift for the whole batch")
def _shift_same(X, rng):
    dy, dx = rng.integers(-1, 2, size=2)
    h, w = X.shape[1:3]
    padded = np.pad(X, ((0, 0), (1, 1), (1, 1), (0, 0)))
    return padded[:, 1 - dy : 1 - dy + h, 1 - dx : 1 - dx + w]


@mutant("lab09.4", "no augmentation at all")
def _shift_identity(X, rng):
    return X.copy()


# --- 9.5: preparing a pretrained model for fine-tuning -------------------------------


def _ft_variant(model, n_classes, *, freeze=True, freeze_head=False, replace=True):
    """Freeze the backbone, swap the last layer for a fresh ``nn.Linear`` head; the
    knobs turn it into common mistakes (nothing frozen, the head frozen too, a layer
    appended instead of replacing the head)."""
    from torch import nn

    model.requires_grad_(not freeze)
    last = len(model) - 1
    if replace:
        model[last] = nn.Linear(model[last].in_features, n_classes)
    else:
        model.append(nn.Linear(model[last].out_features, n_classes))
    if freeze_head:
        model.requires_grad_(False)
    return model


def _ft_ref():
    def prepare_finetuning(model, n_classes):
        return _ft_variant(model, n_classes)

    return prepare_finetuning


@register(
    "lab09.5", name="prepare_finetuning", exercise="9.5", points=2, reference=_ft_ref
)
def check_prepare_finetuning(prepare_finetuning: Callable) -> tuple[bool, str]:
    """prepare_finetuning(model, n_classes) -> the same nn.Sequential with a frozen
    backbone and a new trainable Linear head with n_classes outputs."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(12, 8), nn.ReLU(), nn.Linear(8, 5))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    old_head = model[-1].weight.clone()
    new = prepare_finetuning(model, 3)
    x = torch.randn(4, 3, 2, 2)
    out = new(x)
    if not _compare(
        "the new model's output shape",
        out.shape,
        lambda: [4.0, 3.0],
        rtol=0,
        atol=0,
    )[0]:
        return False, f"the new model outputs {tuple(out.shape)}; expected (4, 3)"
    head = [m for m in new.modules() if isinstance(m, nn.Linear)][-1]
    if head.weight.shape == old_head.shape and torch.equal(head.weight, old_head):
        return False, "the head was not replaced"
    if not _compare(
        "the new head's in_features",
        head.in_features,
        lambda: 8.0,
        rtol=0,
        atol=0,
    )[0]:
        return False, (
            f"the new head takes {head.in_features} features; it must replace "
            "the old head and read the backbone's 8"
        )
    body = [p for m in list(new.modules())[1:] if m is not head for p in m.parameters()]
    head_trainable = all(p.requires_grad for p in head.parameters())
    body_trainable = any(p.requires_grad for p in body)
    if not _compare(
        "requires_grad (all of the head, any of the backbone)",
        [float(head_trainable), float(body_trainable)],
        lambda: [1.0, 0.0],
        rtol=0,
        atol=0,
    )[0]:
        if not head_trainable:
            return False, "the new head must be trainable"
        return False, "the backbone's parameters must be frozen (requires_grad=False)"
    for k, v in new.state_dict().items():
        if k in before and v.shape == before[k].shape and not k.startswith("3."):
            if not torch.equal(v, before[k]):
                return False, f"the pretrained weight {k!r} changed"
    opt = torch.optim.SGD([p for p in new.parameters() if p.requires_grad], lr=0.1)
    torch.nn.functional.cross_entropy(new(x), torch.tensor([0, 1, 2, 0])).backward()
    opt.step()
    if not torch.equal(new[1].weight, before["1.weight"]):
        return False, "an optimizer step changed the backbone"
    return True, "backbone frozen and unchanged, a fresh trainable head"


@mutant("lab09.5", "backbone not frozen")
def _ft_not_frozen(model, n_classes):
    return _ft_variant(model, n_classes, freeze=False)


@mutant("lab09.5", "head frozen too (frozen after replacing it)")
def _ft_all_frozen(model, n_classes):
    return _ft_variant(model, n_classes, freeze_head=True)


@mutant("lab09.5", "head not replaced (a new layer appended after it)")
def _ft_appended(model, n_classes):
    return _ft_variant(model, n_classes, replace=False)
