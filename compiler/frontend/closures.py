"""Calls to Python functions inside compiled code: where a callee's definition comes from,
how a call's arguments bind to its parameters, and nested functions (closures).

Contract:
- `definition(fn)` gives (source, a fresh copy of the `def`, globals) of a callee: a Python
  function (a `def`, or a `lambda`, also on a continuation line of a statement, told apart
  from other lambdas of its line by its parameters, then by the column its code starts at)
  or a `Closure`.
- `bind(conv, fn, pairs, kwpairs, node)` binds (value, Ref) pairs to the callee's parameters
  as Python does (`inspect.Signature.bind`, defaults applied; `*args` gets a tuple):
  {parameter: (value, Ref)}. A Python default value becomes a constant (numbers), a tuple of
  them, or a compile-time value (None, strings, functions, ...); array defaults are refused.
- A `Closure` is a nested `def` or `lambda` evaluated in compiled code: its definition, the
  converter it was defined in (`owner`) and, for each free name, the owner's variable holding
  it (`names`, in the owner's `scope.Scope`). Free variables are read when the closure is
  called (late binding, as in Python) and bound in the inlined body like extra arguments;
  writes into a free array are seen by the enclosing function when the closure is called
  there, and refused when it is called from another function. A closure that declares a
  name `nonlocal` rebinds the enclosing variable: the value its call leaves is bound there
  (`store_rebound`; refused when called from another function than the one defining it,
  which cannot see that variable). Default values are evaluated
  where the `def` stands; those known only at run time are kept in hidden variables of the
  owner (`Stored`).
- `operands(conv, names)` extends the names a block reads (an `if` arm or loop body) with the
  attribute variables of the objects they hold (`instances.py`) and the free variables of the
  closures it may call: the owner's own names, or, for a closure from
  another function, hidden names of `conv` holding their values (the closure is rebound to
  read them there), so that the block's subgraph receives them as operands.
"""

from __future__ import annotations

import copy
import inspect
import itertools
from dataclasses import dataclass

import gast
import numpy as np

from .. import gast_adapter as g
from ..errors import AdliteSourceError
from ..ir.builder import const
from . import instances
from .aliasing import LIVE, Ref, new_object
from .conversion_context import ConversionContext
from .normalize import NestedDef, lambda_def, without_nonlocal
from .source import Source, get_source
from .static_values import is_runtime, same

_hidden = itertools.count(1)


@dataclass(eq=False)
class Closure:
    node: gast.FunctionDef
    owner: ConversionContext  # the converter whose variables hold the free names
    names: dict[str, str]  # free name -> the owner's variable
    defaults: dict[str, object]  # parameter -> its value, or the Stored variable holding it
    source: Source
    rebinds: tuple[str, ...] = ()  # the free names it declares `nonlocal`

    @property
    def __name__(self) -> str:  # noqa: PLW3201 - read like a Python function's name
        return self.node.name

    def same_as(self, other) -> bool:
        """The same definition reading the same variables (a `def` run again in a loop)."""
        return isinstance(other, Closure) and other.node is self.node and \
            other.owner is self.owner and other.names == self.names and \
            self.defaults.keys() == other.defaults.keys() and \
            all(same(self.default(k), other.default(k)) for k in self.defaults)

    def default(self, param: str):
        d = self.defaults[param]
        return self.owner.scope.get(d.var) if isinstance(d, Stored) else d


@dataclass(frozen=True)
class Stored:
    """A default value known only at run time, kept in the owner's variable `var`."""
    var: str


def make(conv: ConversionContext, node: NestedDef) -> Closure:
    """The closure a nested `def`/`lambda` evaluates to: its defaults are evaluated now and
    kept in hidden variables of the owner (read when it is called, like free variables)."""
    defaults = {}
    for name, d in zip(node.default_names, node.defaults, strict=True):
        value, ref = conv.expr_ref(d)
        if is_runtime(value):
            hidden = f"__default{next(_hidden)}_{name}"
            conv.bind(hidden, value, ref)
            value = Stored(hidden)
        defaults[name] = value
    return Closure(node.fdef, conv, {n.id: n.id for n in node.free}, defaults, conv.source,
                   tuple(node.rebinds))


def definition(fn) -> tuple[Source, gast.FunctionDef, dict]:
    if isinstance(fn, Closure):
        return fn.source, without_nonlocal(copy.deepcopy(fn.node)), fn.owner.globals
    source = get_source(fn)
    tree = gast.parse(source.text)
    fdef = tree.body[0] if tree.body else None
    if fn.__code__.co_name == "<lambda>":  # (a wrapper may have renamed a def so, too)
        fdef = _lambda_in(fn, tree, source)
    elif isinstance(fdef, gast.AsyncFunctionDef):
        raise source.error(fdef, "only functions defined with `def` or `lambda` can be "
                                 "compiled")
    elif not (isinstance(fdef, gast.FunctionDef) and fdef.name == fn.__code__.co_name):
        # the lines Python holds for the file are not this function's (exec'd code whose
        # "<string>" also names Python's -c command, a file changed since it was imported)
        raise AdliteSourceError(
            f"cannot read the source code of {fn.__qualname__!r}: the lines at "
            f"{source.filename}:{source.first_line} do not define it. adlite compiles "
            "functions from their source: define the function in a .py file (not with exec())"
            ", and reload a module edited since it was imported")
    closure = inspect.getclosurevars(fn)
    return source, fdef, {**fn.__globals__, **closure.nonlocals}


def _lambda_in(fn, tree, source: Source) -> gast.FunctionDef:
    code = fn.__code__
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    line = code.co_firstlineno - source.first_line + 1  # in `tree`
    lambdas = [n for n in gast.walk(tree) if isinstance(n, gast.Lambda) and n.lineno == line and
               [a.id for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs] == params]
    if len(lambdas) > 1:  # several on the line: the one whose body the code starts at
        start = _body_start(code)
        lambdas = [n for n in lambdas if (source.first_line + n.body.lineno - 1,
                                          source.indent + n.body.col_offset) == start]
    if len(lambdas) != 1:
        raise source.error(tree.body[0] if tree.body else None,
                           "cannot tell which lambda of this line is called",
                           "define the function with `def`")
    return lambda_def(lambdas[0])


def _body_start(code) -> tuple[int, int] | None:
    """(line, column) in the file where a lambda's code object starts: the first position
    of its instructions (the entry's own positions, column 0 to 0, left out)."""
    starts = [(line, col) for line, _, col, end in code.co_positions()
              if line is not None and col is not None and (col, end) != (0, 0)]
    return min(starts, default=None)


def parameters(fdef: gast.FunctionDef) -> list[str]:
    """The parameter names, in the order `inspect.signature` lists them."""
    a = fdef.args
    return [p.id for p in a.posonlyargs + a.args + ([a.vararg] if a.vararg else []) +
            a.kwonlyargs + ([a.kwarg] if a.kwarg else [])]


class _Pair(tuple):
    """A call's (value, Ref) argument, told apart from a tuple default value."""


def _signature(conv: ConversionContext, fn, node) -> inspect.Signature:
    """The callee's signature, its defaults as (value, Ref) pairs."""
    if not isinstance(fn, Closure):
        sig = inspect.signature(fn)
        return sig.replace(parameters=[
            p if p.default is p.empty else
            p.replace(default=_Pair((_python_default(conv, p, fn, node), None)))
            for p in sig.parameters.values()])
    a, kind = fn.node.args, inspect.Parameter
    groups = [(a.posonlyargs, kind.POSITIONAL_ONLY), (a.args, kind.POSITIONAL_OR_KEYWORD),
              ([a.vararg] if a.vararg else [], kind.VAR_POSITIONAL),
              (a.kwonlyargs, kind.KEYWORD_ONLY), ([a.kwarg] if a.kwarg else [], kind.VAR_KEYWORD)]
    return inspect.Signature([
        kind(p.id, k, default=_closure_default(conv, fn, p.id, node)
             if p.id in fn.defaults else kind.empty)
        for ps, k in groups for p in ps])


def _closure_default(conv: ConversionContext, fn: Closure, param: str, node) -> _Pair:
    d = fn.defaults[param]
    return _Pair(read_free(conv, fn, d.var, node) if isinstance(d, Stored) else (d, None))


def _python_default(conv: ConversionContext, p: inspect.Parameter, fn, node):
    if isinstance(p.default, np.ndarray):
        raise conv.source.error(node, f"{fn.__name__}(): the default value of {p.name!r} is "
                                      "an array", f"pass {p.name} explicitly")
    return constant(p.default)


def constant(value):
    """A Python default value in compiled code: a number as a constant, a tuple item by
    item, anything else as a compile-time value."""
    if isinstance(value, tuple):
        return tuple(constant(v) for v in value)
    if isinstance(value, bool | int | float | np.bool_ | np.integer | np.floating):
        return const(value.item() if hasattr(value, "item") else value)
    return value


def bind(conv: ConversionContext, fn, pairs: list, kwpairs: dict, node) -> dict[str, tuple]:
    """{parameter: (value, Ref)} for a call `fn(*pairs, **kwpairs)`, bound as Python binds it
    (then the closure's free variables, read now)."""
    sig = _signature(conv, fn, node)
    try:
        bound = sig.bind(*map(_Pair, pairs), **{k: _Pair(v) for k, v in kwpairs.items()})
    except TypeError as e:
        raise conv.source.error(node, f"{fn.__name__}(): {e}") from None
    bound.apply_defaults()
    out = {}
    for name, arg in bound.arguments.items():
        kind = sig.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:  # a dict of the other keywords
            out[name] = ({k: v for k, (v, _) in arg.items()}, None)
            continue
        if kind is inspect.Parameter.VAR_POSITIONAL:
            out[name] = (tuple(v for v, _ in arg), tuple(r for _, r in arg))
        else:
            out[name] = tuple(arg)
    if isinstance(fn, Closure):
        out.update({free: read_free(conv, fn, var, node) for free, var in fn.names.items()
                    if var in fn.owner.scope})
    return out


def store_rebound(conv: ConversionContext, closure: Closure, callee, kept: set, node) -> None:
    """After an inlined call of `closure`: the enclosing variables it rebinds (`nonlocal`)
    hold the values the call left in them; `callee` is the call's converter and `kept` the
    objects the call received (an array written in place is stored back as any argument
    is). Only the function that defined the closure sees its variables: a call from
    another function that rebinds one is refused."""
    for name in closure.rebinds:
        var = closure.names.get(name)
        if var is None or name not in callee.scope:
            continue
        value, ref = callee.scope.get(name), callee.scope.ref(name)
        if isinstance(ref, Ref) and ref.plain and ref.obj in kept:
            continue  # the same array object (perhaps written in place): stored back
        if value is LIVE:
            value, ref = callee.view_value(ref), Ref(ref.obj, frozen=True)
        if closure.owner is not conv:
            raise conv.source.error(node, f"{closure.__name__}() rebinds {name!r} of the "
                                          "function that defined it (nonlocal) and is called "
                                          "from another function",
                                    "call it where it is defined, or return the new value")
        conv.bind(var, value, ref)
        conv.scope.define(var)


def read_free(conv: ConversionContext, closure: Closure, var: str, node) -> tuple:
    """(value, Ref) of the owner's variable `var`, read now (late binding). Names the owner
    does not hold are left to the callee's globals, as in Python."""
    owner = closure.owner
    if var not in owner.scope:  # a default kept by a loop body that has ended
        raise conv.source.error(node, f"{closure.__name__}(): a default value computed inside "
                                      "a loop is used after the loop",
                                "define the function before the loop")
    if owner is conv:
        return conv.expr_ref(g.name(var, at=node))
    value = owner.scope.get(var)
    if value is LIVE:
        value = owner.view_value(owner.scope.ref(var))
    return value, _read_only(owner.scope.ref(var))


_READ_ONLY: set[int] = set()  # objects standing for another function's arrays


def _read_only(ref):
    """Another function's array: writes into it would not reach the owner's names, so it is
    bound as a frozen view (writes refused, see `is_read_only`)."""
    if isinstance(ref, tuple):
        return tuple(_read_only(r) for r in ref)
    if not isinstance(ref, Ref):
        return None
    obj = new_object()
    _READ_ONLY.add(obj)
    return Ref(obj, frozen=True)


def is_read_only(ref: Ref) -> bool:
    return ref.obj in _READ_ONLY


def operands(conv: ConversionContext, names: list[str], refs: dict, node) -> None:
    """Append to `names` the variables the closures they hold read (see the module doc);
    the refs of new hidden names go to `conv.scope` and `refs` (the block's)."""
    k = 0
    while k < len(names):
        value = conv.scope.get(names[k])
        names.extend(v for v in instances.attribute_variables(conv.scope, [value])
                     if v not in names)  # the attributes of the objects they hold
        if isinstance(value, Closure):
            if value.owner is not conv:
                value = _relocate(conv, value, refs, node)
                conv.scope.rebind(names[k], value)
            stored = [d.var for d in value.defaults.values() if isinstance(d, Stored)]
            names.extend(v for v in [*value.names.values(), *stored]
                         if v in conv.scope and v not in names)
        k += 1


def _relocate(conv: ConversionContext, closure: Closure, refs: dict, node) -> Closure:
    """The closure reading its variables from new hidden names of `conv` (their values now)."""
    def move(var):
        value, ref = read_free(conv, closure, var, node)
        hidden = f"__free{next(_hidden)}_{var.strip('_')}"
        conv.scope.bind(hidden, _relocate(conv, value, refs, node)
                        if isinstance(value, Closure) else value, ref)
        if ref is not None:
            refs[hidden] = ref
        return hidden

    owner = closure.owner.scope
    return Closure(closure.node, conv,
                   {free: move(var) for free, var in closure.names.items() if var in owner},
                   {p: Stored(move(d.var)) if isinstance(d, Stored) else d
                    for p, d in closure.defaults.items()}, closure.source, closure.rebinds)


@dataclass(frozen=True)
class Unusable:
    """A function made inside an if arm or a loop body by another function's call: the
    variables it reads exist only there, so it cannot be called after the if or loop."""
    name: str
    line: int

    def refuse(self, conv: ConversionContext, node):
        raise conv.source.error(node, f"{self.name!r} is a function made at line {self.line} "
                                      "inside an if or a loop by another function's call, "
                                      "used after it",
                                "call it inside the if or loop, or make it before")


def after_block(conv: ConversionContext, value, before: dict, line: int):
    """`value` as the code after an if or loop sees it (see `Unusable`); `before` is the
    environment before the block (a closure it already held stays usable)."""
    if isinstance(value, Closure) and value.owner is not conv and \
            not any(v is value for v in before.values()):
        return Unusable(value.__name__, line)
    return value
