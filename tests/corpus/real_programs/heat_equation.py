# ruff: noqa: B007, B008, B905  (written as people write it: unused loop indices, zip)
"""Explicit finite differences for the 1-D heat equation, Dirichlet boundaries."""

import numpy as np


def solve_heat(u0, kappa, L=1.0, t_end=0.01, nsteps=100):
    nx = len(u0)
    dx = L / (nx - 1)
    dt = t_end / nsteps
    r = kappa * dt / dx ** 2
    assert r <= 0.5, "explicit scheme is unstable for r > 0.5"
    u = u0.copy()
    for n in range(nsteps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
        u[0] = 0.0
        u[-1] = 0.0
    return u


def thermal_energy(u0, kappa, **kwargs):
    u = solve_heat(u0, kappa, **kwargs)
    dx = 1.0 / (len(u) - 1)
    return np.sum(u ** 2) * dx


def _case():
    from . import Case
    x = np.linspace(0.0, 1.0, 21)
    rng = np.random.default_rng(1)
    u0 = np.sin(np.pi * x) + 0.1 * rng.standard_normal(21)
    return Case(thermal_energy, (u0, 0.5), {"t_end": 0.005, "nsteps": 50}, wrt=(0, 1))


CASE = _case()
