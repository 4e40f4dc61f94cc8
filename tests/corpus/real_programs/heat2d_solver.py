"""A 2-D heat solver as a class: grid settings in attributes, the Laplacian a staticmethod,
the user differentiates the bound `run` w.r.t. the initial field."""

import numpy as np


class HeatSolver2D:
    def __init__(self, nx=10, ny=10, alpha=0.1, dt=0.1):
        self.nx, self.ny = nx, ny
        self.dx = 1.0 / (nx - 1)
        self.alpha = alpha
        self.dt = dt * self.dx ** 2 / alpha / 4

    @staticmethod
    def laplacian(u, dx):
        lap = np.zeros_like(u)
        lap[1:-1, 1:-1] = (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                           - 4 * u[1:-1, 1:-1]) / dx ** 2
        return lap

    def step(self, u):
        return u + self.dt * self.alpha * self.laplacian(u, self.dx)

    def run(self, u0, steps=25):
        u = u0
        for _ in range(steps):
            u = self.step(u)
        return np.max(u) - np.min(u) + np.mean(u ** 2)


solver = HeatSolver2D(nx=10, ny=10, alpha=0.2)


def _case():
    from . import Case
    rng = np.random.default_rng(22)
    return Case(solver.run, (rng.random((10, 10)),), {"steps": 20}, wrt=0)


CASE = _case()
