"""Array code that must be rejected with a clear error."""

import numpy as np


def bad_broadcast(x, y):
    return np.sum(x * y)


def runtime_shape(x, n):
    return np.sum(np.zeros(n)) + np.sum(x)


def shape_changes_in_loop(x):
    i = 0
    while i < 3:  # a `for` over a known range would be unrolled (issue 10)
        x = np.stack([np.sum(x), np.sum(x)])
        i += 1
    return np.sum(x)


def runtime_index(x, i):
    return x[i]
