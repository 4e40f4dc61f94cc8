"""`np.linalg` on stacks of matrices (arrays of more than two dimensions), as numpy applies
each function to every matrix of the stack (issue 26: autograd's suite uses them).

Compiled values on both backends against numpy on stacks of several shapes (broadcast
leading dimensions included), gradients against central differences and the eager tape,
forward mode against directional differences, and numpy's error for leading dimensions that
do not broadcast.
"""

from __future__ import annotations

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, jit, jvp
from adlite.runtime import tensor

RNG = np.random.default_rng(12)
RHS = RNG.normal(size=(2, 1, 3, 2))
VECTOR = RNG.normal(size=3)


def inverse(a):
    return np.linalg.inv(a)


def determinant(a):
    return np.linalg.det(a)


def log_determinant(a):
    return np.linalg.slogdet(a)[1]


def solved(a):
    return np.linalg.solve(a, RHS)


def solved_vector(a):
    return np.linalg.solve(a, VECTOR)


def cholesky_of_gram(a):
    return np.linalg.cholesky(a @ np.swapaxes(a, -1, -2) + np.eye(3))


def eigenvalues_of_gram(a):
    return np.linalg.eigvalsh(a @ np.swapaxes(a, -1, -2))


def singular_values(a):
    return np.linalg.svd(a, compute_uv=False)


def pseudo_inverse(a):
    return np.linalg.pinv(a)


def nuclear_norms(a):
    return np.linalg.norm(a, ord="nuc", axis=(0, 1))


def spectral_norms(a):
    return np.linalg.norm(a, ord=2, axis=(-1, -2), keepdims=True)


def smallest_singular_values(a):
    return np.linalg.norm(a, ord=-2, axis=(2, 0))


PROGRAMS = [inverse, determinant, log_determinant, solved, solved_vector, cholesky_of_gram,
            eigenvalues_of_gram, singular_values, pseudo_inverse, nuclear_norms,
            spectral_norms, smallest_singular_values]
IDS = [f.__name__ for f in PROGRAMS]
SHAPES = [(2, 3, 3), (2, 4, 3, 3), (1, 3, 3)]


def _stack(shape):
    return RNG.normal(size=shape) + 3.0 * np.eye(shape[-1])


def _loss(fn):
    return lambda a: np.sum(np.sin(fn(a)))


@pytest.mark.parametrize("backend", ["llvm", "python"])
@pytest.mark.parametrize("fn", PROGRAMS, ids=IDS)
def test_values_match_numpy(fn, backend):
    for shape in SHAPES:
        if fn is solved and len(shape) != 3:
            continue  # RHS has its own leading dimensions (2, 1): broadcast with (2,) only
        a = _stack(shape)
        got, want = jit(fn, backend=backend)(a), fn(a)
        assert np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("fn", PROGRAMS, ids=IDS)
def test_gradients_match_differences_and_the_tape(fn):
    a = _stack((2, 3, 3))
    loss = _loss(fn)
    got = grad(loss)(a)
    h = 1e-6
    for index in [(0, 0, 0), (1, 2, 1), (1, 0, 2)]:
        step = np.zeros_like(a)
        step[index] = h
        assert got[index] == pytest.approx((loss(a + step) - loss(a - step)) / (2 * h),
                                           rel=1e-5, abs=1e-8)
    t = tensor(a, requires_grad=True)
    loss(t).backward()
    np.testing.assert_allclose(got, t.grad.data, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("fn", [inverse, log_determinant, singular_values, nuclear_norms],
                         ids=["inverse", "log_determinant", "singular_values",
                              "nuclear_norms"])
def test_forward_mode_matches_directional_differences(fn):
    a = _stack((3, 3, 3))
    direction = RNG.normal(size=a.shape)
    loss, h = _loss(fn), 1e-6
    value, derivative = jvp(loss, (a,), (direction,))
    assert value == pytest.approx(loss(a), rel=1e-12)
    assert derivative == pytest.approx(
        (loss(a + h * direction) - loss(a - h * direction)) / (2 * h), rel=1e-6)


def test_leading_dimensions_that_do_not_broadcast_are_numpys_error():
    def mismatched(a):
        return np.linalg.solve(a, np.ones((3, 3, 2)))

    with np.testing.assert_raises(ValueError):
        mismatched(_stack((2, 3, 3)))
    with pytest.raises(AdliteSyntaxError, match="shape mismatch") as e:
        jit(mismatched)(_stack((2, 3, 3)))
    assert "np.linalg.solve(a, np.ones((3, 3, 2)))" in str(e.value)
