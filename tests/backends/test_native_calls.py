"""Calling compiled code: scalar arguments and results with arrays inside, the scratch buffer
of the generated entry point (stack or heap), and argument conversion on the ctypes path
(array code), which must match the generated entry point's."""

import numpy as np
import pytest

from adlite.compiler import grad, hessian, jit, jvp
from adlite.compiler.backends.llvm.jit import native_of
from adlite.compiler.backends.llvm.lower import lower_module, symbol_name
from adlite.compiler.backends.llvm.pywrapper import add_python_wrapper
from adlite.compiler.ir.core import F64, I64


def pair_sum(x):
    return np.sum(np.array([x, 2.0 * x]))


def ones_times(x):
    return np.sum(np.ones(3) * x)


def work_array(x):
    a = np.zeros(4) + x
    a[1] = 2.0 * x * x
    return np.sum(a * a) + a[0]


def big_work_array(x):
    a = np.zeros(5000) + x      # 40 KB: more scratch than the stack gives a call
    a[1] = 2.0 * x * x
    return np.sum(a * a) + a[0]


def lotka_volterra(a):
    """RK4 steps of a predator-prey model with a small state array."""
    u = np.array([1.0, 0.5])
    h = 0.1
    for _ in range(20):
        k1 = np.array([a * u[0] - u[0] * u[1], u[0] * u[1] - u[1]])
        v = u + 0.5 * h * k1
        k2 = np.array([a * v[0] - v[0] * v[1], v[0] * v[1] - v[1]])
        v = u + 0.5 * h * k2
        k3 = np.array([a * v[0] - v[0] * v[1], v[0] * v[1] - v[1]])
        v = u + h * k3
        k4 = np.array([a * v[0] - v[0] * v[1], v[0] * v[1] - v[1]])
        u = u + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return u[0] + u[1]


def broadcast(x):
    return np.zeros(3) + x


def float32_sum(x):
    return np.sum(np.ones(3, dtype=np.float32))


def huge_work_array(x):
    a = np.zeros(2**45) + x     # 256 TiB: no allocator can give it
    a[1] = 2.0 * x
    return a[0] + a[1]


def huge_work_array_of_array(x, y):
    a = np.zeros(2**45) + x
    a[1] = 2.0 * y[0]
    return a[0] + a[1]


def take(x, i):
    return x[0] + i


def plus_one(i):
    return i + 1


def _derivative(f, x, h=1e-5):
    return (f(x + h) - f(x - h)) / (2 * h)


SCALAR_WITH_ARRAYS = [pair_sum, ones_times, work_array, big_work_array, lotka_volterra]


@pytest.mark.parametrize("f", SCALAR_WITH_ARRAYS)
def test_scalar_arguments_and_results_with_arrays_inside(f):
    x = 1.25
    assert jit(f)(x) == pytest.approx(f(x), rel=1e-12)
    derivative = _derivative(f, x)
    assert grad(f)(x) == pytest.approx(derivative, rel=1e-6)
    value, tangent = jvp(f, (x,), (2.0,))
    assert value == pytest.approx(f(x), rel=1e-12)
    assert tangent == pytest.approx(2.0 * derivative, rel=1e-6)
    assert hessian(f)(x) == pytest.approx(_derivative(lambda y: _derivative(f, y), x, 1e-3),
                                          rel=1e-4, abs=1e-6)


def test_array_result_of_scalar_arguments():
    np.testing.assert_array_equal(jit(broadcast)(1.5), broadcast(1.5))
    value, tangent = jvp(broadcast, (1.5,), (2.0,))
    np.testing.assert_array_equal(value, broadcast(1.5))
    np.testing.assert_array_equal(tangent, np.full(3, 2.0))


def test_float32_result_of_scalar_arguments_stays_float32():
    result = jit(float32_sum)(1.0)
    assert type(result) is np.float32 and result == float32_sum(1.0)


@pytest.mark.parametrize("f,args", [(huge_work_array, (1.5,)),
                                    (huge_work_array_of_array, (1.5, np.ones(2)))])
def test_scratch_that_cannot_be_allocated_is_a_memory_error(f, args):
    with pytest.raises(MemoryError):
        f(*args)
    with pytest.raises(MemoryError, match="out of memory in compiled code"):
        jit(f)(*args)


INT64_MAX = 2**63 - 1


@pytest.mark.parametrize("i", [2**64 + 3, np.uint64(2**64 - 1), INT64_MAX + 1,
                               -INT64_MAX - 2, -2**64])
def test_int_arguments_of_array_code_are_range_checked(i):
    with pytest.raises(OverflowError) as scalar_error:
        jit(plus_one)(i)       # the generated entry point: PyLong_AsLongLong
    with pytest.raises(OverflowError) as array_error:
        jit(take)(np.arange(5.0), i)
    assert str(array_error.value) == str(scalar_error.value) == "int too big to convert"


@pytest.mark.parametrize("i", [INT64_MAX, -INT64_MAX - 1, np.uint64(7), np.int64(-3), True])
def test_int_arguments_of_array_code_in_range(i):
    x = np.arange(5.0)
    assert jit(take)(x, i) == take(x, i)


def _outcome(call, *args):
    try:
        return call(*args)
    except Exception as error:  # noqa: BLE001 - the outcome compared is the exception
        return type(error), str(error)


def mixed(x, i, b):
    return x * i if b else x - i


@pytest.mark.parametrize("args", [(2.5, 3, True), (2.5, -3, False), (np.float64(0.5), True, 1),
                                  (1.0, 2**63, True), (1.0, -2**63, True), (1.0, 2.5, True),
                                  (1.0, 2, np.array([1, 2])), ("1", 2, True)])
def test_ctypes_path_converts_arguments_like_the_generated_entry_point(args):
    f = jit(mixed)
    f(1.0, 2, True)
    (run, _), = f.cache.values()
    native = native_of(run)    # the NativeFunction whose entry point `run` is
    assert native.call is run
    assert _outcome(native._ctypes_call, *args) == _outcome(run, *args)


def straight_line(x, y):
    return x * y + 1.0 if x > y else x - y


def looping(x, n):
    s = 0.0
    for _ in range(n):
        s = s * x + 1.0
    return s


@pytest.mark.parametrize("f,types,releases", [(straight_line, (F64, F64), False),
                                              (looping, (F64, I64), True),
                                              (ones_times, (F64,), True)])
def test_generated_entry_point_releases_the_gil_around_code_that_can_run_long(f, types,
                                                                               releases):
    """Releasing and taking back the GIL costs more than straight-line scalar code runs."""
    graph, _ = jit(f).ir_for(types)
    name = symbol_name(f.__name__, "test")
    module = lower_module(graph, name)
    add_python_wrapper(module, name, types, [F64])
    wrapper = str(module.globals[f"entry_{name}"])  # the body of py_ and pyx_
    assert ("PyEval_SaveThread" in wrapper) == releases
    assert ("PyEval_RestoreThread" in wrapper) == releases
