"""Checks of lab 09 (chapter 9: scaling up a CNN on the digits).

Exercises: inverted dropout with a keep probability, batch normalization with running
statistics (training and inference), the original residual block, a random-shift
augmentation of image batches, and preparing a pretrained model for fine-tuning. The
references are PyTorch's own layers (``torch.nn.functional.batch_norm`` with its
running buffers, ``nn.Conv2d``/``nn.BatchNorm2d``) and statistics that any correct
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
    def inverted_dropout(X, keep_prob, rng):
        M = rng.random(X.shape) < keep_prob
        return X * M / keep_prob

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


@mutant("lab09.1", "dropout without rescaling")
def _do_no_rescale(X, keep_prob, rng):
    return X * (rng.random(X.shape) < keep_prob)


@mutant("lab09.1", "rescaled by drop_prob instead of keep_prob")
def _do_drop_scale(X, keep_prob, rng):
    return X * (rng.random(X.shape) < keep_prob) / (1 - keep_prob)


@mutant("lab09.1", "keep_prob used as the drop probability")
def _do_swapped(X, keep_prob, rng):
    return X * (rng.random(X.shape) >= keep_prob) / keep_prob


@mutant("lab09.1", "multiplied by keep_prob instead of divided")
def _do_times(X, keep_prob, rng):
    return X * (rng.random(X.shape) < keep_prob) * keep_prob


# --- 9.2: batch normalization with running statistics ---------------------------------


def _bn_ref():
    def batch_norm_forward(
        X, gamma, beta, running_mean, running_var, training, momentum=0.1, eps=1e-5
    ):
        if not training:
            Y = (X - running_mean) / np.sqrt(running_var + eps)
            return gamma * Y + beta, running_mean, running_var
        axes = tuple(range(X.ndim - 1))
        n = X.size // X.shape[-1]
        mu, var = X.mean(axis=axes), X.var(axis=axes)
        Y = gamma * (X - mu) / np.sqrt(var + eps) + beta
        new_mean = (1 - momentum) * running_mean + momentum * mu
        new_var = (1 - momentum) * running_var + momentum * var * n / (n - 1)
        return Y, new_mean, new_var

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


@mutant("lab09.2", "unbiased variance used to normalize")
def _bn_unbiased(
    X, gamma, beta, running_mean, running_var, training, momentum=0.1, eps=1e-5
):
    if not training:
        return (
            gamma * (X - running_mean) / np.sqrt(running_var + eps) + beta,
            running_mean,
            running_var,
        )
    axes = tuple(range(X.ndim - 1))
    mu, var = X.mean(axis=axes), X.var(axis=axes, ddof=1)
    Y = gamma * (X - mu) / np.sqrt(var + eps) + beta
    return (
        Y,
        (1 - momentum) * running_mean + momentum * mu,
        (1 - momentum) * running_var + momentum * var,
    )


@mutant("lab09.2", "biased variance in the running average")
def _bn_biased_running(
    X, gamma, beta, running_mean, running_var, training, momentum=0.1, eps=1e-5
):
    if not training:
        return (
            gamma * (X - running_mean) / np.sqrt(running_var + eps) + beta,
            running_mean,
            running_var,
        )
    axes = tuple(range(X.ndim - 1))
    mu, var = X.mean(axis=axes), X.var(axis=axes)
    Y = gamma * (X - mu) / np.sqrt(var + eps) + beta
    return (
        Y,
        (1 - momentum) * running_mean + momentum * mu,
        (1 - momentum) * running_var + momentum * var,
    )


@mutant("lab09.2", "running average with the rate swapped (0.1 on the old value)")
def _bn_rate_swapped(
    X, gamma, beta, running_mean, running_var, training, momentum=0.1, eps=1e-5
):
    if not training:
        return (
            gamma * (X - running_mean) / np.sqrt(running_var + eps) + beta,
            running_mean,
            running_var,
        )
    axes = tuple(range(X.ndim - 1))
    n = X.size // X.shape[-1]
    mu, var = X.mean(axis=axes), X.var(axis=axes)
    Y = gamma * (X - mu) / np.sqrt(var + eps) + beta
    return (
        Y,
        momentum * running_mean + (1 - momentum) * mu,
        momentum * running_var + (1 - momentum) * var * n / (n - 1),
    )


@mutant("lab09.2", "batch statistics at inference too")
def _bn_eval_batch(
    X, gamma, beta, running_mean, running_var, training, momentum=0.1, eps=1e-5
):
    axes = tuple(range(X.ndim - 1))
    n = X.size // X.shape[-1]
    mu, var = X.mean(axis=axes), X.var(axis=axes)
    Y = gamma * (X - mu) / np.sqrt(var + eps) + beta
    if not training:
        return Y, running_mean, running_var
    return (
        Y,
        (1 - momentum) * running_mean + momentum * mu,
        (1 - momentum) * running_var + momentum * var * n / (n - 1),
    )


@mutant("lab09.2", "statistics over the first axis only (wrong for images)")
def _bn_axis0(
    X, gamma, beta, running_mean, running_var, training, momentum=0.1, eps=1e-5
):
    if not training:
        return (
            gamma * (X - running_mean) / np.sqrt(running_var + eps) + beta,
            running_mean,
            running_var,
        )
    n = X.shape[0]
    mu, var = X.mean(axis=0), X.var(axis=0)
    Y = gamma * (X - mu) / np.sqrt(var + eps) + beta
    return (
        Y,
        (1 - momentum) * running_mean + momentum * mu,
        (1 - momentum) * running_var + momentum * var * n / (n - 1),
    )


# --- 9.3: the original residual block -------------------------------------------------


def _res_ref():
    def residual_block(x, conv1, bn1, conv2, bn2):
        import torch

        h = torch.relu(bn1(conv1(x)))
        return torch.relu(bn2(conv2(h)) + x)

    return residual_block


def _res_case(c: int, training: bool, seed: int):
    """Seeded layers (conv1, bn1, conv2, bn2) in float64, in the given mode, with
    non-trivial batch-norm parameters and running statistics, and an input x."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    layers = [
        nn.Conv2d(c, c, 3, padding=1, bias=False),
        nn.BatchNorm2d(c),
        nn.Conv2d(c, c, 3, padding=1, bias=False),
        nn.BatchNorm2d(c),
    ]
    for bn in layers[1::2]:
        with torch.no_grad():
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.normal_()
            bn.running_mean.normal_()
            bn.running_var.uniform_(0.5, 2)
    for m in layers:
        m.double().train(training)
    x = torch.randn(3, c, 6, 6, dtype=torch.float64)
    return x, layers


def _res_expected(c: int, training: bool, seed: int) -> np.ndarray:
    """The block's output on :func:`_res_case`'s input, from fresh copies of its
    layers: ReLU(BN(Conv(ReLU(BN(Conv(x))))) + x)."""
    import torch

    x, (conv1, bn1, conv2, bn2) = _res_case(c, training, seed)
    with torch.no_grad():
        h = torch.relu(bn1(conv1(x)))
        return torch.relu(bn2(conv2(h)) + x).numpy()


@register(
    "lab09.3", name="residual_block", exercise="9.3", points=2, reference=_res_ref
)
def check_residual_block(residual_block: Callable) -> tuple[bool, str]:
    """residual_block(x, conv1, bn1, conv2, bn2) ->
    ReLU(BN(Conv(ReLU(BN(Conv(x))))) + x) (He et al., with the ReLU after the sum),
    in training and in eval mode."""
    import torch

    def case(c, training, seed):
        def run():
            x, layers = _res_case(c, training, seed)
            with torch.no_grad():
                got = residual_block(x.clone(), *layers)
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


@mutant("lab09.3", "skip added after the final ReLU")
def _res_after_relu(x, conv1, bn1, conv2, bn2):
    import torch

    return torch.relu(bn2(conv2(torch.relu(bn1(conv1(x)))))) + x


@mutant("lab09.3", "no skip connection")
def _res_no_skip(x, conv1, bn1, conv2, bn2):
    import torch

    return torch.relu(bn2(conv2(torch.relu(bn1(conv1(x))))))


@mutant("lab09.3", "skip added before the second batch norm")
def _res_before_bn(x, conv1, bn1, conv2, bn2):
    import torch

    return torch.relu(bn2(conv2(torch.relu(bn1(conv1(x)))) + x))


@mutant("lab09.3", "no ReLU after the sum (the book's formula)")
def _res_no_post_relu(x, conv1, bn1, conv2, bn2):
    import torch

    return bn2(conv2(torch.relu(bn1(conv1(x))))) + x


# --- 9.4: random shifts ---------------------------------------------------------------


def _shift_ref():
    def random_shift(X, rng):
        b, h, w, c = X.shape
        out = np.zeros_like(X)
        for i, (dy, dx) in enumerate(rng.integers(-1, 2, size=(b, 2))):
            padded = np.pad(X[i], ((1, 1), (1, 1), (0, 0)))
            out[i] = padded[1 - dy : 1 - dy + h, 1 - dx : 1 - dx + w]
        return out

    return random_shift


def _shifted(img, dy, dx):
    h, w = img.shape[:2]
    padded = np.pad(img, ((1, 1), (1, 1), (0, 0)))
    return padded[1 - dy : 1 - dy + h, 1 - dx : 1 - dx + w]


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


def _ft_ref():
    def prepare_finetuning(model, n_classes):
        from torch import nn

        for p in model.parameters():
            p.requires_grad_(False)
        model[-1] = nn.Linear(model[-1].in_features, n_classes)
        return model

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
    from torch import nn

    model[-1] = nn.Linear(model[-1].in_features, n_classes)
    return model


@mutant("lab09.5", "head frozen too (frozen after replacing it)")
def _ft_all_frozen(model, n_classes):
    from torch import nn

    model[-1] = nn.Linear(model[-1].in_features, n_classes)
    for p in model.parameters():
        p.requires_grad_(False)
    return model


@mutant("lab09.5", "head not replaced (a new layer appended after it)")
def _ft_appended(model, n_classes):
    from torch import nn

    for p in model.parameters():
        p.requires_grad_(False)
    return nn.Sequential(*model, nn.Linear(model[-1].out_features, n_classes))
