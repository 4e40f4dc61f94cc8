"""Function forms of backpropagation and user-defined differentiable functions.

Contract (PyTorch's `torch.autograd`):
- `backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None)`
  accumulates gradients into leaves' `.grad`.
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
from .functional import constant, edge_of
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
    """Accumulate the gradients of `tensors` into the `.grad` of the leaves."""
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
    """Gradients of `outputs` w.r.t. each of `inputs` (None only when `allow_unused`)."""
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
    """The `ctx` of a custom Function: saved tensors and flags shared by forward/backward."""

    def __init__(self, needs_input_grad: tuple[bool, ...]) -> None:
        self.needs_input_grad = needs_input_grad
        self._to_save: tuple[Tensor, ...] = ()
        self._node: BackwardNode | None = None
        self._non_differentiable: set[int] = set()

    def save_for_backward(self, *tensors: Tensor) -> None:
        self._to_save = tensors

    @property
    def saved_tensors(self) -> tuple[Tensor, ...]:
        if self._node is None:
            return self._to_save
        return tuple(self._node.saved())

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self._non_differentiable.update(id(t) for t in tensors)


class Function:
    """Base class of user-defined differentiable operations (see module docstring)."""

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a Function subclass must implement forward(ctx, ...)")

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Any) -> Any:
        raise NotImplementedError("a Function subclass must implement backward(ctx, ...)")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
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
                                  and np.issubdtype(out.dtype, np.floating))
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
            if g.shape != a.shape:
                raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} "
                                   f"- got {list(g.shape)} but expected shape compatible with "
                                   f"{list(a.shape)}")
            checked.append(g)
        return checked

    return rule
