"""Batching rules of the array and scalar primitives (control flow and tapes: `control.py`).

Every operand that carries the batch has it as axis 0 (see `table.py`):
- elementwise primitives: a batched operand gets length-1 axes after its batch axis up to
  the rank of one example's result, so numpy's broadcasting lines its example up with the
  unbatched operands (which keep their shapes);
- reductions shift their axes past the batch axis (`axis=None` becomes every axis of the
  example); `sum_to` sums the same axes of the example, then reshapes;
- shapes: `reshape`, `transpose`, `broadcast_to`, `concatenate`, `full`, `pack` keep the
  batch axis in front;
- `matmul`: one batched operand folds the batch into the rows of a 2-D product (through a
  transpose when it is the right operand), two batched operands multiply and sum over the
  shared axis;
- indexing (`index`, `index_update`, `take`, `take_add`, `put`) with unbatched indices
  indexes past the batch axis; `take` of an unbatched array at batched indices gathers then
  moves the batch axis in front. Batched indices into a batched array have no rule (the
  per-example map runs them);
- the FFTs transform each example along the axis one further (the packed parts' axis first,
  the batch second).
`int_truediv` and `range_len` (scalar-only), the linear-algebra and sorting primitives and the
run-time checks have no rule: they run per example.
"""

from __future__ import annotations

from ..ir.core import Atom
from ..ir.index import WHOLE
from ..ir.primitive import PRIMITIVES
from ..primitives.arrays import index_shape, sum_to_axes
from .table import ensure, example_shape, expand, move_axis, rule

SCALAR_ONLY = ("int_truediv", "range_len")


def _batched_outputs(outs: list[Atom]) -> list[tuple[Atom, bool]]:
    return [(a, True) for a in outs]


@rule(*(name for name, p in PRIMITIVES.items() if p.elementwise and name not in SCALAR_ONLY))
def elementwise(b, eqn, args, batched, size):
    ndim = len(eqn.outputs[0].type.shape or ())
    operands = [expand(b, a, ndim) if flag else a for a, flag in zip(args, batched, strict=True)]
    return _batched_outputs(b.emit(eqn.prim, operands, **eqn.params))


def _example_axes(axis, ndim: int) -> tuple[int, ...]:
    """The axes of a batched value that `axis` names in one example of rank `ndim`."""
    return tuple(range(1, ndim + 1)) if axis is None else tuple(a + 1 for a in axis)


@rule("sum", "max", "min", "prod", "empty_extremum")
def reduction(b, eqn, args, batched, size):
    (x,) = args
    params = dict(eqn.params, axis=_example_axes(eqn.params["axis"],
                                                 len(example_shape(x.type))))
    return _batched_outputs(b.emit(eqn.prim, [x], **params))


@rule("sum_to")
def sum_to(b, eqn, args, batched, size):
    (x,) = args
    target = eqn.params["shape"] or ()
    axes = tuple(a + 1 for a in sum_to_axes(example_shape(x.type), target))
    summed = b.sum(x, axis=axes, keepdims=False) if axes else x
    return [(b.reshape(summed, shape=(size,) + target), True)]


@rule("reshape")
def reshape(b, eqn, args, batched, size):
    return [(b.reshape(args[0], shape=(size,) + (eqn.params["shape"] or ())), True)]


@rule("transpose")
def transpose(b, eqn, args, batched, size):
    axes = (0,) + tuple(a + 1 for a in eqn.params["axes"])
    return [(b.transpose(args[0], axes=axes), True)]


@rule("broadcast_to")
def broadcast_to(b, eqn, args, batched, size):
    shape = eqn.params["shape"]
    return [(b.broadcast_to(expand(b, args[0], len(shape)), shape=(size,) + shape), True)]


@rule("no_derivative")
def identity(b, eqn, args, batched, size):
    return _batched_outputs(b.emit(eqn.prim, args, **eqn.params))


@rule("concatenate")
def concatenate(b, eqn, args, batched, size):
    operands = [ensure(b, a, flag, size) for a, flag in zip(args, batched, strict=True)]
    return [(b.concatenate(*operands, axis=eqn.params["axis"] + 1), True)]


@rule("full")
def full(b, eqn, args, batched, size):
    shape = eqn.params["shape"] or ()
    value = b.reshape(args[0], shape=(size,) + (1,) * len(shape)) if shape else args[0]
    return [(b.broadcast_to(value, shape=(size,) + shape), True)]


@rule("pack")
def pack(b, eqn, args, batched, size):
    columns = [b.reshape(ensure(b, a, flag, size), shape=(size, 1))
               for a, flag in zip(args, batched, strict=True)]
    return [(b.concatenate(*columns, axis=1), True)]


@rule("matmul")
def matmul(b, eqn, args, batched, size):
    x, y = args
    xs = example_shape(x.type) if batched[0] else x.type.shape
    ys = example_shape(y.type) if batched[1] else y.type.shape
    rows, cols, k = (xs[0] if len(xs) == 2 else 1), (ys[1] if len(ys) == 2 else 1), xs[-1]
    if all(batched):  # x[b, m, k, 1] * y[b, 1, k, n], summed over k
        product = b.mul(b.reshape(x, shape=(size, rows, k, 1)),
                        b.reshape(y, shape=(size, 1, k, cols)))
        flat = b.sum(product, axis=(2,), keepdims=False)
    elif batched[0]:  # the batch joins the rows of x
        flat = b.matmul(b.reshape(x, shape=(size * rows, k)), y)
    else:  # x @ y[i] = (y[i].T @ x.T).T: the batch joins the rows of y[i].T
        yt = b.transpose(y, axes=(0, 2, 1)) if len(ys) == 2 else y
        xt = b.transpose(x, axes=(1, 0)) if len(xs) == 2 else x
        flat = b.matmul(b.reshape(yt, shape=(size * cols, k)), xt)
        if rows > 1 and cols > 1:
            flat = b.transpose(b.reshape(flat, shape=(size, cols, rows)), axes=(0, 2, 1))
    return [(b.reshape(flat, shape=(size,) + (eqn.outputs[0].type.shape or ())), True)]


@rule("index")
def index(b, eqn, args, batched, size):
    if any(batched[1:]):
        return None
    return _batched_outputs(b.emit("index", args, spec=(WHOLE,) + eqn.params["spec"]))


@rule("index_update")
def index_update(b, eqn, args, batched, size):
    if any(batched[2:]):
        return None
    x, v, *ints = args
    x = ensure(b, x, batched[0], size)
    spec = eqn.params["spec"]
    if batched[1]:
        target = index_shape(example_shape(x.type), spec) or ()
        v = expand(b, v, len(target))
    return _batched_outputs(b.emit("index_update", [x, v, *ints], **dict(eqn.params,
                                                                         spec=(WHOLE,) + spec)))


@rule("take")
def take(b, eqn, args, batched, size):
    x, idx = args
    axis = eqn.params["axis"]
    if not batched[1]:
        return [(b.take(x, idx, axis=axis + 1), True)]
    if batched[0]:
        return None
    return [(move_axis(b, b.take(x, idx, axis=axis), axis, 0), True)]


@rule("take_add")
def take_add(b, eqn, args, batched, size):
    g, idx = args
    if batched[1]:
        return None
    return [(b.take_add(g, idx, axis=eqn.params["axis"] + 1,
                        shape=(size,) + eqn.params["shape"]), True)]


@rule("put")
def put(b, eqn, args, batched, size):
    x, v, idx = args
    if batched[2]:
        return None
    x, v = ensure(b, x, batched[0], size), ensure(b, v, batched[1], size)
    return [(b.put(x, v, idx, axis=eqn.params["axis"] + 1), True)]


@rule("fft", "rfft", "irfft")
def fft(b, eqn, args, batched, size):
    """Each example's transform: packed parts (`primitives/fft.py`) keep their axis of 2
    first, the batch second (a transpose each way), and the transform's axis moves one
    further."""
    (x,) = args
    if eqn.prim != "rfft":  # (batch, 2, ...) -> (2, batch, ...)
        x = b.transpose(x, axes=(1, 0, *range(2, len(x.type.shape))))
    (out,) = b.emit(eqn.prim, [x], **dict(eqn.params, axis=eqn.params["axis"] + 1))
    if eqn.prim != "irfft":  # (2, batch, ...) -> (batch, 2, ...)
        out = b.transpose(out, axes=(1, 0, *range(2, len(out.type.shape))))
    return [(out, True)]
