"""Corpus of scalar functions with control flow, each with the kinds of its arguments.

Kinds: "f" float in [-2, 2], "p" float in [0.5, 2], "s" small float in [-0.9, 0.9],
"i<lo>-<hi>" int in [lo, hi]. The functions use numpy for math so that the same source
runs on floats, on the eager tape's Tensors and through the compiler.
"""

import math

import numpy as np

CORPUS = []


def case(*kinds):
    def register(fn):
        CORPUS.append((fn.__name__, fn, kinds))
        return fn

    return register


def helper_square_plus(a, b):
    return a * a + b


def helper_poly(x):
    return 3.0 * x ** 3 - 2.0 * x + 1.0


def helper_clamped(x):
    if x > 1.0:
        return 1.0
    if x < -1.0:
        return -1.0
    return x


@case("f", "f")
def seed_s1(w, x):
    a = w + x
    b = w + 1
    return a * b


@case("f", "f", "f")
def seed_s5(a, b, c):
    return (a + b) * (b + c)


@case("f", "f", "f", "f", "f")
def seed_s6(a, w1, w2, w3, w4):
    b = w1 * a
    c = w2 * a
    d = w3 * b + w4 * c
    return 10 - d


@case("f", "f", "f", "f")
def seed_s7(x11, x12, x21, x22):
    z = (x11 + 2) ** 2 + (x12 + 2) ** 2 + (x21 + 2) ** 2 + (x22 + 2) ** 2
    return z / 4


@case("f", "f")
def seed_s9(x1, x2):
    # loss = x @ [[3, 4], [5, 6]], weighted by the gradient [[1, 0]]
    return x1 * 3.0 + x2 * 5.0


@case("f")
def seed_s16_cube(x):
    return x ** 3


@case("f")
def poly(x):
    return 1.0 + x * (2.0 - x * (0.5 + 0.25 * x))


@case("f", "f")
def trig_mix(x, y):
    return np.sin(x) * np.cos(y) + np.tan(0.3 * x * y)


@case("p")
def logs(x):
    return np.log(x) + np.log1p(x) + np.log(x * x + 1.0) / np.log(10.0)


@case("s")
def inverse_trig(x):
    return np.arcsin(x) + np.arccos(x * 0.5) + np.arctan(3.0 * x)


@case("f")
def hyperbolic(x):
    return np.tanh(x) + np.sinh(0.5 * x) - np.cosh(0.3 * x)


@case("f")
def exp_family(x):
    return np.exp(-x * x) + np.expm1(0.1 * x)


@case("p", "f")
def power_tensor(x, y):
    return x ** y + y ** 2


@case("p")
def sqrt_chain(x):
    return np.sqrt(np.sqrt(x) + np.sqrt(x + 1.0))


@case("f", "f")
def division(x, y):
    return x / (y * y + 1.0) - 1.0 / (x * x + 2.0)


@case("f")
def abs_value(x):
    return abs(x) * x + np.abs(x - 0.3)


@case("f", "f")
def builtin_min_max(x, y):
    return max(x, y) * min(x, 2.0 * y) + max(x, y, 0.5)


@case("f", "f")
def np_maximum(x, y):
    return np.maximum(x, y) - np.minimum(x * x, y)


@case("f")
def if_else(x):
    if x > 0.0:
        y = x * x
    else:
        y = -x * 3.0
    return y + 1.0


@case("f", "f")
def if_elif_else(x, y):
    if x > 1.0:
        z = x * y
    elif x > -0.5:
        z = np.sin(x) + y
    else:
        z = y * y
    return z * 2.0


@case("f")
def nested_if(x):
    r = x
    if x > 0.0:
        if x > 1.0:
            r = x * x * x
        else:
            r = x * x
    elif x < -1.0:
        r = -x
    return r


@case("f")
def conditional_expression(x):
    y = x * 2.0 if x > 0.3 else np.exp(x)
    return y * y


@case("f", "f")
def conditional_chain(x, y):
    return (x if x > y else y) + (np.sin(x) if y > 0 else np.cos(y))


@case("f")
def early_return(x):
    if x > 1.0:
        return x * x
    return -x


@case("f")
def early_return_nested(x):
    if x > 0.0:
        if x > 1.5:
            return np.exp(x)
        return x * 3.0
    y = x * x
    return y + 1.0


@case("f", "i1-8")
def for_range(x, n):
    total = 0.0
    for i in range(n):
        total = total + x * i
    return total


@case("f", "i0-6")
def for_accumulate_int_start(x, n):
    total = 0
    for i in range(n):
        total += np.sin(x * i)
    return total + x


@case("f")
def for_constant_bounds(x):
    y = x
    for _ in range(5):
        y = y * 0.9 + np.sin(y)
    return y


@case("f", "i1-6")
def for_start_stop_step(x, n):
    acc = x
    for i in range(1, 2 * n, 2):
        acc = acc + x / i
    return acc


@case("f", "i1-6")
def for_negative_step(x, n):
    acc = 1.0
    for i in range(n, 0, -1):
        acc = acc * (x + i * 0.1)
    return acc


@case("f", "i2-5")
def nested_loops(x, n):
    acc = 0.0
    for i in range(n):
        for j in range(i):
            acc = acc + x * i - j * x * x
    return acc


@case("f", "i1-6")
def branch_in_loop(x, n):
    acc = x
    for _ in range(n):
        if acc > 1.0:
            acc = acc * 0.5
        else:
            acc = acc * acc + 0.5
    return acc


@case("p")
def while_data_dependent(x):
    y = 0.0
    while x < 10.0:
        x = x * 1.5
        y = y + x
    return y


@case("p")
def while_counter(x):
    n = 0
    while x > 0.1:
        x = x * 0.7
        n += 1
    return x * n


@case("p", "p")
def while_two_vars(x, y):
    while x < 20.0 and y < 30.0:
        x = x * 1.3 + y * 0.1
        y = y * 1.2
    return x * y


@case("f")
def while_with_break(x):
    acc = 0.0
    k = 0
    while True:
        acc = acc + np.cos(x + k)
        k += 1
        if k >= 5:
            break
    return acc


@case("f", "i1-9")
def for_with_break(x, n):
    acc = x
    for i in range(n):
        if i > 4:
            break
        acc = acc * 1.1 + x
    return acc


@case("f", "i1-9")
def for_with_continue(x, n):
    acc = 0.0
    for i in range(n):
        if i % 2 == 0:
            continue
        acc = acc + x * i
    return acc


@case("p")
def return_in_loop(x):
    for i in range(100):
        x = x * 1.2
        if x > 5.0:
            return x * i
    return x


@case("p")
def return_in_while(x):
    k = 0
    while k < 50:
        x = x + np.sqrt(x)
        if x > 9.0:
            return x
        k += 1
    return -x


@case("f", "f")
def calls_helper(x, y):
    return helper_square_plus(x, y) * helper_square_plus(y, x)


@case("f")
def calls_helper_with_returns(x):
    return helper_clamped(x * 1.5) + helper_poly(x)


@case("f", "i1-5")
def helper_in_loop(x, n):
    acc = 0.0
    for _ in range(n):
        acc = acc + helper_poly(x * 0.5)
    return acc


@case("f")
def tuple_unpacking(x):
    a, b = x * 2.0, x + 1.0
    a, b = b, a
    return a * b - a


@case("f", "f")
def augmented_ops(x, y):
    z = x * 1.0  # on the eager tape `z += y` is in place: z must not be the leaf x itself
    z += y
    z *= x
    z -= 1.0
    z /= (y * y + 1.0)
    z **= 2
    return z


@case("f")
def int_float_mix(x):
    k = 3
    m = k * 2 + 1
    return x * m + k / 2


@case("f")
def math_module(x):
    return math.pi * x + math.e


@case("f")
def newton_sqrt(x):
    a = x * x + 1.0
    guess = a
    for _ in range(8):
        guess = 0.5 * (guess + a / guess)
    return guess


@case("p")
def bisection_depends_on_x(x):
    lo = 0.0
    hi = 10.0
    for _ in range(6):
        mid = (lo + hi) / 2
        if mid * mid > x:
            hi = mid
        else:
            lo = mid
    return x * lo


@case("f", "f")
def euler_oscillator(k, c):
    x = 1.0
    v = 0.0
    dt = 0.01
    for _ in range(100):
        a = -k * x - c * v
        v = v + dt * a
        x = x + dt * v
    return x * x + v


@case("f")
def logistic_map(r):
    x = 0.3
    for _ in range(10):
        x = (2.5 + 0.3 * np.tanh(r)) * x * (1.0 - x)
    return x


@case("f", "f")
def softplus_sum(x, y):
    return np.log(1.0 + np.exp(x)) + np.log(1.0 + np.exp(-y))


@case("f")
def sigmoid_manual(x):
    return 1.0 / (1.0 + np.exp(-x))


@case("f", "f", "f")
def three_way_branch(x, y, z):
    if x > y and y > z:
        return x * y * z
    elif x > z or y < 0.0:
        return x + y * z
    return np.sin(x * y + z)


@case("f")
def not_condition(x):
    r = x
    if not x > 0.5:
        r = x * 2.0
    return r * r


@case("f", "i0-4")
def int_arithmetic_in_loop(x, n):
    acc = x
    j = 0
    for i in range(n):
        j = j + i * i - (i // 2) + (i % 3)
        acc = acc + x * j
    return acc


@case("f")
def repeated_subexpression(x):
    return np.sin(x) * np.sin(x) + np.sin(x)


@case("f")
def dead_code(x):
    unused = np.exp(x) * 100.0
    y = x * 2.0
    unused = unused + y
    return y * y


@case("f", "f")
def shadowing(x, y):
    x = x * y
    y = x + y
    x = x * x + y
    return x


@case("p")
def while_nested_in_for(x):
    acc = 0.0
    for i in range(3):
        z = x + i
        while z < 4.0:
            z = z * 1.7
        acc = acc + z
    return acc


@case("f")
def for_nested_in_while(x):
    k = 0
    acc = x
    while k < 3:
        for j in range(2):
            acc = acc * 0.8 + np.cos(acc + j)
        k += 1
    return acc


@case("f", "f")
def loop_invariant_use(x, y):
    acc = 0.0
    for i in range(4):
        acc = acc + x * y + i
    return acc * y


@case("f")
def constant_condition_folded(x):
    debug = False
    if debug:
        x = x * 1000.0
    return x + 1.0


@case("f")
def float_int_conversion(x):
    n = int(3.7)
    return x * float(n) + x ** n


@case("p")
def floor_ceil(x):
    return x * np.floor(3.0) + np.ceil(0.5) * x


@case("f", "f")
def hypot_and_pow(x, y):
    return np.hypot(x, y) + np.power(x * x + 1.0, 1.5)


@case("f", "i1-4")
def loop_with_branch_and_break(x, n):
    acc = x
    for i in range(10):
        if i >= n:
            break
        if acc > 0.0:
            acc = acc - 0.3 * i
        else:
            acc = acc * acc
    return acc


@case("f", "f")
def dead_loop_after_differentiated_loop(x, y):
    # regression: the second loop gets no cotangent; it must not store values on the tape
    # that the first loop's adjoint would then read
    k = 0
    while k < 2 and x < 5.0:
        x = np.tanh(x * 0.5 - y)
        k += 1
    for _ in range(2):
        y = np.tanh(np.sin(x) + y)
    return 1.0 * x
