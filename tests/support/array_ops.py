"""One function per array operation, reduced to a scalar with a smooth nonlinearity, for the
per-op gradient tables (compiled vs eager tape vs finite differences, first and second order).
Operand kinds: "n" normal, "p" positive, "z" away from zero, "d" distinct values."""

import numpy as np
import scipy.special as sc

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


@unary("n")
def op_erf_erfc(x):
    return np.sum(sc.erf(x) * x + sc.erfc(0.5 * x) ** 2)


@unary("n")
def op_ndtr(x):
    return np.sum(sc.ndtr(2.0 * x) * x + sc.log_ndtr(12.0 * x))


@unary("n")
def op_expit_logit(x):
    return np.sum(sc.expit(x) * x + sc.logit(sc.expit(0.5 * x) * 0.8 + 0.1))


@unary("p")
def op_gammaln(x):
    return np.sum(sc.gammaln(x * 3.0) * x)


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


@binary("p", "p")
def op_xlogy(x, y):
    return np.sum(sc.xlogy(x, y + 0.5) * x)


@binary("n", "z")
def op_arctan2(x, y):
    return np.sum(np.arctan2(x, y) * x)


@binary("n", "z")
def op_fmod(x, y):
    return np.sum(np.fmod(x * 3.1, y) * y)


@binary("n", "n")
def op_logaddexp(x, y):
    return np.sum(np.logaddexp(x, 2.0 * y) * x)


@binary("n", "n")
def op_ufuncs_by_name(x, y):
    s = np.add(np.multiply(x, y), np.subtract(x, np.negative(y)))
    return np.sum(np.divide(s, np.add(np.multiply(y, y), 1.0)))


@binary("z", "n")
def op_heaviside(x, y):
    return np.sum(np.heaviside(x, y) * y * x)


@unary("n")
def op_exp2(x):
    return np.sum(np.exp2(x) * x)


@unary("z")
def op_reciprocal(x):
    return np.sum(np.reciprocal(x) * x * x)


@unary("n")
def op_sinc(x):
    return np.sum(np.sinc(x) * x)


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
