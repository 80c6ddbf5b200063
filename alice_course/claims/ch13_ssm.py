"""Checkable claims of Chapter 13, §13.3: linear SSMs, associative scans and diagonal
SSMs (book lines 6519-6711), with the errata on the scan's cost (line 6651) and on the
diagonal SSM's input matrix (line 6679). References: hand-written loops, NumPy matrix
powers and eigendecompositions, scipy, jax.lax.associative_scan."""

from __future__ import annotations

import operator

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng
from alice_lab.backend import parity_precision


def _ssm(seed: int, e: int = 4, c: int = 2, o: int = 3, n: int = 10, rho: float = 0.9):
    r = _rng(seed)
    A = r.standard_normal((e, e))
    A *= rho / np.max(np.abs(np.linalg.eigvals(A)))
    return (
        A,
        r.standard_normal((e, c)),
        r.standard_normal((o, e)),
        r.standard_normal((o, c)),
        r.standard_normal((n, c)),
    )


def _loop(X, A, B):
    s, out = np.zeros(A.shape[0], dtype=np.result_type(A, B, 1.0)), []
    for x in X:
        s = A @ s + B @ x
        out.append(s)
    return np.array(out)


@claim(
    "C13-18",
    section="13.3.1",
    lines=6537,
    statement="Without a non-linearity the SSM is linear in its input: "
    "ssm(aX₁ + bX₂) = a·ssm(X₁) + b·ssm(X₂).",
)
def _c13_18() -> str:
    from alice_lab.recurrent import linear_ssm

    A, B, C, D, X1 = _ssm(0)
    X2 = _rng(1).standard_normal(X1.shape)
    f = lambda X: linear_ssm(X, A, B, C, D)[0]  # noqa: E731
    err = _maxerr(f(2 * X1 - 3 * X2), 2 * f(X1) - 3 * f(X2))
    assert err < 1e-12, err
    return f"superposition error {err:.0e}"


@claim(
    "C13-19",
    section="13.3.1",
    lines=6547,
    statement="Unrolled, s_i = Σ_{j≤i} A^{i−j} B x_j (the closed form equals the "
    "recurrence).",
)
def _c13_19() -> str:
    from alice_lab.recurrent import ssm_closed_form

    A, B, _, _, X = _ssm(2)
    err = _maxerr(ssm_closed_form(X, A, B), _loop(X, A, B))
    assert err < 1e-12, err
    return f"closed form vs loop: {err:.0e}"


@claim(
    "C13-20",
    section="13.3.1",
    lines=(6555, 6567),
    statement="The SSM is a causal convolution with K = stack(A^{n−1}B, …, AB, B) "
    "(shape (n, e, c)); for one channel an FFT convolution gives the same.",
)
def _c13_20() -> str:
    from alice_lab.recurrent import ssm_conv, ssm_conv_fft, ssm_kernel

    A, B, _, _, X = _ssm(3)
    K = ssm_kernel(A, B, len(X))
    assert K.shape == (10, 4, 2)
    err = _maxerr(ssm_conv(X, K), _loop(X, A, B))
    r = _rng(4)
    x, k = r.standard_normal(64), r.standard_normal(64)
    err_fft = _maxerr(ssm_conv_fft(x, k), np.convolve(x, k)[:64])
    assert err < 1e-12 and err_fft < 1e-10, (err, err_fft)
    return f"K {K.shape}; conv vs loop {err:.0e}; FFT vs np.convolve {err_fft:.0e}"


@claim(
    "C13-21",
    section="13.3.2",
    lines=(6575, 6631),
    statement="A parallel scan gives the same prefixes as the sequential loop for "
    "any associative operator (+, max, matrix product, the SSM operator), also in "
    "jax.lax.associative_scan.",
    equation="Figure F.13.3",
)
def _c13_21() -> str:
    import jax

    from alice_lab.recurrent import associative_scan, ssm_op

    r = _rng(5)
    xs = r.standard_normal(13)
    errs = []
    for alg in ("blelloch", "hillis_steele"):
        errs.append(
            _maxerr(
                associative_scan(operator.add, list(xs), algorithm=alg), np.cumsum(xs)
            )
        )
        assert associative_scan(max, list(xs), algorithm=alg) == list(
            np.maximum.accumulate(xs)
        )
        Ms = r.standard_normal((9, 3, 3))
        got = associative_scan(lambda a, b: b @ a, list(Ms), algorithm=alg)
        acc, want = np.eye(3), []
        for M in Ms:
            acc = M @ acc
            want.append(acc)
        errs.append(_maxerr(got, want))
    A, B, _, _, X = _ssm(6)
    S = np.array([p[1] for p in associative_scan(ssm_op, [(A, B @ x) for x in X])])
    errs.append(_maxerr(S, _loop(X, A, B)))
    with parity_precision():  # float64 in JAX (jax.enable_x64 is new in 0.5)
        jx = jax.lax.associative_scan(jax.numpy.add, xs)
    errs.append(_maxerr(jx, np.cumsum(xs)))
    assert max(errs) < 1e-10, errs
    return f"max deviation from the loop: {max(errs):.0e} (NumPy trees and JAX)"


@claim(
    "C13-22",
    section="13.3.2",
    lines=(6599, 6629),
    statement="On six elements the book's scan takes 7 ⋆ applications in 3 parallel "
    "levels (3 + 2 + 2) instead of 5 sequential ones; in general Hillis-Steele needs "
    "⌈log₂ n⌉ levels.",
)
def _c13_22() -> str:
    from alice_lab.recurrent import associative_scan, scan_schedule

    calls = []

    def counted(a, b):
        calls.append((a, b))
        return a + b

    out, trace = associative_scan(
        counted, [1, 2, 3, 4, 5, 6], return_trace=True, check_associative=False
    )
    assert out == [1, 3, 6, 10, 15, 21] and len(calls) == 7
    assert [len(lv) for lv in trace.levels] == [3, 2, 2]
    seq = scan_schedule(6, "sequential")
    depths = [scan_schedule(n, "hillis_steele").depth for n in (6, 16, 100)]
    assert (seq.work, seq.depth) == (5, 5) and depths == [3, 4, 7]
    return (
        "7 ops in levels 3 + 2 + 2 (sequential: 5 ops, 5 levels); HS depth "
        f"for n = 6, 16, 100: {depths}"
    )


@claim(
    "C13-23",
    section="13.3.2",
    lines=6637,
    statement="The SSM operator (Z, z) ⋆ (V, v) = (VZ, Vz + v) is associative.",
)
def _c13_23() -> str:
    from alice_lab.recurrent import ssm_op

    r = _rng(7)
    a, b, c = ((r.standard_normal((3, 3)), r.standard_normal(3)) for _ in range(3))
    left, right = ssm_op(ssm_op(a, b), c), ssm_op(a, ssm_op(b, c))
    err = max(_maxerr(left[0], right[0]), _maxerr(left[1], right[1]))
    assert err < 1e-12, err
    return f"(a⋆b)⋆c vs a⋆(b⋆c): {err:.0e}"


@claim(
    "C13-24",
    section="13.3.2",
    lines=6647,
    statement="Scanning the pairs (A, Bx_i) gives the prefixes (A^i, s_i), also with "
    "jax.lax.associative_scan (fn(earlier, later)).",
)
def _c13_24() -> str:
    import jax
    import jax.numpy as jnp

    from alice_lab.recurrent import ssm_scan

    A, B, _, _, X = _ssm(8)
    S, P = ssm_scan(X, A, B, return_powers=True)
    errP = max(_maxerr(P[i], np.linalg.matrix_power(A, i + 1)) for i in range(len(X)))
    errS = _maxerr(S, _loop(X, A, B))

    def fn(earlier, later):
        (Z, z), (V, v) = earlier, later
        return V @ Z, jnp.einsum("...ij,...j->...i", V, z) + v

    with parity_precision():  # float64 in JAX (jax.enable_x64 is new in 0.5)
        Pj, Sj = jax.lax.associative_scan(
            fn, (jnp.broadcast_to(A, (len(X), 4, 4)), X @ B.T)
        )
    errJ = max(_maxerr(Pj, P), _maxerr(Sj, S))
    assert max(errP, errS, errJ) < 1e-12, (errP, errS, errJ)
    return f"powers {errP:.0e}, states {errS:.0e}, JAX {errJ:.0e}"


def _op_cost(e: int, n: int) -> int:
    """Multiply-adds of every ⋆ in a sequential scan of n pairs with a dense (e, e)
    A."""
    from alice_lab.recurrent import sequential_scan, ssm_op

    costs = []

    def counted(a, b):
        (Z, _), (V, _) = a, b
        costs.append(V.shape[0] * V.shape[1] * Z.shape[1] + V.shape[0] * V.shape[1])
        return ssm_op(a, b)

    r = _rng(9)
    sequential_scan(
        counted, [(r.standard_normal((e, e)), r.standard_normal(e)) for _ in range(n)]
    )
    assert len(set(costs)) == 1
    return costs[0]


@claim(
    "C13-25",
    section="13.3.3",
    lines=(6651, 6655),
    statement="With a dense A each ⋆ is a matrix product, O(e³); with a diagonal A "
    "it is elementwise, O(e), and the scan stores λ powers as (n, e), not "
    "(n, e, e).",
)
def _c13_25() -> str:

    from alice_lab.recurrent import jax_associative_scan, linear_recurrence_op

    dense = [_op_cost(e, 5) for e in (4, 8)]
    assert dense == [e**3 + e**2 for e in (4, 8)], dense  # V Z, then V z
    lam = np.full((20, 6), 0.9)
    with parity_precision():  # float64 in JAX (jax.enable_x64 is new in 0.5)
        powers, _ = jax_associative_scan(linear_recurrence_op, (lam, np.ones((20, 6))))
    assert powers.shape == (20, 6)
    err = _maxerr(powers[-1], 0.9**20 * np.ones(6))
    assert err < 1e-12
    return (
        f"dense ⋆ cost e=4 → {dense[0]}, e=8 → {dense[1]} (e³ + e²); diagonal powers "
        f"(20, 6)"
    )


@claim(
    "E13-03",
    section="13.3.2",
    lines=6651,
    statement="The cost of one ⋆ with a dense A is O(e³) in the *state size* e and "
    "does not depend on the sequence length n.",
    erratum="… scales as O(n³) (n is the sequence length elsewhere in the chapter)",
)
def _e13_03() -> str:
    same_e = [_op_cost(4, n) for n in (4, 64)]
    assert same_e[0] == same_e[1], same_e
    assert _op_cost(8, 4) > 7 * _op_cost(4, 4)
    return f"e = 4: {same_e[0]} multiply-adds per ⋆ for n = 4 and n = 64"


@claim(
    "C13-26",
    section="13.3.3",
    lines=(6661, 6671),
    statement="If A = PΛP⁻¹ then A^i = PΛ^iP⁻¹ (eigenvalues possibly complex).",
)
def _c13_26() -> str:
    from alice_lab.recurrent import diagonalize

    A = _ssm(10, e=5)[0]
    lam, P, P_inv = diagonalize(A)
    err = max(
        _maxerr((P * lam**i) @ P_inv, np.linalg.matrix_power(A, i))
        for i in range(1, 12)
    )
    assert np.abs(lam.imag).max() > 0 and err < 1e-12, err
    return f"i = 1..11: {err:.0e} (complex eigenvalues: {int((lam.imag != 0).sum())})"


@claim(
    "E13-04",
    section="13.3.3",
    lines=(6679, 6709),
    statement="The diagonal SSM with B̄ = P⁻¹B and C̄ = CP gives the same outputs as "
    "the original (real part); the printed PB does not.",
    erratum="new input-state matrix B̄ = PB",
    equation="E.13.22, E.13.23",
)
def _e13_04() -> str:
    from alice_lab.recurrent import diagonal_ssm

    A, B, C, D, X = _ssm(11)
    Y = _loop(X, A, B) @ C.T + X @ D.T
    lam, P = np.linalg.eig(A)  # outside alice_lab
    good = _maxerr(diagonal_ssm(X, lam, np.linalg.solve(P, B), C @ P, D), Y)
    bad = _maxerr(diagonal_ssm(X, lam, P @ B, C @ P, D), Y)
    assert good < 1e-10 and bad > 1e-2, (good, bad)
    return f"P⁻¹B: {good:.0e}; printed PB: {bad:.2f}"


@claim(
    "C13-27",
    section="13.3.3",
    lines=(6693, 6705),
    statement="The diagonalised SSM can run as a recurrence, a parallel scan or a "
    "convolution with kernel λ^k, all equal to the original layer.",
    equation="E.13.22, E.13.23",
)
def _c13_27() -> str:
    from alice_lab.recurrent import diagonal_ssm, diagonalize_ssm

    A, B, C, D, X = _ssm(12, n=30)
    Y = _loop(X, A, B) @ C.T + X @ D.T
    lam, Bb, Cb = diagonalize_ssm(A, B, C)
    errs = {
        m: _maxerr(diagonal_ssm(X, lam, Bb, Cb, D, method=m), Y)
        for m in ("recurrent", "scan", "conv")
    }
    assert max(errs.values()) < 1e-10, errs
    return ", ".join(f"{k} {v:.0e}" for k, v in errs.items())


@claim(
    "C13-28",
    section="13.3.3",
    lines=6709,
    statement="The diagonal SSM has e + ec + oe + oc parameters (doubled for complex "
    "ones) against e² + ec + oe + oc for a dense A.",
)
def _c13_28() -> str:
    from alice_lab.recurrent import diagonal_ssm, diagonalize_ssm

    e, c, o = 16, 4, 3
    A, B, C, D, X = _ssm(28, e=e, c=c, o=o, n=20)
    lam, Bb, Cb = diagonalize_ssm(A, B, C)
    # what the diagonal layer keeps, against what the dense one keeps
    assert (lam.shape, Bb.shape, Cb.shape) == ((e,), (e, c), (o, e)), (
        lam.shape,
        Bb.shape,
        Cb.shape,
    )
    diag = lam.size + Bb.size + Cb.size + D.size
    dense = A.size + B.size + C.size + D.size
    real = 2 * (lam.size + Bb.size + Cb.size) + D.size  # a complex entry is two reals
    assert diag == e + e * c + o * e + o * c and dense == e * e + e * c + o * e + o * c
    assert real == 2 * (e + e * c + o * e) + o * c and diag < dense
    # the kept numbers are enough: they reproduce the dense layer's outputs
    Y = _loop(X, A, B) @ C.T + X @ D.T
    err = _maxerr(diagonal_ssm(X, lam, Bb, Cb, D), Y)
    assert err < 1e-10, err
    return (
        f"e=16, c=4, o=3: diagonal {diag} numbers (real count {real}) vs dense "
        f"{dense}; same outputs ({err:.0e})"
    )


@claim(
    "C13-29",
    section="13.3.3",
    lines=6711,
    statement="Eigenvalues must satisfy |λ| < 1: at |λ| = 1.05 the state explodes "
    "(> 1e10 after 600 steps), at |λ| ≤ 0.99 it stays below max‖B̄x‖∞/(1 − |λ|); "
    "a non-diagonalisable A gives an ill-conditioned P.",
)
def _c13_29() -> str:
    from alice_lab.recurrent import diagonal_ssm, diagonalize

    X = np.ones((600, 1))
    big = np.abs(
        diagonal_ssm(X, np.array([1.05 * np.exp(0.3j)]), np.ones((1, 1)))
    ).max()
    lam = np.array([0.99 * np.exp(0.2j), 0.5])
    S = diagonal_ssm(X, lam, np.ones((2, 1)))
    bound = 1.0 / (1 - 0.99)
    _, P, _ = diagonalize(np.array([[1.0, 1.0], [0.0, 1.0]]))
    cond = np.linalg.cond(P)
    assert big > 1e10 and np.abs(S).max() <= bound and cond > 1e8, (big, cond)
    return (
        f"|λ|=1.05: {big:.1e}; |λ|=0.99: max {np.abs(S).max():.1f} ≤ {bound:.0f}; "
        f"Jordan block cond(P) = {cond:.0e}"
    )
