"""Per-op gradient tables over shapes (), (3,), (2, 3), (1, 3), (3, 1) with broadcasting:
compiled vs eager tape vs finite differences, plus second order through `grad(grad)`."""

import zlib

import numpy as np
import pytest

from adlite.compiler import grad, jit
from adlite.runtime import Tensor

from ..support.array_ops import AXIS_CASES, BINARY, UNARY

SHAPES = [(), (3,), (2, 3), (1, 3), (3, 1)]
PAIRS = [((), ()), ((3,), ()), ((), (2, 3)), ((3,), (2, 3)), ((1, 3), (3, 1)),
         ((2, 3), (1, 3)), ((3, 1), (3,))]


def make(kind, shape, rng):
    n = int(np.prod(shape))
    if kind == "p":
        v = rng.uniform(0.5, 2.0, n)
    elif kind == "z":
        v = rng.choice([-1.0, 1.0], n) * rng.uniform(0.5, 2.0, n)
    elif kind == "d":
        v = rng.permutation(n) * 0.7 - n * 0.3 + rng.uniform(-0.1, 0.1, n)
    else:
        v = rng.standard_normal(n)
    return float(v[0]) if shape == () else v.reshape(shape)


def eager(fn, args):
    ts = [Tensor(a, requires_grad=True) for a in args]
    out = fn(*ts)
    out.backward()
    return [t.grad.numpy() if np.ndim(a) else t.grad.item() for t, a in zip(ts, args,
                                                                          strict=True)]


def directional_fd(fn, args, directions, eps=1e-6):
    def at(step):
        return fn(*[np.float64(a + step * d) if np.ndim(a) == 0 else a + step * d
                    for a, d in zip(args, directions, strict=True)])
    return (at(eps) - at(-eps)) / (2 * eps)


def check(name, fn, args):
    wrt = tuple(range(len(args)))
    compiled = grad(fn, wrt=wrt)(*args)
    assert jit(fn)(*args) == pytest.approx(fn(*args), rel=1e-12, abs=1e-12)
    for c, e in zip(compiled, eager(fn, args), strict=True):
        np.testing.assert_allclose(c, e, rtol=1e-10, atol=1e-12, err_msg=name)
        assert np.shape(c) == np.shape(e)
    rng = np.random.default_rng(1)
    directions = [rng.standard_normal(np.shape(a)) for a in args]
    analytic = sum(float(np.sum(np.asarray(c) * d))
                   for c, d in zip(compiled, directions, strict=True))
    assert analytic == pytest.approx(directional_fd(fn, args, directions), rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name,fn,kind", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, fn, kind, shape):
    if name in ("op_max", "op_min") and shape == ():
        pytest.skip("reductions need arrays")
    rng = np.random.default_rng(zlib.crc32(f"{name}{shape}".encode()))
    check(name, fn, [make(kind, shape, rng)])


@pytest.mark.parametrize("shapes", PAIRS, ids=str)
@pytest.mark.parametrize("name,fn,kx,ky", BINARY, ids=[b[0] for b in BINARY])
def test_binary_broadcasting(name, fn, kx, ky, shapes):
    rng = np.random.default_rng(zlib.crc32(f"{name}{shapes}".encode()))
    check(name, fn, [make(kx, shapes[0], rng), make(ky, shapes[1], rng)])


def test_second_order_of_array_code():
    from ..support import array_second_order as so

    x = np.array([0.3, -0.7, 1.1])
    hvp = grad(so.directional_first_derivative)(x)
    # d/dx <grad f(x), v> = H v, with f = sum(sin(x) * x^2): H is diagonal
    h = -np.sin(x) * x ** 2 + 4 * x * np.cos(x) + 2 * np.sin(x)
    np.testing.assert_allclose(hvp, h * so.V, rtol=1e-12)


@pytest.mark.parametrize("name,fn", AXIS_CASES, ids=[c[0] for c in AXIS_CASES])
def test_reductions_with_axes_and_shapes(name, fn):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    x = rng.permutation(6).reshape(2, 3) * 0.4 - 1.0 + rng.uniform(-0.05, 0.05, (2, 3))
    check(name, fn, [x])


def test_float32_arrays_stay_float32():
    from ..support.array_ops import op_scalar_broadcast, op_tanh

    x32 = np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(2, 3)
    for fn in (op_tanh, op_scalar_broadcast):
        value = jit(fn)(x32)
        g = grad(fn)(x32)
        assert g.dtype == np.float32 and g.shape == x32.shape
        g64 = grad(fn)(x32.astype(np.float64))
        np.testing.assert_allclose(g, g64, rtol=1e-5, atol=1e-6)
        assert value == pytest.approx(fn(x32.astype(np.float64)), rel=1e-5)


def test_array_errors_point_at_the_source():
    from adlite.compiler import AdliteSyntaxError

    from ..support import array_errors as ae

    with pytest.raises(AdliteSyntaxError, match="cannot be broadcast together"):
        jit(ae.bad_broadcast)(np.ones(3), np.ones(4))
    # an int argument sizing an array is specialised on its value (issue 10)
    assert jit(ae.runtime_shape)(np.ones(3), 4) == ae.runtime_shape(np.ones(3), 4)
    with pytest.raises(AdliteSyntaxError, match="changes shape"):
        jit(ae.shape_changes_in_loop)(np.ones(3))
    with pytest.raises(TypeError, match="float64, float32, int64 or bool"):
        jit(ae.bad_broadcast)(np.ones(3, dtype=np.int32), np.ones(3))
    with pytest.raises(IndexError):
        jit(ae.runtime_index)(np.ones(3), 5)


def make_second_order(fn):
    """x -> <grad fn(x), sin(x)>, whose gradient needs the derivative of the adjoint code."""
    first = grad(fn)

    def second(x):
        return np.sum(first(x) * np.sin(x))

    return second


@pytest.mark.parametrize("shape", [(3,), (2, 3)], ids=str)
@pytest.mark.parametrize("name,fn,kind", UNARY, ids=[u[0] for u in UNARY])
def test_unary_second_order(name, fn, kind, shape):
    rng = np.random.default_rng(zlib.crc32(f"second{name}{shape}".encode()))
    x = make(kind, shape, rng)
    second = make_second_order(fn)
    g2 = grad(second)(x)
    u = rng.standard_normal(shape)
    value = jit(second)
    eps = 1e-6
    numeric = (value(x + eps * u) - value(x - eps * u)) / (2 * eps)
    assert float(np.sum(g2 * u)) == pytest.approx(numeric, rel=1e-5, abs=1e-6), name
