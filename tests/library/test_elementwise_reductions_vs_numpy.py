"""Audit of the elementwise functions, reductions and scans of issue 11 (items 3 and 4) against
numpy: one table of cases, each run compiled on both backends in float64 and float32 with
NaN, infinities and signed zeros among the inputs (values bit for bit, signed zeros included;
the LLVM backend's libm transcendentals within a stated ulp bound of numpy's), and
differentiated away from kinks (gradients against central differences and the eager tape).
`out=` is refused at the user's line with a hint."""

import os
import warnings

import numpy as np
import pytest

from adlite import compiler
from adlite.compiler import AdliteSyntaxError
from adlite.runtime import Tensor

from ..support.gradients import central_difference_in

BACKENDS = ["llvm", "python"]
DTYPES = [np.float64, np.float32]
A = np.array([-3.5, -2.0, -0.5, -0.0, 0.0, 0.5, 2.5, 3.0, np.inf, -np.inf, np.nan, 7.25,
              -7.0, 1.5, -1.5, 0.25])
B = np.array([2.0, -2.0, 0.75, 3.0, -3.0, -0.0, 0.0, np.inf, 2.0, -1.5, 1.0, np.nan,
              -2.5, np.inf, -np.inf, -0.5])
M = np.array([[1.0, np.nan, 3.0, -1.0], [2.0, 2.0, -5.0, 0.5], [np.inf, 0.0, 1.0, 4.0]])
# the C library's cbrt / log2 / log10 (LLVM backend) against numpy's own (AVX-512) ones
ULPS = {"cbrt": 3, "log2": 1, "log10": 2}


def mod(a, b):
    return np.mod(a, b)


def remainder(a, b):
    return np.remainder(a, b)


def percent(a, b):
    return a % b


def fmod(a, b):
    return np.fmod(a, b)


def floor_divide(a, b):
    return np.floor_divide(a, b)


def slashes(a, b):
    return a // b


def sign(a, b):
    return np.sign(a)


def round_even(a, b):
    return np.round(a)


def round_digits(a, b):
    return np.round(a * 1.2345, 2)


def around_tens(a, b):
    return np.around(a * 12.5, -1)


def log2(a, b):
    return np.log2(a)


def log10(a, b):
    return np.log10(a)


def cbrt(a, b):
    return np.cbrt(a)


def square(a, b):
    return np.square(a)


def fmax(a, b):
    return np.fmax(a, b)


def fmin(a, b):
    return np.fmin(a, b)


def maximum(a, b):
    return np.maximum(a, b)


def minimum(a, b):
    return np.minimum(a, b)


def multiply_by_name(a, b):
    return np.multiply(a, b) + np.add(a, b) * np.subtract(b, a)


ELEMENTWISE = [mod, remainder, percent, fmod, floor_divide, slashes, sign, round_even,
               round_digits, around_tens, log2, log10, cbrt, square, fmax, fmin, maximum,
               minimum, multiply_by_name]


def var_axis0(m):
    return np.var(m, axis=0)


def var_ddof_keepdims(m):
    return np.var(m, axis=1, ddof=1, keepdims=True)


def std_axes_ddof(m):
    return np.std(m, axis=(0, 1), ddof=2)


def std_method(m):
    return m.std(axis=0, keepdims=True)


def max_axis0(m):
    return np.max(m, axis=0)


def min_keepdims(m):
    return np.min(m, axis=1, keepdims=True)


def amax_last(m):
    return np.amax(m, axis=-1)


def argmax_axis0(m):
    return np.argmax(m, axis=0)


def argmin_axis1(m):
    return np.argmin(m, axis=1)


def argmax_flat(m):
    return np.argmax(m)


def argmin_keepdims(m):
    return np.argmin(m, axis=1, keepdims=True)


def argmax_flat_keepdims(m):
    return m.argmax(keepdims=True)


def cumsum_axis0(m):
    return np.cumsum(m, axis=0)


def cumprod_axis1(m):
    return np.cumprod(m, axis=1)


def cumsum_flat(m):
    return np.cumsum(m)


REDUCTIONS = [var_axis0, var_ddof_keepdims, std_axes_ddof, std_method, max_axis0, min_keepdims,
              amax_last, argmax_axis0, argmin_axis1, argmax_flat, argmin_keepdims,
              argmax_flat_keepdims, cumsum_axis0, cumprod_axis1, cumsum_flat]


def _numpy(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args)


def _assert_same(got, expected, ulps=0):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape
    if expected.dtype.kind != "f":
        np.testing.assert_array_equal(got, expected)
        return
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(got), nan)
    g, e = got[~nan], expected[~nan]
    if ulps:
        np.testing.assert_array_max_ulp(g, e, maxulp=ulps)
    else:
        np.testing.assert_array_equal(g, e)
    np.testing.assert_array_equal(np.signbit(g), np.signbit(e))  # signed zeros too


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("fn", ELEMENTWISE, ids=lambda f: f.__name__)
def test_elementwise_values_are_numpys(fn, dtype, backend):
    a, b = A.astype(dtype), B.astype(dtype)
    expected = _numpy(fn, a, b)
    got = compiler.jit(fn, backend=backend)(a, b)
    assert got.dtype == expected.dtype
    _assert_same(got, expected, ULPS.get(fn.__name__, 0) if backend == "llvm" else 0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("fn", REDUCTIONS, ids=lambda f: f.__name__)
def test_reductions_and_scans_are_numpys(fn, dtype, backend):
    m = M.astype(dtype)
    expected = _numpy(fn, m)
    got = compiler.jit(fn, backend=backend)(m)
    assert np.asarray(got).dtype == np.asarray(expected).dtype or \
        (backend == "python" and np.ndim(expected) == 0)  # Python floats for scalars
    _assert_same(got, expected)


X = np.array([[1.3, -2.7, 0.4], [2.2, 0.9, -1.1]])
Y = np.array([[0.7, 1.9, -0.6], [-1.4, 0.5, 2.1]])


# differentiable at (X, Y), and run on the tape too
def smooth_mod(a, b):
    return np.sum(np.mod(a, b) * a)


def smooth_fmod(a, b):
    return np.sum(np.fmod(a, b) * b)


def smooth_percent(a, b):
    return np.sum((a % b) ** 2)


def smooth_floor_divide(a, b):
    return np.sum(np.floor_divide(a, b) * a)


def smooth_sign(a, b):
    return np.sum(np.sign(a) * b)


def smooth_round(a, b):
    return np.sum(np.round(a, 1) * a + np.around(b * 1.1))


def smooth_log2(a, b):
    return np.sum(np.log2(np.abs(a)) * b)


def smooth_log10(a, b):
    return np.sum(np.log10(a * a) * b)


def smooth_cbrt(a, b):
    return np.sum(np.cbrt(a) * b)


def smooth_square(a, b):
    return np.sum(np.square(a - b))


def smooth_fmax(a, b):
    return np.sum(np.fmax(a, b) ** 2)


def smooth_fmin(a, b):
    return np.sum(np.fmin(a, b) ** 3)


def smooth_maximum(a, b):
    return np.sum(np.maximum(a, b) * a)


def smooth_minimum(a, b):
    return np.sum(np.minimum(a, b) * b)


def smooth_var(a, b):
    return np.sum(np.var(a, axis=1, ddof=1, keepdims=True) * b)


def smooth_std(a, b):
    return np.sum(np.std(a * b, axis=0))


def smooth_max(a, b):
    return np.sum(np.max(a, axis=1, keepdims=True) * b)


def smooth_min(a, b):
    return np.sum(np.min(a * b, axis=0))


def smooth_cumsum(a, b):
    return np.sum(np.cumsum(a, axis=1) * b)


def smooth_cumprod(a, b):
    return np.sum(np.cumprod(a, axis=0) * b)


def smooth_by_name(a, b):
    return np.sum(np.multiply(a, b) + np.add(a, b) * np.subtract(b, a))


SMOOTH = [smooth_mod, smooth_fmod, smooth_percent, smooth_floor_divide, smooth_sign, smooth_round,
          smooth_log2, smooth_log10, smooth_cbrt, smooth_square, smooth_fmax, smooth_fmin,
          smooth_maximum, smooth_minimum, smooth_var, smooth_std, smooth_max, smooth_min,
          smooth_cumsum, smooth_cumprod, smooth_by_name]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("loss", SMOOTH, ids=lambda f: f.__name__)
def test_gradients_match_differences_and_tape(loss, backend):
    got = compiler.grad(loss, wrt=(0, 1), backend=backend)(X, Y)
    for k in range(2):
        np.testing.assert_allclose(got[k], central_difference_in(loss, (X, Y), k), rtol=1e-6,
                                   atol=1e-7)
    a, b = Tensor(X.copy(), requires_grad=True), Tensor(Y.copy(), requires_grad=True)
    loss(a, b).backward()
    for k, t in enumerate((a, b)):
        tape = np.zeros_like(X) if t.grad is None else t.grad.data
        np.testing.assert_allclose(got[k], tape, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("loss", SMOOTH, ids=lambda f: f.__name__)
def test_float32_gradients_match_the_tape(loss):
    x, y = X.astype(np.float32), Y.astype(np.float32)
    got = compiler.grad(loss, wrt=(0, 1))(x, y)
    a, b = Tensor(x.copy(), requires_grad=True), Tensor(y.copy(), requires_grad=True)
    loss(a, b).backward()
    for k, t in enumerate((a, b)):
        assert got[k].dtype == np.float32
        tape = np.zeros_like(x) if t.grad is None else t.grad.data
        np.testing.assert_allclose(got[k], tape, rtol=1e-5, atol=1e-6)


def multiply_into(a, b):
    c = np.zeros(3)
    np.multiply(a, b, out=c)
    return c


def test_out_is_refused_with_a_hint():
    with pytest.raises(AdliteSyntaxError, match=r"argument\(s\) out: compiled code makes") as e:
        compiler.jit(multiply_into)(np.ones(3), np.ones(3))
    assert os.path.basename(__file__) in str(e.value) and "y[...] =" in str(e.value)
