"""Array primitives: reductions, shape changes, matmul, indexing, creation.

Shapes are static (functions are specialised per argument shape, as in JAX). Each `register`
block holds the primitive's type rule, numpy implementation, VJP, JVP and Python lowering.
The reductions `sum`, `prod`, `max`, `min`, the shape changes `reshape`, `transpose`,
`broadcast_to`, `concatenate`, the indexing `index`, `index_update` and `matmul` take their
VJP and JVP from the derivative formulas shared with the eager tape (`adlite.derivatives`, run
through `vocabulary.BuilderOps`).
Elementwise arithmetic and math are the scalar primitives of `scalar.py`, which broadcast;
the AD drivers sum cotangents back to each operand's shape (`sum_to`), so rules stay simple.
Index specs are tuples of `Int`, `Slice` and `NewAxis` items (see `ir.index`).
"""

from __future__ import annotations

import math

import numpy as np

from adlite import derivatives

from ..ir import dtypes
from ..ir.core import BOOL, I64, Const, Type
from ..ir.index import Int, NewAxis, Slice, Spec
from ..ir.primitive import CHEAP, Primitive, register
from .shapes import broadcast, reduced_shape, reduces_nothing
from .vocabulary import BuilderOps, IndexKey

NP_DTYPE = {dtypes.F64: "np.float64", dtypes.F32: "np.float32", dtypes.BOOL: "np.bool_",
            dtypes.I64: "np.int64"}  # in generated Python source


def _array(t: Type, what: str) -> None:
    if not t.is_array:
        raise TypeError(f"{what} needs an array operand, got {t}")


# ---- reductions ---------------------------------------------------------------------------------

def _reduce_type(in_types, params):
    (t,) = in_types
    _array(t, "a reduction")
    return [t.with_shape(reduced_shape(t.shape, params["axis"], params["keepdims"]))]


def _reduction_rules(name):
    """`vjp` and `jvp` from the reduction's shared formula (`adlite.derivatives`)."""
    formula = derivatives.FORMULAS[name]

    def vjp(b, e, cts):
        x = e.inputs[0]
        return derivatives.reduction_vjp(formula, BuilderOps(b), cts[0], x, e.outputs[0],
                                         x.type.shape, e.params["axis"])

    def jvp(b, e, t):
        x = e.inputs[0]
        return [derivatives.reduction_jvp(formula, BuilderOps(b), t[0], x, e.outputs[0],
                                          x.type.shape, e.params["axis"], e.params["keepdims"])]

    return {"vjp": vjp, "jvp": jvp, "formula": formula}


def _reduce_py(fn):
    return lambda args, e: (f"np.{fn}({args[0]}, axis={e.params['axis']}, "
                            f"keepdims={e.params['keepdims']})")


for _name in ("sum", "max", "min", "prod"):
    register(Primitive(_name, _reduce_type,
                       (lambda f: lambda x, axis, keepdims: (f(x, axis=axis, keepdims=keepdims),))(
                           getattr(np, _name)),
                       py=_reduce_py(_name), reduction=True, linear=_name == "sum",
                       **_reduction_rules(_name)))


def _empty_extremum_type(in_types, params):
    (t,) = in_types
    _array(t, "empty_extremum")
    if not reduces_nothing(t.shape, params["axis"]):
        raise TypeError(f"empty_extremum: {t} has elements along axis {params['axis']}")
    return []


def _empty_extremum_impl(x, kind, axis, keepdims):
    """Raises numpy's ValueError: `x` has no element along the reduced axes."""
    getattr(np, kind)(x, axis=axis, keepdims=keepdims)
    return ()


# `empty_extremum[kind, axis, keepdims] x`: a max/min reduction over no element, raising
# numpy's ValueError when executed (status EMPTY_MAXIMUM / EMPTY_MINIMUM natively). Shapes are
# static, so the frontend emits it beside such a reduction; it is effectful, so it stays even
# when the reduction's value is unused, and runs only where the reduction would.
register(Primitive(
    "empty_extremum", _empty_extremum_type, _empty_extremum_impl, None, None,
    lambda args, e: _reduce_py(e.params["kind"])(args, e), effectful=True, differentiable=False))


# ---- shapes -------------------------------------------------------------------------------------

def _reshape_type(in_types, params):
    (t,) = in_types
    shape = params["shape"]
    if math.prod(t.shape or ()) != math.prod(shape or ()):
        raise TypeError(f"cannot reshape {t} into shape {shape}")
    return [t.with_shape(shape)]


def _linear_rules(name, indexed: int = 0):
    """`vjp` from the shared adjoint of the same name (`adlite.derivatives`); `jvp` applies the
    primitive itself to the tangents (zeros for the absent ones). An indexing primitive's
    first `indexed` operands are differentiated; its integer operands follow, passed through,
    and reach the adjoint with its spec as one `key`."""
    formula = derivatives.FORMULAS[name]

    def operands(e):
        n = indexed or len(e.inputs)
        return e.inputs[:n], e.inputs[n:]

    def vjp(b, e, cts):
        diff, ints = operands(e)
        params = dict(e.params)
        if indexed:
            params["key"] = IndexKey(params.pop("spec"), ints)
        return formula.adjoint(BuilderOps(b), cts[0], [a.type.shape for a in diff],
                               **params) + [None] * len(ints)

    def jvp(b, e, t):
        diff, ints = operands(e)
        if all(ti is None for ti in t[:len(diff)]):
            return [None]
        tangents = [b.zeros(a.type) if ti is None else ti
                    for ti, a in zip(t[:len(diff)], diff, strict=True)]
        return [b.op(name, *tangents, *ints, **e.params)]

    return {"vjp": vjp, "jvp": jvp, "formula": formula, "linear": True}


register(Primitive(
    "reshape", _reshape_type, lambda x, shape: (np.reshape(x, shape or ()),),
    py=lambda args, e: f"np.reshape({args[0]}, {e.params['shape'] or ()})",
    **_linear_rules("reshape")))


def _transpose_type(in_types, params):
    (t,) = in_types
    _array(t, "transpose")
    if sorted(params["axes"]) != list(range(len(t.shape))):
        raise TypeError(f"axes {params['axes']} do not match {t}")
    return [t.with_shape(tuple(t.shape[a] for a in params["axes"]))]


register(Primitive(
    "transpose", _transpose_type, lambda x, axes: (np.transpose(x, axes),),
    py=lambda args, e: f"np.transpose({args[0]}, {e.params['axes']})",
    **_linear_rules("transpose")))


def _broadcast_type(in_types, params):
    (t,) = in_types
    if broadcast(t.shape, params["shape"]) != params["shape"]:
        raise TypeError(f"cannot broadcast {t} to shape {params['shape']}")
    return [t.with_shape(params["shape"])]


register(Primitive(
    "broadcast_to", _broadcast_type, lambda x, shape: (np.broadcast_to(x, shape),),
    py=lambda args, e: f"np.broadcast_to({args[0]}, {e.params['shape']})",
    **_linear_rules("broadcast_to")))


def sum_to_axes(shape, target):
    """Axes to sum (then reshape) to take `shape` down to the broadcast operand `target`."""
    shape, target = shape or (), target or ()
    lead = len(shape) - len(target)
    return tuple(range(lead)) + tuple(lead + i for i, n in enumerate(target)
                                      if n == 1 and shape[lead + i] != 1)


def _sum_to_type(in_types, params):
    (t,) = in_types
    return [t.with_shape(params["shape"])]


def _sum_to_impl(x, shape):
    x = np.asarray(x)
    summed = np.sum(x, axis=sum_to_axes(x.shape, shape)) if x.ndim else x
    return (np.reshape(summed, shape) if shape else summed[()],)


def _sum_to_py(args, e):
    shape, target = e.inputs[0].type.shape, e.params["shape"]
    summed = f"np.sum({args[0]}, axis={sum_to_axes(shape, target)})"
    return f"np.reshape({summed}, {target})" if target else summed


register(Primitive(
    "sum_to", _sum_to_type, _sum_to_impl,
    lambda b, e, cts: [b.broadcast_to(cts[0], shape=e.inputs[0].type.shape)],
    lambda b, e, t: [b.sum_to(t[0], **e.params)], _sum_to_py, reduction=True, linear=True))


# ---- matmul -------------------------------------------------------------------------------------

def _matmul_type(in_types, params):
    x, y = in_types
    if x.name != y.name or x.scalar == BOOL:
        raise TypeError(f"matmul operands must be float or int64 arrays of one dtype, got {x} "
                        f"and {y}")
    _array(x, "matmul")
    _array(y, "matmul")
    if len(x.shape) > 2 or len(y.shape) > 2:
        raise TypeError("matmul of arrays with more than 2 dimensions is not supported yet")
    inner_x, inner_y = x.shape[-1], y.shape[0]
    if inner_x != inner_y:
        raise TypeError(f"matmul: shapes {x.shape} and {y.shape} are not aligned")
    shape = x.shape[:-1] + y.shape[1:]
    return [x.with_shape(shape or None)]


_MATMUL = derivatives.FORMULAS["matmul"]


def _matmul_vjp(b, e, cts):
    x, y = e.inputs
    return list(_MATMUL.adjoint(BuilderOps(b), cts[0], x, y, x.type.shape, y.type.shape))


def _matmul_jvp(b, e, t):
    return [derivatives.bilinear_jvp(_MATMUL, BuilderOps(b), t, *e.inputs)]


register(Primitive("matmul", _matmul_type, lambda x, y: (np.matmul(x, y),), _matmul_vjp,
                   _matmul_jvp, lambda args, e: f"({args[0]} @ {args[1]})", formula=_MATMUL))


# ---- indexing -----------------------------------------------------------------------------------

def index_shape(shape: tuple[int, ...], spec: Spec) -> tuple[int, ...] | None:
    out, dim = [], 0
    for item in spec:
        if isinstance(item, NewAxis):
            out.append(1)
            continue
        n = shape[dim]
        dim += 1
        if isinstance(item, Slice):
            out.append(item.length(n))
    out.extend(shape[dim:])
    return tuple(out) or None


def _index_key(spec: Spec, ints) -> tuple:
    ints = iter(ints)
    return tuple(int(next(ints)) if isinstance(item, Int) else
                 item.key() if isinstance(item, Slice) else None for item in spec)


def index_source(spec: Spec, ints) -> str:
    ints = iter(ints)
    parts = [next(ints) if isinstance(item, Int) else "None" if isinstance(item, NewAxis)
             else str(item) for item in spec]
    return ", ".join(parts) or "..."


def _index_type(in_types, params):
    x, *ints = in_types
    _array(x, "indexing")
    if any(t != I64 for t in ints):
        raise TypeError("array indices must be integers")
    return [x.with_shape(index_shape(x.shape, params["spec"]))]


def _index_impl(x, *ints, spec):
    value = x[_index_key(spec, ints)]
    return (value.copy() if isinstance(value, np.ndarray) else value,)


register(Primitive(
    "index", _index_type, _index_impl,
    py=lambda args, e: f"{args[0]}[{index_source(e.params['spec'], args[1:])}]",
    cost=CHEAP, **_linear_rules("index", indexed=1)))


def _update_type(in_types, params):
    x, v, *ints = in_types
    target = _index_type([x, *ints], params)[0]
    if v.name != x.name or broadcast(v.shape, target.shape) != target.shape:
        raise TypeError(f"cannot assign {v} to a {target} part of {x}")
    return [x]


def _update_impl(x, v, *ints, spec, mode):
    out = np.array(x, copy=True)
    key = _index_key(spec, ints)
    if mode == "add":
        out[key] += v
    else:
        out[key] = v
    return (out,)


register(Primitive(
    "index_update", _update_type, _update_impl,
    py=lambda args, e: (f"_rt.index_{e.params['mode']}({args[0]}, "
                        f"np.s_[{index_source(e.params['spec'], args[2:])}], {args[1]})"),
    **_linear_rules("index_update", indexed=2)))


# ---- concatenate ------------------------------------------------------------------------------

def _concatenate_type(in_types, params):
    axis = params["axis"]
    first = in_types[0]
    for t in in_types:
        _array(t, "concatenate")
        if t.name != first.name or len(t.shape) != len(first.shape) or any(
                a != b for i, (a, b) in enumerate(zip(t.shape, first.shape, strict=True))
                if i != axis):
            raise TypeError(f"concatenate: {', '.join(map(str, in_types))} do not fit along "
                            f"axis {axis}")
    shape = list(first.shape)
    shape[axis] = sum(t.shape[axis] for t in in_types)
    return [first.with_shape(tuple(shape))]


register(Primitive(
    "concatenate", _concatenate_type,
    lambda *xs, axis: (np.concatenate(xs, axis=axis),),
    py=lambda args, e: f"np.concatenate([{', '.join(args)}], axis={e.params['axis']})",
    **_linear_rules("concatenate")))


# ---- creation -----------------------------------------------------------------------------------

def _full_type(in_types, params):
    (value,) = in_types
    if value != params["dtype"]:
        raise TypeError(f"full: fill value {value} does not match dtype {params['dtype']}")
    return [params["dtype"].with_shape(params["shape"])]


register(Primitive(
    "full", _full_type,
    lambda value, shape, dtype: (np.full(shape, value, dtype=dtype.dtype.numpy),),
    lambda b, e, cts: [b.sum_to(cts[0], shape=None)],
    lambda b, e, t: [b.full(t[0], **e.params)],
    lambda args, e: (f"np.full({e.params['shape']}, {args[0]}, "
                     f"dtype={NP_DTYPE[e.params['dtype'].dtype]})"), linear=True))


register(Primitive(
    "arange", lambda in_types, params: [params["dtype"].with_shape((params["n"],))],
    lambda n, dtype: (np.arange(n, dtype=dtype.dtype.numpy),), None, None,
    lambda args, e: f"np.arange({e.params['n']}, dtype={NP_DTYPE[e.params['dtype'].dtype]})",
    differentiable=False))


def _pack_type(in_types, params):
    if not in_types or len(set(in_types)) != 1 or in_types[0].is_array:
        raise TypeError(f"array(...) needs scalars of one type, got {in_types}")
    return [in_types[0].with_shape((len(in_types),))]


register(Primitive(
    "pack", _pack_type, lambda *xs: (np.array(xs),),
    lambda b, e, cts: [b.index(cts[0], Const(i, I64), spec=(Int(),))
                       for i in range(len(e.inputs))],
    lambda b, e, t: [b.pack(*(ti if ti is not None else Const(0.0, a.type)
                              for ti, a in zip(t, e.inputs, strict=True)))],
    lambda args, e: f"np.array([{', '.join(args)}], dtype={NP_DTYPE[e.inputs[0].type.dtype]})",
    linear=True))
