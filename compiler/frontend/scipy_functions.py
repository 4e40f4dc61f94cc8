"""scipy's special functions and normal distribution in compiled code; scipy stays optional.

Contract: registers a resolver with `functions` (`add_resolver`) that gives the lowerings of
- `scipy.special`: `erf`, `erfc`, `ndtr`, `log_ndtr`, `expit`, `logit`, `xlogy`, `gammaln`,
  `digamma` (elementwise, on numbers and arrays), `logsumexp(a, axis=None, keepdims=False)`
  and `softmax(x, axis=None)` (the composites of `adlite.derivatives.composites`);
- `scipy.stats.norm`: the methods `cdf`, `pdf`, `logpdf` with `loc` and `scale` (by position
  or keyword), the composites of `adlite.derivatives.special` (NaN where `scale <= 0`, as
  scipy's). A method is resolved by its owner's type and name (`norm.cdf` is a new bound
  method at every access): `method(obj, name)` gives it for an attribute access;
- `scipy.linalg`: the lowerings of `scipy_linalg`.
by identity, like numpy's functions. Nothing here imports scipy: a table is filled the first
time an object is resolved after the user's program imported `scipy.special` / `scipy.stats`
(they are then in `sys.modules`).
"""

from __future__ import annotations

import inspect
import math
import sys
import types

from adlite.derivatives import composites, special

from ..ir.builder import const
from ..primitives.vocabulary import BuilderOps
from . import array_functions
from .functions import add_resolver, refuse_keywords, unary, without_keywords

_BY_ID: dict[int, tuple[object, object]] = {}
_METHODS: dict[tuple[type, str], object] = {}
_LOADED: set[str] = set()


def _primitive(prim):
    return without_keywords(unary(prim))


def _composite(fn, arity=1):
    def lower(conv, args, kwargs, node):
        refuse_keywords(conv, kwargs, node, ())
        values = [conv.as_float(a, node) for a in conv.exactly(args, arity, node)]
        if arity == 2:
            values = conv.promote(*values, node)
        return fn(BuilderOps(conv.b), *values)

    return lower


def _axis_option(conv, args, kwargs, node, names):
    """The options `names` (`axis` first), by position after the operand or by keyword."""
    refuse_keywords(conv, kwargs, node, names)
    if len(args) > 1 + len(names):
        raise conv.source.error(node, f"expected at most {1 + len(names)} arguments")
    given = dict(zip(names, args[1:], strict=False)) | kwargs
    return {k: conv.static(v, node) for k, v in given.items()}


def _logsumexp(conv, args, kwargs, node):
    options = _axis_option(conv, args, kwargs, node, ("axis", "b", "keepdims", "return_sign"))
    for name in ("b", "return_sign"):
        if options.get(name) not in (None, False):
            raise conv.source.error(node, f"logsumexp({name}=...) is not supported in compiled "
                                          "code", "scale the exponentials explicitly")
    x = conv.as_float(args[0], node)
    shape = x.type.shape or ()
    axis = array_functions._axis(conv, options.get("axis"), len(shape), node)
    return composites.logsumexp(BuilderOps(conv.b), x, axis, bool(options.get("keepdims")))


def _softmax(conv, args, kwargs, node):
    options = _axis_option(conv, args, kwargs, node, ("axis",))
    x = conv.as_float(args[0], node)
    axis = array_functions._axis(conv, options.get("axis"), len(x.type.shape or ()), node)
    return composites.softmax(BuilderOps(conv.b), x, axis)


def _log_softmax(conv, args, kwargs, node):
    options = _axis_option(conv, args, kwargs, node, ("axis",))
    x = conv.as_float(args[0], node)
    axis = array_functions._axis(conv, options.get("axis"), len(x.type.shape or ()), node)
    return composites.log_softmax(BuilderOps(conv.b), x, axis)


def _distribution(fn):
    """`norm.<method>(x, loc=0, scale=1)`."""

    def lower(conv, args, kwargs, node):
        refuse_keywords(conv, kwargs, node, ("loc", "scale"))
        if not 1 <= len(args) <= 3:
            raise conv.source.error(node, "expected x, loc and scale")
        given = dict(zip(("x", "loc", "scale"), args, strict=False))
        for name in ("loc", "scale"):
            if name in kwargs:
                if name in given:
                    raise conv.source.error(node, f"got multiple values for argument {name!r}")
                given[name] = kwargs[name]
        x = conv.as_float(given["x"], node)
        loc = conv.as_float(given.get("loc", const(0.0)), node)
        scale = conv.as_float(given.get("scale", const(1.0)), node)
        x, loc = conv.promote(x, loc, node)
        x, scale = conv.promote(x, scale, node)
        value = fn(BuilderOps(conv.b), x, loc, scale)
        if scale.type.is_array or not (getattr(scale, "value", 0.0) > 0.0):
            value = conv.b.select(conv.b.gt(scale, const(0.0, scale.type.scalar)), value,
                                  const(math.nan, value.type.scalar))
        return value

    return lower


def _load_special() -> None:
    import scipy.special as sc

    for obj, lowering in [
            (sc.erf, _primitive("erf")), (sc.erfc, _primitive("erfc")),
            (sc.expit, _primitive("sigmoid")), (sc.gammaln, _primitive("gammaln")),
            (sc.digamma, _primitive("digamma")), (sc.ndtr, _composite(special.ndtr)),
            (sc.logit, _composite(special.logit)), (sc.xlogy, _composite(special.xlogy, 2)),
            (sc.log_ndtr, _composite(special.log_ndtr)), (sc.logsumexp, _logsumexp),
            (sc.softmax, _softmax), (sc.log_softmax, _log_softmax)]:
        _BY_ID[id(obj)] = (obj, lowering)


def _load_stats() -> None:
    import scipy.stats

    owner = type(scipy.stats.norm)
    for name, fn in [("cdf", special.norm_cdf), ("pdf", special.norm_pdf),
                     ("logpdf", special.norm_logpdf), ("logcdf", special.norm_logcdf)]:
        _METHODS[(owner, name)] = _distribution(fn)


def _load_linalg() -> None:
    from . import scipy_linalg

    for obj, lowering in scipy_linalg.lowerings():
        _BY_ID[id(obj)] = (obj, lowering)


def _load() -> None:
    for module, load in (("scipy.special", _load_special), ("scipy.stats", _load_stats),
                         ("scipy.linalg", _load_linalg)):
        if module in sys.modules and module not in _LOADED:
            _LOADED.add(module)
            load()


def _resolve(obj):
    if "scipy" not in sys.modules:
        return None
    _load()
    entry = _BY_ID.get(id(obj))
    if entry is not None and entry[0] is obj:
        return entry[1]
    if isinstance(obj, types.MethodType):
        owner = type(obj.__self__)
        lowering = _METHODS.get((owner, obj.__name__))
        if lowering is not None and obj.__func__ is getattr(owner, obj.__name__, None):
            return lowering
    return None


def method(obj, name: str):
    """`obj.name` when it is a method resolved here (`norm.cdf`), else None; reads no
    attribute that could run user code (a plain function of the class only)."""
    if "scipy" not in sys.modules or inspect.isclass(obj):
        return None
    _load()
    if (type(obj), name) not in _METHODS:
        return None
    if not isinstance(inspect.getattr_static(type(obj), name, None), types.FunctionType):
        return None
    return getattr(obj, name)


add_resolver(_resolve)
