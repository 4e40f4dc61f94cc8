"""Viscous Burgers' equation on a periodic grid: first-order upwind advection and central
diffusion with np.roll."""

import numpy as np


def burgers_step(u, dt, dx, nu):
    up = np.roll(u, -1)
    um = np.roll(u, 1)
    adv = np.where(u > 0, u * (u - um) / dx, u * (up - u) / dx)
    diff = nu * (up - 2 * u + um) / dx ** 2
    return u + dt * (diff - adv)


def simulate(u0, nu=0.05, dt=1e-3, nsteps=100):
    dx = 2 * np.pi / len(u0)
    u = u0
    for _ in range(nsteps):
        u = burgers_step(u, dt, dx, nu)
    return 0.5 * np.sum(u ** 2) * dx


def _case():
    from . import Case
    x = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    return Case(simulate, (1.0 + 0.5 * np.sin(x),), {"nu": 0.1}, wrt=0)


CASE = _case()
