"""numpy's ufuncs called by name, the float tests, arctan2/exp2/reciprocal/sinc/heaviside/
logaddexp and math's erf/erfc/lgamma/gamma/atan2 in compiled code (issue 11 items 4, 6).

References are numpy's and Python's own results (never the compiler's); gradients are
checked against central differences, second order through grad(grad), on both backends and
in float32 and float64; NaN, infinities and signed zeros are among the inputs.
"""

import math

import numpy as np
import pytest

from adlite.compiler import grad, hessian, jit
from adlite.compiler.errors import AdliteSyntaxError
from adlite.runtime import Tensor, tensor
from adlite.runtime.autograd import grad as tape_grad

BACKENDS = ["llvm", "python"]
EDGES = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 3.0, -7.25, 1e-300])
OTHERS = np.array([2.0, -3.0, 0.5, np.inf, 1.0, -np.inf, 2.0, np.nan, 0.0, -0.0])


def u_add(x, y): return np.add(x, y)                      # noqa: E704
def u_subtract(x, y): return np.subtract(x, y)            # noqa: E704
def u_multiply(x, y): return np.multiply(x, y)            # noqa: E704
def u_divide(x, y): return np.divide(x, y)                # noqa: E704
def u_true_divide(x, y): return np.true_divide(x, y)      # noqa: E704
def u_mod(x, y): return np.mod(x, y)                      # noqa: E704
def u_remainder(x, y): return np.remainder(x, y)          # noqa: E704
def u_floor_divide(x, y): return np.floor_divide(x, y)    # noqa: E704
def u_fmod(x, y): return np.fmod(x, y)                    # noqa: E704
def u_arctan2(x, y): return np.arctan2(x, y)              # noqa: E704
def u_heaviside(x, y): return np.heaviside(x, y)          # noqa: E704
def u_logaddexp(x, y): return np.logaddexp(x, y)          # noqa: E704
def u_greater(x, y): return np.greater(x, y)              # noqa: E704
def u_greater_equal(x, y): return np.greater_equal(x, y)  # noqa: E704
def u_less(x, y): return np.less(x, y)                    # noqa: E704
def u_less_equal(x, y): return np.less_equal(x, y)        # noqa: E704
def u_equal(x, y): return np.equal(x, y)                  # noqa: E704
def u_not_equal(x, y): return np.not_equal(x, y)          # noqa: E704
def u_logical_and(x, y): return np.logical_and(x, y)      # noqa: E704
def u_logical_or(x, y): return np.logical_or(x, y)        # noqa: E704
def u_logical_xor(x, y): return np.logical_xor(x, y)      # noqa: E704
def u_negative(x): return np.negative(x)                  # noqa: E704
def u_positive(x): return np.positive(x)                  # noqa: E704
def u_logical_not(x): return np.logical_not(x)            # noqa: E704
def u_isnan(x): return np.isnan(x)                        # noqa: E704
def u_isinf(x): return np.isinf(x)                        # noqa: E704
def u_isfinite(x): return np.isfinite(x)                  # noqa: E704
def u_exp2(x): return np.exp2(x)                          # noqa: E704
def u_reciprocal(x): return np.reciprocal(x)              # noqa: E704
def u_sinc(x): return np.sinc(x)                          # noqa: E704


EXACT_BINARY = [u_add, u_subtract, u_multiply, u_divide, u_true_divide, u_mod, u_remainder,
                u_fmod, u_floor_divide, u_heaviside, u_greater, u_greater_equal, u_less,
                u_less_equal, u_equal, u_not_equal, u_logical_and, u_logical_or, u_logical_xor]
EXACT_UNARY = [u_negative, u_positive, u_logical_not, u_isnan, u_isinf, u_isfinite,
               u_reciprocal]
LIBM_BINARY = [u_arctan2, u_logaddexp]  # libm / exp+log1p: within a few ulp of numpy's
LIBM_UNARY = [u_exp2, u_sinc]


def _check(got, want, exact, dtype):
    # the Python backend returns scalar results as Python numbers (as it does for np.sum)
    got = np.asarray(got, dtype=want.dtype if np.ndim(got) == 0 else None)
    assert got.dtype == want.dtype and got.shape == want.shape
    if exact or want.dtype == bool:
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    else:
        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(dtype).eps, atol=0,
                                   equal_nan=True)


def _numpy(fn, *args):
    with np.errstate(all="ignore"):
        return np.asarray(fn(*args))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fn", EXACT_BINARY + LIBM_BINARY, ids=lambda f: f.__name__)
def test_binary_values_match_numpy_with_edge_cases(fn, dtype, backend):
    x, y = EDGES.astype(dtype), OTHERS.astype(dtype)
    _check(jit(fn, backend=backend)(x, y), _numpy(fn, x, y), fn in EXACT_BINARY, dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fn", EXACT_UNARY + LIBM_UNARY, ids=lambda f: f.__name__)
def test_unary_values_match_numpy_with_edge_cases(fn, dtype, backend):
    x = EDGES.astype(dtype)
    _check(jit(fn, backend=backend)(x), _numpy(fn, x), fn in EXACT_UNARY, dtype)


@pytest.mark.parametrize("backend", BACKENDS)
def test_logaddexp_is_stable_and_keeps_infinities(backend):
    x = np.array([1000.0, -1000.0, np.inf, -np.inf, -np.inf, np.inf, 0.0])
    y = np.array([1000.0, -1001.0, np.inf, -np.inf, 3.0, -np.inf, np.nan])
    _check(jit(u_logaddexp, backend=backend)(x, y), _numpy(u_logaddexp, x, y), False,
           np.float64)


def test_float_tests_of_ints_and_scalars():
    ints = np.array([0, -3, 7])
    for fn in (u_isnan, u_isinf, u_isfinite):
        _check(jit(fn)(ints), np.asarray(fn(ints)), True, np.int64)
        for v in (1.5, math.nan, -math.inf):
            assert jit(fn)(v) == fn(v)


def math_tests(x):
    return float(math.isnan(x)) + 2.0 * float(math.isinf(x)) + 4.0 * float(math.isfinite(x))


@pytest.mark.parametrize("v", [0.5, math.nan, math.inf, -math.inf])
def test_math_float_tests(v):
    assert jit(math_tests)(v) == math_tests(v)


def special(x):
    return math.erf(x) + 2.0 * math.erfc(x) + 3.0 * math.lgamma(x) + math.atan2(x, 0.75)


def gamma(x):
    return math.gamma(x)


def lgamma(x):
    return math.lgamma(x)


POINTS = [0.3, 1.0, 2.5, 7.0, -0.5, -1.5, -2.25, 30.5]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("v", POINTS)
def test_math_special_values_match_python(v, backend):
    assert jit(special, backend=backend)(v) == pytest.approx(special(v), rel=1e-14)
    # exp(lgamma) loses about |lgamma(x)| ulp against Python's Lanczos gamma
    bound = 8 * np.finfo(float).eps * max(1.0, abs(math.lgamma(v)))
    assert jit(gamma, backend=backend)(v) == pytest.approx(math.gamma(v), rel=bound)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [special, gamma, lgamma], ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", POINTS)
def test_math_special_gradients_match_central_differences(fn, v, backend):
    h = 1e-6
    fd = (fn(v + h) - fn(v - h)) / (2 * h)
    assert grad(fn, backend=backend)(v) == pytest.approx(fd, rel=1e-6, abs=1e-7)
    d1 = grad(fn, backend=backend)
    fd2 = (d1(v + 1e-5) - d1(v - 1e-5)) / 2e-5
    assert grad(d1, backend=backend)(v) == pytest.approx(fd2, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,v", [(gamma, 0.0), (gamma, -0.0), (gamma, -3.0),
                                  (gamma, -math.inf), (lgamma, 0.0), (lgamma, -2.0),
                                  (gamma, 171.7), (gamma, 1e306), (lgamma, 1e306)])
def test_math_gamma_errors_as_python(fn, v, backend):
    with pytest.raises((ValueError, OverflowError)) as expected:
        fn(v)
    with pytest.raises(expected.type, match=str(expected.value)):
        jit(fn, backend=backend)(v)


@pytest.mark.parametrize("v", [math.inf, math.nan])
def test_math_gamma_at_infinity_and_nan(v):
    got, want = jit(gamma)(v), math.gamma(v)
    assert got == want or (math.isnan(got) and math.isnan(want))


def loss(x, y):
    z = np.arctan2(x, y) + np.logaddexp(x, y) * np.exp2(x) + np.sinc(x) * np.reciprocal(y)
    return np.sum(np.multiply(z, np.heaviside(x, 0.5) + 1.0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradient_of_a_mixture_matches_central_differences(backend):
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(5), rng.uniform(0.5, 2.0, 5)
    gx = grad(loss, backend=backend)(x, y)
    for i in range(5):
        e = np.zeros(5)
        e[i] = 1e-6
        assert gx[i] == pytest.approx((loss(x + e, y) - loss(x - e, y)) / 2e-6, rel=1e-6,
                                      abs=1e-8)


def logaddexp_sum(x):
    return np.sum(np.logaddexp(x, 0.0 * x + 1.0))


def test_logaddexp_shares_the_gradient_at_equal_operands():
    # d/dx log(e^x + e^1) at x = 1 is 1/2, as the central difference says
    x = np.array([1.0, 0.0])
    fd = [(logaddexp_sum(x + e) - logaddexp_sum(x - e)) / 2e-6 for e in np.eye(2) * 1e-6]
    np.testing.assert_allclose(grad(logaddexp_sum)(x), fd, rtol=1e-6)


def int_reciprocal(n):
    return np.reciprocal(n)


def with_out(x, y):
    return np.add(x, y, out=x)


@pytest.mark.parametrize("fn,args,text", [
    (int_reciprocal, (np.array([1, 2]),), "np.reciprocal of integers"),
    (with_out, (np.ones(2), np.ones(2)), "unsupported keyword argument(s) out"),
    (u_fmod, (np.array([5, -7]), np.array([3, 2])), "np.fmod of integers"),
])
def test_refusals_name_the_line(fn, args, text):
    with pytest.raises(AdliteSyntaxError, match=r"test_ufuncs_by_name\.py:\d+") as e:
        jit(fn)(*args)
    assert text in str(e.value)


def prod0(x): return np.prod(x, axis=0)                    # noqa: E704
def prod1k(x): return np.prod(x, axis=1, keepdims=True)    # noqa: E704
def prod_all(x): return np.prod(x)                         # noqa: E704


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [
    np.array([[1.5, 0.0, np.nan], [2.0, -np.inf, 4.0], [-1.0, 3.0, 0.5]]),
    np.array([[1.5, 0.0, np.nan], [2.0, -np.inf, 4.0]], dtype=np.float32),
    np.array([[3, -2, 5], [7, 0, 1]]), np.array([[True, False], [True, True]])],
    ids=["f64", "f32", "int", "bool"])
@pytest.mark.parametrize("fn", [prod0, prod1k, prod_all], ids=lambda f: f.__name__)
def test_prod_values_match_numpy(fn, x, backend):
    _check(jit(fn, backend=backend)(x), _numpy(fn, x), x.dtype.kind != "f", np.float32)


def prod_loss(x):
    return np.sum(np.sin(np.prod(x, axis=1)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_prod_gradient_with_zeros_matches_the_tape(backend):
    x = np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0], [0.5, -2.0, 1.25]])
    t = Tensor(x, requires_grad=True)
    prod_loss(t).backward()
    np.testing.assert_allclose(grad(prod_loss, backend=backend)(x), t.grad.numpy(), rtol=1e-15)
    assert grad(prod_loss, backend=backend)(x)[0, 1] == pytest.approx(3.0 * math.cos(0.0))


def argmax1(x): return np.argmax(x, axis=1)                # noqa: E704
def argmin0(x): return np.argmin(x, 0)                     # noqa: E704
def argmax_all(x): return np.argmax(x)                     # noqa: E704
def argmin_last(x): return np.argmin(x, axis=-1)           # noqa: E704
def any0(x): return np.any(x, axis=0)                      # noqa: E704
def all1k(x): return np.all(x, axis=1, keepdims=True)      # noqa: E704
def any_all(x): return np.any(x)                           # noqa: E704
def all_all(x): return np.all(x)                           # noqa: E704


TRUTH_INPUTS = [np.array([[1.0, np.nan, 3.0, np.nan], [2.0, -1.0, 0.5, 2.0],
                          [0.0, 7.0, 7.0, -3.0]]),
                np.array([[0.0, -0.0], [np.nan, 0.0]], dtype=np.float32),
                np.array([[3, 1, 3], [0, 2, 2]]), np.array([[True, False], [False, False]])]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", TRUTH_INPUTS, ids=["f64-nan", "f32", "int", "bool"])
@pytest.mark.parametrize("fn", [argmax1, argmin0, argmax_all, argmin_last, any0, all1k,
                                any_all, all_all], ids=lambda f: f.__name__)
def test_argmax_argmin_any_all_match_numpy(fn, x, backend):
    got, want = jit(fn, backend=backend)(x), fn(x)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", [any0, all1k, any_all, all_all], ids=lambda f: f.__name__)
def test_any_all_over_no_element(fn):
    x = np.zeros((0, 3))
    np.testing.assert_array_equal(jit(fn)(x), fn(x))


def argmax_loss(x):
    return np.sum(x * np.argmax(x, axis=0))


def test_argmax_is_not_differentiated():
    x = np.array([[1.0, 5.0], [3.0, 2.0]])
    np.testing.assert_array_equal(grad(argmax_loss)(x), np.array([[1.0, 0.0], [1.0, 0.0]]))


def argmax_empty(x):
    return np.argmax(x, axis=0)


def test_argmax_of_nothing_is_refused_as_numpy_raises():
    with pytest.raises(AdliteSyntaxError, match="attempt to get argmax of an empty sequence"):
        jit(argmax_empty)(np.zeros((0, 2)))


def logaddexp2_loss(x, y):
    return np.sum(np.logaddexp2(x, y) * x)


def test_logaddexp2_gradient_agrees_with_the_tape_finite_differences_and_numpy():
    # d/dx sum(logaddexp2(x, y) * x) = logaddexp2(x, y) + x * 2**x / (2**x + 2**y); the
    # equal pair (0.5, 0.5) takes the tie's branch (the derivative shared evenly: 1/2)
    x, y = np.array([0.3, -1.2, 2.0, 0.5]), np.array([1.1, 0.4, -3.0, 0.5])
    want = np.logaddexp2(x, y) + x * 2.0 ** x / (2.0 ** x + 2.0 ** y)
    compiled = grad(logaddexp2_loss)(x, y)
    xt = Tensor(x.copy(), requires_grad=True)
    logaddexp2_loss(xt, Tensor(y)).backward()
    h = 1e-6
    central = [(logaddexp2_loss(x + e, y) - logaddexp2_loss(x - e, y)) / (2 * h)
               for e in np.eye(4) * h]
    np.testing.assert_allclose(compiled, want, rtol=1e-13)
    np.testing.assert_allclose(xt.grad.numpy(), want, rtol=1e-13)
    np.testing.assert_allclose(central, want, rtol=1e-8)
    assert jit(logaddexp2_loss)(x, y) == pytest.approx(np.sum(np.logaddexp2(x, y) * x),
                                                       rel=1e-15)


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_second_derivatives_of_logaddexp_at_ties(name):
    """At x == y (found by autograd's test suite: the Hessian was 0 there) the composite's
    tie branch carries the function's curvature; compared with second differences, and with
    the eager tape's gradient of the gradient."""
    fn = getattr(np, name)
    h = 1e-4
    for point in (0.4, -2.0, 3.5):
        got = np.array(hessian(lambda x, y: fn(x, y), argnums=(0, 1))(point, point))
        second = (fn(point + h, point) - 2 * fn(point, point) + fn(point - h, point)) / h ** 2
        np.testing.assert_allclose(got, second * np.array([[1.0, -1.0], [-1.0, 1.0]]),
                                   rtol=1e-5)
        assert grad(lambda x, y: fn(x, y))(point, point) == pytest.approx(0.5)
        x = tensor(point, requires_grad=True)
        (first,) = tape_grad(fn(x, point), [x], create_graph=True)
        (again,) = tape_grad(first, [x])
        assert float(again.data) == pytest.approx(second, rel=1e-5)
