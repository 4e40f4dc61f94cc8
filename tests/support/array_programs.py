"""Programs over arrays reduced to a scalar, for compiled gradients against the eager tape and
differences (tests/ad/test_gradients_over_shapes.py) and the IR round trip: programs that mix
Python numbers with arrays, select between branches or reduce over axes, and np.linalg
programs. Single operations are rows of the op table (op_table.py), not here. Operand kinds
are those of `op_table.sample`."""

import numpy as np

PROGRAMS = []  # (name, fn, operand kinds): any shapes, broadcast alike


def program(*kinds):
    def register(fn):
        PROGRAMS.append((fn.__name__, fn, kinds))
        return fn
    return register


@program("distinct")
def maximum_with_a_number(x):
    return np.sum(np.maximum(x, 0.05) ** 2)


@program("normal")
def where_between_branches(x):
    return np.sum(np.where(x > 0.1, x * x, np.sin(x)))


@program("normal")
def numbers_broadcast(x):
    return np.sum(np.sin(x * 2.0 + 1.0) / 3.0 - 0.5 * x)


@program("normal", "normal")
def where_comparing_operands(x, y):
    return np.sum(np.where(x > y, np.sin(x), y * y))


@program("normal", "normal")
def ufuncs_by_name(x, y):
    s = np.add(np.multiply(x, y), np.subtract(x, np.negative(y)))
    return np.sum(np.divide(s, np.add(np.multiply(y, y), 1.0)))


AXIS_CASES = []


def axis_case(fn):
    AXIS_CASES.append((fn.__name__, fn))
    return fn


@axis_case
def prod_axis0(x):
    return np.sum(np.sin(np.prod(x, axis=0)))


@axis_case
def prod_axis1_keepdims(x):
    return np.sum(x * np.prod(x + 0.5, axis=-1, keepdims=True))


@axis_case
def prod_all(x):
    return np.prod(np.cos(x))


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


# np.linalg: (name, fn, operand kinds); "matrix" is well conditioned (a dominant diagonal),
# "free" any 3 x 3, "vector" / "rhs" a right-hand side (3,) / (3, 2); Cholesky's operand is
# built symmetric positive definite inside
LINALG = []


def linalg(*kinds):
    def register(fn):
        LINALG.append((fn.__name__, fn, kinds))
        return fn
    return register


@linalg("matrix", "vector")
def la_solve_vector(a, b):
    return np.sum(np.sin(np.linalg.solve(a, b)))


@linalg("matrix", "rhs")
def la_solve_matrix(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


@linalg("matrix")
def la_inv(a):
    return np.sum(np.sin(np.linalg.inv(a)) * a)


@linalg("matrix")
def la_det(a):
    return np.linalg.det(a) * np.sum(a)


@linalg("matrix")
def la_slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * logdet + np.sum(a * a)


@linalg("free", "matrix")
def la_cholesky(m, k):
    spd = m @ m.T + k @ k.T  # symmetric: perturbing m or k perturbs both triangles
    return np.sum(np.sin(np.linalg.cholesky(spd)))


@linalg("free", "matrix", "vector")
def la_gp_solves(m, k, y):
    lower = np.linalg.cholesky(m @ m.T + k @ k.T)
    alpha = np.linalg.solve(lower.T, np.linalg.solve(lower, y))
    return 0.5 * y @ alpha + np.linalg.slogdet(lower)[1]


# np.linalg calls as they are: errors of singular or indefinite operands are numpy's

def solve(a, b):
    return np.linalg.solve(a, b)


def inv(a):
    return np.linalg.inv(a)


def cholesky(a):
    return np.linalg.cholesky(a)
