"""Integer-array (fancy) indexing along one axis: `take` and its adjoint `take_add`.

- `take[axis] x idx`: `np.take(x, idx, axis=axis)`, of shape
  `x.shape[:axis] + idx.shape + x.shape[axis + 1:]`; `idx` is an int64 array whose values the
  frontend has already wrapped into `[0, n)` and checked (numpy's IndexError, see
  `frontend/fancy.py`); the native lowering checks again (status INDEX), so it never reads
  outside `x`.
- `take_add[axis, shape] g idx`: zeros of `shape` into which `g` (the shape `take` gives) is
  added at `idx` along `axis`, repeated indices accumulating (`np.add.at`): the adjoint of
  `take`, whose adjoint is `take` again. It is flagged a `reduction` (it sums the elements
  of `g` that land at one index): the LLVM backend then fuses the elementwise producer of
  `g` into its loop instead of materialising `g` (`backends/llvm/fusion.py`).
- `put[axis] x v idx`: a copy of `x` with `v` (of the shape `take` gives) written at `idx`
  along `axis`, in row-major order of `idx`, so that the last write to a position wins (numpy's
  `x[idx] = v`; `x[idx] += v` is `x[idx] = x[idx] + v`, so repeats do not accumulate). Its
  cotangent goes to `x` where nothing was written and to the element of `v` that won.
`take` and `take_add` are linear in their first operand (the JVP applies the primitive to the
tangent), `put` in its first two; `idx` is not differentiated.
"""

from __future__ import annotations

import numpy as np

from ..ir.builder import const
from ..ir.core import F64, I64
from ..ir.primitive import Primitive, register


def taken_shape(shape: tuple[int, ...], idx_shape: tuple[int, ...], axis: int) -> tuple:
    """The shape of `take(x, idx, axis)` for `x` of `shape`."""
    return shape[:axis] + idx_shape + shape[axis + 1:]


def _check_idx(x, idx, axis):
    if not x.is_array or axis >= len(x.shape):
        raise TypeError(f"take: no axis {axis} in {x}")
    if idx.name != I64.name or not idx.is_array:
        raise TypeError(f"take: arrays used as indices must be of integer type, got {idx}")


def _take_type(in_types, params):
    x, idx = in_types
    _check_idx(x, idx, params["axis"])
    return [x.with_shape(taken_shape(x.shape, idx.shape, params["axis"]) or None)]


def _take_add_type(in_types, params):
    g, idx = in_types
    shape, axis = params["shape"], params["axis"]
    _check_idx(g.with_shape(shape), idx, axis)
    if g.shape != taken_shape(shape, idx.shape, axis):
        raise TypeError(f"take_add: {g} is not what take gives from {shape} with {idx}")
    return [g.with_shape(shape)]


def take_add_impl(g, idx, axis, shape):
    out = np.zeros(shape, dtype=np.asarray(g).dtype)
    np.add.at(out, (slice(None),) * axis + (idx,), g)
    return out


register(Primitive(
    "take", _take_type, lambda x, idx, axis: (np.take(x, idx, axis=axis),),
    lambda b, e, cts: [b.take_add(cts[0], e.inputs[1], axis=e.params["axis"],
                                  shape=e.inputs[0].type.shape), None],
    lambda b, e, t: [None if t[0] is None else b.take(t[0], e.inputs[1], **e.params)],
    lambda args, e: f"np.take({args[0]}, {args[1]}, axis={e.params['axis']})"))

register(Primitive(
    "take_add", _take_add_type, lambda g, idx, axis, shape: (take_add_impl(g, idx, axis, shape),),
    lambda b, e, cts: [b.take(cts[0], e.inputs[1], axis=e.params["axis"]), None],
    lambda b, e, t: [None if t[0] is None else b.take_add(t[0], e.inputs[1], **e.params)],
    lambda args, e: (f"_rt.take_add({args[0]}, {args[1]}, {e.params['axis']}, "
                     f"{e.params['shape']})"), reduction=True))


def _put_type(in_types, params):
    x, v, idx = in_types
    taken = _take_type([x, idx], params)[0]
    if v != taken:
        raise TypeError(f"put: {v} does not fit the {taken} part of {x}")
    return [x]


def put_impl(x, v, idx, axis):
    out = np.array(x, copy=True)
    out[(slice(None),) * axis + (idx,)] = v
    return out


def _put_vjp(b, e, cts):
    x, v, idx = e.inputs
    axis, g = e.params["axis"], cts[0]
    n = x.type.shape[axis]
    count = int(np.prod(idx.type.shape))
    flat = b.reshape(idx, shape=(count,))
    position = b.op("arange", n=count, dtype=F64)
    last = b.put(b.full(const(-1.0), shape=(n,), dtype=F64), position, flat, axis=0)
    wins = b.eq(b.take(last, flat, axis=0), position)
    rest = len(x.type.shape) - axis - 1
    wins = b.reshape(wins, shape=(1,) * axis + idx.type.shape + (1,) * rest)
    taken = b.take(g, idx, axis=axis)
    return [b.put(g, b.zeros(v.type), idx, axis=axis),
            b.select(wins, taken, b.zeros(v.type)), None]


def _put_jvp(b, e, t):
    x, v, idx = e.inputs
    if t[0] is None and t[1] is None:
        return [None]
    tx = b.zeros(x.type) if t[0] is None else t[0]
    tv = b.zeros(v.type) if t[1] is None else t[1]
    return [b.put(tx, tv, idx, **e.params)]


register(Primitive(
    "put", _put_type, lambda x, v, idx, axis: (put_impl(x, v, idx, axis),), _put_vjp, _put_jvp,
    lambda args, e: f"_rt.put({args[0]}, {args[1]}, {args[2]}, {e.params['axis']})"))
