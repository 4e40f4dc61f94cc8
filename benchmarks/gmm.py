"""ADBench GMM objective written as plain numpy (the subset adlite compiles).

`gmm_objective(alphas, means, icf, x, gamma, m, constant)` is the objective of ADBench's
gmm.h (see ../shared/adbench/gmm_spec.md): Q_k is built from `icf[k]` with explicit loops
(diagonal exp(q), strictly lower part column-major), one matrix product per component, a
row-wise logsumexp and the Wishart prior. `constant(d, k, n, gamma, m)` is the part without
parameters (it needs lgamma, so it is computed once in Python). Data files (MIT licence,
see data/LICENSE_ADBench.TXT) are read by `read_gmm`.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data"


def gmm_objective(alphas, means, icf, x, gamma, m, constant):
    n = x.shape[0]
    d = x.shape[1]
    k = alphas.shape[0]
    main = np.zeros((n, k))
    for j in range(k):
        q = icf[j, :d]
        qmat = np.zeros((d, d))
        for i in range(d):
            qmat[i, i] = np.exp(q[i])
        idx = d
        for c in range(d):
            for r in range(c + 1, d):
                qmat[r, c] = icf[j, idx]
                idx += 1
        z = (x - means[j]) @ qmat.T
        main[:, j] = alphas[j] + np.sum(q) - 0.5 * np.sum(z * z, axis=1)
    mx = np.max(main, axis=1, keepdims=True)
    rows = np.log(np.sum(np.exp(main - mx), axis=1)) + mx[:, 0]
    ma = np.max(alphas)
    lse_alphas = np.log(np.sum(np.exp(alphas - ma))) + ma
    qs = icf[:, :d]
    frobenius = np.sum(np.exp(qs) ** 2, axis=1) + np.sum(icf[:, d:] ** 2, axis=1)
    prior = np.sum(0.5 * gamma * gamma * frobenius - m * np.sum(qs, axis=1))
    return constant + np.sum(rows) - n * lse_alphas + prior


def constant(d: int, k: int, n: int, gamma: float, m: int) -> float:
    nw = d + m + 1
    log_gamma_d = 0.25 * d * (d - 1) * math.log(math.pi) + sum(
        math.lgamma(0.5 * nw + 0.5 * (1 - j)) for j in range(1, d + 1))
    c = nw * d * (math.log(gamma) - 0.5 * math.log(2)) - log_gamma_d
    return -n * d * 0.5 * math.log(2 * math.pi) - k * c


def read_gmm(path: str | Path):
    """(alphas, means, icf, x, gamma, m) from an ADBench GMM file (no replicate mode)."""
    tokens = Path(path).read_text().split()
    d, k, n = (int(t) for t in tokens[:3])
    values = np.array(tokens[3:], dtype=float)
    pos = 0

    def take(count, shape):
        nonlocal pos
        out = values[pos:pos + count].reshape(shape)
        pos += count
        return out

    alphas = take(k, (k,))
    means = take(k * d, (k, d))
    icf = take(k * (d + d * (d - 1) // 2), (k, d + d * (d - 1) // 2))
    x = take(n * d, (n, d))
    gamma, m = values[pos], int(values[pos + 1])
    return alphas, means, icf, x, float(gamma), m


def arguments(path: str | Path) -> tuple:
    alphas, means, icf, x, gamma, m = read_gmm(path)
    n, d = x.shape
    return alphas, means, icf, x, gamma, float(m), constant(d, alphas.size, n, gamma, m)
