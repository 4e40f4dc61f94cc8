"""Index arrays separated by a slice, None or `...` (ints among them count as index arrays):
numpy's rule puts the broadcast index dimensions first. Reads equal numpy's (shape and
values) on both backends, gradients equal central differences, forward mode directional
differences; writes through arrays separated by `:` equal numpy's; out-of-bounds indices
raise numpy's IndexError when run."""

import numpy as np
import pytest

from adlite.compiler import jit

from ..support.library_checks import BACKENDS, case_ids, case_tests, random_arrays

RNG = np.random.default_rng(2608)

arrays = random_arrays(RNG)
PAIRS = np.array([[0, 1], [2, 3]])


def int_slice_list(x):
    return x[3, 2:, [1, 3]]


def list_slice_list(x):
    return x[[0, 2], :, [1, 3]]


def list_slice_int(x):
    return x[[0, 2], 1:3, 1]


def matrix_ellipsis_vector(x):
    return x[PAIRS, ..., np.array([1, 0])]


def new_axis_between(x):
    return x[None, [1, 2], 1:, [0, -1]]


def int_list_int(x):
    return x[1, [0, 1], 2]  # adjacent: the dimensions stay in place


CASES = [(fn, arrays((5, 6, 4))) for fn in
         (int_slice_list, list_slice_list, list_slice_int, matrix_ellipsis_vector,
          new_axis_between, int_list_int)] + [(int_slice_list, arrays((4, 3, 5)))]
IDS = case_ids(CASES)

test_values, test_gradients, test_forward = case_tests(CASES, IDS, rtol=0.0, atol=0.0)


def write_separated(x):
    y = x * 1.0
    y[[0, 2], :, [1, 3]] = 7.0
    return y


def write_separated_array(x):
    y = x * 1.0
    y[[0, 2], :, [1, 3]] = x[:2, :, 0] * 2.0
    return y


def add_separated(x):
    y = x * 1.0
    y[[0, 2], :, [-1, 3]] += x[1, :, :2].T
    return y


WRITES = [(fn, arrays((5, 6, 4))) for fn in (write_separated, write_separated_array,
                                             add_separated)]

test_write_values, test_write_gradients, test_write_forward = case_tests(
    WRITES, case_ids(WRITES), rtol=0.0, atol=0.0)


def out_of_bounds(x):
    return x[1, :, [0, 9]]


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_of_bounds_raises_numpys_index_error(backend):
    x = arrays((2, 3, 4))[0]
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 2 with size 4"):
        out_of_bounds(x)
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 2 with size 4"):
        jit(out_of_bounds, backend=backend)(x)
