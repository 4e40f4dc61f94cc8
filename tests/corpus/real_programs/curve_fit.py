"""Least-squares objective of a damped cosine model against data held in module globals,
the parameters unpacked from one array."""

import numpy as np

OMEGA = 2.0
T_DATA = np.linspace(0.0, 5.0, 40)
Y_DATA = 1.5 * np.exp(-0.4 * T_DATA) * np.cos(OMEGA * T_DATA + 0.3) \
    + 0.05 * np.random.default_rng(20).standard_normal(40)


def model(t, params):
    A, k, phi = params
    return A * np.exp(-k * t) * np.cos(OMEGA * t + phi)


def residuals(params):
    return model(T_DATA, params) - Y_DATA


def objective(params):
    r = residuals(params)
    return 0.5 * np.dot(r, r)


def _case():
    from . import Case
    return Case(objective, (np.array([1.0, 0.3, 0.1]),), wrt=0)


CASE = _case()
