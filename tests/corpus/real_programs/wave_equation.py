# ruff: noqa: B007, B008, B905  (written as people write it: unused loop indices, zip)
"""The 1-D wave equation by leapfrog: three time levels rotated by tuple assignment,
np.empty_like buffers, chained boundary assignment."""

import numpy as np


def wave(u0, c=1.0, dt=0.005, nsteps=80):
    nx = u0.size
    dx = 1.0 / (nx - 1)
    C2 = (c * dt / dx) ** 2
    u_prev = u0.copy()
    u = u0.copy()
    u[1:-1] = u0[1:-1] + 0.5 * C2 * (u0[2:] - 2 * u0[1:-1] + u0[:-2])
    for n in range(1, nsteps):
        u_next = np.empty_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + C2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_next[0] = u_next[-1] = 0.0
        u_prev, u = u, u_next
    return u


def wave_energy(u0, c=1.0):
    u = wave(u0, c=c)
    return np.sum(u ** 2) / u.size


def _case():
    from . import Case
    x = np.linspace(0, 1, 41)
    return Case(wave_energy, (np.exp(-100 * (x - 0.4) ** 2) * np.sin(np.pi * x), 1.3), wrt=(0, 1))


CASE = _case()
