"""The one table of library function rules: which rule lowers a call of a Python object.

Contract: `register(objects, rule)` makes `rule(cx, args, kwargs, node)` lower the calls of
each of `objects` (found by identity, so any import alias works: `np.sin`, `numpy.sin`,
`from math import sin`); `keywords=False` registers `rule(cx, args, node)`, whose calls
with keyword arguments are refused by name (`refuse_keywords`); `syntax=True` registers
`rule(cx, call_node)`, which reads its arguments' syntax (`np.einsum`'s subscripts string);
`rewrite=True` registers `rule(cx, call_node)` giving the expression (a gast node) the call
stands for, converted in its place (`operator.add(x, y)` is `x + y`, views included).
`add_resolver(resolve)` adds rules for objects not known by identity when the library is
imported (bound methods, objects of modules loaded lazily, user objects): `resolve(obj)`
gives a rule or None. `lookup(obj)` / `syntactic(obj)` / `rewriting(obj)` find the rule of
a call (None when there is none). `cx` is the converter as a `CallContext` (`context.py`);
the helpers of keyword handling every rule shares are here: `bind` (by a function's own signature),
`bind_params` (by a table of parameter names and defaults), `param` / `known` (parameters
known when compiling), `options` (compile-time keyword options), `refuse_keywords`.
`constant(module, attr)` gives module constants (`math.pi`, `np.inf`); `supported_names`
and `nearest` make 'did you mean' hints; `library_function` names a numpy/scipy function
that has no rule, so its call is refused rather than inlined. Registering is all that
importing the rule modules does.
"""

from __future__ import annotations

import builtins
import difflib
import inspect
import math
from collections.abc import Callable

import numpy as np

from ...errors import AdliteTypeError
from ...ir.builder import const
from ..context import CallContext

Rule = Callable[..., object]
REQUIRED = object()  # a parameter of `bind_params` without a default
_FUNCTIONS: dict[int, tuple[object, Rule]] = {}
_SYNTACTIC: dict[int, tuple[object, Rule]] = {}
_REWRITES: dict[int, tuple[object, Rule]] = {}
_RESOLVERS: list[Callable[[object], Rule | None]] = []
_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "tau": math.tau}
_LIBRARIES = {"numpy": "np", "scipy": "scipy"}


def register(objects, rule: Rule, *, keywords: bool = True, syntax: bool = False,
             rewrite: bool = False) -> None:
    """Lower the calls of each of `objects` with `rule` (see the module doc for its forms)."""
    if not keywords:
        rule = _refusing_keywords(rule)
    table = _SYNTACTIC if syntax else _REWRITES if rewrite else _FUNCTIONS
    for obj in objects:
        table[id(obj)] = (obj, rule)


def _refusing_keywords(rule: Rule) -> Rule:
    def lower(cx: CallContext, args, kwargs, node):
        refuse_keywords(cx, kwargs, node)
        return rule(cx, args, node)

    return lower


def add_resolver(resolve: Callable[[object], Rule | None]) -> None:
    """`resolve(obj)` gives the rule of objects the table does not hold by identity, or None."""
    _RESOLVERS.append(resolve)


def registered(obj) -> Rule | None:
    """The rule registered for `obj` itself (resolvers not asked), or None."""
    entry = _FUNCTIONS.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


def lookup(obj) -> Rule | None:
    """The rule `(cx, args, kwargs, node)` lowering calls of `obj`, or None."""
    rule = registered(obj)
    if rule is not None:
        return rule
    return next((r for r in (resolve(obj) for resolve in _RESOLVERS) if r is not None), None)


def syntactic(obj) -> Rule | None:
    """The rule `(cx, call_node)` of a function whose arguments are read from the call's
    syntax, or None."""
    entry = _SYNTACTIC.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


def rewriting(obj) -> Rule | None:
    """The rule `(cx, call_node) -> expression node` of a function whose call stands for
    another expression, or None."""
    entry = _REWRITES.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


def bind(cx: CallContext, fn, name: str, args, kwargs, node) -> dict:
    """The arguments of the numpy function `fn` (called `name` in messages) by parameter
    name, by its own signature, its defaults filled in (numbers as constants); numpy's
    TypeError for arguments that do not bind."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError as e:
        raise cx.source.error(node, f"{name}(): {e}", kind=AdliteTypeError) from None
    bound.apply_defaults()
    return {k: const(v) if isinstance(v, int | float) else v
            for k, v in bound.arguments.items()}


def bind_params(cx: CallContext, name: str, args, kwargs, params: dict, node) -> dict:
    """The arguments of `np.<name>` by parameter name (`params`: name -> default, in order;
    `REQUIRED` for none), numbers among the defaults as constants."""
    names = list(params)
    if len(args) > len(names):
        raise cx.source.error(node, f"np.{name}() takes at most {len(names)} positional "
                              f"arguments here, got {len(args)}")
    bound = dict(zip(names, args, strict=False))
    for key, value in kwargs.items():
        if key not in params:
            raise cx.source.error(node, f"np.{name}(): unsupported keyword argument {key!r}",
                                  f"supported here: {', '.join(names)}")
        if key in bound:
            raise cx.source.error(node, f"np.{name}() got multiple values for argument "
                                  f"{key!r}")
        bound[key] = value
    for key, default in params.items():
        if key not in bound:
            if default is REQUIRED:
                raise cx.source.error(node, f"np.{name}() missing required argument {key!r}")
            bound[key] = const(default) if isinstance(default, int | float) else default
    return bound


def param(cx: CallContext, p: dict, name: str, node, key: str = "option"):
    """Parameter `name` of the bound call `p` (`bind_params`), known when compiling (else
    the refusal of `static_requirements` key `key`, naming the parameter)."""
    return cx.static(p[name], node, f"its `{name}`", key)


def options(cx: CallContext, kwargs, allowed, node) -> dict:
    """The keyword arguments (only `allowed` ones), as compile-time values."""
    refuse_keywords(cx, kwargs, node, allowed)
    return known(cx, kwargs, node)


def known(cx: CallContext, given: dict, node) -> dict:
    """The options `given` ({name: value}), known when compiling (else the refusal naming
    the option)."""
    return {k: cx.static(v, node, f"its `{k}`", "option") for k, v in given.items()}


def refuse_keywords(cx: CallContext, kwargs, node, allowed=()) -> None:
    """Refuse the keyword arguments not in `allowed`, naming them (`out=` with its own
    hint)."""
    unknown = sorted(set(kwargs) - set(allowed))
    if "out" in unknown:
        raise cx.source.error(node, "unsupported keyword argument(s) out: compiled code "
                              "makes new arrays",
                              "assign the result: y = np.multiply(a, b), or "
                              "y[...] = np.multiply(a, b) to write into a local array y")
    if unknown:
        raise cx.source.error(node, f"unsupported keyword argument(s) {', '.join(unknown)}",
                              f"supported here: {', '.join(allowed) or 'none'}")


def constant(module, attr: str):
    """The value of the module constant `module.attr` (`math.pi`, `np.inf`), or None."""
    if module in (np, math) and attr in _CONSTANTS:
        return _CONSTANTS[attr]
    return None


def supported_names(module=None) -> list[str]:
    """The public names of `module` (numpy, math, builtins, ... when None) that have a
    lowering, sorted: what a 'did you mean' may offer (never adlite's own markers)."""
    modules = [module] if module is not None else [np, np.linalg, math, builtins]
    return sorted({name for m in modules for name in dir(m) if not name.startswith("_")
                   and lookup(getattr(m, name, None)) is not None})


def nearest(name: str, candidates) -> str | None:
    """'did you mean ...?' for the candidates closest to `name` (None when none is close)."""
    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.7)
    return f"did you mean {' or '.join(repr(c) for c in close)}?" if close else None


def library_function(func) -> str | None:
    """`np.eye`-style name of a function of numpy or scipy (never inlined), or None."""
    if not callable(func) or not isinstance(getattr(func, "__name__", None), str):
        return None
    module = getattr(func, "__module__", "") or ""
    top = module.split(".")[0]
    if top not in _LIBRARIES:
        return None
    public = [part for part in module.split(".")[1:] if not part.startswith("_")]
    return ".".join([_LIBRARIES[top], *public, func.__name__])
