"""Module-level functions for the native lifecycle tests: functions named like C library
symbols (scalars), and functions that worker processes unpickle by reference."""

import math

import numpy as np

from adlite.compiler import jit


def exp(a):
    return math.exp(a) * 2.0


def pow(a, b):
    return a ** b + math.pow(a, 2.0)


def tanh(a):
    return math.tanh(a) + a


def sin(a):
    return np.sin(a) * a


def free(a):
    return a * a + 1.0


def malloc(a, b):
    return a * b - math.exp(b)


def memcpy(a):
    return math.sqrt(a) * 3.0


def realloc(a):
    return math.log(a) + math.cos(a)


def energy(x, y):
    return x * x * y + math.sin(y)


def array_energy(x, k):
    return np.sum(k * x * x) + np.sum(np.exp(x)) * k


@jit
def decorated(x, n):
    total = 0.0
    for i in range(n):
        total = total + x * i
    return total


def slow_square(x):
    return x * x + 1.0
