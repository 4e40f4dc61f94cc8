"""np.gradient in compiled code (issue 26): values equal numpy's on both backends for
several shapes, axes, spacings (none, one number, one per axis, run-time numbers and
coordinate arrays) and edge orders; gradients equal central differences, forward mode
equals directional differences (the eager tape has no np.gradient);
numpy's errors for bad arguments are refused at the user's line with numpy's type and
message."""

import numpy as np
import pytest

from adlite.compiler import grad, hessian, jit

from ..support.library_checks import (
    case_ids,
    case_tests,
    check_refusal,
)

RNG = np.random.default_rng(7626)


def arrays(*shapes):
    return tuple(RNG.standard_normal(s) for s in shapes)


def coordinates(n):
    return np.cumsum(0.2 + RNG.random(n))


def unit_spacing(f):
    return np.gradient(f)


def second_order(f):
    return np.gradient(f, edge_order=2)


def both_axes(f):
    gx, gy = np.gradient(f)
    return gx * 2.0 + gy * gy


def run_time_spacing(f, h):
    return np.gradient(f, h, edge_order=2) * h


def spacing_per_axis(f, h):
    gy, gx = np.gradient(f, h, 0.25)
    return gy - 3.0 * gx


def one_axis(f):
    return np.gradient(f, 0.5, axis=1)


def negative_axis_second_order(f):
    return np.gradient(f, 2.0, axis=-1, edge_order=2)


def axes_tuple(f, h):
    ga, gb = np.gradient(f, h, axis=(2, 0))
    return ga * gb


def along_coordinates(f, x):
    return np.gradient(f, x)


def along_coordinates_second_order(f, x):
    return np.gradient(f, x, edge_order=2)


def coordinates_per_axis(f, x, y):
    gx, gy = np.gradient(f, x, y, edge_order=2)
    return gx + gy * 0.5


def mixed_spacings(f, x):
    gx, gy = np.gradient(f, x, 0.75)
    return gx * gy


def coordinates_on_one_axis(f, y):
    return np.gradient(f, y, axis=1, edge_order=2)


CASES = [
    (unit_spacing, arrays(7)), (unit_spacing, arrays(2)), (second_order, arrays(3)),
    (second_order, arrays(8)), (both_axes, arrays((4, 5))), (both_axes, arrays((2, 3))),
    (run_time_spacing, (*arrays(6), 0.3)), (run_time_spacing, (*arrays(3), 1.7)),
    (spacing_per_axis, (*arrays((5, 3)), 0.4)), (one_axis, arrays((3, 6))),
    (negative_axis_second_order, arrays((2, 5))), (axes_tuple, (*arrays((3, 2, 4)), 0.6)),
    (along_coordinates, (*arrays(6), coordinates(6))),
    (along_coordinates, (*arrays(2), coordinates(2))),
    (along_coordinates_second_order, (*arrays(5), coordinates(5))),
    (along_coordinates_second_order, (*arrays(3), coordinates(3))),
    (coordinates_per_axis, (*arrays((4, 5)), coordinates(4), coordinates(5))),
    (mixed_spacings, (*arrays((5, 4)), coordinates(5))),
    (coordinates_on_one_axis, (*arrays((2, 6)), coordinates(6))),
]
IDS = case_ids(CASES)



(test_values_equal_numpy, test_gradients_equal_central_differences,
 test_forward_mode_equals_directional_differences) = case_tests(CASES, IDS, rtol=1e-12, atol=1e-12)


def several(f):
    return np.gradient(f, 1.5)


def test_several_axes_give_a_tuple_of_numpys_arrays():
    (f,) = arrays((3, 4, 2))
    got, expected = jit(several)(f), several(f)
    assert isinstance(got, tuple) and len(got) == 3
    for g, e in zip(got, expected, strict=True):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-14, atol=1e-14)


def test_int_arrays_give_float64_and_float32_stays_float32():
    ints = np.array([1, 4, 9, 16, 25, 36])
    got = jit(second_order)(ints)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, second_order(ints))
    f32 = arrays(6)[0].astype(np.float32)
    got = jit(run_time_spacing)(f32, 0.5)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, run_time_spacing(f32, 0.5), rtol=1e-6, atol=1e-6)


def test_second_order_edges_are_exact_for_quadratics_on_uneven_coordinates():
    x = coordinates(7)
    got = jit(along_coordinates_second_order)(3.0 * x ** 2 - x + 2.0, x)
    np.testing.assert_allclose(got, 6.0 * x - 1.0, rtol=1e-10)


def too_short(f):
    return np.gradient(f[:1])


def too_short_second_order(f):
    return np.gradient(f, edge_order=2)


def third_order(f):
    return np.gradient(f, edge_order=3)


def matrix_distances(f, x):
    return np.gradient(f, x)


def wrong_length(f, x):
    return np.gradient(f, x[1:])


def three_spacings(f):
    return np.gradient(f, 1.0, 2.0, 3.0)


def axis_out_of_bounds(f):
    return np.gradient(f, axis=2)


def repeated_axis(f):
    return np.gradient(f, axis=(0, -2))


@pytest.mark.parametrize("fn,args,kind,message", [
    (too_short, arrays(4), ValueError, "Shape of array too small to calculate a numerical "
     "gradient, at least (edge_order + 1) elements are required."),
    (too_short_second_order, arrays((2, 3)), ValueError, "Shape of array too small"),
    (third_order, arrays(5), ValueError, "'edge_order' greater than 2 not supported"),
    (matrix_distances, arrays(3, (3, 1)), ValueError, "distances must be either scalars or 1d"),
    (wrong_length, arrays(4, 4), ValueError, "when 1d, distances must match the length of the "
     "corresponding dimension"),
    (three_spacings, arrays((3, 3)), TypeError, "invalid number of arguments"),
    (axis_out_of_bounds, arrays((3, 3)), IndexError,
     "axis 2 is out of bounds for array of dimension 2"),
    (repeated_axis, arrays((3, 3)), ValueError, "repeated axis"),
], ids=["too-short", "too-short-second-order", "edge-order-3", "matrix-distances",
        "wrong-length", "three-spacings", "axis-out-of-bounds", "repeated-axis"])
def test_numpy_errors_are_refused_at_the_users_line(fn, args, kind, message):
    check_refusal(fn, args, kind, message, "np.gradient")


def cubed_second_order(f):
    return np.sum(np.gradient(f, 0.5, axis=1, edge_order=2) ** 3)


def cubed_on_coordinates(f, x):
    return np.sum(np.gradient(f, x, axis=0) ** 3)


@pytest.mark.parametrize("fn,args", [(cubed_second_order, arrays((4, 3))),
                                     (cubed_on_coordinates, (*arrays((4, 2)), coordinates(4)))],
                         ids=["spacing", "coordinates"])
def test_second_order_equals_differences_of_the_gradient(fn, args):
    f, rest = args[0], args[1:]
    gradient, h = grad(fn), 1e-5
    columns = [(gradient(f + h * e, *rest) - gradient(f - h * e, *rest)) / (2 * h)
               for e in np.eye(f.size).reshape(f.size, *f.shape)]
    np.testing.assert_allclose(np.reshape(hessian(fn)(*args), (f.size, f.size)),
                               np.reshape(columns, (f.size, f.size)), rtol=1e-6, atol=1e-6)
