"""`@` / np.matmul of arrays with more than 2 dimensions (numpy's batched rules: batch axes
broadcast, a 1-D operand is a row or a column whose axis is dropped) and np.dot / x.dot of
N-d arrays (numpy's rule: a sum over a's last axis and b's second-to-last), issue 26: values
equal numpy's on both backends, gradients equal central differences and the eager tape's,
forward mode equals directional differences, numpy's errors are refused at the user's
line."""

import numpy as np
import pytest

from ..support.library_checks import (
    case_ids,
    case_tests,
    check_refusal,
    random_arrays,
    tape_test,
)

RNG = np.random.default_rng(2604)

arrays = random_arrays(RNG)


def at(a, b):
    return a @ b


def matmul(a, b):
    return np.matmul(a, b)


def dot(a, b):
    return np.dot(a, b)


def dot_method(a, b):
    return a.dot(b) * 2.0


def chained(a, b):
    return np.tanh(a @ b) @ np.swapaxes(b, -1, -2)


MATMUL_SHAPES = [((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 3, 4), (2, 4, 5)),
                 ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 5)), ((2, 3, 4), (4,)),
                 ((1, 3, 4), (2, 2, 4, 1)), ((3, 4), (4, 2))]
DOT_SHAPES = [((2, 3, 4), (5, 4, 2)), ((2, 3, 4), (4,)), ((4,), (2, 4, 3)), ((3, 4), (2, 4, 5)),
              ((2, 3, 4), (4, 5)), ((2, 2, 3), (1, 2, 3, 2))]
CASES = [(at, arrays(*s)) for s in MATMUL_SHAPES] + \
    [(matmul, arrays(*s)) for s in MATMUL_SHAPES[:4]] + \
    [(dot, arrays(*s)) for s in DOT_SHAPES] + [(dot_method, arrays((2, 3, 4), (4, 2)))] + \
    [(chained, arrays((2, 3, 4), (2, 4, 4))), (chained, arrays((3, 4), (2, 4, 4)))]
IDS = case_ids(CASES)



(test_values_equal_numpy, test_gradients_equal_central_differences,
 test_forward_mode_equals_directional_differences) = case_tests(CASES, IDS, rtol=1e-13,
                                                                atol=1e-13)
test_the_eager_tape_gives_the_same_values_and_gradients = tape_test(
    CASES, IDS, on_tape=lambda case: case[0] is not dot_method)


def matmul_number(a, b):
    return np.matmul(a, 2.0)


@pytest.mark.parametrize("fn,args,message,text", [
    (at, arrays((2, 3, 4), (5, 4, 2)), "operands could not be broadcast together with "
     "remapped shapes [original->remapped]: (2,3,4)->(2,newaxis,newaxis) "
     "(5,4,2)->(5,newaxis,newaxis)  and requested shape (3,2)", "a @ b"),
    (matmul, arrays((2, 3, 4), (2, 5, 2)), "matmul: Input operand 1 has a mismatch in its core "
     "dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size 5 is different from 4)",
     "np.matmul"),
    (matmul_number, arrays((2, 3, 4), 1), "matmul: Input operand 1 does not have enough "
     "dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)",
     "np.matmul"),
    (dot, arrays((2, 3, 4), (5, 2)), "shapes (2,3,4) and (5,2) not aligned: 4 (dim 2) != 5 "
     "(dim 0)", "np.dot"),
    (dot, arrays(3, 4), "shapes (3,) and (4,) not aligned: 3 (dim 0) != 4 (dim 0)", "np.dot"),
], ids=["batches", "core", "number", "dot-n-d", "dot-vectors"])
def test_numpy_errors_are_refused_at_the_users_line(fn, args, message, text):
    check_refusal(fn, args, ValueError, message, text)
