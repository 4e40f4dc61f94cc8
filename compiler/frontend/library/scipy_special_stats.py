"""scipy's special functions and distributions in compiled code; scipy stays optional.

Contract: registers a resolver (`registry.add_resolver`) that registers the rules of
- `scipy.special`: `erf`, `erfc` (of complex arguments too), `wofz` (`scipy_special_complex`),
  `erfinv`, `erfcinv`, `ndtr`, `ndtri`, `log_ndtr`, `expit`,
  `logit`, `xlogy`, `gammaln`, `digamma` (elementwise, on numbers and arrays; the composites
  compute float32 operands in double and round the result, as scipy's float32 loops do),
  `multigammaln(a, d)` (d an int known when compiling: scipy's sum of `gammaln(a - (j-1)/2)`
  plus its constant; scipy's ValueError at run time where `a <= (d - 1) / 2`),
  `logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False)` (`b` run-time values),
  `softmax(x, axis=None)`, `log_softmax` (the composites of `adlite.derivatives.composites`),
  and the Bessel, gamma, beta, incomplete and distribution functions of
  `scipy_special_functions`;
- `scipy.stats.norm`: the methods `cdf`, `pdf`, `logpdf`, `logcdf`, `sf`, `logsf`, `ppf`, `isf`
  with `loc` and `scale` (by position or keyword), the composites of
  `adlite.derivatives.special` (NaN where `scale <= 0`, as scipy's), in double whatever the
  operands' dtype (ppf and isf from ndtri at q's dtype), as scipy's;
- `scipy.stats.t`, `chi2`, `gamma`, `beta`, `poisson`: `cdf`, `logcdf`, `sf`, `logsf`
  (`scipy_stats_cumulative`);
- `scipy.stats.multivariate_normal`: `logpdf` and `pdf(x, mean=None, cov=1,
  allow_singular=False)` (`allow_singular=True`: scipy's pseudo-determinant and
  pseudo-inverse over the eigenvalues it keeps), the shapes of
  `special.mvn_shapes` (refused at the call's line with scipy's message), `cov` a matrix, a
  diagonal or a number, in double; a covariance that is not positive definite raises
  numpy's LinAlgError (a ValueError, like scipy's errors) at run time; `entropy` and the
  densities of t, chi2, gamma, beta, poisson and dirichlet: `scipy_stats_densities`;
- frozen distributions: `norm(loc, scale)`, `multivariate_normal(mean, cov)` and the
  distributions above (`t(df)`, `dirichlet(alpha)`, ...) called in compiled code give a
  `_Frozen` whose methods take x and the frozen arguments; a frozen univariate distribution
  of numbers made outside (a global) is read when compiling;
- `scipy.linalg`: the lowerings of `scipy_linalg`.
Functions are resolved by identity, like numpy's; a method by its owner's type and name
(`norm.cdf` is a new bound method at every access): `method(obj, name)` gives it for an
attribute access. Nothing here imports scipy: the rules enter the registry's table the first
time an object is resolved after the user's program imported `scipy.special` /
`scipy.stats` (they are then in `sys.modules`).
"""

from __future__ import annotations

import functools
import inspect
import math
import sys
import types

import numpy as np

from adlite.derivatives import composites, special

from ...errors import AdliteValueError
from ...ir.builder import const
from ...ir.core import F64
from ...primitives.shapes import broadcast_shapes
from ...primitives.vocabulary import BuilderOps
from ..context import CallContext
from . import scipy_special_complex, scipy_special_functions, scipy_stats_cumulative
from .elementwise import unary
from .reductions import normalized_axes
from .registry import add_resolver, known, lookup, refuse_keywords, register, registered
from .scipy_stats_densities import bind, covariance_matrix, densities, doubles, pseudo_logpdf

_METHODS: dict[tuple[type, str], object] = {}
_LOADED: set[str] = set()


def _composite(fn, arity=1):
    """An elementwise composite; float32 operands are computed in double and the result
    rounded, as scipy's float32 loops of these functions do."""

    def lower(cx: CallContext, args, kwargs, node):
        refuse_keywords(cx, kwargs, node, ())
        values = [cx.as_float(a, node) for a in cx.exactly(args, arity, node)]
        if arity == 2:
            values = cx.promote(*values, node)
        scalar = values[0].type.scalar
        value = fn(BuilderOps(cx.b), *(cx.to_type(v, F64) for v in values))
        return cx.to_type(value, scalar)

    return lower


def _axis_option(cx: CallContext, args, kwargs, node, names, runtime=()):
    """The options `names` (`axis` first) given, by position after the operand or by keyword:
    compile-time values, but for those named in `runtime` (their values as given)."""
    refuse_keywords(cx, kwargs, node, names)
    if len(args) > 1 + len(names):
        raise cx.source.error(node, f"expected at most {1 + len(names)} arguments")
    given = dict(zip(names, args[1:], strict=False)) | kwargs
    return {**known(cx, {k: v for k, v in given.items() if k not in runtime}, node),
            **{k: v for k, v in given.items() if k in runtime}}


@functools.cache
def _scalar_kept_shape() -> tuple[int, ...]:
    """The shape the installed scipy gives `logsumexp(number, keepdims=True)`: (1,) for scipy
    1.15 and later (asked once, so that compiled code follows the scipy it runs beside)."""
    special_module = sys.modules["scipy.special"]  # the user's code called it: imported
    return np.shape(special_module.logsumexp(0.0, keepdims=True))


def _logsumexp(cx: CallContext, args, kwargs, node):
    """`logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False)`: `b` a run-time
    number or array broadcast against `a` (the reduced axes are those of the broadcast
    shape); with `b` or `return_sign`, `composites.scaled_logsumexp`: NaN where the sum is
    negative unless `return_sign`, which returns (log|sum|, its sign) as scipy's."""
    options = _axis_option(cx, args, kwargs, node, ("axis", "b", "keepdims", "return_sign"),
                           runtime=("b",))
    b = options.pop("b", None)
    signed, keepdims = bool(options.get("return_sign")), bool(options.get("keepdims"))
    x = cx.as_float(args[0], node)
    if b is None and not signed:
        if keepdims and not x.type.shape and _scalar_kept_shape():  # scipy: at least 1-d
            x = cx.b.broadcast_to(x, shape=_scalar_kept_shape())
        axis = normalized_axes(cx, options.get("axis"), len(x.type.shape or ()), node)
        return composites.logsumexp(BuilderOps(cx.b), x, axis, keepdims)
    x, b = cx.promote(x, cx.as_float(const(1.0) if b is None else b, node), node)
    try:  # scipy: broadcast, at least one dimension
        shape = broadcast_shapes(x.type.shape or (), b.type.shape or ()) or (1,)
    except ValueError as e:
        raise cx.source.error(node, str(e)) from None
    x, b = (v if v.type.shape == shape else cx.b.broadcast_to(v, shape=shape) for v in (x, b))
    axis = normalized_axes(cx, options.get("axis"), len(shape), node)
    o = BuilderOps(cx.b)
    magnitude, sign = composites.scaled_logsumexp(o, x, b, axis, keepdims)
    if signed:
        return magnitude, sign
    return o.select(o.lt(sign, 0.0), o.constant(math.nan, magnitude), magnitude)


def _softmax(cx: CallContext, args, kwargs, node):
    options = _axis_option(cx, args, kwargs, node, ("axis",))
    x = cx.as_float(args[0], node)
    axis = normalized_axes(cx, options.get("axis"), len(x.type.shape or ()), node)
    return composites.softmax(BuilderOps(cx.b), x, axis)


def _log_softmax(cx: CallContext, args, kwargs, node):
    options = _axis_option(cx, args, kwargs, node, ("axis",))
    x = cx.as_float(args[0], node)
    axis = normalized_axes(cx, options.get("axis"), len(x.type.shape or ()), node)
    return composites.log_softmax(BuilderOps(cx.b), x, axis)


def _distribution(fn, quantile: bool = False):
    """`norm.<method>(x, loc=0, scale=1)`; a `quantile` method's x is ndtri(q), computed at
    q's dtype (scipy's), then in double."""

    def lower(cx: CallContext, args, kwargs, node):
        given = bind(cx, args, kwargs, node, ("x", "loc", "scale"))
        if quantile:
            given["x"] = _NDTRI(cx, [given["x"]], {}, node)
        x, loc, scale = doubles(cx, [given["x"], given.get("loc", const(0.0)),
                                      given.get("scale", const(1.0))], node)
        value = fn(BuilderOps(cx.b), x, loc, scale)
        if scale.type.is_array or not (getattr(scale, "value", 0.0) > 0.0):
            value = cx.b.select(cx.b.gt(scale, const(0.0, scale.type.scalar)), value,
                                const(math.nan, value.type.scalar))
        return value

    return lower


_NDTRI = _composite(special.ndtri)


def _shape(value) -> tuple[int, ...]:
    return tuple(value.type.shape or ())


def _multivariate_normal(log: bool):
    """`multivariate_normal.logpdf` / `.pdf(x, mean=None, cov=1, allow_singular=False)`: a
    number or a diagonal `cov` becomes the matrix; the composite `special.mvn_logpdf`, or
    with `allow_singular=True` scipy's pseudo-inverse (`scipy_stats_densities.pseudo_logpdf`)."""

    def lower(cx: CallContext, args, kwargs, node):
        given = bind(cx, args, kwargs, node, ("x", "mean", "cov", "allow_singular"))
        singular = bool(cx.static(given.get("allow_singular", const(False)), node,
                                  "its `allow_singular`", "option"))
        mean = given.get("mean")
        x, cov, *mean = doubles(cx, [v for v in (given["x"], given.get("cov", const(1.0)),
                                                  mean) if v is not None], node)
        try:
            d, shape = special.mvn_shapes(_shape(x), _shape(mean[0]) if mean else None,
                                          _shape(cov))
        except ValueError as e:
            raise cx.source.error(node, str(e)) from None
        o = BuilderOps(cx.b)
        cov = covariance_matrix(cx, cov, d)
        points = o.reshape(x, (math.prod(_shape(x)) // d, d))
        mean = mean[0] if mean else const(0.0, F64)
        value = pseudo_logpdf(cx, points, mean, cov, node) if singular else \
            special.mvn_logpdf(o, points, mean, cov, d)
        value = o.reshape(value, shape or None)
        return value if log else cx.b.exp(value)

    return lower


class _Frozen:
    """A distribution frozen in compiled code (`norm(mu, sigma)`): its owner's type and the
    arguments that follow x in its methods."""

    def __init__(self, owner: type, args: list, kwargs: dict) -> None:
        self.owner, self.args, self.kwargs = owner, args, kwargs


class _FrozenMethod:
    """`frozen.name`: the owner's method `name` with the frozen arguments after x."""

    def __init__(self, frozen: _Frozen, name: str) -> None:
        self.frozen, self.lowering = frozen, _METHODS[(frozen.owner, name)]

    def lower(self, cx, args, kwargs, node):
        if len(args) != 1:
            raise cx.source.error(node, "a frozen distribution's method takes x only")
        for name in kwargs.keys() & self.frozen.kwargs.keys():
            raise cx.source.error(node, f"got multiple values for argument {name!r}")
        return self.lowering(cx, [*args, *self.frozen.args], self.frozen.kwargs | kwargs,
                             node)


def _freeze(owner: type):
    def frozen(cx: CallContext, args, kwargs, node):
        return _Frozen(owner, list(args), dict(kwargs))

    return frozen


def _frozen_kinds(stats) -> tuple:
    """The distributions that compiled code freezes (`t(df)`) and reads frozen (`norm(0, 1)`
    made outside with numbers)."""
    return (stats.norm, stats.multivariate_normal, stats.t, stats.chi2, stats.gamma,
            stats.beta, stats.poisson, stats.dirichlet)


def _static_frozen(obj) -> _Frozen | None:
    """A frozen univariate distribution made outside the compiled code with numbers (read
    when compiling)."""
    import scipy.stats

    numbers = (*getattr(obj, "args", ()), *getattr(obj, "kwds", {}).values())
    kinds = {type(k) for k in _frozen_kinds(scipy.stats)} - {
        type(scipy.stats.multivariate_normal), type(scipy.stats.dirichlet)}
    if type(getattr(obj, "dist", None)) not in kinds or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in numbers):
        return None
    return _Frozen(type(obj.dist), [const(float(v)) for v in obj.args],
                   {k: const(float(v)) for k, v in obj.kwds.items()})


def _multigammaln(cx: CallContext, args, kwargs, node):
    """scipy's log multivariate gamma: `d (d-1)/4 log(pi) + sum_j gammaln(a - (j-1)/2)`."""
    refuse_keywords(cx, kwargs, node, ())
    a, d = cx.exactly(args, 2, node)
    d = cx.static(d, node, "its `d`", "option")
    if not isinstance(d, int | float) or d != math.floor(d) or d < 1:
        raise cx.source.error(node, "d should be a positive integer (dimension)",
                              kind=AdliteValueError)
    d, a = int(d), cx.as_float(a, node)
    b, half = cx.b, 0.5 * (d - 1)
    bad = lookup(np.any)(cx, [b.le(a, const(half, a.type.scalar))], {}, node)
    b.emit("check", [b.not_(bad), a], error="ValueError",
           args=(("str", ("condition a (", (0, None, ()), f") > 0.5 * (d-1) ({half}) not met")),))
    terms = [b.gammaln(b.sub(a, const((j - 1.0) / 2, a.type.scalar))) for j in range(1, d + 1)]
    total = lookup(np.sum)(cx, [lookup(np.stack)(cx, [tuple(terms)], {}, node)],
                           {"axis": const(0)}, node)
    return b.add(const((d * (d - 1) * 0.25) * np.log(np.pi), a.type.scalar), total)


def _load_special() -> None:
    import scipy.special as sc

    for obj, prim in [(sc.expit, "sigmoid"), (sc.gammaln, "gammaln"), (sc.digamma, "digamma"),
                      (sc.erfinv, "erfinv"), (sc.erfcinv, "erfcinv")]:
        register([obj], unary(prim), keywords=False)
    for obj, rule in [
            (sc.ndtr, _composite(special.ndtr)), (sc.logit, _composite(special.logit)),
            (sc.xlogy, _composite(special.xlogy, 2)), (sc.log_ndtr, _composite(special.log_ndtr)),
            (sc.logsumexp, _logsumexp), (sc.ndtri, _NDTRI), (sc.softmax, _softmax),
            (sc.log_softmax, _log_softmax), (sc.multigammaln, _multigammaln)]:
        register([obj], rule)
    for obj, rule in [*scipy_special_functions.rules(sc), *scipy_special_complex.rules(sc)]:
        register([obj], rule, keywords=False)


def _load_stats() -> None:
    import scipy.stats

    owner = type(scipy.stats.norm)
    for name, fn in [("cdf", special.norm_cdf), ("pdf", special.norm_pdf),
                     ("logpdf", special.norm_logpdf), ("logcdf", special.norm_logcdf),
                     ("sf", special.norm_sf), ("logsf", special.norm_logsf)]:
        _METHODS[(owner, name)] = _distribution(fn)
    for name, fn in [("ppf", special.norm_ppf), ("isf", special.norm_isf)]:
        _METHODS[(owner, name)] = _distribution(fn, quantile=True)
    _METHODS.update(scipy_stats_cumulative.methods(scipy.stats))
    owner = type(scipy.stats.multivariate_normal)
    _METHODS[(owner, "logpdf")] = _multivariate_normal(log=True)
    _METHODS[(owner, "pdf")] = _multivariate_normal(log=False)
    for distribution, name, rule in densities(scipy.stats):
        _METHODS[(type(distribution), name)] = rule
    for distribution in _frozen_kinds(scipy.stats):
        register([distribution], _freeze(type(distribution)))


def _load_linalg() -> None:
    from . import scipy_linalg

    for obj, rule in scipy_linalg.lowerings():
        register([obj], rule)


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
    if isinstance(obj, _FrozenMethod):
        return obj.lower
    rule = registered(obj)  # registered by `_load` just now
    if rule is not None:
        return rule
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
    frozen = obj if isinstance(obj, _Frozen) else _static_frozen(obj)
    if frozen is not None:
        return _FrozenMethod(frozen, name) if (frozen.owner, name) in _METHODS else None
    if (type(obj), name) not in _METHODS:
        return None
    if not isinstance(inspect.getattr_static(type(obj), name, None), types.FunctionType):
        return None
    return getattr(obj, name)


add_resolver(_resolve)
