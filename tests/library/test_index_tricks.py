"""`np.r_[...]` and `np.c_[...]` in compiled code: values, shapes and dtypes against numpy's for
arrays, numbers, lists, slices and string directives, gradients in both modes against central
differences, and numpy's errors (or a refusal for matrices) at the user's line."""

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, jit

from ..support.library_checks import BACKENDS, case_ids, case_tests

RNG = np.random.default_rng(7)
C = RNG.standard_normal((3, 2))
C10 = RNG.standard_normal(10)


def r_one(x):
    return np.r_[x]


def r_mixed(x):
    return np.r_[x, C, x]


def r_slices(x):
    return np.r_[x, C10, 1:10, -1:1:0.5, 0:1:5j]


def r_numbers(x, y):
    return np.r_[x, 2.0, 3, y, [1.0, 2.0]]


def c_columns(x, y):
    return np.c_[x, y * 2.0, 0:3]


def c_matrices(x):
    return np.c_[x, C, x]


def c_numbers(x):
    return np.c_[x, 2.0, x]


def directives(x, y):
    return (np.r_['-1', x, x], np.r_['0,2', y, y], np.r_['1,2,0', y, y],
            np.r_['0,3,-1', x, x], np.r_['1', x, C])


CASES = [(r_one, (RNG.standard_normal((3, 2)),)),
         (r_mixed, (RNG.standard_normal((3, 2)),)),
         (r_slices, (RNG.standard_normal(4),)),
         (r_numbers, (RNG.standard_normal(3), 1.5)),
         (c_columns, (RNG.standard_normal(3), RNG.standard_normal(3))),
         (c_matrices, (RNG.standard_normal((3, 2)),)),
         (c_numbers, (RNG.standard_normal((1, 2)),))]
test_values, test_gradients, test_forward = case_tests(CASES, case_ids(CASES))


@pytest.mark.parametrize("backend", BACKENDS)
def test_directives(backend):
    x, y = RNG.standard_normal((3, 2)), RNG.standard_normal(4)
    for got, expected in zip(jit(directives, backend=backend)(x, y), directives(x, y),
                             strict=True):
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


def dtypes(x, n):
    f32 = x.astype(np.float32)
    return (np.r_[f32, 2.5], np.r_[f32, np.arange(3)], np.r_[1, 2, n], np.r_[n, True],
            np.r_[0:3], np.c_[f32, f32], np.r_[np.arange(2), 0.5])


def test_dtypes_are_numpys():
    x = RNG.standard_normal(3)
    for got, expected in zip(jit(dtypes)(x, 4), dtypes(x, 4), strict=True):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def matrix(x):
    return np.r_['r', x]


def unknown(x):
    return np.r_['foo', x]


def late_directive(x):
    return np.r_[x, '0']


def misfit(x):
    return np.r_[x, C]


@pytest.mark.parametrize("fn,message", [
    (matrix, "numpy matrix"), (unknown, "unknown special directive"),
    (late_directive, "special directives must be the first entry"),
    (misfit, "concatenate")], ids=["matrix", "unknown", "late", "shapes"])
def test_errors_name_the_line(fn, message):
    with pytest.raises(AdliteSyntaxError) as info:
        jit(fn)(RNG.standard_normal(4))
    assert message in str(info.value)
    assert info.value.line == fn.__code__.co_firstlineno + 1
    if fn is not matrix:
        with pytest.raises(ValueError):
            fn(RNG.standard_normal(4))
