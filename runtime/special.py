"""scipy.special and scipy.stats on the eager tape.

Contract: the tape primitives `erf`, `erfc`, `gammaln`, `digamma`, `erfinv`, `erfcinv` (VJPs
from the shared formulas of `adlite.derivatives.special`; digamma's derivative, `trigamma`,
is `special_ufuncs`'), and the functions `erf`, `erfc`, `gammaln`, `digamma`, `erfinv`,
`erfcinv`, `ndtri`, `ndtr`, `log_ndtr`, `expit` (the `sigmoid` primitive), `logit`, `xlogy`
(the shared composites; float32 operands computed in double, the result rounded, as scipy's
float32 loops), `norm_cdf`, `norm_pdf`, `norm_logpdf`, `norm_logcdf`, `norm_sf`, `norm_logsf`,
`norm_ppf`, `norm_isf` (in double, as scipy.stats), `multivariate_normal_logpdf` /
`multivariate_normal_pdf` (`special.mvn_logpdf`).
scipy's ufuncs called with a Tensor (`scipy.special.erf(t)`) dispatch here through
`special_ufuncs.scipy_ufunc` (`numpy_protocol`). The values are those of the compiler's
references: the C library's `erf`, `erfc`, `lgamma` (Python's `math`), and `digamma_scalar`,
`erfinv_scalar`, `erfcinv_scalar` of `adlite.derivatives.special`, each in double (a float32
array's result rounded). `erf` and `erfc` take complex tensors too (holomorphic, PyTorch's
convention: `complex_numbers`), their values scipy.special's (scipy is imported for them,
and only for them).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable

import numpy as np

from adlite.derivatives import special

from . import functional as F
from .primitives import _elementwise
from .vocabulary import TENSOR_OPS


def _each(scalar_fn):
    """`scalar_fn` applied to every element (the dtype of a float array kept)."""

    def apply(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        out = np.array([scalar_fn(float(v)) for v in x.ravel()], dtype=np.float64)
        return out.astype(np.result_type(x.dtype, np.float32)).reshape(x.shape)

    return apply


def _gammaln_scalar(x: float) -> float:
    if x <= 0.0 and x == math.floor(x):
        return math.inf
    return math.lgamma(x) if math.isfinite(x) else abs(x) if x == x else x


def _complex_by_scipy(name: str, real: Callable[[np.ndarray], np.ndarray]
                      ) -> Callable[[np.ndarray], np.ndarray]:
    """`real` of a real array; scipy.special's `name` of a complex one (imported then)."""

    def apply(x: np.ndarray) -> np.ndarray:
        if np.iscomplexobj(x):
            return getattr(importlib.import_module("scipy.special"), name)(x)
        return real(x)

    return apply


_elementwise("erf", "ErfBackward0", _complex_by_scipy("erf", _each(math.erf)))
_elementwise("erfc", "ErfcBackward0", _complex_by_scipy("erfc", _each(math.erfc)))
_elementwise("gammaln", "LgammaBackward0", _each(_gammaln_scalar))
_elementwise("digamma", "DigammaBackward0", _each(special.digamma_scalar))
_elementwise("erfinv", "ErfinvBackward0", _each(special.erfinv_scalar))
_elementwise("erfcinv", "ErfcinvBackward0", _each(special.erfcinv_scalar))


def erf(x):
    return F.apply("erf", x)


def erfc(x):
    return F.apply("erfc", x)


def gammaln(x):
    return F.apply("gammaln", x)


def digamma(x):
    return F.apply("digamma", x)


def erfinv(x):
    return F.apply("erfinv", x)


def erfcinv(x):
    return F.apply("erfcinv", x)


def _composite(fn):
    """An elementwise composite; float32 operands are computed in double and the result
    rounded (scipy's float32 loops), other dtypes as they come."""

    def call(*args):
        tensors = [F.constant(a) for a in args]
        dtype = np.result_type(*(t.dtype for t in tensors))
        if dtype != np.float32:
            return fn(TENSOR_OPS, *tensors)
        return F.astype(fn(TENSOR_OPS, *(F.astype(t, np.float64) for t in tensors)), dtype)

    return call


ndtri = _composite(special.ndtri)
ndtr = _composite(special.ndtr)
log_ndtr = _composite(special.log_ndtr)
logit = _composite(special.logit)
xlogy = _composite(special.xlogy)


def _distribution(fn, quantile: bool = False):
    """scipy.stats computes in double whatever its arguments' dtype (a `quantile` method's x
    is ndtri(q) at q's dtype, scipy's)."""

    def call(x, loc=0.0, scale=1.0):
        x = ndtri(x) if quantile else x
        return fn(TENSOR_OPS, *(F.astype(F.constant(v), np.float64) for v in (x, loc, scale)))

    return call


norm_cdf = _distribution(special.norm_cdf)
norm_pdf = _distribution(special.norm_pdf)
norm_logpdf = _distribution(special.norm_logpdf)
norm_logcdf = _distribution(special.norm_logcdf)
norm_sf = _distribution(special.norm_sf)
norm_logsf = _distribution(special.norm_logsf)
norm_ppf = _distribution(special.norm_ppf, quantile=True)
norm_isf = _distribution(special.norm_isf, quantile=True)


def multivariate_normal_logpdf(x, mean=None, cov=1.0):
    """scipy.stats.multivariate_normal.logpdf (see `special.mvn_shapes` for the shapes)."""
    x, cov = F.constant(x), F.constant(cov)
    mean = None if mean is None else F.constant(mean)
    d, shape = special.mvn_shapes(x.shape, None if mean is None else mean.shape, cov.shape)
    if cov.ndim < 2:
        cov = cov * np.eye(d)
    value = special.mvn_logpdf(TENSOR_OPS, F.reshape(x, (-1, d)),
                               0.0 if mean is None else mean, cov, d)
    return F.reshape(value, shape)


def multivariate_normal_pdf(x, mean=None, cov=1.0):
    return F.exp(multivariate_normal_logpdf(x, mean, cov))

