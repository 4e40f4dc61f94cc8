"""The derivative of `matmul` (see `vocabulary.Bilinear`), written once for the 1-D and 2-D
operands numpy's matmul takes (a 1-D operand is a row (left) or column (right) vector whose
axis is dropped from the result, as numpy does): for `out = x @ y` with cotangent `g`,
`x` gets `g @ y.T` and `y` gets `x.T @ g`, with the dropped axes put back (an outer product,
or a product with the scalar cotangent of a 1-D @ 1-D). Batched (> 2-D) operands are the
driver's own (the eager tape's; the compiler refuses them).
"""

from __future__ import annotations

from .vocabulary import Bilinear, define


def _outer(o, u, v, m, n):
    return o.mul(o.reshape(u, (m, 1)), o.reshape(v, (1, n)))


def _matmul_adjoint(o, g, x, y, x_shape, y_shape):
    ranks = (len(x_shape), len(y_shape))
    if ranks == (2, 2):
        return [o.matmul(g, o.transpose(y, (1, 0))), o.matmul(o.transpose(x, (1, 0)), g)]
    if ranks == (2, 1):
        return [_outer(o, g, y, x_shape[0], y_shape[0]), o.matmul(o.transpose(x, (1, 0)), g)]
    if ranks == (1, 2):
        return [o.matmul(y, g), _outer(o, x, g, x_shape[0], y_shape[1])]
    return [o.mul(g, y), o.mul(g, x)]


define(Bilinear("matmul", lambda o, x, y: o.matmul(x, y), _matmul_adjoint))
