"""Lennard-Jones energy of a small cluster, the textbook double loop over pairs."""

import numpy as np


def lj_energy(positions, epsilon=1.0, sigma=1.0):
    n = len(positions)
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = np.linalg.norm(positions[i] - positions[j])
            sr6 = (sigma / r) ** 6
            energy += 4 * epsilon * (sr6 ** 2 - sr6)
    return energy


def _case():
    from . import Case
    rng = np.random.default_rng(18)
    grid = np.array([[i, j, k] for i in range(2) for j in range(2) for k in range(2)], float)
    positions = 1.15 * grid + 0.05 * rng.standard_normal((8, 3))
    return Case(lj_energy, (positions,), {"sigma": 1.0}, wrt=0)


CASE = _case()
