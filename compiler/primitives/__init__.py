"""The rules of every primitive, registered in the compiler's one table (`ir.primitive`).

Contract: importing this package registers every primitive in the table `PRIMITIVES` of
`adlite.compiler.ir.primitive` (re-exported here; the fields of a `Primitive` are documented
there): scalar and elementwise primitives in `scalar`, array primitives in `arrays`, control
flow and the AD tapes in `control`, user-defined derivatives and stop-gradient in `custom`,
the user's run-time checks and prints in `effects`, the
matrix functions of `np.linalg` in `linalg` (its decompositions in `decompositions`, the
determinant of a complex matrix in `complex_linalg`), the special functions of scipy in
`special` (of a complex argument, as real primitives of its parts, in `complex_special`),
integer-array indexing (`take`, `take_add`) in `gather`, `argsort` in `sorting`, the
lists whose length is known only at run time in `lists`;
`vocabulary` runs the derivative formulas shared with the
eager tape (`adlite.derivatives`) with the IR `Builder`. The structural AD rules of control
flow are attached by `adlite.compiler.ad`.

Conventions at ties (PyTorch's; those of the elementwise primitives and of fmax/fmin are
written once in `adlite.derivatives`, whose formulas the compiler and the eager tape both run,
in reverse and forward mode alike):
- builtin `max(a, b, ...)` / `min`: Python's left fold keeps the current value unless
  `item > current` (min: `<`), a select, so the whole gradient goes to the argument Python
  returns (the first of tied arguments; NaN order-dependent as in Python).
- `np.maximum` / `np.minimum` (torch.maximum): each operand gets half the gradient at a tie.
- `np.fmax` / `np.fmin` (torch.fmax): `a if (a >= b or isnan(b)) else b` (fmin: `<=`), a
  select, so the first operand gets the gradient where `a >= b` or `b` is NaN, else the second.
- `np.clip(x, lo, hi)` (torch.clamp): `x` gets it where `lo <= x <= hi` (bounds inclusive),
  `lo` where `x < lo < hi`, `hi` where `x > hi` or `hi < lo` (then numpy returns `hi`).
- `np.max` / `np.min` / `x.max()` reductions (torch.amax): shared evenly by the tied extrema.
"""

from __future__ import annotations

from ..ir.primitive import PRIMITIVES
from . import (  # noqa: F401  (populate the table)
    arrays,
    complex_linalg,
    complex_numbers,
    complex_special,
    control,
    custom,
    decompositions,
    effects,
    fft,
    gather,
    linalg,
    lists,
    scalar,
    sorting,
    special,
)

__all__ = ["PRIMITIVES"]
