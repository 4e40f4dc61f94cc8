"""User-defined derivatives on the eager tape: the `custom_vjp` / `custom_jvp` objects of
`adlite.compiler.custom` called on Tensors, and `stop_gradient`.

Contract (`spec` is such an object: `fun`, `fwd`/`bwd` or `jvp_rule`, `nondiff_argnums`,
`__name__`; `args` are the call's arguments, bound positionally):
- `records(args)`: whether the call must be recorded (grad mode on and a Tensor that requires
  grad among the arguments, inside tuples, lists and dicts too).
- `call_vjp(spec, args)`: runs `fwd(*args)` with grad mode on (so the residuals keep their
  history) and returns its output as new tensors whose one node (`<name>Backward`) runs
  `bwd(*nondiff, residuals, g)` (absent output gradients are zeros). Its results are the
  gradients of the Tensors of the differentiable arguments (None: zero); a wrong count or
  shape raises `RuntimeError` naming `bwd`. With `create_graph` the backward runs with grad
  mode on, so `bwd`'s computation (and, through the residuals, `fwd`'s) is differentiated
  again.
- `call_jvp(spec, args)`: the output is `fun(*args)` computed without recording; its node
  transposes the rule, linear in the tangents: it runs `jvp_rule(*nondiff, primals,
  tangents)` with zero tangents that require grad and returns `autograd.grad` of the output
  tangent w.r.t. them, weighted by the output gradients (with `create_graph`, at the
  recorded primals, so it is differentiated again).
- While a rule of `spec` runs, calls of `spec` are its plain function (`inside_rules`): `fwd`
  calling `f`, a JAX idiom, does not recurse.
- `stop_gradient(x)`: `x.detach()` for a Tensor, `x` otherwise.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from .autograd import grad as autograd_grad
from .functional import constant, edge_of
from .grad_mode import enable_grad, is_grad_enabled, no_grad
from .graph import BackwardNode
from .tensor import Tensor

_ACTIVE: contextvars.ContextVar[tuple] = contextvars.ContextVar("custom_rules", default=())


def inside_rules(spec) -> bool:
    return any(s is spec for s in _ACTIVE.get())


@contextmanager
def _rules_of(spec) -> Iterator[None]:
    token = _ACTIVE.set(_ACTIVE.get() + (spec,))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def _leaves(value: Any) -> list:
    if isinstance(value, tuple | list):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    return [value]


def _rebuild(value: Any, leaves: Iterator) -> Any:
    """`value`'s structure with its leaves taken from `leaves`."""
    if isinstance(value, tuple | list):
        return type(value)(_rebuild(v, leaves) for v in value)
    if isinstance(value, dict):
        return {k: _rebuild(v, leaves) for k, v in value.items()}
    return next(leaves)


def records(args: tuple) -> bool:
    return is_grad_enabled() and any(isinstance(t, Tensor) and t.requires_grad
                                     for t in _leaves(args))


def stop_gradient(x: Any) -> Any:
    return x.detach() if isinstance(x, Tensor) else x


def _differentiable(spec, args: tuple) -> list[int]:
    return [k for k in range(len(args)) if k not in spec.nondiff_argnums]


def _float_positions(leaves: list) -> list[int]:
    return [k for k, t in enumerate(leaves) if isinstance(t, Tensor)
            and np.issubdtype(t.dtype, np.floating)]


def _recorded(spec, out: Any, inputs: list[Tensor], rule) -> Any:
    """`out` as new tensors whose one node maps the gradients of its float leaves (zeros for
    those absent) to gradients of `inputs` with `rule`."""
    leaves = [Tensor._wrap(np.asarray(t)) if isinstance(t, float | np.ndarray) else t
              for t in _leaves(out)]
    floats = _float_positions(leaves)
    node = BackwardNode(f"{spec.__name__}Backward", None,
                        [edge_of(t) for t in inputs], num_outputs=len(floats))
    results = list(leaves)
    for nr, k in enumerate(floats):
        results[k] = Tensor._wrap(leaves[k].data)
        results[k]._set_history(node, nr)
    node._rule = lambda grads: rule([
        Tensor._wrap(np.zeros_like(leaves[k].data)) if g is None else g
        for g, k in zip(grads, floats, strict=True)])
    return _rebuild(out, iter(results))


def _inputs(spec, args: tuple) -> list[Tensor]:
    return [t for k in _differentiable(spec, args) for t in _leaves(args[k])
            if isinstance(t, Tensor) and t.requires_grad]


def call_vjp(spec, args: tuple) -> Any:
    inputs = _inputs(spec, args)
    with _rules_of(spec), enable_grad():
        out, residuals = spec.fwd(*args)
    nondiff = [args[k] for k in spec.nondiff_argnums]
    diff = _differentiable(spec, args)
    recorded: list = []

    def rule(grads: list) -> list:
        with _rules_of(spec):
            cts = spec.bwd(*nondiff, residuals, _structured(recorded[0], grads))
        return _cotangents(spec, args, diff, cts)

    recorded.append(_recorded(spec, out, inputs, rule))
    return recorded[0]


def _structured(output: Any, grads: list) -> Any:
    """The gradients of the float leaves of `output`, shaped like it (other leaves: float
    zeros)."""
    leaves = _leaves(output)
    given = dict(zip(_float_positions(leaves), grads, strict=True))
    return _rebuild(output, iter([given[k] if k in given else np.zeros(np.shape(t))
                                  for k, t in enumerate(leaves)]))


def _cotangents(spec, args: tuple, diff: list[int], cts: Any) -> list:
    """The gradients of the Tensors that require grad among the differentiable arguments,
    from `bwd`'s result (checked: one entry per differentiable argument, shapes)."""
    name = getattr(spec.bwd, "__qualname__", "bwd")
    if not isinstance(cts, tuple | list) or len(cts) != len(diff):
        got = f"{len(cts)} values" if isinstance(cts, tuple | list) else type(cts).__name__
        raise RuntimeError(f"{name} (the bwd of custom_vjp function {spec.__name__}) must "
                           f"return a tuple of {len(diff)} cotangent(s), one per "
                           f"differentiable argument; it returned {got}")
    found = []
    for k, ct in zip(diff, cts, strict=True):
        leaves = _leaves(args[k])
        given = [None] * len(leaves) if ct is None else _leaves(ct)
        if len(given) != len(leaves):
            raise RuntimeError(f"{name}: the cotangent of argument {k} has {len(given)} "
                               f"parts, the argument {len(leaves)}")
        for arg, g in zip(leaves, given, strict=True):
            numeric = isinstance(arg, Tensor | np.ndarray | float | int)
            if g is not None and numeric and np.shape(g) != np.shape(arg):
                raise RuntimeError(f"{name}: the cotangent of argument {k} has shape "
                                   f"{list(np.shape(g))}, the argument {list(np.shape(arg))}")
            if isinstance(arg, Tensor) and arg.requires_grad:
                found.append(None if g is None else constant(g))
    return found


def call_jvp(spec, args: tuple) -> Any:
    inputs = _inputs(spec, args)
    with no_grad():
        out = spec.fun(*args)
    nondiff = [args[k] for k in spec.nondiff_argnums]
    diff = _differentiable(spec, args)
    recorded: list = []

    def rule(grads: list) -> list:
        floats = _float_positions(_leaves(recorded[0]))
        create = is_grad_enabled()  # the engine's grad mode is create_graph
        primals = [args[k] if create else _detached(args[k]) for k in diff]
        tangents = [_zero_tangent(args[k]) for k in diff]
        seeds = [t for t in _leaves(tangents) if isinstance(t, Tensor)]
        with enable_grad(), _rules_of(spec):
            _, t_out = spec.jvp_rule(*nondiff, tuple(primals), tuple(tangents))
            t_leaves = _leaves(t_out)
            pairs = [(t_leaves[k], g) for k, g in zip(floats, grads, strict=True)
                     if isinstance(t_leaves[k], Tensor) and t_leaves[k].requires_grad]
            found = autograd_grad([t for t, _ in pairs], seeds, [g for _, g in pairs],
                                  create_graph=create, allow_unused=True) if pairs \
                else [None] * len(seeds)
        arguments = [t for k in diff for t in _leaves(args[k]) if isinstance(t, Tensor)]
        return [g for g, t in zip(found, arguments, strict=True) if t.requires_grad]

    recorded.append(_recorded(spec, out, inputs, rule))
    return recorded[0]


def _detached(value: Any) -> Any:
    return _rebuild(value, iter([t.detach() if isinstance(t, Tensor) else t
                                 for t in _leaves(value)]))


def _zero_tangent(value: Any) -> Any:
    """Zero tangents for `value`'s leaves: Tensors that require grad for its Tensors."""
    return _rebuild(value, iter([
        Tensor(np.zeros(t.shape, t.dtype if np.issubdtype(t.dtype, np.floating) else float),
               requires_grad=True) if isinstance(t, Tensor)
        else np.zeros(np.shape(t)) if isinstance(t, np.ndarray) else 0.0
        for t in _leaves(value)]))
