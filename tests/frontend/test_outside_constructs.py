# ruff: noqa: UP031 - these programs use %-formatting on purpose
"""Constructs that programs written by others use: lists given to numpy, int conversions,
module-level int and bool arrays, `.item()`, `%`-formatting in print, np.percentile /
quantile / isclose / allclose, scipy.special.multigammaln, `dict(...)`, tuples indexed at run
time, and the refusal of `try`. Values against numpy's and Python's on both backends,
gradients against central differences and the eager tape, forward mode against
directional differences."""

import numpy as np
import pytest
import scipy.special

from adlite.compiler import AdliteSyntaxError, grad, jit
from tests.support.gradients import check_modes

from ..support import effects_examples

BACKENDS = ["llvm", "python"]
RNG = np.random.default_rng(7)
PICK = np.array([2, 0, 1])  # module-level int and bool arrays: read at every call
KEEP = np.array([True, False, True])


def sum_of_a_list(x):
    return np.sum([x[0], 2.0 * x[1]]) + np.mean((x, x * x)) + np.max([[x[0], 1.0], [x[2], 0.5]])


def list_index(x):
    y = x.copy()
    y[[0, 2]] = 1.0
    return np.sum(x[[0, 2]] * 2.0) + np.sum(x[[True, False, True]]) + np.sum(y * x)


def module_arrays(x):
    return np.sum(x[PICK] * KEEP * x)


def items(x):
    return np.sum(x * x).item() * x[0] + x[1:2].item() + x[2].item() ** 2


def tuple_at_run_time(x, i):
    t = (x[0], x[1] * 2.0, x[2] ** 2)
    return t[i] * t[-1]


def dicts(x):
    d = dict(a=x, b=2.0)
    e = dict([("u", x[0]), ("v", 3.0)], w=1.0)
    f = dict(d, c=x[1])
    return np.sum(d["a"] * d["b"]) + e["u"] * e["v"] + e["w"] + f["c"]


def quantiles(x):
    return np.percentile(x, 30) + np.sum(np.quantile(x, [0.25, 0.5, 1.0]) ** 2) + \
        np.sum(np.percentile(x.reshape(2, 3), [10, 90], axis=1, keepdims=True) * 2.0)


def log_multivariate_gamma(a):
    return scipy.special.multigammaln(a, 3) + np.sum(
        scipy.special.multigammaln(np.array([1.0, 2.0]) * a, 2))


# the eager tape does not run these (its limits, runtime/): np.sum of a Python list of
# Tensors converts them to a numpy array; np.percentile / np.quantile have no tape rule;
# the tape's `.item()` detaches (PyTorch's semantics), where compiled code differentiates
# through it as central differences see it
TAPE_CANNOT = (sum_of_a_list, quantiles, items)
VECTOR_CASES = [sum_of_a_list, list_index, module_arrays, items, dicts, quantiles]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", VECTOR_CASES, ids=[f.__name__ for f in VECTOR_CASES])
def test_vector_programs(fn, backend):
    tape = fn not in TAPE_CANNOT
    for _ in range(3):
        x = RNG.standard_normal(6 if fn is quantiles else 3)
        check_modes(fn, (x,), backend, tape=tape, rng=RNG)


@pytest.mark.parametrize("backend", BACKENDS)
def test_tuples_indexed_at_run_time(backend):
    x = RNG.standard_normal(3)
    for i in (0, 1, 2, -1, -3):
        check_modes(tuple_at_run_time, (x, i), backend)
    with pytest.raises(IndexError):
        jit(tuple_at_run_time, backend=backend)(x, 3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_multigammaln(backend):
    for a in (2.5, 3.75, 7.0):
        check_modes(log_multivariate_gamma, (a,), backend, tape=False)
    with pytest.raises(ValueError, match=r"condition a \(0.7\) > 0.5 \* \(d-1\) \(1.0\) not met"):
        jit(log_multivariate_gamma, backend=backend)(0.7)


def test_module_arrays_are_read_at_every_call():
    compiled = jit(module_arrays)
    x = np.array([1.5, -2.0, 3.0])
    assert compiled(x) == module_arrays(x)
    PICK[0], KEEP[1] = 1, True
    try:
        assert compiled(x) == module_arrays(x)
    finally:
        PICK[0], KEEP[1] = 2, False


def conversions(x):
    return x.astype(int), np.int64(x), x.astype(bool), x.astype(np.int64) + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_to_int_conversions_truncate_as_numpy(backend):
    x = np.array([1.7, -2.5, 3.9, -0.2, 0.0, 2.0 ** 62])
    for got, expected in zip(jit(conversions, backend=backend)(x), conversions(x), strict=True):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bad,error,message", [
    (np.nan, ValueError, "cannot convert float NaN to integer"),
    (np.inf, OverflowError, "cannot convert float infinity to integer"),
    (1e19, OverflowError, "integer overflow"),
], ids=["nan", "inf", "large"])
def test_float_to_int_conversion_raises_where_numpy_gives_no_value(backend, bad, error,
                                                                    message):
    with pytest.raises(error, match=message):
        jit(conversions, backend=backend)(np.array([1.0, bad]))


def printed(x, n):
    print("v=%.2f" % x)
    print("%d %s|%5s|%-6.3e|%+05d|%x|%%|%r" % (n, x, "ab", x * 1e5, n, n, x), "%g" % (x / 3))
    print("%d and %i" % (x, -x), "%s" % np.array([x, 2.0]), "%(" not in "a")
    if x > 100:
        raise ValueError("too big: %.1f" % x)
    return x * 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_percent_formatting_prints_what_python_prints(backend, capsys):
    for x, n in [(1.23456, 7), (-2.5, -3), (0.0, 0)]:
        jit(printed, backend=backend)(x, n)
        compiled = capsys.readouterr().out
        printed(x, n)
        assert compiled == capsys.readouterr().out
    assert grad(printed, backend=backend)(1.0, 2) == 2.0
    capsys.readouterr()
    with pytest.raises(ValueError, match="too big: 123.5"):
        jit(printed, backend=backend)(123.45, 1)


def closeness(x, y, r):
    return (np.isclose(x, y), np.isclose(x, y, rtol=r, equal_nan=True),
            np.allclose(x, y, atol=0.1), np.isclose(x[0], 1.0), np.isclose(x, 2))


@pytest.mark.parametrize("backend", BACKENDS)
def test_isclose_and_allclose_as_numpy(backend):
    x = np.array([1.0, 2.0, np.nan, np.inf, -np.inf, 3.0])
    y = np.array([1.0 + 1e-9, 2.05, np.nan, np.inf, np.inf, 3.2])
    for r in (0.1, 1e-5):
        for got, expected in zip(jit(closeness, backend=backend)(x, y, r), closeness(x, y, r),
                                 strict=True):
            np.testing.assert_array_equal(got, expected)


def quantile_values(x):
    return (np.percentile(x, 30), np.quantile(x, [0.0, 0.25, 0.5, 1.0]), np.quantile(x, 1),
            np.percentile(x, 37.5, axis=0), np.median(x, axis=1),
            np.percentile(x, [10, 90], axis=1, keepdims=True))


@pytest.mark.parametrize("backend", BACKENDS)
def test_quantiles_equal_numpys_to_the_bit(backend):
    x = RNG.standard_normal((5, 4))
    for data in (x, np.where(x > 1.0, np.nan, x), np.arange(20).reshape(5, 4)):
        for got, expected in zip(jit(quantile_values, backend=backend)(data),
                                 quantile_values(data), strict=True):
            np.testing.assert_array_equal(got, expected)


def percent_with_a_mapping(x):
    print("%(a)s" % {"a": x})
    return x


def tuple_of_mixed_items(x, i):
    t = (x, np.array([x, x]))
    return t[i]


def cleans_up(x):
    try:
        y = 2.0 * x
    finally:
        print("done")
    return y


def quantile_of_another_method(x):
    return np.quantile(x, 0.5, method="nearest")


def percentile_out_of_range(x):
    return np.percentile(x, 120)


@pytest.mark.parametrize("fn,args,words", [
    (percent_with_a_mapping, (1.0,), "%-format '%(a)s' does not compile"),
    (tuple_of_mixed_items, (1.0, 0), "a tuple indexed with a value known only at run time"),
    (effects_examples.catches, (1.0,), "try statement"),
    (cleans_up, (1.0,), "test the condition with `if`"),
    (quantile_of_another_method, (np.ones(3),), "method='nearest'"),
    (percentile_out_of_range, (np.ones(3),), "Percentiles must be in the range [0, 100]"),
], ids=["mapping", "mixed_tuple", "try_except", "try_finally", "method", "out_of_range"])
def test_refusals_name_the_line(fn, args, words):
    with pytest.raises(AdliteSyntaxError) as info:
        jit(fn)(*args)
    assert words in str(info.value)
    assert fn.__code__.co_filename in str(info.value)  # the user's file
