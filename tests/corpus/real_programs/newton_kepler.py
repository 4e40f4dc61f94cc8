# ruff: noqa: B007, B008, B905  (written as people write it: unused loop indices, zip)
"""Newton's method with a tolerance and an assert, solving Kepler's equation E - e sin E = M."""

import numpy as np


def newton(f, fprime, x0, tol=1e-12, maxiter=50):
    x = x0
    for i in range(maxiter):
        step = f(x) / fprime(x)
        x = x - step
        if abs(step) < tol:
            break
    assert abs(f(x)) < 1e-8, "Newton did not converge"
    return x


def eccentric_anomaly(M, e):
    E0 = M if e < 0.8 else np.pi
    return newton(lambda E: E - e * np.sin(E) - M, lambda E: 1 - e * np.cos(E), E0)


def radius(M, e, a=1.0):
    E = eccentric_anomaly(M, e)
    return a * (1 - e * np.cos(E))


def _case():
    from . import Case
    return Case(radius, (1.2, 0.3), {"a": 2.5}, wrt=(0, 1))


CASE = _case()
