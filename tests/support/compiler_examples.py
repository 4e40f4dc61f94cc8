"""Plain functions used by the compiler tests (the compiler reads source from files)."""

import numpy as np

from examples.compiler_tour import counter  # noqa: F401  (the C1 counter loop)


def repeated(x):
    unused = np.exp(x) * 3.0  # noqa: F841 - dead on purpose: DCE must remove it
    s = np.sin(x) * np.sin(x)
    return s + np.sin(x) * 1.0


def euler(k, c):
    x = 1.0
    v = 0.0
    for _ in range(50):
        a = -k * x - c * v
        v = v + 0.01 * a
        x = x + 0.01 * v
    return x


def uses_list_comprehension(xs):
    return sum([x * 2 for x in xs])


def uses_try(x):
    try:
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    return y


def recursive(x, n):
    if n == 0:
        return x
    return recursive(x * 2.0, n - 1)


def maybe_undefined(x):
    if x > 0.0:
        y = x * 2.0
    return y


def no_return_on_some_path(x):
    if x > 0.0:
        return x


def loop_forever(x):
    while True:
        x = x + 1.0
    return x


def unknown_function(x):
    return np.histogram(x)


def string_constant(x):
    return x + "a"


def second_order_target(x, y):
    return x * x * y + np.sin(x * y)


def loop_for_second_order(x):
    for _ in range(3):
        x = x * x
    return x


def returns_tuple(x, y):
    return x * y, x + y


def calls_a_gradient(x):
    return inner_grad(x * 2.0) + x


def cube(x):
    return x * x * x


def inner(x):
    return np.sin(x) * x


def _make_inner_grad():
    from adlite.compiler import grad

    return grad(inner)


inner_grad = _make_inner_grad()


def double_array(x):
    return x * 2.0


def int_and_bool(n, x):
    big = n > 3
    return n * 2 + 1, big and x > 0.0
