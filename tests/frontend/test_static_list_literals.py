"""Lists (literals, nested, built with `append`) wherever a compile-time value is wanted:
shapes, axes, reps, pad widths, as positional or keyword arguments and in array methods.
numpy's distinction is kept where it makes one: a reduction's `axis` takes an int or a tuple,
never a list (numpy's TypeError, at compile time). Expected values come from running the
Python function on numpy arrays, gradients from central differences."""

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, jit
from tests.support.gradients import central_difference_in

W = np.arange(1.0, 7.0)


def transpose_keyword(x):
    return np.sum(np.transpose(x, axes=[1, 0]) * np.arange(3.0))


def transpose_method(x):
    return np.sum(x.transpose([1, 0]) * np.arange(3.0))


def transpose_negative_axes(x):
    return np.sum(np.transpose(x, [-1, 0]) * np.arange(3.0))


def transpose_appended_axes(x):
    axes = []
    axes.append(1)
    axes.append(0)
    return np.sum(np.transpose(x, axes) * np.arange(3.0))


def zeros_keyword_shape(x):
    return np.sum((np.zeros(shape=[3, 2]) + x) ** 2)


def full_list_shape(x):
    return np.sum(np.full([2, 3, 2], 1.5, dtype=np.float64) * x)


def ones_shape_from_x(x):
    return np.sum(np.ones([x.shape[0], 2]) * x)


def reshape_keyword(x):
    return np.sum(np.reshape(x, shape=[2, -1]) * np.arange(3.0))


def reshape_method(x):
    return np.sum(x.reshape([6]) * W)


def tile_keyword(x):
    return np.sum(np.tile(x, reps=[2, 1]) * np.arange(6.0)[:, None])


def expand_dims_list(x):
    return np.sum(np.expand_dims(x, [0, 3]) * np.arange(2.0))


def expand_dims_tuple_keyword(x):
    return np.sum(np.expand_dims(x, axis=(-1, 0)) * np.arange(3.0)[:, None, None, None])


def moveaxis_lists(x):
    return np.sum(np.moveaxis(x, [0], [1]) * np.arange(3.0))


def roll_lists(x):
    return np.sum(np.roll(x, [1], axis=[0]) * np.arange(3.0)[:, None])


def pad_nested_lists(x):
    return np.sum(np.pad(x, [[1, 0], (0, 2)]) * np.arange(4.0)[:, None])


def broadcast_list_shape(x):
    return np.sum(np.broadcast_to(x, [2, 3, 2]) * np.arange(2.0))


def flip_list_axis(x):
    return np.sum(np.flip(x, axis=[0]) * np.arange(3.0)[:, None])


CASES = [transpose_keyword, transpose_method, transpose_negative_axes, transpose_appended_axes,
         zeros_keyword_shape, full_list_shape, ones_shape_from_x, reshape_keyword,
         reshape_method, tile_keyword, expand_dims_list, expand_dims_tuple_keyword,
         moveaxis_lists, roll_lists, pad_nested_lists, broadcast_list_shape, flip_list_axis]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_a_list_is_a_compile_time_value_like_numpy(fn):
    x = np.arange(1.0, 7.0).reshape(3, 2) / 3.0
    assert jit(fn)(x) == pytest.approx(fn(x), rel=1e-14)
    np.testing.assert_allclose(grad(fn)(x), central_difference_in(fn, (x,), 0), rtol=1e-7,
                               atol=1e-8)


def sum_list_axis(x):
    return np.sum(x, axis=[0, 1])


def mean_list_axis_positional(x):
    return np.mean(x, [0])


def method_list_axis(x):
    axes = [1]
    return x.sum(axis=axes)


def squeeze_list_axis(x):
    return np.sum(np.squeeze(x[None], axis=[0]))


@pytest.mark.parametrize("fn", [sum_list_axis, mean_list_axis_positional, method_list_axis,
                                squeeze_list_axis], ids=lambda f: f.__name__)
def test_a_list_axis_of_a_reduction_is_numpys_type_error(fn):
    x = np.ones((3, 2))
    with pytest.raises(TypeError, match="'list' object cannot be interpreted as an integer"):
        fn(x)
    with pytest.raises(AdliteSyntaxError, match="'list' object cannot be interpreted") as e:
        jit(fn)(x)
    assert fn.__code__.co_filename in str(e.value)


def expand_dims_repeated(x):
    return np.expand_dims(x, [0, 0])


def test_repeated_expand_dims_axes_are_numpys_error():
    with pytest.raises(ValueError, match="repeated axis"):
        expand_dims_repeated(np.ones(2))
    with pytest.raises(AdliteSyntaxError, match="repeated axis"):
        jit(expand_dims_repeated)(np.ones(2))
