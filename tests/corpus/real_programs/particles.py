# ruff: noqa: B007, B008, B905  (written as people write it: unused loop indices, zip)
"""A small N-body simulation with softened gravity: velocity Verlet, positions collected in a
list with append, the mean kinetic energy over the recorded steps as the result."""

import numpy as np

G = 1.0


def accelerations(pos, masses, softening=0.1):
    diff = pos[None, :, :] - pos[:, None, :]
    dist2 = np.sum(diff ** 2, axis=-1) + softening ** 2
    inv_d3 = dist2 ** -1.5
    return G * np.sum(diff * (masses[None, :] * inv_d3)[:, :, None], axis=1)


def simulate(pos, vel, masses, dt=0.01, steps=30):
    history = []
    acc = accelerations(pos, masses)
    for step in range(steps):
        vel = vel + 0.5 * dt * acc
        pos = pos + dt * vel
        acc = accelerations(pos, masses)
        vel = vel + 0.5 * dt * acc
        history.append(0.5 * np.sum(masses[:, None] * vel ** 2))
    return np.mean(np.array(history))


def _case():
    from . import Case
    rng = np.random.default_rng(7)
    pos = rng.standard_normal((5, 2))
    vel = 0.1 * rng.standard_normal((5, 2))
    masses = rng.uniform(0.5, 1.5, 5)
    return Case(simulate, (pos, vel, masses), {"dt": 0.02}, wrt=(0, 1))


CASE = _case()
