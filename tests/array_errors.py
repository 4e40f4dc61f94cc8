"""Array code that must be rejected with a clear error."""

import numpy as np


def bad_broadcast(x, y):
    return np.sum(x * y)


def runtime_shape(x, n):
    return np.sum(np.zeros(n)) + np.sum(x)


def shape_changes_in_loop(x):
    for _ in range(3):
        x = np.stack([np.sum(x), np.sum(x)])
    return np.sum(x)


def runtime_index(x, i):
    return x[i]
