"""Runs one program of the corpus four ways and keeps what each gave (cached per program).

- `plain`: the program in Python, called as the user calls it (arguments deep-copied, so a
  program that writes into its inputs cannot change the next run), and what it printed.
- `compiled`: `adlite.compiler.jit(entry)(*args, **kwargs)` (and what it printed) and
  `grad(entry, wrt=wrt)(*args, **kwargs)`, the natural call; any exception is kept.
- `finite_difference_error`: the largest mismatch between the gradient's directional
  derivative and central differences along random directions (each leaf's direction scaled
  by its magnitude), relative to the size of the terms.
- `tape_gradient`: the gradient by the eager tape (differentiated leaves as `Tensor`s with
  `requires_grad`, the program run unchanged, `backward()`); a `NumberConversionWarning`
  (a gradient silently cut) counts as a failure.
Differentiated arguments are floats, float arrays, or tuples/lists/dicts of them; gradients
are compared leaf by leaf following the argument's structure.
"""

from __future__ import annotations

import contextlib
import copy
import ctypes
import functools
import io
import os
import sys
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from adlite.compiler import AdliteSyntaxError, grad, jit
from adlite.runtime import NumberConversionWarning, Tensor

from . import Case, load

VALUE_RTOL = 1e-10
FD_RTOL = 1e-5
FD_STEP = 1e-6
TAPE_RTOL = 1e-8


@dataclass
class Compiled:
    value: Any = None
    printed: str = ""
    value_error: Exception | None = None
    gradient: Any = None
    gradient_error: Exception | None = None

    @property
    def error(self) -> Exception | None:
        return self.value_error or self.gradient_error


class Printed:
    text = ""


@contextlib.contextmanager
def captured_stdout():
    """What is printed inside the block, by Python or by native code (file descriptor 1)."""
    captured, buffer = Printed(), io.StringIO()
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 1)
        try:
            with contextlib.redirect_stdout(buffer):
                yield captured
        finally:
            ctypes.CDLL(None).fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            captured.text = buffer.getvalue() + tmp.read().decode()


def tree_map(fn: Callable[..., Any], tree: Any, *others: Any) -> Any:
    """`tree` with every leaf replaced by `fn(leaf, *the same leaf of others)` (tuples, lists
    and dicts are containers; `others` have the structure of `tree`)."""
    if isinstance(tree, dict):
        return {k: tree_map(fn, v, *(o[k] for o in others)) for k, v in tree.items()}
    if isinstance(tree, tuple | list):
        return type(tree)(tree_map(fn, *parts) for parts in zip(tree, *others, strict=True))
    return fn(tree, *others)


def leaves_like(reference: Any, tree: Any) -> list[np.ndarray]:
    """The leaves of `tree`, visited in the order and structure of `reference`."""
    if isinstance(reference, dict):
        return [x for k in reference for x in leaves_like(reference[k], tree[k])]
    if isinstance(reference, tuple | list):
        if len(tree) != len(reference):
            raise AssertionError(f"gradient has {len(tree)} entries, argument {len(reference)}")
        return [x for r, t in zip(reference, tree, strict=True) for x in leaves_like(r, t)]
    leaf = np.asarray(tree.data if isinstance(tree, Tensor) else tree, dtype=float)
    if leaf.shape != np.shape(reference):
        raise AssertionError(f"gradient leaf of shape {leaf.shape} for an argument of shape "
                             f"{np.shape(reference)}")
    return [leaf]


def wrt_positions(case: Case) -> tuple[int, ...]:
    return (case.wrt,) if isinstance(case.wrt, int) else tuple(case.wrt)


def gradient_parts(case: Case, gradient: Any) -> tuple:
    """The gradient as one entry per differentiated argument."""
    return (gradient,) if isinstance(case.wrt, int) else tuple(gradient)


def run_with(case: Case, replaced: dict[int, Any]) -> Any:
    """`entry(*args, **kwargs)` on copies of the arguments, positions in `replaced` swapped."""
    args = [replaced.get(i, a) for i, a in enumerate(copy.deepcopy(case.args))]
    return case.entry(*args, **copy.deepcopy(case.kwargs))


class Program:
    """One program: its case, and the results of running it each way (computed once);
    `shapes` is the option of its `jit` and `grad` (their transformations are kept in
    `transformed` once compiled)."""

    def __init__(self, name: str, shapes: str = "static") -> None:
        self.name, self.shapes = name, shapes
        self.transformed: tuple = ()
        self.module = load(name)
        self.case: Case = self.module.CASE
        self.file = Path(self.module.__file__).name

    @functools.cached_property
    def plain_run(self) -> tuple[Any, str]:
        with captured_stdout() as printed:
            value = run_with(self.case, {})
        return value, printed.text

    @property
    def plain(self) -> Any:
        return self.plain_run[0]

    @functools.cached_property
    def compiled(self) -> Compiled:
        case, result = self.case, Compiled()
        compiled = jit(case.entry, shapes=self.shapes)
        gradient = grad(case.entry, wrt=case.wrt, shapes=self.shapes)
        self.transformed = (compiled, gradient)
        try:
            with captured_stdout() as printed:
                result.value = compiled(*copy.deepcopy(case.args), **copy.deepcopy(case.kwargs))
            result.printed = printed.text
        except Exception as error:  # noqa: BLE001  (kept and reported)
            result.value_error = error
        try:
            with captured_stdout():  # what grad prints is not checked
                result.gradient = gradient(*copy.deepcopy(case.args),
                                           **copy.deepcopy(case.kwargs))
        except Exception as error:  # noqa: BLE001
            result.gradient_error = error
        return result

    def is_clear_refusal(self, error: Exception) -> bool:
        """adlite refused the program naming what the user wrote: an AdliteSyntaxError at a
        line of the program's file, or a TypeError whose message names that file."""
        if isinstance(error, AdliteSyntaxError):
            return Path(error.filename).name == self.file and error.line > 0
        return isinstance(error, TypeError) and self.file in str(error)

    def gradient_leaves(self) -> list[np.ndarray]:
        parts = gradient_parts(self.case, self.compiled.gradient)
        return [x for i, part in zip(wrt_positions(self.case), parts, strict=True)
                for x in leaves_like(self.case.args[i], part)]

    def finite_difference_error(self, directions: int = 2, seed: int = 0) -> float:
        """max over random directions of |grad . v - central difference| / sum |grad * v|."""
        rng = np.random.default_rng(seed)
        positions = wrt_positions(self.case)
        analytic_leaves = self.gradient_leaves()
        worst = 0.0
        for _ in range(directions):
            v = {i: tree_map(lambda a: rng.standard_normal(np.shape(a)) * np.maximum(
                1.0, np.abs(a)), self.case.args[i]) for i in positions}
            v_leaves = [leaf for i in positions for leaf in leaves_like(v[i], v[i])]
            with captured_stdout():
                hi, lo = (run_with(self.case, self.moved(v, step))
                          for step in (FD_STEP, -FD_STEP))
            numeric = (float(hi) - float(lo)) / (2 * FD_STEP)
            terms = [g * d for g, d in zip(analytic_leaves, v_leaves, strict=True)]
            analytic = sum(float(np.sum(t)) for t in terms)
            scale = sum(float(np.sum(np.abs(t))) for t in terms) + 1e-12
            worst = max(worst, abs(analytic - numeric) / scale)
        return worst

    def moved(self, direction: dict[int, Any], step: float) -> dict[int, Any]:
        """The differentiated arguments moved by `step` along `direction`."""
        return {i: tree_map(lambda a, d: a + step * d, self.case.args[i], direction[i])
                for i in direction}

    def tape_gradient(self) -> list[np.ndarray]:
        """The gradient leaves by the eager tape (raises where the tape cannot run it)."""
        positions = wrt_positions(self.case)
        tensors = {i: tree_map(lambda x: Tensor(np.asarray(x, dtype=float),
                                                requires_grad=True), self.case.args[i])
                   for i in positions}
        with warnings.catch_warnings(), captured_stdout():
            warnings.simplefilter("error", NumberConversionWarning)
            out = run_with(self.case, tensors)
        if not isinstance(out, Tensor):
            raise TypeError(f"the program returned {type(out).__name__}, not a Tensor")
        out.backward()
        grads = [tree_map(lambda t: np.zeros(t.shape) if t.grad is None else t.grad.data,
                          tensors[i]) for i in positions]
        return [x for i, g in zip(positions, grads, strict=True)
                for x in leaves_like(self.case.args[i], g)]



@functools.cache
def program(name: str, shapes: str = "static") -> Program:
    return Program(name, shapes)
