"""Function transformations on the tape, with HIPS autograd's signatures: `grad`,
`value_and_grad`, `elementwise_grad`, `jacobian`.

Contract: `grad(fun, argnum=0)` returns the function of `fun`'s arguments giving the gradient
of `fun`'s one-element result with respect to argument `argnum` (an int, or a tuple of them:
a tuple of gradients); `value_and_grad` gives `(result, gradient)`; `elementwise_grad` gives
the gradient of the sum of the result (the vector-Jacobian product with ones); `jacobian`
gives the array of shape `out.shape + arg.shape` (one backward sweep per element of the
result). The differentiated argument may be
a number, an array, a Tensor, or a list, tuple or dict of them (`jacobian`: a number, array
or Tensor); each gradient is a Tensor of its argument's shape, in the same containers, zeros
where the result does not depend on it.

Complex numbers follow autograd's convention, not the tape's (PyTorch's, `complex_numbers`):
the gradient of a real function of `z = x + iy` is `df/dx - i df/dy`, the conjugate of what
`backward()` gives (each vector-Jacobian product is the conjugate of the tape's); a complex
result raises a TypeError, as autograd's `grad`, `elementwise_grad` and `jacobian` do.

The argument is given to `fun` as a node of its own: a fresh leaf that requires grad, or,
for a Tensor that already requires grad (an outer transformation's or a caller's), a clone of
it, so that the gradient counts only the paths through the argument (not the uses of the same
tensor `fun` reaches otherwise, as autograd) while an outer backward still flows through it.
The sweep records its own computation (`create_graph`) whenever grad mode is on where the
transformed function is called, so transformations nest to any order (`grad(grad(f))`,
`grad(f)` inside a function run on Tensors that require grad). `fun` itself runs in grad mode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import autograd
from . import functional as F
from .grad_mode import enable_grad, is_grad_enabled
from .tensor import Tensor

ArgNum = int | tuple[int, ...]


def _leaves(tree: Any) -> list[Any]:
    if isinstance(tree, dict):
        return [x for v in tree.values() for x in _leaves(v)]
    if isinstance(tree, list | tuple):
        return [x for v in tree for x in _leaves(v)]
    return [tree]


def _rebuild(tree: Any, values: list[Any]) -> Any:
    """`tree` with its leaves replaced, in order, by `values` (consumed from the front)."""
    if isinstance(tree, dict):
        return {k: _rebuild(v, values) for k, v in tree.items()}
    if isinstance(tree, list | tuple):
        return type(tree)(_rebuild(v, values) for v in tree)
    return values.pop(0)


def _node(x: Any) -> Tensor:
    """The argument's own node: a clone of a Tensor that requires grad, else a float leaf."""
    if isinstance(x, Tensor) and x.requires_grad:
        return F.clone(x)
    data = x.data if isinstance(x, Tensor) else np.asarray(x)
    if not np.issubdtype(data.dtype, np.inexact):
        data = data.astype(np.float64)
    return Tensor(data, requires_grad=True)


def _differentiate(fun: Callable[..., Any], argnum: ArgNum, args: tuple, kwargs: dict,
                   sweep: Callable[[Any, list[Tensor], bool], list[Any]]) -> tuple[Any, Any]:
    """Run `fun` with the arguments `argnum` as nodes of their own, then `sweep(out, nodes,
    create_graph)`: `fun`'s result and one gradient per node, rebuilt into the arguments'
    containers."""
    positions = (argnum,) if isinstance(argnum, int) else tuple(argnum)
    create_graph = is_grad_enabled()
    args = list(args)
    nodes: dict[int, list[Tensor]] = {}
    for i in positions:
        nodes[i] = [_node(x) for x in _leaves(args[i])]
        args[i] = _rebuild(args[i], list(nodes[i]))
    with enable_grad():
        out = fun(*args, **kwargs)
        flat = [t for i in positions for t in nodes[i]]
        found = sweep(out, flat, create_graph)
    grads = [_rebuild(args[i], [found.pop(0) for _ in nodes[i]]) for i in positions]
    return out, grads[0] if isinstance(argnum, int) else tuple(grads)


def _vjp(out: Any, nodes: list[Tensor], cotangent: Any, create_graph: bool) -> list[Tensor]:
    """The gradients of `sum(out * cotangent)` (a real `out`) for `nodes` (zeros for those it
    ignores), in autograd's convention: the conjugates of the tape's."""
    if not (isinstance(out, Tensor) and out.requires_grad):
        return [F.zeros_like(t) for t in nodes]
    found = autograd.grad(out, nodes, grad_outputs=[cotangent],
                          retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [F.zeros_like(t) if g is None else F.conj(g) if F.is_complex(g) else g
            for t, g in zip(nodes, found, strict=True)]


def _real(out: Any, who: str) -> Any:
    """`out`, which must be real (autograd's transformations refuse complex results)."""
    if np.iscomplexobj(getattr(out, "data", out)):
        raise TypeError(f"{who} only applies to functions with real results (as autograd's): "
                        "differentiate np.real, np.imag or np.abs of this complex one")
    return out


def _one(out: Any) -> Any:
    size = _real(out, "grad").size if isinstance(out, Tensor) else np.size(out)
    if size != 1:
        raise TypeError(f"grad only applies to functions with one-element results (this one "
                        f"has shape {np.shape(getattr(out, 'data', out))}); use "
                        "elementwise_grad or jacobian")
    return np.ones(np.shape(getattr(out, "data", out)), dtype=_dtype(out))


def _dtype(out: Any) -> np.dtype:
    dtype = out.dtype if isinstance(out, Tensor) else np.asarray(out).dtype
    return dtype if np.issubdtype(dtype, np.inexact) else np.dtype(np.float64)


def grad(fun: Callable[..., Any], argnum: ArgNum = 0) -> Callable[..., Any]:
    """The gradient of `fun`'s one-element result with respect to argument `argnum`.

    Examples:
        >>> from adlite.runtime.transforms import grad
        >>> grad(lambda x: x ** 3)(2.0).item()
        12.0
    """
    def gradient(*args: Any, **kwargs: Any) -> Any:
        return value_and_grad(fun, argnum)(*args, **kwargs)[1]

    return gradient


def value_and_grad(fun: Callable[..., Any], argnum: ArgNum = 0) -> Callable[..., Any]:
    """`fun`'s one-element result and its gradient with respect to argument `argnum`."""
    def both(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        return _differentiate(fun, argnum, args, kwargs,
                              lambda out, nodes, cg: _vjp(out, nodes, _one(out), cg))

    return both


def elementwise_grad(fun: Callable[..., Any], argnum: ArgNum = 0) -> Callable[..., Any]:
    """The gradient of the sum of `fun`'s result (its derivative, element by element, for an
    elementwise `fun`)."""
    def gradient(*args: Any, **kwargs: Any) -> Any:
        return _differentiate(
            fun, argnum, args, kwargs, lambda out, nodes, cg: _vjp(
                _real(out, "elementwise_grad"), nodes,
                np.ones(np.shape(getattr(out, "data", out)), _dtype(out)), cg))[1]

    return gradient


def jacobian(fun: Callable[..., Any], argnum: int = 0) -> Callable[..., Any]:
    """The Jacobian of `fun`'s result with respect to argument `argnum`: shape
    `out.shape + arg.shape`."""
    def sweep(out: Any, nodes: list[Tensor], create_graph: bool) -> list[Any]:
        (node,) = nodes
        shape = np.shape(getattr(_real(out, "jacobian"), "data", out))
        rows = []
        for k in range(int(np.prod(shape))):
            basis = np.zeros(int(np.prod(shape)), _dtype(out))
            basis[k] = 1.0
            rows.extend(_vjp(out, nodes, basis.reshape(shape), create_graph))
        if not rows:
            return [F.zeros_like(F.broadcast_to(node, shape + node.shape))]
        return [F.reshape(F.stack(rows, 0), shape + node.shape)]

    def jac(*args: Any, **kwargs: Any) -> Any:
        if len(_leaves(args[argnum])) != 1:
            raise TypeError("jacobian on the tape differentiates one number, array or Tensor")
        return _differentiate(fun, argnum, args, kwargs, sweep)[1]

    return jac
