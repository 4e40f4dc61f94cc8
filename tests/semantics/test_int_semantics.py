"""Compiled ints behave as Python's ints or raise: checked int64 arithmetic, exact `range`
trip counts, int / int, int(x), deep expressions, and numpy's shape checks at compile time.

Every expectation comes from running the same function in Python (or numpy); both backends
must agree with it."""

import math
import sys

import numpy as np
import pytest

from adlite.compiler import grad, jit, show
from adlite.compiler.errors import AdliteSyntaxError
from adlite.compiler.frontend import nesting

BACKENDS = ("llvm", "python")
BIG = 2 ** 63 - 1
SMALL = -(2 ** 63)


def outcome(fn, *args):
    """('ok', value) or (exception type, message)."""
    try:
        return "ok", fn(*args)
    except (ArithmeticError, ValueError) as e:
        return type(e), str(e)


def agrees_with_python(fn, *args, backend, exact=None):
    """The compiled result (value, or error type and message) is Python's, except that it
    is an OverflowError exactly when `exact(*args)`, the int that Python computes on the way,
    does not fit in int64."""
    expected, got = outcome(fn, *args), outcome(jit(fn, backend=backend), *args)
    if expected[0] == "ok" and exact is not None and not SMALL <= exact(*args) <= BIG:
        assert got[0] is OverflowError and "64-bit" in got[1], (args, got)
        return
    if expected[0] == "ok" and isinstance(expected[1], float):
        assert got[0] == "ok" and math.copysign(1, got[1]) == math.copysign(1, expected[1])
    assert got == expected, (args, got, expected)


# ---- checked arithmetic -----------------------------------------------------------------------

def square(n):
    return n * n


def increment_is_larger(n):
    return n + 1 > n


def difference(a, b):
    return a - b


def negate(n):
    return -n


def absolute(n):
    return abs(n)


def floor_quotient(a, b):
    return a // b


def remainder(a, b):
    return a % b


def power_63(n):
    return n ** 63


def power_2(n):
    return n ** 2


def sum_of_squares(n):
    total = 0
    k = 0
    while k < n:
        total = total + k * k * k * k
        k = k + 1
    return total


EXTREMES = [0, 1, -1, 2, -2, 3037000499, 3037000500, -3037000500, BIG, BIG - 1, SMALL,
            SMALL + 1, 2 ** 62]


UNARY = [(square, lambda n: n * n), (increment_is_larger, lambda n: n + 1), (negate, lambda n: -n),
         (absolute, abs), (power_63, lambda n: n ** 63), (power_2, lambda n: n ** 2)]
BINARY = [(difference, lambda a, b: a - b), (floor_quotient, lambda a, b: a // b),
          (remainder, lambda a, b: a % b)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,exact", UNARY, ids=[fn.__name__ for fn, _ in UNARY])
def test_unary_int_operations_are_exact_or_raise(fn, exact, backend):
    for n in EXTREMES:
        agrees_with_python(fn, n, backend=backend, exact=exact)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,exact", BINARY, ids=[fn.__name__ for fn, _ in BINARY])
def test_binary_int_operations_are_exact_or_raise(fn, exact, backend):
    for a in EXTREMES:
        for b in [1, -1, 2, -2, 7, -7, BIG, SMALL]:
            agrees_with_python(fn, a, b, backend=backend, exact=exact)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reported_overflows(backend):
    with pytest.raises(OverflowError, match="64-bit"):
        jit(square, backend=backend)(3037000500)
    with pytest.raises(OverflowError):
        jit(increment_is_larger, backend=backend)(BIG)
    with pytest.raises(OverflowError):
        jit(floor_quotient, backend=backend)(SMALL, -1)
    assert jit(remainder, backend=backend)(SMALL, -1) == 0
    assert jit(power_63, backend=backend)(-2) == (-2) ** 63


@pytest.mark.parametrize("backend", BACKENDS)
def test_sum_in_a_loop_overflows_at_the_step_that_leaves_int64(backend):
    f = jit(sum_of_squares, backend=backend)
    assert f(3000) == sum_of_squares(3000)
    with pytest.raises(OverflowError):
        f(10000)  # the sum of k**4 passes 2**63 near k = 8900


def folded_overflow():
    n = 3037000500
    return n * n


def test_constant_folding_leaves_overflow_to_run_time():
    for backend in BACKENDS:
        with pytest.raises(OverflowError):
            jit(folded_overflow, backend=backend)()
    assert "3037000500" in show(folded_overflow, "lower", backend="python")


# ---- range ------------------------------------------------------------------------------------

def trips(start, stop, step):
    count = 0
    last = 0
    for i in range(start, stop, step):
        count = count + 1
        last = i
    return count, last


def trips_with_break(start, stop, step):
    count = 0
    for _ in range(start, stop, step):
        if count == 3:
            break
        count = count + 1
    return count


RANGES = [(0, 10, 3), (10, 0, -3), (0, 10, -1), (0, 0, 5), (5, 6, 100), (0, BIG, 2 ** 62),
          (BIG - 2, BIG, 2 ** 62), (SMALL, BIG, 2 ** 62), (BIG, SMALL, SMALL), (BIG, SMALL, -BIG),
          (SMALL, BIG, BIG), (SMALL + 3, SMALL, -1), (BIG - 3, BIG, 1), (SMALL, BIG, 3 * 2 ** 61),
          (-7, 7, 2), (7, -7, -2), (SMALL, SMALL + 1, BIG), (BIG, BIG - 1, SMALL)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bounds", RANGES)
def test_range_trip_counts_are_exact(bounds, backend):
    start, stop, step = bounds
    assert jit(trips, backend=backend)(start, stop, step) == trips(start, stop, step)
    assert jit(trips_with_break, backend=backend)(SMALL, BIG, 1) == 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_range_with_a_zero_step_at_run_time(backend):
    with pytest.raises(ValueError, match=r"^range\(\) arg 3 must not be zero$"):
        jit(trips, backend=backend)(0, 5, 0)


def constant_zero_step(n):
    total = 0
    for i in range(0, n, 0):
        total = total + i
    return total


def test_range_with_a_constant_zero_step_is_refused_at_its_line():
    with pytest.raises(AdliteSyntaxError, match=r"test_int_semantics.py:\d+:\d+: range\(\) "
                                                r"arg 3 must not be zero"):
        jit(constant_zero_step)(3)


def stepped_sum(x, n, step):
    y = x
    for i in range(n, -n, step):
        y = y * 1.01 + np.sin(y) * i / n
    return y


@pytest.mark.parametrize("backend", BACKENDS)
def test_grad_through_a_loop_with_a_runtime_step(backend):
    n, step, x, h = 9, -2, 0.3, 1e-6
    g = grad(stepped_sum, backend=backend)(x, n, step)
    fd = (stepped_sum(x + h, n, step) - stepped_sum(x - h, n, step)) / (2 * h)
    assert abs(g - fd) < 1e-6 * max(1.0, abs(fd))
    assert jit(stepped_sum, backend=backend)(x, n, step) == pytest.approx(stepped_sum(x, n, step),
                                                                          rel=1e-12)


# ---- int / int and int(x) -------------------------------------------------------------------

def true_quotient(a, b):
    return a / b


QUOTIENTS = [(1, 0), (0, 0), (7, 2), (0, -5), (-7, 2), (BIG, 3), (SMALL, 7), (SMALL, -1),
             (BIG, SMALL), (2 ** 53 + 1, 1), (2 ** 53 + 1, 2), (12345678901234567, -3),
             (BIG, BIG - 1), (3, BIG), (-(2 ** 60) + 1, 2 ** 55 + 3), (1, SMALL), (9, 2 ** 54 + 1)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("operands", QUOTIENTS)
def test_int_true_division_is_pythons(operands, backend):
    agrees_with_python(true_quotient, *operands, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_true_division_matches_python_on_random_operands(backend):
    rng = np.random.default_rng(8)
    f = jit(true_quotient, backend=backend)
    for bits_a, bits_b in [(63, 63), (63, 20), (40, 63), (55, 54)]:
        for _ in range(300):
            a = int(rng.integers(-(2 ** bits_a), 2 ** bits_a - 1, dtype=np.int64))
            b = int(rng.integers(1, 2 ** bits_b - 1, dtype=np.int64)) * int(rng.choice([-1, 1]))
            assert f(a, b) == a / b, (a, b)


def to_int(x):
    return int(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_of_floats(backend):
    for x in [-2.0 ** 63, np.nextafter(2.0 ** 63, 0), -3.7, 3.7, -0.0, 2.0 ** 63, -2.0 ** 64,
              math.nan, math.inf, -math.inf, 1e300]:
        agrees_with_python(to_int, x, backend=backend,
                           exact=lambda v: int(v) if math.isfinite(v) else 0)
    with pytest.raises(OverflowError, match="cannot convert float infinity to integer"):
        jit(to_int, backend=backend)(-math.inf)


# ---- deep expressions ------------------------------------------------------------------------

def twice(x):
    return x * 2.0


def _deep_module(tmp_path):
    """Functions far deeper than the default recursion limit handles (written to a file:
    adlite compiles from source)."""
    product = " * ".join(["x"] * 400)
    calls = sines = "x"
    for _ in range(180):
        calls, sines = f"twice({calls})", f"np.sin({sines})"
    path = tmp_path / "deep_functions.py"
    path.write_text(f"import numpy as np\n\n\ndef twice(x):\n    return x * 0.5\n\n\n"
                    f"def product(x):\n    return {product}\n\n\n"
                    f"def calls(x):\n    return {calls}\n\n\n"
                    f"def sines(x):\n    return {sines}\n\n\n"
                    f"def long_sum(x):\n    return {' + '.join(['x'] * 2000)}\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import deep_functions
    finally:
        sys.path.remove(str(tmp_path))
    return deep_functions


@pytest.mark.parametrize("backend", BACKENDS)
def test_deep_expressions_compile(tmp_path, backend):
    m = _deep_module(tmp_path)
    x = 1.001
    for fn in (m.product, m.calls, m.sines, m.long_sum):
        assert jit(fn, backend=backend)(x) == pytest.approx(fn(x), rel=1e-12)
        h = 1e-7
        fd = (fn(x + h) - fn(x - h)) / (2 * h)
        assert grad(fn, backend=backend)(x) == pytest.approx(fd, rel=1e-5, abs=1e-9)


def test_expressions_deeper_than_the_limit_are_a_clear_error(tmp_path, monkeypatch):
    m = _deep_module(tmp_path)
    monkeypatch.setattr(nesting, "RECURSION_LIMIT", 0)  # keep the default limit (1000)
    with pytest.raises(AdliteSyntaxError, match=r"deep_functions.py:\d+:\d+: an expression in "
                                                r"'long_sum' is nested too deeply") as info:
        jit(m.long_sum)(1.0)
    assert "split it into several statements" in str(info.value)
    assert sys.getrecursionlimit() < 30_000


# ---- shapes numpy refuses ---------------------------------------------------------------------

def huge(x):
    z = np.zeros((2 ** 33, 2 ** 31))
    z[0, 0] = x[0]
    return np.sum(z)


def negative(x):
    return np.sum(np.ones((3, -1))) + x[0]


def huge_empty(x):
    return np.sum(np.full((2 ** 62, 0), 1.0)) + x[0]


@pytest.mark.parametrize("fn", [huge, negative, huge_empty])
def test_shapes_numpy_refuses_are_refused_at_compile_time(fn):
    with pytest.raises(ValueError) as numpy_error:
        fn(np.ones(2))
    with pytest.raises(AdliteSyntaxError, match=r"test_int_semantics.py:\d+:\d+: ") as info:
        jit(fn)(np.ones(2))
    assert str(numpy_error.value) in str(info.value)


# sums of products of int64 and bool arrays keep numpy's element type (int64 sums wrap as
# numpy's; bool products are logical), with floats beside them numpy's result_type
def int_matmul(a, b):
    return a @ b


def int_dot(a, b):
    return np.dot(a, b)


def int_tensordot(a, b):
    return np.tensordot(a, b, axes=([1], [0]))


def int_einsum(a, b):
    return np.einsum("ij,jk->ik", a, b)


def int_inner(a, b):
    return np.inner(a, b.T)


PRODUCTS = [int_matmul, int_dot, int_tensordot, int_einsum, int_inner]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", PRODUCTS, ids=[f.__name__ for f in PRODUCTS])
def test_products_of_int_and_bool_arrays_keep_numpys_type(fn, backend):
    rng = np.random.default_rng(5)
    operands = [
        (rng.integers(-9, 9, (3, 4)), rng.integers(-9, 9, (4, 2))),
        (np.full((2, 2), 2 ** 62), np.full((2, 2), 3)),  # wraps, as numpy's int64 sums
        (rng.random((3, 4)) > 0.5, rng.random((4, 2)) > 0.5),
        (rng.random((3, 4)) > 0.5, rng.integers(-9, 9, (4, 2))),
        (rng.random((3, 4)).astype(np.float32), rng.integers(-9, 9, (4, 2))),
    ]
    for a, b in operands:
        got, want = jit(fn, backend=backend)(a, b), fn(a, b)
        assert got.dtype == want.dtype, (a.dtype, b.dtype)
        np.testing.assert_array_equal(got, want)
