"""The Van der Pol oscillator integrated with Heun's method; the state is rebuilt each step
from an array literal of its components."""

import numpy as np


def vdp(y, mu):
    return np.array([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])


def heun(y0, mu, h=0.01, n_steps=300):
    y = np.array(y0, dtype=float)
    for _ in range(n_steps):
        k1 = vdp(y, mu)
        k2 = vdp(y + h * k1, mu)
        y = y + 0.5 * h * (k1 + k2)
    return y


def final_radius(mu, x0=2.0, v0=0.0):
    y = heun([x0, v0], mu)
    return np.hypot(y[0], y[1])


def _case():
    from . import Case
    return Case(final_radius, (0.7,), {"x0": 1.5}, wrt=0)


CASE = _case()
