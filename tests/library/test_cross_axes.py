"""np.cross with `axisa`, `axisb`, `axisc` and `axis`, of 2- and 3-vectors, broadcast (issue
26): compiled values equal numpy's to the bit on both backends, gradients equal central
differences and the eager tape's, forward mode equals directional differences, and numpy's
errors for bad axes and shapes are refused at the user's line with numpy's type and
message."""

import warnings

import numpy as np
import pytest

from adlite.compiler import jit

from ..support.library_checks import (
    BACKENDS,
    case_ids,
    case_tests,
    check_refusal,
    random_arrays,
    tape_test,
)

RNG = np.random.default_rng(26)

arrays = random_arrays(RNG)


def last_axes(a, b):
    return np.cross(a, b)


def first_axis_of_a(a, b):
    return np.cross(a, b, axisa=0)


def axes_of_both(a, b):
    return np.cross(a, b, axisa=1, axisb=-2)


def result_along_first(a, b):
    return np.cross(a, b, axisa=1, axisb=1, axisc=0)


def one_axis_for_all(a, b):
    return np.cross(a, b, axis=0)


def positional_axes(a, b):
    return np.cross(a, b, 0, 0, 1)


def mixed_lengths(a, b):
    return np.cross(a, b, axisb=0) * 2.0 + np.cross(b, a, axisa=0).sum()


def of_a_number_array(a, b):
    return np.cross(a * 3.0, np.sin(b), axisc=-2)


CASES = [
    (last_axes, arrays(3, 3)), (last_axes, arrays((4, 3), 3)),
    (last_axes, arrays((2, 1, 3), (5, 3))), (last_axes, arrays(2, 2)),
    (last_axes, arrays((4, 2), (4, 2))), (last_axes, arrays((5, 2), 3)),
    (last_axes, arrays(3, (5, 2))), (first_axis_of_a, arrays((3, 4), (4, 3))),
    (first_axis_of_a, arrays((2, 4), (4, 2))), (axes_of_both, arrays((2, 3, 5), (1, 3, 5))),
    (result_along_first, arrays((2, 3, 5), (5, 3))), (one_axis_for_all, arrays((3, 4), (3, 4))),
    (one_axis_for_all, arrays((2, 4), (3, 4))), (positional_axes, arrays((3, 4), (3, 4))),
    (mixed_lengths, arrays((4, 3), (2, 4))), (of_a_number_array, arrays((6, 3), (1, 3))),
]
IDS = case_ids(CASES)


@pytest.fixture(autouse=True)
def _two_vectors_are_deprecated_in_numpy():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Arrays of 2-dimensional vectors",
                                DeprecationWarning)
        yield



(test_values_equal_numpy_to_the_bit, test_gradients_equal_central_differences,
 test_forward_mode_equals_directional_differences) = case_tests(CASES, IDS, rtol=0.0, atol=0.0)
test_the_eager_tape_gives_the_same_values_and_gradients = tape_test(CASES, IDS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_vectors_give_ints_as_numpys(backend):
    a, b = np.array([[1, -2, 3], [4, 0, -1]]), np.array([2, 5, -3])
    got = jit(last_axes, backend=backend)(a, b)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.cross(a, b))
    mixed = jit(last_axes, backend=backend)(a, b * 0.5)
    assert mixed.dtype == np.float64
    np.testing.assert_array_equal(mixed, np.cross(a, b * 0.5))


def bad_cross(a, b):
    return np.cross(a, b, axisa=2)


def bad_cross_b(a, b):
    return np.cross(a, b, axisb=-3)


def bad_cross_c(a, b):
    return np.cross(a, b, axisc=2)


def bad_cross_axis(a, b):
    return np.cross(a, b, axis=1)


@pytest.mark.parametrize("fn,args,kind,message", [
    (bad_cross, arrays((4, 3), 3), np.exceptions.AxisError,
     "axisa: axis 2 is out of bounds for array of dimension 2"),
    (bad_cross_b, arrays(3, (4, 3)), np.exceptions.AxisError,
     "axisb: axis -3 is out of bounds for array of dimension 2"),
    (bad_cross_c, arrays(3, (4, 3)), np.exceptions.AxisError,
     "axisc: axis 2 is out of bounds for array of dimension 2"),
    (bad_cross_axis, arrays((4, 3), 3), np.exceptions.AxisError,
     "axisb: axis 1 is out of bounds for array of dimension 1"),
    (last_axes, arrays(4, 3), ValueError,
     "incompatible dimensions for cross product\n(dimension must be 2 or 3)"),
    (last_axes, (2.0, *arrays(3)), ValueError, "At least one array has zero dimension"),
    (last_axes, (np.array([True, False, True]), np.array([True, True, False])), TypeError,
     "numpy boolean subtract, the `-` operator, is not supported"),
    (last_axes, arrays((4, 3), (2, 3)), ValueError,
     "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between "
     "arg 0 with shape (4,) and arg 1 with shape (2,)."),
], ids=["axisa", "axisb", "axisc", "axis", "length-4", "number", "bools",
        "batches"])
def test_numpy_errors_are_refused_at_the_users_line(fn, args, kind, message):
    check_refusal(fn, args, kind if kind is TypeError else ValueError, message, "np.cross")
    with pytest.raises(kind):
        fn(*args)
