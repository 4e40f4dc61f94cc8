"""Entry values specialised on demand, and calls written as Python allows.

- A bool parameter choosing between values of different shapes, an int parameter giving the
  trip count of a loop that must be unrolled, and a float parameter sizing an array compile
  once per value (as JAX's static arguments, without marking them); other calls stay runtime.
- `f(**options)` passes a dict's items as keywords; tuple (list-argument) slices.
- A loop that only rebinds a name bound to an argument array does not write the argument.
Expected values come from running the plain Python function, gradients from central finite
differences.
"""

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, jit

BACKENDS = ["llvm", "python"]


def _central(fn, args, i, eps=1e-6, **kwargs):
    up, down = list(args), list(args)
    up[i] = up[i] + eps
    down[i] = down[i] - eps
    return (fn(*up, **kwargs) - fn(*down, **kwargs)) / (2 * eps)


def antithetic_mean(x, antithetic=True):
    z = x
    if antithetic:
        z = np.concatenate([x, -x])
    return np.mean(np.exp(0.1 * z))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_bool_flag_choosing_a_shape_compiles_once_per_value(backend):
    x = np.linspace(-1.0, 1.0, 5)
    f = jit(antithetic_mean, backend=backend)
    for flag in (True, False, True):
        assert f(x, antithetic=flag) == pytest.approx(antithetic_mean(x, flag), rel=1e-14)
    assert f.compile_count == 2
    g = grad(antithetic_mean, backend=backend)(x, antithetic=False)
    h = 1e-6
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = h
        fd = (antithetic_mean(x + e, False) - antithetic_mean(x - e, False)) / (2 * h)
        assert g[k] == pytest.approx(fd, rel=1e-6)


def shrinking(prices, steps, u=1.1):
    values = prices * 1.0
    for _ in range(steps):
        values = 0.5 * (values[:-1] + values[1:]) * u  # one shorter per trip: unrolled
    return values[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_int_trip_count_of_an_unrolled_loop_compiles_once_per_value(backend):
    prices = np.linspace(1.0, 2.0, 8)
    f = jit(shrinking, backend=backend)
    for steps in (3, 5, 3):
        assert f(prices, steps) == pytest.approx(shrinking(prices, steps), rel=1e-14)
    assert f.compile_count == 2
    assert grad(shrinking, wrt="u", backend=backend)(prices, 4, u=1.2) == pytest.approx(
        _central(lambda u: shrinking(prices, 4, u), [1.2], 0), rel=1e-7)


def integrate_grid(rate, days=10, dt=0.5):
    t = np.arange(0, days + dt, dt)
    return np.sum(np.exp(-rate * t)) * dt


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_float_sizing_an_array_is_specialised(backend):
    f = jit(integrate_grid, backend=backend)
    assert f(0.3) == pytest.approx(integrate_grid(0.3), rel=1e-14)
    assert f(0.3, dt=0.25) == pytest.approx(integrate_grid(0.3, dt=0.25), rel=1e-14)
    assert grad(integrate_grid, backend=backend)(0.3, days=8) == pytest.approx(
        _central(integrate_grid, [0.3], 0, days=8), rel=1e-7)


def scale_and_shift(x, scale=1.0, shift=0.0):
    return scale * x + shift


def with_options(x, **options):
    return scale_and_shift(x, **options) * scale_and_shift(x, **{"shift": 1.0})


@pytest.mark.parametrize("backend", BACKENDS)
def test_double_star_dict_in_calls(backend):
    assert jit(with_options, backend=backend)(2.0, scale=3.0) == with_options(2.0, scale=3.0)
    assert grad(with_options, backend=backend)(2.0, scale=3.0, shift=0.5) == pytest.approx(
        _central(with_options, [2.0], 0, scale=3.0, shift=0.5), rel=1e-7)


def repeated_keyword(x):
    return scale_and_shift(x, scale=2.0, **{"scale": 3.0})


def test_a_keyword_given_twice_is_refused_at_the_call():
    with pytest.raises(AdliteSyntaxError, match="multiple values for keyword argument 'scale'"):
        jit(repeated_keyword)(1.0)


def layers_loss(params, x):
    for W, b in params[:-1]:
        x = np.tanh(x @ W + b)
    W, b = params[-1]
    return np.sum((x @ W + b) ** 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_slices_of_a_list_argument(backend):
    rng = np.random.default_rng(3)
    params = [(rng.normal(size=(3, 4)), rng.normal(size=4)),
              (rng.normal(size=(4, 2)), rng.normal(size=2)),
              (rng.normal(size=(2, 1)), rng.normal(size=1))]
    x = rng.normal(size=(5, 3))
    assert jit(layers_loss, backend=backend)(params, x) == pytest.approx(
        layers_loss(params, x), rel=1e-13)
    g = grad(layers_loss, backend=backend)(params, x)
    W0 = params[0][0]
    h = 1e-6
    for k in range(W0.size):
        up, down = W0.copy(), W0.copy()
        up.flat[k] += h
        down.flat[k] -= h
        fd = (layers_loss([(up, params[0][1])] + params[1:], x)
              - layers_loss([(down, params[0][1])] + params[1:], x)) / (2 * h)
        assert g[0][0].flat[k] == pytest.approx(fd, rel=1e-6, abs=1e-9)


def only_rebinds(x, n):
    y = x
    i = 0
    while i < n:
        y = 0.5 * y
        i += 1
    return np.sum(y)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_loop_that_only_rebinds_an_argument_does_not_write_it(backend):
    x = np.arange(4.0)
    x.flags.writeable = False  # a write-back would raise
    assert jit(only_rebinds, backend=backend)(x, 3) == only_rebinds(x, 3)
