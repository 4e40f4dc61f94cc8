"""Function transformations on the tape (runtime/transforms.py), autograd's `grad`,
`value_and_grad`, `elementwise_grad` and `jacobian`: against central differences, for
numbers, arrays and containers, several arguments, nested to third order, inside a function
run on Tensors that require grad (an outer backward differentiates through), and counting only
the paths through the argument (a closure over the same tensor is a constant to it, as in autograd).
"""

from __future__ import annotations

import numpy as np
import pytest

from adlite.runtime import tensor
from adlite.runtime.transforms import elementwise_grad, grad, jacobian, value_and_grad

from ..support.gradients import central_differences

RNG = np.random.default_rng(5)


def _f(x):
    return np.sum(np.sin(x) * x ** 2)


@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_grad_matches_differences(shape):
    x = RNG.standard_normal(shape)
    got = grad(_f)(x)
    (want,) = central_differences(lambda a: float(_f(a)), [x])
    assert got.shape == shape
    np.testing.assert_allclose(got.data, want, rtol=1e-6, atol=1e-9)


def test_grad_of_several_arguments_and_containers():
    a, b = RNG.standard_normal(3), RNG.standard_normal(3)
    ga, gb = grad(lambda p, q: np.sum(p * np.exp(q)), (0, 1))(a, b)
    np.testing.assert_allclose(ga.data, np.exp(b))
    np.testing.assert_allclose(gb.data, a * np.exp(b))
    tree = grad(lambda d: d["w"][0] * np.sum(d["v"]))({"w": [2.0], "v": np.ones(3)})
    assert tree["w"][0].item() == 3.0 and np.all(tree["v"].data == 2.0)


def test_grad_nests_to_third_order():
    third = grad(grad(grad(lambda x: x ** 4 + np.sin(x))))
    np.testing.assert_allclose(third(0.7).item(), 24 * 0.7 - np.cos(0.7), rtol=1e-12)


def test_a_closure_over_the_argument_is_a_constant_and_an_outer_backward_flows_through():
    x = tensor(1.5, requires_grad=True)
    inner = grad(lambda y: x * y ** 2)(x)  # 2 x y at y = x, x a constant inside
    np.testing.assert_allclose(inner.item(), 2 * 1.5 * 1.5)
    inner.backward()  # d/dx (2 x x) = 4 x
    np.testing.assert_allclose(x.grad.item(), 4 * 1.5)


def test_grad_needs_one_element_and_gives_zeros_for_an_unused_argument():
    with pytest.raises(TypeError, match="one-element"):
        grad(lambda x: x * 2.0)(np.ones(2))
    assert np.all(grad(lambda x, y: np.sum(y), 0)(np.ones(2), np.ones(3)).data == 0.0)


def test_value_and_grad():
    value, gradient = value_and_grad(lambda x: np.sum(x ** 3))(np.array([1.0, 2.0]))
    assert value.item() == 9.0 and np.all(gradient.data == [3.0, 12.0])


def test_elementwise_grad_and_jacobian():
    x = RNG.standard_normal(4)
    np.testing.assert_allclose(elementwise_grad(np.tanh)(x).data, 1 - np.tanh(x) ** 2)
    m = RNG.standard_normal((3, 4))
    jac = jacobian(lambda v: np.tanh(m @ v))(x)
    want = (1 - np.tanh(m @ x) ** 2)[:, None] * m
    assert jac.shape == (3, 4)
    np.testing.assert_allclose(jac.data, want, rtol=1e-12)
