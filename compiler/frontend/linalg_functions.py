"""`np.linalg` functions in compiled code: `solve`, `inv`, `det`, `slogdet`, `cholesky`.

Contract: registers lowerings (`functions.register_with_keywords`) that emit the primitives of
`primitives/linalg.py` on 2-D float operands (int arrays become float64 as numpy converts
them; two float dtypes promote as numpy's). `slogdet(A)` gives the tuple
`(sign, logabsdet)`; `cholesky(A, upper=False)` takes `upper` known when compiling (the upper
factor is the transpose of the lower one, as numpy 2 returns it). Shapes numpy rejects are
refused at the call's line with numpy's message.
"""

from __future__ import annotations

import numpy as np

from . import decomposition_functions  # noqa: F401 - registers the decompositions
from .context import CallContext
from .functions import refuse_keywords, register_with_keywords, unary, without_keywords


def _solve(conv: CallContext, args, kwargs, node):
    refuse_keywords(conv, kwargs, node)
    a, b = (conv.as_float(v, node) for v in conv.exactly(args, 2, node))
    return conv.b.op("solve", *conv.promote(a, b, node))


def _slogdet(conv: CallContext, args, kwargs, node):
    refuse_keywords(conv, kwargs, node)
    a = conv.as_float(conv.one(args, node), node)
    return conv.b.op("det_sign", a), conv.b.op("slogdet", a)


def _cholesky(conv: CallContext, args, kwargs, node):
    refuse_keywords(conv, kwargs, node, ("upper",))
    upper = conv.static(kwargs["upper"], node) if "upper" in kwargs else False
    if not isinstance(upper, bool):
        raise conv.source.error(node, "cholesky: `upper` must be True or False when compiling")
    lower = conv.b.op("cholesky", conv.as_float(conv.one(args, node), node))
    return conv.b.transpose(lower, axes=(1, 0)) if upper else lower


register_with_keywords([np.linalg.solve], _solve)
register_with_keywords([np.linalg.inv], without_keywords(unary("inv")))
register_with_keywords([np.linalg.det], without_keywords(unary("det")))
register_with_keywords([np.linalg.slogdet], _slogdet)
register_with_keywords([np.linalg.cholesky], _cholesky)
