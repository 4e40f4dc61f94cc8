"""The n-dimensional Rosenbrock function, as in scipy.optimize.rosen, with its constants
as keyword parameters."""

import numpy as np


def rosen(x, a=1.0, b=100.0):
    x = np.asarray(x)
    return np.sum(b * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (a - x[:-1]) ** 2.0, axis=0)


def _case():
    from . import Case
    rng = np.random.default_rng(13)
    return Case(rosen, (rng.uniform(-1.5, 1.5, 8),), {"b": 10.0}, wrt=0)


CASE = _case()
