"""Potential energy of a chain of springs in the plane plus gravity, with np.diff and
np.linalg.norm along an axis."""

import numpy as np

REST_LENGTH = 0.5
STIFFNESS = 20.0


def chain_energy(positions, masses, g=9.81):
    segments = np.diff(positions, axis=0)
    lengths = np.linalg.norm(segments, axis=1)
    elastic = 0.5 * STIFFNESS * np.sum((lengths - REST_LENGTH) ** 2)
    gravity = g * np.sum(masses * positions[:, 1])
    return elastic + gravity


def _case():
    from . import Case
    rng = np.random.default_rng(12)
    positions = np.cumsum(0.5 + 0.1 * rng.standard_normal((6, 2)), axis=0)
    return Case(chain_energy, (positions, rng.uniform(0.5, 1.0, 6)), wrt=0)


CASE = _case()
