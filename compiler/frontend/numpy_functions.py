"""More numpy functions in compiled code, composed from existing primitives (so AD, both
backends and the eager tape's formulas come with them).

Contract: registers lowerings (see `functions.register_with_keywords`) for `np.eye`,
`np.identity`, `np.diag` (vector -> matrix, matrix -> diagonal), `np.diagonal`, `np.trace`,
`np.diff`, `np.roll`, `np.linspace`, `np.arange`, `np.array` / `np.asarray` of an array,
`np.radians` / `np.deg2rad` / `np.degrees` / `np.rad2deg`, `np.cross`, `np.cumsum`,
`np.cumprod`, `np.tile`, `np.repeat`, `np.ravel`, `np.swapaxes`, `np.moveaxis`, `np.flip` /
`np.fliplr` / `np.flipud`, `np.tril` / `np.triu`, `np.column_stack`, `np.dstack`,
`np.atleast_1d/2d/3d`, `np.broadcast_to`, `np.meshgrid` (a tuple), `np.pad` (mode
'constant' with a constant scalar), `np.searchsorted` (a count of comparisons: sorted `a`
assumed, as numpy does; an int result); the array-building ones are those of
`adlite.derivatives.array_composites`, run through `BuilderOps`. Counts, offsets, axes and
shifts must be compile-time constants; `np.linspace` bounds may be runtime floats (numpy's
algorithm, step included). `np.arange` follows numpy's length rule for int and float
constants and numpy's dtype (int64 for int bounds without `dtype`, else float64 or
`dtype`). `np.asarray(x)` of an array of the requested dtype is `x` itself (the caller
binds the same object: `SAME_OBJECT`), `np.array(x)` a copy.
`syntactic(func)` gives the lowerings `(conv, call_node)` that read their arguments' syntax
(`np.einsum`'s subscripts string is read from the call's first argument, a string constant);
`library_function(func)` names a numpy/scipy Python function compiled code does not support
(`np.linalg.solve`), so the call is refused at the user's line instead of being inlined.
"""

from __future__ import annotations

import math

import gast
import numpy as np

from adlite.derivatives import array_composites as ac

from ..ir.builder import const
from ..ir.core import F32, F64, I64, Const, Var
from ..primitives.vocabulary import BuilderOps
from . import array_functions, sequences
from .functions import register_with_keywords

_REQUIRED = object()
LIBRARIES = {"numpy": "np", "scipy": "scipy"}


def _bind(conv, name, args, kwargs, params: dict, node) -> dict:
    """The arguments of `np.<name>` by parameter name (`params`: name -> default, in order)."""
    names = list(params)
    if len(args) > len(names):
        raise conv.source.error(node, f"np.{name}() takes at most {len(names)} positional "
                                      f"arguments here, got {len(args)}")
    bound = dict(zip(names, args, strict=False))
    for key, value in kwargs.items():
        if key not in params:
            raise conv.source.error(node, f"np.{name}(): unsupported keyword argument {key!r}",
                                    f"supported here: {', '.join(names)}")
        if key in bound:
            raise conv.source.error(node, f"np.{name}() got multiple values for argument "
                                          f"{key!r}")
        bound[key] = value
    for key, default in params.items():
        if key not in bound:
            if default is _REQUIRED:
                raise conv.source.error(node, f"np.{name}() missing required argument {key!r}")
            bound[key] = const(default) if isinstance(default, int | float) else default
    return bound


def _int(conv, value, what, node) -> int:
    value = conv.static(value, node)
    if not isinstance(value, int) or isinstance(value, bool):
        raise conv.source.error(node, f"{what} must be an integer known when compiling, got "
                                      f"{value!r}")
    return value


def _axis(conv, value, ndim, node) -> int:
    axis = _int(conv, value, "axis", node)
    if not -ndim <= axis < ndim:
        raise conv.source.error(node, f"axis {axis} is out of bounds for array of dimension "
                                      f"{ndim}")
    return axis % ndim


def _run(conv, node, composite, *args, **kwargs):
    """A composite of `array_composites` emitted with the converter's builder; its
    ValueErrors (numpy's) name the user's line."""
    try:
        return composite(BuilderOps(conv.b), *args, **kwargs)
    except ValueError as e:
        raise conv.source.error(node, str(e)) from None


def _float_array(conv, value, node):
    return conv.as_float(conv.array(value, node), node)


# ---- creation -----------------------------------------------------------------------------

def _eye_mask(conv, n: int, m: int, k: int):
    """The boolean (n, m) array that is true on diagonal k."""
    rows = conv.b.reshape(conv.b.op("arange", n=n, dtype=F64), shape=(n, 1))
    columns = conv.b.reshape(conv.b.op("arange", n=m, dtype=F64), shape=(1, m))
    return conv.b.eq(conv.b.add(rows, const(float(k))), columns)


def _eye(conv, args, kwargs, node):
    p = _bind(conv, "eye", args, kwargs, {"N": _REQUIRED, "M": None, "k": 0, "dtype": float},
              node)
    n = _int(conv, p["N"], "N", node)
    m = n if conv.static(p["M"], node) is None else _int(conv, p["M"], "M", node)
    dtype = array_functions.DTYPES.get(conv.static(p["dtype"], node))
    if dtype is None or min(n, m) < 0:
        raise conv.source.error(node, "np.eye(N, M, k, dtype): N, M >= 0 and a float dtype")
    return conv.to_type(_eye_mask(conv, n, m, _int(conv, p["k"], "k", node)),
                        dtype.with_shape((n, m)))


def _identity(conv, args, kwargs, node):
    p = _bind(conv, "identity", args, kwargs, {"n": _REQUIRED, "dtype": float}, node)
    return _eye(conv, [p["n"]], {"dtype": p["dtype"]}, node)


def _linspace(conv, args, kwargs, node):
    """numpy's algorithm: `arange(num) * step + start` (`step` = (stop - start) / div; a zero
    step scales by the span instead), the last element set to `stop` when `endpoint`."""
    p = _bind(conv, "linspace", args, kwargs, {"start": _REQUIRED, "stop": _REQUIRED,
                                               "num": 50, "endpoint": True, "retstep": False},
              node)
    num = _int(conv, p["num"], "num", node)
    if num < 0:
        raise conv.source.error(node, f"Number of samples, {num}, must be non-negative.")
    endpoint, retstep = (bool(conv.static(p[k], node)) for k in ("endpoint", "retstep"))
    start, stop = conv.promote(conv.scalar(p["start"], node), conv.scalar(p["stop"], node),
                               node)
    dt = F32 if start.type == F32 else F64  # numpy's result_type(start, stop, float(num))
    start, stop = conv.to_type(start, dt), conv.to_type(stop, dt)
    b = conv.b
    div = num - 1 if endpoint else num
    y = b.op("arange", n=num, dtype=dt)
    delta = b.sub(stop, start)
    if div > 0:
        step = b.div(delta, const(float(div), dt))
        if isinstance(step, Const):
            scaled = b.mul(y, step) if step.value else \
                b.mul(b.div(y, const(float(div), dt)), delta)
        else:
            scaled = b.select(b.eq(step, const(0.0, dt)),
                              b.mul(b.div(y, const(float(div), dt)), delta), b.mul(y, step))
    else:
        step = const(math.nan, dt)
        scaled = b.mul(y, delta)
    y = b.add(scaled, start)
    if endpoint and num > 1:
        o = BuilderOps(b)
        y = o.concatenate([o.slice_along(y, 0, 0, num - 1), b.broadcast_to(stop, shape=(1,))],
                          0)
    return (y, step) if retstep else y


def _arange(conv, args, kwargs, node):
    """np.arange(stop), (start, stop) or (start, stop, step) of constants: numpy's length
    (ceil((stop - start) / step)) and values (start + i * delta); int64 when every bound is an
    int and no dtype is given, as numpy's."""
    p = _bind(conv, "arange", args, kwargs, {"start": _REQUIRED, "stop": None, "step": None,
                                             "dtype": None}, node)
    start, stop, step = (conv.static(p[k], node) for k in ("start", "stop", "step"))
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if not all(isinstance(v, int | float) for v in (start, stop, step)):
        raise conv.source.error(node, "np.arange bounds must be numbers known when compiling",
                                "use constants, len(x) or x.shape")
    if step == 0:
        raise conv.source.error(node, "Maximum allowed size exceeded")
    integers = all(isinstance(v, int) for v in (start, stop, step))
    if integers and p["dtype"] is None:
        dtype = I64
    else:
        dtype = array_functions._dtype(conv, {"dtype": p["dtype"]} if p["dtype"] else {}, node)
    if integers:
        n, delta = len(range(start, stop, step)), step
    else:
        n, delta = max(0, math.ceil((stop - start) / step)), (start + step) - start
    number = int if dtype == I64 else float
    y = conv.b.op("arange", n=n, dtype=dtype)
    if delta != 1:
        y = conv.b.mul(y, const(number(delta), dtype))
    return conv.b.add(y, const(number(start), dtype)) if start else y


def _array_of_array(original):
    """`np.array(x)` / `np.asarray(x)` of an array: a copy / `x` (converted to `dtype`)."""

    def lower(conv, args, kwargs, node):
        if not (args and isinstance(args[0], Var | Const) and args[0].type.is_array):
            return original(conv, args, kwargs, node)
        p = _bind(conv, "array", args, kwargs, {"object": _REQUIRED, "dtype": None}, node)
        x = args[0]
        if p["dtype"] is None:
            return x
        return conv.to_type(x, array_functions._dtype(conv, {"dtype": p["dtype"]}, node)
                            .with_shape(x.type.shape))

    return lower


# ---- reshaping and reading ----------------------------------------------------------------

def _diag(conv, args, kwargs, node):
    p = _bind(conv, "diag", args, kwargs, {"v": _REQUIRED, "k": 0}, node)
    v = _float_array(conv, p["v"], node)
    k = _int(conv, p["k"], "k", node)
    shape = v.type.shape
    if len(shape) == 1:
        return _run(conv, node, ac.diag_matrix, v, shape[0], k)
    if len(shape) == 2:
        return _run(conv, node, ac.diagonal, v, shape, k)
    raise conv.source.error(node, "Input must be 1- or 2-d.")


def _two_axes(conv, p, x, node):
    """`x` with the axes `axis1`, `axis2` moved last (np.diagonal / np.trace)."""
    ndim = len(x.type.shape)
    if ndim < 2:
        raise conv.source.error(node, "diag requires an array of at least two dimensions")
    a1, a2 = (_axis(conv, p[k], ndim, node) for k in ("axis1", "axis2"))
    if a1 == a2:
        raise conv.source.error(node, "axis1 and axis2 cannot be the same")
    rest = tuple(i for i in range(ndim) if i not in (a1, a2))
    if rest + (a1, a2) != tuple(range(ndim)):
        x = conv.b.transpose(x, axes=rest + (a1, a2))
    return x


def _diagonal(name):
    def lower(conv, args, kwargs, node):
        p = _bind(conv, name, args, kwargs, {"a": _REQUIRED, "offset": 0, "axis1": 0,
                                             "axis2": 1}, node)
        x = _two_axes(conv, p, _float_array(conv, p["a"], node), node)
        d = _run(conv, node, ac.diagonal, x, x.type.shape, _int(conv, p["offset"], "offset",
                                                                   node))
        if name == "diagonal":
            return d
        return conv.b.sum(d, axis=(len(d.type.shape) - 1,), keepdims=False)

    return lower


def _diff(conv, args, kwargs, node):
    p = _bind(conv, "diff", args, kwargs, {"a": _REQUIRED, "n": 1, "axis": -1}, node)
    x = conv.numeric(conv.array(p["a"], node), node)
    axis = _axis(conv, p["axis"], len(x.type.shape), node)
    return _run(conv, node, ac.diff, x, x.type.shape, _int(conv, p["n"], "n", node), axis)


def _roll(conv, args, kwargs, node):
    p = _bind(conv, "roll", args, kwargs, {"a": _REQUIRED, "shift": _REQUIRED, "axis": None},
              node)
    x = conv.array(p["a"], node)
    shape = x.type.shape
    shift, axis = conv.static(p["shift"], node), conv.static(p["axis"], node)
    flat = axis is None and len(shape) != 1
    if flat:
        x = conv.b.reshape(x, shape=(math.prod(shape),))
    shifts, axes = np.broadcast_arrays(np.asarray(shift), np.asarray(0 if axis is None
                                                                      else axis))
    if shifts.ndim > 1 or not all(isinstance(v, int) for v in shifts.ravel().tolist() +
                                  axes.ravel().tolist()):
        raise conv.source.error(node, "np.roll: shift and axis must be integers (or tuples "
                                      "of integers) known when compiling")
    total: dict[int, int] = {}
    for s, a in zip(shifts.ravel().tolist(), axes.ravel().tolist(), strict=True):
        a = _axis(conv, const(a), len(x.type.shape), node)
        total[a] = total.get(a, 0) + s
    rolled = _run(conv, node, ac.roll, x, x.type.shape, total)
    return conv.b.reshape(rolled, shape=shape) if flat else rolled


def _angle(numerator: float, denominator: float):
    """x * (numerator / denominator), the quotient rounded in x's precision (numpy's
    `x * (180.0f / NPY_PIf)` for float32)."""
    def lower(conv, args, kwargs, node):
        array_functions._options(conv, kwargs, (), node)
        x = conv.as_float(conv.one(args, node), node)
        numpy_type = x.type.scalar.dtype.numpy
        factor = numpy_type(numerator) / numpy_type(denominator)
        return conv.b.mul(x, const(float(factor), x.type.scalar))

    return lower


def _cross(conv, args, kwargs, node):
    array_functions._options(conv, kwargs, (), node)
    a, b = (conv.as_float(conv.array(v, node), node) for v in conv.exactly(args, 2, node))
    a, b = conv.promote(a, b, node)
    return _run(conv, node, ac.cross, a, b, a.type.shape, b.type.shape)


def _cumulative(name, op):
    def lower(conv, args, kwargs, node):
        p = _bind(conv, name, args, kwargs, {"a": _REQUIRED, "axis": None}, node)
        x = conv.numeric(p["a"], node)
        if not x.type.is_array or conv.static(p["axis"], node) is None:
            shape = (math.prod(x.type.shape),) if x.type.is_array else (1,)
            x = conv.b.reshape(x, shape=shape) if x.type.shape != shape else x
            axis = 0
        else:
            axis = _axis(conv, p["axis"], len(x.type.shape), node)
        o = BuilderOps(conv.b)
        return _run(conv, node, ac.cumulative, x, x.type.shape, axis, getattr(o, op))

    return lower


def _tile(conv, args, kwargs, node):
    array_functions._options(conv, kwargs, (), node)
    x, reps = conv.exactly(args, 2, node)
    x = conv.array(x, node)
    reps = conv.static(reps, node)
    reps = reps if isinstance(reps, tuple) else (reps,)
    if not all(isinstance(r, int) and r >= 0 for r in reps):
        raise conv.source.error(node, "np.tile: reps must be non-negative integers known when "
                                      "compiling")
    return _run(conv, node, ac.tile, x, x.type.shape, reps)


def _repeat(conv, args, kwargs, node):
    p = _bind(conv, "repeat", args, kwargs, {"a": _REQUIRED, "repeats": _REQUIRED,
                                             "axis": None}, node)
    x = conv.array(p["a"], node)
    repeats = _int(conv, p["repeats"], "repeats", node)
    if repeats < 0:
        raise conv.source.error(node, "negative dimensions are not allowed")
    if conv.static(p["axis"], node) is None:
        if len(x.type.shape) != 1:
            x = conv.b.reshape(x, shape=(math.prod(x.type.shape),))
        axis = 0
    else:
        axis = _axis(conv, p["axis"], len(x.type.shape), node)
    return _run(conv, node, ac.repeat, x, x.type.shape, repeats, axis)


def _ravel(conv, args, kwargs, node):
    p = _bind(conv, "ravel", args, kwargs, {"a": _REQUIRED}, node)
    return array_functions.ravel(conv, p["a"], node)


def _swapaxes(conv, args, kwargs, node):
    p = _bind(conv, "swapaxes", args, kwargs, {"a": _REQUIRED, "axis1": _REQUIRED,
                                               "axis2": _REQUIRED}, node)
    return array_functions.swapaxes(conv, p["a"], p["axis1"], p["axis2"], node)


def _int_axes(conv, value, what, node) -> tuple[int, ...]:
    value = conv.static(value, node)
    axes = value if isinstance(value, tuple | list) else (value,)
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        raise conv.source.error(node, f"{what} must be integers known when compiling, got "
                                      f"{value!r}")
    return tuple(axes)


def _moveaxis(conv, args, kwargs, node):
    p = _bind(conv, "moveaxis", args, kwargs, {"a": _REQUIRED, "source": _REQUIRED,
                                               "destination": _REQUIRED}, node)
    x = conv.array(p["a"], node)
    source, destination = (_int_axes(conv, p[k], k, node) for k in ("source", "destination"))
    try:
        axes = ac.moved_axes(len(x.type.shape), source, destination)
    except ValueError as e:
        raise conv.source.error(node, str(e)) from None
    return x if axes == tuple(range(len(axes))) else conv.b.transpose(x, axes=axes)


def _flip_axes(name, fixed):
    def lower(conv, args, kwargs, node):
        params = {"m": _REQUIRED} if fixed is not None else {"m": _REQUIRED, "axis": None}
        p = _bind(conv, name, args, kwargs, params, node)
        x = conv.value(p["m"], node)
        ndim = len(x.type.shape or ())
        if fixed is not None:
            if ndim <= fixed:
                raise conv.source.error(node, f"Input must be >= {fixed + 1}-d.")
            axes = (fixed,)
        elif conv.static(p["axis"], node) is None:
            axes = tuple(range(ndim))
        else:
            try:
                axes = tuple(ac._axes(_int_axes(conv, p["axis"], "axis", node), ndim, "axis"))
            except ValueError as e:
                raise conv.source.error(node, str(e).removeprefix("axis: ")) from None
        return _run(conv, node, ac.flip, x, axes) if axes else x

    return lower


def _triangle(name):
    def lower(conv, args, kwargs, node):
        p = _bind(conv, name, args, kwargs, {"m": _REQUIRED, "k": 0}, node)
        x = _float_array(conv, p["m"], node)
        k = _int(conv, p["k"], "k", node)
        shape = x.type.shape
        if len(shape) == 1:  # numpy: a vector is broadcast to a square matrix
            x = conv.b.broadcast_to(x, shape=(shape[0],) * 2)
            shape = x.type.shape
        n, m = shape[-2:]
        b = conv.b
        rows = b.reshape(b.op("arange", n=n, dtype=F64), shape=(n, 1))
        columns = b.reshape(b.op("arange", n=m, dtype=F64), shape=(1, m))
        diagonal = b.add(rows, const(float(k)))
        mask = b.ge(diagonal, columns) if name == "tril" else b.le(diagonal, columns)
        mask = b.broadcast_to(mask, shape=shape)
        return _run(conv, node, ac.triangle, x, shape, mask)

    return lower


def _stacked(name, composite):
    def lower(conv, args, kwargs, node):
        p = _bind(conv, name, args, kwargs, {"tup": _REQUIRED}, node)
        items = [conv.array(v, node) if conv.value(v, node).type.is_array
                 else conv.value(v, node)
                 for v in sequences._sequence_arg(conv, [p["tup"]], node, f"np.{name}")]
        if not items:
            raise conv.source.error(node, "need at least one array to concatenate")
        dtype = F64 if any(v.type.scalar == F64 for v in items) else items[0].type.scalar
        items = [conv.to_type(v, dtype.with_shape(v.type.shape)) for v in items]
        return _run(conv, node, composite, items, [v.type.shape or () for v in items])

    return lower


def _atleast(ndim):
    def lower(conv, args, kwargs, node):
        array_functions._options(conv, kwargs, (), node)
        if not args:
            raise conv.source.error(node, f"np.atleast_{ndim}d() needs an array")
        results = []
        for a in args:
            x = conv.value(a, node)
            results.append(ac.atleast(BuilderOps(conv.b), x, x.type.shape or (), ndim))
        return results[0] if len(results) == 1 else tuple(results)

    return lower


def _broadcast_to(conv, args, kwargs, node):
    p = _bind(conv, "broadcast_to", args, kwargs, {"array": _REQUIRED, "shape": _REQUIRED},
              node)
    x = conv.value(p["array"], node)
    shape = array_functions._shape_of(conv, p["shape"], node)
    try:
        np.broadcast_to(np.empty(x.type.shape or (), dtype=np.bool_), shape)
    except ValueError as e:
        raise conv.source.error(node, str(e)) from None
    if (x.type.shape or ()) == shape:
        return x
    return conv.b.broadcast_to(x, shape=shape) if shape else x


def _meshgrid(conv, args, kwargs, node):
    opts = array_functions._options(conv, kwargs, ("indexing", "sparse", "copy"), node)
    if opts.get("sparse"):
        raise conv.source.error(node, "np.meshgrid(sparse=True) is not supported",
                                "leave sparse out: the full grids")
    xs = [conv.value(a, node) for a in args]
    xs = [conv.b.reshape(x, shape=(math.prod(x.type.shape or ()),)) if len(x.type.shape or ())
          != 1 else x for x in xs]
    return _run(conv, node, ac.meshgrid, xs, [x.type.shape[0] for x in xs],
                opts.get("indexing", "xy"))


def _pad(conv, args, kwargs, node):
    p = _bind(conv, "pad", args, kwargs, {"array": _REQUIRED, "pad_width": _REQUIRED,
                                          "mode": "constant", "constant_values": 0}, node)
    mode, value = conv.static(p["mode"], node), conv.static(p["constant_values"], node)
    if mode != "constant":
        raise conv.source.error(node, f"np.pad(mode={mode!r}) is not supported",
                                "mode='constant' (the default) is")
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise conv.source.error(node, "np.pad: constant_values must be a number known when "
                                      "compiling", "one scalar for every side")
    x = conv.array(p["array"], node)
    if x.type.name == "bool":
        raise conv.source.error(node, "np.pad of a bool array is not supported",
                                "pad x.astype(float)")
    value = float(value) if x.type.is_float else int(value)
    try:
        widths = ac.pad_widths(conv.static(p["pad_width"], node), len(x.type.shape))
    except ValueError as e:
        raise conv.source.error(node, str(e)) from None
    return _run(conv, node, ac.pad, x, x.type.shape, widths, value)


# ---- einsum -------------------------------------------------------------------------------

def _searchsorted(conv, args, kwargs, node):
    """np.searchsorted(a, v, side): for sorted 1-D `a`, how many elements of `a` are below
    each `v` (side 'left': `<`, 'right': `<=`), with numpy's order (NaN after everything): a
    count of comparisons, an int64 scalar or array of `v`'s shape, not differentiated."""
    p = _bind(conv, "searchsorted", args, kwargs,
              {"a": _REQUIRED, "v": _REQUIRED, "side": "left", "sorter": None}, node)
    side = conv.static(p["side"], node)
    if side not in ("left", "right"):
        raise conv.source.error(node, f"side must be 'left' or 'right' (got {side!r})")
    if p["sorter"] is not None:
        raise conv.source.error(node, "np.searchsorted(sorter=...) is not supported",
                                "pass a sorted array: a[sorter]")
    a = conv.array(p["a"], node)
    if len(a.type.shape) != 1:
        raise conv.source.error(node, "object too deep for desired array")
    v = conv.value(p["v"], node)
    a, v = conv.promote(a, v, node)
    b, n = conv.b, a.type.shape[0]
    shape = v.type.shape or ()
    column = b.reshape(v, shape=shape + (1,))
    nan_v = b.ne(column, column)
    if side == "left":  # a[j] < v, NaN above every number
        below = b.or_(b.lt(a, column), b.and_(nan_v, b.eq(a, a)))
    else:
        below = b.or_(b.le(a, column), nan_v)
    return b.sum(conv.to_type(below, I64.with_shape(shape + (n,))), axis=(len(shape),),
                 keepdims=False)


def _einsum(conv, node):
    """np.einsum('subscripts', *operands): the subscripts string is read from the call's
    syntax (a string literal; else a compile-time string value); the operands are converted
    to one float type."""
    first = node.args[0] if node.args else None
    literal = isinstance(first, gast.Constant) and isinstance(first.value, str)
    subscripts = first.value if literal else conv.expr(first) if first else None
    if not isinstance(subscripts, str):
        raise conv.source.error(node, "np.einsum needs its subscripts string first",
                                "write np.einsum('ij,jk->ik', a, b)")
    for kw in node.keywords:
        if kw.arg != "optimize":
            raise conv.source.error(node, f"np.einsum(): unsupported keyword argument "
                                          f"{kw.arg!r}", "supported here: optimize")
        conv.static(conv.expr(kw.value), node)  # a path choice: the result is the same
    operands = [conv.as_float(conv.expr(a), a) for a in node.args[1:]]
    dtype = F64 if any(x.type.scalar == F64 for x in operands) else operands[0].type.scalar \
        if operands else F64
    operands = [conv.to_type(x, dtype.with_shape(x.type.shape)) for x in operands]
    return _run(conv, node, ac.einsum, subscripts, operands,
                [x.type.shape or () for x in operands])


_SYNTACTIC = {id(np.einsum): (np.einsum, _einsum)}


def syntactic(func):
    """The lowering `(conv, call_node)` of a function whose arguments are read from the
    call's syntax, or None."""
    entry = _SYNTACTIC.get(id(func))
    return entry[1] if entry is not None and entry[0] is func else None


def library_function(func) -> str | None:
    """`np.eye`-style name of a function of numpy or scipy (never inlined), or None."""
    if not callable(func) or not isinstance(getattr(func, "__name__", None), str):
        return None
    module = getattr(func, "__module__", "") or ""
    top = module.split(".")[0]
    if top not in LIBRARIES:
        return None
    public = [part for part in module.split(".")[1:] if not part.startswith("_")]
    return ".".join([LIBRARIES[top], *public, func.__name__])


SAME_OBJECT = (np.asarray,)  # of an array of the requested dtype: the argument itself

register_with_keywords([np.eye], _eye)
register_with_keywords([np.identity], _identity)
register_with_keywords([np.linspace], _linspace)
register_with_keywords([np.arange], _arange)
register_with_keywords([np.array], _array_of_array(sequences.np_array))
register_with_keywords([np.asarray], _array_of_array(sequences.np_array))
register_with_keywords([np.diag], _diag)
register_with_keywords([np.diagonal], _diagonal("diagonal"))
register_with_keywords([np.trace], _diagonal("trace"))
register_with_keywords([np.diff], _diff)
register_with_keywords([np.searchsorted], _searchsorted)
register_with_keywords([np.roll], _roll)
register_with_keywords([np.radians, np.deg2rad], _angle(math.pi, 180.0))
register_with_keywords([np.degrees, np.rad2deg], _angle(180.0, math.pi))
register_with_keywords([np.cross], _cross)
register_with_keywords([np.cumsum], _cumulative("cumsum", "add"))
register_with_keywords([np.cumprod], _cumulative("cumprod", "mul"))
register_with_keywords([np.tile], _tile)
register_with_keywords([np.repeat], _repeat)
register_with_keywords([np.ravel], _ravel)
register_with_keywords([np.swapaxes], _swapaxes)
register_with_keywords([np.moveaxis], _moveaxis)
register_with_keywords([np.flip], _flip_axes("flip", None))
register_with_keywords([np.flipud], _flip_axes("flipud", 0))
register_with_keywords([np.fliplr], _flip_axes("fliplr", 1))
register_with_keywords([np.tril], _triangle("tril"))
register_with_keywords([np.triu], _triangle("triu"))
register_with_keywords([np.column_stack], _stacked("column_stack", ac.column_stack))
register_with_keywords([np.dstack], _stacked("dstack", ac.dstack))
register_with_keywords([np.atleast_1d], _atleast(1))
register_with_keywords([np.atleast_2d], _atleast(2))
register_with_keywords([np.atleast_3d], _atleast(3))
register_with_keywords([np.broadcast_to], _broadcast_to)
register_with_keywords([np.meshgrid], _meshgrid)
register_with_keywords([np.pad], _pad)
