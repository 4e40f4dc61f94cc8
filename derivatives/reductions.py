"""The derivatives of the reductions, each written once (see `vocabulary.Reduction`).

- `sum`: every element weighs 1 (`mean` is a composite: `composites.mean`);
- `max` / `min` (torch.amax): the derivative is shared evenly by the tied extrema (the elements
  equal to the result), 0 elsewhere;
- `prod`: each element's weight is the product of the other reduced elements, exact with
  zeros: `out / x` where `x` is not 0 (0 when another element is), and where `x` is 0 the
  product of the nonzero elements when it is the only zero, else 0. The divisions and the
  product see 1 in place of the zeros, so differentiating the weights again (the tape's
  `create_graph`) is exact where a product has at most one zero; with two or more the
  constant 0 weights drop terms of the second derivative (the tape refuses that case).
"""

from __future__ import annotations

from .vocabulary import ONE, Reduction, define


def _shared_by_extrema(o, x, out, shape, axis):
    hit = o.eq(x, o.expand(out, shape, axis))
    mask = o.select(hit, o.constant(1.0, x), o.constant(0.0, x))
    return o.div(mask, o.reduce_sum(mask, axis, True))


define(Reduction("sum", lambda o, x, out, shape, axis: ONE))
define(Reduction("max", _shared_by_extrema, reads_inputs=True, reads_output=True))
define(Reduction("min", _shared_by_extrema, reads_inputs=True, reads_output=True))


def _others_product(o, x, out, shape, axis):
    zero = o.eq(x, 0.0)
    one, nothing = o.constant(1.0, x), o.constant(0.0, x)
    safe = o.select(zero, one, x)
    nonzero_product = o.reduce_prod(safe, axis, True)
    zeros = o.reduce_sum(o.select(zero, one, nothing), axis, True)
    at_zero = o.select(o.eq(zeros, 1.0), nonzero_product, nothing)
    return o.select(zero, o.expand(at_zero, shape, axis),
                    o.div(o.expand(out, shape, axis), safe))


define(Reduction("prod", _others_product, reads_inputs=True, reads_output=True))
