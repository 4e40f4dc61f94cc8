"""scipy.special's Bessel, gamma, beta, incomplete and distribution functions and polygamma in
compiled code: values against scipy's (both backends, broadcasting, float32), gradients
against central differences (reverse, forward, Hessians), the orders that get no derivative,
objects from the disk cache of another process, and the refusals (a run-time or negative
polygamma order, ahead-of-time kernels)."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import scipy.special as sc

from adlite import compiler
from adlite.compiler.aot import AotError, compile_aot
from adlite.compiler.errors import AdliteSyntaxError
from adlite.compiler.ir.core import Type

from ..support.gradients import central_differences

BACKENDS = ["llvm", "python"]
rng = np.random.default_rng(7)
X = rng.uniform(0.3, 6.0, (3, 4))           # positive arguments
ORDER = np.array([[0.5], [1.0], [2.5]])      # broadcast against X
P = rng.uniform(0.05, 0.95, (4,))            # probabilities


def _unary_functions(x):
    return (sc.i0(x), sc.i1(x), sc.j0(x), sc.j1(x), sc.y0(x), sc.y1(x), sc.gamma(x),
            sc.rgamma(x), sc.gammasgn(x - 3.0), sc.gamma(-x - 0.5))


def _binary_functions(v, x):
    return (sc.iv(v, x), sc.ive(v, -x), sc.jv(v, x), sc.jn(2, x), sc.yn(2, x),
            sc.gammainc(v, x), sc.gammaincc(v, x), sc.beta(v, x), sc.betaln(v, x),
            sc.stdtr(v, x - 3.0), sc.chdtr(v, x), sc.chdtrc(v, x), sc.pdtr(x, v),
            sc.pdtrc(x, v))


def _ternary_functions(a, b, p):
    return sc.betainc(a, b, p), sc.betaincc(a, b, p)


@pytest.mark.parametrize("backend", BACKENDS)
def test_values_are_scipys_with_broadcasting(backend):
    for fn, args in ((_unary_functions, (X,)), (_binary_functions, (ORDER, X)),
                     (_ternary_functions, (X, ORDER, P))):
        compiled = compiler.jit(fn, backend=backend)(*args)
        for c, e in zip(compiled, fn(*args), strict=True):
            assert c.shape == e.shape and c.dtype == e.dtype
            np.testing.assert_allclose(c, e, rtol=1e-15, atol=0)


def _numbers(v, x):
    return sc.iv(v, x) + sc.gamma(x) * sc.betainc(v, 2.0, 0.25) - sc.j1(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_numbers(backend):
    for v, x in ((0.5, 1.5), (2.0, 0.1), (4.5, 7.0)):
        assert compiler.jit(_numbers, backend=backend)(v, x) == pytest.approx(_numbers(v, x),
                                                                              rel=1e-15)


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_as_scipys_float32_loops(backend):
    """scipy computes most float32 loops in double and rounds; betainc's and stdtr's are
    float functions of their own; yn with an int order takes its 'ld->d' loop (float64)."""
    v, x, p = (a.astype(np.float32) for a in (ORDER, X, P))
    for fn, args in ((_unary_functions, (x,)), (_binary_functions, (v, x)),
                     (_ternary_functions, (x, v, p))):
        compiled = compiler.jit(fn, backend=backend)(*args)
        for k, (c, e) in enumerate(zip(compiled, fn(*args), strict=True)):
            yn = fn is _binary_functions and k == 4
            assert c.dtype == e.dtype == (np.float64 if yn else np.float32)
            np.testing.assert_array_equal(c, e)


def _edges(x):
    return sc.iv(0.5, x), sc.gamma(x), sc.rgamma(x), sc.gammainc(2.0, x), sc.j0(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_poles_infinities_and_nan_as_scipy(backend):
    x = np.array([0.0, -0.0, -1.0, -2.0, np.inf, -np.inf, np.nan, 1e-300, 180.0])
    with np.errstate(all="ignore"):
        expected = _edges(x)
    for c, e in zip(compiler.jit(_edges, backend=backend)(x), expected, strict=True):
        np.testing.assert_array_equal(c, e)


def _bessel_gamma(x, v):
    return np.sum(sc.iv(v, x) + sc.ive(v, x) * sc.jv(v, x) + sc.yn(2, x) * sc.i0(x)
                  + sc.i1(x) + sc.j0(x) * sc.j1(x) + sc.y0(x) - sc.y1(x) + sc.gamma(x)
                  + sc.rgamma(x) + sc.gammasgn(x) + sc.jn(3, x))


def _incomplete(x, a, b, p):
    return np.sum(sc.gammainc(a, x) - 2.0 * sc.gammaincc(a, x) + sc.beta(a, x)
                  + sc.betaln(x, b) + sc.betainc(a, b, p) * sc.betaincc(b, a, p)
                  + sc.stdtr(a, x - 2.0) + sc.chdtr(a, x) * sc.chdtrc(b, x)
                  + sc.pdtr(3.0, x) + sc.pdtrc(2.0, x))


INCOMPLETE = (X[0], X[1], X[2], P)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradients_against_central_differences(backend):
    v = ORDER[:, 0][:, None]
    bessel = compiler.grad(_bessel_gamma, backend=backend)(X, v)
    np.testing.assert_allclose(bessel, central_differences(_bessel_gamma, [X, v])[0],
                               rtol=1e-6, atol=1e-7)
    # a and b are also shape parameters of gammainc(c), betainc(c), stdtr, chdtr(c), which
    # have no derivative there (autograd's): see the refusal below
    compiled = compiler.grad(_incomplete, wrt=(0, 3), backend=backend)(*INCOMPLETE)
    differences = central_differences(_incomplete, list(INCOMPLETE))
    for c, d in zip(compiled, [differences[0], differences[3]], strict=True):
        np.testing.assert_allclose(c, d, rtol=1e-6, atol=1e-7)


def _orders(v, x):
    return np.sum(sc.iv(v, x) + sc.jv(v, x) + sc.yn(v, x) + sc.ive(v, x))


def test_orders_get_no_derivative_as_in_autograd():
    assert np.all(compiler.grad(_orders, wrt=0)(np.array([1.0, 2.0]), X[0, :2]) == 0.0)


def _shape_parameter(a, x):
    return sc.gammainc(a, x) + sc.betainc(2.0, a, 0.3)


def _x_only(x):
    return _shape_parameter(1.5, x)


def _parameter_from_x(x):
    return sc.gammainc(2.0 * x, x)


def test_both_modes_refuse_a_derivative_of_a_shape_parameter():
    with pytest.raises(NotImplementedError, match="gammainc is not differentiable with "
                       "respect to its argument a"):
        compiler.jvp(_shape_parameter, (1.5, 2.0), (1.0, 0.0))
    for wrt, fn in [(0, _shape_parameter), ((0, 1), _shape_parameter), (0, _parameter_from_x)]:
        with pytest.raises(NotImplementedError, match="is not differentiable with respect to "
                           r"its argument [ab] \(line \d+\)"):
            compiler.grad(fn, wrt=wrt)(*(1.5, 2.0)[:fn.__code__.co_argcount])
    # reverse mode, when the parameter does not depend on what is differentiated
    assert compiler.grad(_shape_parameter, wrt=1)(1.5, 2.0) == pytest.approx(
        np.exp(-2.0) * np.sqrt(2.0) / sc.gamma(1.5), rel=1e-14)
    value, tangent = compiler.jvp(_x_only, (2.0,), (1.0,))
    assert tangent == pytest.approx(np.exp(-2.0) * np.sqrt(2.0) / sc.gamma(1.5), rel=1e-14)


def _incomplete_in_x_and_p(x, p):
    return _incomplete(x, X[1], X[2], p)


def test_forward_mode_against_directional_differences():
    direction = rng.normal(size=X[0].shape)
    args = (X[0], P)
    value, tangent = compiler.jvp(_incomplete_in_x_and_p, args, (direction, 0.3 * direction))
    eps = 1e-6
    up = _incomplete_in_x_and_p(X[0] + eps * direction, P + 0.3 * eps * direction)
    down = _incomplete_in_x_and_p(X[0] - eps * direction, P - 0.3 * eps * direction)
    assert value == pytest.approx(_incomplete_in_x_and_p(*args), rel=1e-14)
    assert tangent == pytest.approx((up - down) / (2 * eps), rel=1e-6)


def _second_order(x):
    return np.sum(sc.iv(1.5, x) + sc.gamma(x) + sc.gammaln(x) + sc.gammainc(2.5, x))


def test_hessians_against_differences_of_the_gradient():
    x = X[0]
    hessian = compiler.hessian(_second_order)(x)
    gradient = compiler.grad(_second_order)
    differences = np.stack([central_differences(lambda y, k=k: gradient(y)[k], [x])[0]
                            for k in range(len(x))])
    np.testing.assert_allclose(hessian, differences, rtol=1e-6, atol=1e-7)


def _polygammas(x):
    return tuple(sc.polygamma(n, x) for n in range(6))


@pytest.mark.parametrize("backend", BACKENDS)
def test_polygamma_of_every_order_is_scipys(backend):
    x = np.concatenate([np.linspace(-7.7, 30.3, 301), [1e-3, 1e4, 0.0, -3.0, np.inf, np.nan,
                                                       -np.inf]])
    with np.errstate(all="ignore"):
        expected = _polygammas(x)
    for n, (c, e) in enumerate(zip(compiler.jit(_polygammas, backend=backend)(x), expected,
                                   strict=True)):
        assert c.dtype == np.float64
        np.testing.assert_allclose(c, e, rtol=1e-12 if n else 1e-13, atol=1e-14, err_msg=n)


def _gammaln_third(x):
    return np.sum(sc.polygamma(2, x) * x + sc.digamma(x))


def test_third_derivatives_of_gammaln_and_polygamma_gradients():
    x = np.array([0.4, 1.7, 5.5, 12.5])
    gradient = compiler.grad(_gammaln_third)(x)
    np.testing.assert_allclose(gradient, central_differences(_gammaln_third, [x])[0],
                               rtol=1e-6)
    third = compiler.hessian(lambda y: np.sum(sc.digamma(y)))(x)
    np.testing.assert_allclose(np.diag(third), sc.polygamma(2, x), rtol=1e-12)


def _array_order(n, x):
    return sc.polygamma(n[0], x)


def _negative_order(x):
    return sc.polygamma(-1, x)


def test_polygamma_refuses_orders_not_known_when_compiling_or_negative():
    with pytest.raises(AdliteSyntaxError, match="order"):
        compiler.jit(_array_order)(np.array([2]), 1.5)
    with pytest.raises(AdliteSyntaxError, match="integer n >= 0"):
        compiler.jit(_negative_order)(1.5)


def _kernel(x):
    return sc.iv(1.0, x) * 2.0


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_ahead_of_time_kernels_refuse_scipys_functions(tmp_path):
    with pytest.raises(AotError, match="scipy.special's C functions"):
        compile_aot(_kernel, tmp_path, [Type("f64", (3,))])


def test_cached_objects_from_another_process_bind_scipy_by_name(tmp_path):
    """Two fresh processes share a disk cache: the second loads the first's object code and
    must bind scipy's functions in its own address space."""
    code = ("import numpy as np, scipy.special as sc\n"
            "from adlite.compiler import jit\n"
            "from tests.library.test_scipy_special_functions import _numbers\n"
            "x = np.linspace(0.5, 3.0, 5)\n"
            "assert np.array_equal(jit(_numbers)(1.5, x), _numbers(1.5, x))\n")
    env = {**os.environ, "ADLITE_CACHE_DIR": str(tmp_path)}
    for _ in range(2):
        subprocess.run([sys.executable, "-c", code], check=True, env=env,
                       cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert any(p.suffix == ".o" for p in tmp_path.iterdir())


def _per_example(v, x):
    return sc.iv(v, x) * sc.polygamma(2, x) + sc.betainc(v, 2.0, 0.5)


def test_vmap_maps_the_functions_per_example():
    v, x = ORDER[:, 0], X[:, 0]
    np.testing.assert_allclose(compiler.vmap(_per_example)(v, x), _per_example(v, x),
                               rtol=1e-14)
