"""`np.linalg` functions in compiled code: `solve`, `inv`, `det`, `slogdet`, `cholesky`, `norm`
(the decompositions are `decompositions.py`'s).

Contract: registers rules that emit the primitives of `primitives/linalg.py` on 2-D float
operands (stacks of them: `stacks.py`; int arrays become float64 as numpy converts them; two
float dtypes promote as numpy's). `slogdet(A)` gives the tuple
`(sign, logabsdet)`; `cholesky(A, upper=False)` takes `upper` known when compiling (the upper
factor is the transpose of the lower one, as numpy 2 returns it). `norm(x, ord=None,
axis=None, keepdims=False)` without `ord` is `composites.norm` (the tape's too), with one
`decompositions.norm_with_ord`. Shapes numpy rejects are refused at the call's line with
numpy's message.
"""

from __future__ import annotations

import numpy as np

from adlite.derivatives import composites

from ...primitives.vocabulary import BuilderOps
from ..context import CallContext
from .decompositions import norm_with_ord
from .elementwise import unary
from .reductions import normalized_axes
from .registry import known, options, refuse_keywords, register
from .stacks import stacked


def _solve(cx: CallContext, args, kwargs, node):
    refuse_keywords(cx, kwargs, node)
    a, b = (cx.as_float(v, node) for v in cx.exactly(args, 2, node))
    return cx.b.op("solve", *cx.promote(a, b, node))


def _slogdet(cx: CallContext, args, kwargs, node):
    refuse_keywords(cx, kwargs, node)
    a = cx.as_float(cx.one(args, node), node)
    return cx.b.op("det_sign", a), cx.b.op("slogdet", a)


def _cholesky(cx: CallContext, args, kwargs, node):
    refuse_keywords(cx, kwargs, node, ("upper",))
    upper = cx.static(kwargs["upper"], node, "its `upper=`", "option") if "upper" in kwargs \
        else False
    if not isinstance(upper, bool):
        raise cx.source.error(node, f"cholesky: `upper` must be True or False, got {upper!r}")
    lower = cx.b.op("cholesky", cx.as_float(cx.one(args, node), node))
    return cx.b.transpose(lower, axes=(1, 0)) if upper else lower


def _norm(cx: CallContext, args, kwargs, node):
    """np.linalg.norm(x, ord=None, axis=None, keepdims=False): the 2-norm of vectors along
    one axis (all of a vector's), the Frobenius norm of matrices along two (all of a
    matrix's)."""
    names = ("x", "ord", "axis", "keepdims")
    if not 1 <= len(args) <= len(names):
        raise cx.source.error(node, f"np.linalg.norm() takes 1 to 4 positional arguments, "
                              f"got {len(args)}")
    given = {"ord": None, "axis": None, "keepdims": False,
             **known(cx, dict(zip(names[1:], args[1:], strict=False)), node),
             **options(cx, kwargs, names[1:], node)}
    x = cx.as_float(args[0], node)
    ndim = len(x.type.shape or ())
    axis = normalized_axes(cx, given["axis"], ndim, node)
    if given["ord"] is not None:
        return norm_with_ord(cx, x, given["ord"], given["axis"], given["keepdims"],
                             node)
    if axis is not None and len(axis) > 2:
        raise cx.source.error(node, "Improper number of dimensions to norm.")
    return composites.norm(BuilderOps(cx.b), x, axis, bool(given["keepdims"]))


register([np.linalg.solve], stacked(_solve, operands=2))
register([np.linalg.inv], stacked(unary("inv")), keywords=False)
register([np.linalg.det], stacked(unary("det")), keywords=False)
register([np.linalg.slogdet], stacked(_slogdet))
register([np.linalg.cholesky], stacked(_cholesky))
register([np.linalg.norm], _norm)
