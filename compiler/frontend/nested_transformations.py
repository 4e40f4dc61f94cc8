"""Transformations (`grad`, `jit`, `hessian`, `value_and_grad`, the Jacobians, ...) of
functions defined inside compiled code: nested `def`s and lambdas that close over the
enclosing function's values.

Contract: `make(conv, make_fn, function, rest, options, node)` is what compiled code's call
`grad(f, ...)` gives for a closure `f` (`closures.Closure`) or for such a transformation of
one: a `Nested`. The closure is lifted into a function of its own (`Lifted`) whose free
variables of the enclosing function are keyword-only parameters after its own, and the API
function (`make_fn`) transforms that one, so that its graph takes the closure's free values
as extra inputs. `call(conv, nested, args, node)` inlines it: the free values are read when
it is called (late binding, as Python's closures read them) and passed after the
arguments. Derivatives flow through the free values into the enclosing function's own
derivative (autograd's nested `grad`s: `grad(lambda y: x * y)(2.0)` inside a function of
`x` is differentiated w.r.t. `x` too), to any order (`grad(grad(f))` of a closure).
Refused at the call: closures that declare names `nonlocal`, that take `*args` or
`**kwargs`, whose free values are functions or objects made in compiled code or lists of
run-time length, and `vmap` of a closure (its batch axes would also map the free values).
"""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass

from .. import gast_adapter as g
from .closures import Closure, Stored, read_free
from .conversion_context import ConversionContext
from .objects import Instance
from .runtime_lists import RunTimeArray
from .selection_values import Selection
from .sequences import ListValue
from .static_requirements import refusal


@dataclass(eq=False)
class Lifted(Closure):
    """A closure whose free variables are keyword-only parameters (`free`, after its own):
    a function of its arguments and of the values it reads, which the API transforms as it
    transforms a Python function (its signature is `__signature__`)."""

    free: tuple[str, ...] = ()

    @property
    def __signature__(self) -> inspect.Signature:  # noqa: PLW3201 - read by inspect
        kind = inspect.Parameter
        a = self.node.args
        return inspect.Signature(
            [kind(p.id, kind.POSITIONAL_ONLY) for p in a.posonlyargs] +
            [kind(p.id, kind.POSITIONAL_OR_KEYWORD) for p in a.args] +
            [kind(p.id, kind.KEYWORD_ONLY) for p in a.kwonlyargs])

    @staticmethod
    def __call__(*args, **kwargs):  # noqa: PLW3201 - callable for `inspect.signature` only
        raise TypeError("a function defined inside compiled code runs in compiled code only")


@dataclass(eq=False)
class Nested:
    """`make_fn(f, ...)` of a closure `f` made in compiled code: the transformation of its
    `Lifted` function (`transformed`) and the closure whose free values it reads."""

    transformed: object
    closure: Closure
    free: tuple[str, ...]

    @property
    def __name__(self) -> str:  # noqa: PLW3201 - read like a function's name in messages
        return self.closure.__name__


def make(conv: ConversionContext, make_fn, function, rest: list, options: dict,
         node) -> Nested:
    """`make_fn(function, *rest, **options)` for a closure or a `Nested` transformation of
    one."""
    name = make_fn.__name__
    if name == "vmap":
        raise conv.source.error(node, "vmap() of a function defined inside compiled code",
                                "define the function at module level, or pass the values it "
                                "reads as arguments with in_axes None")
    if isinstance(function, Nested):
        inner, closure, free = function.transformed, function.closure, function.free
    else:
        closure, inner = function, _lift(conv, function, node)
        free = inner.free
    try:
        return Nested(make_fn(inner, *rest, **options), closure, free)
    except (TypeError, ValueError) as e:
        raise conv.source.error(node, f"{name}(): {e}") from None


def _lift(conv: ConversionContext, closure: Closure, node) -> Lifted:
    what = f"{closure.__name__}(), a function defined inside compiled code"
    a = closure.node.args
    if closure.rebinds or a.vararg or a.kwarg:
        why = "declares nonlocal names" if closure.rebinds else "takes *args or **kwargs"
        raise conv.source.error(node, f"a transformation of {what} that {why}",
                                "define the function at module level")
    if any(isinstance(d, Stored) for d in closure.defaults.values()):
        raise refusal(conv.source, node, "value", f"a transformation of {what} whose "
                      "default values are computed from values known only at run time",
                      "pass those values as arguments")
    free = [n for n, var in closure.names.items() if var in closure.owner.scope]
    fdef = copy.deepcopy(closure.node)
    fdef.args.kwonlyargs = fdef.args.kwonlyargs + [g.param(n, at=fdef) for n in free]
    fdef.args.kw_defaults = fdef.args.kw_defaults + [None] * len(free)
    return Lifted(fdef, closure.owner, {}, dict(closure.defaults), closure.source, (),
                  tuple(free))


def call(conv: ConversionContext, nested: Nested, args: list, node):
    """The value of calling `nested` with `args` in `conv` (its free values read now)."""
    closure = nested.closure
    free = []
    for name in nested.free:
        value, _ = read_free(conv, closure, closure.names[name], node)
        if not _liftable(value):
            raise conv.source.error(node, f"a transformation of {closure.__name__}(), which "
                                          f"reads {name!r}: a function, object or run-time "
                                          "list made in compiled code",
                                    "define the function at module level and pass "
                                    f"{name} as an argument")
        free.append(value)
    return conv.inline_transformed(nested.transformed, list(args) + free, node)


def _liftable(value) -> bool:
    """Can the value be passed to a transformation as an argument (numbers, arrays,
    compile-time Python values and containers of them)?"""
    if isinstance(value, ListValue):
        return value.runtime is None and all(_liftable(v) for v in value.items)
    if isinstance(value, tuple):
        return all(_liftable(v) for v in value)
    if isinstance(value, dict):
        return all(_liftable(v) for v in value.values())
    return not isinstance(value, Closure | Nested | Instance | Selection | RunTimeArray)
