"""Boolean masks in the forms that keep shapes static (writes, `op=` writes, sum/mean/max/min
of `x[mask]`), `& | ^ ~` on booleans, `np.add.at`, slices with run-time bounds and a length
known when compiling (`x[i:i + 3]`): values against numpy's, gradients against central
differences computed here with numpy, forward mode, both backends; numpy's errors (IndexError
at compile time, ValueError of an empty max at run time) and clear refusals at the user's
line."""

import numpy as np
import pytest

from adlite import compiler
from adlite.compiler import AdliteSyntaxError

from ..support.gradients import central_difference_in, check_value_and_gradient

BACKENDS = ["llvm", "python"]
RNG = np.random.default_rng(12)
X1 = RNG.standard_normal(7)
X2 = RNG.standard_normal((4, 3))


def central_differences(fn, x, rest):
    return central_difference_in(fn, (x, *rest), 0)


def masked_sum(x, y):
    return np.sum((x ** 2)[(x > 0.1) & (y < 0.5)]) + x[(x < 0) | ~(y > 0)].sum()


def masked_mean(x, y):
    return np.mean(np.sin(x)[(x > -0.5) ^ (y > 0)]) * x[y > -5.0].mean()


def masked_extrema(x, y):
    m = (y > -1.0) & (x > -3.0)
    return np.max((x * 2.0)[m]) - np.min((x ** 2)[m]) + x[m].max()


def row_mask(x, y):
    m = y[:4] > 0
    return np.sum((x ** 2)[m]) + np.mean(x[m]) * np.max(x[~m])


def masked_writes(x, y):
    z = x * 1.5
    m = (y > 0) | (x > 1.0)
    z[m] = 2.0
    z[~m] *= 3.0
    z[m] += y[0] * x[1]
    z[x < 0] -= x[0]
    z[y > 0.5] /= 4.0
    return np.sum(z * x)


def row_writes(x, y):
    z = x + 0.0
    m = y[:4] > 0
    z[m] = x[0] * 2.0
    z[~m] += np.array([1.0, 2.0, 3.0])
    z[m] *= np.array([[x[1, 1], 2.0, 3.0]])
    return np.sum(z ** 2)


def bool_scalars(x, y):
    a, b = x[0] > 0, y[0] > 0
    c = (a & b) | (a ^ (x[1] > y[1]))
    return x[0] * 2.0 if c else x[1]


def added_at(x, y, idx):
    z = x * 1.0
    np.add.at(z, idx, y[:4] * x[0])
    np.add.at(z, 1, y[0])
    np.add.at(z, x > 0.5, 2.0)
    return np.sum(z ** 2)


def added_at_pairs(x, r, c):
    z = x * 0.5
    np.add.at(z, (r, c), x[0, 0] * 3.0)
    np.add.at(z, r, x[1])
    return np.sum(np.sin(z))


def windows(x, y):
    s = 0.0
    for i in range(x.shape[0] - 2):
        s = s + np.sum(x[i:i + 3] * y[:3]) * x[i]
    return s


def window_writes(x, y, n):
    z = x * 1.0
    j = n - 1
    z[j:j + 2] = x[n:n + 2] ** 2
    z[j - 1:n + 1] += y[0]
    return np.sum(z * x) + np.sum(x[n - 2 + 1:2 + n] * 2.0)


def row_windows(x, y, k):
    return np.sum(x[k:k + 2, :] ** 2) + np.sum(x[:, k - 1:k + 1] * y[0])


Y1 = RNG.standard_normal(7)
Y2 = RNG.standard_normal(5)
CASES = [
    ("masked_sum", masked_sum, X1, (Y1,)),
    ("masked_mean", masked_mean, X1, (Y1,)),
    ("masked_extrema", masked_extrema, X1, (Y1,)),
    ("row_mask", row_mask, X2, (Y2,)),
    ("masked_writes", masked_writes, X1, (Y1,)),
    ("row_writes", row_writes, X2, (Y2,)),
    ("bool_scalars", bool_scalars, X1, (Y1,)),
    ("windows", windows, X1, (Y1,)),
    ("window_writes", window_writes, X1, (Y1, 3)),
    ("row_windows", row_windows, X2, (Y2, 1)),
    ("added_at", added_at, X1, (Y1, np.array([0, 2, 2, -1]))),
    ("added_at_pairs", added_at_pairs, X2, (np.array([1, 3, 1, -3]), np.array([0, 2, 0, 0]))),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,fn,x,rest", CASES, ids=IDS)
def test_values_and_gradients(name, fn, x, rest, backend):
    check_value_and_gradient(fn, x, rest, backend)


@pytest.mark.parametrize("name,fn,x,rest", CASES, ids=IDS)
def test_forward_mode(name, fn, x, rest):
    d = RNG.standard_normal(x.shape)
    zeros = [np.zeros_like(r) for r in rest if np.asarray(r).dtype == float]
    value, tangent = compiler.jvp(fn, (x, *rest), [d, *zeros])
    eps = 1e-6
    expected = (fn(x + eps * d, *rest) - fn(x - eps * d, *rest)) / (2 * eps)
    assert value == pytest.approx(fn(x, *rest), rel=1e-13)
    assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-7)


def bool_arrays(x):
    m = x > 0
    return (m & (x < 1)) | (m ^ (x > -1)) | ~m


def int_results(x, k):
    return np.sum(x[x > 0]), np.sum((x > 0)[x < 1]), ~k


@pytest.mark.parametrize("backend", BACKENDS)
def test_bool_array_results_and_integers(backend):
    np.testing.assert_array_equal(compiler.jit(bool_arrays, backend=backend)(X1),
                                  bool_arrays(X1))
    ints = np.array([3, -1, 0, 5])
    assert compiler.jit(int_results, backend=backend)(ints, 5) == int_results(ints, 5)


def int_add_at(counts, labels):
    np.add.at(counts, labels, 1)
    return counts * 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_add_at_counts_integers(backend):
    labels = np.array([2, 0, 2, 2, -1])
    got = compiler.jit(int_add_at, backend=backend)(np.zeros(4, dtype=np.int64), labels)
    np.testing.assert_array_equal(got, int_add_at(np.zeros(4, dtype=np.int64), labels))


def window_at(x, i):
    return np.sum(x[i:i + 3])


@pytest.mark.parametrize("backend", BACKENDS)
def test_window_out_of_range_raises_at_run_time(backend):
    fn = compiler.jit(window_at, backend=backend)
    assert fn(X1, 4) == pytest.approx(window_at(X1, 4), rel=1e-13)
    for start in (5, -1):
        with pytest.raises(IndexError, match=f"slice start {start} leaves fewer than 3 "
                                             "elements of an axis of size 7"):
            fn(X1, start)


def empty_mean(x):
    return np.mean(x[x > 100.0])


def empty_max(x):
    return np.max(x[x > 100.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_selections(backend):
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        assert np.isnan(empty_mean(X1))
    with np.errstate(all="ignore"):
        assert np.isnan(compiler.jit(empty_mean, backend=backend)(X1))
    with pytest.raises(ValueError) as expected:
        empty_max(X1)
    with pytest.raises(ValueError) as got:
        compiler.jit(empty_max, backend=backend)(X1)
    assert str(got.value) == str(expected.value)


def wrong_shape(x):
    return np.sum(x[x[:2] > 0])


def array_value(x):
    x[x > 0] = np.array([1.0, 2.0])
    return x


def int_and(k):
    return k & 3


def inverted_flag(x):
    return 1.0 if ~(x > 0) else 2.0


def add_at_into_slice(x):
    np.add.at(x[1:], x > 0, 1.0)


def window_past_the_axis(x):
    i = int(x[0] > 0)
    return np.sum(x[i:i + 9])


def where_of_one(x):
    return np.sum(np.where(x > 0))


@pytest.mark.parametrize("fn,message,hint", [
    (wrong_shape, "IndexError: boolean index did not match indexed array along axis 0; size "
                  "of axis is 7 but size of corresponding boolean axis is 2", None),
    (array_value, "an array of shape (2,) with a boolean selection", "np.where(mask, x, fill)"),
    (int_and, "`&` on i64 values", "np.logical_and"),
    (inverted_flag, "`~` of a bool scalar", "use `not`"),
    (add_at_into_slice, "np.add.at takes an array variable", "x a local array"),
    (window_past_the_axis, "slice x[i:i + 9] of an axis of size 7", "between 0 and 7"),
    (where_of_one, "a tuple holding it, used as an array", "np.where(mask, x, fill)"),
], ids=["wrong_shape", "array_value", "int_and", "inverted_flag", "add_at_into_slice",
        "window_past_the_axis", "where_of_one"])
def test_refusals_at_the_users_line(fn, message, hint):
    arg = 3 if fn is int_and else (X1[0] if fn is inverted_flag else X1.copy())
    with pytest.raises(AdliteSyntaxError) as info:
        compiler.jit(fn)(arg)
    text = str(info.value)
    two_lines = (window_past_the_axis,)
    line = fn.__code__.co_firstlineno + 1 + (fn in two_lines)
    assert f"test_masks_slices.py:{line}:" in text
    assert message in text
    if hint:
        assert hint in text


def prefix(x, n):
    z = x.copy()
    z[:n] = 0.5
    return np.sum(x[:n] ** 2) + np.sum(z)


@pytest.mark.parametrize("backend", BACKENDS)
def test_prefix_of_an_int_argument_is_specialised(backend):
    fn = compiler.jit(prefix, backend=backend)
    for n in (2, 5, 2):
        assert fn(X1, n) == pytest.approx(prefix(X1, n), rel=1e-13)
    np.testing.assert_allclose(compiler.grad(prefix, backend=backend)(X1, 3),
                               central_differences(prefix, X1, (3,)), rtol=1e-6, atol=1e-7)
