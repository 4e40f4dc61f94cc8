"""scipy.special's ufuncs and numpy's inverse hyperbolic ufuncs on Tensors
(runtime/special_ufuncs.py): called as scipy/numpy functions, they dispatch through
`__array_ufunc__`; values equal scipy's/numpy's (several shapes, broadcasting, float32 kept);
gradients against central differences of scipy's own functions; second order by `gradcheck`
(the derivatives are recorded tape functions); orders that require grad are refused.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sc

from adlite.runtime import autograd, gradcheck, tensor

from ..support.gradients import central_differences

RNG = np.random.default_rng(7)
SHAPES = [(), (4,), (2, 3)]

UNARY = {  # ufunc -> the interval its argument is drawn from
    sc.i0: (0.2, 5.0), sc.i1: (0.2, 5.0), sc.j0: (0.2, 10.0), sc.j1: (0.2, 10.0),
    sc.y0: (0.2, 10.0), sc.y1: (0.2, 10.0), sc.gamma: (0.3, 3.0), sc.rgamma: (0.3, 3.0),
    sc.gammasgn: (0.3, 3.0), np.arccosh: (1.1, 4.0), np.arcsinh: (-3.0, 3.0),
    np.arctanh: (-0.9, 0.9),
}
BINARY = {  # ufunc -> (the fixed first argument, the interval of x)
    sc.iv: (np.array([0.5, 1.0, 2.5]), (0.3, 5.0)), sc.ive: (2.0, (-4.0, 4.0)),
    sc.jv: (np.array([0.0, 1.0, 2.5]), (0.3, 8.0)), sc.yv: (1.5, (0.3, 8.0)),
    sc.yn: (2, (0.3, 8.0)), sc.gammainc: (np.array([0.7, 1.0, 3.0]), (0.2, 4.0)),
    sc.gammaincc: (2.5, (0.2, 4.0)),
}


def _draw(interval, shape):
    return RNG.uniform(*interval, size=shape)


def _name(f):
    return f.__name__


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("ufunc", UNARY, ids=_name)
def test_unary_values_and_gradients(ufunc, shape):
    x = _draw(UNARY[ufunc], shape)
    t = tensor(x, requires_grad=True)
    out = ufunc(t)
    expected = ufunc(x)
    assert out.shape == np.shape(expected) and out.dtype == expected.dtype
    np.testing.assert_array_equal(out.data, expected)
    np.sum(out).backward()
    (fd,) = central_differences(lambda a: float(np.sum(ufunc(a))), [x])
    np.testing.assert_allclose(t.grad.data, fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("ufunc", UNARY, ids=_name)
def test_unary_second_order(ufunc):
    assert gradcheck(ufunc, [_draw(UNARY[ufunc], (3,))], order=2)


@pytest.mark.parametrize("ufunc", BINARY, ids=_name)
def test_functions_of_an_order_broadcast_and_differentiate_in_x(ufunc):
    order, interval = BINARY[ufunc]
    x = _draw(interval, (2, 3))
    t = tensor(x, requires_grad=True)
    out = ufunc(order, t)
    np.testing.assert_array_equal(out.data, ufunc(order, x))
    np.sum(out * np.arange(6.0).reshape(2, 3)).backward()
    (fd,) = central_differences(
        lambda a: float(np.sum(ufunc(order, a) * np.arange(6.0).reshape(2, 3))), [x])
    np.testing.assert_allclose(t.grad.data, fd, rtol=1e-6, atol=1e-8)
    assert gradcheck(lambda a: ufunc(order, a), [x], order=2)


@pytest.mark.parametrize("ufunc", [sc.beta, sc.betaln], ids=_name)
def test_beta_differentiates_both_parameters(ufunc):
    a, b = _draw((0.5, 3.0), (4,)), _draw((0.5, 3.0), (4,))
    ta, tb = tensor(a, requires_grad=True), tensor(b, requires_grad=True)
    out = ufunc(ta, tb)
    np.testing.assert_array_equal(out.data, ufunc(a, b))
    np.sum(out).backward()
    fa, fb = central_differences(lambda p, q: float(np.sum(ufunc(p, q))), [a, b])
    np.testing.assert_allclose(ta.grad.data, fa, rtol=1e-6)
    np.testing.assert_allclose(tb.grad.data, fb, rtol=1e-6)
    assert gradcheck(ufunc, [a, b], order=2)


def test_betainc_differentiates_x():
    a, b, x = 2.5, np.array([1.5, 3.0, 0.8]), _draw((0.05, 0.95), (3,))
    t = tensor(x, requires_grad=True)
    out = sc.betainc(a, b, t)
    np.testing.assert_array_equal(out.data, sc.betainc(a, b, x))
    np.sum(out).backward()
    (fd,) = central_differences(lambda v: float(np.sum(sc.betainc(a, b, v))), [x])
    np.testing.assert_allclose(t.grad.data, fd, rtol=1e-6)
    assert gradcheck(lambda v: sc.betainc(a, b, v), [x], order=2)


def test_float32_stays_float32():
    x = np.array([0.5, 1.5], np.float32)
    out = sc.i0(tensor(x))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.data, sc.i0(x))


REFUSED = {"iv": lambda v, x: sc.iv(v, x), "gammainc": lambda v, x: sc.gammainc(v, x),
           "betainc": lambda v, x: sc.betainc(v, 2.0, x)}


@pytest.mark.parametrize("name", REFUSED)
def test_an_order_that_requires_grad_is_refused(name):
    call = REFUSED[name]
    with pytest.raises(NotImplementedError, match="with respect to its argument 0"):
        call(tensor(1.5, requires_grad=True), tensor(0.5, requires_grad=True))


def test_third_derivatives_through_gammaln_run():
    x = tensor(np.array([0.7, 1.9, 4.2]), requires_grad=True)
    (d1,) = autograd.grad(np.sum(sc.gammaln(x)), x, create_graph=True)
    (d2,) = autograd.grad(np.sum(d1), x, create_graph=True)
    (d3,) = autograd.grad(np.sum(d2), x)
    np.testing.assert_allclose(d3.data, sc.polygamma(2, x.data), rtol=1e-12)
