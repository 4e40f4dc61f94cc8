"""numpy's `__array_ufunc__` / `__array_function__` protocols for `Tensor`.

Contract: a numpy ufunc or function called with a Tensor argument runs the matching tape
operation (so `np.sin(t)`, `np.sum(t, axis=0)`, `a @ t`, `np.where(c, t, 0)` record the graph).
Anything not in the tables raises a TypeError naming the function and the supported ones;
arguments are bound by the tape function's parameters, else by numpy's names and order
(`np.swapaxes(x, axis1=0, axis2=1)`), else refused with a TypeError naming the function and
the keywords given;
`out=` arguments are rejected (results are always new tensors). The array-building functions
of `numpy_functions` (diag, diff, roll, cross, cumsum, einsum, ...) are in the tables too;
`np.linalg` functions run the tape's (`linalg`), `np.sort` / `np.argsort` /
`np.take_along_axis` those of `sorting`, `np.convolve` that of `convolution`, and
scipy.special's ufuncs (and numpy's arccosh, arcsinh, arctanh) those of `special_ufuncs`.
Complex tensors are accepted by the functions of `COMPLEX_UFUNCS` / `COMPLEX_FUNCTIONS`
(arithmetic, the holomorphic functions, the reductions sum, prod, max, min (numpy's
lexicographic order), mean, var, std, products, shape changes, np.real/imag/conj/abs/angle,
np.fft) and scipy.special's erf and erfc (`special_ufuncs.scipy_takes_complex`), the others
raising a TypeError for them.
`np.add.at(x, idx, v)` with a Tensor `x` adds in place, repeated indices accumulating (an
ndarray `x` cannot hold a Tensor: TypeError).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from . import (
    convolution,
    decompositions,
    fft,
    linalg,
    numpy_functions,
    sorting,
    special_ufuncs,
)
from . import functional as F
from .tensor import Tensor

UFUNCS = {
    np.add: F.add, np.subtract: F.subtract, np.multiply: F.multiply,
    np.true_divide: F.divide, np.power: F.power, np.negative: F.negative,
    np.positive: lambda x: x, np.exp: F.exp, np.log: F.log, np.sqrt: F.sqrt, np.sin: F.sin,
    np.cos: F.cos, np.tan: F.tan, np.tanh: F.tanh, np.absolute: F.abs,
    np.maximum: F.maximum, np.minimum: F.minimum, np.matmul: F.matmul, np.square: F.square,
    np.sign: F.sign, np.floor: F.floor, np.ceil: F.ceil, np.equal: F.equal,
    np.not_equal: F.not_equal, np.greater: F.greater, np.greater_equal: F.greater_equal,
    np.less: F.less, np.less_equal: F.less_equal, np.logical_and: F.logical_and,
    np.logical_or: F.logical_or, np.logical_not: F.logical_not, np.isfinite: F.isfinite,
    np.isnan: F.isnan, np.log1p: F.log1p, np.expm1: F.expm1, np.cbrt: F.cbrt, np.sinh: F.sinh,
    np.cosh: F.cosh, np.arcsin: F.arcsin, np.arccos: F.arccos, np.arctan: F.arctan,
    np.arctan2: F.arctan2, np.fmod: F.fmod, np.exp2: F.exp2, np.reciprocal: F.reciprocal,
    np.heaviside: F.heaviside, np.logaddexp: F.logaddexp, np.logaddexp2: F.logaddexp2,
    np.hypot: F.hypot, np.log2: F.log2, np.log10: F.log10, np.fmax: F.fmax,
    np.fmin: F.fmin, np.fabs: F.abs, np.floor_divide: F.floor_divide,
    np.remainder: F.remainder, **numpy_functions.UFUNCS, **special_ufuncs.NUMPY_UFUNCS,
}


def _reduction(fn, *allowed: str):
    """numpy's reduction `fn` taking `axis`, `keepdims` and the `allowed` options."""

    def call(a, axis=None, dtype=None, out=None, keepdims=False, **options):
        given = [k for k, v in (("dtype", dtype), ("out", out)) if v is not None] + \
            [k for k in options if k not in allowed]
        if given:
            raise TypeError(f"numpy.{fn.__name__}(..., {', '.join(given)}=...) is not supported "
                            f"on adlite Tensors: only {', '.join(('axis', 'keepdims') + allowed)}"
                            " are")
        return fn(a, axis=axis, keepdims=keepdims, **options)

    return call


FUNCTIONS = {
    np.sum: _reduction(F.sum), np.mean: _reduction(F.mean), np.max: _reduction(F.max),
    np.min: _reduction(F.min), np.prod: _reduction(F.prod), np.amax: _reduction(F.max),
    np.amin: _reduction(F.min), np.var: _reduction(F.var, "ddof"),
    np.std: _reduction(F.std, "ddof"),
    np.dot: F.dot, np.matmul: F.matmul, np.transpose: F.transpose, np.reshape: F.reshape,
    np.concatenate: lambda arrays, axis=0: F.concatenate(arrays, axis),
    np.stack: lambda arrays, axis=0: F.stack(arrays, axis), np.where: F.where,
    np.clip: lambda a, a_min=None, a_max=None, **kw: F.clip(a, kw.get("min", a_min),
                                                             kw.get("max", a_max)),
    np.swapaxes: F.swapaxes, np.expand_dims: F.expand_dims, np.broadcast_to: F.broadcast_to,
    np.zeros_like: F.zeros_like, np.ones_like: F.ones_like, np.empty_like: F.zeros_like,
    np.all: F.all_true, np.any: F.any_true, np.count_nonzero: F.count_nonzero,
    np.argmax: F.argmax,
    np.argmin: F.argmin, np.shape: lambda a: a.shape, np.ndim: lambda a: a.ndim,
    np.size: lambda a: a.size, np.outer: F.outer, np.linalg.norm: F.norm,
    np.squeeze: F.squeeze, np.sinc: F.sinc, **numpy_functions.FUNCTIONS, **linalg.FUNCTIONS,
    **decompositions.FUNCTIONS, **sorting.FUNCTIONS, **convolution.FUNCTIONS, np.round: F.round,
    np.around: F.round, **fft.FUNCTIONS,
}

# The numpy functions whose tape form gives numpy's values for complex tensors too (the
# others raise a TypeError for them: their composites assume real numbers, as `norm`,
# `hypot`, `logaddexp` do, or numpy rejects complex numbers)
COMPLEX_UFUNCS = frozenset({
    np.add, np.subtract, np.multiply, np.true_divide, np.power, np.negative, np.positive,
    np.exp, np.log, np.sqrt, np.sin, np.cos, np.tan, np.tanh, np.absolute, np.matmul,
    np.square, np.equal, np.not_equal, np.isfinite, np.isnan, np.log1p, np.expm1, np.sinh,
    np.cosh, np.arcsin, np.arccos, np.arctan, np.arcsinh, np.arctanh, np.log2, np.log10,
    np.reciprocal, np.conjugate, np.exp2, np.arccosh,
})
COMPLEX_FUNCTIONS = frozenset({
    np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.var, np.std, np.dot,
    np.matmul, np.transpose, np.reshape, np.concatenate,
    np.stack, np.where, np.swapaxes, np.expand_dims, np.broadcast_to, np.zeros_like,
    np.ones_like, np.empty_like, np.shape, np.ndim, np.size, np.outer, np.squeeze,
    np.real, np.imag, np.angle, np.real_if_close, np.iscomplex, np.isreal, np.iscomplexobj,
    np.isrealobj, np.result_type, np.allclose, np.isclose, np.array_equal, np.einsum,
    np.tensordot, np.inner, np.kron, np.trace, np.diag, np.diagonal, np.ravel, np.moveaxis,
    np.rollaxis, np.flip, np.fliplr, np.flipud, np.roll, np.tile, np.repeat, np.cumsum,
    np.cumprod, np.tril, np.triu, np.hstack, np.vstack, np.column_stack, np.dstack,
    np.atleast_1d, np.atleast_2d, np.atleast_3d, np.split, np.array_split, np.hsplit,
    np.vsplit, np.dsplit, np.append, np.rot90, np.sinc, *fft.FUNCTIONS,
    np.fft.fftshift, np.fft.ifftshift,
    np.linalg.eigh, np.linalg.eigvalsh, np.linalg.svd, np.linalg.eig, np.linalg.eigvals,
    np.linalg.inv,
    np.linalg.solve,
})


def _holds_complex(args: Any) -> bool:
    if isinstance(args, list | tuple):
        return any(_holds_complex(a) for a in args)
    return isinstance(args, Tensor) and F.is_complex(args)


def _real_only(fn: Any, args: tuple, kwargs: dict) -> None:
    if _holds_complex(list(args) + list(kwargs.values())):
        raise TypeError(f"numpy.{fn.__name__} of complex tensors is not supported on the "
                        "tape (see adlite.runtime.complex_numbers for what is)")


def _unsupported(name: str, table: dict) -> TypeError:
    supported = ", ".join(sorted(getattr(f, "__name__", str(f)) for f in table))
    return TypeError(f"numpy.{name} is not supported on adlite Tensors. Supported: {supported}")


def _add_at(x: Any, idx: Any, v: Any) -> None:
    if not isinstance(x, Tensor):
        raise TypeError("numpy.add.at writes into its first argument, which must be an adlite "
                        "Tensor when the values are Tensors")
    key = F.normalize_index(idx)
    shape = np.empty(x.shape, dtype=np.bool_)[key].shape
    x._inplace(lambda s, w: F.add(s, F.index_add(F.broadcast_to(w, shape), key, s.shape)), v)


def dispatch_ufunc(ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict) -> Any:
    if ufunc is np.add and method == "at" and len(inputs) == 3 and not kwargs:
        return _add_at(*inputs)
    if method != "__call__":
        raise TypeError(f"numpy.{ufunc.__name__}.{method} is not supported on adlite Tensors")
    if kwargs.get("out") is not None:
        raise TypeError(f"numpy.{ufunc.__name__}(..., out=...) is not supported on adlite "
                        "Tensors: assign the result instead")
    fn = UFUNCS.get(ufunc) or special_ufuncs.scipy_ufunc(ufunc)
    if fn is None:
        raise _unsupported(ufunc.__name__, UFUNCS)
    if ufunc not in COMPLEX_UFUNCS and not special_ufuncs.scipy_takes_complex(ufunc):
        _real_only(ufunc, inputs, {})
    return fn(*inputs)


def dispatch_function(func: Any, args: tuple, kwargs: dict) -> Any:
    fn = FUNCTIONS.get(func)
    if fn is None:
        raise _unsupported(func.__name__, FUNCTIONS)
    if func not in COMPLEX_FUNCTIONS:
        _real_only(func, args, kwargs)
    ours = _signature(fn)
    if ours is None or _binds(ours, args, kwargs):
        return fn(*args, **kwargs)
    # numpy's parameter names (np.swapaxes(x, axis1=0, axis2=1)): bound by numpy's signature,
    # passed in numpy's order
    theirs = _signature(func)
    if theirs is not None and _binds(theirs, args, kwargs):
        kwargs = {k: v for k, v in kwargs.items() if not _is_default(theirs, k, v)}
        positional, named = _in_order(theirs, theirs.bind(*args, **kwargs))
        if _binds(ours, positional, named):
            return fn(*positional, **named)
    given = ", ".join(f"{k}=..." for k in kwargs) or f"{len(args)} arguments"
    raise TypeError(f"numpy.{func.__name__}({given}) is not supported on adlite Tensors: "
                    f"the tape's {func.__name__} takes ({', '.join(ours.parameters)})")


def _is_default(signature: inspect.Signature, name: str, value: Any) -> bool:
    """Whether `name=value` is what numpy's `signature` gives `name` anyway (numpy's own
    wrappers pass their defaults on: `row_stack` calls `vstack(tup, dtype=None, ...)`)."""
    parameter = signature.parameters.get(name)
    if parameter is None or parameter.default is parameter.empty:
        return False
    default = parameter.default
    return value is default or isinstance(value, str | int | float | bool) and \
        type(value) is type(default) and value == default


def _signature(fn: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without one
        return None


def _binds(signature: inspect.Signature, args: tuple | list, kwargs: dict) -> bool:
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def _in_order(signature: inspect.Signature, bound: inspect.BoundArguments) -> tuple[list, dict]:
    """The bound arguments positionally in the signature's order up to the first one not
    given, by name after it."""
    positional, named, gap = [], {}, False
    for name, parameter in signature.parameters.items():
        if name not in bound.arguments:
            gap = True
            continue
        value = bound.arguments[name]
        if parameter.kind is parameter.VAR_POSITIONAL:
            positional.extend(value)
        elif parameter.kind is parameter.VAR_KEYWORD:
            named.update(value)
        elif not gap and parameter.kind is not parameter.KEYWORD_ONLY:
            positional.append(value)
        else:
            named[name] = value
    return positional, named
