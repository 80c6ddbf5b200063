# %% [markdown]
# # Lab 8 — A 1-D CNN that reads text
#
# [▶ Open the student version in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/labs/student/lab08_text_cnn.ipynb)
#
# *Accompanies "From theory to practice" at the end of Chapter 8 of* Alice's Adventures
# in a differentiable wonderland *by Simone Scardapane (book lines 4300–4324). The
# exercise is the book's; the text and code here are the companion's (text CC BY-SA
# 4.0, code MIT).*
#
# The book asks you to tokenize a text-classification dataset into lists of integers
# and train a 1-D CNN with trainable embeddings like its Box 8.2 (convolutions with 32
# and 64 channels). IMDB needs a download, so we build a labelled corpus offline from
# Python's own documentation (`pydoc_data`, shipped with CPython): sentences from the
# help topics on **statements** (`if`, `for`, `try`, …) against sentences from the
# topics on **types and objects** (sequences, mappings, numbers, …).
#
# | Exercise | What you write | It becomes |
# |---|---|---|
# | 8.1 | `pad_and_mask(seqs, max_len)`: a padded batch of ids and its mask | the mini-batches |
# | 8.2 | `embedding_lookup(E, ids)`: rows of the embedding table | the first layer |
# | 8.3 | `embedding_grad(ids, G, n)`: its gradient with respect to the table | how embeddings learn |
# | 8.4 | `masked_mean(H, M)`: the mean over real positions only | the global pooling |
# | 8.5 | `TextCNN`: Box 8.2 with masks, in PyTorch | the model |
# | 8.6 | `train_epoch(model, X, M, y, opt, batch_size)`: one pass over the data | training |
#
# Replace each `raise NotImplementedError(...)` with your code. The cell after each
# exercise runs a check that prints ✓ or ✗ with the points earned and, when something
# is wrong, what differed. Shapes follow the book: batch first, channels last, except
# inside PyTorch's `Conv1d`, which wants `(b, c, t)`.

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
import torch.nn.functional as F
from torch import nn

from alice_course import grading
from alice_course.grading import attempted
from alice_lab import text as T
from alice_lab.backend import is_fast

FAST = is_fast()  # ALICE_FAST=1 (set by the tests) trains for fewer epochs
torch.manual_seed(0)
torch.set_num_threads(1)


# %% [markdown]
# ## The data
#
# `T.topic_sentences()` returns the sentences and their labels (0 = statements,
# 1 = types and objects), balanced and shuffled. A word tokenizer keeps the 2000 most
# frequent words of the **training** split (id 0 is `[OOV]`, id 1 is `[BOS]`); every
# sentence becomes a list of integers, the book's eq. E.8.4.

# %%
texts, labels = T.topic_sentences()
n_train = int(0.8 * len(texts))
tok = T.WordTokenizer(" ".join(texts[:n_train]), vocab_size=2000, lower=True)
token_lists = [tok.encode(s) for s in texts]
print(f"{len(texts)} sentences, {np.bincount(labels)} per class")
print(repr(texts[0]), "->", token_lists[0][:12], "...")
lengths = [len(t) for t in token_lists]
print(
    f"lengths from {min(lengths)} to {max(lengths)} tokens (median {int(np.median(lengths))})"
)

# %% [markdown]
# ## Exercise 8.1 — Padding and the mask
#
# Sentences have different lengths. Write `pad_and_mask(seqs, max_len)`: `seqs` is a
# list of $b$ lists of ids. Cut each list to at most `max_len` tokens, append zeros up
# to `max_len`, and return `X`, an integer array $(b, \text{max\_len})$, and the mask
# `M`, a float array of the same shape with ones on the real tokens and zeros on the
# padding (book lines 3782–3790). Careful: id 0 is a real token (`[OOV]`), so the mask
# cannot be read off the ids.


# %%
def pad_and_mask(seqs, max_len):
    """list of b lists of ids -> X (b, max_len) int64, M (b, max_len) float of 0/1."""
    ### BEGIN SOLUTION
    X = np.zeros((len(seqs), max_len), dtype=np.int64)
    M = np.zeros((len(seqs), max_len))
    for i, s in enumerate(seqs):
        s = list(s)[:max_len]
        X[i, : len(s)] = s
        M[i, : len(s)] = 1.0
    return X, M
    ### END SOLUTION


# %%
grading.check("lab08.1", pad_and_mask)

# %%
MAX_LEN = 48
if attempted(pad_and_mask, token_lists[:2], MAX_LEN):
    X_all, M_all = pad_and_mask(token_lists, MAX_LEN)
    print(
        "X",
        X_all.shape,
        "M",
        M_all.shape,
        "| first row of M:",
        M_all[0].astype(int)[:20],
        "...",
    )

# %% [markdown]
# ## Exercise 8.2 — The embedding lookup
#
# An embedding table $\mathbf{E} \sim (n, e)$ has one row per token. Write
# `embedding_lookup(E, ids)` for `ids` of any shape $(b, m)$: it returns the rows
# $\mathbf{E}_{x_1}, \dots, \mathbf{E}_{x_m}$ for every sentence, $(b, m, e)$
# (book lines 3854–3862). It must agree with `torch.nn.Embedding` and with the product
# of a one-hot matrix and $\mathbf{E}$, which it replaces.


# %%
def embedding_lookup(E, ids):
    """E (n, e), ids (b, m) ints -> (b, m, e)."""
    ### BEGIN SOLUTION
    return E[ids]
    ### END SOLUTION


# %%
grading.check("lab08.2", embedding_lookup)

# %%
E_demo = np.random.default_rng(0).standard_normal((16, 4))
ids_demo = np.array([[3, 7, 3, 0]])
if attempted(embedding_lookup, E_demo, ids_demo):
    onehot = T.one_hot(ids_demo, 16)
    print(
        "lookup = one-hot @ E:",
        np.allclose(embedding_lookup(E_demo, ids_demo), onehot @ E_demo),
    )

# %% [markdown]
# ## Exercise 8.3 — How an embedding learns
#
# The lookup is a matrix product with a one-hot matrix, so its gradient with respect to
# $\mathbf{E}$ is that one-hot matrix transposed times the upstream gradient
# $\mathbf{G} \sim (b, m, e)$: row $v$ of $\partial L / \partial \mathbf{E}$ is the sum
# of $\mathbf{G}$ over every position where token $v$ appears, zero if it does not
# appear. Write `embedding_grad(ids, G, n)` without building the one-hot matrix. Mind
# repeated ids: NumPy's `dE[ids] = ...` and `dE[ids] += ...` keep only one of them
# (`np.add.at` does not).


# %%
def embedding_grad(ids, G, n):
    """ids (b, m), G (b, m, e), n = vocabulary size -> dL/dE (n, e)."""
    ### BEGIN SOLUTION
    dE = np.zeros((n, G.shape[-1]))
    np.add.at(dE, ids.reshape(-1), G.reshape(-1, G.shape[-1]))
    return dE
    ### END SOLUTION


# %%
grading.check("lab08.3", embedding_grad)

# %% [markdown]
# ## Exercise 8.4 — Masked mean pooling
#
# After the convolutions, a sentence of $t_i$ real tokens is a matrix of features
# padded to the batch length. Write `masked_mean(H, M)`: for $\mathbf{H} \sim
# (b, t, c)$ and the mask $\mathbf{M} \sim (b, t)$ return $(b, c)$, row $i$ being
# $\sum_j M_{ij}\mathbf{H}_{ij} / \sum_j M_{ij}$: the mean over the real positions, as
# if there were no padding (whatever the padded rows contain).


# %%
def masked_mean(H, M):
    """H (b, t, c), M (b, t) of 0/1 -> (b, c)."""
    ### BEGIN SOLUTION
    return (H * M[:, :, None]).sum(1) / M.sum(1, keepdims=True)
    ### END SOLUTION


# %%
grading.check("lab08.4", masked_mean)

# %% [markdown]
# ## Exercise 8.5 — The text CNN (Box 8.2, with masks)
#
# Write the model of Box 8.2 as a `torch.nn.Module` with exactly these attributes:
#
# * `self.emb = nn.Embedding(n, e)`;
# * `self.conv1 = nn.Conv1d(e, 32, 5, padding="same")` and
#   `self.conv2 = nn.Conv1d(32, 64, 5, padding="same")`;
# * `self.head = nn.Linear(64, num_classes)`.
#
# `forward(x, mask=None)` with `x ~ (b, m)`: embed to $(b, m, e)$, transpose to
# channels-first $(b, e, m)$, `relu(conv1)`, `F.max_pool1d(h, 2)` (length
# $\lfloor m/2 \rfloor$), `relu(conv2)`, the mean over the length, the head.
#
# With a mask $(b, m)$, padding must change nothing: reshape it to $(b, 1, m)$ and
# multiply the features by it after the embedding and after the first ReLU; pool it
# with `F.max_pool1d(mask, 2)` when you pool the features, and multiply again after
# the pooling; finish with a masked mean (your exercise 8.4, in torch:
# `(h * m).sum(2) / m.sum(2)`).


# %%
class TextCNN(nn.Module):
    """Box 8.2: n = vocabulary size, e = embedding size; (b, m) -> (b, num_classes)."""

    def __init__(self, n, e, num_classes=2):
        super().__init__()
        ### BEGIN SOLUTION
        self.emb = nn.Embedding(n, e)
        self.conv1 = nn.Conv1d(e, 32, 5, padding="same")
        self.conv2 = nn.Conv1d(32, 64, 5, padding="same")
        self.head = nn.Linear(64, num_classes)
        ### END SOLUTION

    def forward(self, x, mask=None):
        ### BEGIN SOLUTION
        h = self.emb(x).transpose(1, 2)  # (b, e, m)
        m = None if mask is None else mask.float()[:, None, :]  # (b, 1, m)
        if m is not None:
            h = h * m
        h = F.relu(self.conv1(h))  # (b, 32, m)
        if m is not None:
            h = h * m
        h = F.max_pool1d(h, 2)  # (b, 32, m // 2)
        if m is not None:
            m = F.max_pool1d(m, 2)
            h = h * m
        h = F.relu(self.conv2(h))  # (b, 64, m // 2)
        if m is None:
            return self.head(h.mean(2))
        return self.head((h * m).sum(2) / m.sum(2))
        ### END SOLUTION


# %%
grading.check("lab08.5", TextCNN)

# %% [markdown]
# ## Exercise 8.6 — One epoch of training
#
# Write `train_epoch(model, X, M, y, opt, batch_size)`: go through the data **in
# order**, in mini-batches of `batch_size` rows (the last one may be shorter); for each,
# compute the cross-entropy of `model(X_batch, M_batch)` against `y_batch`, clear the
# old gradients, backpropagate, take an optimizer step. Return the mean of the batch
# losses as a Python float. (Shuffle outside, by permuting the rows before the call.)


# %%
def train_epoch(model, X, M, y, opt, batch_size=32):
    """X (N, m) int64, M (N, m) float, y (N,) int64 tensors -> mean batch loss."""
    ### BEGIN SOLUTION
    losses = []
    for i in range(0, len(X), batch_size):
        loss = F.cross_entropy(
            model(X[i : i + batch_size], M[i : i + batch_size]), y[i : i + batch_size]
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)
    ### END SOLUTION


# %%
grading.check("lab08.6", train_epoch)

# %% [markdown]
# ## Training on the documentation
#
# Your padding, your model and your training loop, on the 80/20 split, with
# embeddings of size 32 trained along with the convolutions. A few epochs reach about
# 90% test accuracy; a bag-of-words baseline is printed for comparison.

# %%
EPOCHS = 3 if FAST else 10
ready = attempted(pad_and_mask, token_lists[:2], MAX_LEN) and attempted(TextCNN, 10, 4)
if ready:
    try:
        TextCNN(10, 4)(torch.zeros(1, 6, dtype=torch.long))
        Xt = torch.tensor(X_all)
        Mt = torch.tensor(M_all, dtype=torch.float32)
        yt = torch.tensor(labels)
        torch.manual_seed(0)
        model = TextCNN(tok.vocab_size, 32, num_classes=2)
        opt = torch.optim.Adam(model.parameters(), lr=3e-3)
        for epoch in range(EPOCHS):
            perm = torch.randperm(n_train)
            loss = train_epoch(model, Xt[perm], Mt[perm], yt[perm], opt, batch_size=32)
            with torch.no_grad():
                pred = model(Xt[n_train:], Mt[n_train:]).argmax(1)
            acc = float((pred == yt[n_train:]).float().mean())
            print(
                f"epoch {epoch + 1}: training loss {loss:.3f}, test accuracy {acc:.3f}"
            )
    except NotImplementedError as err:
        print(f"(skipped until {err} is done)")

# %%
from sklearn.linear_model import LogisticRegression  # noqa: E402

bow = np.zeros((len(texts), tok.vocab_size))
for i, ids in enumerate(token_lists):
    np.add.at(bow[i], ids, 1.0)
base = LogisticRegression(max_iter=2000).fit(bow[:n_train], labels[:n_train])
print(
    f"bag-of-words logistic regression: test accuracy {base.score(bow[n_train:], labels[n_train:]):.3f}"
)

# %% [markdown]
# Things to try (no checks): max instead of mean pooling at the end; kernel size 3 or
# 7; a third convolution; no mask (train with `mask=None`) and compare the accuracy;
# character- or BPE-level tokens (`T.CharTokenizer`, `T.BPETokenizer.train`).
#
# ## Your score

# %%
results = grading.report("lab08", globals())
