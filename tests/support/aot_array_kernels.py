"""Functions over arrays that tests/backends/test_aot_arrays.py compiles ahead of time."""

import math

import numpy as np


def weighted_squares(x, w):
    """float32 in, float32 out."""
    return np.sum(w * x * x) + np.sum(np.tanh(x))


def pick(x, i):
    return x[i] * 2.0 + np.sum(x)


def scaled(x, k):
    return x * k + 1.0


def projection_loss(w, x):
    z = x @ w
    return np.sum(z * z)


def writes_its_argument(x):
    x[0] = 1.0
    return np.sum(x)


def solves(a, b):
    return np.sum(np.linalg.solve(a, b))


def checked_math(x):
    """math's errors (ValueError below 0, OverflowError above ~709) as the kernel's statuses."""
    return math.sqrt(x) + math.exp(x)


def rotated(z, w, s):
    """Complex arrays and a real number in, a complex array and a real number out."""
    return np.exp(1j * s) * z * w, np.sum(np.abs(z) ** 2) + s


def complex_numbers(a, b):
    return a * b + 1j, abs(a)


def complex_loss(z):
    return np.sum(np.abs(z * z - 1.0))
