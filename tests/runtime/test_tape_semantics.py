"""Eager-tape semantics beyond the seed examples: numpy protocol, in-place, errors, edge cases."""

import numpy as np
import pytest

from adlite import runtime as rt
from adlite.runtime import Function, autograd, enable_grad, no_grad, tensor


def test_numpy_functions_run_on_tensors_and_record():
    x = tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    y = np.sum(np.exp(np.sin(x)) * np.maximum(x, 0.0), axis=0)
    out = np.dot(y, np.array([1.0, 2.0])) + np.where(x > 0, x, 0.0).mean()
    assert isinstance(out, rt.Tensor) and out.grad_fn is not None
    out.backward()
    ref = np.zeros_like(x.data)
    for i in range(2):
        for j in range(2):
            xv = x.data[i, j]
            dmax = np.exp(np.sin(xv)) * (np.cos(xv) * max(xv, 0) + (xv > 0))
            ref[i, j] = [1.0, 2.0][j] * dmax + (xv > 0) / 4
    np.testing.assert_allclose(x.grad.numpy(), ref, rtol=1e-12)


def test_numpy_array_on_the_left_dispatches_to_tensor():
    x = tensor([1.0, 2.0], requires_grad=True)
    y = np.array([3.0, 4.0]) * x
    assert isinstance(y, rt.Tensor) and y.grad_fn.name() == "MulBackward0"


def test_unsupported_numpy_function_is_a_clear_type_error():
    x = tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError, match="numpy.histogram is not supported on adlite Tensors"):
        np.histogram(x)
    with pytest.raises(TypeError, match="out="):
        np.add(x, x, out=np.empty(2))


def test_float32_is_preserved():
    x = tensor([1.0, 2.0], dtype=np.float32, requires_grad=True)
    y = (x * 2.5).sum()
    assert y.dtype == np.float32
    y.backward()
    assert x.grad.dtype == np.float32


def test_requires_grad_errors():
    with pytest.raises(RuntimeError, match="floating point"):
        tensor([1, 2], requires_grad=True)
    x = tensor([1.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        y.requires_grad = False


def test_backward_errors():
    x = tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape "
                                           r"of \[3\] and output\[0\] has a shape of \[2\]"):
        y.backward(tensor([1.0, 1.0, 1.0]))
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        tensor([1.0]).sum().backward()
    y.backward(np.array([1, 1]))  # cast to the output's dtype, as PyTorch does
    assert x.grad.tolist() == [2.0, 2.0]


def test_numpy_and_item_errors():
    x = tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Use tensor.detach\(\).numpy\(\)"):
        x.numpy()
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted"):
        x.item()
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(x)
    assert tensor([3.0]).item() == 3.0


def test_autograd_grad_allow_unused():
    x, z = tensor(1.0, requires_grad=True), tensor(2.0, requires_grad=True)
    y = x * 3
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = autograd.grad(y, [x, z], allow_unused=True)
    assert gx.item() == 3.0 and gz is None


def test_autograd_grad_of_nonleaf():
    x = tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    y = (h * 3).sum()
    (gh,) = autograd.grad(y, h)
    assert gh.tolist() == [3.0, 3.0]


def test_backward_inputs_restricts_accumulation():
    x, z = tensor(1.0, requires_grad=True), tensor(2.0, requires_grad=True)
    (x * z).backward(inputs=[x])
    assert x.grad.item() == 2.0 and z.grad is None


def test_inplace_on_nonleaf_rebases_history():
    x = tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.add_(x)               # y = 3x
    assert y.grad_fn.name() == "AddBackward0"
    y.mul_(x)               # y = 3x^2
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]


def test_inplace_into_buffer_makes_it_require_grad():
    w = tensor([1.0, 2.0, 3.0], requires_grad=True)
    buf = rt.zeros(3)
    buf[1:] = w[:2] * 2
    assert buf.requires_grad and not buf.is_leaf and buf.grad_fn.name() == "CopySlices"
    (buf * buf).sum().backward()
    assert w.grad.tolist() == [8.0 * 1, 8.0 * 2, 0.0]


def test_setitem_overwrites_gradient_path():
    x = tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1.0
    y[0] = 5.0
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0]


def test_inplace_shape_and_dtype_errors():
    a = rt.zeros(2)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        a.add_(rt.ones(2, 2))
    i = tensor([1, 2])
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.add_(0.5)


def test_version_counter_catches_modified_output():
    x = tensor([0.5, 1.0], requires_grad=True)
    y = np.exp(x)           # exp saves its output
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_add_saves_nothing_so_later_inplace_is_fine():
    x = tensor([0.5, 1.0], requires_grad=True)
    a = x * 2
    b = a + 1
    a.add_(1)
    b.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_detach_shares_version_counter():
    x = tensor([0.5, 1.0], requires_grad=True)
    y = np.exp(x)
    y.detach().zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_retain_grad_follows_inplace_updates():
    x = tensor([1.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.mul_(3)
    (y * 1.0).sum().backward()
    assert y.grad.tolist() == [1.0]


def test_no_grad_and_enable_grad_nest_and_decorate():
    x = tensor([1.0], requires_grad=True)
    with no_grad():
        with enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad

    @no_grad()
    def f(t):
        return t * 3

    assert not f(x).requires_grad
    assert rt.is_grad_enabled()


def test_create_graph_accumulates_differentiable_grads():
    x = tensor(2.0, requires_grad=True)
    y = x ** 3
    y.backward(create_graph=True)
    assert x.grad.item() == 12.0 and x.grad.requires_grad
    (gg,) = autograd.grad(x.grad, x)
    assert gg.item() == 12.0


def test_deep_graph_needs_no_recursion():
    x = tensor(1.0, requires_grad=True)
    y = x
    for _ in range(20000):
        y = y * 1.0 + 0.0
    y.backward()
    assert x.grad.item() == 1.0


def test_custom_function_wrong_gradient_count():
    class Bad(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    x, y = tensor(1.0, requires_grad=True), tensor(2.0, requires_grad=True)
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        Bad.apply(x, y).backward()


def test_custom_function_saved_tensor_version_check():
    class Square(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    x = tensor([1.0, 2.0], requires_grad=True)
    h = x * 1.0
    y = Square.apply(h)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    z = Square.apply(x)
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_max_ties_share_the_gradient():
    x = tensor([1.0, 3.0, 3.0], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5]


def test_prod_with_zero_is_exact():
    x = tensor([2.0, 0.0, 3.0], requires_grad=True)
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 6.0, 0.0]


def test_repr_mentions_grad_fn():
    x = tensor([1.0], requires_grad=True)
    assert repr(x) == "tensor([1.], requires_grad=True)"
    assert repr(x * 2) == "tensor([2.], grad_fn=<MulBackward0>)"


def test_reduction_options_that_would_be_ignored_are_rejected():
    x = tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError, match="out=..."):
        np.sum(x, out=np.empty(()))
    with pytest.raises(TypeError, match="initial"):
        np.max(x, initial=3.0)


def test_copy_is_a_recorded_copy_and_format_is_numpys():
    u = tensor([1.0, 2.0], requires_grad=True)
    c = u.copy()  # numpy's name, as in code written for arrays
    (c * c).sum().backward()
    np.testing.assert_array_equal(u.grad.numpy(), [2.0, 4.0])
    loss = (u * u).sum()
    assert f"{loss:.3f}" == f"{np.float64(5.0):.3f}" == "5.000"
    with pytest.raises(TypeError):
        f"{u:.2f}"  # numpy refuses a format spec for a 1-d array too
