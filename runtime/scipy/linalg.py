"""scipy.linalg on the eager tape.

Contract: `solve_triangular`, `cholesky`, `cho_factor` and `cho_solve` are the tape's
(`runtime/linalg.py`: scipy's arguments and values, differentiable to any order); every other
name is scipy.linalg's own.
"""

from __future__ import annotations

import scipy.linalg

from .. import linalg
from ._reexport import rest_of

solve_triangular = linalg.solve_triangular
cholesky = linalg.scipy_cholesky
cho_factor = linalg.cho_factor
cho_solve = linalg.cho_solve

__getattr__ = rest_of(scipy.linalg)
