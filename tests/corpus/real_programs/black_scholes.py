"""Black-Scholes price of a European option, with a string flag and scipy's norm.cdf."""

import numpy as np
from scipy.stats import norm


def d1_d2(S, K, T, r, sigma):
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return d1, d2


def bs_price(S, K, T, r, sigma, option="call"):
    d1, d2 = d1_d2(S, K, T, r, sigma)
    if option == "call":
        return S * norm.cdf(d1) - K * np.exp(-r * T) * norm.cdf(d2)
    elif option == "put":
        return K * np.exp(-r * T) * norm.cdf(-d2) - S * norm.cdf(-d1)
    else:
        raise ValueError(f"unknown option type {option!r}")


def _case():
    from . import Case
    return Case(bs_price, (100.0, 95.0, 0.5, 0.02, 0.25), {"option": "put"}, wrt=(0, 4))


CASE = _case()
