"""One case through adlite, each mode classified against autograd (the reference) with central
differences as the cross-check.

Modes (`MODES`), on `case_entry`/`case_scalar` of `rewrite` (the case's function with numpy):

- `jit`: `jit(case_entry)(*xs)` against the entry run by Python on numpy arrays.
- `grad`: `grad(case_scalar, wrt=...)(*xs)` (reverse mode; the result contracted with random
  cotangents `u` unless it is one number) against autograd's `grad` of the same contraction
  of the original (autograd) function.
- `jvp`: `jvp(case_entry, xs, v)` (forward mode, random tangents `v`) against autograd's
  `make_jvp`, or central differences where autograd has no forward mode for the function.
- `hessian` (only where autograd checks order 2, and each differentiated argument is one
  number or array): `hessian(case_scalar, wrt=...)` applied to `v`, against autograd's
  reverse-over-reverse Hessian-vector product.
- `tape`: the entry run by Python on `adlite.runtime` Tensors that require grad, the
  contraction's `.backward()`, the leaves' `.grad` against the `grad` reference. The entry
  calls the case's function rewritten for the tape (`Rewriter(tape=True)`: autograd's scipy
  as `adlite.runtime.scipy`, its `grad` as `adlite.runtime.transforms.grad`).

A mode passes when it agrees with autograd (relative to the reference's largest magnitude,
`RTOL`), or, where autograd fails or disagrees, with central differences of the numpy
function (`FD_RTOL`; for derivatives along `v`, or the quadratic form `v.Hv` where only
differences are left): otherwise it is `wrong`. An exception is `refused` when adlite raised
it on purpose: an adlite exception class (`AdliteError`, a warning of adlite's turned into an
error), or a TypeError/ValueError/NotImplementedError raised by adlite's own code (the
innermost frame is in the adlite package; `ADLITE_TRACEBACK=full` keeps that frame, which
adlite otherwise hides); any other exception is a `crash`. Cases whose
arguments or result are complex run in every mode but `hessian` (`skip`: a second derivative
of a function of complex numbers is taken of holomorphic functions only, as in JAX): their
scalar is the real part of the contraction, the directions `v` of complex arguments are
complex; the compiler's gradients are in JAX's convention, which is autograd's, and the
tape's (PyTorch's, the conjugate) are conjugated before the comparison. Cases whose value
neither numpy nor autograd can compute are `skip` in every mode. A case is `n/a` (in every
mode) when it calls autograd's own API, which numpy and scipy do not have (`NotNumpy`): its
function, run by Python with numpy and scipy, fails looking up a name numpy/scipy lack
(`np.linalg._dot`, `np.make_diagonal`) or passing a keyword their function does not take
(`scipy.signal.convolve(..., axes=...)`, autograd's generalised convolution), while autograd
runs it. No numpy program is there to compile: the case measures autograd's extensions.
A result is `n/a` too when the exception is raised inside autograd's own code (the case hands
adlite's values, such as the tape's Tensors, to an autograd object the rewrite cannot
replace: a function autograd's `value_and_grad` made before the case, `autograd.misc.flatten`).
"""

from __future__ import annotations

import ast
import copy
import os
import sys
import traceback
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tests.corpus.real_programs.checks import captured_stdout, leaves_like, tree_map

from .collect import Case
from .rewrite import Rewriter, leaf_paths, tree_leaves, write_entry

MODES = ("jit", "grad", "jvp", "hessian", "tape")
STATUSES = ("pass", "wrong", "refused", "crash", "skip", "n/a")
RTOL = 1e-6
FD_RTOL = 1e-5
FD_STEP = 1e-6
SECOND_STEP = 1e-4


@dataclass(frozen=True)
class Result:
    mode: str
    status: str
    message: str = ""


def planned_modes(case: Case) -> tuple[str, ...]:
    """The modes a case is run in (`hessian` only where autograd checks order 2)."""
    return tuple(m for m in MODES if m != "hessian" or case.order >= 2)


def _package_dirs() -> tuple[str, ...]:
    import adlite.compiler
    import adlite.derivatives
    import adlite.runtime
    return tuple(os.path.dirname(m.__file__) + os.sep
                 for m in (adlite.compiler, adlite.derivatives, adlite.runtime))


def _autograd_dir() -> str | None:
    autograd = sys.modules.get("autograd")
    return os.path.dirname(autograd.__file__) + os.sep if autograd is not None else None


def classify_error(error: BaseException) -> str:
    """'refused' (adlite's own, deliberate error), 'n/a' (raised inside autograd's own code:
    the case handed adlite's values to autograd's API, which the rewrite could not replace,
    such as a function autograd's `value_and_grad` made outside the case) or 'crash' (see
    the module's docstring)."""
    from adlite.compiler import AdliteError
    if isinstance(error, AdliteError) or type(error).__module__.startswith("adlite"):
        return "refused"
    frames = traceback.extract_tb(error.__traceback__)
    if isinstance(error, TypeError | ValueError | NotImplementedError):
        if frames and frames[-1].filename.startswith(_package_dirs()):
            return "refused"
    autograd = _autograd_dir()
    if autograd and frames and frames[-1].filename.startswith(autograd):
        return "n/a"
    return "crash"


class NotNumpy(Exception):
    """The case calls autograd's own API (see the module's docstring)."""


_LIBRARIES = ("numpy", "scipy")


def autograd_only(error: Exception) -> bool:
    """Whether `error`, raised by the rewritten function where autograd's original runs, is
    numpy/scipy lacking what autograd has: a missing attribute of one of their modules, or a
    keyword argument a function does not take (the two functions differ only in the
    numpy/scipy functions the rewrite put in place of autograd's, so the call is one of those)."""
    if isinstance(error, AttributeError):
        owner = getattr(error, "obj", None)
        return isinstance(owner, types.ModuleType) and owner.__name__.split(".")[0] in _LIBRARIES
    return isinstance(error, TypeError) and "got an unexpected keyword argument" in str(error)


def first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"


def leaves(tree: Any) -> list[np.ndarray]:
    """The leaves of a result (tuples, lists, dicts in order), as float arrays."""
    if isinstance(tree, dict):
        return [x for v in tree.values() for x in leaves(v)]
    if isinstance(tree, tuple | list):
        return [x for v in tree for x in leaves(v)]
    return [np.asarray(getattr(tree, "data", tree))]


def mismatch(got: list[np.ndarray], want: list[np.ndarray]) -> float:
    """max |got - want| / max |want| (its finite entries) over the leaves: inf where shapes
    or counts differ, or where only one side is NaN; NaN on both sides counts as agreement."""
    if len(got) != len(want):
        return float("inf")
    worst = 0.0
    for g, w in zip(got, want, strict=True):
        kind = complex if np.iscomplexobj(g) or np.iscomplexobj(w) else float
        g, w = np.asarray(g, dtype=kind), np.asarray(w, dtype=kind)
        if g.shape != w.shape:
            return float("inf")
        both_nan = np.isnan(g) & np.isnan(w)
        diff = np.where(both_nan, 0.0, np.abs(g - w))
        scale = max(float(np.max(np.abs(np.where(np.isfinite(w), w, 0.0)), initial=0.0)), 1e-8)
        worst = max(worst, float(np.max(diff, initial=0.0)) / scale)
    return float("inf") if np.isnan(worst) else worst


def _leaves_like(reference: Any, tree: Any) -> list[np.ndarray]:
    """`leaves_like` (float leaves), complex leaves kept complex."""
    if not any(np.iscomplexobj(getattr(leaf, "data", leaf)) for leaf in tree_leaves(tree)):
        return leaves_like(reference, tree)
    parts = [leaves_like(reference, tree_map(lambda a, part=part: part(getattr(a, "data", a)),
                                             tree)) for part in (np.real, np.imag)]
    return [re + 1j * im for re, im in zip(*parts, strict=True)]


def _direction(rng: np.random.Generator, a: Any) -> np.ndarray:
    """A random direction at `a` (complex for a complex `a`: real and imaginary parts)."""
    d = rng.standard_normal(np.shape(a))
    return d + 1j * rng.standard_normal(np.shape(a)) if np.iscomplexobj(a) else d


def _dot(a: list[np.ndarray], b: list[np.ndarray]) -> float:
    return sum(float(np.sum(np.asarray(x, float) * y)) for x, y in zip(a, b, strict=True))


def _moved(xs: tuple, v: tuple, step: float) -> tuple:
    return tuple(tree_map(lambda a, d: a + step * d, x, d) for x, d in zip(xs, v, strict=True))


class Checker:
    """The references of one case, computed when first needed."""

    def __init__(self, case: Case, tests: Path, entries: Path, number: int) -> None:
        self.case, self.tests, self.entries, self.number = case, tests, entries, number
        self.xs = tuple(case.args[i] for i in case.argnums)
        self.fun = Rewriter(tests).to_numpy(case.fun)
        rng = np.random.default_rng(number)
        self.output = self.numpy_value()
        self.complex_result = any(np.iscomplexobj(leaf) for leaf in leaves(self.output))
        self.u = [rng.standard_normal(np.shape(leaf)) for leaf in leaves(self.output)]
        if leaf_paths(self.output) == [""] and np.ndim(self.output) == 0:
            self.u = [1.0]  # case_scalar is the entry itself
        self.v = tuple(tree_map(lambda a: _direction(rng, a), x) for x in self.xs)
        self.v_leaves = [leaf for x, d in zip(self.xs, self.v, strict=True)
                         for leaf in _leaves_like(x, d)]
        self.namespace = write_entry(case, self.fun, entries, number, self.output, self.u)
        self.entry, self.scalar = self.namespace["case_entry"], self.namespace["case_scalar"]
        self.positions = tuple(range(len(self.xs)))
        self.wrt = 0 if len(self.xs) == 1 else self.positions

    def args(self) -> tuple:
        return copy.deepcopy(self.xs)

    def numpy_value(self) -> Any:
        """The function's value run by Python on numpy arrays; where the rewritten function
        cannot run (adlite's `grad` in its body refusing), the original function's (the modes
        then fail as adlite does); `NotNumpy` where it calls autograd's own API."""
        with warnings.catch_warnings(), captured_stdout():
            warnings.simplefilter("ignore")
            try:
                return self.fun(*copy.deepcopy(self.case.args), **self.case.kwargs)
            except Exception as error:  # noqa: BLE001
                try:
                    value = self.case.fun(*copy.deepcopy(self.case.args), **self.case.kwargs)
                except Exception:  # noqa: BLE001
                    raise error from None
                if autograd_only(error):
                    raise NotNumpy(first_line(error)) from None
                return value

    def autograd_fun(self) -> Callable[..., Any]:
        case = self.case

        def entry(*xs: Any) -> Any:
            args = list(case.args)
            for i, x in zip(case.argnums, xs, strict=True):
                args[i] = x
            return case.fun(*args, **case.kwargs)
        return entry

    def autograd_scalar(self) -> Callable[..., Any]:
        """The contraction `case_scalar` computes (`rewrite.entry_source`), with autograd."""
        import autograd.numpy as anp
        entry, paths, u = self.autograd_fun(), leaf_paths(self.output), self.u
        one = paths == [""] and np.ndim(self.output) == 0
        real = anp.real if self.complex_result else (lambda value: value)

        def scalar(*xs: Any) -> Any:
            out = entry(*xs)
            if one:
                return real(out)
            total = 0.0
            for path, ui in zip(paths, u, strict=True):
                leaf = out
                for key in _keys(path):
                    leaf = leaf[key]
                total = total + anp.sum(real(leaf * ui))
            return total
        return scalar

    def flat(self, grads: tuple) -> list[np.ndarray]:
        return [leaf for x, g in zip(self.xs, grads, strict=True) for leaf in _leaves_like(x, g)]

    @staticmethod
    def quietly(compute: Callable[[], Any]) -> Any:
        """`compute()` with warnings and printing silenced; None where it raises (a reference
        that cannot be computed is missing, not an error of adlite's)."""
        try:
            with warnings.catch_warnings(), captured_stdout():
                warnings.simplefilter("ignore")
                return compute()
        except Exception:  # noqa: BLE001
            return None

    def scalar_np(self, xs: tuple) -> float:
        return float(self.scalar(*copy.deepcopy(xs)))

    def autograd_gradient(self, xs: tuple) -> list[np.ndarray]:
        from autograd import grad
        return self.flat(tuple(grad(self.autograd_scalar(), self.positions)(*xs)))

    def reverse_reference(self) -> list[np.ndarray] | None:
        return self.quietly(lambda: self.autograd_gradient(self.args()))

    def directional_difference(self) -> float | None:
        def compute() -> float:
            hi = self.scalar_np(_moved(self.xs, self.v, FD_STEP))
            lo = self.scalar_np(_moved(self.xs, self.v, -FD_STEP))
            return (hi - lo) / (2 * FD_STEP)
        return self.quietly(compute)

    def judge_reverse(self, got: list[np.ndarray]) -> Result:
        want = self.reverse_reference()
        if want is not None and mismatch(got, want) <= RTOL:
            return Result("", "pass")
        fd = self.directional_difference()
        if fd is not None and len(got) == len(self.v_leaves) and all(
                np.shape(g) == d.shape for g, d in zip(got, self.v_leaves, strict=True)):
            terms = [np.real(np.asarray(g) * d) for g, d in zip(got, self.v_leaves, strict=True)]
            scale = max(sum(float(np.sum(np.abs(t))) for t in terms), abs(fd), 1e-12)
            if abs(sum(float(np.sum(t)) for t in terms) - fd) <= FD_RTOL * scale:
                return Result("", "pass", _agreement(want))
        return Result("", "wrong", f"reverse mode differs from {_reference(want)}")

    def forward_reference(self) -> list[np.ndarray] | None:
        def compute() -> list[np.ndarray]:
            from autograd import make_jvp
            f = self.autograd_fun()
            _, tangent = make_jvp(lambda xs: f(*xs), 0)(tuple(self.args()))(tuple(self.v))
            return leaves(tangent)
        return self.quietly(compute)

    def forward_difference(self) -> list[np.ndarray] | None:
        def at(step: float) -> list[np.ndarray]:
            xs = _moved(self.xs, self.v, step)
            return [np.asarray(x, complex if np.iscomplexobj(x) else float)
                    for x in leaves(self.entry(*xs))]
        return self.quietly(lambda: [(h - lo) / (2 * FD_STEP) for h, lo in zip(
            at(FD_STEP), at(-FD_STEP), strict=True)])

    def judge_forward(self, got: list[np.ndarray]) -> Result:
        want = self.forward_reference()
        if want is not None and mismatch(got, want) <= RTOL:
            return Result("", "pass")
        fd = self.forward_difference()
        if fd is not None and mismatch(got, fd) <= FD_RTOL:
            return Result("", "pass", _agreement(want))
        return Result("", "wrong", f"forward mode differs from {_reference(want)}")

    def hessian_reference(self) -> list[np.ndarray] | None:
        """autograd's reverse-over-reverse Hessian-vector product."""
        def compute() -> list[np.ndarray]:
            from autograd import grad
            from autograd.numpy import sum as np_sum
            g, v = grad(self.autograd_scalar(), self.positions), self.v

            def along(*xs: Any) -> Any:
                return sum(np_sum(gi * vi) for gi, vi in zip(g(*xs), v, strict=True))
            return self.flat(tuple(grad(along, self.positions)(*self.args())))
        return self.quietly(compute)

    def judge_hessian(self, hv: list[np.ndarray]) -> Result:
        want = self.hessian_reference()
        if want is not None and mismatch(hv, want) <= RTOL:
            return Result("", "pass")
        hi, lo = (self.quietly(lambda step=step: self.autograd_gradient(
            _moved(self.xs, self.v, step))) for step in (FD_STEP, -FD_STEP))
        if hi is not None and lo is not None:
            fd = [(a - b) / (2 * FD_STEP) for a, b in zip(hi, lo, strict=True)]
            if mismatch(hv, fd) <= FD_RTOL:
                return Result("", "pass", _agreement(want))
        else:  # no autograd gradient: the quadratic form v.Hv by second differences decides
            s = [self.quietly(lambda step=step: self.scalar_np(_moved(self.xs, self.v, step)))
                 for step in (SECOND_STEP, 0.0, -SECOND_STEP)]
            if None not in s:
                quadratic = (s[0] - 2 * s[1] + s[2]) / SECOND_STEP ** 2
                if abs(_dot(hv, self.v_leaves) - quadratic) <= 1e-3 * max(abs(quadratic), 1):
                    return Result("", "pass", _agreement(want))
        return Result("", "wrong", f"Hessian-vector product differs from {_reference(want)}")

    # the modes

    def jit(self) -> Result:
        from adlite.compiler import jit
        with captured_stdout():
            got = jit(self.entry)(*self.args())
        if mismatch(leaves(got), leaves(self.output)) <= RTOL:
            return Result("jit", "pass")
        return Result("jit", "wrong", "value differs from numpy")

    def grad(self) -> Result:
        from adlite.compiler import grad
        with captured_stdout():
            got = grad(self.scalar, wrt=self.wrt)(*self.args())
        return _named("grad", self.judge_reverse(self.flat((got,) if self.wrt == 0 else got)))

    def jvp(self) -> Result:
        from adlite.compiler import jvp
        with captured_stdout():
            _, tangent = jvp(self.entry, self.args(), copy.deepcopy(self.v_leaves))
        return _named("jvp", self.judge_forward(leaves(tangent)))

    def hessian(self) -> Result:
        from adlite.compiler import hessian
        with captured_stdout():
            h = hessian(self.scalar, wrt=self.wrt)(*self.args())
        blocks = ((h,),) if self.wrt == 0 else h
        v = [np.asarray(d, float) for d in self.v]
        hv = [sum(np.tensordot(np.asarray(blocks[i][j], float), v[j], axes=v[j].ndim)
                  for j in range(len(v))) for i in range(len(v))]
        return _named("hessian", self.judge_hessian(hv))

    def tape(self) -> Result:
        from adlite.runtime import NumberConversionWarning, Tensor
        tensors = tuple(tree_map(lambda a: Tensor(np.asarray(a) if np.iscomplexobj(a) else
                                                  np.asarray(a, dtype=float),
                                                  requires_grad=True), x) for x in self.xs)
        entry = write_entry(self.case, Rewriter(self.tests, tape=True).to_numpy(self.case.fun),
                            self.entries / "tape", self.number, self.output, self.u)["case_entry"]
        with warnings.catch_warnings(), captured_stdout():
            warnings.simplefilter("error", NumberConversionWarning)
            out = entry(*tensors)
            total = None
            for leaf, u in zip(tree_leaves(out), self.u, strict=True):
                if isinstance(leaf, Tensor):
                    term = (np.real(leaf * u) if self.complex_result else leaf * u).sum()
                    total = term if total is None else total + term
            if total is not None and total.requires_grad:
                total.backward()
        # autograd's convention: the conjugates of the tape's (PyTorch's) complex gradients
        grads = tuple(tree_map(lambda t: np.zeros(t.shape) if t.grad is None else
                               np.conj(t.grad.data), t) for t in tensors)
        return _named("tape", self.judge_reverse(self.flat(grads)))


def _keys(path: str) -> list[Any]:
    return [ast.literal_eval(part) for part in path.strip("[]").split("][")] if path else []


def _agreement(want: list[np.ndarray] | None) -> str:
    return "agrees with differences; autograd " + ("fails" if want is None else "differs")


def _reference(want: list[np.ndarray] | None) -> str:
    return "differences (autograd fails)" if want is None else "autograd and differences"


def _named(mode: str, result: Result) -> Result:
    return Result(mode, result.status, result.message)


def run_case(case: Case, tests: Path, entries: Path, number: int,
             report: Callable[[Result], None]) -> None:
    """Runs `case` in each planned mode, calling `report` with each mode's result as soon as
    it is known (a hessian of container arguments is not run and not reported)."""
    modes = planned_modes(case)
    try:
        checker = Checker(case, tests, entries, number)
    except NotNumpy as error:
        for mode in modes:
            report(Result(mode, "n/a", f"autograd's own API: {error}"))
        return
    except Exception as error:  # noqa: BLE001
        for mode in modes:
            report(Result(mode, "skip", f"no reference: {first_line(error)}"))
        return
    complex_numbers = "complex arguments" if case.is_complex else \
        "complex result" if checker.complex_result else None
    for mode in modes:
        if complex_numbers and mode == "hessian":  # of a function of complex numbers: JAX
            report(Result(mode, "skip", complex_numbers))  # and adlite take holomorphic ones
            continue
        if mode == "hessian" and not all(isinstance(x, float | np.ndarray | np.floating)
                                         for x in checker.xs):
            continue
        try:
            report(getattr(checker, mode)())
        except BaseException as error:  # noqa: BLE001  (classified and reported)
            if isinstance(error, KeyboardInterrupt):
                raise
            status = classify_error(error) if isinstance(error, Exception) else "crash"
            own = "autograd's own code raised: " if status == "n/a" else ""
            report(Result(mode, status, own + first_line(error)))

