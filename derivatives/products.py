"""The derivative of `matmul` (see `vocabulary.Bilinear`), written once for every operand numpy's
matmul takes. 1-D and 2-D operands (a 1-D operand is a row (left) or column (right) vector whose
axis is dropped from the result, as numpy does): for `out = x @ y` with cotangent `g`,
`x` gets `g @ y.T` and `y` gets `x.T @ g`, with the dropped axes put back (an outer product,
or a product with the scalar cotangent of a 1-D @ 1-D). Batched (> 2-D) operands (the
eager tape's; the compiler's frontend decomposes them into 2-D products first:
`array_composites.matmul`) take the general form: 1-D operands and the
cotangent promoted to matrices as numpy does, the last two axes transposed, each cotangent
summed back over the batch axes broadcasting added (`sum_to`).
"""

from __future__ import annotations

from .vocabulary import Bilinear, define


def _outer(o, u, v, m, n):
    return o.mul(o.reshape(u, (m, 1)), o.reshape(v, (1, n)))


def _broadcast(a, b):
    """numpy's broadcast of two (batch) shapes, which the type rule has checked."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    return tuple(i if j == 1 else j for i, j in zip(a, b, strict=True))


def _swap_last(o, a, rank):
    return o.transpose(a, tuple(range(rank - 2)) + (rank - 1, rank - 2))


def _batched_adjoint(o, g, x, y, x_shape, y_shape):
    x2_shape = (1, x_shape[0]) if len(x_shape) == 1 else tuple(x_shape)
    y2_shape = (y_shape[0], 1) if len(y_shape) == 1 else tuple(y_shape)
    x2 = o.reshape(x, x2_shape) if len(x_shape) == 1 else x
    y2 = o.reshape(y, y2_shape) if len(y_shape) == 1 else y
    out2_shape = _broadcast(x2_shape[:-2], y2_shape[:-2]) + (x2_shape[-2], y2_shape[-1])
    g2 = o.reshape(g, out2_shape)
    gx = o.sum_to(o.matmul(g2, _swap_last(o, y2, len(y2_shape))), x2_shape)
    gy = o.sum_to(o.matmul(_swap_last(o, x2, len(x2_shape)), g2), y2_shape)
    return [o.reshape(gx, tuple(x_shape)) if len(x_shape) == 1 else gx,
            o.reshape(gy, tuple(y_shape)) if len(y_shape) == 1 else gy]


def _matmul_adjoint(o, g, x, y, x_shape, y_shape):
    ranks = (len(x_shape), len(y_shape))
    if max(ranks) > 2:
        return _batched_adjoint(o, g, x, y, x_shape, y_shape)
    if ranks == (2, 2):
        return [o.matmul(g, o.transpose(y, (1, 0))), o.matmul(o.transpose(x, (1, 0)), g)]
    if ranks == (2, 1):
        return [_outer(o, g, y, x_shape[0], y_shape[0]), o.matmul(o.transpose(x, (1, 0)), g)]
    if ranks == (1, 2):
        return [o.matmul(y, g), _outer(o, x, g, x_shape[0], y_shape[1])]
    return [o.mul(g, y), o.mul(g, x)]


define(Bilinear("matmul", lambda o, x, y: o.matmul(x, y), _matmul_adjoint))
