"""np.kron, np.tensordot (int and pair-of-sequences `axes`), np.logaddexp2, np.array_split /
np.split and np.einsum with `...` (and size-1 axes broadcasting) in compiled code (issue 26):
values equal numpy's on both backends and several shapes, gradients equal central
differences and the eager tape's, forward mode equals directional differences, and numpy's
errors for bad arguments are refused at the user's line with numpy's type and message."""

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

RNG = np.random.default_rng(260)

arrays = random_arrays(RNG)


def kron(a, b):
    return np.kron(a, b)


def kron_chain(a, b):
    return np.kron(np.kron(a, b), a) * 0.5


def contract_last_two(a, b):
    return np.tensordot(a, b)


def contract_pairs(a, b):
    return np.tensordot(a, b, axes=([1, 0], [0, 2]))


def contract_negative(a, b):
    return np.tensordot(a, b, axes=([-1], [-2]))


def contract_one(a, b):
    return np.tensordot(a, b, 1)


def outer_of_tensors(a, b):
    return np.tensordot(a, b, axes=0)


def contract_single_axes(a, b):
    return np.tensordot(a, b, axes=(0, 1))


def logaddexp2(a, b):
    return np.logaddexp2(a, b)


def split_in_three(x):
    parts = np.array_split(x, 3)
    return parts[0].sum() * parts[1] + parts[2].sum()


def split_columns(x):
    a, b, c = np.array_split(x, 3, axis=-1)
    return np.concatenate([c * 2.0, a, b * b], axis=1)


def split_at(x):
    first, middle, last = np.split(x, [1, -1])
    return np.sum(first) + middle * 3.0 + np.sum(last ** 2)


def split_even(x):
    a, b = np.split(x, 2, axis=1)
    return a * b


def batched_product(a, b):
    return np.einsum("...ij,...jk->...ik", a, b)


def ellipsis_in_the_middle(a):
    return np.einsum("i...j->j...i", a)


def ellipsis_trace(a):
    return np.einsum("...ii->...i", a)


def ellipsis_implicit(a, b):
    return np.einsum("...i,...i", a, b)


def ellipsis_summed(a):
    return np.einsum("i...j->...", a)


def broadcast_letters(a, b):
    return np.einsum("ij,ij->ij", a, b)


CASES = [
    (kron, arrays((2, 3), (4, 2))), (kron, arrays(3, 4)), (kron, arrays((2, 3), 2)),
    (kron, arrays(3, (2, 2, 1))), (kron_chain, arrays((2, 1), (1, 3))),
    (contract_last_two, arrays((2, 3, 4), (3, 4, 5))), (contract_last_two, arrays((3, 4), (3, 4))),
    (contract_pairs, arrays((3, 4, 2), (4, 5, 3))), (contract_negative, arrays((2, 3), (3, 4))),
    (contract_one, arrays((2, 3), (3,))), (contract_one, arrays(3, (3, 2, 2))),
    (outer_of_tensors, arrays((2, 3), 2)), (contract_single_axes, arrays((4, 2), (3, 4))),
    (logaddexp2, arrays(5, 5)), (logaddexp2, arrays((3, 4), 4)),
    (logaddexp2, (0.25, *arrays((2, 3)))),
    (split_in_three, arrays(7)), (split_in_three, arrays((5, 2))), (split_columns, arrays((3, 7))),
    (split_at, arrays(6)), (split_at, arrays((4, 3))), (split_even, arrays((3, 4))),
    (batched_product, arrays((2, 3, 4), (4, 5))),
    (batched_product, arrays((2, 1, 3, 4), (5, 4, 2))),
    (batched_product, arrays((3, 4), (4, 2))), (ellipsis_in_the_middle, arrays((2, 3, 4, 5))),
    (ellipsis_in_the_middle, arrays((2, 5))), (ellipsis_trace, arrays((2, 3, 3))),
    (ellipsis_implicit, arrays((2, 1, 3), (4, 3))), (ellipsis_summed, arrays((3, 2, 2))),
    (broadcast_letters, arrays((1, 3), (2, 3))),
]
IDS = case_ids(CASES)



(test_values_equal_numpy, test_gradients_equal_central_differences,
 test_forward_mode_equals_directional_differences) = case_tests(CASES, IDS, rtol=1e-13, atol=1e-13)
test_the_eager_tape_gives_the_same_values_and_gradients = tape_test(CASES, IDS)


def parts(x):
    return np.array_split(x, 4)


def split_points(x):
    return np.split(x, [3, 1, 9])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,shape", [(parts, 10), (parts, 3), (parts, (6, 2)),
                                      (split_points, 6)],
                         ids=["ten-in-four", "three-in-four", "rows", "unordered-points"])
def test_the_parts_are_numpys_empty_ones_included(fn, shape, backend):
    x = RNG.standard_normal(shape)
    got, expected = jit(fn, backend=backend)(x), fn(x)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.shape == e.shape
        np.testing.assert_array_equal(g, e)


def kron_of_ints(a, b):
    return np.kron(a, b)


def test_kron_of_int_arrays_is_an_int_array():
    a, b = np.array([[1, 2], [3, 4]]), np.array([5, -6])
    got = jit(kron_of_ints)(a, b)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.kron(a, b))


def bad_tensordot(a, b):
    return np.tensordot(a, b, axes=([0], [0]))


def tensordot_out_of_range(a, b):
    return np.tensordot(a, b, axes=([3], [0]))


def tensordot_unequal(a, b):
    return np.tensordot(a, b, axes=([0, 1], [0]))


def no_sections(x):
    return np.array_split(x, 0)


def unequal_split(x):
    return np.split(x, 4)


def split_axis(x):
    return np.split(x, 2, axis=1)


def ellipsis_dropped(a):
    return np.einsum("...i->i", a)


def collapsing(a):
    return np.einsum("ii->i", a)


def einsum_mismatch(a, b):
    return np.einsum("ij,ij->ij", a, b)


@pytest.mark.parametrize("fn,args,kind,message,text", [
    (bad_tensordot, arrays((2, 3), (3, 2)), ValueError, "shape-mismatch for sum", "np.tensordot"),
    (tensordot_out_of_range, arrays((2, 3), (3, 2)), IndexError, "tuple index out of range",
     "np.tensordot"),
    (tensordot_unequal, arrays((2, 3), (2, 3)), ValueError, "shape-mismatch for sum",
     "np.tensordot"),
    (no_sections, arrays(4), ValueError, "number sections must be larger than 0.",
     "np.array_split"),
    (unequal_split, arrays(6), ValueError, "array split does not result in an equal division",
     "np.split"),
    (split_axis, arrays(6), IndexError, "tuple index out of range", "np.split"),
    (ellipsis_dropped, arrays((2, 3)), ValueError, "output has more dimensions than subscripts "
     "given in einstein sum, but no '...' ellipsis provided", "np.einsum"),
    (collapsing, arrays((2, 3)), ValueError, "dimensions in single operand for collapsing index "
     "'i' don't match (2 != 3)", "np.einsum"),
    (einsum_mismatch, arrays((2, 3), (3, 3)), ValueError, "operands could not be broadcast "
     "together", "np.einsum"),
], ids=["tensordot-sizes", "tensordot-axis", "tensordot-counts", "array_split-zero",
        "split-unequal", "split-axis", "einsum-ellipsis-dropped", "einsum-collapsing",
        "einsum-broadcast"])
def test_numpy_errors_are_refused_at_the_users_line(fn, args, kind, message, text):
    check_refusal(fn, args, kind, message, text)
