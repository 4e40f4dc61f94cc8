"""np.arcsinh / np.arccosh / np.arctanh and numpy's complex-number functions on real values
(np.real, np.imag, np.conj, np.angle, np.real_if_close, np.iscomplex, np.isreal,
np.iscomplexobj, np.isrealobj) in compiled code: values, dtypes and shapes equal numpy's on
both backends (edges: -0.0, NaN, infinities, outside the domain), reverse mode equals central
differences, forward mode directional differences, the Hessian of the arc-hyperbolics
differences of their derivatives, and the angle's derivative is autograd's zero."""

import numpy as np
import pytest

from adlite.compiler import grad, hessian, jit, jvp

from ..support.library_checks import BACKENDS, case_ids, case_tests, random_arrays

RNG = np.random.default_rng(2606)

arrays = random_arrays(RNG)


def inside(lo: float, hi: float, *shape) -> np.ndarray:
    return RNG.uniform(lo, hi, shape)


def arcsinh(x):
    return np.arcsinh(x)


def arccosh(x):
    return np.arccosh(x)


def arctanh(x):
    return np.arctanh(x)


def arc_mix(x, y):
    return np.arcsinh(x * y) + np.arctanh(np.tanh(x)) * np.arccosh(y * y + 1.5)


def real_parts(x):
    return np.real(x) * 2.0 + np.imag(x) + np.conj(x) * np.conjugate(x) + np.real_if_close(x)


def angle_plus(x):
    return np.angle(x) + np.angle(x, deg=True) + x


CASES = [
    (arcsinh, arrays(7)), (arcsinh, arrays((3, 4))), (arcsinh, (1.3,)),
    (arccosh, (inside(1.1, 4.0, 6),)), (arccosh, (inside(1.1, 4.0, 2, 3),)), (arccosh, (2.5,)),
    (arctanh, (inside(-0.9, 0.9, 5),)), (arctanh, (inside(-0.9, 0.9, 2, 2, 3),)),
    (arctanh, (-0.4,)),
    (arc_mix, (inside(-0.9, 0.9, 4), inside(0.5, 2.0, 4))),
    (real_parts, arrays(5)), (real_parts, arrays((2, 3))), (real_parts, (0.7,)),
    (angle_plus, arrays((3, 2))), (angle_plus, (-1.5,)),
]
IDS = case_ids(CASES)

test_values, test_gradients, test_forward = case_tests(CASES, IDS, rtol=1e-15, atol=0.0)

EDGES = np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 3.0, -7.0, 1e-300, 1e300, np.inf,
                  -np.inf, np.nan])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [arcsinh, arccosh, arctanh], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_arc_hyperbolics_at_edges_are_numpys(fn, dtype, backend):
    """NaN outside the domain, infinities at the poles, -0.0 kept, float32 stays float32;
    within 2 ulp of numpy's (libm's asinh, acosh, atanh; numpy has its own loops)."""
    x = EDGES.astype(dtype)
    with np.errstate(all="ignore"):
        expected = fn(x)
    got = jit(fn, backend=backend)(x)
    assert got.dtype == expected.dtype
    number = ~np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(got), ~number)
    np.testing.assert_array_max_ulp(got[number], expected[number], maxulp=2)
    np.testing.assert_array_equal(np.signbit(got[number]), np.signbit(expected[number]))


def arc_sum(x):
    return np.sum(np.arcsinh(x) + np.arccosh(x + 2.0) + np.arctanh(x / 2.0))


def arc_first_derivative(x):
    """The analytic gradient of `arc_sum` (elementwise)."""
    return 1 / np.sqrt(x * x + 1) + 1 / np.sqrt((x + 2.0) ** 2 - 1) + 0.5 / (1 - x * x / 4)


def test_arc_hyperbolics_second_order_equals_differences_of_their_derivatives():
    x = inside(-0.9, 0.9, 5)
    h = 1e-5
    second = (arc_first_derivative(x + h) - arc_first_derivative(x - h)) / (2 * h)
    np.testing.assert_allclose(hessian(arc_sum)(x), np.diag(second), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(grad(arc_sum)(x), arc_first_derivative(x), rtol=1e-14)


def ints_and_bools(n, m):
    return (np.real(n), np.imag(n), np.conj(n), np.angle(n), np.real_if_close(m),
            np.imag(m), np.angle(m))


@pytest.mark.parametrize("backend", BACKENDS)
def test_complex_functions_keep_numpys_dtypes_and_shapes(backend):
    n, m = np.array([3, -2, 0]), np.array([[True, False]])
    got, expected = jit(ints_and_bools, backend=backend)(n, m), ints_and_bools(n, m)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)
    x = np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, -2.0], dtype=np.float32)
    for fn in (np.real, np.imag, np.conj, np.angle, np.real_if_close):
        got = jit(lambda v, fn=fn: fn(v), backend=backend)(x)
        assert got.dtype == fn(x).dtype
        np.testing.assert_array_equal(got, fn(x))
        np.testing.assert_array_equal(np.signbit(got), np.signbit(fn(x)))


def kind_tests(x):
    return np.iscomplex(x), np.isreal(x), np.iscomplexobj(x), np.isrealobj(x)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [np.ones((2, 3)), 2.5, np.arange(4)], ids=["f64", "float", "i64"])
def test_iscomplex_isreal_and_their_obj_forms(x, backend):
    got, expected = jit(kind_tests, backend=backend)(x), kind_tests(x)
    for g, e in zip(got, expected, strict=True):
        assert np.shape(g) == np.shape(e) and np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(g, e)


def angle_sum(x):
    return np.sum(np.angle(x) * x)


def test_angle_derivative_is_zero_as_autograd_defines_it_for_real_input():
    """d/dx (angle(x) * x) = angle(x): nothing flows through the angle, not even at 0."""
    x = np.array([-1.5, 0.0, -0.0, 2.0])
    np.testing.assert_array_equal(grad(angle_sum)(x), np.angle(x))
    _, tangent = jvp(angle_sum, (x,), (np.ones(4),))
    assert tangent == pytest.approx(np.sum(np.angle(x)))


def conj_of_bools(m):
    return np.conj(m)


def test_conj_of_bools_is_refused_numpy_gives_int8():
    with pytest.raises(Exception, match="int8"):
        jit(conj_of_bools)(np.array([True]))


def real_is_the_argument(x):
    y = np.real(x)
    y[0] = 5.0
    return x


def test_np_real_is_the_same_array_object_as_numpys():
    x = np.arange(3.0)
    np.testing.assert_array_equal(jit(real_is_the_argument)(x.copy()),
                                  real_is_the_argument(x.copy()))
