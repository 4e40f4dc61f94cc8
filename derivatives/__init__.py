"""adlite.derivatives: the derivative formulas, written once for the compiler and the eager tape.

Contract: `FORMULAS[name]` is a `Formula` (the partial derivatives of an elementwise
primitive, `elementwise`), a `Reduction` (the derivative of a reduction with respect to each
element, `reductions`), a `Linear` adjoint (the shape changes, `shapes`; basic indexing,
`indexing`), a `Cast` (the dtype conversion, `shapes`) or a `Bilinear` product (`matmul`,
`products`), written against the small operations vocabulary `Ops` and nothing else (see
`vocabulary`).
Two implementations of `Ops` run them:
- the compiler's IR `Builder` (`adlite.compiler.primitives.vocabulary.BuilderOps`): the
  compiler's primitives take their `vjp` and `jvp` rules from these formulas
  (`adlite.compiler.primitives.scalar`, `.arrays`);
- the tape's tensor functions (`adlite.runtime.vocabulary`): the tape's primitives take their
  VJP from the same formulas (`adlite.runtime.primitives`), so `create_graph=True` gives higher
  derivatives through recorded tensor operations.
Each driver keeps what is its own: the compiler its symbolic zeros, the tape its PyTorch node
names, saved tensors (a formula declares whether it reads the inputs and/or the output) and the
summing of broadcast cotangents back to each input's shape. Conventions at ties are therefore
the same in both by construction. `composites` holds the numpy functions both sides build
from primitives (`square`, `hypot`, `log_base`, `norm`, `mean`, `var`, `std`, `logsumexp`,
`softmax`), written once the same way; `array_composites` the array-building ones (`diag`,
`diff`, `roll`, `cross`, `cumsum`, `tile`, `repeat`, `einsum`, ...); `linalg` the derivatives
of the matrix primitives (`solve`, `inv`, `det`, `slogdet`, `cholesky`), `decompositions`
those of the packed decompositions (`eigh`, `svd`, `qr`, `lstsq`, ...) with `norm` with `ord`,
`pinv` and `cond`, and `special` those of
the special functions (`erf`, `erfc`, `gammaln`, `digamma`) with scipy's composites (`ndtr`,
`logit`, `xlogy`, the normal distribution's `pdf`, `logpdf`, `cdf`), `special_functions`
those of scipy's Bessel, gamma, beta, incomplete and distribution functions (compiler only:
the tape has no such primitives) and polygamma's values.

This package imports nothing of adlite (numpy-free too), so both sides import it cheaply.
"""

from . import (  # noqa: F401  (they define formulas)
    composites,
    decompositions,
    indexing,
    linalg,
    products,
    reductions,
    shapes,
    special,
    special_functions,
)
from .elementwise import takes_first
from .vocabulary import (
    FORMULAS,
    MINUS_ONE,
    ONE,
    Bilinear,
    Cast,
    Formula,
    Linear,
    Mask,
    Matrix,
    Ops,
    Reduction,
    bilinear_jvp,
    jvp,
    reduction_jvp,
    reduction_vjp,
    supports,
    vjp,
)

__all__ = ["FORMULAS", "MINUS_ONE", "ONE", "Bilinear", "Cast", "Formula", "Linear", "Mask",
           "Matrix", "Ops", "Reduction", "bilinear_jvp", "composites", "jvp", "reduction_jvp",
           "reduction_vjp", "supports", "takes_first", "vjp"]
