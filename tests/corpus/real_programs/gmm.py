"""ADBench's GMM objective in the vectorised numpy style of its autograd/PyTorch ports."""

import numpy as np
from scipy.special import gammaln, logsumexp


def log_gamma_distrib(a, p):
    return 0.25 * p * (p - 1) * np.log(np.pi) + \
        sum(gammaln(a + 0.5 * (1 - j)) for j in range(1, p + 1))


def ltri_unpack(d, icf_row):
    """Lower-triangular factor Q from its log-diagonal and column-major strict lower part."""
    Q = np.diag(np.exp(icf_row[:d]))
    idx = d
    for col in range(d):
        for row in range(col + 1, d):
            Q[row, col] = icf_row[idx]
            idx += 1
    return Q


def log_wishart_prior(p, wishart_gamma, wishart_m, sum_qs, Qdiags, icf):
    n = p + wishart_m + 1
    k = icf.shape[0]
    out = 0.0
    for ik in range(k):
        frobenius = np.sum(Qdiags[ik] ** 2) + np.sum(icf[ik, p:] ** 2)
        out = out + 0.5 * wishart_gamma ** 2 * frobenius - wishart_m * sum_qs[ik]
    C = n * p * (np.log(wishart_gamma) - 0.5 * np.log(2)) - log_gamma_distrib(0.5 * n, p)
    return out - k * C


def gmm_objective(alphas, means, icf, x, wishart_gamma=1.0, wishart_m=0):
    n, d = x.shape
    k = len(alphas)
    Qdiags = np.exp(icf[:, :d])
    sum_qs = np.sum(icf[:, :d], axis=1)
    Qs = [ltri_unpack(d, icf[ik]) for ik in range(k)]
    main_term = np.zeros((n, k))
    for ik in range(k):
        xcentered = x - means[ik]
        Qxcentered = xcentered @ Qs[ik].T
        main_term[:, ik] = alphas[ik] + sum_qs[ik] - 0.5 * np.sum(Qxcentered ** 2, axis=1)
    slse = np.sum(logsumexp(main_term, axis=1))
    const = -n * d * 0.5 * np.log(2 * np.pi)
    return (const + slse - n * logsumexp(alphas)
            + log_wishart_prior(d, wishart_gamma, wishart_m, sum_qs, Qdiags, icf))


def _case():
    from . import Case
    rng = np.random.default_rng(0)
    d, k, n = 3, 4, 20
    alphas = rng.standard_normal(k)
    means = rng.random((k, d))
    icf = 0.3 * rng.standard_normal((k, d * (d + 1) // 2))
    x = rng.random((n, d))
    return Case(gmm_objective, (alphas, means, icf, x), {"wishart_gamma": 1.5, "wishart_m": 2},
                wrt=(0, 1, 2))


CASE = _case()
