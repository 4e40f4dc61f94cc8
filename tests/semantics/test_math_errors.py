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
