"""Mean-variance utility of a portfolio whose weights are normalised inside the function,
with a verbose flag that prints the figures."""

import numpy as np


def portfolio_stats(weights, mu, cov):
    w = weights / np.sum(weights)
    ret = np.dot(w, mu)
    var = w @ cov @ w
    return ret, var


def neg_utility(weights, mu, cov, risk_aversion=3.0, verbose=False):
    ret, var = portfolio_stats(weights, mu, cov)
    if verbose:
        print(f"return {ret:.4f}, volatility {np.sqrt(var):.4f}")
    return -(ret - 0.5 * risk_aversion * var)


def _case():
    from . import Case
    rng = np.random.default_rng(11)
    A = rng.standard_normal((5, 5))
    cov = 0.01 * (A @ A.T + 5 * np.eye(5))
    mu = rng.uniform(0.02, 0.1, 5)
    weights = rng.uniform(0.5, 1.5, 5)
    return Case(neg_utility, (weights, mu, cov), {"risk_aversion": 4.0, "verbose": True}, wrt=0)


CASE = _case()
