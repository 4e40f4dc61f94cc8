"""Functions with print, f-strings, assert and raise for `test_effects.py` (outside the test
module: pytest rewrites the asserts of test modules)."""

import math
import sys

import numpy as np


def checked_sqrt(x, n):
    assert n > 0, "n must be positive"
    assert x >= 0.0
    return math.sqrt(x) * n


def newton_sqrt(a, tol):
    if tol <= 0.0:
        raise ValueError("tolerance must be positive")
    x = a
    for _ in range(60):
        dx = (x * x - a) / (2.0 * x)
        x = x - dx
        if abs(dx) < tol:
            return x
    raise RuntimeError(f"did not converge: tol={tol}, last x {x:.3e}")


def raise_in_else(x):
    if x > 0.0:
        y = 2.0 * x
    else:
        raise ArithmeticError("x must be positive")
    return y * y


def bare_exception_class(x):
    if x > 1.0:
        raise ZeroDivisionError
    return x


def message_is_a_value(x):
    assert x < 10.0, x
    return x


def helper_check(v):
    if v < 0.0:
        raise FloatingPointError(f"negative value {v!r}")
    return v * v


def inlined_check(x, y):
    return helper_check(x) + helper_check(y)


def loop_with_prints(x, n):
    total = 0.0
    for i in range(n):
        total = total + x * i
        print("step", i, total)
    print(f"loss = {total:.4f}", f"{n:>4d}|{x!r}")
    return total


def print_keywords(x):
    for i in range(3):
        print(i, end=" ")
    print()
    print(x, 2 * x, (x, 3), sep=", ", end=";\n", flush=True)
    print("to stderr", x, file=sys.stderr)
    return x


def print_array(a):
    print(a)
    print(f"{a}")
    print(a * 2.0, a[0], f"{a[1]:.2f}")
    return np.sum(a * a)


def print_in_branch(x, y):
    if x > 0.0:
        print("positive", x)
        z = x * y
    else:
        print("negative", x)
        z = -x * y
    return z * z


def print_in_loop_branch(x, n):
    s = x
    for i in range(n):
        if i % 2 == 0:
            print("even", i)
            s = s * x
        else:
            s = s + x
    return s


def catches(x):
    try:
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    return y


def raises_custom(x):
    if x > 0.0:
        raise _Custom("no")
    return x


class _Custom(Exception):
    pass


def unused_check(x):
    assert x > 0.0, "dead code keeps its check"
    return 1.0
