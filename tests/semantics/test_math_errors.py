"""`math`'s one-argument functions in compiled code raise where Python's do (CPython's
`math_1`: ValueError "math domain error" for a NaN from a number that is not NaN, OverflowError
"math range error" for an infinity from a finite number where the function can overflow),
while numpy's functions of the same name keep numpy's NaN / inf. Every expectation is Python
running the same function; both backends must agree with it, and derivatives still flow."""

import math

import numpy as np
import pytest

from adlite.compiler import grad, jit

BACKENDS = ("llvm", "python")
VALUES = (-2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 710.0, 1e308, math.inf, -math.inf,
          math.nan)
NAMES = ("sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "sinh",
         "cosh", "tanh", "asin", "acos", "atan", "cbrt")


def _program(name):
    function = getattr(math, name)

    def program(x):
        return function(x)

    return program


def outcome(fn, x):
    try:
        return "value", fn(x)
    except (ValueError, OverflowError) as e:
        return type(e).__name__, str(e)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_math_functions_raise_where_python_raises(name, backend):
    program = _program(name)
    compiled = jit(program, backend=backend)
    for x in VALUES:
        want, got = outcome(program, x), outcome(compiled, x)
        assert want[0] == got[0], (name, x, want, got)
        if want[0] == "value":
            assert got[1] == pytest.approx(want[1], rel=1e-15, nan_ok=True), (name, x)
        else:
            assert got[1] == want[1], (name, x)


def numpy_log_and_exp(x):
    return np.log(x) + np.exp(x * 1000.0)


def test_numpys_functions_keep_nan_and_inf():
    with np.errstate(all="ignore"):
        want = numpy_log_and_exp(-1.0)
    assert np.isnan(want) and np.isnan(jit(numpy_log_and_exp)(-1.0))


def smooth(x):
    return math.exp(x) * math.sin(x) + math.log(x) + math.sqrt(x)


def test_derivatives_flow_through_checked_math_functions():
    x, h = 1.3, 1e-6
    assert grad(smooth)(x) == pytest.approx((smooth(x + h) - smooth(x - h)) / (2 * h), rel=1e-7)
    with pytest.raises(ValueError, match="math domain error"):
        grad(smooth)(-1.0)


def math_power(x, y):
    return math.pow(x, y)


@pytest.mark.parametrize("backend", BACKENDS)
def test_math_pow_raises_where_python_raises(backend):
    compiled = jit(math_power, backend=backend)
    for x, y in [(-8.0, 1 / 3), (0.0, -1.0), (10.0, 400.0), (2.0, 3.0), (-2.0, 2.0),
                 (1.0, math.nan), (math.nan, 0.0), (math.inf, 2.0), (0.0, 0.0)]:
        want, got = outcome(lambda v: math_power(*v), (x, y)), outcome(lambda v: compiled(*v),
                                                                        (x, y))
        assert want[0] == got[0] and (want[0] != "value" or got[1] == want[1]), (x, y, got)


def squared_by_pow(n):
    return pow(n, 2)


def numpy_power(x, y):
    return np.power(x, y)


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_powers_keep_their_types(backend):
    got = jit(squared_by_pow, backend=backend)(7)
    assert got == 49 and isinstance(got, int)
    ints = np.arange(4)
    for y in (3, np.array([1, 2, 0, 3])):
        got, want = jit(numpy_power, backend=backend)(ints, y), numpy_power(ints, y)
        assert got.dtype == want.dtype == np.int64
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        jit(numpy_power, backend=backend)(ints, np.array([1, -1, 0, 2]))
