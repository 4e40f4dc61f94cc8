"""np.rot90, np.rollaxis, np.vsplit / hsplit / dsplit, np.append, np.fft.fftshift /
ifftshift, np.inner, np.nan_to_num, np.clip's keywords, x.dtype, np.einsum's sublist form,
np.array of a number and np.tensordot with a number in compiled code: values (dtype, shape)
equal numpy's on both backends, several shapes and axes (negative ones, keywords by name),
gradients equal central differences, forward mode directional differences, and numpy's
errors for bad arguments are refused at the user's line with numpy's type and message."""

import numpy as np
import pytest

from adlite.compiler import grad, hessian, jit
from adlite.compiler.errors import AdliteSyntaxError

from ..support.library_checks import (
    BACKENDS,
    case_ids,
    case_tests,
    check_refusal,
    random_arrays,
)

RNG = np.random.default_rng(2607)

arrays = random_arrays(RNG)


def rot90(x):
    return np.rot90(x)


def rot90_twice_on_last_axes(x):
    return np.rot90(x, 2, axes=(1, -1))


def rot90_back(x):
    return np.rot90(x, k=-1, axes=(-1, 0)) * 2.0 + np.rot90(x, k=3, axes=(-1, 0))


def rollaxis_last(x):
    return np.rollaxis(x, -1)


def rollaxis_start(x):
    return np.rollaxis(x, 0, start=2) + np.rollaxis(x, 0, 2)


def rollaxis_to_end(x):
    return np.rollaxis(x, axis=1, start=3)


def vsplit(x):
    a, b = np.vsplit(x, 2)
    return a * 2.0 - b


def hsplit(x):
    a, b, c = np.hsplit(x, [1, 2])
    return np.sum(a) + np.sum(b * b) - np.sum(c)


def dsplit(x):
    a, b = np.dsplit(x, indices_or_sections=(1,))
    return np.sum(a, axis=2) * np.sum(b, axis=-1)


def hsplit_vector(x):
    a, b = np.hsplit(x, 2)
    return a * b


def append_flat(x, y):
    return np.append(x, y)


def append_axis(x, y):
    return np.append(x, y, axis=0)


def append_number(x):
    return np.append(x, 3.5)


def fftshift(x):
    return np.fft.fftshift(x)


def fftshift_axes(x):
    return np.fft.fftshift(x, axes=-1) + np.fft.ifftshift(x, axes=(0,))


def ifftshift(x):
    return np.fft.ifftshift(x) * np.fft.fftshift(np.fft.ifftshift(x))


def inner(x, y):
    return np.inner(x, y)


def inner_number(x):
    return np.inner(1.5, x) + np.inner(x, 0.5)


SPECIALS = np.array([0.5, np.nan, np.inf, -np.inf, -2.0])


def nan_to_num(x):
    return np.sin(np.nan_to_num(x + SPECIALS))


def nan_to_num_fills(x):
    return np.nan_to_num(x + SPECIALS, nan=1.5, posinf=7.0, neginf=-3.0)


def clip_keywords(x):
    return np.clip(x, a_min=-0.3, a_max=0.4)


def clip_one_side(x):
    return np.clip(x, None, 0.2) + np.clip(x, min=-0.1) + np.clip(x, max=0.5)


def einsum_sublists(a, b):
    return np.einsum(a, [0, 1], b, [1, 2], [0, 2])


def einsum_implicit_output(a, b):
    return np.einsum(a, (2, 0), b, (2, 1))


def einsum_ellipsis(a):
    return np.einsum(a, [Ellipsis, 0, 1], [1, Ellipsis, 0])


BATCHED_LEFT, BATCHED_RIGHT = [Ellipsis, 0, 1], (Ellipsis, 1, 2)


def einsum_named_sublists(a, b):
    return np.einsum(a, BATCHED_LEFT, b, BATCHED_RIGHT, [Ellipsis, 0, 2])


def einsum_high_labels(a, b):
    return np.einsum(a, [30, 1], b, [1, 27], [27, 30])


def array_of_number(x):
    return np.array(x) * np.asarray(x) + np.array(x, dtype=np.float64)


def tensordot_number(a, b):
    return np.tensordot(a, b, axes=0)


CASES = [
    (rot90, arrays((3, 4))), (rot90, arrays((2, 3, 4))),
    (rot90_twice_on_last_axes, arrays((2, 3, 4))), (rot90_back, arrays((3, 3))),
    (rollaxis_last, arrays((2, 3, 4))), (rollaxis_start, arrays((2, 3, 4))),
    (rollaxis_to_end, arrays((2, 3, 4))),
    (vsplit, arrays((4, 3))), (vsplit, arrays((2, 2, 3))), (hsplit, arrays((2, 4))),
    (hsplit, arrays((2, 3, 2))), (dsplit, arrays((2, 3, 3))), (hsplit_vector, arrays(6)),
    (append_flat, arrays((2, 3), 4)), (append_flat, arrays(3, (2, 2))),
    (append_axis, arrays((2, 3), (1, 3))), (append_number, arrays((2, 2))),
    (fftshift, arrays(5)), (fftshift, arrays((4, 5))), (fftshift_axes, arrays((3, 4))),
    (ifftshift, arrays((5, 3))),
    (inner, arrays(3, 3)), (inner, arrays((2, 3), (4, 3))), (inner, arrays((2, 2, 3), 3)),
    (inner_number, arrays((2, 3))),
    (nan_to_num, arrays(5)), (nan_to_num_fills, arrays(5)),
    (clip_keywords, arrays(8)), (clip_one_side, arrays((2, 5))),
    (einsum_sublists, arrays((2, 3), (3, 4))), (einsum_implicit_output, arrays((3, 2), (3, 4))),
    (einsum_ellipsis, arrays((2, 3, 4))),
    (einsum_named_sublists, arrays((2, 2, 3), (2, 3, 4))),
    (einsum_high_labels, arrays((2, 3), (3, 4))),
    (array_of_number, (1.7,)), (tensordot_number, arrays(4) + (2.5,)),
    (tensordot_number, (1.5, 2.5)),
]
IDS = case_ids(CASES)

test_values, test_gradients, test_forward = case_tests(CASES, IDS, rtol=1e-14, atol=1e-15)


def int_and_float32(n, f):
    return (np.rot90(n), np.rollaxis(n, 1), np.append(n, n), np.fft.fftshift(n),
            np.nan_to_num(n), np.clip(n, a_min=1, a_max=None), np.clip(n, 1.5, None),
            np.nan_to_num(f / 0.0), np.clip(f, max=0.5),
            np.vsplit(n, 2)[1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_ints_and_float32_keep_numpys_dtypes(backend):
    n, f = np.arange(12).reshape(4, 3), np.array([-1.0, 0.0, 2.0], dtype=np.float32)
    with np.errstate(all="ignore"):
        expected = int_and_float32(n, f)
        got = jit(int_and_float32, backend=backend)(n, f)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


def nan_to_num_sum(x):
    return np.sum(np.nan_to_num(x) * x)


def test_nan_to_num_gradient_flows_where_x_is_finite():
    """autograd's rule: g where x is finite, 0 elsewhere (here d/dx nan_to_num(x) * x)."""
    x = np.array([0.5, np.nan, np.inf, -np.inf, -2.0])
    g = grad(lambda v: np.sum(np.nan_to_num(v) * 2.0))(x)
    np.testing.assert_array_equal(g, [2.0, 0.0, 0.0, 0.0, 2.0])


def test_clip_keywords_gradient_is_torch_clamps():
    x = np.array([-0.5, -0.3, 0.0, 0.4, 0.9])
    np.testing.assert_array_equal(grad(lambda v: np.sum(clip_keywords(v)))(x),
                                  [0.0, 1.0, 1.0, 1.0, 0.0])


def inner_cube(x):
    return np.inner(x, x) ** 2


def test_inner_second_order():
    """d2/dx2 (x.x)^2 = 8 x x^T + 4 (x.x) I, from the formula (no differencing needed)."""
    x = arrays(4)[0]
    expected = 8.0 * np.outer(x, x) + 4.0 * np.dot(x, x) * np.eye(4)
    np.testing.assert_allclose(hessian(inner_cube)(x), expected, rtol=1e-13)


def dtype_dispatch(x, n):
    y = n.astype(x.dtype)
    if x.dtype == np.float64 and np.issubdtype(x.dtype, np.floating):
        return x + y
    if np.issubdtype(x.dtype, np.integer):
        return x * 0.0
    return x - y


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dtype_is_known_when_compiling(dtype, backend):
    x, n = np.ones(3, dtype=dtype), np.arange(3)
    got = jit(dtype_dispatch, backend=backend)(x, n)
    assert got.dtype == dtype_dispatch(x, n).dtype
    np.testing.assert_array_equal(got, dtype_dispatch(x, n))


def bad_rot90_axes(x):
    return np.rot90(x, axes=(1, 1))


def bad_rot90_range(x):
    return np.rot90(x, axes=(0, 5))


def bad_rollaxis(x):
    return np.rollaxis(x, 3)


def bad_rollaxis_start(x):
    return np.rollaxis(x, 0, start=4)


def bad_vsplit(x):
    return np.vsplit(x, 2)


def bad_dsplit(x):
    return np.dsplit(x, 2)


def bad_inner(x, y):
    return np.inner(x, y)


def bad_clip(x):
    return np.clip(x, a_min=0.5)


def bad_clip_both(x):
    return np.clip(x, 0.1, 0.5, min=0.2)


def bad_einsum_label(a):
    return np.einsum(a, [0, 60])


REFUSALS = [
    (bad_rot90_axes, arrays((2, 3)), ValueError, "Axes must be different.", "axes=(1, 1)"),
    (bad_rot90_range, arrays((2, 3)), ValueError, "Axes=(0, 5) out of range for array of "
     "ndim=2.", "axes=(0, 5)"),
    (bad_rollaxis, arrays((2, 3, 4)), ValueError,
     "axis 3 is out of bounds for array of dimension 3", "rollaxis(x, 3)"),
    (bad_rollaxis_start, arrays((2, 3, 4)), ValueError,
     "'start' arg requires -3 <= start < 4, but 4 was passed in", "start=4"),
    (bad_vsplit, arrays(4), ValueError, "vsplit only works on arrays of 2 or more dimensions",
     "np.vsplit"),
    (bad_dsplit, arrays((2, 2)), ValueError,
     "dsplit only works on arrays of 3 or more dimensions", "np.dsplit"),
    (bad_inner, arrays((2, 3), (2, 4, 5)), ValueError,
     "shapes (2,3) and (2,5,4) not aligned: 3 (dim 1) != 5 (dim 1)", "np.inner"),
    (bad_inner, arrays((2, 3), 4), ValueError,
     "shapes (2,3) and (4,) not aligned: 3 (dim 1) != 4 (dim 0)", "np.inner"),
    (bad_clip, arrays(3), TypeError, "clip() missing 1 required positional argument: 'a_max'",
     "a_min=0.5"),
    (bad_clip_both, arrays(3), ValueError, "Passing `min` or `max` keyword argument when "
     "`a_min` and `a_max` are provided is forbidden.", "min=0.2"),
    (bad_einsum_label, arrays((2, 2)), ValueError, "subscript is not within the valid range "
     "[0, 52)", "[0, 60]"),
]


@pytest.mark.parametrize("fn,args,kind,message,text", REFUSALS,
                         ids=[f"{r[0].__name__}-{i}" for i, r in enumerate(REFUSALS)])
def test_numpys_errors_are_refused_at_the_line(fn, args, kind, message, text):
    check_refusal(fn, args, kind, message, text)


def nan_to_num_in_place(x):
    np.nan_to_num(x, copy=False)
    return x


def test_nan_to_num_in_place_is_refused():
    with pytest.raises(AdliteSyntaxError, match=r"copy=False\) replaces in place"):
        jit(nan_to_num_in_place)(np.array([np.nan, 1.0]))
