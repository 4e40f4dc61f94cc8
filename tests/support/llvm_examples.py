"""Functions exercising the LLVM backend's corner cases (read from source by the compiler)."""

import numpy as np


def mixed_types(x, n, flag):
    y = x * n
    if flag:
        y = y + 1.0
    return y


def int_division(a, b):
    return a // b, a % b


def to_int(x):
    return int(x)


def float_corner_cases(x, y):
    return (x / y, x // y, x % y, np.maximum(x, y), np.minimum(x, y), x ** y, abs(x),
            np.sign(x), x - y, np.sqrt(x), np.log(x), np.exp(y))


def long_loop(x, n):
    for _ in range(n):
        x = x * 1.0001
    return x


def alias_of_initial_value(x):
    y = np.zeros_like(x)
    z = y  # an alias, as in numpy: z sees the writes into y
    for i in range(3):
        y[i] = x[i] * 2.0
    return np.sum(y * x) + np.sum(z)


def overwrite_argument(x):
    for i in range(x.shape[0]):
        x[i] = x[i] * 0.0 + 1.0
    return np.sum(x)


def running_squares(x):
    y = np.zeros_like(x)
    acc = 0.0
    for i in range(x.shape[0]):
        acc = acc + x[i] * x[i]
        y[i] = acc
    return np.sum(np.sqrt(y + 1.0))


def many_temporaries(x, n):
    for _ in range(n):
        x = np.tanh(x) * 0.999 + 0.001
    return np.sum(x)
