"""Conversions of Tensors that require grad to numpy arrays: the error that names who converts.

numpy dispatches its functions and ufuncs to the tape (`numpy_protocol`), but building an
array (`np.array(...)`, `np.asarray(...)`, `np.r_[...]`, writing into a numpy array) has no
such hook: it can only give a numpy array, which cannot carry a gradient. Library code that
converts its arguments itself (`scipy.special.logsumexp`, `scipy.stats.norm.cdf`,
`scipy.signal.convolve`, ...) is the same. PyTorch raises there; so does the tape, saying
who converted, at which line of the caller, and what records instead.

Contract: `conversion_error(frame)` is the exception for converting a Tensor that requires
grad, `frame` being the Python frame that converts it (C code such as `np.array` has none: the
frame is its caller's). The frames of numpy and scipy (`LIBRARIES`) are walked outwards to
the first other one, the caller's: the outermost library frame is the function the caller
called, named as the caller wrote it (`scipy.stats.norm.cdf`, `np.r_[...]`), with the
tape's equivalent where there is one (`ON_THE_TAPE`: those of `adlite.runtime.scipy`, the same
call there). A `ConversionError` (a RuntimeError: PyTorch's type and message), except
for `scipy.integrate.odeint` (`FOREIGN`), which integrates in compiled code whatever `func`
returns: a TypeError saying to write the integration as steps.
"""

from __future__ import annotations

from types import FrameType

LIBRARIES = ("numpy", "scipy")

# (module, function) of a frame -> the public name, for the functions no tape can run
FOREIGN = {("scipy.integrate._odepack_py", "odeint"): "scipy.integrate.odeint"}

# names the caller wrote for library frames whose own names are internal
_PUBLIC = {("numpy.lib._index_tricks_impl", "AxisConcatenator.__getitem__"):
           "np.r_[...] / np.c_[...]"}

# the scipy functions `adlite.runtime.scipy` has (scipy's name there, scipy's arguments)
ON_THE_TAPE = (
    "special.logsumexp", "special.multigammaln", "special.polygamma", "signal.convolve",
    "linalg.solve_triangular", "linalg.cholesky", "linalg.cho_factor", "linalg.cho_solve",
    *(f"stats.{d}.{m}" for d, methods in [
        ("norm", "pdf logpdf cdf logcdf sf logsf ppf isf entropy"),
        ("t", "pdf logpdf cdf logcdf sf logsf"), ("chi2", "pdf logpdf cdf logcdf"),
        ("gamma", "pdf logpdf cdf logcdf"), ("beta", "pdf logpdf cdf logcdf"),
        ("poisson", "pmf logpmf cdf logcdf"), ("dirichlet", "pdf logpdf"),
        ("multivariate_normal", "pdf logpdf entropy")] for m in methods.split()))
EQUIVALENTS = {
    "np.r_[...] / np.c_[...]": "np.concatenate / np.hstack (np.r_) or np.column_stack (np.c_)",
    **{f"scipy.{name}": f"adlite.runtime.scipy.{name} (scipy's arguments; `from "
       f"adlite.runtime.scipy import {name.partition('.')[0]}`)" for name in ON_THE_TAPE},
}


class ConversionError(RuntimeError):
    """Converting a Tensor that requires grad to a numpy array (PyTorch's RuntimeError)."""


NUMPY_CONVERSION = ("np.array / np.asarray (of it or of a list holding it) or a write into a "
                    "numpy array")
NUMPY_EQUIVALENT = ("np.stack / np.concatenate / np.hstack / np.vstack of the tensors, and "
                    "writes into a tensor (np.zeros_like(t), adlite.runtime.zeros(n))")


def conversion_error(frame: FrameType | None) -> Exception:
    """The error for converting a Tensor that requires grad in `frame` (see the module)."""
    entry = caller = frame
    while caller is not None and _module(caller).partition(".")[0] in LIBRARIES:
        entry, caller = caller, caller.f_back
        foreign = FOREIGN.get((_module(entry), entry.f_code.co_name))
        if foreign is not None:
            return _foreign_error(foreign)
    if entry is caller:
        what, instead = NUMPY_CONVERSION, NUMPY_EQUIVALENT
    else:
        what = _public_name(entry)
        instead = EQUIVALENTS.get(what, "numpy functions and operators on the tensor, which "
                                  "the tape records")
    where = "" if caller is None else f" at {caller.f_code.co_filename}:{caller.f_lineno}"
    return ConversionError(
        f"Can't call numpy() on Tensor that requires grad: {what}{where} converts it to a "
        "numpy array, which cannot carry its gradient (PyTorch raises here too). On the "
        f"tape, use {instead}; "
        "or tensor.detach().numpy() to convert on purpose (no gradient).")


def _module(frame: FrameType) -> str:
    return frame.f_globals.get("__name__") or ""


def _public_name(frame: FrameType) -> str:
    """The name the caller wrote for the library function running in `frame`: a method of a
    scipy.stats distribution as `scipy.stats.<distribution>.<method>`, a function as its
    module's public package and its name."""
    module, qualname = _module(frame), frame.f_code.co_qualname
    if (module, qualname) in _PUBLIC:
        return _PUBLIC[module, qualname]
    owner = frame.f_locals.get("self")
    if module.startswith("scipy.stats.") and owner is not None:
        dist = getattr(owner, "dist", owner)  # a frozen distribution's
        name = getattr(dist, "name", None) or type(dist).__name__.removesuffix("_gen")
        return f"scipy.stats.{name}.{frame.f_code.co_name}"
    public = []
    for part in module.split("."):
        if part.startswith("_"):
            break
        public.append(part)
    return ".".join(public + [qualname])


def _foreign_error(name: str) -> TypeError:
    return TypeError(f"{name} cannot take adlite Tensors that require grad: it integrates "
                     "plain arrays in compiled code, so no gradient can flow through it "
                     "(y0, t, the values func returns and Tensors in args included). "
                     "Write the integration as a loop of steps (Euler, Runge-Kutta) and "
                     "differentiate it with adlite's compiled `grad` (or on the tape), or "
                     "pass plain arrays (`x.detach().numpy()`) where no gradient is needed")
