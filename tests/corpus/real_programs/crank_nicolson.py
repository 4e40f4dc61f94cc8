"""Crank-Nicolson steps for the 1-D heat equation, each solving its tridiagonal system with
the Thomas algorithm (back substitution over reversed(range)); an optional source term
defaults to None."""

import numpy as np


def thomas(a, b, c, d):
    """Solve the tridiagonal system with sub-, main and super-diagonals a, b, c."""
    n = len(d)
    cp = np.empty(n)
    dp = np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        denom = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / denom
        dp[i] = (d[i] - a[i] * dp[i - 1]) / denom
    x = np.empty(n)
    x[-1] = dp[-1]
    for i in reversed(range(n - 1)):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def crank_nicolson(u0, kappa, dt=0.01, nsteps=20, source=None):
    n = len(u0)
    dx = 1.0 / (n + 1)
    r = kappa * dt / (2 * dx ** 2)
    a = -r * np.ones(n)
    b = (1 + 2 * r) * np.ones(n)
    c = -r * np.ones(n)
    u = u0
    for _ in range(nsteps):
        rhs = (1 - 2 * r) * u
        rhs[1:] += r * u[:-1]
        rhs[:-1] += r * u[1:]
        if source is not None:
            rhs += dt * source
        u = thomas(a, b, c, rhs)
    return np.sum(u ** 2) * dx


def _case():
    from . import Case
    x = np.linspace(0, 1, 17)[1:-1]
    return Case(crank_nicolson, (np.sin(np.pi * x) + 0.3 * x, 0.2), {"nsteps": 15}, wrt=(0, 1))


CASE = _case()
