"""`scipy.special.logsumexp` with `b=` run-time weights: values as scipy's (b broadcast against
a, `axis`, `keepdims`, `return_sign`, zero weights dropping their elements, NaN for a negative
sum without `return_sign`, -inf for an empty sum), and gradients w.r.t. both `a` and `b`
against central differences of scipy's function, in `jit` and `grad` on both backends."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adlite.compiler import AdliteSyntaxError, grad, jit
from tests.support.gradients import central_difference_in

scipy_special = pytest.importorskip("scipy.special")
logsumexp = scipy_special.logsumexp

BACKENDS = ["llvm", "python"]


def weighted(a, w):
    return logsumexp(a, b=w)


def weighted_rows(a, w):
    return logsumexp(a, 1, w)


def weighted_kept(a, w):
    return logsumexp(a, axis=0, b=w, keepdims=True)


def weighted_axes(a, w):
    return logsumexp(a, axis=(0, 2), b=w)


def signed(a, w):
    return logsumexp(a, axis=-1, b=w, return_sign=True)


def signed_all(a, w):
    return logsumexp(a, b=w, return_sign=True)


def scaled_by_number(a, s):
    return logsumexp(a, axis=0, b=s)


# (function, shape of a, shape of b): b broadcasts against a, either way
CASES = [(weighted, (5,), (5,)), (weighted, (3, 4), (4,)), (weighted, (4,), (2, 4)),
         (weighted_rows, (3, 4), (3, 1)), (weighted_kept, (3, 4), (3, 4)),
         (weighted_axes, (2, 3, 4), (3, 1)), (scaled_by_number, (3, 2), ())]


def _arguments(rng, a_shape, b_shape, low=0.3):
    a = rng.normal(scale=3.0, size=a_shape)
    b = rng.uniform(low, 2.0, size=b_shape)
    return a, (float(b) if b_shape == () else b)


@pytest.mark.parametrize("fn, a_shape, b_shape", CASES,
                         ids=[f"{f.__name__}-{a}-{b}" for f, a, b in CASES])
@pytest.mark.parametrize("backend", BACKENDS)
def test_values_and_gradients_match_scipy(fn, a_shape, b_shape, backend):
    rng = np.random.default_rng(7)
    f, g = jit(fn, backend=backend), grad(lambda a, w: np.sum(fn(a, w)), wrt=(0, 1),
                                          backend=backend)
    loss = lambda a, w: float(np.sum(fn(a, w)))  # noqa: E731
    for _ in range(3):
        a, b = _arguments(rng, a_shape, b_shape)
        np.testing.assert_allclose(f(a, b), fn(a, b), rtol=1e-13, atol=1e-14)
        ga, gb = g(a, b)
        np.testing.assert_allclose(ga, central_difference_in(loss, (a, b), 0), rtol=1e-6,
                                   atol=1e-8)
        np.testing.assert_allclose(gb, central_difference_in(loss, (a, b), 1), rtol=1e-6,
                                   atol=1e-8)


@pytest.mark.parametrize("fn", [signed, signed_all])
@pytest.mark.parametrize("backend", BACKENDS)
def test_return_sign_with_weights_of_both_signs(fn, backend):
    rng = np.random.default_rng(3)
    f = jit(fn, backend=backend)
    for _ in range(4):
        a, b = rng.normal(size=(3, 5)), rng.normal(size=(3, 5))
        magnitude, sign = f(a, b)
        expected_magnitude, expected_sign = fn(a, b)
        np.testing.assert_allclose(magnitude, expected_magnitude, rtol=1e-12)
        np.testing.assert_array_equal(sign, expected_sign)
    with np.errstate(divide="ignore"):
        magnitude, sign = f(np.zeros((1, 2)), np.array([[1.0, -1.0]]))  # the sum is 0
    assert (magnitude, sign) == (-np.inf, 0.0) == tuple(fn(np.zeros((1, 2)),
                                                           np.array([[1.0, -1.0]])))


def test_gradient_of_the_magnitude_with_negative_weights():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=6), rng.normal(size=6)

    def magnitude(a, w):
        return logsumexp(a, b=w, return_sign=True)[0]

    ga, gb = grad(magnitude, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(ga, central_difference_in(magnitude, (a, b), 0), rtol=1e-6)
    np.testing.assert_allclose(gb, central_difference_in(magnitude, (a, b), 1), rtol=1e-6)


EDGES = [
    ("negative sum", [0.0, 1.0], [1.0, -1.0]),
    ("all -inf", [-np.inf, -np.inf], [1.0, 2.0]),
    ("zero weights drop inf and nan", [1.0, np.inf, np.nan, 2.0], [1.0, 0.0, 0.0, 3.0]),
    ("all weights zero", [1.0, 2.0], [0.0, 0.0]),
    ("inf kept", [1.0, np.inf], [1.0, 2.0]),
    ("nan kept", [1.0, np.nan], [1.0, 2.0]),
    ("negative weight at inf", [1.0, np.inf], [1.0, -2.0]),
    ("a zero weight far above the rest", [0.0, 1000.0, 1.0], [1.0, 0.0, 2.0]),
]


@pytest.mark.parametrize("a, b", [(a, b) for _, a, b in EDGES], ids=[n for n, _, _ in EDGES])
@pytest.mark.parametrize("backend", BACKENDS)
def test_edge_values_are_scipys(a, b, backend):
    a, b = np.array(a), np.array(b)
    with np.errstate(all="ignore"):
        expected = weighted(a, b)
        expected_signed = signed(a, b)
    np.testing.assert_allclose(jit(weighted, backend=backend)(a, b), expected, rtol=1e-14)
    got = jit(signed, backend=backend)(a, b)
    np.testing.assert_allclose(got[0], expected_signed[0], rtol=1e-14)
    np.testing.assert_array_equal(got[1], expected_signed[1])


def test_zero_weights_keep_their_derivative_wrt_b():
    a, b = np.array([0.0, 1.0, 2.0]), np.array([1.0, 0.0, 2.0])
    ga, gb = grad(weighted, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(ga, central_difference_in(weighted, (a, b), 0), rtol=1e-6,
                               atol=1e-9)
    np.testing.assert_allclose(gb, central_difference_in(weighted, (a, b), 1), rtol=1e-6)


def test_shapes_that_do_not_broadcast_are_refused():
    with pytest.raises(ValueError):
        weighted(np.ones(3), np.ones(4))
    with pytest.raises(AdliteSyntaxError, match="cannot be broadcast") as e:
        jit(weighted)(np.ones(3), np.ones(4))
    assert "logsumexp(a, b=w)" in str(e.value)  # the user's line


def rows_total(a, w):
    return np.sum(logsumexp(a, 1, w))


_jit_rows, _grad_rows = jit(weighted_rows), grad(rows_total, wrt=(0, 1))
finite = st.floats(-30.0, 30.0, allow_nan=False)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(finite, min_size=8, max_size=8), st.lists(st.floats(0.1, 5.0), min_size=8,
                                                          max_size=8))
def test_random_inputs(a, b):
    a, b = np.array(a).reshape(2, 4), np.array(b).reshape(2, 4)
    np.testing.assert_allclose(_jit_rows(a, b), weighted_rows(a, b), rtol=1e-12)
    ga, gb = _grad_rows(a, b)
    np.testing.assert_allclose(ga, central_difference_in(rows_total, (a, b), 0), rtol=1e-5,
                               atol=1e-7)
    np.testing.assert_allclose(gb, central_difference_in(rows_total, (a, b), 1), rtol=1e-5,
                               atol=1e-7)


def kept_of_a_number(a):
    return logsumexp(a, keepdims=True)


@pytest.mark.parametrize("backend", ["llvm", "python"])
def test_a_number_with_keepdims_has_scipys_shape(backend):
    """scipy gives `logsumexp(1.1, keepdims=True)` the shape (1,) (found by autograd's suite
    through make conformance: compiled code returned a float)."""
    got, want = jit(kept_of_a_number, backend=backend)(1.1), kept_of_a_number(1.1)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-15)
