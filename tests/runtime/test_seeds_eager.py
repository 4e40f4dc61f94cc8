"""Acceptance examples S1..S18 of SEEDS.md on the eager tape, with their exact numbers."""

import warnings

import numpy as np
import pytest

from adlite.runtime import (
    Function,
    Tensor,
    autograd,
    no_grad,
    ones,
    ones_like,
    optim,
    tensor,
    to_dot,
)


def seed_graph():
    w = tensor([1.0], requires_grad=True)
    x = tensor([2.0], requires_grad=True)
    a = w + x
    b = w + 1
    y = a * b
    return w, x, a, b, y


def test_s1_leaf_gradients():
    w, x, a, b, y = seed_graph()
    y.backward()
    assert w.grad.tolist() == [5.0]
    assert x.grad.tolist() == [2.0]


def test_s2_leaves_and_nonleaf_grads_are_not_kept():
    w, x, a, b, y = seed_graph()
    assert (w.is_leaf, x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf) == (
        True, True, False, False, False)
    y.backward()
    for t in (a, b, y):
        with pytest.warns(UserWarning, match="not a leaf Tensor"):
            assert t.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert w.grad is not None


def test_s3_retain_grad_keeps_nonleaf_gradient():
    w, x, a, b, y = seed_graph()
    a.retain_grad()
    y.backward()
    assert a.grad.tolist() == [2.0]
    assert a.grad.tolist() == b.tolist()


def test_s4_grad_fn_names_and_next_functions():
    w, x, a, b, y = seed_graph()
    assert y.grad_fn.name() == "MulBackward0"
    assert a.grad_fn.name() == "AddBackward0"
    assert w.grad_fn is None and x.grad_fn is None
    (na, _), (nb, _) = y.grad_fn.next_functions
    assert na is a.grad_fn and nb is b.grad_fn
    (acc_w, _), (acc_x, _) = a.grad_fn.next_functions
    assert acc_w.name() == "AccumulateGrad" and acc_w.variable is w
    assert acc_x.variable is x
    # b = w + 1: the constant contributes no edge
    assert b.grad_fn.next_functions[1] == (None, 0)


def test_s5_path_gradients_add():
    a, b, c = (tensor([v], requires_grad=True) for v in (2.0, 3.0, 5.0))
    y = (a + b) * (b + c)
    y.backward()
    assert a.grad.tolist() == [3.0 + 5.0]
    assert b.grad.tolist() == [(2.0 + 3.0) + (3.0 + 5.0)]
    assert c.grad.tolist() == [2.0 + 3.0]


def test_s6_five_neuron_net_chain_rule():
    a, w1, w2, w3, w4 = (tensor([v], requires_grad=True) for v in (1.5, 2.0, -1.0, 0.5, 3.0))
    b = w1 * a
    c = w2 * a
    d = w3 * b + w4 * c
    L = 10 - d
    L.backward()
    assert w1.grad.item() == -1.0 * 0.5 * 1.5          # dL/dd * dd/db * db/dw1
    assert w2.grad.item() == -1.0 * 3.0 * 1.5
    assert w3.grad.item() == -1.0 * (2.0 * 1.5)
    assert w4.grad.item() == -1.0 * (-1.0 * 1.5)
    assert a.grad.item() == -1.0 * (0.5 * 2.0 + 3.0 * -1.0)  # both paths


def test_s7_mean_of_squares():
    x = ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y
    out = z.mean()
    out.backward()
    assert x.grad.tolist() == [[1.5, 1.5], [1.5, 1.5]]


def test_s8_nonscalar_backward_needs_gradient():
    x = ones(2, 2, requires_grad=True)
    L = x * 3
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        L.backward()
    L.sum().backward(retain_graph=True)
    assert x.grad.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    x.grad.zero_()
    L.backward(ones_like(L))
    assert x.grad.tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_s9_backward_with_gradient_and_zero():
    x = tensor([[1.0, 2.0]], requires_grad=True)
    y = tensor([[3.0, 4.0], [5.0, 6.0]])
    loss = x @ y
    loss.backward(tensor([[1.0, 0.0]]), retain_graph=True)
    assert x.grad.tolist() == [[3.0, 5.0]]
    x.grad.zero_()
    loss.backward(tensor([[0.0, 1.0]]))
    assert x.grad.tolist() == [[4.0, 6.0]]


def test_s10_second_backward_raises_unless_retained():
    x = tensor([2.0], requires_grad=True)
    y = x * x
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    x2 = tensor([2.0], requires_grad=True)
    y2 = x2 * x2
    y2.backward(retain_graph=True)
    y2.backward()
    assert x2.grad.tolist() == [8.0]  # 4 + 4: gradients accumulate


def test_s11_accumulation_and_zero_grad():
    w = tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    for _ in range(3):
        (w * w).sum().backward()
    assert w.grad.tolist() == [6.0, 12.0]
    w.grad.zero_()
    assert w.grad.tolist() == [0.0, 0.0]
    (w * w).sum().backward()
    opt.step()
    assert np.allclose(w.detach().numpy(), [0.8, 1.6])
    opt.zero_grad()
    assert w.grad is None


def test_s12_requires_grad_is_contagious():
    x = tensor([1.0], requires_grad=True)
    c = tensor([2.0])
    y = x * c
    z = c * c
    assert y.requires_grad and y.grad_fn is not None
    assert not z.requires_grad and z.grad_fn is None
    y.backward()
    assert c.grad is None


def test_s13_no_grad_records_nothing():
    x = tensor([1.0], requires_grad=True)
    with no_grad():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None


def test_s14_inplace_errors():
    x = tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad .* in-place"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x += 1
    a = x * 2
    y = a * a          # saves a
    a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*version 1; "
                                           "expected version 0"):
        y.sum().backward()
    with no_grad():
        x.add_(1)      # allowed: parameter update
    assert x.tolist() == [2.0, 3.0]


def test_s15_detach_shares_data_and_cuts_graph():
    x = tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None
    d[0] = 10.0
    assert y.tolist() == [10.0, 4.0]


def test_s16_function_forms_and_second_order():
    x = tensor([3.0], requires_grad=True)
    y = x ** 3
    autograd.backward([y], grad_tensors=[tensor([1.0])], retain_graph=True)
    assert x.grad.tolist() == [27.0]
    (g,) = autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [27.0] and g.requires_grad
    (h,) = autograd.grad(g, x)
    assert h.tolist() == [18.0]
    assert x.grad.tolist() == [27.0]  # autograd.grad does not touch .grad


def test_s17_custom_function():
    class Exp(Function):
        @staticmethod
        def forward(ctx, t):
            out = np.exp(t)
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * out

    x = tensor([0.0, 1.0], requires_grad=True)
    y = Exp.apply(x)
    assert y.grad_fn.name() == "ExpBackward"
    (y * 2).sum().backward()
    assert np.allclose(x.grad.numpy(), 2 * np.exp([0.0, 1.0]))


def test_s18_frozen_parameters_get_no_gradient():
    frozen = tensor([1.0, 2.0], requires_grad=False)
    trained = tensor([3.0, 4.0], requires_grad=True)
    loss = (frozen * trained).sum()
    loss.backward()
    assert frozen.grad is None
    assert trained.grad.tolist() == [1.0, 2.0]


def test_to_dot_draws_the_seed_graph():
    w, x, a, b, y = seed_graph()
    dot = to_dot(y, params={"w": w, "x": x})
    assert dot.startswith("digraph adlite {")
    assert dot.count("AddBackward0") == 2 and "MulBackward0" in dot
    assert 'label="w\\n(1)"' in dot and 'label="x\\n(1)"' in dot
    assert dot == to_dot(y, params={"w": w, "x": x})  # deterministic


def test_tensor_is_a_tensor():
    assert isinstance(tensor(1.0), Tensor)
