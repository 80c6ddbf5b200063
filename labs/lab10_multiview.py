# %% [markdown]
# # Lab 10 — A multi-view model with a transformer block
#
# [▶ Open the student version in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/labs/student/lab10_multiview.ipynb)
#
# *Accompanies "From theory to practice" at the end of Chapter 10 of* Alice's Adventures
# in a differentiable wonderland *by Simone Scardapane (book lines 5566–5602). The
# exercise is the book's; the text and code here are the companion's (text CC BY-SA
# 4.0, code MIT).*
#
# The book proposes an unusual model: each input is a **set of views** of the same image
# (think of several snapshots of one object), a convolutional backbone embeds each view,
# one transformer block lets the views exchange information, and the mean over the views
# feeds a classifier. The prediction must not depend on the order of the views, and the
# number of views may change from batch to batch. You build it in PyTorch from its
# parts and compare it with the simplest invariant model, the average over views.
#
# | Exercise | What you write | It becomes |
# |---|---|---|
# | 10.1 | `attention(Q, K, V, mask=None)`: scaled dot-product attention | the core of MHA |
# | 10.2 | `causal_mask(n)`: the additive causal mask | masked attention |
# | 10.3 | `mha(x, params, heads, causal=False)`: multi-head attention from weights | checked against `nn.MultiheadAttention` |
# | 10.4 | `MultiViewModel`: backbone + transformer block + mean + head | trained on digit views |
#
# Replace each `raise NotImplementedError(...)` with your code. The cell after each
# exercise runs a check that prints ✓ or ✗ with the points earned and, when something
# is wrong, what differed.

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
import math

import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn

from alice_course import grading
from alice_course.grading import attempted
from alice_lab.backend import is_fast
from alice_lab.data import load_digits

FAST = is_fast()  # ALICE_FAST=1 (set by the tests) trains for fewer epochs
torch.manual_seed(0)
torch.set_num_threads(2)
rng = np.random.default_rng(0)


# %% [markdown]
# ## Exercise 10.1 — Scaled dot-product attention
#
# For queries $\mathbf{Q} \sim (b, n, d)$, keys $\mathbf{K} \sim (b, m, d)$ and values
# $\mathbf{V} \sim (b, m, d_v)$ compute
# $\mathrm{softmax}(\mathbf{Q}\mathbf{K}^\top/\sqrt{d})\mathbf{V}$, with the softmax
# over the **keys** (each query's weights sum to 1). A boolean `mask` of shape
# $(n, m)$, when given, is True where query $i$ may look at key $j$: set the other
# scores to $-\infty$ **before** the softmax (`masked_fill`), so that their weights are
# exactly 0 and the others still sum to 1.


# %%
def attention(Q, K, V, mask=None):
    """Q (b, n, d), K (b, m, d), V (b, m, dv), mask (n, m) bool -> (b, n, dv)."""
    ### BEGIN SOLUTION
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        S = S.masked_fill(~mask, float("-inf"))
    return torch.softmax(S, dim=-1) @ V
    ### END SOLUTION


# %%
grading.check("lab10.1", attention)

# %% [markdown]
# ## Exercise 10.2 — The causal mask
#
# A causal model must not let token $i$ see the tokens after it. Write the mask as a
# float $(n, n)$ tensor to **add** to the scores: 0 where $j \le i$ and $-\infty$ where
# $j > i$ (above the diagonal). (The book prints it as a product with $-\infty$ *below*
# the diagonal; both the product and the triangle are wrong — see the Chapter 10
# notebook.)


# %%
def causal_mask(n):
    """(n, n) float tensor: 0 on and below the diagonal, -inf above it."""
    ### BEGIN SOLUTION
    return torch.full((n, n), float("-inf")).triu(1)
    ### END SOLUTION


# %%
grading.check("lab10.2", causal_mask)

# %%
if attempted(causal_mask, 3):
    S_demo = torch.randn(5, 5) + causal_mask(5)
    print(torch.softmax(S_demo, dim=-1).numpy().round(2))

# %% [markdown]
# ## Exercise 10.3 — Multi-head attention
#
# `params` holds `Wq`, `Wk`, `Wv` of shape $(e, h k)$ and `Wo` of shape $(h k, e)$, used
# as `x @ W` (tokens are rows, as in the book). Project, split the last axis into `heads`
# heads of size $k = e/h$ — the result must be $(b, h, n, k)$: reshape to
# $(b, n, h, k)$ **then** transpose — attend within each head (scale by $1/\sqrt{k}$,
# mask with your causal mask when `causal=True`), concatenate the heads back to
# $(b, n, hk)$ and multiply by `Wo`. The check copies the weights of a
# `torch.nn.MultiheadAttention` into `params` and compares.


# %%
def mha(x, params, heads, causal=False):
    """x (b, n, e) -> (b, n, e)."""
    ### BEGIN SOLUTION
    b, n, e = x.shape

    def split(t):
        return t.view(b, n, heads, -1).transpose(1, 2)

    Q, K, V = (split(x @ params[w]) for w in ("Wq", "Wk", "Wv"))
    mask = torch.ones(n, n, dtype=torch.bool).tril() if causal else None
    H = attention(Q, K, V, mask=mask)
    return H.transpose(1, 2).reshape(b, n, -1) @ params["Wo"]
    ### END SOLUTION


# %%
grading.check("lab10.3", mha)

# %% [markdown]
# ## The data: views of a digit
#
# Each 8×8 digit becomes $v$ views: a random 5×5 window of the image is kept and the
# rest is blanked, so each view sees part of the digit and only the set of views sees
# all of it. The tensor for one example is $(v, h, w, c) = (v, 8, 8, 1)$, with one label.

# %%
X_img, y_all = load_digits()
X_img = (X_img / 16.0).reshape(-1, 8, 8).astype(np.float32)


def make_views(images, v, rng, size=5):
    """images (b, 8, 8) -> views (b, v, 8, 8, 1): random size×size windows."""
    b = len(images)
    out = np.zeros((b, v, 8, 8, 1), dtype=np.float32)
    r0 = rng.integers(0, 9 - size, size=(b, v))
    c0 = rng.integers(0, 9 - size, size=(b, v))
    for i in range(b):
        for j in range(v):
            a, c = r0[i, j], c0[i, j]
            out[i, j, a : a + size, c : c + size, 0] = images[
                i, a : a + size, c : c + size
            ]
    return out


demo = make_views(X_img[:1], 4, np.random.default_rng(1))
fig, axes = plt.subplots(1, 5, figsize=(8, 1.8))
axes[0].imshow(X_img[0], cmap="gray_r")
axes[0].set_title(f"digit {y_all[0]}")
for j in range(4):
    axes[j + 1].imshow(demo[0, j, :, :, 0], cmap="gray_r")
    axes[j + 1].set_title(f"view {j + 1}")
for ax in axes:
    ax.set(xticks=[], yticks=[])
plt.show()

# %% [markdown]
# ## Exercise 10.4 — The multi-view model
#
# Write an `nn.Module` `MultiViewModel(e=32, heads=4, n_classes=10)` whose `forward`
# maps views $(b, v, 8, 8, 1)$ to logits $(b, 10)$:
#
# 1. fold the views into the batch, $(b v, 1, 8, 8)$ (PyTorch wants channels first),
#    and apply a small convolutional backbone that ends with an embedding of size $e$;
# 2. unfold to $\mathbf{H} \sim (b, v, e)$ and apply **one transformer block** over the
#    views (you may use `alice_lab.transformer.TransformerBlock(e, heads)` or build one
#    from your `mha`: pre-norm, residuals, a token-wise MLP);
# 3. average over the **views** and apply a linear head.
#
# No positional embedding over the views: the model must give the same logits for any
# order of the views, and must accept any $v$.

# %%
from alice_lab.transformer import TransformerBlock  # noqa: E402


class MultiViewModel(nn.Module):
    def __init__(self, e=32, heads=4, n_classes=10):
        super().__init__()
        ### BEGIN SOLUTION
        self.backbone = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(2),
            nn.Flatten(),
            nn.Linear(64, e),
        )
        self.block = TransformerBlock(e, heads)
        self.head = nn.Linear(e, n_classes)
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        b, v, h, w, c = x.shape
        z = self.backbone(x.reshape(b * v, h, w, c).permute(0, 3, 1, 2))
        H = self.block(z.reshape(b, v, -1))
        return self.head(H.mean(dim=1))
        ### END SOLUTION


# %%
grading.check("lab10.4", MultiViewModel)

# %% [markdown]
# ## Training, against the averaging baseline
#
# The baseline removes the transformer block: backbone, mean over views, head. It is
# permutation invariant too (the mean is), but the views cannot exchange information
# before they are pooled. Both models are trained the same way, with a random number of
# views per mini-batch (2 to 5) and 4 views at test time.


# %%
class AveragingBaseline(nn.Module):
    def __init__(self, e=32, n_classes=10):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(2),
            nn.Flatten(),
            nn.Linear(64, e),
        )
        self.head = nn.Linear(e, n_classes)

    def forward(self, x):
        b, v, h, w, c = x.shape
        z = self.backbone(x.reshape(b * v, h, w, c).permute(0, 3, 1, 2))
        return self.head(z.reshape(b, v, -1).mean(dim=1))


n_train = 800 if FAST else 1400
EPOCHS = 3 if FAST else 20
X_tr, y_tr = X_img[:n_train], y_all[:n_train]
X_te, y_te = X_img[1400:], y_all[1400:]
test_views = torch.from_numpy(make_views(X_te, 4, np.random.default_rng(123)))


def train(model, epochs=EPOCHS, seed=0):
    torch.manual_seed(seed)
    r = np.random.default_rng(seed)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(epochs):
        order = r.permutation(len(X_tr))
        for start in range(0, len(order), 64):
            idx = order[start : start + 64]
            views = torch.from_numpy(make_views(X_tr[idx], int(r.integers(2, 6)), r))
            loss = nn.functional.cross_entropy(
                model(views), torch.from_numpy(y_tr[idx])
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        return float((model(test_views).argmax(1).numpy() == y_te).mean())


if attempted(MultiViewModel):
    torch.manual_seed(0)
    acc_mv = train(MultiViewModel())
    torch.manual_seed(0)
    acc_avg = train(AveragingBaseline())
    print(
        f"test accuracy with 4 views: multi-view transformer {acc_mv:.3f}, "
        f"averaging baseline {acc_avg:.3f}"
    )

# %% [markdown]
# Finally, the invariance in action: reorder the test views and compare the logits.

# %%
if attempted(MultiViewModel):
    torch.manual_seed(0)
    m = MultiViewModel().eval()
    with torch.no_grad():
        gap = (m(test_views[:, [3, 1, 0, 2]]) - m(test_views)).abs().max().item()
    print(f"largest change of the logits after reordering the views: {gap:.1e}")

# %% [markdown]
# ## Your score

# %%
results = grading.report("lab10", globals())
