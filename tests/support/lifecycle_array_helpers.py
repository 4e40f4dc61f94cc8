"""Array functions named like C library symbols (the lowering of array code declares malloc,
free, realloc and memcpy, and calls libm's exp and sin)."""

import numpy as np


def exp(x):
    return np.sum(np.exp(x) * x)


def pow(x, y):
    return np.sum(np.power(x, 2.0) * y)


def tanh(x):
    return np.sum(np.tanh(x * 2.0))


def sin(x):
    return np.sum(np.sin(x) * x)


def free(x):
    return np.sum(x * x)


def malloc(x):
    y = np.zeros(3)
    y = y + x * 2.0
    return np.sum(np.exp(y))


def memcpy(x):
    return np.sum(np.cos(x) * x)


def realloc(x):
    return np.sum(np.log(x) + x)
