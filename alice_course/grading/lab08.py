"""Checks of lab 08 (chapter 8: a 1-D CNN text classifier with trainable embeddings).

Exercises: padding a batch of token lists and building its mask, the embedding
lookup and its gradient, masked mean pooling, the text CNN of Box 8.2 (with masks)
and one training epoch. Every check compares with ``alice_lab.text`` or
``torch.nn`` on seeded inputs chosen to expose the classic mistakes: token id 0
inside a sentence (a mask built from "id != 0" breaks), repeated ids (an assignment
``dE[ids] = G`` keeps only one of them), a transposed table (a square one would hide
it, so the vocabulary differs from the width), a mask forgotten in the pooling, a
missing ``zero_grad``. The references are ``alice_lab.text`` (padding, masks, the
TextCNN) or closed forms (a one-hot product, an einsum); the mutants change a setting
of one of them or rearrange its output.

Book: §8.2.1-§8.2.2 (lines 3740-3938) and "From theory to practice" (lines 4300-4324).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from alice_course.grading import _chain, _compare, mutant, register

# --- 8.1: pad and mask ----------------------------------------------------------------

_SEQS = [[5, 0, 3, 9], [7, 2], [1, 4, 0, 0, 6, 8, 2], [3]]


def _padded(seqs, max_len, *, side="right"):
    """``alice_lab.text``'s padding of ``seqs`` cut to ``max_len``, and the mask of
    the real tokens: the reference, and with ``side="left"`` one of its mutants."""
    from alice_lab.text import length_mask, pad_sequences

    cut = [list(s)[:max_len] for s in seqs]
    M = length_mask([len(s) for s in cut], max_len)
    return pad_sequences(cut, side=side, max_len=max_len), (
        M if side == "right" else M[:, ::-1]
    )


def _pad_ref():
    def pad_and_mask(seqs, max_len):
        return _padded(seqs, max_len)

    return pad_and_mask


@register("lab08.1", name="pad_and_mask", exercise="8.1", points=2, reference=_pad_ref)
def check_pad_and_mask(pad_and_mask: Callable) -> tuple[bool, str]:
    """pad_and_mask(seqs, max_len) -> X (b, max_len) ints, M (b, max_len) of 0/1."""
    from alice_lab.text import length_mask, pad_sequences

    def case(max_len):
        seqs = [list(s) for s in _SEQS]
        cut = [s[:max_len] for s in seqs]

        def want_X():
            return pad_sequences(cut, max_len=max_len)

        def want_M():
            return length_mask([len(s) for s in cut], max_len)

        def step():
            got = pad_and_mask([list(s) for s in seqs], max_len)
            if not isinstance(got, tuple | list) or len(got) != 2:
                return False, "pad_and_mask should return a pair (X, M)"
            ok, msg = _compare(f"X (max_len={max_len})", got[0], want_X, rtol=0, atol=0)
            if not ok:
                return ok, msg
            return _compare(f"M (max_len={max_len})", got[1], want_M, rtol=0, atol=0)

        return step

    return _chain(
        case(8),
        case(5),  # the third sentence is cut
        ok="zeros appended on the right; the mask marks the real tokens, id 0 included",
    )


@mutant("lab08.1", "mask built from the ids (id != 0), wrong when id 0 is a real token")
def _pad_mask_from_ids(seqs, max_len):
    X, _ = _pad_ref()(seqs, max_len)
    return X, (X != 0).astype(float)


@mutant("lab08.1", "padding on the left")
def _pad_left(seqs, max_len):
    return _padded(seqs, max_len, side="left")


@mutant("lab08.1", "mask inverted (ones on the padding)")
def _pad_inverted(seqs, max_len):
    X, M = _pad_ref()(seqs, max_len)
    return X, 1.0 - M


# --- 8.2: embedding lookup -----------------------------------------------------------


def _lookup_ref():
    def embedding_lookup(E, ids):
        """The rows of E, taken along axis 0."""
        return np.take(E, ids, axis=0)

    return embedding_lookup


@register(
    "lab08.2", name="embedding_lookup", exercise="8.2", points=2, reference=_lookup_ref
)
def check_embedding_lookup(embedding_lookup: Callable) -> tuple[bool, str]:
    """embedding_lookup(E (n, e), ids (b, m)) -> (b, m, e), as torch.nn.Embedding."""
    import torch

    def case(n, e, shape, seed):
        r = np.random.default_rng(seed)
        E = r.standard_normal((n, e))
        ids = r.integers(0, n, shape)

        def want():
            layer = torch.nn.Embedding(n, e, dtype=torch.float64)
            with torch.no_grad():
                layer.weight.copy_(torch.tensor(E))
            return layer(torch.tensor(ids)).detach().numpy()

        return lambda: _compare(
            f"lookup of ids {shape} in E ({n}×{e})",
            embedding_lookup(E.copy(), ids.copy()),
            want,
            rtol=0,
            atol=1e-12,
        )

    return _chain(
        case(11, 4, (3, 5), 0),
        case(6, 6, (2, 7), 1),  # square table: a transposed lookup keeps its shape
        ok="row x_i of E for every id: the same as torch.nn.Embedding",
    )


@mutant("lab08.2", "columns instead of rows (E.T[ids])")
def _lookup_transposed(E, ids):
    return E.T[ids % E.shape[1]]


@mutant("lab08.2", "ids counted from 1 (E[ids - 1])")
def _lookup_off_by_one(E, ids):
    return E[ids - 1]


@mutant(
    "lab08.2", "one-hot matrix built over the sequence length instead of the vocabulary"
)
def _lookup_wrong_onehot(E, ids):
    m = ids.shape[-1]
    oh = (ids[..., None] == np.arange(m)).astype(float)
    return oh @ E[:m]


# --- 8.3: gradient of the lookup -----------------------------------------------------


def _grad_ref():
    def embedding_grad(ids, G, n):
        """The lookup is a product with one-hot rows, so dE = onehot(ids)ᵀ G."""
        return np.einsum("bmn,bme->ne", np.eye(n)[ids], G)

    return embedding_grad


@register(
    "lab08.3", name="embedding_grad", exercise="8.3", points=2, reference=_grad_ref
)
def check_embedding_grad(embedding_grad: Callable) -> tuple[bool, str]:
    """embedding_grad(ids (b, m), G (b, m, e), n) -> dL/dE (n, e), as torch's grad."""
    import torch

    def case(n, e, shape, seed):
        r = np.random.default_rng(seed)
        ids = r.integers(0, n, shape)
        ids.flat[1] = ids.flat[0]  # at least one repeated id
        G = r.standard_normal((*shape, e))

        def want():
            layer = torch.nn.Embedding(n, e, dtype=torch.float64)
            (layer(torch.tensor(ids)) * torch.tensor(G)).sum().backward()
            return layer.weight.grad.numpy()

        return lambda: _compare(
            f"dE ({n}×{e}) for ids {shape}",
            embedding_grad(ids.copy(), G.copy(), n),
            want,
            rtol=1e-10,
            atol=1e-12,
        )

    return _chain(
        case(9, 3, (2, 6), 2),
        case(5, 4, (3, 8), 3),
        ok="a scatter-add: rows not looked up get 0, repeated ids add up",
    )


def _written_by_index(ids, G, n, *, add: bool):
    """``out[ids] = G`` or ``out[ids] += G`` with fancy indexing, which writes a
    repeated id once (the last one wins): the two scatter mistakes."""
    rows = G.reshape(ids.size, -1)
    out = np.zeros((n, rows.shape[1]))
    if add:
        out[ids.ravel()] += rows
    else:
        out[ids.ravel()] = rows
    return out


@mutant("lab08.3", "assignment dE[ids] = G (repeated ids keep only the last)")
def _grad_assign(ids, G, n):
    return _written_by_index(ids, G, n, add=False)


@mutant("lab08.3", "fancy-index += (not accumulated for repeated ids)")
def _grad_iadd(ids, G, n):
    return _written_by_index(ids, G, n, add=True)


@mutant("lab08.3", "mean over the batch instead of the sum")
def _grad_mean(ids, G, n):
    return _grad_ref()(ids, G, n) / ids.shape[0]


# --- 8.4: masked mean pooling --------------------------------------------------------


def _mean_ref():
    def masked_mean(H, M):
        """The mask-weighted sum over positions, over the number of real ones."""
        return np.einsum("btc,bt->bc", H, M) / M.sum(1)[:, None]

    return masked_mean


@register("lab08.4", name="masked_mean", exercise="8.4", points=2, reference=_mean_ref)
def check_masked_mean(masked_mean: Callable) -> tuple[bool, str]:
    """masked_mean(H (b, t, c), M (b, t)) -> (b, c): the mean over real positions."""

    def case(lengths, c, seed):
        r = np.random.default_rng(seed)
        seqs = [r.standard_normal((n, c)) for n in lengths]
        t = max(lengths)
        H = np.stack([np.vstack([s, r.standard_normal((t - len(s), c))]) for s in seqs])
        M = (np.arange(t)[None] < np.array(lengths)[:, None]).astype(float)
        return lambda: _compare(  # junk in the padding on purpose
            f"masked mean for lengths {lengths}",
            masked_mean(H.copy(), M.copy()),
            lambda: np.stack([s.mean(0) for s in seqs]),
            rtol=1e-10,
            atol=1e-12,
        )

    return _chain(
        case([5, 2, 4], 3, 4),
        case([3, 3, 1], 3, 5),
        ok="equal to the mean of each sequence without its padding",
    )


@mutant("lab08.4", "plain mean over all positions (mask ignored)")
def _mean_plain(H, M):
    return H.mean(1)


@mutant("lab08.4", "masked sum divided by the padded length")
def _mean_by_tmax(H, M):
    return _mean_sum(H, M) / H.shape[1]


@mutant("lab08.4", "mask applied but the sum not divided (sum pooling)")
def _mean_sum(H, M):
    return _mean_ref()(H, M) * M.sum(1)[:, None]


# --- 8.5: the text CNN of Box 8.2, with masks ---------------------------------------


def _cnn_ref():
    from alice_lab.text.torch_models import TextCNN

    class RefTextCNN(TextCNN):
        def __init__(self, n, e, num_classes=10):
            super().__init__(n, e, num_classes=num_classes)

    return RefTextCNN


def _box82_weights(n: int, e: int, k: int, seed: int) -> dict:
    """Seeded weights with the names and shapes of Box 8.2 (n words, e dimensions,
    k classes), uniform with variance 1 / fan-in (1 for the embedding): what the
    check loads into the student's model and into the reference."""
    import torch

    shapes = {  # name: (shape, fan-in)
        "emb.weight": ((n, e), 1),
        "conv1.weight": ((32, e, 5), 5 * e),
        "conv1.bias": ((32,), 5 * e),
        "conv2.weight": ((64, 32, 5), 5 * 32),
        "conv2.bias": ((64,), 5 * 32),
        "head.weight": ((k, 64), 64),
        "head.bias": ((k,), 64),
    }
    g = torch.Generator().manual_seed(seed)
    return {
        name: (2 * torch.rand(shape, generator=g) - 1) * 3**0.5 / fan_in**0.5
        for name, (shape, fan_in) in shapes.items()
    }


def _cnn_inputs(n, seed):
    import torch

    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, n, (4, 12), generator=g)
    lengths = torch.tensor([12, 7, 4, 10])
    M = (torch.arange(12)[None] < lengths[:, None]).float()
    return x, M


@register("lab08.5", name="TextCNN", exercise="8.5", points=3, reference=_cnn_ref)
def check_text_cnn(TextCNN: Callable) -> tuple[bool, str]:
    """TextCNN(n, e, num_classes) with attributes emb, conv1, conv2, head; forward
    (x (b, m), mask (b, m) or None) -> (b, num_classes)."""
    import torch

    weights = _box82_weights(30, 8, 3, seed=0)
    n_box = sum(w.numel() for w in weights.values())
    mine = TextCNN(30, 8, 3)
    n_mine = sum(p.numel() for p in mine.parameters())
    if n_mine != n_box:
        return (
            False,
            f"the model has {n_mine} parameters; Box 8.2 with n=30, e=8 and 3 "
            f"classes has {n_box}",
        )
    try:
        mine.load_state_dict(weights)
    except RuntimeError as err:
        return (
            False,
            f"parameter names must be emb, conv1, conv2, head: {str(err)[:200]}",
        )
    x, M = _cnn_inputs(30, 1)
    with torch.no_grad():
        got = [mine(x.clone()), mine(x.clone(), M.clone())]

    @functools.cache
    def expected():
        """The reference model's logits with the same weights: (no mask, mask)."""
        ref = _cnn_ref()(30, 8, 3)
        ref.load_state_dict(weights)
        with torch.no_grad():
            return ref(x).numpy(), ref(x, M).numpy()

    tol = {"rtol": 1e-5, "atol": 1e-6}
    return _chain(
        lambda: _compare("logits without a mask", got[0], lambda: expected()[0], **tol),
        lambda: _compare("logits with a mask", got[1], lambda: expected()[1], **tol),
        ok="Box 8.2's shapes and parameters; with the mask, padding changes nothing",
    )


def _mutant_cnn(variant: str):
    """``alice_lab``'s TextCNN (Box 8.2's layers) with a forward pass that makes the
    mistake ``variant`` names."""
    import torch
    from torch.nn.functional import avg_pool1d, max_pool1d, relu

    from alice_lab.text.torch_models import TextCNN

    class Wrong(TextCNN):
        def __init__(self, n, e, num_classes=10):
            super().__init__(n, e, num_classes=num_classes)

        def features(self, x, mask=None):
            # no mask is a mask of ones: every product with it is exact
            m = torch.ones(x.shape) if mask is None else mask.float()
            m = m[:, None]
            h = relu(self.conv1(self.emb(x).transpose(1, 2) * m))
            if variant != "no re-mask":
                h = h * m
            pool = avg_pool1d if variant == "avg pool" else max_pool1d
            m = max_pool1d(m, 2)
            h = relu(self.conv2(pool(h, 2) * m))
            if variant == "plain mean":
                return h.mean(2)
            return (h * m).sum(2) / m.sum(2)

    return Wrong


@mutant("lab08.5", "mask ignored in the final mean")
def _cnn_plain_mean(n, e, num_classes=10):
    return _mutant_cnn("plain mean")(n, e, num_classes)


@mutant("lab08.5", "features not re-masked after the first convolution")
def _cnn_no_remask(n, e, num_classes=10):
    return _mutant_cnn("no re-mask")(n, e, num_classes)


@mutant("lab08.5", "average pooling instead of max pooling")
def _cnn_avg_pool(n, e, num_classes=10):
    return _mutant_cnn("avg pool")(n, e, num_classes)


# --- 8.6: one training epoch ---------------------------------------------------------


def _epoch(
    model, X, M, y, opt, batch_size=32, *, fresh=True, masked=True, report="mean"
):
    """One epoch in ``torch.optim``'s closure style, ``opt.step(closure)`` for each
    batch of ``torch.split``: the reference; each keyword set otherwise is a mutant
    (gradients kept from the last batch, the mask not passed, the last loss
    reported)."""
    import torch.nn.functional as F

    def closure(xb, mb, yb):
        if fresh:
            model.zero_grad(set_to_none=True)
        logits = model(xb, mb) if masked else model(xb)
        batch_loss = F.cross_entropy(logits, yb)
        batch_loss.backward()
        return batch_loss

    batches = zip(*(t.split(batch_size) for t in (X, M, y)), strict=True)
    losses = [opt.step(functools.partial(closure, *b)).item() for b in batches]
    return losses[-1] if report == "last" else sum(losses) / len(losses)


def _epoch_ref():
    return _epoch


@register("lab08.6", name="train_epoch", exercise="8.6", points=3, reference=_epoch_ref)
def check_train_epoch(train_epoch: Callable) -> tuple[bool, str]:
    """train_epoch(model, X, M, y, opt, batch_size) -> mean batch loss; batches in
    order, one optimizer step each."""
    import torch

    Ref = _cnn_ref()
    x, M = _cnn_inputs(20, 2)
    X = x.repeat(5, 1)  # 20 sentences
    Mx = M.repeat(5, 1)
    y = torch.arange(20) % 3

    def run(fn):
        """One epoch of ``fn`` from the same seeded model and optimizer: (mean loss,
        the weights after it)."""
        torch.manual_seed(3)
        model = Ref(20, 6, 3)
        opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
        loss = fn(model, X.clone(), Mx.clone(), y.clone(), opt, batch_size=6)
        return float(loss), torch.cat(
            [p.detach().flatten() for p in model.parameters()]
        )

    got_loss, got_w = run(train_epoch)
    expected = functools.cache(lambda: run(_epoch_ref()))
    return _chain(
        lambda: _compare(
            "the returned mean loss",
            got_loss,
            lambda: expected()[0],
            rtol=1e-5,
            atol=1e-6,
        ),
        lambda: _compare(
            "the weights after one epoch",
            got_w,
            lambda: expected()[1].numpy(),
            rtol=1e-4,
            atol=1e-5,
        ),
        ok="one step per batch with fresh gradients, the mask passed to the model",
    )


@mutant("lab08.6", "no zero_grad: gradients accumulate across batches")
def _epoch_no_zero_grad(model, X, M, y, opt, batch_size=32):
    return _epoch(model, X, M, y, opt, batch_size, fresh=False)


@mutant("lab08.6", "mask not passed to the model")
def _epoch_no_mask(model, X, M, y, opt, batch_size=32):
    return _epoch(model, X, M, y, opt, batch_size, masked=False)


@mutant("lab08.6", "returns the last batch's loss instead of the mean")
def _epoch_last_loss(model, X, M, y, opt, batch_size=32):
    return _epoch(model, X, M, y, opt, batch_size, report="last")
