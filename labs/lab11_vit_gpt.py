# %% [markdown]
# # Lab 11 — A Vision Transformer, a Mixer and a small GPT
#
# [▶ Open the student version in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/labs/student/lab11_vit_gpt.ipynb)
#
# *Accompanies "From theory to practice" at the end of Chapter 11 of* Alice's Adventures
# in a differentiable wonderland *by Simone Scardapane (book lines 5921–5941). The
# exercises follow the book's suggestions; the text and code here are the companion's
# (text CC BY-SA 4.0, code MIT).*
#
# The book suggests implementing a Vision Transformer, trying the simpler Mixer, and
# building a small GPT-like model. You write the four pieces that are easy to get
# subtly wrong, then train the models built on them:
#
# | Exercise | What you write | It becomes |
# |---|---|---|
# | 11.1 | `patchify(x, p)`: images (b, h, w, c) to patch tokens (b, n, p·p·c) | the ViT's and the Mixer's tokenizer |
# | 11.2 | `causal_attention(Q, K, V)`: masked scaled dot-product attention | the GPT's attention |
# | 11.3 | `mixer_block(H, token_mlp, channel_mlp)`: one Mixer block | the Mixer |
# | 11.4 | `cached_attention_step(q, k, v, cache)`: one decoding step with a KV cache | fast generation |
#
# Replace each `raise NotImplementedError(...)` with NumPy code. The cell after each
# exercise runs a check that prints ✓ or ✗ with the points and, when something is
# wrong, what differed. Tokens are rows: a sequence is (n, e), an image batch is
# (b, h, w, c) with channels last.

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
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn.functional as F

import alice_lab.transformer as T
from alice_course import grading
from alice_course.grading import attempted
from alice_lab.backend import is_fast
from alice_lab.data import load_digits

FAST = is_fast()  # ALICE_FAST=1 (set by the tests) trains for fewer steps
rng = np.random.default_rng(0)
torch.manual_seed(0)
torch.set_num_threads(1)


# %% [markdown]
# ## Exercise 11.1 — Patch tokens
#
# Cut each image into non-overlapping $p \times p$ patches and flatten every patch into
# a token of $p \cdot p \cdot c$ numbers. The order matters, because positional
# embeddings and the Mixer's token MLP are tied to it: patches go **row by row** (left
# to right, then top to bottom), and inside a patch the features go in the order
# (row in the patch, column in the patch, channel) — the einops pattern
# `'b (h ph) (w pw) c -> b (h w) (ph pw c)'`. A single `reshape` is not enough: it
# would cut horizontal strips. Reshape to (b, h/p, p, w/p, p, c), move the axes, then
# reshape again.


# %%
def patchify(x, p):
    """x (b, h, w, c), p divides h and w -> (b, (h/p)(w/p), p*p*c)."""
    ### BEGIN SOLUTION
    b, h, w, c = x.shape
    x = x.reshape(b, h // p, p, w // p, p, c).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(b, (h // p) * (w // p), p * p * c)
    ### END SOLUTION


# %%
grading.check("lab11.1", patchify)

# %% [markdown]
# The digits are 8×8 grey images: 2×2 patches give 16 tokens of 4 pixels, 4×4 patches
# give 4 tokens of 16.

# %%
X_all, y_all = load_digits()
images = (X_all / 16.0).reshape(-1, 8, 8, 1)
if attempted(patchify, images[:1], 2):
    fig, axes = plt.subplots(1, 3, figsize=(9, 3))
    axes[0].imshow(images[0, :, :, 0], cmap="gray_r")
    axes[0].set_title(f"digit {y_all[0]}")
    for ax, p in zip(axes[1:], (2, 4), strict=True):
        tok = patchify(images[:1], p)[0]
        ax.imshow(tok, cmap="gray_r", aspect="auto")
        ax.set(
            title=f"p={p}: {tok.shape[0]} tokens × {tok.shape[1]}",
            xlabel="feature",
            ylabel="token",
        )
    plt.tight_layout()
    plt.show()

# %% [markdown]
# ## Exercise 11.2 — Causal attention
#
# $\text{softmax}(\mathbf{Q}\mathbf{K}^\top/\sqrt{d} + \mathbf{M})\mathbf{V}$ with
# $M_{ij} = -\infty$ when $j > i$ and 0 otherwise. Three things to get right: the mask
# is added *before* the softmax (masking the weights afterwards leaks the future through
# the denominator), the scores are divided by $\sqrt{d}$, and each **row** (one query,
# all keys) is normalised. Subtract the row maximum before exponentiating: the check
# uses scores in the hundreds.


# %%
def causal_attention(Q, K, V):
    """Q, K (n, d), V (n, v) -> (n, v); query i sees keys j <= i."""
    ### BEGIN SOLUTION
    n, d = Q.shape
    S = Q @ K.T / np.sqrt(d)
    S = np.where(np.tri(n, dtype=bool), S, -np.inf)
    S = S - S.max(axis=1, keepdims=True)
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True) @ V
    ### END SOLUTION


# %%
grading.check("lab11.2", causal_attention)

# %% [markdown]
# ## Exercise 11.3 — The Mixer block
#
# Ignoring normalisation (as the book does), a Mixer block first mixes channels, then
# tokens, each with a residual:
#
# $$\mathbf{H} \leftarrow \text{MLP}_c(\mathbf{H}) + \mathbf{H}, \qquad
# \mathbf{H} \leftarrow \left[\text{MLP}_t(\mathbf{H}^\top) + \mathbf{H}^\top\right]^\top,$$
#
# where $\text{MLP}(\mathbf{A}) = \text{GELU}(\mathbf{A}\mathbf{W}_1)\mathbf{W}_2$ (no
# biases). `token_mlp` has `W1 (n, p)`, `W2 (p, n)`; `channel_mlp` has `W1 (e, q)`,
# `W2 (q, e)`. Use the exact GELU, `gelu` below.

# %%
from scipy.special import erf


def gelu(x):
    return 0.5 * x * (1 + erf(x / np.sqrt(2)))


def mixer_block(H, token_mlp, channel_mlp):
    """H (n, e) -> (n, e)."""

    ### BEGIN SOLUTION
    def mlp(A, p):
        return gelu(A @ p["W1"]) @ p["W2"]

    H = mlp(H, channel_mlp) + H
    return (mlp(H.T, token_mlp) + H.T).T
    ### END SOLUTION


# %%
grading.check("lab11.3", mixer_block)

# %% [markdown]
# ## A ViT and a Mixer on the digits
#
# `alice_lab.transformer.ViT` and `Mixer` tokenise with the same patches as your
# `patchify` (we check that first), then stack blocks: the ViT adds learned positions
# and a class token and uses attention; the Mixer uses your two MLPs with layer norms.
# Both are trained with AdamW for a few epochs. Small data is not where ViTs shine (the
# book warns of "some disappointment"), but both beat chance by far.

# %%
X_t = torch.as_tensor(images, dtype=torch.float32)
y_t = torch.as_tensor(y_all)
perm = torch.randperm(len(X_t), generator=torch.Generator().manual_seed(0))
train_idx, test_idx = perm[: 600 if FAST else 1400], perm[1400:]


def fit(model, epochs):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for _ in range(epochs):
        model.train()
        for idx in torch.split(train_idx[torch.randperm(len(train_idx))], 32):
            loss = F.cross_entropy(model(X_t[idx]), y_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        return (model(X_t[test_idx]).argmax(1) == y_t[test_idx]).float().mean().item()


if attempted(patchify, images[:1], 2):
    same = np.array_equal(patchify(images[:5], 2), T.patchify(images[:5], 2))
    print("your patchify = the models' tokenizer:", same)
    epochs = 6 if FAST else 20
    torch.manual_seed(0)
    acc_vit = fit(T.ViT(8, 2, 1, 10, e=32, heads=4, depth=2), epochs)
    torch.manual_seed(0)
    acc_mixer = fit(T.Mixer(8, 2, 1, 10, e=32, depth=2), epochs)
    print(
        f"test accuracy after {epochs} epochs: ViT {acc_vit:.3f}, Mixer {acc_mixer:.3f}"
    )

# %% [markdown]
# ## Exercise 11.4 — One decoding step with a KV cache
#
# When a GPT generates, step $t$ brings one new token with its query $\mathbf{q}$, key
# $\mathbf{k}$ and value $\mathbf{v}$. Append $\mathbf{k}$ and $\mathbf{v}$ to the cache
# (`cache["K"]` of shape (t, d) and `cache["V"]` of shape (t, dv); the dict starts
# empty), then attend with $\mathbf{q}$ over **all** cached keys, the new one included:
# $\text{softmax}(\mathbf{K}\mathbf{q}/\sqrt{d})^\top\mathbf{V}$. Run step by step over
# a sequence, this must give exactly the rows of causal attention.


# %%
def cached_attention_step(q, k, v, cache):
    """q, k (d,), v (dv,), cache dict -> (dv,); appends k, v to cache["K"], cache["V"]."""
    ### BEGIN SOLUTION
    cache["K"] = k[None] if "K" not in cache else np.concatenate([cache["K"], k[None]])
    cache["V"] = v[None] if "V" not in cache else np.concatenate([cache["V"], v[None]])
    s = cache["K"] @ q / np.sqrt(len(q))
    w = np.exp(s - s.max())
    return (w / w.sum()) @ cache["V"]
    ### END SOLUTION


# %%
grading.check("lab11.4", cached_attention_step)

# %% [markdown]
# ## A small GPT
#
# `alice_lab.transformer.GPT` is a decoder-only character model: embeddings, learned
# positions, pre-norm causal blocks. We train it on the Python documentation bundled
# with Python, then generate with and without the KV cache: the two give the same
# characters, and your `causal_attention` and `cached_attention_step` agree with each
# other on the model's own queries, keys and values.

# %%
from alice_lab.text import CharTokenizer, pydoc_corpus

text = pydoc_corpus(40_000 if FAST else 400_000)
tok = CharTokenizer(text)
ids = tok.encode(text)
res = T.train_gpt(
    ids,
    tok.vocab_size,
    steps=25 if FAST else 300,
    batch=16 if FAST else 32,
    context=32 if FAST else 64,
    e=32 if FAST else 64,
    depth=2,
)
print(
    f"loss {res.losses[0]:.2f} -> {res.losses[-1]:.2f}; unigram entropy {res.unigram_entropy:.2f}"
)
gpt = res.model
prompt = tok.encode("The ")
a = T.gpt_generate(gpt, prompt, 40, temperature=0.8, top_k=10, rng=0, use_cache=True)
b = T.gpt_generate(gpt, prompt, 40, temperature=0.8, top_k=10, rng=0, use_cache=False)
print(repr(tok.decode(a)))
print("KV cache = recomputation:", a == b)

# %%
if attempted(
    causal_attention, np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2))
) and attempted(cached_attention_step, np.ones(2), np.ones(2), np.ones(2), {}):
    attn = gpt.blocks[0].attn
    with torch.no_grad():
        x = gpt.embed(torch.tensor([prompt + a[4:12]]))
        h = gpt.blocks[0].ln1(x)
        q, k, v = (
            m(h)[0, :, :8].double().numpy()
            for m in (attn.q_proj, attn.k_proj, attn.v_proj)
        )  # head 0
    full = causal_attention(q, k, v)
    cache = {}
    steps = np.stack(
        [cached_attention_step(q[i], k[i], v[i], cache) for i in range(len(q))]
    )
    print(
        "head 0 of the trained GPT: max |full − cached| =", np.abs(full - steps).max()
    )

# %% [markdown]
# ## Your score

# %%
results = grading.report("lab11", globals())
