"""Tuple concatenation and repetition (`x.shape + (1,)`, `(a,) + (b,)`, `(0.0,) * n`) and
`tuple(...)`, as Python defines them; the arrays a tuple holds stay the caller's objects.
Expected values come from running the plain Python function, gradients from central finite
differences."""

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, jit

from ..support.gradients import central_differences

BACKENDS = ["llvm", "python"]


def shapes_and_items(x):
    column = np.reshape(x, x.shape + (1,))
    t = (1.0, 2.0) + (x[0],)
    u = tuple([x[1], x[2]])
    zeros = (0.0,) * 3
    return np.sum(column * column) + t[2] * 2.0 + u[1] + len(zeros) + sum(zeros)


def write_through_a_concatenation(a, b):
    first, second = (a,) + (b,)
    first[0] = 5.0  # a's object: the caller's array
    return np.sum(a) + np.sum(second)


def repeat_by_runtime(v):
    return len((1.0,) * int(v[0]))  # a count read from an array: known only at run time


@pytest.mark.parametrize("backend", BACKENDS)
def test_concatenation_repetition_and_tuple(backend):
    x = np.arange(1.0, 5.0)
    assert jit(shapes_and_items, backend=backend)(x) == shapes_and_items(x)
    np.testing.assert_allclose(grad(shapes_and_items, backend=backend)(x),
                               central_differences(shapes_and_items, [x])[0], rtol=1e-7)


@pytest.mark.parametrize("backend", BACKENDS)
def test_items_of_a_concatenation_are_the_callers_arrays(backend):
    a, b = np.zeros(3), np.ones(2)
    expected_a = a.copy()
    expected = write_through_a_concatenation(expected_a, b.copy())
    assert jit(write_through_a_concatenation, backend=backend)(a, b) == expected
    np.testing.assert_array_equal(a, expected_a)


def test_repetition_by_a_run_time_count_is_refused_at_its_line():
    with pytest.raises(AdliteSyntaxError, match="unsupported operation on a tuple|known when"):
        jit(repeat_by_runtime)(np.array([2.0]))


def tuple_zero_step(x):
    t = (x, x)
    return t[::0][0]


def list_float_bound(x):
    xs = [x, x, x]
    return xs[:1.5][0]


@pytest.mark.parametrize("fn, message", [(tuple_zero_step, "slice step cannot be zero"),
                                         (list_float_bound, "slice bounds must be integer")])
def test_bad_slices_of_tuples_and_lists_are_refused_at_their_line(fn, message):
    with pytest.raises(AdliteSyntaxError, match=message) as info:
        jit(fn)(1.0)
    assert "[" in info.value.source_line
