"""np.convolve and scipy.signal.convolve in compiled code (issue 26): values equal numpy's
and scipy's direct method on both backends for several shapes, modes and operand orders;
gradients equal central differences (and, for np.convolve, the eager tape's), forward mode
equals directional differences; numpy's and scipy's errors for bad arguments are refused at
the user's line with their type and message; the IR stays a few operations per axis."""

import numpy as np
import pytest

from adlite.compiler import grad, hessian, jit, show
from adlite.compiler.errors import AdliteSyntaxError
from adlite.compiler.ir.core import F64

from ..support.library_checks import (
    case_ids,
    case_tests,
    check_refusal,
    tape_test,
)

signal = pytest.importorskip("scipy.signal")
RNG = np.random.default_rng(2026)


def arrays(*shapes):
    return tuple(RNG.standard_normal(s) for s in shapes)


def full(a, v):
    return np.convolve(a, v)


def same(a, v):
    return np.convolve(a, v, mode="same")


def valid(a, v):
    return np.convolve(a, v, "valid")


def by_number(a, v):
    return np.convolve(a, v, 1) + np.convolve(v, a, mode=0).sum()


def of_a_number(a):
    return np.convolve(a, 2.5) + np.convolve(0.5, a, "same")


def smoothed_twice(a, v):
    return np.convolve(np.convolve(a, v, "same"), v, "same") * a


def scipy_full(a, b):
    return signal.convolve(a, b)


def scipy_same(a, b):
    return signal.convolve(a, b, mode="same")


def scipy_valid(a, b):
    return signal.convolve(a, b, "valid", method="direct")


def scipy_auto_valid(a, b):
    return signal.convolve(in1=a, in2=b, mode="valid", method="auto")


NUMPY_CASES = [
    (fn, arrays(n, m)) for fn in (full, same, valid)
    for n, m in ((6, 3), (3, 6), (5, 4), (4, 5), (7, 1), (1, 1), (8, 8))
] + [(by_number, arrays(7, 3)), (by_number, arrays(2, 5)), (of_a_number, arrays(5)),
     (smoothed_twice, arrays(9, 4))]
SCIPY_CASES = [
    (fn, arrays(n, m)) for fn in (scipy_full, scipy_same)
    for n, m in (((5, 4), (3, 2)), ((3, 3), (4, 5)), ((2, 6), (3, 1)), ((2, 3, 4), (3, 2, 2)),
                 ((7,), (4,)), ((3,), (6,)), ((4, 4), (4, 4)))
] + [
    (fn, arrays(n, m)) for fn in (scipy_valid, scipy_auto_valid)
    for n, m in (((5, 4), (3, 2)), ((3, 2), (5, 4)), ((4, 6), (4, 3)), ((3, 4, 5), (2, 4, 1)),
                 ((6,), (6,)), ((2,), (5,)))
]
CASES = NUMPY_CASES + SCIPY_CASES
IDS = case_ids(CASES)


(test_values_equal_numpy_and_scipys_direct_method, test_gradients_equal_central_differences,
 test_forward_mode_equals_directional_differences) = case_tests(CASES, IDS, rtol=1e-13,
                                                                atol=1e-13)
test_the_eager_tape_gives_the_same_values_and_gradients = tape_test(
    CASES, IDS, on_tape=lambda case: any(case is c for c in NUMPY_CASES))


def test_values_equal_scipys_on_an_image_and_a_large_kernel():
    image, kernel = arrays((23, 17), (10, 10))
    for mode in ("full", "same", "valid"):
        got = jit(lambda a, b, m: signal.convolve(a, b, m))(image, kernel, mode)
        np.testing.assert_allclose(got, signal.convolve(image, kernel, mode, "direct"),
                                   rtol=1e-12, atol=1e-12)


def test_int_operands_give_numpys_int_results():
    a, v = np.array([1, -2, 3, 4]), np.array([5, 6])
    for mode in ("full", "same", "valid"):
        got = jit(lambda x, y, m: np.convolve(x, y, m))(a, v, mode)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, np.convolve(a, v, mode))
    a2 = np.arange(12).reshape(3, 4)
    got = jit(lambda x, y: signal.convolve(x, y))(a2, a2[:2, :2])
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, signal.convolve(a2, a2[:2, :2]))


def test_float32_operands_stay_float32():
    a, v = (x.astype(np.float32) for x in arrays(6, 3))
    got = jit(same)(a, v)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.convolve(a, v, "same"), rtol=1e-5, atol=1e-6)


def test_two_numbers_give_their_product():
    assert jit(scipy_full)(2.0, 3.5) == signal.convolve(2.0, 3.5) == 7.0


def squared_sum(mode):
    def loss(a, b):
        return np.sum(signal.convolve(a, b, mode) ** 2)

    return loss


def test_the_ir_is_a_few_operations_per_axis_for_a_10x10_kernel():
    types = [F64.with_shape((64, 64)), F64.with_shape((10, 10))]
    for mode in ("full", "same", "valid"):
        loss = squared_sum(mode)
        assert len(show(loss, "frontend", types).splitlines()) < 40
        assert len(show(loss, "optimize", types, grad=True).splitlines()) < 80


def empty_first(a, v):
    return np.convolve(a[:0], v)


def empty_second(a, v):
    return np.convolve(a, v[:0], "same")


def two_dimensional(a, v):
    return np.convolve(a, v)


def unknown_mode(a, v):
    return np.convolve(a, v, mode="middle")


def capital_mode(a, v):
    return np.convolve(a, v, mode="Same")


def integer_mode(a, v):
    return np.convolve(a, v, 3)


def unequal_ranks(a, b):
    return signal.convolve(a, b)


def valid_crossing(a, b):
    return signal.convolve(a, b, mode="valid")


def scipy_unknown_mode(a, b):
    return signal.convolve(a, b, mode="Full")


def scipy_unknown_method(a, b):
    return signal.convolve(a, b, method="spectral")


def scipy_empty(a, b):
    return signal.convolve(a[:0], b)


def scipy_empty_valid(a, b):
    return signal.convolve(a[:0], b, "valid")


@pytest.mark.parametrize("fn,args,message", [
    (empty_first, arrays(3, 2), "a cannot be empty"),
    (empty_second, arrays(3, 2), "v cannot be empty"),
    (two_dimensional, arrays((2, 2), 2), "object too deep for desired array"),
    (unknown_mode, arrays(3, 2), "mode must be one of 'valid', 'same', or 'full' (got "
                                 "'middle')"),
    (capital_mode, arrays(3, 2), "Use one of 'valid', 'same', or 'full' for convolve/correlate "
                                 "mode"),
    (integer_mode, arrays(3, 2), "integer convolve/correlate mode must be 0, 1, or 2"),
    (unequal_ranks, arrays((3, 2), 2), "volume and kernel should have the same dimensionality"),
    (valid_crossing, arrays((3, 2), (2, 3)), "For 'valid' mode, one must be at least as large "
                                             "as the other in every dimension"),
    (scipy_unknown_mode, arrays(3, 2), "Acceptable mode flags are 'valid', 'same', or 'full', "
                                       "not mode=Full"),
    (scipy_unknown_method, arrays(3, 2), "Acceptable method flags are 'auto', 'direct', or "
                                         "'fft'."),
    (scipy_empty, arrays(3, 2), "a cannot be empty"),
    (scipy_empty_valid, arrays(3, 2), "v cannot be empty"),
], ids=["empty-a", "empty-v", "two-dimensional", "unknown-mode", "capital-mode", "int-mode",
        "scipy-ranks", "scipy-valid-crossing", "scipy-mode", "scipy-method", "scipy-empty",
        "scipy-empty-valid"])
def test_numpy_and_scipy_errors_are_refused_at_the_users_line(fn, args, message):
    text = "signal.convolve" if fn.__name__.startswith(("scipy", "unequal", "valid")) else \
        "np.convolve"
    check_refusal(fn, args, ValueError, message, text)


def fft(a, b):
    return signal.convolve(a, b, method="fft")


def test_the_fft_method_is_refused_with_a_hint():
    with pytest.raises(AdliteSyntaxError, match="method='fft'") as info:
        jit(fft)(*arrays(4, 2))
    assert "method='direct'" in info.value.hint


def cubed_same(a, v):
    return np.sum(np.convolve(a, v, "same") ** 3)


def cubed_scipy_valid(a, b):
    return np.sum(signal.convolve(a, b, "valid") ** 3)


@pytest.mark.parametrize("fn,args", [(cubed_same, arrays(5, 3)), (cubed_same, arrays(2, 4)),
                                     (cubed_scipy_valid, arrays((4, 3), (2, 2)))],
                         ids=["np-same", "np-swapped", "scipy-valid"])
def test_second_order_equals_differences_of_the_gradient(fn, args):
    a, rest = args[0], args[1:]
    gradient, h = grad(fn), 1e-5
    columns = [(gradient(a + h * e, *rest) - gradient(a - h * e, *rest)) / (2 * h)
               for e in np.eye(a.size).reshape(a.size, *a.shape)]
    np.testing.assert_allclose(np.reshape(hessian(fn)(*args), (a.size, a.size)),
                               np.reshape(columns, (a.size, a.size)), rtol=1e-6, atol=1e-6)


def autograd_axes(a, b):
    return signal.convolve(a, b, axes=([0], [0]))


def test_keywords_scipy_lacks_raise_pythons_type_error_naming_scipys_function():
    with pytest.raises(TypeError, match="unexpected keyword argument 'axes'"):
        autograd_axes(*arrays((4, 3), (3, 2)))
    with pytest.raises(AdliteSyntaxError, match=r"scipy\.signal\.convolve\(\): .*'axes'") \
            as info:
        jit(autograd_axes)(*arrays((4, 3), (3, 2)))
    assert isinstance(info.value, TypeError)
