"""One function per array operation, reduced to a scalar with a smooth nonlinearity, for the
per-op gradient tables (compiled vs eager tape vs finite differences, first and second order).
Operand kinds: "n" normal, "p" positive, "z" away from zero, "d" distinct values."""

import numpy as np

UNARY = []
BINARY = []


def unary(kind):
    def register(fn):
        UNARY.append((fn.__name__, fn, kind))
        return fn
    return register


def binary(kx, ky):
    def register(fn):
        BINARY.append((fn.__name__, fn, kx, ky))
        return fn
    return register


@unary("n")
def op_neg(x):
    return np.sum(np.sin(-x))


@unary("n")
def op_exp(x):
    return np.sum(np.exp(x) * 0.5)


@unary("p")
def op_log(x):
    return np.sum(np.log(x) * np.log(x))


@unary("p")
def op_cbrt(x):
    return np.sum(np.cbrt(x) * x)


@unary("p")
def op_sqrt(x):
    return np.sum(np.sqrt(x) * x)


@unary("n")
def op_sin_cos(x):
    return np.sum(np.sin(x) * np.cos(2.0 * x))


@unary("n")
def op_tanh(x):
    return np.sum(np.tanh(x) ** 2)


@unary("z")
def op_abs(x):
    return np.sum(np.abs(x) * x)


@unary("n")
def op_square(x):
    return np.sum(np.square(x) * np.sin(x))


@unary("n")
def op_pow_const(x):
    return np.sum(x ** 3)


@unary("d")
def op_max(x):
    return np.max(x) * np.max(x) + np.sum(x) * 0.1


@unary("d")
def op_min(x):
    return np.min(x) ** 3


@unary("n")
def op_mean(x):
    return np.mean(x) ** 2 + np.sum(np.sin(x))


@unary("d")
def op_maximum_scalar(x):
    return np.sum(np.maximum(x, 0.05) ** 2)


@unary("n")
def op_where(x):
    return np.sum(np.where(x > 0.1, x * x, np.sin(x)))


@unary("n")
def op_scalar_broadcast(x):
    return np.sum(np.sin(x * 2.0 + 1.0) / 3.0 - 0.5 * x)


BINARY_KINDS = [("add", "n", "n"), ("sub", "n", "n"), ("mul", "n", "n"), ("div", "n", "z"),
                ("pow", "p", "n"), ("maximum", "d", "d"), ("minimum", "d", "d")]


@binary("n", "n")
def op_add(x, y):
    return np.sum(np.sin(x + y))


@binary("n", "n")
def op_sub(x, y):
    return np.sum(np.sin(x - 2.0 * y))


@binary("n", "n")
def op_mul(x, y):
    return np.sum(np.sin(x * y))


@binary("n", "z")
def op_div(x, y):
    return np.sum(np.sin(x / y))


@binary("p", "n")
def op_pow(x, y):
    return np.sum(x ** y)


@binary("d", "d")
def op_maximum(x, y):
    return np.sum(np.sin(np.maximum(x, y + 0.35)))


@binary("d", "d")
def op_minimum(x, y):
    return np.sum(np.sin(np.minimum(x, y + 0.35)))


@binary("n", "n")
def op_select(x, y):
    return np.sum(np.where(x > y, np.sin(x), y * y))


AXIS_CASES = []


def axis_case(fn):
    AXIS_CASES.append((fn.__name__, fn))
    return fn


@axis_case
def sum_axis0(x):
    return np.sum(np.sin(np.sum(x, axis=0)))


@axis_case
def sum_axis1_keepdims(x):
    return np.sum(x / (1.0 + np.sum(x * x, axis=1, keepdims=True)))


@axis_case
def mean_axis_tuple(x):
    return np.sum(np.mean(x, axis=(0, 1)) * x)


@axis_case
def var_std_axes_ddof(x):
    return np.sum(np.var(x, axis=1, ddof=1, keepdims=True) * np.std(x, axis=0)) + np.std(x)


@axis_case
def max_axis1(x):
    return np.sum(np.max(x, axis=1) ** 2)


@axis_case
def min_axis0_keepdims(x):
    return np.sum(np.min(x, axis=0, keepdims=True) * x)


@axis_case
def methods_and_transpose(x):
    return x.sum(axis=1).max() + np.sum(x.T @ x) + x.reshape(3, 2).mean()


@axis_case
def matmul_shapes(x):
    v = np.sum(x, axis=0)
    return np.sum((x @ v) ** 2) + v @ v + np.sum(x @ x.T)
