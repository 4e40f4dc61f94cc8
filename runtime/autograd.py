"""Function forms of backpropagation and user-defined differentiable functions.

Contract (PyTorch's `torch.autograd`):
- `backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None)`
  accumulates gradients into leaves' `.grad` (for complex tensors in PyTorch's convention,
  `complex_numbers`; a complex output needs its gradient given, as in PyTorch).
- `grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
  allow_unused=False)` returns the gradients instead, touching no `.grad`.
- `Function`: subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`;
  `ctx.save_for_backward(*tensors)` / `ctx.saved_tensors` keep values with version checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .engine import accumulate_into, run_backward
from .functional import constant, edge_of, is_complex, real
from .grad_mode import is_grad_enabled, no_grad
from .graph import BackwardNode
from .tensor import Tensor


def _as_list(x: Any) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, list | tuple) else [x]


def _root_grads(outputs: list[Tensor], grad_outputs: list) -> list[Tensor]:
    if grad_outputs and len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(grad_outputs)} gradients for {len(outputs)} outputs")
    grads = []
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise TypeError(f"element {i} of tensors is a {type(out).__name__}, not a Tensor")
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn. Hint: mark an input with requires_grad=True, and do "
                               "not compute the output under no_grad().")
        g = grad_outputs[i] if grad_outputs else None
        if g is None:
            if out.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs. Hint: call "
                    ".sum().backward(), or pass a gradient of the output's shape: "
                    "backward(ones_like(out)).")
            if np.iscomplexobj(out.data):
                raise RuntimeError("grad can be implicitly created only for real scalar "
                                   "outputs. Hint: differentiate a real function of it "
                                   "(np.abs, np.real), or pass the gradient explicitly.")
            g = Tensor._wrap(np.ones_like(out.data))
        if not (isinstance(g, Tensor) and g.dtype == out.dtype):
            g = Tensor(g.data if isinstance(g, Tensor) else g, dtype=out.dtype)
        if g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"{list(g.shape)} and output[{i}] has a shape of "
                               f"{list(out.shape)}.")
        grads.append(g)
    return grads


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Sequence[Tensor] | None = None) -> None:
    """Accumulate the gradients of `tensors` into the `.grad` of the leaves (PyTorch's).

    The sum of the vector-Jacobian products of `tensors` (each weighted by its entry of
    `grad_tensors`) is added to the `.grad` of every leaf that requires grad, or of
    `inputs` only. [`Tensor.backward`][adlite.runtime.tensor.Tensor.backward] is this
    function for one tensor.

    Args:
        tensors: A tensor or a sequence of tensors that require grad.
        grad_tensors: Their cotangents (one per tensor; None for a one-element tensor,
            which then gets 1).
        retain_graph: Keep the graph's saved values for another backward; default
            `create_graph`.
        create_graph: Record the backward pass, for higher-order derivatives.
        inputs: Accumulate into these tensors only.

    Raises:
        RuntimeError: For a tensor that does not require grad, a missing cotangent of a
            tensor of several elements, a cotangent of another shape, or a graph already
            freed.
        TypeError: For an element of `tensors` that is not a Tensor.

    Examples:
        >>> from adlite.runtime import autograd, tensor
        >>> a = tensor(1.0, requires_grad=True)
        >>> b = tensor(2.0, requires_grad=True)
        >>> autograd.backward([a * b, a + b])
        >>> a.grad, b.grad
        (tensor(3.), tensor(2.))
    """
    outputs = _as_list(tensors)
    grads = _root_grads(outputs, _as_list(grad_tensors))
    retain = create_graph if retain_graph is None else retain_graph
    if inputs is not None:
        leaves = _as_list(inputs)
        found = run_backward([edge_of(t) for t in outputs], grads, retain_graph=retain,
                             create_graph=create_graph, accumulate=False,
                             capture=[edge_of(t) for t in leaves])
        for leaf, g in zip(leaves, found, strict=True):
            if g is not None:
                accumulate_into(leaf, g, create_graph)
        return
    run_backward([edge_of(t) for t in outputs], grads, retain_graph=retain,
                 create_graph=create_graph, accumulate=True)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool = False) -> tuple[Tensor | None, ...]:
    """Gradients of `outputs` w.r.t. each of `inputs`, returned instead of accumulated.

    PyTorch's `torch.autograd.grad`: no `.grad` is touched. With `create_graph` the
    gradients are recorded, so they can be differentiated again (higher orders);
    otherwise they are detached.

    Args:
        outputs: A tensor or a sequence of tensors to differentiate.
        inputs: A tensor or a sequence of tensors that require grad.
        grad_outputs: The cotangents of `outputs` (None for one-element outputs).
        retain_graph: Keep the graph for another backward; default `create_graph`.
        create_graph: Record the computation of the gradients.
        allow_unused: Return None for an input the outputs do not depend on, instead of
            raising.

    Returns:
        A tuple with one gradient per input (None only when `allow_unused`).

    Raises:
        RuntimeError: For an input that does not require grad, or one the outputs do not
            use (without `allow_unused`), and as [`backward`][adlite.runtime.autograd.backward].

    Examples:
        >>> from adlite.runtime import autograd, tensor
        >>> x = tensor(1.0, requires_grad=True)
        >>> y = x ** 3
        >>> dy, = autograd.grad(y, x, create_graph=True)
        >>> d2y, = autograd.grad(dy, x)
        >>> dy, d2y, x.grad is None
        (tensor(3., grad_fn=<MulBackward0>), tensor(6.), True)
    """
    outs, ins = _as_list(outputs), _as_list(inputs)
    for i, t in enumerate(ins):
        if not isinstance(t, Tensor) or not t.requires_grad:
            raise RuntimeError(f"input {i} of autograd.grad does not require grad")
    grads = _root_grads(outs, _as_list(grad_outputs))
    retain = create_graph if retain_graph is None else retain_graph
    found = run_backward([edge_of(t) for t in outs], grads, retain_graph=retain,
                         create_graph=create_graph, accumulate=False,
                         capture=[edge_of(t) for t in ins])
    if not allow_unused and any(g is None for g in found):
        raise RuntimeError("One of the differentiated Tensors appears to not have been used in "
                           "the graph. Set allow_unused=True if this is the desired behavior.")
    if not create_graph:
        found = [None if g is None else g.detach() for g in found]
    return tuple(found)


class FunctionCtx:
    """The `ctx` of a custom `Function`: what `forward` passes on to `backward`.

    `ctx.save_for_backward(*tensors)` keeps tensors for `backward`, which reads them as
    `ctx.saved_tensors` (checked against in-place changes by their version counters, as in
    PyTorch); `ctx.needs_input_grad` tells, per argument of `apply`, whether it needs a
    gradient; `ctx.mark_non_differentiable(*outputs)` marks outputs that get none. Other
    attributes can be set on `ctx` freely.

    Examples:
        >>> from adlite.runtime import Function, tensor
        >>> class Scale(Function):
        ...     @staticmethod
        ...     def forward(ctx, x, k):
        ...         ctx.k = k
        ...         return x * k
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         print("needs_input_grad:", ctx.needs_input_grad)
        ...         return g * ctx.k, None
        >>> x = tensor([1.0, 2.0], requires_grad=True)
        >>> Scale.apply(x, 3.0).sum().backward()
        needs_input_grad: (True, False)
        >>> x.grad
        tensor([3., 3.])
    """

    def __init__(self, needs_input_grad: tuple[bool, ...]) -> None:
        self.needs_input_grad = needs_input_grad
        self._to_save: tuple[Tensor, ...] = ()
        self._node: BackwardNode | None = None
        self._non_differentiable: set[int] = set()

    def save_for_backward(self, *tensors: Tensor) -> None:
        """Keep `tensors` for `backward` (read them as `saved_tensors`)."""
        self._to_save = tensors

    @property
    def saved_tensors(self) -> tuple[Tensor, ...]:
        """The tensors given to `save_for_backward`; RuntimeError if one was changed in
        place since, or the graph was freed."""
        if self._node is None:
            return self._to_save
        return tuple(self._node.saved())

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Mark outputs of `forward` as not differentiable (they get no `grad_fn`)."""
        self._non_differentiable.update(id(t) for t in tensors)


class Function:
    """Base class of user-defined differentiable operations, as `torch.autograd.Function`.

    Subclass it with two static methods: `forward(ctx, *args)` computes the outputs (run
    with recording off; it may use numpy and Tensor operations alike) and
    `backward(ctx, *grads)` returns one gradient per argument of `forward` (None for one
    that needs none), given one gradient per output. Call it with `apply`; the outputs get
    one backward node named `<ClassName>Backward`. With `create_graph`, the operations of
    `backward` are recorded like any others, so a `backward` written with Tensor
    operations can be differentiated again.

    Raises:
        RuntimeError: At backward, when `backward` returns a number of gradients other
            than the number of arguments, or a gradient of the wrong shape.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import Function, tensor
        >>> class Exp(Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         y = np.exp(x)
        ...         ctx.save_for_backward(y)
        ...         return y
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         y, = ctx.saved_tensors
        ...         return g * y
        >>> x = tensor([0.0, 1.0], requires_grad=True)
        >>> y = Exp.apply(x)
        >>> y
        tensor([1.        , 2.71828183], grad_fn=<ExpBackward>)
        >>> y.sum().backward()
        >>> x.grad
        tensor([1.        , 2.71828183])
    """

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        """The outputs of the operation (a tensor or a tuple); subclasses define it."""
        raise NotImplementedError("a Function subclass must implement forward(ctx, ...)")

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Any) -> Any:
        """One gradient per argument of `forward` (a tuple when several; None: no
        gradient), given one gradient per output; subclasses define it."""
        raise NotImplementedError("a Function subclass must implement backward(ctx, ...)")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run `forward` on `args` and record one backward node for its outputs."""
        needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx = FunctionCtx(needs)
        with no_grad():
            result = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(result, tuple)
        outputs = [_fresh_output(o, args) for o in (result if is_tuple else (result,))]
        if is_grad_enabled() and any(needs):
            node = BackwardNode(f"{cls.__name__}Backward", lambda grads: None,
                                [edge_of(a) if isinstance(a, Tensor) else (None, 0)
                                 for a in args], num_outputs=len(outputs))
            node._rule = _custom_rule(cls, ctx, args, outputs, node)
            for i, out in enumerate(outputs):
                differentiable = (isinstance(out, Tensor) and id(out) not in
                                  ctx._non_differentiable
                                  and np.issubdtype(out.dtype, np.inexact))
                if differentiable:
                    out._set_history(node, i)
            node.save(ctx._to_save)
            ctx._node = node
        return tuple(outputs) if is_tuple else outputs[0]


def _fresh_output(out: Any, args: tuple) -> Any:
    """Outputs that are inputs returned unchanged become new tensors sharing storage."""
    if isinstance(out, Tensor) and any(out is a for a in args):
        return Tensor._wrap(out.data, out._version)
    if isinstance(out, np.ndarray):
        return Tensor._wrap(out)
    return out


def _custom_rule(cls, ctx: FunctionCtx, args: tuple, outputs: list, node: BackwardNode):
    name = node.name()

    def rule(grads):
        grads = [Tensor._wrap(np.zeros_like(o.data)) if g is None and isinstance(o, Tensor)
                 else g for g, o in zip(grads, outputs, strict=True)]
        result = cls.backward(ctx, *grads)
        result = result if isinstance(result, tuple) else (result,)
        if len(result) != len(args):
            raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                               f"(expected {len(args)}, got {len(result)})")
        checked = []
        for i, (g, a) in enumerate(zip(result, args, strict=True)):
            if g is None or not isinstance(a, Tensor):
                checked.append(None)
                continue
            g = constant(g)
            if is_complex(g) and not is_complex(a):  # a real input's part (PyTorch's)
                g = real(g)
            if g.shape != a.shape:
                raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} "
                                   f"- got {list(g.shape)} but expected shape compatible with "
                                   f"{list(a.shape)}")
            checked.append(g)
        return checked

    return rule
