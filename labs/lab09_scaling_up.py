# %% [markdown]
# # Lab 9 — Scaling up a CNN: dropout, batch norm, residuals, augmentation, fine-tuning
#
# [▶ Open the student version in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/labs/student/lab09_scaling_up.ipynb)
#
# *Accompanies "From theory to practice" at the end of Chapter 9 of* Alice's Adventures
# in a differentiable wonderland *by Simone Scardapane (book lines 5029–5051). The
# exercises follow the book's suggestions; the text and code here are the companion's
# (text CC BY-SA 4.0, code MIT).*
#
# The book suggests adding dropout, batch normalization and residual connections to a
# CNN, training it with augmentation, and fine-tuning a pretrained model. Offline, the
# data are scikit-learn's 8×8 digits and the "pretrained model" is one we pretrain
# ourselves on the digits 0–4 before fine-tuning it on 5–9 (nothing is downloaded).
#
# | Exercise | What you write | It becomes |
# |---|---|---|
# | 9.1 | `inverted_dropout(X, keep_prob, rng)` | the regularizer, checked against its statistics |
# | 9.2 | `batch_norm_forward(X, gamma, beta, running_mean, running_var, training)` | batch norm as PyTorch computes it |
# | 9.3 | `residual_block(x, conv1, bn1, conv2, bn2)` | the blocks of our small ResNet |
# | 9.4 | `random_shift(X, rng)` | the augmentation of the training batches |
# | 9.5 | `prepare_finetuning(model, n_classes)` | transfer from digits 0–4 to 5–9 |
#
# Replace each `raise NotImplementedError(...)` with your code. The cell after each
# exercise runs a check that prints ✓ or ✗ with the points earned and what differed.
# Images are **channels last** in NumPy, as in the book, `(b, h, w, c)`; PyTorch's
# layers want `(b, c, h, w)`, and the lab converts where needed.

# %%
# Installs alice_lab 0.1.0, this notebook's release, when it
# is missing (e.g. on Colab); does nothing where it is installed.
try:
    import alice_lab
except ImportError:
    import subprocess
    import sys

    REPOSITORY = "https://github.com/alice-companion/alice-companion"
    PACKAGE = f"alice_lab[torch] @ git+{REPOSITORY}@v0.1.0"
    print(f"installing {PACKAGE} ...")
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", PACKAGE])
    import alice_lab
print("alice_lab", alice_lab.__version__)

# %%
import numpy as np
import torch
from torch import nn

from alice_course import grading
from alice_course.grading import attempted
from alice_lab.backend import is_fast
from alice_lab.data import load_digits

FAST = is_fast()  # ALICE_FAST=1 (set by the tests) trains for fewer epochs
torch.manual_seed(0)
torch.set_num_threads(1)


X_all, y_all = load_digits()
X_all = (X_all / 16.0).reshape(-1, 8, 8, 1)  # (n, h, w, c), channels last
print("digits:", X_all.shape, "labels 0-9:", np.bincount(y_all))

# %% [markdown]
# ## Exercise 9.1 — Inverted dropout
#
# The book's dropout keeps each unit with probability $p$ (`keep_prob`) and, in its
# *inverted* form, divides the kept units by $p$ during training, so that
# $\mathbb{E}[\text{Dropout}(\mathbf{X})] = \mathbf{X}$ and inference needs nothing.
# Draw the mask with `rng.random(X.shape) < keep_prob` (`rng` is a NumPy generator).
# Careful: `torch.nn.Dropout(p)` takes the **drop** probability $1 - p$.


# %%
def inverted_dropout(X, keep_prob, rng):
    """X (n, ...) NumPy; keep each entry with probability keep_prob, rescale by 1/keep_prob."""
    ### BEGIN SOLUTION
    M = rng.random(X.shape) < keep_prob
    return X * M / keep_prob
    ### END SOLUTION


# %%
grading.check("lab09.1", inverted_dropout)

# %%
if attempted(inverted_dropout, np.ones((2, 2)), 0.5, np.random.default_rng(0)):
    Y = inverted_dropout(np.ones((1000, 100)), 0.7, np.random.default_rng(1))
    print(f"kept {np.mean(Y != 0):.3f} of the units, mean {Y.mean():.3f} (expected 1)")

# %% [markdown]
# ## Exercise 9.2 — Batch normalization with running statistics
#
# For `X (b, ..., c)` (a table or channels-last images) the statistics run over every
# axis but the last. In **training** mode normalise with the batch mean and the
# *biased* variance (divide by the number of values, E.9.9), then apply
# `gamma * X' + beta`, and update the running averages PyTorch's way,
# `new = (1 - momentum) * old + momentum * batch`, where the running variance gets
# the *unbiased* batch variance (times $n/(n-1)$, $n$ values per channel). In
# **inference** mode use the running statistics and leave them unchanged. Return
# `(Y, new_running_mean, new_running_var)`. The check compares with
# `torch.nn.functional.batch_norm`.


# %%
def batch_norm_forward(X, gamma, beta, running_mean, running_var, training,
                       momentum=0.1, eps=1e-5):  # fmt: skip
    """X (b, ..., c); gamma, beta, running_mean, running_var (c,)."""
    ### BEGIN SOLUTION
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
    ### END SOLUTION


# %%
grading.check("lab09.2", batch_norm_forward)

# %% [markdown]
# ## Exercise 9.3 — The residual block
#
# The original ResNet block puts two convolutions on the residual path and adds the
# input back **before** the last ReLU:
# $$h = \text{ReLU}\big(\text{BN}(\text{Conv}(\text{ReLU}(\text{BN}(\text{Conv}(x))))) + x\big).$$
# (The book's formula stops at the sum; He et al. apply the ReLU after it.) The layers
# are given as PyTorch modules working on `(b, c, h, w)` tensors.


# %%
def residual_block(x, conv1, bn1, conv2, bn2):
    """x (b, c, h, w) tensor; conv1, bn1, conv2, bn2 torch modules keeping the shape."""
    ### BEGIN SOLUTION
    h = torch.relu(bn1(conv1(x)))
    return torch.relu(bn2(conv2(h)) + x)
    ### END SOLUTION


# %%
grading.check("lab09.3", residual_block)

# %% [markdown]
# Our network: a stem (3×3 convolution to 16 channels, batch norm, ReLU), two residual
# blocks that call your `residual_block`, global average pooling, dropout and a linear
# head. It is an `nn.Sequential`, so its head is `model[-1]`.


# %%
class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        return residual_block(x, self.conv1, self.bn1, self.conv2, self.bn2)


def make_resnet(n_classes, *, width=16, keep_prob=0.8):
    return nn.Sequential(
        nn.Conv2d(1, width, 3, padding=1, bias=False),
        nn.BatchNorm2d(width),
        nn.ReLU(),
        ResBlock(width),
        ResBlock(width),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(1 - keep_prob),  # torch's argument is the drop probability
        nn.Linear(width, n_classes),
    )


model_demo = make_resnet(10)
print(f"{sum(p.numel() for p in model_demo.parameters()):,} parameters")

# %% [markdown]
# ## Exercise 9.4 — Augmentation: random shifts
#
# Flips would turn digits into non-digits, but a shift by one pixel keeps them
# readable. Move **each** image of `X (b, h, w, c)` by its own `dy, dx` drawn from
# $\{-1, 0, 1\}$ with `rng.integers(-1, 2, ...)`, and fill the uncovered border with
# zeros (not a wrap-around `np.roll`). Hint: pad each image with one pixel of zeros
# (`np.pad`) and crop an $h \times w$ window.


# %%
def random_shift(X, rng):
    """X (b, h, w, c) NumPy -> the same shape, each image shifted by at most one pixel."""
    ### BEGIN SOLUTION
    b, h, w, c = X.shape
    out = np.zeros_like(X)
    for i, (dy, dx) in enumerate(rng.integers(-1, 2, size=(b, 2))):
        padded = np.pad(X[i], ((1, 1), (1, 1), (0, 0)))
        out[i] = padded[1 - dy : 1 - dy + h, 1 - dx : 1 - dx + w]
    return out
    ### END SOLUTION


# %%
grading.check("lab09.4", random_shift)

# %% [markdown]
# ## Pretraining on the digits 0–4
#
# We train the ResNet (with batch norm, dropout, your residual blocks and, once it
# works, your augmentation) on the digits 0–4, and keep a copy of its weights: that is
# our "pretrained model".


# %%
def to_torch(X):  # (b, h, w, c) NumPy -> (b, c, h, w) float32 tensor
    return torch.as_tensor(X, dtype=torch.float32).permute(0, 3, 1, 2)


def train(model, X, y, epochs, *, augment=None, lr=3e-3, seed=0, frozen_bn=False):
    rng = np.random.default_rng(seed)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=lr)
    for _ in range(epochs):
        model.train()
        if frozen_bn:  # keep the pretrained running statistics (buffers) as they are
            for m in model.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()
        for idx in np.array_split(rng.permutation(len(X)), max(1, len(X) // 32)):
            xb = X[idx] if augment is None else augment(X[idx], rng)
            opt.zero_grad()
            loss = nn.functional.cross_entropy(
                model(to_torch(xb)), torch.as_tensor(y[idx])
            )
            loss.backward()
            opt.step()
    return model


def accuracy(model, X, y):
    model.eval()
    with torch.no_grad():
        return float((model(to_torch(X)).argmax(1).numpy() == y).mean())


low, high = y_all < 5, y_all >= 5
X_low, y_low = X_all[low], y_all[low]
X_high, y_high = X_all[high], y_all[high] - 5
split = int(0.8 * len(X_low))
augment = (
    random_shift
    if attempted(random_shift, X_low[:2], np.random.default_rng(0))
    else None
)
pretrained = None
if attempted(residual_block, torch.zeros(1, 2, 3, 3), *ResBlock(2).children()):
    torch.manual_seed(0)
    pretrained = train(
        make_resnet(5), X_low[:split], y_low[:split], 2 if FAST else 6, augment=augment
    )
    print(
        f"pretrained on 0-4: held-out accuracy {accuracy(pretrained, X_low[split:], y_low[split:]):.3f}"
    )
    state = {k: v.clone() for k, v in pretrained.state_dict().items()}

# %% [markdown]
# ## Exercise 9.5 — Fine-tuning
#
# To reuse the pretrained network on the digits 5–9, **freeze** its parameters
# (`requires_grad_(False)`) and **replace** its head `model[-1]` with a fresh
# `nn.Linear` that has the same number of inputs and `n_classes` outputs (a new layer
# is trainable by default). Return the model. Only the head will then learn.


# %%
def prepare_finetuning(model, n_classes):
    """model: nn.Sequential whose last module is an nn.Linear head."""
    ### BEGIN SOLUTION
    for p in model.parameters():
        p.requires_grad_(False)
    model[-1] = nn.Linear(model[-1].in_features, n_classes)
    return model
    ### END SOLUTION


# %%
grading.check("lab09.5", prepare_finetuning)

# %% [markdown]
# With only 50 labelled images of each new digit: first train the new head alone on
# the frozen pretrained features (a "linear probe"), then unfreeze everything and
# fine-tune the whole network briefly at a lower learning rate. For comparison, the
# same network trained from scratch on those 250 images for as many epochs.

# %%
ok = pretrained is not None and attempted(
    prepare_finetuning, nn.Sequential(nn.Linear(2, 2)), 2
)
if ok:
    rng = np.random.default_rng(1)
    few = np.concatenate(
        [rng.choice(np.flatnonzero(y_high == k), 50, replace=False) for k in range(5)]
    )
    rest = np.setdiff1d(np.arange(len(X_high)), few)
    head_epochs, full_epochs = (3, 1) if FAST else (10, 5)
    torch.manual_seed(1)
    tuned = train(
        prepare_finetuning(pretrained, 5),
        X_high[few],
        y_high[few],
        head_epochs,
        augment=augment,
        lr=1e-2,
        frozen_bn=True,
    )
    frozen_same = all(
        torch.equal(v, state[k])
        for k, v in tuned.state_dict().items()
        if not k.startswith(str(len(tuned) - 1))
    )
    probe = accuracy(tuned, X_high[rest], y_high[rest])
    for p in tuned.parameters():
        p.requires_grad_(True)
    tuned = train(
        tuned, X_high[few], y_high[few], full_epochs, augment=augment, lr=3e-3
    )
    torch.manual_seed(1)
    scratch = train(
        make_resnet(5),
        X_high[few],
        y_high[few],
        head_epochs + full_epochs,
        augment=augment,
    )
    print(f"backbone unchanged while training the head: {frozen_same}")
    print(
        f"digits 5-9, 250 labels: head only {probe:.3f}, "
        f"then fine-tuned {accuracy(tuned, X_high[rest], y_high[rest]):.3f}, "
        f"from scratch {accuracy(scratch, X_high[rest], y_high[rest]):.3f}"
    )

# %% [markdown]
# A frozen backbone still holds batch-norm **buffers** (running mean and variance),
# which `model.train()` would keep updating even though no parameter moves; that is
# why `train(..., frozen_bn=True)` puts those layers in `eval()` mode while fine-tuning.
# Try `frozen_bn=False` and see `frozen_same` turn `False`. The head alone does not go
# far: features learned to tell 0–4 apart are not enough for 5–9. Unfreezing the whole
# network then starts from useful weights, and with the same budget it beats training
# from scratch (in the full run; with `ALICE_FAST` the runs are too short to tell).
#
# ## Your score

# %%
results = grading.report("lab09", globals())
