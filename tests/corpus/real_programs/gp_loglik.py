"""Gaussian-process log marginal likelihood with an RBF kernel (Cholesky, triangular
solves), the hyper-parameters packed in one array of logs."""

import numpy as np


def rbf_kernel(X1, X2, lengthscale=1.0, variance=1.0):
    sqdist = np.sum(X1 ** 2, 1).reshape(-1, 1) + np.sum(X2 ** 2, 1) - 2 * X1 @ X2.T
    return variance * np.exp(-0.5 / lengthscale ** 2 * sqdist)


def log_marginal_likelihood(log_params, X, y):
    lengthscale, variance, noise = np.exp(log_params)
    n = len(y)
    K = rbf_kernel(X, X, lengthscale=lengthscale, variance=variance) + noise * np.eye(n)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return (-0.5 * y @ alpha - np.sum(np.log(np.diag(L)))
            - 0.5 * n * np.log(2 * np.pi))


def _case():
    from . import Case
    rng = np.random.default_rng(10)
    X = rng.uniform(-2, 2, (10, 1))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(10)
    return Case(log_marginal_likelihood, (np.log(np.array([0.8, 1.2, 0.05])), X, y), wrt=0)


CASE = _case()
