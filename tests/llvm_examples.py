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
