# ruff: noqa: B007, B008, B905  (written as people write it: unused loop indices, zip)
"""Jacobi iterations for a Poisson problem: two buffers swapped by name, the interior
updated through slice views, the boundary held fixed."""

import numpy as np


def jacobi(f, h, iters=40):
    u = np.zeros_like(f)
    u_new = u.copy()
    for it in range(iters):
        center = u_new[1:-1, 1:-1]
        center[:] = 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                            + h * h * f[1:-1, 1:-1])
        u, u_new = u_new, u
    return u


def compliance(f, n=12):
    h = 1.0 / (n - 1)
    u = jacobi(f, h)
    return h * h * np.sum(f * u)


def _case():
    from . import Case
    rng = np.random.default_rng(8)
    return Case(compliance, (1.0 + rng.random((12, 12)),), wrt=0)


CASE = _case()
