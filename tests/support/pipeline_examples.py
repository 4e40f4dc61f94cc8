"""Functions compiled by test_pipeline.py (read from source by the compiler and the CLI)."""

import numpy as np


def cube_plus(x, y):
    return x * x * x + np.sin(y)


def squares_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] * x[i]
    return s


def abs_(x):  # named like the builtin the generated Python calls, with numpy's trailing _
    return np.abs(x)


def max_(x, y):
    return max(x, y) * 2.0
