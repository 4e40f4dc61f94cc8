"""The eager tape's primitives: each one's numpy implementation and VJP side by side,
registered in the table of `primitive`.

Contract:
- A `Primitive` (`primitive.py`) has a `name`, the PyTorch-style `node_name` its backward
  node reports, an `impl(*arrays, **params) -> ndarray` (the numpy reference), a
  `vjp(ctx, g) -> tuple` with one cotangent (or None) per input, and flags saying whether the
  rule reads the inputs and/or the output (only those are saved, so in-place checks fire
  exactly when PyTorch's would).
- VJP rules are written with tensor operations (`functional` and operators), so running them
  with recording enabled (`create_graph=True`) gives higher-order derivatives for free. The
  elementwise arithmetic and math primitives (`_elementwise`) take theirs from the derivative
  formulas shared with the compiler (`adlite.derivatives`, run on tensors through
  `vocabulary.TENSOR_OPS`), recorded in `formula`, and so do the reductions sum/max/min and
  prod (which refuses second order through a product with two or more zeros), the
  shape changes, `astype`, `where`, the indexing `index`, `index_add`, `index_put` (the
  formula `index_update` in mode set; a value written to a position a later write of the
  same fancy index overwrites gets no gradient, as numpy keeps the last write) and `matmul`
  (batched, > 2-D operands included); the others (`fill`, `clone`) have their own rules here.
- The primitives that select among their inputs' elements say where (`chosen`), for the
  engine's element masks (`functional.PrimitiveNode.apply_masked`): those whose shared
  formula selects (`where`, `clip`, `maximum`, `minimum`, `fmax`, `fmin`: its `Mask`
  partials, `derivatives.supports`, read by `formula_operands`) and `index_put` with a boolean
  mask (`x[mask] = v` keeps `x` where the mask is false).
- Complex operands (PyTorch's convention, `complex_numbers`) are taken by the holomorphic
  elementwise primitives (`HOLOMORPHIC`: their shared formulas run on conjugated
  cotangents, `complex_numbers.holomorphic`), `abs` (its own rule for complex numbers),
  `sum`, `prod`, `max`, `min` (numpy's lexicographic order: real part, then imaginary part),
  `matmul`, the shape changes, `astype`, `where`, the indexing primitives, `fill` and
  `clone`, and `arcsin`, `arccos`, `arcsinh`, `arccosh` (their own complex partials,
  right on both lips of their cuts); the others (maximum/minimum, clip,
  fmax/fmin, arctan2, fmod, cbrt, sigmoid, the linear algebra and the special functions but
  `erf`, `erfc`) refuse them.
- Everything not in the table is a composite of its primitives (see `functional.py`). The
  linear algebra and special functions (`decompositions`, `linalg`, `special`) register
  theirs with the helpers here; the package's `__init__` imports them all, so the table is
  complete once any module of `adlite.runtime` is imported.
- Conventions at ties are PyTorch's and the compiler's (`adlite.compiler.primitives`; those of
  the elementwise primitives come from the shared formulas):
  maximum/minimum halve the gradient at a tie; fmax/fmin give it to the first operand where
  `x >= y` (fmin: `<=`) or `y` is NaN, else to the second; clip(x, lo, hi) gives it to `x`
  where `lo <= x <= hi`, to `lo` where `x < lo < hi`, to `hi` where `x > hi` or `hi < lo`;
  max/min reductions share it evenly among the tied extrema. Builtin `max`/`min` on tensors
  compare, so the whole gradient goes to the argument Python returns.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from adlite import derivatives

from . import functional as F
from .complex_numbers import holomorphic
from .primitive import PRIMITIVES, Chosen, Primitive, RuleContext
from .tensor import Tensor
from .vocabulary import TENSOR_OPS


def primitive(name: str, node_name: str, impl: Callable[..., np.ndarray], *,
              inputs: bool = False, output: bool = False):
    """Decorator registering `vjp` as the rule of a new primitive `name`."""

    def register(vjp: Callable[[RuleContext, Any], tuple[Any, ...]]) -> Primitive:
        prim = Primitive(name, node_name, impl, vjp, inputs, output)
        PRIMITIVES[name] = prim
        return prim

    return register


def _register_shared(name: str, node_name: str, impl: Callable[..., np.ndarray],
                     vjp: Callable[[RuleContext, Any], tuple[Any, ...]],
                     formula: Any, chosen: Chosen | None = None,
                     copies_inputs: bool = False) -> Primitive:
    """Register primitive `name` whose `vjp` runs the shared `formula`; what the formula reads
    of the inputs and the output is what the tape saves (the inputs as copies with
    `copies_inputs`). A formula that selects gives `chosen` (`_supported`)."""
    if chosen is None and getattr(formula, "selects", False):
        chosen = _supported(formula)
    prim = Primitive(name, node_name, impl, vjp, formula.reads_inputs, formula.reads_output,
                     formula, chosen, copies_inputs)
    PRIMITIVES[name] = prim
    return prim


def _supported(formula: derivatives.Formula) -> Chosen:
    """`chosen` from the formula's `Mask` partials (`derivatives.supports`)."""

    def chosen(ctx: RuleContext, shape: tuple[int, ...]) -> list[np.ndarray | None]:
        found = derivatives.supports(formula, TENSOR_OPS, formula_operands(formula, ctx),
                                     ctx.output)
        return [None if m is None else _spread(m, shape) for m in found[formula.conditions:]]

    return chosen


def _spread(support: derivatives.Mask, shape: tuple[int, ...]) -> np.ndarray:
    """Where the partial `support` is on, in `shape`."""
    cond = support.cond.data if isinstance(support.cond, Tensor) else support.cond
    cond = np.broadcast_to(np.asarray(cond, dtype=bool), shape)
    return cond if support.where else ~cond


def _quiet(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """numpy implementation that returns inf/nan like IEEE instead of warning."""

    def impl(*args: Any, **params: Any) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.asarray(fn(*args, **params))

    return impl


# ---- elementwise: VJPs from the formulas shared with the compiler ------------------------

def _elementwise(name: str, node_name: str, impl: Callable[..., np.ndarray]) -> Primitive:
    """Register primitive `name`, whose VJP runs the shared formula of the same name
    (`adlite.derivatives`) on tensors, then sums each cotangent back to its input's shape
    (broadcasting); the formula says which of inputs and output are saved. Those in
    `HOLOMORPHIC` take complex operands (PyTorch's convention: `complex_numbers`)."""
    formula = derivatives.FORMULAS[name]

    def vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
        cts = derivatives.vjp(formula, TENSOR_OPS, g, ctx.inputs, ctx.output)
        return tuple(None if ct is None else F.sum_to(ct, shape)
                     for ct, shape in zip(cts, ctx.shapes, strict=True))

    if name in HOLOMORPHIC:
        return _complex(_register_shared(name, node_name, impl, holomorphic(vjp), formula))
    return _register_shared(name, node_name, impl, vjp, formula)


HOLOMORPHIC = frozenset({
    "neg", "exp", "log", "log2", "log10", "sqrt", "sin", "cos", "tan", "tanh", "log1p",
    "expm1", "sinh", "cosh", "arctan", "arctanh", "add", "sub", "mul", "div", "pow", "erf",
    "erfc"})
"""The elementwise primitives holomorphic in each operand whose shared partials hold for
complex numbers on numpy's principal branches, the lips of their cuts included. `arcsin`,
`arccos`, `arcsinh`, `arccosh` are not among them: they have their own complex partials
(`_complex_partial`)."""


def _complex(prim: Primitive) -> Primitive:
    """`prim`, registered again as taking complex operands."""
    PRIMITIVES[prim.name] = taking = dataclasses.replace(prim, takes_complex=True)
    return taking


def _sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(np.result_type(x, 1.0))


for _name, _node, _impl in [
        ("neg", "NegBackward0", np.negative),
        ("exp", "ExpBackward0", _quiet(np.exp)),
        ("log", "LogBackward0", _quiet(np.log)),
        ("log2", "Log2Backward0", _quiet(np.log2)),
        ("log10", "Log10Backward0", _quiet(np.log10)),
        ("sqrt", "SqrtBackward0", _quiet(np.sqrt)),
        ("sin", "SinBackward0", np.sin),
        ("cos", "CosBackward0", np.cos),
        ("tan", "TanBackward0", _quiet(np.tan)),
        ("tanh", "TanhBackward0", np.tanh),
        ("log1p", "Log1PBackward0", _quiet(np.log1p)),
        ("expm1", "Expm1Backward0", _quiet(np.expm1)),
        ("cbrt", "CbrtBackward0", np.cbrt),
        ("sinh", "SinhBackward0", _quiet(np.sinh)),
        ("cosh", "CoshBackward0", _quiet(np.cosh)),
        ("arcsin", "AsinBackward0", _quiet(np.arcsin)),
        ("arccos", "AcosBackward0", _quiet(np.arccos)),
        ("arctan", "AtanBackward0", np.arctan),
        ("arcsinh", "AsinhBackward0", np.arcsinh),
        ("arccosh", "AcoshBackward0", _quiet(np.arccosh)),
        ("arctanh", "AtanhBackward0", _quiet(np.arctanh)),
        ("arctan2", "Atan2Backward0", np.arctan2),
        ("fmod", "FmodBackward0", _quiet(np.fmod)),
        ("sigmoid", "SigmoidBackward0", _sigmoid),
        ("add", "AddBackward0", np.add),
        ("sub", "SubBackward0", np.subtract),
        ("mul", "MulBackward0", np.multiply),
        ("div", "DivBackward0", _quiet(np.true_divide)),
        ("pow", "PowBackward1", _quiet(np.power)),
        ("maximum", "MaximumBackward0", np.maximum),
        ("minimum", "MinimumBackward0", np.minimum),
        ("fmax", "FmaxBackward0", np.fmax),
        ("fmin", "FminBackward0", np.fmin),
        ("clip", "ClampBackward1", np.clip)]:
    _elementwise(_name, _node, _impl)


def _complex_partial(name: str, partial: Callable[[Any], Any]) -> Primitive:
    """Unary primitive `name`, taking complex operands too: holomorphic, its derivative at a
    complex `z` is `partial(z)` (recorded operations), at a real `x` the shared formula's."""
    prim = PRIMITIVES[name]

    def vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
        (z,) = ctx.inputs
        if not F.is_complex(z):
            return prim.vjp(ctx, g)
        return (F.multiply(g, F.conj(partial(z))),)

    return _complex(dataclasses.replace(prim, vjp=vjp))


# The derivatives on numpy's principal branches, written so that a zero imaginary part keeps
# its sign, which says on which lip of a cut `z` lies (C99's convention, numpy's values):
# `w - 1`, `w - (-1)` and `-(w - 1)` keep it, where `w + 1` turns a -0 into +0 (-0 + 0) and
# `1 - w` gives +0 for +0 (0 - 0). The shared formulas' `1 - x**2`, `x**2 + 1` lose it (a
# wrong sign on one lip), and arccosh's `sqrt(x**2 - 1)` is off by a sign where Re z < 0.


def _arcsin_slope(z: Any) -> Any:
    """1 / sqrt(1 - z**2), the derivative of arcsin (cut along |x| > 1)."""
    return 1.0 / F.sqrt(-(z * z - 1.0))


_complex_partial("arcsin", _arcsin_slope)
_complex_partial("arccos", lambda z: -_arcsin_slope(z))
_complex_partial("arcsinh", lambda z: 1.0 / F.sqrt(z * z - -1.0))  # cut along |y| > 1
_complex_partial("arccosh", lambda z: 1.0 / (F.sqrt(z - 1.0) * F.sqrt(z - -1.0)))  # x < 1


_ABS = derivatives.FORMULAS["abs"]


def _abs_vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
    """The shared formula (`sign(x)`) for real `x`; for complex `z` (abs is not holomorphic)
    PyTorch's `g * z / |z|`, 0 at `z = 0`, written with recorded operations (so that second
    derivatives through it are exact)."""
    (z,) = ctx.inputs
    if not F.is_complex(z):
        return tuple(derivatives.vjp(_ABS, TENSOR_OPS, g, ctx.inputs, ctx.output))
    size = F.abs(z)
    return (F.multiply(g, F.divide(z, F.where(F.equal(size, 0.0), 1.0, size))),)


_complex(_register_shared("abs", "AbsBackward0", np.abs, _abs_vjp, _ABS))


def formula_operands(formula: derivatives.Formula, ctx: RuleContext) -> tuple[Any, ...]:
    """The operands of `formula`: its conditions, which the tape keeps as the parameter
    `cond` (`where`'s), then the inputs."""
    conditions = (ctx.params["cond"],) if formula.conditions else ()
    return conditions + tuple(ctx.inputs)


def _where_vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
    """The shared `select` formula, its condition (an operand there) kept as a parameter."""
    cts = derivatives.vjp(_SELECT, TENSOR_OPS, g, formula_operands(_SELECT, ctx), ctx.output)
    return tuple(F.sum_to(ct, shape) for ct, shape in zip(cts[1:], ctx.shapes, strict=True))


_SELECT = derivatives.FORMULAS["select"]
_complex(_register_shared("where", "WhereBackward0",
                          lambda a, b, *, cond: np.where(cond, a, b), _where_vjp, _SELECT))


def _matmul_vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
    return tuple(_MATMUL.adjoint(TENSOR_OPS, g, *ctx.inputs, *ctx.shapes))


_MATMUL = derivatives.FORMULAS["matmul"]
_complex(_register_shared("matmul", "MmBackward0", np.matmul, holomorphic(_matmul_vjp),
                          _MATMUL))


# ---- reductions ---------------------------------------------------------------------------

def _reduction(fn):
    return lambda x, *, axis, keepdims: fn(x, axis=axis, keepdims=keepdims)


def _shared_reduction(name: str, node_name: str, impl: Callable[..., np.ndarray],
                      check: Callable[[RuleContext], None] | None = None) -> None:
    """Register reduction `name`, whose VJP runs the shared formula of the same name (after
    `check`, which may refuse the case). All four take complex operands, holomorphic in each
    element (max and min select elements of numpy's lexicographic order: real weights). max
    and min only compare their input with the result: they save it as a copy
    (`Primitive.copies_inputs`)."""
    formula = derivatives.FORMULAS[name]

    def vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
        if check is not None:
            check(ctx)
        return tuple(derivatives.reduction_vjp(formula, TENSOR_OPS, g, ctx.inputs[0],
                                               ctx.output, ctx.shapes[0], ctx.params["axis"]))

    _complex(_register_shared(name, node_name, impl, holomorphic(vjp), formula,
                              copies_inputs=name in ("max", "min")))


def _at_most_one_zero_when_recording(ctx: RuleContext) -> None:
    """The shared `prod` weights are differentiable again only where each product has at
    most one zero (see `adlite.derivatives.reductions`)."""
    if not F.is_recording():
        return
    zeros = np.sum(ctx.inputs[0].data == 0, axis=ctx.params["axis"])
    if bool(np.any(zeros > 1)):
        raise NotImplementedError(
            "second derivatives of prod() through a product with two or more zeros are not "
            "supported; compute the product as an explicit loop of multiplications instead")


for _name, _node, _impl, _check in [
        ("sum", "SumBackward1", _reduction(np.sum), None),
        ("max", "MaxBackward1", _reduction(np.max), None),
        ("min", "MinBackward1", _reduction(np.min), None),
        ("prod", "ProdBackward1", _reduction(np.prod), _at_most_one_zero_when_recording)]:
    _shared_reduction(_name, _node, _impl, _check)


# ---- shape and indexing -------------------------------------------------------------------

def _shared_linear(name: str, node_name: str, impl: Callable[..., np.ndarray]) -> None:
    """Register shape change `name`, whose VJP is the shared adjoint of the same name."""
    formula = derivatives.FORMULAS[name]

    def vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
        return tuple(formula.adjoint(TENSOR_OPS, g, ctx.shapes, **ctx.params))

    _complex(_register_shared(name, node_name, impl, vjp, formula))


for _name, _node, _impl in [
        ("reshape", "ViewBackward0", lambda x, *, shape: np.reshape(x, shape).copy()),
        ("transpose", "PermuteBackward0",
         lambda x, *, axes: np.ascontiguousarray(np.transpose(x, axes))),
        ("broadcast_to", "ExpandBackward0",
         lambda x, *, shape: np.broadcast_to(x, shape).copy()),
        ("concatenate", "CatBackward0", lambda *xs, axis: np.concatenate(xs, axis=axis))]:
    _shared_linear(_name, _node, _impl)


def _astype_vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
    """The shared `convert` formula: only float -> float conversions carry the cotangent."""
    return (_CONVERT.across(TENSOR_OPS, g, ctx.params["dtype"], ctx.dtypes[0]),)


_CONVERT = derivatives.FORMULAS["convert"]
_complex(_register_shared("astype", "ToCopyBackward0", lambda x, *, dtype: x.astype(dtype),
                          _astype_vjp, _CONVERT))


def _index_add(g: np.ndarray, *, index: Any, shape: tuple[int, ...]) -> np.ndarray:
    out = np.zeros(shape, dtype=g.dtype)
    np.add.at(out, index, g)
    return out


def _index_put(x: np.ndarray, v: np.ndarray, *, index: Any) -> np.ndarray:
    out = np.array(x, copy=True)
    out[index] = v
    return out


def _shared_indexing(name: str, node_name: str, impl: Callable[..., np.ndarray],
                     formula_name: str, **fixed: Any) -> None:
    """Register indexing primitive `name`, whose VJP is the shared adjoint `formula_name`
    given its numpy `index` as the key (and the `fixed` parameters)."""
    formula = derivatives.FORMULAS[formula_name]

    def vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
        params = dict(ctx.params, **fixed)
        params["key"] = params.pop("index")
        return tuple(formula.adjoint(TENSOR_OPS, g, ctx.shapes, **params))

    _complex(_register_shared(name, node_name, impl, vjp, formula))


_shared_indexing("index", "IndexBackward0", lambda x, *, index: np.array(x[index], copy=True),
                 "index")
_shared_indexing("index_add", "IndexAddBackward0", _index_add, "index_add")
_INDEX_UPDATE = derivatives.FORMULAS["index_update"]


def _last_writes(shape: tuple[int, ...], key: Any) -> np.ndarray | None:
    """Where numpy's `x[key] = v` keeps the write (of shape `x[key].shape`: the last write to
    a position wins, as a 0/1 float mask); None when no position is written twice."""
    written = np.zeros(shape, dtype=np.int64)[key].shape
    slots = np.arange(int(np.prod(written)), dtype=np.int64).reshape(written)
    last = np.full(shape, -1, dtype=np.int64)
    last[key] = slots
    kept = last[key] == slots
    return None if kept.all() else kept.astype(np.float64)


def _index_put_vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
    """The shared `index_update` adjoint (mode set), except that `v` gets nothing for the
    writes a later write to the same position overwrote (repeated fancy indices)."""
    key = ctx.params["index"]
    gx, gv = _INDEX_UPDATE.adjoint(TENSOR_OPS, g, ctx.shapes, key=key, mode="set")
    kept = _last_writes(ctx.shapes[0], key)
    if kept is not None:
        gv = F.sum_to(F.multiply(F.index(g, key), kept), ctx.shapes[1])
    return gx, gv


def _unwritten(ctx: RuleContext, shape: tuple[int, ...]) -> list[np.ndarray | None]:
    """A masked write `x[mask] = v` keeps `x` where `mask` is false (other writes: None)."""
    key = ctx.params["index"]
    if not (isinstance(key, np.ndarray) and key.dtype == np.bool_):
        return [None, None]
    written = np.zeros(shape, dtype=bool)
    written[key] = True
    return [~written, None]


_complex(_register_shared("index_put", "CopySlices", _index_put, _index_put_vjp,
                          _INDEX_UPDATE, _unwritten))


@primitive("fill", "FillBackward0", lambda x, *, value: np.full_like(x, value))
def fill_vjp(ctx, g):
    return (F.zeros_like(g),)


@primitive("clone", "CloneBackward0", lambda x: np.array(x, copy=True))
def clone_vjp(ctx, g):
    return (g,)


for _name in ("fill", "clone"):
    _complex(PRIMITIVES[_name])

