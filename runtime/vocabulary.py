"""The derivative vocabulary (`adlite.derivatives.Ops`) implemented with the tape's tensor
functions, so that the shared formulas run on tensors.

Contract: `TENSOR_OPS` has one method per word of the vocabulary (`expand` is
`expand_reduced`; `is_float` holds for complex dtypes too, and `cast` of a complex value to
a real dtype takes its real part, so `astype` carries PyTorch's complex cotangents; an
indexing `key` is a numpy basic index, normalised by
`functional.normalize_index`; the linear algebra and special functions are the primitives of
`linalg` and `special`); each is a recorded tensor function of `functional`
(comparisons and logic give tensors that never require grad), so a formula run with
recording on (`create_graph=True`) is itself differentiable. It is a layer above
`functional`, whose composites run it too: the package's `__init__` binds it there
(`functional.bind_vocabulary`).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from . import functional as F


def reduced_shape(shape: tuple[int, ...], axis: tuple[int, ...] | None) -> tuple[int, ...]:
    """`shape` with the reduced axes kept as size 1 (the keepdims shape)."""
    axes = range(len(shape)) if axis is None else axis
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def expand_reduced(g: Any, shape: tuple[int, ...], axis: tuple[int, ...] | None) -> Any:
    """Broadcast a reduction's cotangent back to the reduced operand's shape."""
    return F.broadcast_to(F.reshape(g, reduced_shape(shape, axis)), shape)


class TensorOps:
    add = staticmethod(F.add)
    sub = staticmethod(F.subtract)
    mul = staticmethod(F.multiply)
    div = staticmethod(F.divide)
    neg = staticmethod(F.negative)
    pow = staticmethod(F.power)
    floordiv = staticmethod(F.floor_divide)
    exp = staticmethod(F.exp)
    log = staticmethod(F.log)
    log1p = staticmethod(F.log1p)
    sqrt = staticmethod(F.sqrt)
    sin = staticmethod(F.sin)
    cos = staticmethod(F.cos)
    sinh = staticmethod(F.sinh)
    cosh = staticmethod(F.cosh)
    sign = staticmethod(F.sign)
    lt = staticmethod(F.less)
    le = staticmethod(F.less_equal)
    gt = staticmethod(F.greater)
    ge = staticmethod(F.greater_equal)
    eq = staticmethod(F.equal)
    ne = staticmethod(F.not_equal)
    and_ = staticmethod(F.logical_and)
    or_ = staticmethod(F.logical_or)
    select = staticmethod(F.where)
    matmul = staticmethod(F.matmul)

    expand = staticmethod(expand_reduced)
    reshape = staticmethod(F.reshape)
    transpose = staticmethod(F.transpose)
    sum_to = staticmethod(F.sum_to)

    abs = staticmethod(F.abs)

    solve = staticmethod(functools.partial(F.apply, "solve"))  # the tape's primitives
    inv = staticmethod(functools.partial(F.apply, "inv"))
    tril_halfdiag = staticmethod(functools.partial(F.apply, "tril_halfdiag"))
    triangle = staticmethod(functools.partial(F.apply, "triangle"))
    solve_triangular = staticmethod(functools.partial(F.apply, "solve_triangular"))
    eigh = staticmethod(functools.partial(F.apply, "eigh"))
    svd = staticmethod(functools.partial(F.apply, "svd"))
    eig = staticmethod(functools.partial(F.apply, "eig"))
    erf = staticmethod(functools.partial(F.apply, "erf"))
    erfc = staticmethod(functools.partial(F.apply, "erfc"))
    erfcinv = staticmethod(functools.partial(F.apply, "erfcinv"))
    cholesky = staticmethod(functools.partial(F.apply, "cholesky"))
    slogdet = staticmethod(functools.partial(F.apply, "slogdet"))  # log |det|
    digamma = staticmethod(functools.partial(F.apply, "digamma"))
    trigamma = staticmethod(functools.partial(F.apply, "trigamma"))
    gammaln = staticmethod(functools.partial(F.apply, "gammaln"))
    floor = staticmethod(F.floor)
    # scipy.special's, registered by `special_ufuncs` (a program that differentiates them on
    # the tape has called them, so they are registered by then)
    beta = staticmethod(functools.partial(F.apply, "beta"))
    i0 = staticmethod(functools.partial(F.apply, "i0"))
    i1 = staticmethod(functools.partial(F.apply, "i1"))
    iv = staticmethod(functools.partial(F.apply, "iv"))
    ive = staticmethod(functools.partial(F.apply, "ive"))
    j0 = staticmethod(functools.partial(F.apply, "j0"))
    j1 = staticmethod(functools.partial(F.apply, "j1"))
    jv = staticmethod(functools.partial(F.apply, "jv"))
    y0 = staticmethod(functools.partial(F.apply, "y0"))
    y1 = staticmethod(functools.partial(F.apply, "y1"))
    yn = staticmethod(functools.partial(F.apply, "yn"))

    @staticmethod
    def slice_along(x: Any, axis: int, start: int, stop: int, step: int | None = None) -> Any:
        return F.index(x, (slice(None),) * axis + (slice(start, stop, step),))

    @staticmethod
    def concatenate(xs: Any, axis: int) -> Any:
        return F.concatenate(xs, axis)

    @staticmethod
    def take(x: Any, key: Any) -> Any:
        return F.index(x, key)

    @staticmethod
    def scatter_add(shape: tuple[int, ...], x: Any, key: Any) -> Any:
        return F.index_add(x, key, shape)

    @staticmethod
    def zero_at(x: Any, key: Any) -> Any:
        return F.index_put(x, key, 0.0)

    @staticmethod
    def is_float(dtype: np.dtype) -> bool:
        """Float and complex dtypes carry derivatives."""
        return bool(np.issubdtype(dtype, np.inexact))

    @staticmethod
    def conj(x: Any) -> Any:
        return F.conj(x) if F.is_complex(x) else x

    @staticmethod
    def real(x: Any) -> Any:
        return F.real(x) if F.is_complex(x) else x

    @staticmethod
    def is_complex(x: Any) -> bool:
        return F.is_complex(x)

    @staticmethod
    def cast(x: Any, dtype: Any) -> Any:
        """`x` in `dtype`; a complex value to a real dtype is its real part (the cotangent of
        a real operand, PyTorch's)."""
        if F.is_complex(x) and not F.is_complex_dtype(dtype):
            x = F.real(x)
        return F.astype(x, dtype)

    @staticmethod
    def reduce_sum(x: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Any:
        return F.sum(x, axis=axis, keepdims=keepdims)

    @staticmethod
    def reduce_max(x: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Any:
        return F.max(x, axis=axis, keepdims=keepdims)

    @staticmethod
    def reduce_prod(x: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Any:
        return F.prod(x, axis=axis, keepdims=keepdims)

    @staticmethod
    def constant(value: float, like: Any) -> Any:
        return F.constant(np.asarray(value, dtype=np.result_type(like.dtype, 1.0)))


TENSOR_OPS = TensorOps()
