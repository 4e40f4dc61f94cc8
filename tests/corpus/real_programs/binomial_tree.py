# ruff: noqa: B007, B008, B905  (written as people write it: unused loop indices, zip)
"""Cox-Ross-Rubinstein binomial tree for an American put (early exercise with np.maximum)."""

import math

import numpy as np


def crr_price(S0, K, T, r, sigma, steps=50, american=True, kind="put"):
    dt = T / steps
    u = np.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (np.exp(r * dt) - d) / (u - d)
    disc = np.exp(-r * dt)
    j = np.arange(steps + 1)
    prices = S0 * u ** (steps - j) * d ** j
    if kind == "put":
        values = np.maximum(K - prices, 0.0)
    else:
        values = np.maximum(prices - K, 0.0)
    for i in range(steps - 1, -1, -1):
        values = disc * (p * values[:-1] + (1 - p) * values[1:])
        if american:
            prices = prices[:-1] / u
            exercise = K - prices if kind == "put" else prices - K
            values = np.maximum(values, exercise)
    return values[0]


def _case():
    from . import Case
    return Case(crr_price, (100.0, 103.0, 1.0, 0.03, 0.3), {"steps": 40}, wrt=(0, 4))


CASE = _case()
