"""numpy array functions and array methods in compiled code (shapes are static).

Contract: registers lowerings `(conv, args, kwargs, node)` for `np.sum / mean / var / std /
max / min / amax / amin / dot / matmul / transpose / reshape / zeros / ones / full / empty /
zeros_like / ones_like / empty_like / where / clip / concatenate / outer /
linalg.norm / expand_dims / squeeze` (`np.array` / `np.stack` and `len` are in
`sequences.py`, `np.arange` and `np.asarray` in `numpy_functions.py`; mean, var, std and norm
are the composites of `adlite.derivatives.composites`, which the eager tape builds too) and
implements the array methods and attributes (`x.sum(...)`, `x.ravel()`, `x.flatten()`,
`x.swapaxes(a, b)`, `x.astype(float64 / float32 / float)`, `x.T` of any rank (all axes
reversed), `x.shape`, ...) through
`method` and `attribute`. `axis`, `keepdims`, `ddof`, shapes and dtypes must be compile-time
constants. A max/min over no element raises numpy's ValueError when executed
(`empty_extremum`), not at compile time.
"""

from __future__ import annotations

import numpy as np

from adlite.derivatives import composites

from ..ir.builder import const
from ..ir.core import F32, F64, I64, Const, Type
from ..primitives.shapes import reduces_nothing
from ..primitives.vocabulary import BuilderOps
from .decomposition_functions import norm_with_ord
from .functions import lookup, refuse_keywords, register_with_keywords

DTYPES = {np.float64: F64, float: F64, np.float32: F32, "float64": F64, "float32": F32}


def _axis(conv, value, ndim, node):
    if value is None:
        return None
    axes = value if isinstance(value, tuple) else (value,)
    out = []
    for a in axes:
        if not isinstance(a, int) or not -ndim <= a < ndim:
            raise conv.source.error(node, f"axis {a} is out of bounds for an array of "
                                          f"dimension {ndim}")
        out.append(a % ndim)
    return tuple(sorted(set(out)))


def _options(conv, kwargs, allowed, node):
    """The keyword arguments (only `allowed` ones), as compile-time values."""
    refuse_keywords(conv, kwargs, node, allowed)
    return {k: conv.static(v, node) for k, v in kwargs.items()}


MOMENTS = ("mean", "var", "std")


def reduce(conv, prim, x, axis, keepdims, node, **options):
    """`np.<prim>(x, axis, keepdims, **options)`: a reduction primitive, or one of the
    `MOMENTS` (composites of `adlite.derivatives`, on floats; `options` is their ddof)."""
    if prim in MOMENTS:
        x = conv.as_float(x, node)
        shape = x.type.shape or ()
        axis = _axis(conv, axis, len(shape), node)
        return getattr(composites, prim)(BuilderOps(conv.b), x, shape, axis, bool(keepdims),
                                         **options)
    if not conv.value(x, node).type.is_array:  # numpy: a number's sum (max, ...) is itself
        try:  # ... along the axes a number has (none, 0 or -1), or numpy's AxisError
            np.sum(np.float64(0.0), axis=axis)
        except (ValueError, TypeError) as e:
            raise conv.source.error(node, str(e)) from None
        return x
    x = conv.array(x, node)
    axis = _axis(conv, axis, len(x.type.shape), node)
    if prim in ("max", "min") and reduces_nothing(x.type.shape, axis):
        conv.b.emit("empty_extremum", [x], kind=prim, axis=axis, keepdims=bool(keepdims))
    if x.type.name == "bool":  # numpy: sums/products of bools are ints; max/min stay bools
        result = conv.b.op(prim, conv.to_type(x, I64), axis=axis, keepdims=bool(keepdims))
        return result if prim in ("sum", "prod") else conv.to_type(result, x.type.scalar)
    return conv.b.op(prim, x, axis=axis, keepdims=bool(keepdims))


def _reduction(prim):
    def lower(conv, args, kwargs, node):
        allowed = ("axis", "keepdims", "ddof") if prim in ("var", "std") else ("axis", "keepdims")
        opts = _options(conv, kwargs, allowed, node)
        axis = conv.static(args[1], node) if len(args) > 1 else opts.pop("axis", None)
        keepdims = opts.pop("keepdims", False)
        return reduce(conv, prim, args[0], axis, keepdims, node, **opts)

    return lower


def transpose(conv, x, axes, node):
    x = conv.array(x, node)
    ndim = len(x.type.shape)
    if axes and not (all(isinstance(a, int) and -ndim <= a < ndim for a in axes)
                     and sorted(a % ndim for a in axes) == list(range(ndim))):
        raise conv.source.error(node, "axes don't match array")
    axes = tuple(range(ndim))[::-1] if not axes else tuple(a % ndim for a in axes)
    return x if axes == tuple(range(ndim)) else conv.b.transpose(x, axes=axes)


def reshape(conv, x, shape, node):
    x = conv.array(x, node)
    shape = shape if isinstance(shape, tuple) else (shape,)
    try:
        shape = np.empty(x.type.shape, dtype=np.bool_).reshape(shape).shape
    except ValueError as e:
        raise conv.source.error(node, f"cannot reshape {x.type}: {e}") from None
    return conv.b.reshape(x, shape=shape or None)


def dot(conv, x, y, node):
    x, y = conv.promote(x, y, node)
    if x.type.is_array and y.type.is_array:
        return conv.b.matmul(conv.as_float(x, node), conv.as_float(y, node))
    return conv.b.mul(x, y)


def _shape_of(conv, value, node) -> tuple[int, ...]:
    shape = conv.static(value, node)
    shape = shape if isinstance(shape, tuple) else (shape,)
    if not all(isinstance(n, int) for n in shape):
        raise conv.source.error(node, "array shapes must be integer constants when compiling",
                                "use x.shape or len(x), or constants")
    return shape  # checked as numpy does by the array's Type


def _dtype(conv, kwargs, node, default=F64) -> Type:
    opts = _options(conv, kwargs, ("dtype",), node)
    return resolve_dtype(conv, opts.get("dtype", default), node)


def resolve_dtype(conv, dtype, node) -> Type:
    if isinstance(dtype, Type):
        return dtype
    if dtype not in DTYPES:
        raise conv.source.error(node, f"unsupported dtype {dtype!r}", "use float64 or float32")
    return DTYPES[dtype]


def _filled(value):
    """np.zeros / np.ones / np.empty (`value`: their fill) and np.full (`value` None: its
    fill is the second argument, a run-time value: a new fill value does not compile again;
    numpy's dtype, the fill's own unless `dtype=` is given)."""
    def lower(conv, args, kwargs, node):
        shape = _shape_of(conv, args[0], node)
        if value is not None:
            dtype = _dtype(conv, kwargs, node)
            return conv.b.full(const(value, dtype), shape=shape, dtype=dtype)
        if len(args) != 2:
            raise conv.source.error(node, "np.full(shape, fill_value) takes two arguments here")
        fill = conv.value(args[1], node)
        if fill.type.is_array:
            raise conv.source.error(node, "np.full with an array as the fill value",
                                    "np.broadcast_to(fill, shape).copy() gives that array")
        dtype = _dtype(conv, kwargs, node, fill.type.scalar)
        return conv.b.full(conv.to_type(fill, dtype), shape=shape, dtype=dtype)

    return lower


def _filled_like(value):
    def lower(conv, args, kwargs, node):
        x = conv.array(args[0], node)
        dtype = _dtype(conv, kwargs, node, x.type.scalar)
        return conv.b.full(const(value, dtype), shape=x.type.shape, dtype=dtype)

    return lower




def _where(conv, args, kwargs, node):
    cond, x, y = conv.exactly(args, 3, node)
    x, y = conv.promote(x, y, node)
    cond = conv.value(cond, node)
    if cond.type.name != "bool":
        cond = conv.b.ne(cond, const(0, cond.type.scalar))
    return conv.b.select(cond, x, y)


def _clip(conv, args, kwargs, node):
    _options(conv, kwargs, (), node)
    x, lo, hi = conv.exactly(args, 3, node)
    dtype = conv.promote(conv.promote(x, lo, node)[0], hi, node)[0].type  # of all three
    return conv.b.clip(*(conv.to_type(conv.numeric(v, node), dtype) for v in (x, lo, hi)))


def _plain(fn):
    def lower(conv, args, kwargs, node):
        _options(conv, kwargs, (), node)
        return fn(conv, *args, node)

    return lower


register_with_keywords([np.sum], _reduction("sum"))
register_with_keywords([np.mean], _reduction("mean"))
register_with_keywords([np.prod], _reduction("prod"))
register_with_keywords([np.var], _reduction("var"))
register_with_keywords([np.std], _reduction("std"))
register_with_keywords([np.max, np.amax], _reduction("max"))
register_with_keywords([np.min, np.amin], _reduction("min"))
register_with_keywords([np.dot, np.matmul], _plain(dot))
register_with_keywords([np.transpose],
                       lambda conv, args, kw, node: transpose(
                           conv, args[0], conv.static(args[1], node) if len(args) > 1 else
                           _options(conv, kw, ("axes",), node).get("axes"), node))
register_with_keywords([np.reshape], lambda conv, args, kw, node: reshape(
    conv, args[0], conv.static(args[1], node), node))
register_with_keywords([np.zeros, np.empty], _filled(0.0))
register_with_keywords([np.ones], _filled(1.0))
register_with_keywords([np.full], _filled(None))
register_with_keywords([np.zeros_like, np.empty_like], _filled_like(0.0))
register_with_keywords([np.ones_like], _filled_like(1.0))
register_with_keywords([np.where], _where)
register_with_keywords([np.clip], _clip)


def _concatenate(conv, args, kwargs, node):
    opts = _options(conv, kwargs, ("axis",), node)
    parts = args[0] if args and isinstance(args[0], tuple) else None
    if not parts:
        raise conv.source.error(node, "np.concatenate needs a list or tuple of arrays")
    axis = conv.static(args[1], node) if len(args) > 1 else opts.get("axis", 0)
    parts = [conv.array(p, node) for p in parts]
    dtype = max((p.type for p in parts), key=lambda t: t.name == "f64").scalar
    parts = [conv.to_type(p, dtype) for p in parts]
    ndim = len(parts[0].type.shape)
    if not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise conv.source.error(node, f"axis {axis} is out of bounds for concatenate")
    return conv.b.concatenate(*parts, axis=axis % ndim)


def _outer(conv, args, kwargs, node):
    _options(conv, kwargs, (), node)
    x, y = (conv.array(a, node) for a in conv.exactly(args, 2, node))
    x, y = conv.promote(x, y, node)
    m, n = int(np.prod(x.type.shape)), int(np.prod(y.type.shape))
    return conv.b.mul(conv.b.reshape(x, shape=(m, 1)), conv.b.reshape(y, shape=(1, n)))


def _norm(conv, args, kwargs, node):
    """np.linalg.norm(x, ord=None, axis=None, keepdims=False): the 2-norm of vectors along
    one axis (all of a vector's), the Frobenius norm of matrices along two (all of a
    matrix's)."""
    names = ("x", "ord", "axis", "keepdims")
    if not 1 <= len(args) <= len(names):
        raise conv.source.error(node, f"np.linalg.norm() takes 1 to 4 positional arguments, "
                                      f"got {len(args)}")
    options = {"ord": None, "axis": None, "keepdims": False,
               **{k: conv.static(v, node) for k, v in zip(names[1:], args[1:], strict=False)},
               **_options(conv, kwargs, names[1:], node)}
    x = conv.as_float(args[0], node)
    ndim = len(x.type.shape or ())
    axis = _axis(conv, options["axis"], ndim, node)
    if options["ord"] is not None:
        return norm_with_ord(conv, x, options["ord"], options["axis"], options["keepdims"],
                             node)
    if axis is not None and len(axis) > 2:
        raise conv.source.error(node, "Improper number of dimensions to norm.")
    return composites.norm(BuilderOps(conv.b), x, axis, bool(options["keepdims"]))


def _expand_dims(conv, args, kwargs, node):
    x = conv.array(args[0], node)
    axis = conv.static(args[1], node) if len(args) > 1 else \
        _options(conv, kwargs, ("axis",), node).get("axis")
    shape = list(x.type.shape)
    if not isinstance(axis, int) or not -len(shape) - 1 <= axis <= len(shape):
        raise conv.source.error(node, f"expand_dims: bad axis {axis}")
    shape.insert(axis % (len(shape) + 1), 1)
    return conv.b.reshape(x, shape=tuple(shape))


def _squeeze(conv, args, kwargs, node):
    """`np.squeeze(x, axis=None)`: the axes of length 1 (all, or those named; naming one of
    another length is numpy's ValueError, at compile time)."""
    opts = _options(conv, kwargs, ("axis",), node)
    if not 1 <= len(args) <= 2 or len(args) == 2 and "axis" in opts:
        raise conv.source.error(node, "np.squeeze takes an array and an optional axis")
    x = conv.array(args[0], node)
    ndim = len(x.type.shape)
    given = conv.static(args[1], node) if len(args) == 2 else opts.get("axis")
    if given is None:
        axes = tuple(i for i, n in enumerate(x.type.shape) if n == 1)
    else:
        axes = _axis(conv, given, ndim, node)
    if any(x.type.shape[a] != 1 for a in axes):
        raise conv.source.error(node, "ValueError: cannot select an axis to squeeze out which "
                                      "has size not equal to one")
    shape = tuple(n for i, n in enumerate(x.type.shape) if i not in axes)
    return conv.b.reshape(x, shape=shape or None)


register_with_keywords([np.concatenate], _concatenate)
register_with_keywords([np.outer], _outer)
register_with_keywords([np.linalg.norm], _norm)
register_with_keywords([np.expand_dims], _expand_dims)
register_with_keywords([np.squeeze], _squeeze)


def attribute(conv, x, name: str, node):
    """`x.T`, `x.shape`, `x.ndim`, `x.size` of an array value."""
    shape = x.type.shape
    if name == "T":
        return transpose(conv, x, None, node)
    if name == "shape":
        return tuple(Const(n, I64) for n in shape)
    if name == "ndim":
        return Const(len(shape), I64)
    if name == "size":
        return Const(int(np.prod(shape)), I64)
    raise conv.source.error(node, f"unsupported array attribute .{name}",
                            "supported: .T .shape .ndim .size and methods sum, mean, max, "
                            "min, reshape, transpose, dot")


METHODS_AS_FUNCTIONS = {"prod", "any", "all", "argmax", "argmin", "cumsum", "cumprod", "clip",
                        "round", "trace", "diagonal", "squeeze", "repeat", "argsort"}


def method(conv, x, name: str, args, kwargs, node):
    """`x.sum(...)`, `x.mean(...)`, `x.var(...)`, `x.std(...)`, `x.max(...)`, `x.min(...)`,
    `x.reshape(...)`, `x.transpose(...)`, `x.dot(y)`, `x.copy()`, `x.ravel()`, `x.flatten()`,
    `x.swapaxes(a, b)`, `x.astype(dtype)`, and the methods that are numpy functions of the
    array (METHODS_AS_FUNCTIONS: `x.prod(axis)` is `np.prod(x, axis)`)."""
    if name in ("sum", "mean", "var", "std", "max", "min"):
        return _reduction(name)(conv, [x] + list(args), kwargs, node)
    if name in METHODS_AS_FUNCTIONS:  # x.prod(axis) is np.prod(x, axis), ...
        return lookup(getattr(np, name))(conv, [x] + list(args), kwargs, node)
    _options(conv, kwargs, (), node)
    if name == "reshape":
        shape = tuple(conv.static(a, node) for a in args)
        return reshape(conv, x, shape[0] if len(shape) == 1 else shape, node)
    if name == "transpose":
        axes = tuple(conv.static(a, node) for a in args)
        return transpose(conv, x, axes[0] if len(axes) == 1 and isinstance(axes[0], tuple)
                         else axes, node)
    if name == "dot":
        return dot(conv, x, args[0], node)
    if name == "copy":
        return x
    if name in ("ravel", "flatten") and not args:
        return ravel(conv, x, node)
    if name == "swapaxes" and len(args) == 2:
        return swapaxes(conv, x, *args, node)
    if name == "astype" and len(args) == 1:
        return astype(conv, x, conv.static(args[0], node), node)
    raise conv.source.error(node, f"unsupported array method .{name}()",
                            "supported: sum, mean, var, std, max, min, reshape, transpose, dot, "
                            "copy, ravel, flatten, swapaxes, astype, "
                            f"{', '.join(sorted(METHODS_AS_FUNCTIONS))}")


def ravel(conv, x, node):
    """`np.ravel(x)` / `x.ravel()` / `x.flatten()`: the elements in C order, a vector."""
    x = conv.value(x, node)
    if not x.type.is_array:
        return conv.b.broadcast_to(x, shape=(1,))
    shape = (int(np.prod(x.type.shape)),)
    return x if x.type.shape == shape else conv.b.reshape(x, shape=shape)


def swapaxes(conv, x, axis1, axis2, node):
    """`np.swapaxes(x, axis1, axis2)` / `x.swapaxes(axis1, axis2)` (constant axes)."""
    x = conv.array(x, node)
    ndim = len(x.type.shape)
    a1, a2 = (_axis(conv, conv.static(a, node), ndim, node)[0] for a in (axis1, axis2))
    axes = list(range(ndim))
    axes[a1], axes[a2] = a2, a1
    return x if a1 == a2 else conv.b.transpose(x, axes=tuple(axes))


def astype(conv, x, dtype, node):
    """`x.astype(float64 / float32 / float)`: a converted copy (of int and bool arrays too)."""
    x = conv.value(x, node)
    return conv.to_type(x, resolve_dtype(conv, dtype, node).with_shape(x.type.shape))
