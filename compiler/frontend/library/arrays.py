"""numpy array functions and array methods in compiled code (shapes are static).

Contract: registers the rules of `np.dot / matmul / transpose / reshape / zeros / ones / full
/ empty / zeros_like / ones_like / empty_like / where / clip (bounds positional, `a_min=`,
`a_max=` or `min=`, `max=`; None: none) / concatenate / outer / issubdtype /
expand_dims / squeeze / shape / ndim / size` (`np.array` / `np.stack` and `len` are in
`sequences.py`, `np.arange` and `np.asarray` in `building.py`, the reductions in
`reductions.py`) and implements the array methods and attributes (`x.sum(...)`,
`x.ravel()`, `x.flatten()`, `x.swapaxes(a, b)`, `x.astype(float / int / bool / numpy's
float64, float32, int64, bool_ / a dtype such as y.dtype)`, `x.dtype` (numpy's dtype object,
a compile-time value: `x.dtype == np.float64`, `np.issubdtype(x.dtype, np.floating)`),
`x.item()` (of a size-1 array or a number), `x.T` of any rank (all axes reversed),
`x.shape`, ...) through `method` and `attribute`; a method that is
a numpy function of the array (`METHODS_AS_FUNCTIONS`) is that function's rule.
Shapes and dtypes must be compile-time constants (`static_shape`, `dtype_option`,
`resolve_dtype`). `run_composite` emits a composite of `adlite.derivatives.array_composites`
(numpy's errors at the user's line); `dot` and `matmul` take any ranks (numpy's rules).
"""

from __future__ import annotations

import math

import numpy as np

from adlite.derivatives import array_composites as ac

from ...errors import AdliteAxisError, AdliteIndexError, AdliteTypeError, AdliteValueError
from ...ir import dtypes
from ...ir.builder import const
from ...ir.core import BOOL, C64, C128, F32, F64, I64, Const, Type
from ...ir.dims import is_symbolic, reshaped
from ...ir.dtypes import DType, result_dtype
from ...primitives.vocabulary import BuilderOps
from ..context import CallContext
from .reductions import normalized_axes, reduction
from .registry import (
    REQUIRED,
    bind,
    bind_params,
    known,
    lookup,
    options,
    refuse_keywords,
    register,
)

DTYPES = {np.float64: F64, float: F64, np.float32: F32, "float64": F64, "float32": F32,
          np.complex128: C128, complex: C128, np.complex64: C64, "complex128": C128,
          "complex64": C64, "complex": C128}
# what `x.astype` converts to besides: int64 truncates toward zero (see `primitives/ints.py`)
CAST_DTYPES = {**DTYPES, int: I64, np.int64: I64, "int64": I64, "int": I64, bool: BOOL,
               np.bool_: BOOL, "bool": BOOL}


def transpose(cx: CallContext, x, axes, node):
    x = cx.array(x, node)
    ndim = len(x.type.shape)
    if axes and not (all(isinstance(a, int) and -ndim <= a < ndim for a in axes)
                     and sorted(a % ndim for a in axes) == list(range(ndim))):
        raise cx.source.error(node, "axes don't match array")
    axes = tuple(range(ndim))[::-1] if not axes else tuple(a % ndim for a in axes)
    return x if axes == tuple(range(ndim)) else cx.b.transpose(x, axes=axes)


def reshape(cx: CallContext, x, shape, node):
    x = cx.array(x, node)
    shape = shape if isinstance(shape, tuple) else (shape,)
    try:
        shape = reshaped(x.type.shape, shape)
    except ValueError as e:
        raise cx.source.error(node, f"cannot reshape {x.type}: {e}") from None
    return cx.b.reshape(x, shape=shape or None)


def run_composite(cx: CallContext, node, composite, *args, **kwargs):
    """A composite of `array_composites` emitted with the converter's builder; its errors
    (numpy's: ValueError, IndexError, AxisError) name the user's line, of the same type."""
    try:
        return composite(BuilderOps(cx.b), *args, **kwargs)
    except (ValueError, IndexError) as e:
        kind = AdliteAxisError if isinstance(e, ac.AxisError) else \
            AdliteValueError if isinstance(e, ValueError) else AdliteIndexError
        raise cx.source.error(node, str(e), kind=kind) from None


def joined(parts: list, cx: CallContext) -> list:
    """Arrays to be joined (np.concatenate, np.vstack / hstack) at numpy's common element
    type (numbers count as arrays there: float32 with 1.0 is float64)."""
    common = Type(result_dtype(*(v.type.dtype for v in parts)))
    return [cx.to_type(v, common) for v in parts]


def product_operands(cx: CallContext, values, node) -> tuple[list, DType]:
    """The operands of a sum of products (matmul, dot, tensordot, einsum) at numpy's common
    element type, and that type: floats as they are, ints as int64 (their sums wrap as
    numpy's), bools as int64 too (`boolean_product` gives numpy's bool result)."""
    atoms = [cx.value(v, node) for v in values]
    common = result_dtype(*(a.type.dtype for a in atoms))
    work = Type(dtypes.I64 if common == dtypes.BOOL else common)
    return [cx.to_type(a, work) for a in atoms], common


def boolean_product(cx: CallContext, value, common: DType):
    """A product computed in int64 as the type numpy gives: for bool operands, whether any
    term is true (numpy's logical sum of logical products)."""
    return cx.b.ne(value, Const(0, I64)) if common == dtypes.BOOL else value


def _product(cx: CallContext, composite, x, y, node):
    (x, y), common = product_operands(cx, [x, y], node)
    value = run_composite(cx, node, composite, x, y, x.type.shape or (), y.type.shape or ())
    return boolean_product(cx, value, common)


def dot(cx: CallContext, x, y, node):
    """`np.dot(x, y)` / `x.dot(y)`: a product with a number, else numpy's dot of any ranks
    (`array_composites.dot`)."""
    x, y = cx.promote(x, y, node)
    if x.type.is_array and y.type.is_array:
        return _product(cx, ac.dot, x, y, node)
    return cx.b.mul(x, y)


def matmul(cx: CallContext, x, y, node):
    """`np.matmul(x, y)` / `x @ y` of any ranks (`array_composites.matmul`: batches
    broadcast); numpy's ValueError for a number."""
    return _product(cx, ac.matmul, x, y, node)


def static_shape(cx: CallContext, value, node) -> tuple[int, ...]:
    shape = cx.static(value, node, "its shape", "shape")
    shape = shape if isinstance(shape, tuple) else (shape,)
    if not all(isinstance(n, int) or is_symbolic(n) for n in shape):
        raise cx.source.error(node, f"array shapes must be integers, got {shape!r}",
                              "use x.shape or len(x), or constants")
    return shape  # checked as numpy does by the array's Type


def dtype_option(cx: CallContext, kwargs, node, default=F64) -> Type:
    opts = options(cx, kwargs, ("dtype",), node)
    return resolve_dtype(cx, opts.get("dtype", default), node)


def resolve_dtype(cx: CallContext, dtype, node, table: dict = DTYPES) -> Type:
    if isinstance(dtype, Type):
        return dtype
    if isinstance(dtype, np.dtype):  # x.dtype
        dtype = dtype.type
    if dtype not in table:
        raise cx.source.error(node, f"unsupported dtype {dtype!r}", "use " + ", ".join(
            sorted({t if isinstance(t, str) else t.__name__ for t in table})))
    return table[dtype]


def _filled(name: str, value: float | None):
    """np.zeros / np.ones / np.empty (`value`: their fill) and np.full (`value` None: its
    fill is an argument, a run-time value: a new fill value does not compile again; numpy's
    dtype, the fill's own unless `dtype=` is given)."""
    params = {"shape": REQUIRED, "dtype": None} if value is not None else \
        {"shape": REQUIRED, "fill_value": REQUIRED, "dtype": None}

    def lower(cx: CallContext, args, kwargs, node):
        p = bind_params(cx, name, args, kwargs, params, node)
        shape = static_shape(cx, p["shape"], node)
        dtype = cx.static(p["dtype"], node)
        if value is not None:
            dtype = resolve_dtype(cx, F64 if dtype is None else dtype, node)
            return cx.b.full(const(value, dtype), shape=shape, dtype=dtype)
        fill = cx.value(p["fill_value"], node)
        if fill.type.is_array:
            raise cx.source.error(node, "np.full with an array as the fill value",
                                  "np.broadcast_to(fill, shape).copy() gives that array")
        dtype = resolve_dtype(cx, fill.type.scalar if dtype is None else dtype, node)
        return cx.b.full(cx.to_type(fill, dtype), shape=shape, dtype=dtype)

    return lower


def _filled_like(value):
    def lower(cx: CallContext, args, kwargs, node):
        x = cx.array(args[0], node)
        dtype = dtype_option(cx, kwargs, node, x.type.scalar)
        return cx.b.full(const(value, dtype), shape=x.type.shape, dtype=dtype)

    return lower




def where(cx: CallContext, args, kwargs, node):
    """`np.where(cond, x, y)` (its one-argument form is `nonzero.py`'s)."""
    cond, x, y = cx.exactly(args, 3, node)
    x, y = cx.promote(x, y, node)
    cond = cx.value(cond, node)
    if cond.type.name != "bool":
        cond = cx.b.ne(cond, const(0, cond.type.scalar))
    return cx.b.select(cond, x, y)


def _clip_bounds(cx: CallContext, p: dict, node) -> tuple:
    """(a_min, a_max) of np.clip's bound parameters `p`, as numpy 2 reads them: positional
    or `a_min=` / `a_max=` (both), else `min=` / `max=`; None: no bound."""
    # numpy 2.0's clip has no `min` / `max` parameters (2.1 added them)
    p = {k: p.get(k, np._NoValue) for k in ("a_min", "a_max", "min", "max")}
    given = [p[k] is not np._NoValue for k in ("a_min", "a_max", "min", "max")]
    if not any(given[:2]):
        return tuple(None if p[k] is np._NoValue else p[k] for k in ("min", "max"))
    if not all(given[:2]):
        missing = "a_min" if not given[0] else "a_max"
        raise cx.source.error(node, f"clip() missing 1 required positional argument: "
                              f"'{missing}'", kind=AdliteTypeError)
    if any(given[2:]):
        raise cx.source.error(node, "Passing `min` or `max` keyword argument when `a_min` "
                              "and `a_max` are provided is forbidden.", kind=AdliteValueError)
    return p["a_min"], p["a_max"]


def _clip(cx: CallContext, args, kwargs, node):
    """np.clip(a, a_min, a_max) (or `min=`, `max=`): a missing or None bound is the
    extreme of the result's dtype (infinities for floats), so the values are numpy's and
    `x` gets the gradient wherever the other bound lets it through."""
    p = bind(cx, np.clip, "clip", args, kwargs, node)
    refuse_keywords(cx, {**p.pop("kwargs"), **({} if p.pop("out") is None else {"out": 0})},
                    node)
    bounds = _clip_bounds(cx, p, node)
    x = cx.numeric(p["a"], node)
    promoted = x
    for v in bounds:
        promoted = promoted if v is None else cx.promote(promoted, v, node)[0]
    dtype = promoted.type  # of x and the bounds given
    if bounds == (None, None):
        return x
    extremes = (-np.inf, np.inf) if dtype.is_float else (-2 ** 63, 2 ** 63 - 1)  # int64
    lo, hi = (const(e, dtype.scalar) if v is None else cx.to_type(cx.numeric(v, node), dtype)
              for v, e in zip(bounds, extremes, strict=True))
    return cx.b.clip(cx.to_type(x, dtype), lo, hi)


def _plain(fn):
    def lower(cx: CallContext, args, kwargs, node):
        options(cx, kwargs, (), node)
        return fn(cx, *args, node)

    return lower


def _transpose(cx: CallContext, args, kwargs, node):
    axes_ = cx.static(args[1], node, "its `axes`", "option") if len(args) > 1 else \
        options(cx, kwargs, ("axes",), node).get("axes")
    return transpose(cx, args[0], axes_, node)


def _reshape(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "reshape", args, kwargs, {"a": REQUIRED, "shape": REQUIRED}, node)
    return reshape(cx, p["a"], cx.static(p["shape"], node, "its new shape", "shape"), node)


register([np.dot], _plain(dot))
register([np.matmul], _plain(matmul))
register([np.transpose], _transpose)
register([np.reshape], _reshape)
for _fn, _fill in ((np.zeros, 0.0), (np.empty, 0.0), (np.ones, 1.0), (np.full, None)):
    register([_fn], _filled(_fn.__name__, _fill))
register([np.zeros_like, np.empty_like], _filled_like(0.0))
register([np.ones_like], _filled_like(1.0))
register([np.clip], _clip)


def _concatenate(cx: CallContext, args, kwargs, node):
    opts = options(cx, kwargs, ("axis",), node)
    parts = args[0] if args and isinstance(args[0], tuple) else None
    if not parts:
        raise cx.source.error(node, "np.concatenate needs a list or tuple of arrays")
    axis = cx.static(args[1], node, "its `axis`", "option") if len(args) > 1 else \
        opts.get("axis", 0)
    parts = joined([cx.array(p, node) for p in parts], cx)
    ndim = len(parts[0].type.shape)
    if not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise cx.source.error(node, f"axis {axis} is out of bounds for concatenate")
    return cx.b.concatenate(*parts, axis=axis % ndim)


def _outer(cx: CallContext, args, kwargs, node):
    options(cx, kwargs, (), node)
    x, y = (cx.array(a, node) for a in cx.exactly(args, 2, node))
    x, y = cx.promote(x, y, node)
    m, n = math.prod(x.type.shape), math.prod(y.type.shape)
    return cx.b.mul(cx.b.reshape(x, shape=(m, 1)), cx.b.reshape(y, shape=(1, n)))


def _expand_dims(cx: CallContext, args, kwargs, node):
    x = cx.array(args[0], node)
    axis = cx.static(args[1], node, "its `axis`", "option") if len(args) > 1 else \
        options(cx, kwargs, ("axis",), node).get("axis")
    ndim = len(x.type.shape) + (len(axis) if isinstance(axis, tuple) else 1)
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not all(isinstance(a, int) and -ndim <= a < ndim for a in axes):
        raise cx.source.error(node, f"expand_dims: bad axis {axis}")
    if len({a % ndim for a in axes}) != len(axes):
        raise cx.source.error(node, "ValueError: repeated axis")
    sizes = iter(x.type.shape)  # numpy: the new axes at their places, the old ones in order
    shape = tuple(1 if any(a % ndim == d for a in axes) else next(sizes) for d in range(ndim))
    return cx.b.reshape(x, shape=shape)


def _squeeze(cx: CallContext, args, kwargs, node):
    """`np.squeeze(x, axis=None)`: the axes of length 1 (all, or those named; naming one of
    another length is numpy's ValueError, at compile time)."""
    opts = options(cx, kwargs, ("axis",), node)
    if not 1 <= len(args) <= 2 or len(args) == 2 and "axis" in opts:
        raise cx.source.error(node, "np.squeeze takes an array and an optional axis")
    x = cx.array(args[0], node)
    ndim = len(x.type.shape)
    given = cx.static(args[1], node, "its `axis`", "option") if len(args) == 2 else \
        opts.get("axis")
    if given is None:
        axes = tuple(i for i, n in enumerate(x.type.shape) if n == 1)
    else:
        axes = normalized_axes(cx, given, ndim, node)
    if any(x.type.shape[a] != 1 for a in axes):
        raise cx.source.error(node, "ValueError: cannot select an axis to squeeze out which "
                              "has size not equal to one")
    shape = tuple(n for i, n in enumerate(x.type.shape) if i not in axes)
    return cx.b.reshape(x, shape=shape or None)


def _issubdtype(cx: CallContext, args, kwargs, node):
    """`np.issubdtype(arg1, arg2)` of dtypes known when compiling (`x.dtype`): a bool."""
    p = bind_params(cx, "issubdtype", args, kwargs, {"arg1": REQUIRED, "arg2": REQUIRED},
                    node)
    try:
        return const(bool(np.issubdtype(*known(cx, p, node).values())))
    except TypeError as e:
        raise cx.source.error(node, str(e), kind=AdliteTypeError) from None


register([np.concatenate], _concatenate)
register([np.issubdtype], _issubdtype)
register([np.outer], _outer)
register([np.expand_dims], _expand_dims)
register([np.squeeze], _squeeze)


def _attribute_of(name: str):
    def lower(cx: CallContext, args, kwargs, node):
        p = bind_params(cx, name, args, kwargs, {"a": REQUIRED}, node)
        return attribute(cx, cx.value(p["a"], node), name, node)

    return lower


for _name in ("shape", "ndim", "size"):
    register([getattr(np, _name)], _attribute_of(_name))


def attribute(cx: CallContext, x, name: str, node):
    """`x.T`, `x.shape`, `x.ndim`, `x.size`, `x.dtype` of an array value (the last four of a
    number too: `np.shape(x)`, `np.ndim(x)`, `np.size(x)`; `x.dtype` is numpy's dtype
    object, known when compiling)."""
    shape = x.type.shape or ()
    if name == "T":
        return transpose(cx, x, None, node)
    if name == "shape":
        return tuple(Const(n, I64) for n in shape)
    if name == "ndim":
        return Const(len(shape), I64)
    if name == "size":
        return Const(math.prod(shape), I64)
    if name == "dtype":  # a compile-time value: compared, tested, given to astype
        return np.dtype(x.type.dtype.numpy)
    raise cx.source.error(node, f"unsupported array attribute .{name}",
                          "supported: .T .shape .ndim .size .dtype and methods sum, mean, max, "
                          "min, reshape, transpose, dot")


METHODS_AS_FUNCTIONS = {"prod", "any", "all", "argmax", "argmin", "cumsum", "cumprod", "clip",
                        "round", "trace", "diagonal", "squeeze", "repeat", "argsort", "conj",
                        "conjugate"}


def method(cx: CallContext, x, name: str, args, kwargs, node):
    """`x.sum(...)`, `x.mean(...)`, `x.var(...)`, `x.std(...)`, `x.max(...)`, `x.min(...)`,
    `x.reshape(...)`, `x.transpose(...)`, `x.dot(y)`, `x.copy()`, `x.ravel()`, `x.flatten()`,
    `x.swapaxes(a, b)`, `x.astype(dtype)`, and the methods that are numpy functions of the
    array (METHODS_AS_FUNCTIONS: `x.prod(axis)` is `np.prod(x, axis)`)."""
    if name in ("sum", "mean", "var", "std", "max", "min"):
        return reduction(name)(cx, [x] + list(args), kwargs, node)
    if name in METHODS_AS_FUNCTIONS:  # x.prod(axis) is np.prod(x, axis), ...
        return lookup(getattr(np, name))(cx, [x] + list(args), kwargs, node)
    options(cx, kwargs, (), node)
    if name == "reshape":
        shape = tuple(cx.static(a, node, "its new shape", "shape") for a in args)
        return reshape(cx, x, shape[0] if len(shape) == 1 else shape, node)
    if name == "transpose":
        axes = tuple(cx.static(a, node, "its `axes`", "option") for a in args)
        return transpose(cx, x, axes[0] if len(axes) == 1 and isinstance(axes[0], tuple)
                         else axes, node)
    if name == "dot":
        return dot(cx, x, args[0], node)
    if name == "copy":
        return x
    if name in ("ravel", "flatten") and not args:
        return ravel(cx, x, node)
    if name == "swapaxes" and len(args) == 2:
        return swapaxes(cx, x, *args, node)
    if name == "astype" and len(args) == 1:
        return astype(cx, x, cx.static(args[0], node, "its `dtype`", "option"), node)
    if name == "item" and not args:
        return item(cx, x, node)
    raise cx.source.error(node, f"unsupported array method .{name}()",
                          "supported: sum, mean, var, std, max, min, reshape, transpose, dot, "
                          "copy, ravel, flatten, swapaxes, astype, item, "
                          f"{', '.join(sorted(METHODS_AS_FUNCTIONS))}")


def ravel(cx: CallContext, x, node):
    """`np.ravel(x)` / `x.ravel()` / `x.flatten()`: the elements in C order, a vector."""
    x = cx.value(x, node)
    if not x.type.is_array:
        return cx.b.broadcast_to(x, shape=(1,))
    shape = (int(np.prod(x.type.shape)),)
    return x if x.type.shape == shape else cx.b.reshape(x, shape=shape)


def swapaxes(cx: CallContext, x, axis1, axis2, node):
    """`np.swapaxes(x, axis1, axis2)` / `x.swapaxes(axis1, axis2)` (constant axes)."""
    x = cx.array(x, node)
    ndim = len(x.type.shape)
    a1, a2 = (normalized_axes(cx, cx.static(a, node, "its `axes`", "option"), ndim, node)[0]
              for a in (axis1, axis2))
    axes = list(range(ndim))
    axes[a1], axes[a2] = a2, a1
    return x if a1 == a2 else cx.b.transpose(x, axes=tuple(axes))


def astype(cx: CallContext, x, dtype, node):
    """`x.astype(dtype)`: a converted copy; float -> int truncates toward zero and raises
    `int()`'s errors for NaN, inf and values outside int64 (numpy: an unspecified value)."""
    x = cx.value(x, node)
    target = resolve_dtype(cx, dtype, node, CAST_DTYPES)
    if x.type.is_complex and not target.is_complex:  # numpy keeps the real part (warning)
        x = cx.b.real(x)
    return cx.to_type(x, target.with_shape(x.type.shape))


def item(cx: CallContext, x, node):
    """`x.item()`: the number a size-1 array (any rank) or a number holds."""
    x = cx.value(x, node)
    if not x.type.is_array:
        return x
    if int(np.prod(x.type.shape)) != 1:
        raise cx.source.error(node, "can only convert an array of size 1 to a Python scalar "
                                    f"(this array has shape {x.type.shape})",
                              kind=AdliteValueError)
    return BuilderOps(cx.b).reshape(x, None)
