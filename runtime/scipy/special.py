"""scipy.special on the eager tape.

Contract: `logsumexp(a, axis, b, keepdims, return_sign)` (scipy's arguments and values:
`functional.logsumexp`), `multigammaln(a, d)` (the sum of `gammaln(a - j/2)`, j < d, plus
d(d-1)/4 log(pi); scipy's ValueError where an element of `a` is not above (d-1)/2) and
`polygamma(n, x)` (`special_ufuncs`: n is not differentiated) record; every other name is
scipy.special's own: its ufuncs (`gammaln`, `iv`, `erf`, ...) dispatch to the tape through
`__array_ufunc__`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.special

from .. import functional as F
from .. import special, special_ufuncs
from ._reexport import rest_of

logsumexp = F.logsumexp
polygamma = special_ufuncs.polygamma


def multigammaln(a: Any, d: int) -> Any:
    """scipy.special.multigammaln: the log of the multivariate gamma function of dimension d."""
    a = F.constant(a)
    if not np.isscalar(d) or int(d) != d:
        raise ValueError("d should be a positive integer (dimension)")
    d = int(d)
    if np.any(a.data <= 0.5 * (d - 1)):
        raise ValueError(f"condition a ({float(np.min(a.data))}) > 0.5 * (d-1) "
                         f"({0.5 * (d - 1)}) not met")
    terms = [special.gammaln(a - j / 2.0) for j in range(d)]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total + d * (d - 1) / 4.0 * math.log(math.pi)


__getattr__ = rest_of(scipy.special)
