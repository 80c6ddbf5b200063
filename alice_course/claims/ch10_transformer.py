"""Checkable claims of Chapter 10, §10.3 and "From theory to practice": the
transformer block, pooling, class and register tokens, the multi-view model (book lines
5464-5602).

References outside ``alice_lab``: PyTorch modules (``nn.Linear``, ``nn.LayerNorm``,
``nn.MultiheadAttention``), NumPy statistics, an explicit null-space computation for the
deep-sets characterisation.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng


def _perm(n: int, seed: int) -> np.ndarray:
    r = _rng(seed)
    while True:
        p = r.permutation(n)
        if np.any(p != np.arange(n)):
            return np.eye(n)[p]


def _block(e=8, h=2, seed=0):
    """Bias-free block parameters (the book's §10.3 block), p = 4e."""
    from alice_lab.transformer import init_block_params

    return init_block_params(e, h, 4 * e, rng=_rng(seed), bias=False)


@claim(
    "C10-44",
    section="10.3.1",
    lines=(5470, 5478),
    statement="The token-wise MLP is permutation equivariant and changing one token "
    "changes only its own output row; MHA mixes tokens, so one changed token changes "
    "every output row.",
)
def _c10_44() -> str:
    from alice_lab.attention import multi_head_attention
    from alice_lab.transformer import mlp_block

    p = _block()
    X, P = _rng(44).standard_normal((6, 8)), _perm(6, 44)
    mlp = lambda Z: mlp_block(Z, p["mlp"]["W1"], p["mlp"]["W2"])  # noqa: E731
    mha = lambda Z: multi_head_attention(Z, p["attn"], heads=2)  # noqa: E731
    eq = _maxerr(mlp(P @ X), P @ mlp(X))
    X2 = X.copy()
    X2[2] += 1.0
    d_mlp = np.abs(mlp(X2) - mlp(X)).max(1)
    d_mha = np.abs(mha(X2) - mha(X)).max(1)
    assert eq < 1e-12 and np.all(np.delete(d_mlp, 2) == 0) and d_mlp[2] > 0
    assert np.all(d_mha > 1e-6), d_mha
    return (
        f"MLP: equivariant ({eq:.0e}), only row 2 moves; "
        f"MHA: all rows move (min {d_mha.min():.1e})"
    )


@claim(
    "C10-45",
    section="10.3.1",
    lines=(5478, 5484),
    statement="The bias-free MLP with W_1 ~ (p, e), W_2 ~ (e, p) has 2pe parameters, "
    "8e² for p = 4e.",
)
def _c10_45() -> str:
    import torch

    e = 32
    mlp = torch.nn.Sequential(
        torch.nn.Linear(e, 4 * e, bias=False),
        torch.nn.GELU(),
        torch.nn.Linear(4 * e, e, bias=False),
    )
    count = sum(q.numel() for q in mlp.parameters())
    assert count == 8 * e * e == 2 * (4 * e) * e
    assert tuple(mlp[0].weight.shape) == (4 * e, e)  # torch stores W_1 as (p, e) too
    return f"e = {e}: {count} = 8e²"


@claim(
    "C10-46",
    section="10.3.1",
    lines=(5486, 5494),
    statement="Post-norm applies layer normalisation after each residual sum, so its "
    "outputs have zero mean and unit variance per token; pre-norm normalises the "
    "inputs of each sublayer and its outputs are not normalised.",
    equation="Figure F.10.7",
)
def _c10_46() -> str:
    from alice_lab.transformer import transformer_block

    p = _block(seed=46)
    X = 3.0 * _rng(46).standard_normal((7, 8)) + 1.0
    post = transformer_block(X, p, heads=2, norm="post")
    pre = transformer_block(X, p, heads=2, norm="pre")
    assert _maxerr(post.mean(1), 0) < 1e-12 and _maxerr(post.var(1), 1) < 1e-3
    dev = float(np.abs(pre.var(1) - 1).max())
    assert dev > 0.5, dev
    return (
        f"post-norm rows: mean 0, var 1; pre-norm rows' variance off by up to {dev:.1f}"
    )


@claim(
    "C10-48",
    section="10.3.1",
    lines=(5516, 5520),
    statement="A stack of blocks keeps both dimensions: (n, e) in, (n, e) out, for "
    "any n.",
)
def _c10_48() -> str:
    import torch

    from alice_lab.transformer import TransformerBlock

    torch.manual_seed(0)
    blocks = torch.nn.Sequential(*(TransformerBlock(16, 4) for _ in range(3)))
    shapes = [tuple(blocks(torch.zeros(2, n, 16)).shape) for n in (1, 5, 33)]
    assert shapes == [(2, 1, 16), (2, 5, 16), (2, 33, 16)], shapes
    return f"3 blocks: {shapes}"


@claim(
    "C10-49",
    section="10.3.1",
    lines=(5522, 5532),
    statement="Without positional embeddings, blocks followed by mean pooling and an "
    "MLP head give a permutation-invariant model.",
)
def _c10_49() -> str:
    import torch

    from alice_lab.transformer import TransformerBlock

    torch.manual_seed(1)
    enc = torch.nn.Sequential(TransformerBlock(8, 2), TransformerBlock(8, 2)).double()
    head = torch.nn.Linear(8, 3).double()
    x = torch.as_tensor(_rng(49).standard_normal((2, 7, 8)))
    perm = torch.as_tensor(_rng(50).permutation(7))

    def model(z):
        return torch.softmax(head(enc(z).mean(1)), -1)

    err = float((model(x[:, perm]) - model(x)).abs().max().detach())
    assert err < 1e-12, err
    return f"|model(PX) − model(X)| = {err:.0e}"


@claim(
    "C10-50",
    section="10.3.2",
    lines=(5540, 5552),
    statement="Appending the class token gives (n + 1, e); the same trainable c is "
    "shared by every sequence of a batch, so its gradient sums over the batch.",
)
def _c10_50() -> str:
    import torch

    from alice_lab.transformer import add_class_token

    X = torch.as_tensor(_rng(51).standard_normal((3, 5, 4)))
    c = torch.zeros(4, dtype=torch.float64, requires_grad=True)
    Xa = add_class_token(X, c)
    assert tuple(Xa.shape) == (3, 6, 4) and bool((Xa[:, -1] == c).all())
    w = torch.as_tensor(_rng(52).standard_normal((3, 4)))
    (Xa[:, -1] * w).sum().backward()
    err = float((c.grad - w.sum(0)).abs().max())
    assert err < 1e-12, err
    return "(3, 5, 4) → (3, 6, 4); ∂/∂c = sum over the batch"


@claim(
    "C10-51",
    section="10.3.2",
    lines=(5554, 5558),
    statement="A head reading only the class token's output H_{n+1} is invariant to "
    "permutations of the n content tokens (no positional embeddings).",
)
def _c10_51() -> str:
    from alice_lab.transformer import add_class_token, transformer_block

    p = _block(seed=51)
    X = _rng(53).standard_normal((6, 8))
    c = _rng(54).standard_normal(8)
    f = lambda Z: transformer_block(add_class_token(Z, c), p, heads=2)[-1]  # noqa: E731
    err = _maxerr(f(_perm(6, 55) @ X), f(X))
    assert err < 1e-12, err
    return f"class-token output moves by {err:.0e}"


@claim(
    "C10-52",
    section="10.3.2",
    lines=(5560, 5564),
    statement="Register tokens are extra trainable rows, attended to and then dropped: "
    "(n + r, e) in, (n, e) out, and they change the content tokens' outputs.",
)
def _c10_52() -> str:
    from alice_lab.transformer import transformer_block

    p = _block(seed=52)
    X = _rng(56).standard_normal((5, 8))
    R = _rng(57).standard_normal((3, 8))
    H = transformer_block(np.concatenate([X, R]), p, heads=2)[:5]
    H0 = transformer_block(X, p, heads=2)
    gap = _maxerr(H, H0)
    assert H.shape == (5, 8) and gap > 1e-3, gap
    return (
        "(8, 8) → (5, 8); content outputs differ from the no-register model "
        f"by {gap:.2f}"
    )


# =====================================================================================
# From theory to practice: the multi-view model
# =====================================================================================


def _multiview_model(e: int = 16, seed: int = 0):
    """A tiny multi-view classifier: conv backbone per view, one block, mean, head."""
    import torch
    from torch import nn

    from alice_lab.transformer import TransformerBlock

    torch.manual_seed(seed)

    class MV(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = nn.Sequential(
                nn.Conv2d(1, 8, 3, padding=1),
                nn.ReLU(),
                nn.AdaptiveAvgPool2d(2),
                nn.Flatten(),
                nn.Linear(32, e),
            )
            self.block = TransformerBlock(e, 2)
            self.head = nn.Linear(e, 10)

        def embed(self, x):  # x (b, v, h, w, c) -> H (b, v, e)
            views = x.flatten(0, 1).movedim(-1, 1)  # (b * v, c, h, w)
            return self.backbone(views).unflatten(0, x.shape[:2])

        def forward(self, x):
            return self.head(self.block(self.embed(x)).mean(1))

    return MV().double()


def _views(b, v, seed):
    import torch

    return torch.as_tensor(_rng(seed).standard_normal((b, v, 8, 8, 1)))


@claim(
    "C10-53",
    section="10.3",
    lines=(5592, 5594),
    statement="Multi-view inputs have shape (v, h, w, c) per example and v may change "
    "between mini-batches: the same model maps (b, v, h, w, c) to (b, classes) for "
    "v = 2 and v = 5.",
)
def _c10_53() -> str:
    m = _multiview_model()
    shapes = [tuple(m(_views(3, v, v)).shape) for v in (2, 5)]
    assert shapes == [(3, 10), (3, 10)], shapes
    return f"v = 2 and 5 → {shapes}"


@claim(
    "C10-54",
    section="10.3",
    lines=(5596, 5598),
    statement="The backbone turns the views into H ~ (v, e), and the transformer block "
    "applied to H is permutation equivariant over the views.",
)
def _c10_54() -> str:
    import torch

    m = _multiview_model(seed=1)
    x = _views(2, 4, 58)
    H = m.embed(x)
    perm = torch.tensor([2, 0, 3, 1])
    err = float(
        (m.block(m.embed(x[:, perm])) - m.block(H)[:, perm]).abs().max().detach()
    )
    assert tuple(H.shape) == (2, 4, 16) and err < 1e-12, err
    return f"H {tuple(H.shape)}; equivariance error {err:.0e}"


@claim(
    "C10-55",
    section="10.3",
    lines=(5598, 5598),
    statement="Averaging the views is permutation invariant, and the linear "
    "permutation-equivariant maps of n vectors are exactly λX + γ11ᵀX (deep sets): a "
    "two-dimensional space.",
)
def _c10_55() -> str:
    n = 4
    X = _rng(59).standard_normal((n, 3))
    P = _perm(n, 59)
    assert _maxerr((P @ X).mean(0), X.mean(0)) < 1e-15
    # all L (n x n) with L P = P L for every permutation: null space of the constraints
    import itertools

    rows = []
    for p in itertools.permutations(range(n)):
        Pm = np.eye(n)[list(p)]
        rows.append(np.kron(np.eye(n), Pm.T) - np.kron(Pm, np.eye(n)))  # vec(LP − PL)
    M = np.concatenate(rows)
    sv = np.linalg.svd(M, compute_uv=False)
    dim = int(np.sum(sv < 1e-10)) + max(0, n * n - len(sv))
    lam, gam = 0.7, -1.3
    L = lam * np.eye(n) + gam * np.ones((n, n))
    assert dim == 2 and _maxerr(L @ P @ X, P @ L @ X) < 1e-14, dim
    return f"mean invariant; commuting n×n maps form a space of dimension {dim}"


@claim(
    "C10-56",
    section="10.3",
    lines=(5600, 5600),
    statement="Backbone, transformer block, mean over views and head: the whole "
    "multi-view model is invariant to the order of the views.",
)
def _c10_56() -> str:
    import torch

    m = _multiview_model(seed=2)
    x = _views(3, 5, 60)
    perm = torch.as_tensor(_rng(61).permutation(5))
    err = float((m(x[:, perm]) - m(x)).abs().max().detach())
    assert err < 1e-12, err
    return f"|f(x[:, perm]) − f(x)| = {err:.0e}"
