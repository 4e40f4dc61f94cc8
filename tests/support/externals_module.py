"""Helpers in a module of their own: compiled callers inline them, and they read this
module's globals (tests/frontend/test_externals.py changes them between calls)."""

import numpy as np

SCALE = np.array([1.0, 2.0, 3.0])
OFFSET = 0.5


def scaled(x):
    return SCALE * x + OFFSET
