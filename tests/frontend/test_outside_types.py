"""Constructs of programs written by others (autograd's test suite): `type(x)`, 0-d arrays as
arguments and outside values, the truth of a list, and the tangent of an int or bool result.
Values against Python's and numpy's on both backends, gradients against central differences
and the eager tape, forward mode against directional differences, Hessians against second
differences."""

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, hessian, jit, jvp, value_and_grad
from tests.support.gradients import central_differences, check_modes, second_differences

BACKENDS = ["llvm", "python"]
RNG = np.random.default_rng(11)
SCALE = np.array(1.5)  # a module-level 0-d array: read at every call, as a number
BOXES = (list, dict)


# ---- type(x) -----------------------------------------------------------------------------

def dispatch_on_type(x, y):
    if type(x) is np.ndarray and type(y) in (float, np.float64):
        return np.sum(x * y)
    return np.sum(x) + 1.0


def not_a_box(x):
    return x * 2.0 if type(x) not in BOXES else x


def converts_with_its_type(x):
    return type(x)(3) * x + type(x)(True)


def type_across_an_if(x):
    kind = type(x)
    if x > 0.0:
        kind = type(x * 2.0)
    return kind(3) * x


def type_of_a_tuple(x):
    return x[0] if type(x) is tuple else x[1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_type_is_a_compile_time_class(backend):
    for shape in [(3,), (2, 3)]:
        x = RNG.standard_normal(shape)
        y = float(RNG.standard_normal())
        assert jit(dispatch_on_type, backend=backend)(x, y) == pytest.approx(
            dispatch_on_type(x, y), rel=1e-12)
        np.testing.assert_allclose(grad(dispatch_on_type, backend=backend)(x, y),
                                   central_differences(lambda a, y=y: dispatch_on_type(a, y),
                                                       [x])[0], rtol=1e-6, atol=1e-8)
    for fn in (not_a_box, converts_with_its_type, type_across_an_if):
        for _ in range(2):
            check_modes(fn, (float(RNG.standard_normal()),), backend)
    pair = (2.5, 1.0)  # a tuple (central differences would pass an array: another type)
    assert jit(type_of_a_tuple, backend=backend)(pair) == type_of_a_tuple(pair)
    assert grad(type_of_a_tuple, backend=backend)(pair) == (1.0, 0.0)


def asks_float(x):
    return 1.0 if type(x) == float else 2.0  # noqa: E721 - the question under test


def test_type_of_a_number_refused_where_python_and_numpy_scalars_differ():
    with pytest.raises(AdliteSyntaxError, match="Python or a numpy scalar") as e:
        jit(asks_float)(1.5)
    assert "type(x) == float" in str(e.value)


# ---- 0-d arrays ----------------------------------------------------------------------------

def zero_d_arithmetic(x, y):
    return np.sin(x) * y + x * x


def returns_it(x):
    return x


def zero_d_in_containers(p):
    return p[0] * np.sum(np.cos(p[1])) + p[0] ** 2


def zero_d_is_an_array(x):
    return 1.0 if isinstance(x, np.ndarray) and type(x) is np.ndarray else 0.0


def scaled(x):
    return SCALE * np.sum(x * x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_d_array_arguments(backend):
    for _ in range(3):
        x, y = np.array(RNG.standard_normal()), np.array(RNG.standard_normal())
        assert jit(zero_d_arithmetic, backend=backend)(x, y) == pytest.approx(
            zero_d_arithmetic(x, y), rel=1e-12)
        gx, gy = grad(zero_d_arithmetic, (0, 1), backend=backend)(x, y)
        expected = central_differences(zero_d_arithmetic, [x, y])
        for g, e in zip((gx, gy), expected, strict=True):
            assert isinstance(g, np.ndarray) and g.shape == ()  # as autograd gives
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)
        h = hessian(zero_d_arithmetic, backend=backend)(x, y)
        step = 1e-4
        second = (zero_d_arithmetic(x + step, y) - 2 * zero_d_arithmetic(x, y) +
                  zero_d_arithmetic(x - step, y)) / step ** 2
        assert np.shape(h) == () and float(h) == pytest.approx(second, rel=1e-5, abs=1e-6)
        value, tangent = jvp(zero_d_arithmetic, (x, y), (1.0, 0.0))
        assert value == pytest.approx(zero_d_arithmetic(x, y), rel=1e-12)
        assert tangent == pytest.approx(float(gx), rel=1e-12)
    x = np.array(0.25)
    out = jit(returns_it, backend=backend)(x)
    assert isinstance(out, np.ndarray) and out.shape == () and out == x
    assert jit(zero_d_is_an_array, backend=backend)(x) == 1.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_d_arrays_inside_lists_and_outside_values(backend):
    p = [np.array(0.75), RNG.standard_normal((2, 1))]
    assert jit(zero_d_in_containers, backend=backend)(p) == pytest.approx(
        zero_d_in_containers(p), rel=1e-12)
    g = grad(zero_d_in_containers, backend=backend)(p)
    assert isinstance(g, list) and np.shape(g[0]) == () and isinstance(g[0], np.ndarray)
    expected = central_differences(lambda a, b: zero_d_in_containers([a, b]), p)
    for a, e in zip(g, expected, strict=True):
        np.testing.assert_allclose(a, e, rtol=1e-6, atol=1e-8)
    x = RNG.standard_normal(4)
    check_modes(scaled, (x,), backend)
    global SCALE
    before, SCALE = SCALE, np.array(-2.0)
    try:
        assert jit(scaled, backend=backend)(x) == pytest.approx(scaled(x), rel=1e-12)
    finally:
        SCALE = before


def writes_into_it(x):
    x += 1.0
    return x


def test_writing_into_a_zero_d_argument_is_refused():
    with pytest.raises(AdliteSyntaxError, match="0-d array argument"):
        jit(writes_into_it)(np.array(1.0))


# ---- the truth of a list; int and bool results in forward mode ----------------------------

def empty_list_is_false(x, flag):
    found = []
    if flag == "keep":  # a compile-time string
        found = [x]
    return 1.0 * x if found else 2.0 * x


def list_grown_at_run_time(x, n):
    xs = []
    i = 0
    while i < n:
        xs.append(x * i)
        i += 1
    return np.sum(np.array(xs)) if xs else -x


@pytest.mark.parametrize("backend", BACKENDS)
def test_truth_of_a_list_is_its_non_emptiness(backend):
    for flag in ("drop", "keep"):
        check_modes(empty_list_is_false, (1.25, flag), backend, tape=False)
    for n in (0, 1, 3):
        assert jit(list_grown_at_run_time, backend=backend)(1.5, n) == \
            list_grown_at_run_time(1.5, n)


def comparisons(x):
    return x > 1.0, np.sum(x) * 2.0, np.argmax(x)


def test_tangent_of_int_and_bool_results_is_float_zero():
    x, d = np.array([0.5, 2.0]), np.array([1.0, -1.0])
    value, tangent = jvp(comparisons, (x,), (d,))
    for v, e in zip(value, comparisons(x), strict=True):
        np.testing.assert_array_equal(v, e)
    assert tangent[0].dtype == np.float64 and tangent[0].shape == (2,)
    assert not tangent[0].any() and tangent[2] == 0.0
    assert tangent[1] == pytest.approx(2.0 * np.sum(d), rel=1e-12)
    assert jvp(lambda y: y > 1.0, (2.0,), (1.0,)) == (True, 0.0)


# ---- gradients of a result of one element ---------------------------------------------------

def summed_keepdims(x):
    return np.sum(np.sin(x) * x, keepdims=True)


def summed_along_axis(x):
    return np.sum(x ** 3, axis=1)


def two_elements(x):
    return x[:2] * 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_grad_of_a_one_element_result_is_that_of_its_number(backend):
    for fn, shape in [(summed_keepdims, (3, 3)), (summed_keepdims, (4,)),
                      (summed_along_axis, (1, 3))]:
        x = RNG.standard_normal(shape)
        number = lambda a, fn=fn: float(np.reshape(fn(a), ()))  # noqa: E731
        g = grad(fn, backend=backend)(x)
        np.testing.assert_allclose(g, central_differences(number, [x])[0], rtol=1e-6,
                                   atol=1e-8)
        value, g2 = value_and_grad(fn, backend=backend)(x)
        assert value.shape == fn(x).shape
        np.testing.assert_allclose(value, fn(x), rtol=1e-12)
        np.testing.assert_array_equal(g, g2)
        h = hessian(fn, backend=backend)(x)
        np.testing.assert_allclose(np.reshape(h, (x.size, x.size)),
                                   second_differences(number, x), rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="must return one float"):
        grad(two_elements, backend=backend)(np.ones(3))

