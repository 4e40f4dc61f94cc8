"""`grad(f)`, `value_and_grad(f)`, `hessian(f)`, `jacfwd(f)`, `vmap(f)`, `jit(f)` called
inside compiled code (autograd's idiom: a function differentiating another inside its body).

The transformation is made while compiling from its compile-time arguments and inlined;
values are compared with the closed forms, gradients of such functions (second order) with
central differences. A transformation of a closure made inside compiled code is made from
the closure lifted into a function of its free variables (the many cases:
tests/frontend/test_outside_closures.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from adlite.compiler import (
    grad,
    hessian,
    jacfwd,
    jit,
    value_and_grad,
    vmap,
)


def model(x, y):
    return np.sin(x) * y ** 2


def uses_grads(x):
    return grad(model)(x, 0.4) * 2.0 + grad(model, 1)(x, 3.0)


def uses_second_order(x):
    return grad(grad(model))(x, 0.5) + hessian(model)(x, 2.0)


def uses_value_and_grad(x):
    value, slope = value_and_grad(model)(x, 2.0)
    return value + slope


def field(v):
    return np.array([v[0] * v[1], np.sin(v[1])])


def uses_jacobian_and_vmap(v):
    return np.sum(jacfwd(field)(v)) + np.sum(vmap(jit(field))(
        np.stack([v, 2.0 * v])))


CLOSED_FORMS = [
    (uses_grads, lambda x: 2 * np.cos(x) * 0.16 + np.sin(x) * 6.0),
    (uses_second_order, lambda x: -np.sin(x) * 0.25 - np.sin(x) * 4.0),
    (uses_value_and_grad, lambda x: np.sin(x) * 4.0 + np.cos(x) * 4.0),
]


@pytest.mark.parametrize("backend", ["llvm", "python"])
@pytest.mark.parametrize("fn, want", CLOSED_FORMS, ids=[f.__name__ for f, _ in CLOSED_FORMS])
def test_values_and_gradients(fn, want, backend):
    for x in (-1.2, 0.3, 2.5):
        assert jit(fn, backend=backend)(x) == pytest.approx(want(x), rel=1e-12)
        h = 1e-6
        assert grad(fn, backend=backend)(x) == pytest.approx(
            (want(x + h) - want(x - h)) / (2 * h), rel=1e-6, abs=1e-8)


def test_jacobians_and_vmap_of_functions_from_outside():
    v = np.array([0.7, -1.1])
    jac = np.array([[v[1], v[0]], [0.0, np.cos(v[1])]])
    want = np.sum(jac) + np.sum(field(v)) + np.sum(field(2.0 * v))
    assert jit(uses_jacobian_and_vmap)(v) == pytest.approx(want, rel=1e-12)


def test_a_transformation_of_a_closure_is_inlined():
    def inner(x):
        return grad(lambda z: z * z * x)(x)

    assert jit(inner)(1.5) == pytest.approx(2.0 * 1.5 * 1.5, rel=1e-12)
    assert grad(inner)(1.5) == pytest.approx(4.0 * 1.5, rel=1e-12)
