"""numpy functions that are composites of primitives, each written once (against `Ops`), for
the compiler's frontend and the eager tape alike; their derivatives come from the primitives'.

- `square(x)` = x * x; `hypot(x, y)` = sqrt(x*x + y*y) (no rescaling, as both sides had it);
- `log_base(x, base)` = log(x) / log(base) (`np.log2`, `np.log10`, `math.log(x, base)`);
- `norm(x)` = sqrt(sum(x * x)): `np.linalg.norm` without options (2-norm of a vector,
  Frobenius norm of a matrix; a scalar's is its absolute value).
"""

from __future__ import annotations

import math
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


def norm(o: Ops, x: Any) -> Any:
    return o.sqrt(o.reduce_sum(o.mul(x, x), None, False))
