"""Hyper-parameter gradient of ridge regression: the closed-form weights by np.linalg.solve,
the validation error as a function of the log regularisation strength."""

import numpy as np


def fit_ridge(X, y, lam):
    d = X.shape[1]
    return np.linalg.solve(X.T @ X + lam * np.eye(d), X.T @ y)


def validation_loss(log_lam, X_train, y_train, X_val, y_val):
    w = fit_ridge(X_train, y_train, np.exp(log_lam))
    residual = X_val @ w - y_val
    return residual @ residual / len(y_val)


def _case():
    from . import Case
    rng = np.random.default_rng(17)
    w_true = rng.standard_normal(6)
    X_train, X_val = rng.standard_normal((20, 6)), rng.standard_normal((10, 6))
    y_train = X_train @ w_true + 0.5 * rng.standard_normal(20)
    y_val = X_val @ w_true + 0.5 * rng.standard_normal(10)
    return Case(validation_loss, (0.3, X_train, y_train, X_val, y_val), wrt=0)


CASE = _case()
