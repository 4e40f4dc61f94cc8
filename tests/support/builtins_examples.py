"""Functions calling Python's builtins on arrays, for `test_builtins_on_arrays.py`."""

import numpy as np


def total(x):
    return sum(x)


def total_from(x):
    return sum(x, 1.5) * 2.0


def row_sums(x):
    return np.sum(sum(x) * (np.arange(x.shape[1]) + 1.0))


def largest(x):
    return max(x)


def spread(x):
    return max(x * x) - min(x)


def tests(x):
    return any(x > 0.5), all(x), any(x)


def rounded(x):
    return round(x), round(x, 2), round(x * 3.0, -1)


def rounded_array(x):
    return np.sum(np.round(x) * abs(x))


def largest_row(x):
    return np.sum(max(x))


def rounded_whole_array(x):
    return np.sum(round(x))


def empty_max(x):
    return max(x[:0])
