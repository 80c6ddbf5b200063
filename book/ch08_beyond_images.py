# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 8. Convolutions beyond images
#
# [▶ Open this notebook in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/book/ch08_beyond_images.ipynb) · runs as is, no set-up needed
#
# *Companion to Chapter 8 ("Convolutions beyond images") of* Alice's Adventures in a
# differentiable wonderland *by Simone Scardapane (CC BY-SA 4.0). The text of this
# notebook is derived from the book and shared under the same licence; the code is MIT.*
#
# Convolutions only need an ordered axis and a channel axis, so they apply to time
# series, audio, video and text as well as images. This chapter follows what changes
# on the way:
#
# * 1-D and 3-D convolutions, and what to do when sequences have different lengths
#   (padding and masks, §8.1-§8.2.1);
# * text: tokenizers (characters, words, byte pairs) and **embeddings**, trained from
#   scratch here on Python's own documentation (§8.2.2), and dilated convolutions for
#   long sequences (§8.2.3);
# * forecasting, **causal** layers and autoregressive generation (§8.3);
# * probabilistic generative models of sequences and how to sample from them:
#   temperature, top-k, top-p, greedy decoding and beam search (§8.4).
#
# The from-scratch code lives in `alice_lab.text` and `alice_lab.sequence`; every
# checkable statement is computed in the open and then checked by
# `alice_course.claims.verify`, which shows a `✓` block with its place in the book.
# Boxes marked **Erratum** correct slips in the text.

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
from collections import Counter

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn.functional as F
from scipy.signal import chirp, spectrogram
from scipy.special import log_softmax

from alice_course.claims import verify
from alice_course.widgets import (
    ch08_causal_conv as causal_conv,
    ch08_sampling as sampling,
    ch08_tokenizer_view as tokenizer_view,
)
from alice_course.widgets.describe import describe_figures
from alice_lab import conv as C, sequence as S, text as T
from alice_lab.text.torch_models import CausalConv1d, TextCNN

describe_figures()  # each figure's output also says in words what it shows

FAST = alice_lab.backend.is_fast()  # ALICE_FAST=1 (set by the tests) shrinks the runs
rng = np.random.default_rng(0)
torch.manual_seed(0)
torch.set_num_threads(1)


def conv1d_cl(X, W3, b=None, **kw):
    """`alice_lab.conv.conv1d` with the book's kernel layout: X (t, c), W3 (s, c', c).

    alice_lab.conv stores kernels (s, c, c') (JAX/TensorFlow order), hence the swap."""
    return C.conv1d(X, W3.transpose(0, 2, 1), b, **kw)


def torch_conv1d_cl(X, W3, b=None, **kw):
    """torch's conv1d on the same layout, as an independent comparison."""
    x = torch.as_tensor(X, dtype=torch.float64).T[None]
    w = torch.as_tensor(W3, dtype=torch.float64).permute(1, 2, 0)
    bb = None if b is None else torch.as_tensor(b, dtype=torch.float64)
    return F.conv1d(x, w, bb, **kw)[0].T.numpy()


# %% [markdown]
# ## 8.1 Convolutions for 1D and 3D data
#
# ### 8.1.1 Beyond images: time series, audio, video, text
#
# A time series is a matrix $\mathbf{X} \sim (t, c)$: $t$ time steps, $c$ measurements
# per step. Audio is the same with $c = 1$ (mono) or $c = 2$ (stereo); a video adds two
# spatial axes, $X \sim (t, h, w, c)$. A time step plays the role of a pixel and a
# measurement the role of a channel.

# %%
sr = 8000  # samples per second
t_audio = np.arange(int(2 * sr)) / sr
up = chirp(t_audio, f0=200, t1=2, f1=2000) + 0.1 * rng.standard_normal(t_audio.size)
stereo = np.stack([up, 0.5 * up], axis=1)
video = rng.random((6, 8, 8, 3))
print(f"mono {up[:, None].shape}, stereo {stereo.shape}, video {video.shape}")
verify("C8-01")

# %% [markdown]
# ```{admonition} Erratum (E8-01, §8.1.1; book text line 3692)
# :class: warning
# The book says $\mathbf{X}_i \sim (c)$ holds the measurements "at time $t$"; it is
# at time $i$ ($t$ is the length of the series).
# ```
#
# A series of length $t = 10$ whose row $i$ is $(i, 10i)$, and the windows that
# `make_windows` cuts from it: row $i$ is time $i$, and the length shows up only as
# the number of rows.

# %%
series_i = np.stack([np.arange(10.0), 10 * np.arange(10.0)], axis=1)  # X_i = (i, 10i)
windows_i, _ = S.make_windows(series_i, 4)
print(f"X ~ {series_i.shape}: X_7 = {series_i[7]}, the measurements at time i = 7")
print(
    f"windows of 4 steps: {windows_i.shape}; window 3 starts at X_3 = {windows_i[3, 0]}"
)
verify("E8-01")

# %% [markdown]
# Audio can be drawn as a 1-D wave or, through a short-time Fourier transform, as a
# 2-D time-frequency image to which Chapter 7's tools apply (figure F.8.1). Below, a
# synthetic up-chirp (200 Hz → 2 kHz in two seconds) and the same clip reversed.

# %%
fig, axes = plt.subplots(1, 3, figsize=(12, 3.2))
axes[0].plot(t_audio[:800], up[:800], lw=0.7)
axes[0].set(title="waveform (first 0.1 s)", xlabel="time (s)", ylabel="amplitude")
for ax, sig, name in ((axes[1], up, "up-chirp"), (axes[2], up[::-1], "reversed")):
    f, tt, Sxx = spectrogram(sig, fs=sr, nperseg=256)
    ax.pcolormesh(tt, f, 10 * np.log10(Sxx + 1e-10), shading="auto")
    ax.set(title=f"log spectrogram: {name}", xlabel="time (s)", ylabel="frequency (Hz)")
fig.suptitle("F.8.1: audio as a sequence and as a time-frequency image")
plt.tight_layout()
plt.show()

# %% [markdown]
# How many samples we get depends on the **sampling rate** in hertz (samples per
# second): 240 Hz for an EEG, one price a minute is $1/60$ Hz, 44.1 kHz for music,
# about 24 frames per second for video. Three minutes of music is already close to
# eight million samples. The reversed chirp goes *down* in frequency: unlike flipping
# an image left to right, reversing time gives a different kind of signal.

# %%
for name, rate in [
    ("EEG", 240),
    ("stock (1/min)", 1 / 60),
    ("music", 44.1e3),
    ("video", 24),
]:
    print(f"{name:>14}: {S.num_samples(60, rate):>9,} samples per minute")
print(f"3 minutes of music: {S.num_samples(180, 44.1e3):,} samples")
verify("C8-02", "C8-03", "C8-04")

# %% [markdown]
#
# The two readings side by side, and what each means for one second of audio:

# %%
for name, rate in (("44.1 × 10³", 44.1e3), ("44.1 · e³", 44.1 * np.e**3)):
    print(
        f"{name:>10} Hz = {rate:9,.1f} samples per second: "
        f"{S.num_samples(1, rate):,} samples in one second"
    )
verify("C8-53")

# %% [markdown]
# Text is a sequence too, once we decide how to cut it: characters, syllables, words.
#
# ```{admonition} Erratum (E8-03, §8.1.1; book text line 3706)
# :class: warning
# The syllable list for "the cat is on the table" splits "is" into "i", "s" and loses a
# quote mark; it should read `["the", "cat", "is", "on", "the", "ta", "ble"]`.
# ```
#
# Both lists, with the number of pieces each word gets: only "table" has two
# syllables.

# %%
sentence_s = "the cat is on the table"
for name, pieces in (
    ("corrected", ["the", "cat", "is", "on", "the", "ta", "ble"]),
    ("printed", ["the", "cat", "i", "s", "on", "the", "ta", "ble"]),
):
    per_word, rest = [], list(pieces)
    for word in sentence_s.split():
        n_p = 1
        while "".join(rest[:n_p]) != word:
            n_p += 1
        per_word.append(n_p)
        rest = rest[n_p:]
    print(
        f"{name:>9}: {len(pieces)} pieces, per word "
        f"{dict(zip(sentence_s.split(), per_word, strict=True))}"
    )
verify("E8-03")

# %% [markdown]
# ### 8.1.2 1D and 3D convolutional layers
#
# The "D" counts the axes the kernel slides over, never the channels. For a sequence
# $\mathbf{X} \sim (t, c)$ and a patch size $s = 2k + 1$, the patch $P_k(i) \sim (s, c)$
# holds the rows at distance at most $k$ from $i$ (zero-padded at the borders) and
#
# $$[\text{Conv1D}(\mathbf{X})]_i = \phi(\mathbf{W}\,\text{vect}(P_k(i)) + \mathbf{b}),
# \qquad \mathbf{W} \sim (c', sc),\ \mathbf{b} \sim (c'). \tag{E.8.1}$$
#
# With every index written out, the weights become a rank-3 tensor
# $W \sim (s, c', c)$ and $H_{iz} = \sum_{i'=1}^{2k+1}\sum_{d=1}^{c} W_{i',z,d}
# X_{i'+t(i),d}$ (E.8.3). We compute both by hand and compare them, and
# `alice_lab.conv.conv1d` (which stores the kernel as $(s, c, c')$), with PyTorch.

# %%
t_len, c, c_out, s_k = 20, 3, 4, 5
k = (s_k - 1) // 2
X = rng.standard_normal((t_len, c))
W3 = rng.standard_normal((s_k, c_out, c))  # (s, c', c), as in E.8.3
Wflat = W3.transpose(1, 0, 2).reshape(c_out, s_k * c)  # (c', s c), as in E.8.1
Xp = np.pad(X, ((k, k), (0, 0)))
H_patch = np.stack([Wflat @ Xp[i : i + s_k].reshape(-1) for i in range(t_len)])
H_index = np.zeros((t_len, c_out))
for i in range(1, t_len + 1):  # 1-based, as the book
    for ip in range(1, s_k + 1):
        j = ip + (i - k - 1)  # t(i) = i - k - 1
        if 1 <= j <= t_len:
            H_index[i - 1] += W3[ip - 1] @ X[j - 1]
H_lib = conv1d_cl(X, W3, padding="same")  # alice_lab.conv.conv1d
H_torch = torch_conv1d_cl(X, W3, padding="same")
print("patch form vs torch:", np.abs(H_patch - H_torch).max())
print("index form vs torch:", np.abs(H_index - H_torch).max())
print("alice_lab.conv.conv1d vs torch:", np.abs(H_lib - H_torch).max())
verify("C8-05", "C8-06", "C8-07")

# %% [markdown]
# ```{admonition} Erratum (E8-04, §8.1.2, E.8.3; book text line 3726)
# :class: warning
# The offset of E.8.2/E.8.3 is printed $t(i) = i + k - 1$, said to be the one of
# Chapter 7. For $i' = 1, \dots, 2k+1$ to reach rows $i-k, \dots, i+k$ it must be
# $t(i) = i - k - 1$, which is what Chapter 7 gives (E.7.6); the cell above uses it.
# ```
#
# The rank-3 weight of E.8.3 is indexed $W_{i',z,d}$ and given the shape $(s, c', c)$:
# output channel before input channel, the index order of Chapter 7's E.7.7 (whose clash
# with the $(s, s, c, c')$ shape announced there is erratum E7-02 of chapter 7). PyTorch
# stores $(c', c, s)$, i.e. `W.transpose(1, 2, 0)`, as the cell above checks.
#
# The index form of the cell above with both offsets, against torch, with the rows
# of $\mathbf{X}$ that output 1 reads (1-based; rows below 1 are the zero padding):


# %%
def index_form(offset):
    H = np.zeros((t_len, c_out))
    for i in range(1, t_len + 1):
        for ip in range(1, s_k + 1):
            if 1 <= ip + offset(i) <= t_len:
                H[i - 1] += W3[ip - 1] @ X[ip + offset(i) - 1]
    return H


for name, offset in (
    ("i − k − 1", lambda i: i - k - 1),
    ("i + k − 1 (printed)", lambda i: i + k - 1),
):
    rows = [ip + offset(1) for ip in range(1, s_k + 1)]
    print(
        f"t(i) = {name:<20}: output 1 reads rows {rows}, "
        f"max |H − torch| = {np.abs(index_form(offset) - H_torch).max():.2e}"
    )
verify("E8-04")

# %% [markdown]
# The 3-D layer adds one more sum, over a kernel axis $p'$ along time (same kernel size
# on every axis). On a small video it agrees with `torch.nn.functional.conv3d`, and so
# does `alice_lab.conv.conv3d` (kernel stored as $(s, s, s, c, c')$).
#
# ```{admonition} Typo (line 3732)
# :class: note
# The printed 3-D formula has a stray comma after its third sum; it is a plain
# quadruple sum $\sum_{p'}\sum_{i'}\sum_{j'}\sum_{d}$.
# ```

# %%
Xv, Wv = rng.standard_normal((4, 5, 6, 2)), rng.standard_normal((3, 3, 3, 3, 2))
Xvp = np.pad(Xv, ((1, 1), (1, 1), (1, 1), (0, 0)))
H3 = np.zeros((4, 5, 6, 3))
for p in range(4):
    for i in range(5):
        for j in range(6):
            H3[p, i, j] = np.einsum(
                "abczd,abcd->z", Wv, Xvp[p : p + 3, i : i + 3, j : j + 3]
            )
ref3 = (
    F.conv3d(
        torch.tensor(Xv).permute(3, 0, 1, 2)[None],
        torch.tensor(Wv).permute(3, 4, 0, 1, 2),
        padding=1,
    )[0]
    .permute(1, 2, 3, 0)
    .numpy()
)
H3_lib = C.conv3d(Xv, Wv.transpose(0, 1, 2, 4, 3), padding=1)  # kernel (s, s, s, c, c')
print(
    f"(4, 5, 6, 2) -> {H3.shape}; "
    f"max |loop - torch conv3d| = {np.abs(H3 - ref3).max():.1e}"
)
print(f"max |alice_lab.conv.conv3d - torch conv3d| = {np.abs(H3_lib - ref3).max():.1e}")
verify("C8-08")

# %% [markdown]
# ## 8.2 1D and 3D convolutional models
#
# ### 8.2.1 Dealing with variable-length inputs
#
# A stack of convolutions and poolings accepts any length: two sequences of lengths
# 37 and 50 give feature maps of different lengths. A **global pooling** over the
# length then gives vectors of the same shape, ready for a classification head.

# %%
r_len = np.random.default_rng(81)
Wg, bg = r_len.standard_normal((5, 3, 8)), r_len.standard_normal(8)  # (s, c, c')
g = lambda x: C.max_pool1d(np.maximum(C.conv1d(x, Wg, bg, padding=2), 0), 2)
H1, H2 = g(r_len.standard_normal((1, 37, 3))), g(r_len.standard_normal((1, 50, 3)))
print("feature maps (b, t, c'):", H1.shape, H2.shape)
print(
    "after global pooling:",
    C.global_avg_pool(H1, spatial_dims=1).shape,
    C.global_avg_pool(H2, spatial_dims=1).shape,
)
verify("C8-09")

# %% [markdown]
# ```{admonition} Erratum (E8-06, §8.2.1; book text line 3748)
# :class: warning
# The text says "global average pooling" but writes a sum, $\mathbf{h} = \sum_i
# \mathbf{H}_i$. The sum removes the length from the *shape* only: its size still grows
# with the length. The average $\frac{1}{t}\sum_i \mathbf{H}_i$ removes it from both.
# ```
#
# The same row of features repeated 37 and 50 times (the same content at two
# lengths), pooled both ways, against torch's `adaptive_avg_pool1d`:

# %%
row_p = np.random.default_rng(806).standard_normal(4)
for t_p in (37, 50):
    H_p = np.tile(row_p, (1, t_p, 1))  # (1, t, c)
    avg_torch = F.adaptive_avg_pool1d(torch.from_numpy(H_p).transpose(1, 2), 1)[0, :, 0]
    print(
        f"t = {t_p}: sum "
        f"{np.asarray(C.global_sum_pool(H_p, spatial_dims=1))[0].round(2)}, "
        f"mean {np.asarray(C.global_avg_pool(H_p, spatial_dims=1))[0].round(4)}, "
        f"torch {avg_torch.numpy().round(4)}"
    )
verify("E8-06")

# %% [markdown]
# To put sequences of different lengths in one mini-batch we **pad** them with zeros
# up to the longest, giving a tensor $(b, \max_i t_i, c)$. The book's Box 8.1 does it
# with `torch.nn.utils.rnn.pad_sequence`; `alice_lab.text.pad_sequences` does the same
# in NumPy.
#
# ```{admonition} Note (line 3754)
# :class: note
# "See Box for an example" refers to Box 8.1, whose caption was lost.
# ```

# %%
seqs = [torch.randn(3, 8), torch.randn(5, 8), torch.randn(2, 8)]
padded = torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True)
ours = T.pad_sequences([s_.numpy() for s_ in seqs])
print(
    "Box 8.1:",
    tuple(padded.shape),
    "| same as pad_sequences:",
    np.array_equal(padded.numpy(), ours),
)
verify("C8-10", "C8-12")

# %% [markdown]
# Is padding harmless? For **one** 'same' convolution the outputs at the real positions
# are exactly those of the unpadded sequence: the zeros we appended are the zeros the
# convolution would have padded anyway. After **two** layers they are not: the first
# layer's bias and ReLU turn the padded zeros into non-zero features, which the second
# layer then reads at the last $k$ real positions. Multiplying by the **mask**
# $\mathbf{M} \sim (b, t_{\max})$ (ones on the real positions) after each layer makes
# it exact again.

# %%
t1, t2 = 10, 6
Wa, ba = rng.standard_normal((5, 4, 2)), rng.standard_normal(4)
Wb, bb = rng.standard_normal((5, 3, 4)), rng.standard_normal(3)
X2 = rng.standard_normal((t2, 2))
Xpad = np.vstack([X2, np.zeros((t1 - t2, 2))])
mask = T.length_mask([t1, t2])[1][:, None]


def two_layers(X, remask=False):
    H = np.maximum(conv1d_cl(X, Wa, ba, padding="same"), 0)
    if remask:
        H = H * mask[: len(H)]
    return conv1d_cl(H, Wb, bb, padding="same")


err_plain = np.abs(two_layers(Xpad)[:t2] - two_layers(X2)).max(1)
err_mask = np.abs(two_layers(Xpad, True)[:t2] - two_layers(X2)).max(1)
fig, axes = plt.subplots(1, 2, figsize=(10, 3))
axes[0].imshow(T.length_mask([10, 6, 8]), cmap="Greys", vmin=0, vmax=1)
axes[0].set(
    title="mask M for lengths 10, 6, 8 (black = real)",
    xlabel="position",
    ylabel="sequence",
)
axes[1].bar(np.arange(t2) - 0.2, err_plain, 0.4, label="padded, no mask")
axes[1].bar(np.arange(t2) + 0.2, err_mask, 0.4, label="re-masked after layer 1")
axes[1].text(
    0, 0.9 * err_plain.max(), f"re-masked: max error {err_mask.max():.0e}", fontsize=9
)
axes[1].set(
    xlabel="real position",
    ylabel="|padded − unpadded|",
    title="two conv layers on a padded sequence",
)
axes[1].legend(loc="center left")
plt.tight_layout()
plt.show()
print("M for lengths 5, 3:", T.length_mask([5, 3]).astype(int).tolist())
verify("C8-11", "C8-13")

# %% [markdown]
# ### 8.2.2 CNNs for text data
#
# A **tokenizer** turns text into a list of integers, each the index of a token in a
# vocabulary. Characters give a small vocabulary and long sequences; words give short
# sequences but an enormous vocabulary, so we keep only the most frequent ones and map
# everything else to an out-of-vocabulary token `[OOV]`. **Subword** tokenizers such as
# byte-pair encoding (BPE) sit in between: start from bytes and repeatedly merge the
# most frequent adjacent pair into a new token (Figure F.8.2 of the book sketches the
# three kinds). We train all three from scratch on Python's documentation
# (`pydoc_data`, shipped with CPython).

# %%
corpus = T.pydoc_corpus(60_000 if FAST else 200_000)
char_tok = T.CharTokenizer(corpus)
word_tok = T.WordTokenizer(corpus, vocab_size=1000)
bpe = T.BPETokenizer.train(corpus[:100_000], 256 + (200 if FAST else 500))
sentence = "the cat is on the table"
for name, tok in (("char", char_tok), ("word", word_tok), ("BPE", bpe)):
    ids = tok.encode(sentence)
    print(f"{name:>4}: V = {tok.vocab_size:>4}, {len(ids):>2} ids {ids}")
print("BPE pieces:", bpe.token_strings(bpe.encode(sentence)))
print(
    "round trip on the corpus:",
    bpe.decode(bpe.encode(corpus[:20_000])) == corpus[:20_000],
)
top = Counter(T.word_split(corpus)).most_common(5)
print("most frequent words:", top, "| vocabulary starts", word_tok.vocab[:7])
verify("C8-14", "C8-16")

# %% [markdown]
# The book's example (Figure F.8.3) runs OpenAI's `tiktoken` (a BPE with about 100k
# tokens) on "This is perplexing!" and gets `[2028, 374, 74252, 287, 0]`: "This",
# " is", " perplex", "ing", "!". `tiktoken` downloads its merge table on first use, so we only quote
# those ids; our own BPE, trained offline with far fewer merges, already compresses
# the sentence and decodes it back exactly. Pieces of numbers follow frequencies, not
# place value: the book notes that "52" gets a token of its own while "2512" can be
# split into "251" + "2". A BPE trained on numbers where 52 and 251 are common (and
# 2512 never occurs) does the same, with the very merges of a plain-Python BPE
# (C8-17 below).

# %%
s_ex = "This is perplexing!"
ids = bpe.encode(s_ex)
print(f"{len(s_ex)} characters -> {len(ids)} ids: {bpe.token_strings(ids)}")
rng_num = np.random.default_rng(17)
numbers = rng_num.zipf(1.5, 3000)  # a long-tailed background of numbers
number_words = [str(n) for n in numbers[numbers < 10_000]]
number_words += ["52"] * 300 + ["251"] * 200  # two common numbers; 2512 never occurs
rng_num.shuffle(number_words)
bpe_numbers = T.BPETokenizer.train(" ".join(number_words), 256 + 40)
for s_num in (" 52", " 2512"):
    print(f"{s_num!r} → {bpe_numbers.token_strings(bpe_numbers.encode(s_num))}")
verify("C8-15", "C8-17")

# %% [markdown]
# The widget below moves through the BPE merges: with 0 merges every byte is a token;
# as merges are added, frequent pieces ("the", "ing", " is") become single tokens and
# the number of bytes per token on held-out text goes up.

# %% tags=["remove-output"]
# NBVAL_SKIP
tokenizer_view.live_view()

# %%
tokenizer_view.static_view(steps=4 if FAST else 12)

# %% [markdown]
# Token ids are categorical: one-hot vectors would be $V$-dimensional with a single 1.
# Instead each id indexes a row of a trainable **embedding** matrix
# $\mathbf{E} \sim (n, e)$, and a sequence of $m$ ids becomes the $(m, e)$ matrix of
# the corresponding rows, $\text{LookUp}(x) = [\mathbf{E}_{x_1}; \dots;
# \mathbf{E}_{x_m}]$. It is the same as multiplying the one-hot matrix by
# $\mathbf{E}$, and the same as `torch.nn.Embedding`. Its gradient is non-zero only on
# the rows that were looked up, and a repeated id collects the sum of its gradients.

# %%
n_vocab, e_dim = 16, 6
emb = T.Embedding(n_vocab, e_dim, rng=rng)
x_ids = np.array([3, 7, 3, 0, 12])
lookup = emb(x_ids)
onehot = T.one_hot(x_ids, n_vocab)
torch_emb = torch.nn.Embedding(n_vocab, e_dim, dtype=torch.float64)
with torch.no_grad():
    torch_emb.weight.copy_(torch.tensor(emb.E))
print(
    "lookup = one-hot @ E:",
    np.allclose(lookup, onehot @ emb.E),
    "| = nn.Embedding:",
    np.allclose(lookup, torch_emb(torch.tensor(x_ids)).detach().numpy()),
)
print(f"one-hot density: {onehot.mean():.4f} = 1/{n_vocab}")
fig, axes = plt.subplots(1, 3, figsize=(11, 3.2), width_ratios=(1.2, 2.4, 1))
axes[0].imshow(onehot, cmap="Greys")
axes[0].set(title="one-hot (5, 16)", xlabel="vocabulary", ylabel="position")
axes[1].imshow(emb.E.T, cmap="coolwarm")
for r in x_ids:
    axes[1].axvline(r, color="k", lw=2, alpha=0.4)
axes[1].set(
    title="E (16, e), shown transposed; used rows marked",
    xlabel="token id",
    ylabel="embedding dim",
)
axes[2].imshow(lookup, cmap="coolwarm")
axes[2].set(title="LookUp(x) (5, e)", xlabel="embedding dim", ylabel="position")
fig.suptitle("F.8.4: an embedding lookup with n = 16, x = [3, 7, 3, 0, 12]")
plt.tight_layout()
plt.show()
verify("C8-18", "C8-19", "C8-20")

# %% [markdown]
# Box 8.2 puts it together: embedding, two 'same' convolutions with 32 and 64 channels
# (kernel 5), a max-pooling by two in between, a mean over the length and a linear
# head. `alice_lab.text.torch_models.TextCNN` is that model (with an optional mask).
# Forward hooks record every shape; for $n = 16$, $e = 8$ it has 12,394 parameters.

# %%
model = TextCNN(16, 8)
shapes = {}
for name in ("emb", "conv1", "conv2", "head"):
    getattr(model, name).register_forward_hook(
        lambda mod, inp, out, name=name: shapes.__setitem__(name, tuple(out.shape))
    )
model(torch.randint(0, 16, (4, 21)))
print(shapes, "| parameters:", sum(p_.numel() for p_ in model.parameters()))
verify("C8-21")

# %% [markdown]
# ```{admonition} Erratum (E8-07, §8.2.2, Box 8.2; book text lines 3880–3912)
# :class: warning
# The comments write a generic batch `(*, m)`, but `transpose(1, 2)` and `mean(2)` count
# axes from the left, so the code needs exactly one batch axis, `x ~ (b, m)`: with two
# batch axes it fails, as the cell below shows.
# ```
#
# The box's steps on an odd length, $m = 11$, and on a batch with two batch axes:

# %%
x_11 = torch.randint(0, 16, (2, 11))
h_11 = F.max_pool1d(torch.relu(model.conv1(model.emb(x_11).transpose(1, 2))), 2)
print(f"m = 11: after the first block {tuple(h_11.shape)}, length ⌊11/2⌋ = {11 // 2}")
h_two = model.emb(torch.randint(0, 16, (2, 3, 12))).transpose(1, 2)
try:
    model.conv1(h_two)
except RuntimeError as err:
    print(
        f"x ~ (2, 3, 12): embedded and transposed to {tuple(h_two.shape)}, conv1 fails "
        f"({type(err).__name__})"
    )
verify("E8-07")

# %% [markdown]
# The embeddings are trained with the rest of the model: after one SGD step, exactly
# the rows of $\mathbf{E}$ whose ids appear in the batch have moved.
# Below, one step on a batch of token ids:

# %%
torch.manual_seed(8)
model_e = TextCNN(16, 8)
x_e = torch.tensor([[1, 4, 4, 9, 1, 2, 9, 4]])
before_e = model_e.emb.weight.detach().clone()
opt_e = torch.optim.SGD(model_e.parameters(), lr=0.1)
F.cross_entropy(model_e(x_e), torch.tensor([3])).backward()
opt_e.step()
moved_e = (model_e.emb.weight.detach() - before_e).norm(dim=1)
print("ids in the batch:", sorted(set(x_e[0].tolist())))
print("rows of E that moved:", torch.nonzero(moved_e).flatten().tolist())
verify("C8-22")

# %% [markdown]
# ### 8.2.3 Dealing with long sequences
#
# With kernel size $s$, each layer widens the **receptive field** by $s - 1$: $L$
# layers see $1 + L(s-1)$ inputs, a linear growth. A **dilated** (atrous) convolution
# with rate $d$ uses every $d$-th input: same parameters, wider reach. It equals a plain
# convolution whose kernel has $d-1$ zeros inserted between taps. Stacking rates
# $1, 2, 4, \dots$ makes the receptive field grow exponentially (figure F.8.5).

# %%
x_long = rng.standard_normal((30, 2))
w_small = rng.standard_normal((3, 4, 2))
for d in (1, 2, 4):
    w_up = np.zeros((2 * d + 1, 4, 2))
    w_up[::d] = w_small
    diff = np.abs(
        conv1d_cl(x_long, w_small, dilation=d) - torch_conv1d_cl(x_long, w_up)
    ).max()
    print(f"d = {d}: dilated (alice_lab) vs zero-upsampled kernel (torch) {diff:.1e}")
for L in range(1, 6):
    plain = causal_conv.receptive_field_graph(
        L, 3, dilation_base=1, causal=False, t=129
    )
    dil = causal_conv.receptive_field_graph(L, 3, dilation_base=2, causal=False, t=129)
    print(
        f"L = {L}: receptive field {plain.size:>2} (plain) vs {dil.size:>2} (dilated)"
    )
verify("C8-24", "C8-25", "C8-26")

# %% [markdown]
# ## 8.3 Forecasting and causal models
#
# ### 8.3.1 Forecasting sequences
#
# Forecasting is self-supervised: from one long series we cut every window
# $\mathbf{X} \sim (t, c)$ and use the next value $\mathbf{y}$ as its target, then fit
# $f(\mathbf{X}) \approx \mathbf{y}$. To predict further, we feed the prediction back:
# drop the oldest value, append $\hat{\mathbf{y}}$ (eq. E.8.5), a first-in first-out
# buffer. For a pure sine the best linear forecaster over two steps is known exactly,
# $x_{n+1} = 2\cos(\omega) x_n - x_{n-1}$; least squares on the windows finds it, and
# its roll-out continues the sine.

# %%
omega = 0.3
series = np.sin(omega * np.arange(300))
Xw, yw = S.make_windows(series, 12)
print("windows:", Xw.shape, "targets:", yw.shape)
X2w, y2w = S.make_windows(series, 2)
coef = np.linalg.lstsq(X2w[:, :, 0], y2w[:, 0], rcond=None)[0]
print(
    f"AR(2) coefficients {coef.round(10)} "
    f"vs (-1, 2cos ω) = (-1, {2 * np.cos(omega):.10f})"
)
noisy = series + 0.05 * rng.standard_normal(series.shape)
Xn, yn = S.make_windows(noisy[:200], 8)
coef8 = np.linalg.lstsq(Xn[:, :, 0], yn[:, 0], rcond=None)[0]
roll_exact = S.autoregressive_rollout(lambda b: b[:, 0] @ coef, series[198:200], 100)
roll_noisy = S.autoregressive_rollout(lambda b: b[:, 0] @ coef8, noisy[192:200], 100)
plt.figure(figsize=(9, 3))
plt.plot(np.arange(300), noisy, color="0.7", lw=0.8, label="noisy series")
plt.plot(np.arange(200, 300), roll_exact[:, 0], label="AR(2) on the clean sine")
plt.plot(
    np.arange(200, 300), roll_noisy[:, 0], "--", label="AR(8) fitted on noisy data"
)
plt.axvline(200, color="k", lw=0.8)
plt.xlabel("time step")
plt.ylabel("value")
plt.title("autoregressive roll-out: each prediction is fed back as input")
plt.legend(fontsize=8)
plt.show()
verify("C8-27", "C8-28")

# %% [markdown]
# #### Box: Stationarity and forecasting
#
# The book's box sets aside what real time series bring: trends, seasonalities,
# non-stationarity. A series is **stationary** when the statistics of a window do not
# depend on where it is cut. A trend breaks that: the windows of the future sit at
# levels the model never saw during training. Below, a line plus a period-25 wave plus
# noise; a forecaster that can only reuse what it saw (the mean of the 5 nearest
# training windows, rolled out as above) flattens out at the highest level it knows.
# Forecasting the **differences** $x_{n+1} - x_n$ instead, which are stationary here,
# and summing them back follows the trend.

# %%
rng_st = np.random.default_rng(8)
st_time = np.arange(300)
st_series = (
    0.02 * st_time
    + np.sin(2 * np.pi * st_time / 25)
    + 0.05 * rng_st.standard_normal(300)
)


def knn_forecaster(train, t=12, k=5):
    """One-step forecast: the mean next value of the k closest training windows."""
    Xk, yk = S.make_windows(train, t)
    return lambda buf: yk[np.argsort(((Xk - buf) ** 2).sum(axis=(1, 2)))[:k]].mean(0)


st_train, st_truth = st_series[:200], st_series[200:]
st_raw = S.autoregressive_rollout(knn_forecaster(st_train), st_train[-12:], 100)[:, 0]
st_d = np.diff(st_train)
st_diff = st_train[-1] + np.cumsum(
    S.autoregressive_rollout(knn_forecaster(st_d), st_d[-12:], 100)[:, 0]
)
for name, s_ in (("series", st_series), ("differences", np.diff(st_series))):
    print(
        f"mean of the {name:>11}: first 100 steps {s_[:100].mean():6.3f}, "
        f"last 100 {s_[-100:].mean():6.3f}"
    )
for name, fc in (("raw windows", st_raw), ("differences", st_diff)):
    rmse_st = np.sqrt(np.mean((fc - st_truth) ** 2))
    print(
        f"kNN on {name}: RMSE over 100 steps {rmse_st:.3f}, "
        f"highest forecast {fc.max():.2f} (training max {st_train.max():.2f})"
    )
plt.figure(figsize=(9, 3))
plt.plot(st_time, st_series, color="0.7", lw=0.8, label="series (trend + season)")
plt.plot(st_time[200:], st_raw, label="kNN on the raw windows")
plt.plot(st_time[200:], st_diff, "--", label="kNN on the differences, summed back")
plt.axvline(200, color="k", lw=0.8)
plt.xlabel("time step")
plt.ylabel("value")
plt.title("a trend makes the series non-stationary; differencing removes it")
plt.legend(fontsize=8)
plt.show()

# %% [markdown]
# ### 8.3.2 Causal models
#
# Padding the *start* of a short window with zeros does not work for an ordinary
# model: it reads the zeros as data. A layer is **causal** if output $i$ depends only on
# inputs up to $i$, $\mathbf{H}_i = f(\mathbf{X}_{:i})$. A kernel of size 1 is causal;
# a centred kernel of size 3 is not. Zeroing the future taps, $\mathbf{W} \odot
# \mathbf{M}$, makes any convolution causal; equivalently, pad $k$ zeros on the left
# and run a 'valid' convolution with the $k+1$ remaining taps (or $(s-1)d$ zeros with
# dilation $d$). Its Jacobian is lower-triangular, and only $(k+1)cc'$ of the
# $(2k+1)cc'$ weights are used.

# %%
layer = CausalConv1d(1, 1, 3).double()
x_c = torch.randn(1, 1, 10, dtype=torch.float64)
J = torch.autograd.functional.jacobian(lambda z: layer(z)[0, 0], x_c)[:, 0, 0].numpy()
centred = torch.nn.Conv1d(1, 1, 3, padding=1).double()
Jc = torch.autograd.functional.jacobian(lambda z: centred(z)[0, 0], x_c)[
    :, 0, 0
].numpy()
fig, axes = plt.subplots(1, 2, figsize=(8, 3.4))
for ax, M_, title in (
    (axes[0], Jc, "centred kernel (s = 3)"),
    (axes[1], J, "causal kernel (s = 3)"),
):
    ax.imshow(np.abs(M_) > 0, cmap="Greys")
    ax.set(title=f"∂H/∂X ≠ 0: {title}", xlabel="input j", ylabel="output i")
plt.tight_layout()
plt.show()
print("causal Jacobian lower-triangular:", np.allclose(J, np.tril(J)))
# torch (c', c, s) -> (s, c, c')
w_c = layer.conv.weight.detach().numpy().transpose(2, 1, 0)
b_c = layer.conv.bias.detach().numpy()
H_c = C.causal_conv1d(x_c[0].T.numpy(), w_c, b_c)  # alice_lab.conv, channels last
print(
    "alice_lab.conv.causal_conv1d vs torch CausalConv1d:",
    np.abs(H_c[:, 0] - layer(x_c)[0, 0].detach().numpy()).max(),
)
w1, w3 = rng.standard_normal((1, 1, 1)), rng.standard_normal((3, 1, 1))
print(
    "is_causal(size 1):",
    S.is_causal(lambda Z: conv1d_cl(Z, w1), X[:, :1]),
    "| is_causal(centred size 3):",
    S.is_causal(lambda Z: conv1d_cl(Z, w3, padding=1), X[:, :1]),
    "| is_causal(causal_conv1d size 3):",
    S.is_causal(lambda Z: C.causal_conv1d(Z, w3), X[:, :1]),
)
verify("C8-29", "C8-30", "C8-31", "C8-32", "C8-33")

# %% [markdown]
# Stacking causal layers with dilations $1, 2, 4, \dots$ (as WaveNet does) gives a
# receptive field of $1 + k\sum_l d_l$ past steps: $2^L$ for two taps per layer
# (figure F.8.6). The widget draws the nodes that feed one output.

# %% tags=["remove-output"]
# NBVAL_SKIP
causal_conv.live_view()

# %%
causal_conv.static_view(max_layers=3 if FAST else 5)

# %% [markdown]
# The same count from gradients: stack `CausalConv1d` layers with dilations $1, 2, 4,
# \dots$ and count the inputs on which the last output depends (the non-zero entries of
# its gradient).


# %%
def support(kernel_size, dilations, length=64):
    torch.manual_seed(0)
    stack = torch.nn.Sequential(
        *(CausalConv1d(1, 1, kernel_size, dilation=d) for d in dilations)
    ).double()
    x_s = torch.randn(1, 1, length, dtype=torch.float64, requires_grad=True)
    stack(x_s)[0, 0, -1].backward()
    return int((x_s.grad != 0).sum())


print(
    "two taps, L = 1..5 layers:",
    [support(2, [2**j for j in range(L)]) for L in range(1, 6)],
)
print("three taps, d = 1, 2, 4  :", support(3, [1, 2, 4]), "= 1 + 2·(1 + 2 + 4)")
verify("C8-34")

# %% [markdown]
# PyTorch has no causal switch on its 1-D convolution, and the book's closing section
# points, in a footnote, to emulating one with padding. That is what `CausalConv1d`
# above does: pad $(s-1)d$ zeros on the left with `torch.nn.functional.pad`, then run
# an unpadded `Conv1d`. The result equals the masked-kernel definition, and changing
# the input at one step leaves every earlier output untouched.
#
# A `CausalConv1d` with three taps and dilation 2 against the centred size-5 kernel
# whose two future taps are zeroed, and a change at step 10:

# %%
X_52 = np.random.default_rng(48).standard_normal((15, 2))
layer_52 = CausalConv1d(2, 3, 3, dilation=2).double()
W_52 = layer_52.conv.weight.detach().numpy().transpose(2, 0, 1)  # (s, c', c)
b_52 = layer_52.conv.bias.detach().numpy()
run_52 = lambda Z: layer_52(torch.tensor(Z.T[None]))[0].detach().numpy().T  # noqa: E731
masked_52 = torch_conv1d_cl(
    X_52, np.concatenate([W_52, np.zeros((2, 3, 2))]), b_52, dilation=2, padding=4
)
print(
    f"max |CausalConv1d − masked centred kernel| = "
    f"{np.abs(run_52(X_52) - masked_52).max():.1e}"
)
X_52b = X_52.copy()
X_52b[10] += 1.0
print(
    "outputs that move when step 10 changes:",
    np.nonzero(np.abs(run_52(X_52b) - run_52(X_52)).max(1))[0].tolist(),
)
verify("C8-52")

# %% [markdown]
# A causal model needs no pooling and keeps the length, so it can predict at **every**
# position at once: the targets are the inputs shifted by one, with the true next
# value appended, $\mathbf{Y} = [\mathbf{X}_{2:t}; \mathbf{y}]$, and the loss sums $t$
# squared errors (eq. E.8.6), one gradient signal per position (figure F.8.7). Its
# outputs are prefix-consistent: running it on a prefix gives the prefix of its
# outputs. Below we train the same small causal CNN twice on the windows of a noisy
# sine: once with one loss term per window (only the last output, as a non-causal
# forecaster would), once with all $t$ terms. Both learn the last position; only the
# second learns to forecast from every prefix, because every position got a gradient.


# %%
class TinyCausal(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = CausalConv1d(1, 16, 2, dilation=1)
        self.c2 = CausalConv1d(16, 16, 2, dilation=2)
        self.c3 = CausalConv1d(16, 1, 2, dilation=4)

    def forward(self, x):  # (b, 1, t) -> (b, 1, t)
        return self.c3(torch.tanh(self.c2(torch.tanh(self.c1(x)))))


t_win = 16
Xtr, ytr = S.make_windows(noisy[:200], t_win)
Ytr = np.stack([S.shift_targets(Xtr[i], ytr[i]) for i in range(len(Xtr))])
xb = torch.tensor(Xtr[:, :, 0], dtype=torch.float32)[:, None]
Yb = torch.tensor(Ytr[:, :, 0], dtype=torch.float32)[:, None]
curves, per_position = {}, {}
for mode in ("last output only", "all t outputs"):
    torch.manual_seed(0)
    net = TinyCausal()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    hist = []
    for _ in range(80 if FAST else 300):
        out = net(xb)
        if mode == "all t outputs":
            loss = S.sequence_mse(out, Yb) / out.numel()
        else:
            loss = ((out[..., -1] - Yb[..., -1]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        hist.append(float(loss.detach()))
    curves[mode] = hist
    with torch.no_grad():
        per_position[mode] = ((net(xb) - Yb) ** 2).mean(dim=(0, 1)).numpy()
fig, axes = plt.subplots(1, 2, figsize=(11, 3.2))
for mode, hist in curves.items():
    axes[0].semilogy(hist, label=f"loss on {mode}")
    axes[1].semilogy(
        np.arange(1, t_win + 1),
        per_position[mode],
        "o-",
        ms=3,
        label=f"trained on {mode}",
    )
axes[0].set(xlabel="step", ylabel="training loss", title="training")
axes[1].set(
    xlabel="position i (forecast of x_{i+1})",
    ylabel="MSE",
    title="forecast error at every position after training",
)
for ax in axes:
    ax.legend(fontsize=8)
plt.tight_layout()
plt.show()
print(
    {
        m: f"last {e[-1]:.4f}, mean over positions {e.mean():.4f}"
        for m, e in per_position.items()
    }
)
verify("C8-35", "C8-36", "C8-37", "C8-38")

# %% [markdown]
# At inference time (figure F.8.8), with a context of $t = 4$ and only two known
# values we fill the buffer $[x_1, x_2, 0, 0]$, read output 2 (the only one that does
# not see padding) to get $\hat{x}_3$, write it into slot 3, read output 3, and so on;
# once the buffer is full we drop the oldest value. `S.generate_causal` logs which
# position it reads. During training the inputs are always true values (**teacher
# forcing**); the model never sees its own predictions.

# %%
net.eval()
f_np = lambda Z: net(torch.tensor(Z.T[None], dtype=torch.float32))[0].detach().numpy().T
gen, log = S.generate_causal(f_np, noisy[:2, None], 4, context=4)
for step, (buf, read) in enumerate(log, 1):
    print(
        f"step {step}: buffer {np.round(buf[:, 0], 3).tolist()} -> read position {read}"
    )
verify("C8-39", "C8-40", "C8-41")

# %% [markdown]
# ## 8.4 Generative models
#
# ### 8.4.1 A probabilistic formulation
#
# A generative model describes $p(x)$ (or $p(x \mid y)$); a discriminative one
# $p(y \mid x)$; both are factors of the joint, $p(x, y) = p(y \mid x)p(x) = p(x \mid
# y)p(y)$. For sequences the chain rule gives an exact factorisation,
#
# $$p(x) = \prod_i p(x_i \mid x_{:i}), \tag{E.8.7}$$
#
# and a causal model can output all these conditionals at once:
# $p(x_i \mid x_{:i}) = \text{Categorical}(x_i \mid f(x_{:i}))$. Maximising the
# log-likelihood is then minimising the cross-entropy at every position. We build a
# small character model by counting (a trigram table with add-0.01 smoothing on
# Python's docs) and check these identities; a random joint table over $3^3$
# sequences is recovered exactly from its conditionals.

# %%
lm_text = T.pydoc_corpus(100_000 if FAST else 300_000).lower()
chars = sorted(set(lm_text))
lm_tok = T.CharTokenizer(lm_text)
counts3 = Counter(zip(lm_text, lm_text[1:], lm_text[2:], strict=False))
V = lm_tok.vocab_size
table = {}
for (a, b_, c_), n_ in counts3.items():
    table.setdefault(a + b_, np.full(V, 0.01))[lm_tok._id[c_]] += n_


def char_lm(prefix):
    """log p(next char | last two chars) of the trigram table."""
    key = lm_tok.decode(prefix[-2:]) if len(prefix) >= 2 else ""
    return log_softmax(np.log(table.get(key, np.ones(V))))  # unseen context: uniform


prompt = lm_tok.encode("the ")
x_seq = lm_tok.encode("value")
logits = torch.tensor(
    np.stack([char_lm(prompt + x_seq[:i]) for i in range(len(x_seq))])
)
ce = F.cross_entropy(logits, torch.tensor(x_seq), reduction="sum")
log_p = S.sequence_log_prob(char_lm, x_seq, prompt=prompt)
print(f"-log p('value' | 'the ') = {-log_p:.4f} = torch cross-entropy {float(ce):.4f}")
verify("C8-42", "C8-43", "C8-44")

# %% [markdown]
# ### 8.4.2 Sampling in an autoregressive model
#
# **Ancestral sampling** draws $x_1 \sim p(x_1)$, then $x_2 \sim p(x_2 \mid x_1)$, and
# so on; the sequences it produces are distributed as $p(x)$. **Temperature** divides
# the logits before the softmax: low values approach the argmax, high values the
# uniform distribution. **Top-k** keeps only the $k$ most likely tokens and **top-p**
# (nucleus) the smallest set whose probability reaches $p$, both renormalised. Taking
# the argmax at every step is **greedy decoding**.

# %%
for name, kw in [
    ("greedy (τ = 0)", {"temperature": 0}),
    ("τ = 0.5", {"temperature": 0.5}),
    ("τ = 1", {"temperature": 1.0}),
    ("τ = 1, top-k = 3", {"top_k": 3}),
    ("τ = 1, top-p = 0.8", {"top_p": 0.8}),
]:
    out = S.generate(char_lm, prompt, 40, rng=np.random.default_rng(1), **kw)
    print(f"{name:>18}: {lm_tok.decode(out)!r}")
verify("C8-45", "C8-46")

# %% [markdown]
# The widget shows the distribution of the next character after a context (counts in
# the docs), as the temperature moves, with and without top-k and top-p.

# %% tags=["remove-output"]
# NBVAL_SKIP
sampling.live_view()

# %%
sampling.static_view(frames=5 if FAST else 16)

# %% [markdown]
# ```{admonition} Erratum (E8-09, §8.4.2; book text line 4238)
# :class: warning
# Greedy decoding is printed as $x_i = \arg\max_i f(x_{:i})$, reusing the position
# index. The argmax runs over the vocabulary: $x_i = \arg\max_v [f(x_{:i})]_v$.
# ```
#
# ```{admonition} Erratum (E8-10, §8.4.2; book text line 4246)
# :class: warning
# The book presents "greedy decoding" as the language-modelling name for ancestral
# sampling. They are different decoders: sampling draws each token at random (and
# reproduces $p(x)$), greedy decoding takes the argmax (and is deterministic).
# ```
#
# With the trigram model after "the ": the greedy token is the argmax over the
# vocabulary of the next-character distribution; sampling the next character 2000
# times gives the model's frequencies, greedy gives one character every time.

# %%
p_next = np.exp(char_lm(prompt))
top_v = np.argsort(p_next)[::-1][:4]
print(
    f"{V} logits; argmax over the vocabulary = id {int(np.argmax(p_next))} "
    f"({lm_tok.decode([int(np.argmax(p_next))])!r}); greedy gives "
    f"{lm_tok.decode(S.greedy_decode(char_lm, prompt, 1)[0])!r}"
)
rng_s = np.random.default_rng(10)
draws = np.array([S.generate(char_lm, prompt, 1, rng=rng_s)[-1] for _ in range(2000)])
for v in top_v:
    print(
        f"  {lm_tok.decode([int(v)])!r}: p = {p_next[v]:.3f}, sampled "
        f"{np.mean(draws == v):.3f}"
    )
greedy_runs = {S.generate(char_lm, prompt, 1, temperature=0)[-1] for _ in range(5)}
print("greedy, 5 runs:", [lm_tok.decode([g_]) for g_ in greedy_runs])
verify("E8-09", "E8-10")

# %% [markdown]
# Greedy decoding is not guaranteed to find the most probable sequence. In the tree
# below, $p(A) = 0.6$ and $p(B) = 0.4$; after A the next token is nearly uniform
# ($0.34, 0.33, 0.33$), after B it is almost surely A ($0.9$). Greedy picks A then A,
# probability $0.6 \cdot 0.34 = 0.204$; the best sequence is B then A, $0.4 \cdot
# 0.9 = 0.36$. Enumerating all $V^T$ sequences finds it; so does **beam search** with
# two beams, which at each step keeps the $k$ best prefixes by summed log-probability.


# %%
def tree(prefix):
    if not prefix:
        return np.log([0.6, 0.4, 1e-12])
    return np.log(
        {0: [0.34, 0.33, 0.33], 1: [0.9, 0.05, 0.05], 2: [1 / 3] * 3}[prefix[0]]
    )


names = "ABC"
g_seq, g_lp = S.greedy_decode(tree, [], 2)
e_seq, e_lp = S.exhaustive_search(tree, [], 2, 3, stats=(ex_stats := {}))
b_seq, b_lp = S.beam_search(tree, [], 2, beam_width=2, stats=(b_stats := {}))
for name, seq_, lp in (
    ("greedy", g_seq, g_lp),
    ("exhaustive", e_seq, e_lp),
    ("beam k=2", b_seq, b_lp),
):
    print(f"{name:>10}: {''.join(names[i] for i in seq_)}  p = {np.exp(lp):.3f}")
print(
    f"exhaustive visited {ex_stats['leaves']} leaves; "
    f"beam scored {b_stats['candidates']} candidates"
)
bs_lm, bs_lp = S.beam_search(char_lm, prompt, 12, beam_width=4)
gr_lm, gr_lp = S.greedy_decode(char_lm, prompt, 12)
print(
    f"char LM, 12 characters: greedy {lm_tok.decode(gr_lm)!r} (log p {gr_lp:.2f}), "
    f"beam k=4 {lm_tok.decode(bs_lm)!r} (log p {bs_lp:.2f})"
)
verify("C8-47", "C8-48", "C8-49")

# %% [markdown]
#
# Beam search run three times on the character model: the same beams, the same text.

# %%
beam_runs = {
    tuple(S.beam_search(char_lm, prompt, 8, beam_width=3)[0]) for _ in range(3)
}
print(
    f"{len(beam_runs)} distinct result(s):",
    [lm_tok.decode(list(r_)) for r_ in beam_runs],
)
verify("C8-54")

# %% [markdown]
# ### 8.4.3 Conditional modeling
#
# To model $p(x \mid c)$ we do not need a new architecture: concatenate the condition
# and the sequence, $x' = [c \Vert x]$, and use the same causal model; then
# $\log p(x \mid c) = \log p([c \Vert x]) - \log p(c)$. A prompt is exactly such a
# condition. With a word-level lookup model, "The capital of France" continues with
# "is" and then "Paris".

# %%
c_ids, x_ids2 = lm_tok.encode("for "), lm_tok.encode("each")
print(f"log p('each' | 'for ') = {S.conditional_log_prob(char_lm, x_ids2, c_ids):.4f}")
verify("C8-50", "C8-51")

# %% [markdown]
# The condition is nothing more than the first tokens of the input, and the model
# reads it through its context. Below, the trigram model scores the same word "self"
# after three prompts: the total once as the product of the conditionals
# $p(x_i \mid x_{:i}, c)$ and once as $\log p([c \Vert x]) - \log p(c)$, and each
# conditional on its own. A trigram's context is two characters, so the prompt reaches
# only the first two conditionals; from the third on, the context lies inside "self"
# and the numbers no longer depend on $c$. A network with a longer context (Chapter 10's
# transformers read thousands of tokens) is conditioned by the whole prompt.

# %%
x_self = lm_tok.encode("self")
for c_text in ("def f(", "return ", "in the "):
    c_ = lm_tok.encode(c_text)
    per_char = [char_lm(c_ + x_self[:i])[x_self[i]] for i in range(len(x_self))]
    product = S.sequence_log_prob(char_lm, x_self, prompt=c_)
    difference = S.conditional_log_prob(char_lm, x_self, c_)
    print(
        f"c = {c_text!r:>10}: log p('self' | c) = {product:7.3f} "
        f"(difference form {difference:7.3f}); per character {np.round(per_char, 3)}"
    )

# %% [markdown]
# ## From theory to practice
#
# The book's exercise: pick a text-classification dataset, tokenize it into lists of
# integers, and train a 1-D CNN like Box 8.2. IMDB needs a download, so we build a
# labelled corpus offline from Python's documentation: sentences from the help topics
# on **statements** (`if`, `for`, `try`, …) against those on **types and objects**
# (sequences, mappings, numbers, …). A word tokenizer fitted on the training split,
# padding with masks, and `TextCNN` with 32 and 64 channels; lab 8 walks through the
# same steps as exercises.

# %%
texts, labels = T.topic_sentences()
n_train = int(0.8 * len(texts))
clf_tok = T.WordTokenizer(" ".join(texts[:n_train]), vocab_size=2000, lower=True)
m_max = 48
enc = [clf_tok.encode(s_)[:m_max] for s_ in texts]
Xtxt = torch.tensor(T.pad_sequences(enc, max_len=m_max))
Mtxt = torch.tensor(T.length_mask([len(e_) for e_ in enc], m_max))
Ytxt = torch.tensor(labels)
torch.manual_seed(0)
clf = TextCNN(clf_tok.vocab_size, 32, num_classes=2)
opt = torch.optim.Adam(clf.parameters(), lr=3e-3)
accs = []
for _ in range(4 if FAST else 10):
    perm = torch.randperm(n_train)
    for i in range(0, n_train, 32):
        b_ = perm[i : i + 32]
        loss = F.cross_entropy(clf(Xtxt[b_], Mtxt[b_]), Ytxt[b_])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        accs.append(
            float(
                (clf(Xtxt[n_train:], Mtxt[n_train:]).argmax(1) == Ytxt[n_train:])
                .float()
                .mean()
            )
        )
print(
    f"{len(texts)} sentences, vocabulary {clf_tok.vocab_size}; "
    "test accuracy per epoch:",
    [round(a_, 3) for a_ in accs],
)

# %% [markdown]
# ## Summary
#
# * Convolutions work on any data with ordered axes and channels; 1-D for series,
#   audio and text, 3-D for video. The index form with $t(i) = i - k - 1$ matches the
#   frameworks' kernels.
# * Variable lengths: pad, then mask after every layer and pool with a masked mean;
#   without the mask, padding leaks into the last real positions.
# * Text becomes integers through a tokenizer (character, word with `[OOV]`, BPE) and
#   vectors through an embedding lookup, trained with the model.
# * Dilations grow the receptive field exponentially; causal layers (left padding)
#   let one model forecast at every position and generate autoregressively.
# * An autoregressive model is a product of categorical conditionals trained with
#   cross-entropy; decoding can sample (temperature, top-k, top-p) or search (greedy,
#   beam, exhaustive), and greedy search can miss the most probable sequence.
#
# **Claims not asserted here.** The digest's claim 23 (nearest neighbours in a trained
# image CNN's embedding space share labels) would need a trained image backbone; it
# belongs with Chapter 7's models and is left out. The typos on lines 3732 (stray
# comma), 3750 ("without lack of generality"), 3754 (dangling "See Box") and 3872
# ("curresponding") are noted in the text above but not registered: there is nothing
# to compute.
