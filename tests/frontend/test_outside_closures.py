"""Transformations of functions defined inside compiled code (autograd's nested `grad`s):
`grad`, `value_and_grad`, `hessian` and `grad(grad(...))` of nested defs and lambdas that
close over the enclosing function's values, also as decorators (`@grad` above a nested
`def`, `functools.wraps`). Values against plain Python with
autograd's meaning written out by hand, gradients of the enclosing function (through the
captured values) against central differences, forward mode against directional
differences, second order against second differences; and the refusals."""

import functools

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, hessian, jit, jvp, value_and_grad, vmap
from tests.support.gradients import central_differences, second_differences

BACKENDS = ["llvm", "python"]
RNG = np.random.default_rng(3)


def scope_ref(x):
    inner = lambda y: x * y  # noqa: E731 - a lambda, as autograd's tests write it
    return x * grad(inner)(2.0)


def scope_ref_plain(x):
    return x * x


def nested_tuple(x):
    def inner(y):
        return y[0] * y[1]
    return np.sum(np.sin(np.array(grad(inner)((x, x)))))


def nested_tuple_plain(x):
    return 2.0 * np.sin(x)


def captured_array(x):
    g = lambda y: np.exp(y) * np.tanh(x[0]) + np.sum(x * y)  # noqa: E731
    return grad(g)(x[1])


def captured_array_plain(x):
    return np.exp(x[1]) * np.tanh(x[0]) + np.sum(x)


def second_order_inside(x):
    def f(y):
        return np.sin(x * y) * y
    return grad(grad(f))(0.5) + hessian(f)(0.25)


def second_order_inside_plain(x):
    def d2(y):  # d^2/dy^2 of sin(x y) y
        return 2.0 * x * np.cos(x * y) - x * x * y * np.sin(x * y)
    return d2(0.5) + d2(0.25)


def value_and_gradient_inside(w):
    loss = lambda v: np.sum((v - w) ** 2) * w[0]  # noqa: E731
    value, g = value_and_grad(loss)(w * 2.0)
    return value + np.sum(g * g)


def value_and_gradient_inside_plain(w):
    v = w * 2.0
    return np.sum((v - w) ** 2) * w[0] + np.sum((2.0 * (v - w) * w[0]) ** 2)


def late_binding(x):
    scale = x
    f = lambda y: scale * y * y  # noqa: E731
    df = grad(f)
    scale = x * 3.0  # read when df is called, as Python's closures read it
    return df(1.5)


def late_binding_plain(x):
    return 3.0 * x * 2.0 * 1.5


SCALAR_CASES = [(scope_ref, scope_ref_plain), (nested_tuple, nested_tuple_plain),
                (second_order_inside, second_order_inside_plain),
                (late_binding, late_binding_plain)]
VECTOR_CASES = [(captured_array, captured_array_plain),
                (value_and_gradient_inside, value_and_gradient_inside_plain)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,plain", SCALAR_CASES, ids=[f.__name__ for f, _ in SCALAR_CASES])
def test_nested_transformations_of_numbers(fn, plain, backend):
    for _ in range(3):
        x = float(RNG.uniform(0.3, 1.5))
        assert jit(fn, backend=backend)(x) == pytest.approx(plain(x), rel=1e-12)
        assert grad(fn, backend=backend)(x) == pytest.approx(
            central_differences(plain, [x])[0], rel=1e-6, abs=1e-8)
        value, tangent = jvp(fn, (x,), (1.0,))
        assert tangent == pytest.approx(central_differences(plain, [x])[0], rel=1e-6,
                                        abs=1e-8)
        step = 1e-4
        second = (plain(x + step) - 2 * plain(x) + plain(x - step)) / step ** 2
        assert hessian(fn, backend=backend)(x) == pytest.approx(second, rel=1e-5, abs=1e-5)
        assert grad(grad(fn), backend=backend)(x) == pytest.approx(second, rel=1e-5, abs=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,plain", VECTOR_CASES, ids=[f.__name__ for f, _ in VECTOR_CASES])
def test_nested_transformations_of_arrays(fn, plain, backend):
    for n in (2, 4):
        x = RNG.uniform(0.2, 1.2, n)
        assert jit(fn, backend=backend)(x) == pytest.approx(plain(x), rel=1e-12)
        np.testing.assert_allclose(grad(fn, backend=backend)(x),
                                   central_differences(plain, [x])[0], rtol=1e-6, atol=1e-8)
        h = hessian(fn, backend=backend)(x)
        np.testing.assert_allclose(h, second_differences(plain, x), rtol=1e-5, atol=1e-5)
        d = RNG.standard_normal(n)
        eps = 1e-6
        _, tangent = jvp(fn, (x,), (d,))
        assert tangent == pytest.approx((plain(x + eps * d) - plain(x - eps * d)) / (2 * eps),
                                        rel=1e-6, abs=1e-7)


def rebinds(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v * x
        return total
    return grad(add)(1.0)


def mapped(x):
    return np.sum(vmap(lambda y: y * x)(np.ones(3)))


def reads_a_closure(x):
    h = lambda y: y * x  # noqa: E731
    return grad(lambda y: h(y) * y)(1.0)


@pytest.mark.parametrize("fn,words", [(rebinds, "nonlocal"), (mapped, "vmap"),
                                      (reads_a_closure, "reads 'h'")])
def test_refusals_name_the_line(fn, words):
    with pytest.raises(AdliteSyntaxError, match=words):
        jit(fn)(1.5)


def decorated(x):
    @grad
    def slope(y):
        return np.sin(x * y) * y

    @functools.wraps(slope)
    def doubled(y):
        return slope(y) * 2.0
    return doubled(0.5)


def decorated_plain(x):
    return 2.0 * (x * 0.5 * np.cos(x * 0.5) + np.sin(x * 0.5))


def decorated_twice(x):
    @hessian
    @functools.wraps(np.sin)
    def curvature(y):
        return np.sum(y ** 3) * x
    return np.sum(curvature(np.ones(2) * x))


def decorated_twice_plain(x):
    return 12.0 * x * x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,plain", [(decorated, decorated_plain),
                                      (decorated_twice, decorated_twice_plain)])
def test_decorated_nested_definitions(fn, plain, backend):
    for _ in range(2):
        x = float(RNG.uniform(0.3, 1.5))
        assert jit(fn, backend=backend)(x) == pytest.approx(plain(x), rel=1e-12)
        assert grad(fn, backend=backend)(x) == pytest.approx(
            central_differences(plain, [x])[0], rel=1e-6, abs=1e-8)


def unknown_decorator(x):
    @property
    def p(y):
        return y
    return x


def test_other_decorators_are_refused_at_their_line():
    with pytest.raises(AdliteSyntaxError, match="unsupported function 'property'") as e:
        jit(unknown_decorator)(1.0)
    assert "@property" in str(e.value)
