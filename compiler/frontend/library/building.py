"""More numpy functions in compiled code, composed from existing primitives (so AD, both
backends and the eager tape's formulas come with them).

Contract: registers rules (`registry.register`) for `np.eye`,
`np.identity`, `np.diag` (vector -> matrix, matrix -> diagonal), `np.diagonal`, `np.trace`,
`np.diff`, `np.roll`, `np.linspace`, `np.arange`, `np.array` / `np.asarray` of an array,
`np.radians` / `np.deg2rad` / `np.degrees` / `np.rad2deg`, `np.cross` (`axisa`, `axisb`,
`axisc`, `axis`; numpy's dtype), `np.kron`, `np.tensordot`, `np.array_split` / `np.split`
(a tuple of the parts), `np.cumsum`,
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
binds the same object: `SAME_OBJECT`, as is `np.real(x)`), `np.array(x)` a copy; of a
number, both give the number (compiled code's 0-d array).
`np.einsum` is a rule that reads its arguments' syntax (`syntax=True`: the subscripts
string is read from the call's first argument, a string constant; or numpy's sublist form,
operands each followed by its list of integer labels, an output list last). `one_axis` and
`eye_mask` serve `sorting` and `scipy_special_stats` too.
"""

from __future__ import annotations

import math

import gast
import numpy as np

from adlite.derivatives import array_composites as ac

from ...errors import AdliteAxisError, AdliteTypeError, AdliteValueError
from ...ir import dtypes
from ...ir.builder import const
from ...ir.core import F32, F64, I64, Const, Var
from ...ir.dims import is_symbolic, slice_length
from ...primitives.vocabulary import BuilderOps
from .. import known_values, sequences
from ..context import CallContext
from . import arrays
from .arrays import boolean_product, product_operands
from .registry import REQUIRED, bind_params, options, param, register


def _int(cx: CallContext, value, what, node, key: str = "option") -> int:
    """An int known when compiling; where `key` is "shape", also a run-time size (`ir.dims`:
    `np.eye(len(x))` with shapes="dynamic")."""
    value = cx.static(value, node, f"its `{what}`", key)
    if key == "shape" and is_symbolic(value):
        return value
    if not isinstance(value, int) or isinstance(value, bool):
        raise cx.source.error(node, f"{what} must be an integer, got {value!r}")
    return value


def one_axis(cx: CallContext, value, ndim, node) -> int:
    axis = _int(cx, value, "axis", node)
    if not -ndim <= axis < ndim:
        raise cx.source.error(node, f"axis {axis} is out of bounds for array of dimension "
                              f"{ndim}", kind=AdliteAxisError)
    return axis % ndim


_run = arrays.run_composite


def _float_array(cx: CallContext, value, node):
    return cx.as_float(cx.array(value, node), node)


# ---- creation -----------------------------------------------------------------------------

def eye_mask(cx: CallContext, n: int, m: int, k: int):
    """The boolean (n, m) array that is true on diagonal k."""
    rows = cx.b.reshape(cx.b.op("arange", n=n, dtype=F64), shape=(n, 1))
    columns = cx.b.reshape(cx.b.op("arange", n=m, dtype=F64), shape=(1, m))
    return cx.b.eq(cx.b.add(rows, const(float(k))), columns)


def _eye(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "eye", args, kwargs, {"N": REQUIRED, "M": None, "k": 0, "dtype": float},
                    node)
    n = _int(cx, p["N"], "N", node, "shape")
    m = n if param(cx, p, "M", node, "shape") is None else _int(cx, p["M"], "M", node, "shape")
    dtype = arrays.DTYPES.get(param(cx, p, "dtype", node))
    if dtype is None or min(n, m) < 0:
        raise cx.source.error(node, "np.eye(N, M, k, dtype): N, M >= 0 and a float dtype")
    return cx.to_type(eye_mask(cx, n, m, _int(cx, p["k"], "k", node)),
                      dtype.with_shape((n, m)))


def _identity(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "identity", args, kwargs, {"n": REQUIRED, "dtype": float}, node)
    return _eye(cx, [p["n"]], {"dtype": p["dtype"]}, node)


def _linspace(cx: CallContext, args, kwargs, node):
    """numpy's algorithm: `arange(num) * step + start` (`step` = (stop - start) / div; a zero
    step scales by the span instead), the last element set to `stop` when `endpoint`."""
    p = bind_params(cx, "linspace", args, kwargs, {"start": REQUIRED, "stop": REQUIRED,
                                                   "num": 50, "endpoint": True, "retstep": False},
                    node)
    num = _int(cx, p["num"], "num", node, "shape")
    if num < 0:
        raise cx.source.error(node, f"Number of samples, {num}, must be non-negative.")
    endpoint, retstep = (bool(param(cx, p, k, node)) for k in ("endpoint", "retstep"))
    start, stop = cx.promote(cx.scalar(p["start"], node), cx.scalar(p["stop"], node),
                             node)
    dt = F32 if start.type == F32 else F64  # numpy's result_type(start, stop, float(num))
    start, stop = cx.to_type(start, dt), cx.to_type(stop, dt)
    b = cx.b
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


def _arange(cx: CallContext, args, kwargs, node):
    """np.arange(stop), (start, stop) or (start, stop, step) of constants: numpy's length
    (ceil((stop - start) / step)) and values (start + i * delta); int64 when every bound is an
    int and no dtype is given, as numpy's. Float bounds computed from `Known` parameters
    (known_values.py) give the length; the values are computed from start and step at run
    time, so that their derivatives flow."""
    p = bind_params(cx, "arange", args, kwargs, {"start": REQUIRED, "stop": None, "step": None,
                                                 "dtype": None}, node)
    bounds = [_bound(cx, p, k, node) for k in ("start", "stop", "step")]
    (start, start_atom), (stop, _), (step, step_atom) = bounds
    if stop is None:
        (start, start_atom), stop = (0, None), start
    if step is None:
        step, step_atom = 1, None
    if not all(isinstance(v, int | float) or is_symbolic(v) for v in (start, stop, step)):
        raise cx.source.error(node, f"np.arange bounds must be numbers, got "
                              f"{(start, stop, step)!r}",
                              "use constants, len(x) or x.shape")
    if step == 0:
        raise cx.source.error(node, "Maximum allowed size exceeded")
    integers = all(isinstance(v, int) or is_symbolic(v) for v in (start, stop, step))
    if integers and p["dtype"] is None:
        dtype = I64
    else:
        dtype = arrays.dtype_option(cx, {"dtype": p["dtype"]} if p["dtype"] else {}, node)
    if integers:
        n, delta = slice_length(start, stop, step), step
    else:
        n, delta = max(0, math.ceil((stop - start) / step)), (start + step) - start
    number = int if dtype == I64 else float
    y = cx.b.op("arange", n=n, dtype=dtype)
    if dtype.is_float and not (start_atom is None and step_atom is None):  # at run time
        first = cx.to_type(const(float(start)) if start_atom is None else start_atom, dtype)
        step_atom = const(float(step)) if step_atom is None else step_atom
        delta = cx.b.sub(cx.b.add(first, cx.to_type(step_atom, dtype)), first)
        return cx.b.add(cx.b.mul(y, delta), first)  # numpy's values: start + i * delta
    if delta != 1:
        y = cx.b.mul(y, const(number(delta), dtype))
    return cx.b.add(y, const(number(start), dtype)) if start else y


def _bound(cx: CallContext, p: dict, name: str, node) -> tuple:
    """(the compile-time value of arange bound `name` of the bound call `p`, its run-time atom
    when it is a float computed from `Known` parameters, else None)."""
    is_known, known = known_values.value_of(cx.b, p[name])
    if is_known and isinstance(known, float):
        return known, p[name]
    return param(cx, p, name, node, "shape"), None


def _np_array(cx: CallContext, args, kwargs, node):
    """`np.array` of a list or tuple (`sequences.np_array`, read when called: `sequences`
    imports this package)."""
    return sequences.np_array(cx, args, kwargs, node)


def _array_of_array(original):
    """`np.array(x)` / `np.asarray(x)` of an array: a copy / `x` (converted to `dtype`); of
    a number: the number (numpy's 0-d array; compiled code has none)."""

    def lower(cx: CallContext, args, kwargs, node):
        if not (args and isinstance(args[0], Var | Const)):
            return original(cx, args, kwargs, node)
        p = bind_params(cx, "array", args, kwargs, {"object": REQUIRED, "dtype": None}, node)
        x = args[0]
        if p["dtype"] is None:
            return x
        return cx.to_type(x, arrays.dtype_option(cx, {"dtype": p["dtype"]}, node)
                          .with_shape(x.type.shape))

    return lower


# ---- reshaping and reading ----------------------------------------------------------------

def _diag(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "diag", args, kwargs, {"v": REQUIRED, "k": 0}, node)
    v = _float_array(cx, p["v"], node)
    k = _int(cx, p["k"], "k", node)
    shape = v.type.shape
    if len(shape) == 1:
        return _run(cx, node, ac.diag_matrix, v, shape[0], k)
    if len(shape) == 2:
        return _run(cx, node, ac.diagonal, v, shape, k)
    raise cx.source.error(node, "Input must be 1- or 2-d.")


def _two_axes(cx: CallContext, p, x, node):
    """`x` with the axes `axis1`, `axis2` moved last (np.diagonal / np.trace)."""
    ndim = len(x.type.shape)
    if ndim < 2:
        raise cx.source.error(node, "diag requires an array of at least two dimensions")
    a1, a2 = (one_axis(cx, p[k], ndim, node) for k in ("axis1", "axis2"))
    if a1 == a2:
        raise cx.source.error(node, "axis1 and axis2 cannot be the same")
    rest = tuple(i for i in range(ndim) if i not in (a1, a2))
    if rest + (a1, a2) != tuple(range(ndim)):
        x = cx.b.transpose(x, axes=rest + (a1, a2))
    return x


def _diagonal(name):
    def lower(cx: CallContext, args, kwargs, node):
        p = bind_params(cx, name, args, kwargs, {"a": REQUIRED, "offset": 0, "axis1": 0,
                                                 "axis2": 1}, node)
        x = _two_axes(cx, p, _float_array(cx, p["a"], node), node)
        d = _run(cx, node, ac.diagonal, x, x.type.shape, _int(cx, p["offset"], "offset",
                                                              node))
        if name == "diagonal":
            return d
        return cx.b.sum(d, axis=(len(d.type.shape) - 1,), keepdims=False)

    return lower


def _diff(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "diff", args, kwargs, {"a": REQUIRED, "n": 1, "axis": -1}, node)
    x = cx.numeric(cx.array(p["a"], node), node)
    axis = one_axis(cx, p["axis"], len(x.type.shape), node)
    return _run(cx, node, ac.diff, x, x.type.shape, _int(cx, p["n"], "n", node, "shape"), axis)


def _roll(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "roll", args, kwargs, {"a": REQUIRED, "shift": REQUIRED, "axis": None},
                    node)
    x = cx.array(p["a"], node)
    shape = x.type.shape
    shift, axis = param(cx, p, "shift", node), param(cx, p, "axis", node)
    flat = axis is None and len(shape) != 1
    if flat:
        x = cx.b.reshape(x, shape=(math.prod(shape),))
    shifts, axes = np.broadcast_arrays(np.asarray(shift), np.asarray(0 if axis is None
                                                                      else axis))
    if shifts.ndim > 1 or not all(isinstance(v, int) for v in shifts.ravel().tolist() +
                                  axes.ravel().tolist()):
        raise cx.source.error(node, "np.roll: shift and axis must be integers (or tuples "
                              "of integers)")
    total: dict[int, int] = {}
    for s, a in zip(shifts.ravel().tolist(), axes.ravel().tolist(), strict=True):
        a = one_axis(cx, const(a), len(x.type.shape), node)
        total[a] = total.get(a, 0) + s
    rolled = _run(cx, node, ac.roll, x, x.type.shape, total)
    return cx.b.reshape(rolled, shape=shape) if flat else rolled


def _angle(numerator: float, denominator: float):
    """x * (numerator / denominator), the quotient rounded in x's precision (numpy's
    `x * (180.0f / NPY_PIf)` for float32)."""
    def lower(cx: CallContext, args, kwargs, node):
        options(cx, kwargs, (), node)
        x = cx.as_float(cx.one(args, node), node)
        numpy_type = x.type.scalar.dtype.numpy
        factor = numpy_type(numerator) / numpy_type(denominator)
        return cx.b.mul(x, const(float(factor), x.type.scalar))

    return lower


def _cross(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "cross", args, kwargs, {"a": REQUIRED, "b": REQUIRED, "axisa": -1,
                                                "axisb": -1, "axisc": -1, "axis": None}, node)
    a, b = (cx.value(p[k], node) for k in "ab")
    if a.type.name == b.type.name == "bool":
        raise cx.source.error(node, "numpy boolean subtract, the `-` operator, is not "
                              "supported, use the bitwise_xor, the `^` operator, or the "
                              "logical_xor function instead.", kind=AdliteTypeError)
    a, b = cx.promote(a, b, node)  # numpy's dtype: int64 operands give an int64 result
    axes = {k: param(cx, p, k, node) for k in ("axisa", "axisb", "axisc", "axis")}
    if not all(v is None and k == "axis" or isinstance(v, int) and not isinstance(v, bool)
               for k, v in axes.items()):
        raise cx.source.error(node, f"np.cross: axes must be integers, got {axes}",
                              kind=AdliteTypeError)
    return _run(cx, node, ac.cross, a, b, a.type.shape or (), b.type.shape or (), **axes)


def _cumulative(name, op):
    def lower(cx: CallContext, args, kwargs, node):
        p = bind_params(cx, name, args, kwargs, {"a": REQUIRED, "axis": None}, node)
        x = cx.numeric(p["a"], node)
        if not x.type.is_array or param(cx, p, "axis", node) is None:
            shape = (math.prod(x.type.shape),) if x.type.is_array else (1,)
            x = cx.b.reshape(x, shape=shape) if x.type.shape != shape else x
            axis = 0
        else:
            axis = one_axis(cx, p["axis"], len(x.type.shape), node)
        o = BuilderOps(cx.b)
        return _run(cx, node, ac.cumulative, x, x.type.shape, axis, getattr(o, op))

    return lower


def _tile(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "tile", args, kwargs, {"A": REQUIRED, "reps": REQUIRED}, node)
    x = cx.array(p["A"], node)
    reps = param(cx, p, "reps", node, "shape")
    reps = reps if isinstance(reps, tuple) else (reps,)
    if not all(isinstance(r, int) and r >= 0 for r in reps):
        raise cx.source.error(node, f"np.tile: reps must be non-negative integers, got "
                              f"{reps!r}")
    return _run(cx, node, ac.tile, x, x.type.shape, reps)


def _repeat(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "repeat", args, kwargs, {"a": REQUIRED, "repeats": REQUIRED,
                                                 "axis": None}, node)
    x = cx.array(p["a"], node)
    repeats = _int(cx, p["repeats"], "repeats", node, "shape")
    if repeats < 0:
        raise cx.source.error(node, "negative dimensions are not allowed")
    if param(cx, p, "axis", node) is None:
        if len(x.type.shape) != 1:
            x = cx.b.reshape(x, shape=(math.prod(x.type.shape),))
        axis = 0
    else:
        axis = one_axis(cx, p["axis"], len(x.type.shape), node)
    return _run(cx, node, ac.repeat, x, x.type.shape, repeats, axis)


def _ravel(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "ravel", args, kwargs, {"a": REQUIRED}, node)
    return arrays.ravel(cx, p["a"], node)


def _swapaxes(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "swapaxes", args, kwargs, {"a": REQUIRED, "axis1": REQUIRED,
                                                   "axis2": REQUIRED}, node)
    return arrays.swapaxes(cx, p["a"], p["axis1"], p["axis2"], node)


def _int_axes(cx: CallContext, value, what, node) -> tuple[int, ...]:
    value = cx.static(value, node, f"its `{what}`", "option")
    axes = value if isinstance(value, tuple | list) else (value,)
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        raise cx.source.error(node, f"{what} must be integers, got {value!r}")
    return tuple(axes)


def _moveaxis(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "moveaxis", args, kwargs, {"a": REQUIRED, "source": REQUIRED,
                                                   "destination": REQUIRED}, node)
    x = cx.array(p["a"], node)
    source, destination = (_int_axes(cx, p[k], k, node) for k in ("source", "destination"))
    try:
        axes = ac.moved_axes(len(x.type.shape), source, destination)
    except ValueError as e:
        raise cx.source.error(node, str(e)) from None
    return x if axes == tuple(range(len(axes))) else cx.b.transpose(x, axes=axes)


def _flip_axes(name, fixed):
    def lower(cx: CallContext, args, kwargs, node):
        params = {"m": REQUIRED} if fixed is not None else {"m": REQUIRED, "axis": None}
        p = bind_params(cx, name, args, kwargs, params, node)
        x = cx.value(p["m"], node)
        ndim = len(x.type.shape or ())
        if fixed is not None:
            if ndim <= fixed:
                raise cx.source.error(node, f"Input must be >= {fixed + 1}-d.")
            axes = (fixed,)
        elif param(cx, p, "axis", node) is None:
            axes = tuple(range(ndim))
        else:
            try:
                axes = tuple(ac._axes(_int_axes(cx, p["axis"], "axis", node), ndim, "axis"))
            except ValueError as e:
                raise cx.source.error(node, str(e).removeprefix("axis: ")) from None
        return _run(cx, node, ac.flip, x, axes) if axes else x

    return lower


def _triangle(name):
    def lower(cx: CallContext, args, kwargs, node):
        p = bind_params(cx, name, args, kwargs, {"m": REQUIRED, "k": 0}, node)
        x = _float_array(cx, p["m"], node)
        k = _int(cx, p["k"], "k", node)
        shape = x.type.shape
        if len(shape) == 1:  # numpy: a vector is broadcast to a square matrix
            x = cx.b.broadcast_to(x, shape=(shape[0],) * 2)
            shape = x.type.shape
        n, m = shape[-2:]
        b = cx.b
        rows = b.reshape(b.op("arange", n=n, dtype=F64), shape=(n, 1))
        columns = b.reshape(b.op("arange", n=m, dtype=F64), shape=(1, m))
        diagonal = b.add(rows, const(float(k)))
        mask = b.ge(diagonal, columns) if name == "tril" else b.le(diagonal, columns)
        mask = b.broadcast_to(mask, shape=shape)
        return _run(cx, node, ac.triangle, x, shape, mask)

    return lower


def _stacked(name, composite):
    def lower(cx: CallContext, args, kwargs, node):
        p = bind_params(cx, name, args, kwargs, {"tup": REQUIRED}, node)
        items = [cx.array(v, node) if cx.value(v, node).type.is_array
                 else cx.value(v, node)
                 for v in sequences._sequence_arg(cx, [p["tup"]], node, f"np.{name}")]
        if not items:
            raise cx.source.error(node, "need at least one array to concatenate")
        dtype = F64 if any(v.type.scalar == F64 for v in items) else items[0].type.scalar
        items = [cx.to_type(v, dtype.with_shape(v.type.shape)) for v in items]
        return _run(cx, node, composite, items, [v.type.shape or () for v in items])

    return lower


def _atleast(ndim):
    def lower(cx: CallContext, args, kwargs, node):
        options(cx, kwargs, (), node)
        if not args:
            raise cx.source.error(node, f"np.atleast_{ndim}d() needs an array")
        results = []
        for a in args:
            x = cx.value(a, node)
            results.append(ac.atleast(BuilderOps(cx.b), x, x.type.shape or (), ndim))
        return results[0] if len(results) == 1 else tuple(results)

    return lower


def _broadcast_to(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "broadcast_to", args, kwargs, {"array": REQUIRED, "shape": REQUIRED},
                    node)
    x = cx.value(p["array"], node)
    shape = arrays.static_shape(cx, p["shape"], node)
    try:
        np.broadcast_to(np.empty(x.type.shape or (), dtype=np.bool_), shape)
    except ValueError as e:
        raise cx.source.error(node, str(e)) from None
    if (x.type.shape or ()) == shape:
        return x
    return cx.b.broadcast_to(x, shape=shape) if shape else x


def _meshgrid(cx: CallContext, args, kwargs, node):
    opts = options(cx, kwargs, ("indexing", "sparse", "copy"), node)
    if opts.get("sparse"):
        raise cx.source.error(node, "np.meshgrid(sparse=True) is not supported",
                              "leave sparse out: the full grids")
    xs = [cx.value(a, node) for a in args]
    xs = [cx.b.reshape(x, shape=(math.prod(x.type.shape or ()),)) if len(x.type.shape or ())
          != 1 else x for x in xs]
    return _run(cx, node, ac.meshgrid, xs, [x.type.shape[0] for x in xs],
                opts.get("indexing", "xy"))


def _pad(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "pad", args, kwargs, {"array": REQUIRED, "pad_width": REQUIRED,
                                              "mode": "constant", "constant_values": 0}, node)
    mode, value = param(cx, p, "mode", node), param(cx, p, "constant_values", node)
    if mode != "constant":
        raise cx.source.error(node, f"np.pad(mode={mode!r}) is not supported",
                              "mode='constant' (the default) is")
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise cx.source.error(node, f"np.pad: constant_values must be a number, got "
                              f"{value!r}", "one scalar for every side")
    x = cx.array(p["array"], node)
    if x.type.name == "bool":
        raise cx.source.error(node, "np.pad of a bool array is not supported",
                              "pad x.astype(float)")
    value = float(value) if x.type.is_float else int(value)
    try:
        widths = ac.pad_widths(param(cx, p, "pad_width", node, "shape"), len(x.type.shape))
    except ValueError as e:
        raise cx.source.error(node, str(e)) from None
    return _run(cx, node, ac.pad, x, x.type.shape, widths, value)


# ---- products and splits -----------------------------------------------------------------

def _kron(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "kron", args, kwargs, {"a": REQUIRED, "b": REQUIRED}, node)
    a, b = cx.promote(cx.numeric(p["a"], node), cx.numeric(p["b"], node), node)
    return _run(cx, node, ac.kron, a, b, a.type.shape or (), b.type.shape or ())


def _tensordot(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "tensordot", args, kwargs, {"a": REQUIRED, "b": REQUIRED, "axes": 2},
                    node)
    axes = param(cx, p, "axes", node)
    flat = axes if isinstance(axes, tuple | list) else (axes,)
    if not all(isinstance(v, int) and not isinstance(v, bool) or
               isinstance(v, tuple | list) and all(isinstance(i, int) for i in v)
               for v in flat):
        raise cx.source.error(node, f"np.tensordot: axes must be an int or a pair of "
                              f"integer sequences, got {axes!r}", kind=AdliteTypeError)
    (a, b), common = product_operands(cx, [p["a"], p["b"]], node)  # a number: 0-d
    return boolean_product(cx, _run(cx, node, ac.tensordot, a, b, a.type.shape or (),
                                    b.type.shape or (), axes), common)


def _split(name: str):
    """np.array_split / np.split: a tuple of slices (numpy gives a list)."""
    def lower(cx: CallContext, args, kwargs, node):
        p = bind_params(cx, name, args, kwargs, {"ary": REQUIRED, "indices_or_sections":
                                                 REQUIRED, "axis": 0}, node)
        x = cx.array(p["ary"], node)
        sections = param(cx, p, "indices_or_sections", node, "shape")
        if not (isinstance(sections, int) and not isinstance(sections, bool) or
                isinstance(sections, tuple | list) and
                all(isinstance(i, int) and not isinstance(i, bool) for i in sections)):
            raise cx.source.error(node, f"np.{name}: indices_or_sections must be an int or a "
                                  f"sequence of ints, got {sections!r}", kind=AdliteTypeError)
        axis = _int(cx, p["axis"], "axis", node)
        return tuple(_run(cx, node, ac.array_split, x, x.type.shape, sections, axis,
                          name == "split"))

    return lower


# ---- einsum -------------------------------------------------------------------------------

def _searchsorted(cx: CallContext, args, kwargs, node):
    """np.searchsorted(a, v, side): for sorted 1-D `a`, how many elements of `a` are below
    each `v` (side 'left': `<`, 'right': `<=`), with numpy's order (NaN after everything): a
    count of comparisons, an int64 scalar or array of `v`'s shape, not differentiated."""
    p = bind_params(cx, "searchsorted", args, kwargs,
                    {"a": REQUIRED, "v": REQUIRED, "side": "left", "sorter": None}, node)
    side = param(cx, p, "side", node)
    if side not in ("left", "right"):
        raise cx.source.error(node, f"side must be 'left' or 'right' (got {side!r})")
    if p["sorter"] is not None:
        raise cx.source.error(node, "np.searchsorted(sorter=...) is not supported",
                              "pass a sorted array: a[sorter]")
    a = cx.array(p["a"], node)
    if len(a.type.shape) != 1:
        raise cx.source.error(node, "object too deep for desired array")
    v = cx.value(p["v"], node)
    a, v = cx.promote(a, v, node)
    b, n = cx.b, a.type.shape[0]
    shape = v.type.shape or ()
    column = b.reshape(v, shape=shape + (1,))
    nan_v = b.ne(column, column)
    if side == "left":  # a[j] < v, NaN above every number
        below = b.or_(b.lt(a, column), b.and_(nan_v, b.eq(a, a)))
    else:
        below = b.or_(b.le(a, column), nan_v)
    return b.sum(cx.to_type(below, I64.with_shape(shape + (n,))), axis=(len(shape),),
                 keepdims=False)


def _sublist_subscripts(cx: CallContext, node) -> tuple[str, list]:
    """(the subscripts string, the operands' nodes) of einsum's sublist form `a, [0, 1], b,
    [1, 2], [0, 2]` (the output list optional): labels 0-25 are 'A'-'Z', 26-51 'a'-'z'
    (numpy's order), Ellipsis is '...'; the lists must be known when compiling."""
    args = node.args

    def label_of(value, at):
        if isinstance(value, Var | Const) and value.type.is_array:  # np.einsum(x, x)
            raise cx.source.error(node, "np.einsum needs its subscripts string first, or "
                                  "operands each followed by its list of labels",
                                  "write np.einsum('ij,jk->ik', a, b) or "
                                  "np.einsum(a, [0, 1], b, [1, 2], [0, 2])")
        return value if value is Ellipsis else \
            cx.static(value, at, "its subscript lists", "option")

    def letters(sub_node) -> str:
        if isinstance(sub_node, gast.List | gast.Tuple):
            labels = [label_of(cx.expr(i), i) for i in sub_node.elts]
        else:  # a name bound to a list: its items (Ellipsis is no compile-time number)
            value = sequences.as_tuples(cx.expr(sub_node))
            labels = [label_of(v, sub_node) for v in
                      (value if isinstance(value, tuple | list) else (value,))]
        text = ""
        for label in labels:
            if label is Ellipsis:
                text += "..."
            elif isinstance(label, int) and not isinstance(label, bool) and 0 <= label < 52:
                text += chr(ord("A") + label) if label < 26 else chr(ord("a") + label - 26)
            else:
                raise cx.source.error(node, f"subscript is not within the valid range [0, 52)"
                                      f": {label!r}", kind=AdliteValueError)
        return text

    if len(args) < 2:
        if args:
            label_of(cx.expr(args[0]), args[0])  # an array: the refusal above
        raise cx.source.error(node, "np.einsum needs its subscripts string first",
                              "write np.einsum('ij,jk->ik', a, b)")
    terms = ",".join(letters(sub) for sub in args[1::2])
    output = "->" + letters(args[-1]) if len(args) % 2 else ""
    return terms + output, list(args[0:len(args) - len(args) % 2:2])


def _einsum(cx: CallContext, node):
    """np.einsum('subscripts', *operands): the subscripts string is read from the call's
    syntax (a string literal; else a compile-time string value), or the sublist form
    (`_sublist_subscripts`); the operands are converted to one float type."""
    first = node.args[0] if node.args else None
    literal = isinstance(first, gast.Constant) and isinstance(first.value, str)
    subscripts = first.value if literal else cx.expr(first) if first else None
    operand_nodes = node.args[1:]
    if not isinstance(subscripts, str):  # np.einsum(a, [0, 1], b, [1, 2], [0, 2])
        subscripts, operand_nodes = _sublist_subscripts(cx, node)
    for kw in node.keywords:
        if kw.arg != "optimize":
            raise cx.source.error(node, f"np.einsum(): unsupported keyword argument "
                                  f"{kw.arg!r}", "supported here: optimize")
        cx.static(cx.expr(kw.value), node, "its `optimize=`", "option")  # a path: same result
    operands, common = product_operands(cx, [cx.expr(a) for a in operand_nodes], node) \
        if operand_nodes else ([], dtypes.F64)
    return boolean_product(cx, _run(cx, node, ac.einsum, subscripts, operands,
                                    [x.type.shape or () for x in operands]), common)


SAME_OBJECT = (np.asarray, np.real)  # of an array (of the requested dtype): the argument itself

register([np.eye], _eye)
register([np.identity], _identity)
register([np.linspace], _linspace)
register([np.arange], _arange)
register([np.array, np.asarray], _array_of_array(_np_array))
register([np.diag], _diag)
register([np.diagonal], _diagonal("diagonal"))
register([np.trace], _diagonal("trace"))
register([np.diff], _diff)
register([np.searchsorted], _searchsorted)
register([np.roll], _roll)
register([np.radians, np.deg2rad], _angle(math.pi, 180.0))
register([np.degrees, np.rad2deg], _angle(180.0, math.pi))
register([np.cross], _cross)
register([np.cumsum], _cumulative("cumsum", "add"))
register([np.cumprod], _cumulative("cumprod", "mul"))
register([np.tile], _tile)
register([np.repeat], _repeat)
register([np.ravel], _ravel)
register([np.swapaxes], _swapaxes)
register([np.moveaxis], _moveaxis)
register([np.flip], _flip_axes("flip", None))
register([np.flipud], _flip_axes("flipud", 0))
register([np.fliplr], _flip_axes("fliplr", 1))
register([np.tril], _triangle("tril"))
register([np.triu], _triangle("triu"))
register([np.column_stack], _stacked("column_stack", ac.column_stack))
register([np.dstack], _stacked("dstack", ac.dstack))
register([np.atleast_1d], _atleast(1))
register([np.atleast_2d], _atleast(2))
register([np.atleast_3d], _atleast(3))
register([np.broadcast_to], _broadcast_to)
register([np.meshgrid], _meshgrid)
register([np.pad], _pad)
register([np.einsum], _einsum, syntax=True)
register([np.kron], _kron)
register([np.tensordot], _tensordot)
register([np.array_split], _split("array_split"))
register([np.split], _split("split"))
