"""numpy functions on Tensors added for autograd's suite (runtime/numpy_functions.py):
np.gradient, inner, rollaxis, partition, hsplit/vsplit/dsplit, append, fft.fftshift /
ifftshift, rot90, nan_to_num, and real/imag/angle/conj of real tensors: numpy's values
(shape and dtype), gradients against central differences and second order by `gradcheck`;
numpy's tests (allclose, result_type, iscomplex) give numpy's answers; numpy's errors are
raised.
"""

from __future__ import annotations

import numpy as np
import pytest

from adlite.runtime import gradcheck, tensor

from ..support.gradients import central_differences

RNG = np.random.default_rng(3)
X3 = RNG.standard_normal((4, 5, 6))
M = RNG.standard_normal((3, 4))
V = RNG.standard_normal(10)
B = RNG.standard_normal((2, 4))

CASES = {  # name -> (function of one array, the array)
    "gradient_1d": (np.gradient, V),
    "gradient_3d": (lambda a: np.gradient(a, 0.5), X3),
    "gradient_axis_edge2": (lambda a: np.gradient(a, axis=1, edge_order=2), X3),
    "gradient_axes": (lambda a: np.gradient(a, 2.0, 0.5, axis=(0, -1)), X3),
    "inner": (lambda a: np.inner(a, B), M),
    "inner_scalar": (lambda a: np.inner(a, 3.0), M),
    "rollaxis": (lambda a: np.rollaxis(a, 2), X3),
    "rollaxis_start": (lambda a: np.rollaxis(a, 0, 3), X3),
    "partition": (lambda a: np.partition(a, 3), V),
    "partition_axis0": (lambda a: np.partition(a, 1, axis=0), M),
    "partition_flat": (lambda a: np.partition(a, (2, 7), axis=None), M),
    "hsplit": (lambda a: np.hsplit(a, 2), M),
    "vsplit": (lambda a: np.vsplit(a, [1]), M),
    "dsplit": (lambda a: np.dsplit(a, 3), X3),
    "append_flat": (lambda a: np.append(a, np.ones(3)), M),
    "append_axis": (lambda a: np.append(a, np.ones((2, 4)), axis=0), M),
    "fftshift": (np.fft.fftshift, X3),
    "ifftshift_axis": (lambda a: np.fft.ifftshift(a, axes=1), X3),
    "rot90": (np.rot90, M),
    "rot90_k3_axes": (lambda a: np.rot90(a, 3, (2, 0)), X3),
    "rot90_k2": (lambda a: np.rot90(a, -2), M),
    "nan_to_num": (lambda a: np.nan_to_num(np.log(a), nan=-1.0), M),
    "real": (np.real, M),
    "conj": (np.conj, M),
    "real_if_close": (np.real_if_close, M),
}


def _pieces(out):
    return list(out) if isinstance(out, list | tuple) else [out]


@pytest.mark.parametrize("name", CASES)
def test_values_are_numpys(name):
    fn, x = CASES[name]
    with np.errstate(all="ignore"):
        got, want = _pieces(fn(tensor(x, requires_grad=True))), _pieces(fn(x))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g.data, w, rtol=1e-14, atol=1e-15)


def _total(fn, weights):
    def scalar(a):
        with np.errstate(all="ignore"):
            pieces = _pieces(fn(a))
        return sum(np.sum(p * w) for p, w in zip(pieces, weights, strict=True))
    return scalar


@pytest.mark.parametrize("name", CASES)
def test_gradients_match_differences(name):
    fn, x = CASES[name]
    with np.errstate(all="ignore"):
        weights = [RNG.standard_normal(p.shape) for p in _pieces(fn(x))]
    t = tensor(x, requires_grad=True)
    _total(fn, weights)(t).backward()
    (want,) = central_differences(lambda a: float(_total(fn, weights)(a)), [x])
    np.testing.assert_allclose(t.grad.data, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["gradient_3d", "inner", "partition", "rot90", "append_flat"])
def test_second_order(name):
    fn, x = CASES[name]
    assert gradcheck(lambda a: fn(a) ** 2 if not isinstance(fn(a), tuple) else fn(a)[0] ** 2,
                     [x], order=2)


def test_constants_and_numpys_tests():
    t = tensor(M, requires_grad=True)
    assert np.all(np.imag(t).data == 0) and not np.imag(t).requires_grad
    assert np.array_equal(np.angle(tensor([-1.0, 2.0])).data, np.angle([-1.0, 2.0]))
    assert np.allclose(t, M) is True and np.result_type(t, np.int32) == np.float64
    assert np.array_equal(np.iscomplex(t), np.zeros(M.shape, bool))


def test_numpys_errors():
    with pytest.raises(ValueError, match="edge_order"):
        np.gradient(tensor(np.ones(2)), edge_order=2)
    with pytest.raises(ValueError, match="dimensions"):
        np.vsplit(tensor(np.ones(4)), 2)
    with pytest.raises(ValueError, match="Axes must be different"):
        np.rot90(tensor(M), 1, (0, 0))
    with pytest.raises(NotImplementedError, match="coordinate arrays"):
        np.gradient(tensor(V), np.arange(10.0))
