"""`np.convolve` on the eager tape (runtime/convolution.py): numpy's values to the last bit,
for each mode and operand lengths shorter, longer and equal (numpy swaps the operands when
the second is longer), numbers and lists as operands, numpy's errors; gradients of both
operands against central differences, second and third order by `gradcheck` (the VJP is
the primitive again). The compiler has no `np.convolve` yet, so differences are the reference.
"""

from __future__ import annotations

import numpy as np
import pytest

from adlite.runtime import gradcheck, tensor

from ..support.gradients import central_differences

MODES = ("full", "same", "valid")
LENGTHS = {"5x3": (5, 3), "3x5": (3, 5), "4x2": (4, 2), "2x4": (2, 4), "4x4": (4, 4),
           "1x1": (1, 1), "1x3": (1, 3), "6x1": (6, 1)}


def _operands(lengths: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(sum(lengths) * 7 + lengths[0])
    return rng.standard_normal(lengths[0]), rng.standard_normal(lengths[1])


def _weighted(mode: str):
    def fn(a, v):
        out = np.convolve(a, v, mode)
        return np.sum(np.sin(out) * np.arange(1.0, out.shape[0] + 1.0))

    return fn


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("lengths", LENGTHS)
def test_values_are_numpys(lengths, mode):
    a, v = _operands(LENGTHS[lengths])
    out = np.convolve(tensor(a, requires_grad=True), tensor(v, requires_grad=True), mode)
    assert out.grad_fn.name() == "ConvolutionBackward0"
    np.testing.assert_array_equal(out.data, np.convolve(a, v, mode))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("lengths", LENGTHS)
def test_gradients_match_differences(lengths, mode):
    a, v = _operands(LENGTHS[lengths])
    ta, tv = tensor(a, requires_grad=True), tensor(v, requires_grad=True)
    _weighted(mode)(ta, tv).backward()
    expected = central_differences(_weighted(mode), (a, v))
    np.testing.assert_allclose(ta.grad.data, expected[0], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(tv.grad.data, expected[1], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("lengths", ["5x3", "2x4", "4x4"])
def test_higher_order(lengths, mode):
    assert gradcheck(_weighted(mode), list(_operands(LENGTHS[lengths])), order=3)


SPELLINGS = {"f": "full", "Same": "same", "v": "valid", 0: "valid", 1: "same", 2: "full"}


@pytest.mark.parametrize("spelling", SPELLINGS, ids=[str(k) for k in SPELLINGS])
def test_numpys_spellings_of_the_modes(spelling):
    a, v = _operands((5, 3))
    out = np.convolve(tensor(a, requires_grad=True), v, spelling)
    np.testing.assert_array_equal(out.data, np.convolve(a, v, SPELLINGS[spelling]))
    out.sum().backward()  # the cotangent of the mode numpy gave


OPERANDS = {
    "number_and_tensor": (2.5, [1.0, -2.0, 0.5]),
    "list_and_tensor": ([1.0, 2.0], [0.5, -1.0, 3.0, 2.0]),
    "tensor_and_array": (np.array([0.5, 1.5]), np.array([1.0, 0.0, -1.0])),
}


@pytest.mark.parametrize("name", OPERANDS)
def test_numbers_lists_and_arrays_as_operands(name):
    first, second = OPERANDS[name]
    t = tensor(second, requires_grad=True)
    out = np.convolve(first, t, "same")
    np.testing.assert_array_equal(out.data, np.convolve(first, second, "same"))
    np.sum(out ** 2).backward()
    expected = central_differences(lambda s: np.sum(np.convolve(first, s, "same") ** 2),
                                   (np.asarray(second),))
    np.testing.assert_allclose(t.grad.data, expected[0], rtol=1e-6, atol=1e-8)


ERRORS = {
    "empty": (np.zeros(0), "full", ValueError),
    "two_dimensional": (np.ones((2, 2)), "full", ValueError),
    "unknown_mode": (np.ones(2), "middle", ValueError),
}


@pytest.mark.parametrize("name", ERRORS)
def test_numpys_errors(name):
    operand, mode, error = ERRORS[name]
    with pytest.raises(error) as numpys:
        np.convolve(operand, np.ones(2), mode)
    with pytest.raises(error) as tapes:
        np.convolve(tensor(operand, requires_grad=operand.size > 0), np.ones(2), mode)
    assert str(tapes.value) == str(numpys.value)
