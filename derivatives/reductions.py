"""The derivatives of the reductions, each written once (see `vocabulary.Reduction`).

- `sum`: every element weighs 1 (`mean` is a composite: `composites.mean`);
- `max` / `min` (torch.amax): the derivative is shared evenly by the tied extrema (the elements
  equal to the result), 0 elsewhere.
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
