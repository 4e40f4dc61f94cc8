"""Differentiated int and float parameters that the function needs when compiling (an array
length, `np.arange(0.0, T, dt)`, a trip count that must be unrolled, a flag choosing shapes):
specialised per value as under `jit`, and still differentiated through their arithmetic, in
`grad`, `value_and_grad`, `vjp`, `jvp` and `hessian`. The derivative through the size itself
is zero (piecewise constant): central differences at points away from a jump of the length
agree, and so does the eager tape where it can run the function. Each value compiles once.
"""

import logging

import numpy as np
import pytest

from adlite.compiler import grad, hessian, jit, jvp, value_and_grad, vjp
from tests.support.gradients import central_difference_in, eager_gradient

BACKENDS = ["llvm", "python"]


def integrated(T, dt):
    t = np.arange(0.0, T, dt)
    return np.sum(np.sin(t) * dt) * T


def sized_by_float(n, x):
    return np.sum(np.zeros(int(n)) + x * n) * n


def stepped(T, dt):
    y = 0.0
    for i in range(int(T / dt)):
        y = y + np.sin(i * dt) * dt * T
    return y


def unrolled(T, dt):
    xs = []
    for i in range(int(T / dt)):  # a list in the body: unrolled, its trip count known
        xs.append(np.sin(i * dt) * T)
    return sum(xs)


def shape_flag(T, x):
    y = x
    if T > 2.0:
        y = np.concatenate([x, x * T])
    return np.sum(y * y) * T


def int_size(n, x):
    return np.sum(np.arange(n) * x) * n


def only_a_size(n, x):
    return np.sum(np.zeros(n) + x)


def _fd(fn, args, wrt):
    return [central_difference_in(fn, args, i) for i in wrt]


@pytest.mark.parametrize("backend", BACKENDS)
def test_grad_through_arange_compiles_once_per_value(backend):
    g = grad(integrated, wrt=(0, 1), backend=backend)
    points = [(3.05, 0.1), (2.55, 0.1), (3.05, 0.1), (4.05, 0.1), (2.55, 0.1), (3.05, 0.07)]
    for T, dt in points:  # lengths 31, 26, 41, 44: no jump within the differences' steps
        np.testing.assert_allclose(g(T, dt), _fd(integrated, (T, dt), (0, 1)), rtol=1e-6)
    assert g.compile_count == len(set(points))


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_other_reverse_and_forward_transformations(backend):
    T, dt = 3.05, 0.1
    expected = _fd(integrated, (T, dt), (0, 1))
    value, dT = value_and_grad(integrated, backend=backend)(T, dt)
    assert value == pytest.approx(integrated(T, dt), rel=1e-13)
    assert dT == pytest.approx(expected[0], rel=1e-6)
    out, pullback = vjp(integrated, T, dt)
    assert out == pytest.approx(integrated(T, dt), rel=1e-13)
    np.testing.assert_allclose(pullback(1.0), expected, rtol=1e-6)
    out, tangent = jvp(integrated, (T, dt), (0.5, -2.0))
    assert tangent == pytest.approx(0.5 * expected[0] - 2.0 * expected[1], rel=1e-6)
    h = 1e-4
    second = (central_difference_in(integrated, (T, dt + h), 1)
              - central_difference_in(integrated, (T, dt - h), 1)) / (2 * h)
    assert hessian(integrated, wrt=1, backend=backend)(T, dt) == pytest.approx(second, rel=1e-4)


@pytest.mark.parametrize("fn, args", [(sized_by_float, (4.5, 2.0)), (stepped, (1.05, 0.1)),
                                      (unrolled, (1.05, 0.1)), (shape_flag, (2.5, np.ones(3))),
                                      (shape_flag, (1.5, np.ones(3)))],
                         ids=["zeros-int", "range-loop", "unrolled", "flag-true", "flag-false"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_sizes_trip_counts_and_flags_from_differentiated_floats(fn, args, backend):
    assert jit(fn, backend=backend)(*args) == pytest.approx(fn(*args), rel=1e-13)
    got = grad(fn, wrt=(0, 1), backend=backend)(*args)
    expected = _fd(fn, args, (0, 1))
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("fn, args", [(sized_by_float, (4.5, 2.0)), (stepped, (1.05, 0.1))])
def test_the_eager_tape_agrees(fn, args):
    np.testing.assert_allclose(grad(fn, wrt=(0, 1))(*args), eager_gradient(fn, args, (0, 1)),
                               rtol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_int_differentiated_is_a_float_whose_value_sizes_like_python(backend):
    g = grad(int_size, wrt=(0, 1), backend=backend)
    for n, x in [(4, 2.0), (6, -1.5), (4, 3.0)]:
        # d/dn of sum(arange(n) * x) * n with the length fixed: sum(arange(n) * x)
        dn, dx = g(n, x)
        assert dn == pytest.approx(x * n * (n - 1) / 2, rel=1e-14)
        assert dx == pytest.approx(n * n * (n - 1) / 2, rel=1e-14)
    assert g.compile_count == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_parameter_used_only_for_a_size_has_gradient_zero(backend):
    assert grad(only_a_size, wrt=(0, 1), backend=backend)(3, 2.0) == (0.0, 3.0)


def test_the_specialisation_is_logged(caplog):
    with caplog.at_level(logging.INFO, logger="adlite.compile"):
        grad(integrated)(2.05, 0.1)
    text = caplog.text
    assert "T made compile-time (T: still differentiated" in text
    assert "np.arange(0.0, T, dt)" in text
