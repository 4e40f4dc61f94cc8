"""numpy functions that are composites of primitives, each written once (against `Ops`), for
the compiler's frontend and the eager tape alike; their derivatives come from the primitives'.

- `square(x)` = x * x; `hypot(x, y)` = sqrt(x*x + y*y) (no rescaling, as both sides had it);
- `log_base(x, base)` = log(x) / log(base) (`math.log(x, base)`; `np.log2` and `np.log10`
  are primitives: the C library's log2 / log10, as numpy's);
- `exp2(x)` = 2.0 ** x; `reciprocal(x)` = 1.0 / x (floats);
- `sinc(x)` = sin(y) / y with y = pi * x, x = 0 taken as 1e-20 (numpy's own formula; its
  derivative at 0 is 0, its second derivative there is not taken through the limit);
- `heaviside(x, h0)` = 0 where x < 0, h0 where x == 0, 1 where x > 0, NaN where x is NaN;
- `logaddexp(x, y)` = log(exp(x) + exp(y)), numpy's stable form: m + log1p(exp(-|x - y|))
  with m the larger operand, and (x + y) / 2 + log 2 + (x - y)**2 / 8 where x == y (so
  infinities of one sign give that infinity; the derivative is shared evenly there and the
  second derivative is the function's, 1/4);
- `logaddexp2(x, y)` = log2(2**x + 2**y), the same form in base 2: m + log1p(2**-|x - y|) /
  log 2, and (x + y) / 2 + 1 + log 2 (x - y)**2 / 8 where x == y;
- `norm(x, axis, keepdims)` = sqrt(sum(x * x, axis, keepdims)): `np.linalg.norm` with its
  default `ord` (2-norm of vectors along one axis, Frobenius norm of matrices along two, of
  all elements when `axis` is None; a scalar's is its absolute value).

The reductions take the operand's `shape` (the vocabulary has no word for it), `axis` (a
sorted tuple of non-negative axes, or None for all) and `keepdims`, normalised by the caller:
- `mean(x)` = sum(x) / n, n the number of elements reduced (numpy: NaN when n is 0);
- `var(x, ddof)` = sum((x - mean(x))**2) / (n - ddof); `std` = sqrt(var) (numpy's, two-pass),
  and var itself over one element (the constant 0, or NaN: its derivative is 0, not NaN);
- `logsumexp(x)` = log(sum(exp(x - m))) + m with m = max(x) where finite, else 0 (scipy's
  stable form; m is not held constant: its derivative cancels);
- `scaled_logsumexp(x, b)` = (log|sum(b * exp(x))|, the sum's sign) (scipy's `logsumexp`
  with `b=` and `return_sign=True`; `x` and `b` of one shape): the stable form above, the
  max taken where b != 0; elements where b == 0 add nothing whatever x is (an infinite or
  NaN x is taken as -inf there) but keep their derivative w.r.t. b, exp(x - result) (x - max
  capped at 700 there, so that 0 * exp stays 0); a sum of 0 (every x -inf) gives -inf, sign
  0;
- `softmax(x)` = e / sum(e) with e = exp(x - max(x)) (scipy's; the max is not held constant:
  its derivative cancels).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .vocabulary import Ops


def square(o: Ops, x: Any) -> Any:
    return o.mul(x, x)


def hypot(o: Ops, x: Any, y: Any) -> Any:
    return o.sqrt(o.add(o.mul(x, x), o.mul(y, y)))


def log_base(o: Ops, x: Any, base: Any) -> Any:
    """`base` is a Python number (its log is taken now) or a value."""
    log_of_base = math.log(base) if isinstance(base, int | float) else o.log(base)
    return o.div(o.log(x), log_of_base)


def exp2(o: Ops, x: Any) -> Any:
    return o.pow(o.constant(2.0, x), x)


def reciprocal(o: Ops, x: Any) -> Any:
    return o.div(o.constant(1.0, x), x)


def sinc(o: Ops, x: Any) -> Any:
    y = o.mul(o.select(o.eq(x, 0.0), o.constant(1e-20, x), x), math.pi)
    return o.div(o.sin(y), y)


def heaviside(o: Ops, x: Any, h0: Any) -> Any:
    step = o.select(o.lt(x, 0.0), o.constant(0.0, x), o.constant(1.0, x))
    return o.select(o.ne(x, x), x, o.select(o.eq(x, 0.0), h0, step))


def _curvature_at_tie(o: Ops, x: Any, y: Any, scale: float) -> Any:
    """scale * (x - y)**2, 0 where x == y (infinities of one sign included): added to the
    tie's branch, it gives the derivatives up to third order there (the function is even in
    x - y, its second-order term is scale * (x - y)**2)."""
    apart = o.sub(x, y)
    apart = o.select(o.eq(apart, apart), apart, o.constant(0.0, apart))  # inf - inf
    return o.mul(o.mul(apart, apart), scale)


def logaddexp(o: Ops, x: Any, y: Any) -> Any:
    top = o.select(o.ge(x, y), x, y)
    apart = o.add(top, o.log1p(o.exp(o.neg(o.abs(o.sub(x, y))))))
    tie = o.add(o.add(o.add(o.mul(x, 0.5), o.mul(y, 0.5)), math.log(2.0)),
                _curvature_at_tie(o, x, y, 0.125))
    return o.select(o.eq(x, y), tie, apart)


def logaddexp2(o: Ops, x: Any, y: Any) -> Any:
    top = o.select(o.ge(x, y), x, y)
    below = o.exp(o.mul(o.abs(o.sub(x, y)), -math.log(2.0)))  # 2 ** -|x - y|
    apart = o.add(top, o.mul(o.log1p(below), 1.0 / math.log(2.0)))
    tie = o.add(o.add(o.add(o.mul(x, 0.5), o.mul(y, 0.5)), 1.0),
                _curvature_at_tie(o, x, y, math.log(2.0) / 8.0))
    return o.select(o.eq(x, y), tie, apart)


def norm(o: Ops, x: Any, axis: tuple[int, ...] | None = None, keepdims: bool = False) -> Any:
    return o.sqrt(o.reduce_sum(o.mul(x, x), axis, keepdims))


Axis = tuple[int, ...] | None


def _count(shape: Sequence[int], axis: Axis) -> int:
    return math.prod(n for i, n in enumerate(shape) if axis is None or i in axis)


def _divisor(n: Any) -> Any:
    """A count as the float that divides: an int becomes a float; a size known only at run
    time (the compiler's `dims.Dim`, with `shapes="dynamic"`) stays what it is."""
    return float(n) if isinstance(n, int | float) else n


def mean(o: Ops, x: Any, shape: Sequence[int], axis: Axis, keepdims: bool) -> Any:
    return o.div(o.reduce_sum(x, axis, keepdims), _divisor(_count(shape, axis)))


def var(o: Ops, x: Any, shape: Sequence[int], axis: Axis, keepdims: bool,
        ddof: int | float = 0) -> Any:
    deviation = o.sub(x, mean(o, x, shape, axis, True))
    total = o.reduce_sum(o.mul(deviation, deviation), axis, keepdims)
    return o.div(total, _divisor(_count(shape, axis) - ddof))


def std(o: Ops, x: Any, shape: Sequence[int], axis: Axis, keepdims: bool,
        ddof: int | float = 0) -> Any:
    if _count(shape, axis) == 1:  # var is 0 (or NaN): the same value without sqrt, whose
        return var(o, x, shape, axis, keepdims, ddof)  # infinite slope at 0 would give NaN
    return o.sqrt(var(o, x, shape, axis, keepdims, ddof))


def _finite(o: Ops, x: Any) -> Any:
    return o.and_(o.gt(x, -math.inf), o.lt(x, math.inf))


def _finite_peak(o: Ops, x: Any, axis: Axis) -> Any:
    """max(x) over `axis` (kept) where finite, else 0."""
    peak = o.reduce_max(x, axis, True)
    return o.select(_finite(o, peak), peak, 0.0)


def logsumexp(o: Ops, x: Any, axis: Axis, keepdims: bool) -> Any:
    peak = _finite_peak(o, x, axis)
    total = o.log(o.reduce_sum(o.exp(o.sub(x, peak)), axis, True))
    return o.add(o.reduce_sum(total, axis, keepdims), o.reduce_sum(peak, axis, keepdims))


def scaled_logsumexp(o: Ops, x: Any, b: Any, axis: Axis, keepdims: bool) -> tuple[Any, Any]:
    dropped = o.eq(b, 0.0)
    peak = _finite_peak(o, o.select(dropped, o.constant(-math.inf, x), x), axis)
    shifted = o.sub(x, peak)
    capped = o.select(_finite(o, x), o.select(o.lt(shifted, 700.0), shifted,
                                              o.constant(700.0, shifted)),
                      o.constant(-math.inf, shifted))
    shifted = o.select(dropped, capped, shifted)
    total = o.reduce_sum(o.mul(b, o.exp(shifted)), axis, True)
    magnitude = o.add(o.log(o.abs(total)), peak)
    return o.reduce_sum(magnitude, axis, keepdims), o.reduce_sum(o.sign(total), axis, keepdims)


def log_softmax(o: Ops, x: Any, axis: Axis) -> Any:
    """`x - logsumexp(x, axis, keepdims=True)` (scipy.special.log_softmax)."""
    return o.sub(x, logsumexp(o, x, axis, True))


def softmax(o: Ops, x: Any, axis: Axis) -> Any:
    shifted = o.exp(o.sub(x, o.reduce_max(x, axis, True)))
    return o.div(shifted, o.reduce_sum(shifted, axis, True))
