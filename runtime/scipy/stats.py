"""scipy.stats on the eager tape.

Contract: the distributions `norm`, `t`, `chi2`, `gamma`, `beta`, `poisson`, `dirichlet` and
`multivariate_normal` have the methods `foreign.ON_THE_TAPE` lists, with scipy's arguments
(positional or by scipy's names) and values, built of the tape's functions
(`special.norm_*`, `scipy_stats`, `special.multivariate_normal_logpdf`): a density's `pdf` is
the exponential of its `logpdf`, a `logcdf` the log of its `cdf` (as scipy computes them,
except norm's, scipy's own `log_ndtr`); t's `sf` is its cdf at the reflected point.
`multivariate_normal.entropy(mean, cov)` is (d (1 + log 2 pi) + log det cov) / 2 and its
`allow_singular=True` is refused (NotImplementedError). Another method of these raises
`NotOnTapeError` (an AttributeError) naming it; every other name of the module is
scipy.stats' own.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.stats

from .. import functional as F
from .. import linalg, scipy_stats, special
from ._reexport import rest_of


class NotOnTapeError(AttributeError):
    """A method of a scipy.stats distribution the tape does not have."""


class Distribution:
    """One scipy.stats distribution's methods on the tape."""

    def __init__(self, name: str, **methods: Callable[..., Any]) -> None:
        self.name = name
        self.__dict__.update(methods)
        self._methods = sorted(methods)

    def __getattr__(self, method: str) -> Any:
        if method.startswith("__"):
            raise AttributeError(method)
        raise NotOnTapeError(
            f"scipy.stats.{self.name}.{method} is not on adlite's tape (it has "
            f"{', '.join(self._methods)} of {self.name}); call scipy's on arrays "
            "(tensor.detach().numpy()) where no gradient is needed")


def _exp(fn: Callable[..., Any]) -> Callable[..., Any]:
    return lambda *args, **kwargs: F.exp(fn(*args, **kwargs))


def _log(fn: Callable[..., Any]) -> Callable[..., Any]:
    return lambda *args, **kwargs: F.log(fn(*args, **kwargs))


def _continuous(name: str, logpdf: Callable[..., Any], cdf: Callable[..., Any],
                **more: Callable[..., Any]) -> Distribution:
    return Distribution(name, logpdf=logpdf, pdf=_exp(logpdf), cdf=cdf, logcdf=_log(cdf),
                        **more)


def _t_sf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return scipy_stats.t_cdf(-F.constant(x), df, -F.constant(loc), scale)


def _norm_entropy(loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return 0.5 * (math.log(2.0 * math.pi) + 1.0) + F.log(F.astype(F.constant(scale), np.float64))


def _single(allow_singular: bool) -> None:
    if allow_singular:
        raise NotImplementedError("multivariate_normal(allow_singular=True) is not supported "
                                  "on the tape: the covariance must be positive definite")


def _mvn_logpdf(x: Any, mean: Any = None, cov: Any = 1.0, allow_singular: bool = False) -> Any:
    _single(allow_singular)
    return special.multivariate_normal_logpdf(x, mean, cov)


def _mvn_entropy(mean: Any = None, cov: Any = 1.0, allow_singular: bool = False) -> Any:
    _single(allow_singular)
    cov = F.astype(F.constant(cov), np.float64)
    d = cov.shape[0] if cov.ndim else 1 if mean is None else int(np.size(F.constant(mean).data))
    if cov.ndim < 2:
        cov = cov * np.eye(d)
    return 0.5 * (d * (1.0 + math.log(2.0 * math.pi)) + linalg.slogdet(cov)[1])


norm = Distribution(
    "norm", pdf=special.norm_pdf, logpdf=special.norm_logpdf, cdf=special.norm_cdf,
    logcdf=special.norm_logcdf, sf=special.norm_sf, logsf=special.norm_logsf,
    ppf=special.norm_ppf, isf=special.norm_isf, entropy=_norm_entropy)
t = _continuous("t", scipy_stats.t_logpdf, scipy_stats.t_cdf, sf=_t_sf, logsf=_log(_t_sf))
chi2 = _continuous("chi2", scipy_stats.chi2_logpdf, scipy_stats.chi2_cdf)
gamma = _continuous("gamma", scipy_stats.gamma_logpdf, scipy_stats.gamma_cdf)
beta = _continuous("beta", scipy_stats.beta_logpdf, scipy_stats.beta_cdf)
poisson = Distribution("poisson", logpmf=scipy_stats.poisson_logpmf,
                       pmf=_exp(scipy_stats.poisson_logpmf), cdf=scipy_stats.poisson_cdf,
                       logcdf=_log(scipy_stats.poisson_cdf))
dirichlet = Distribution("dirichlet", logpdf=scipy_stats.dirichlet_logpdf,
                         pdf=_exp(scipy_stats.dirichlet_logpdf))
multivariate_normal = Distribution("multivariate_normal", logpdf=_mvn_logpdf,
                                   pdf=_exp(_mvn_logpdf), entropy=_mvn_entropy)

__getattr__ = rest_of(scipy.stats)
