"""Monte Carlo price of a European option under geometric Brownian motion with antithetic
variates; the normal draws are fixed so the estimator is differentiable (pathwise Greeks)."""

import numpy as np


def mc_price(S0, sigma, Z, K=100.0, r=0.01, T=1.0, option="call", antithetic=True):
    if antithetic:
        Z = np.concatenate([Z, -Z])
    ST = S0 * np.exp((r - 0.5 * sigma ** 2) * T + sigma * np.sqrt(T) * Z)
    if option == "call":
        payoff = np.maximum(ST - K, 0.0)
    elif option == "put":
        payoff = np.maximum(K - ST, 0.0)
    else:
        raise ValueError("option must be 'call' or 'put'")
    return np.exp(-r * T) * payoff.mean()


def _case():
    from . import Case
    Z = np.random.default_rng(19).standard_normal(500)
    return Case(mc_price, (101.0, 0.2, Z), {"K": 105.0, "option": "call"}, wrt=(0, 1))


CASE = _case()
