"""Cases from autograd's test modules: each module is imported, and each of its test
functions run, with `autograd.test_util.check_grads`, `autograd.test_util.combo_check` and
`autograd.grad` replaced by recording shims (installed before the modules import them).

- `check_grads(fun, argnum, modes=..., order=...)(*args, **kwargs)` records one `Case`.
- `combo_check(fun, argnum, ...)(*arg_lists, **kwarg_lists)` records one `Case` per
  combination, in autograd's order (`itertools.product`).
- `grad(fun, argnum)(*args, **kwargs)` called outside another `grad` call (and not on
  autograd's boxes) records a reverse-mode, first-order `Case` and then returns autograd's
  gradient, so a test that goes on to use it still runs.

Each file is collected with numpy's global random state seeded (0) before its import, its
test functions run in definition order (pytest's `parametrize` marks expanded in order):
the same suite gives the same cases, in the same order, on every run. A test function that
raises while being recorded (autograd's asserts on what a shim returned, `pytest.raises`)
keeps the cases recorded before; its error is kept in `Collection.errors`.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np


@dataclass
class Case:
    """One call of autograd's checkers: `fun(*args, **kwargs)` differentiated w.r.t. the
    positional arguments `argnums`, in autograd's `modes` ('fwd', 'rev') to `order`."""

    file: str
    test: str
    index: int
    fun: Callable[..., Any]
    args: tuple
    kwargs: dict[str, Any]
    argnums: tuple[int, ...]
    modes: tuple[str, ...]
    order: int
    source: str

    @property
    def name(self) -> str:
        return f"{self.file}::{self.test}#{self.index}"

    @property
    def is_complex(self) -> bool:
        """Whether any argument holds complex numbers (only the tape has them yet)."""
        return any(np.iscomplexobj(leaf) for leaf in _leaves((self.args, self.kwargs)))


@dataclass
class Collection:
    cases: list[Case] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)  # test -> first line of its error


def _leaves(tree: Any) -> Iterator[Any]:
    if isinstance(tree, dict):
        for value in tree.values():
            yield from _leaves(value)
    elif isinstance(tree, tuple | list):
        for value in tree:
            yield from _leaves(value)
    else:
        yield tree


def _argnums(argnum: int | tuple | list) -> tuple[int, ...]:
    return (argnum,) if isinstance(argnum, int) else tuple(argnum)


class Recorder:
    """The shims; `where` is the (file, test) being run, `cases` what they recorded."""

    def __init__(self) -> None:
        self.cases: list[Case] = []
        self.where = ("", "")
        self.tracing = 0  # grad calls under way: the calls they make are not recorded

    def record(self, fun: Callable, args: tuple, kwargs: dict, argnum: int | tuple,
               modes: Any, order: int, source: str) -> None:
        file, test = self.where
        index = sum(1 for c in self.cases if (c.file, c.test) == self.where)
        self.cases.append(Case(file, test, index, fun, tuple(args), dict(kwargs),
                               _argnums(argnum), tuple(modes), int(order), source))

    def check_grads(self, fun: Callable, argnum: int | tuple = 0,
                    modes: Any = ("fwd", "rev"), order: int = 2) -> Callable[..., None]:
        def call(*args: Any, **kwargs: Any) -> None:
            self.record(fun, args, kwargs, argnum, modes, order, "check_grads")
        return call

    def combo_check(self, fun: Callable, argnum: int | tuple = 0,
                    modes: Any = ("fwd", "rev"), order: int = 2) -> Callable[..., None]:
        def call(*arg_lists: Any, **kwarg_lists: Any) -> None:
            choices = [[(k, v) for v in values] for k, values in kwarg_lists.items()]
            for args in itertools.product(*arg_lists):
                for kwargs in itertools.product(*choices):
                    self.record(fun, args, dict(kwargs), argnum, modes, order, "combo_check")
        return call

    def grad(self, real_grad: Callable) -> Callable[..., Callable]:
        from autograd.tracer import Box

        def grad(fun: Callable, argnum: int | tuple = 0) -> Callable:
            def call(*args: Any, **kwargs: Any) -> Any:
                outermost = self.tracing == 0
                if outermost and not any(isinstance(x, Box) for x in _leaves((args, kwargs))):
                    self.record(fun, args, kwargs, argnum, ("rev",), 1, "grad")
                self.tracing += 1
                try:
                    return real_grad(fun, argnum)(*args, **kwargs)
                finally:
                    self.tracing -= 1
            call.grad_of = (fun, argnum)  # type: ignore[attr-defined]  (rewrite.Rewriter)
            return call
        grad.stands_for = "grad"  # type: ignore[attr-defined]  (see rewrite.Rewriter)
        return grad


@contextlib.contextmanager
def shims_installed(recorder: Recorder, tests: Path) -> Iterator[None]:
    """autograd's checkers replaced by the recorder's, the tests folder importable."""
    import autograd
    import autograd.test_util as test_util

    saved = (test_util.check_grads, test_util.combo_check, autograd.grad)
    test_util.check_grads, test_util.combo_check = recorder.check_grads, recorder.combo_check
    autograd.grad = recorder.grad(saved[2])
    sys.path.insert(0, str(tests))
    try:
        yield
    finally:
        sys.path.remove(str(tests))
        test_util.check_grads, test_util.combo_check, autograd.grad = saved


def parametrized(test: Callable) -> list[tuple[str, dict[str, Any]]]:
    """(suffix, keyword arguments) of each call pytest's `parametrize` marks ask for."""
    axes = []
    for mark in reversed(getattr(test, "pytestmark", [])):
        if mark.name != "parametrize":
            continue
        names, values = mark.args[0], mark.args[1]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else names
        rows = [v if len(names) > 1 else (v,) for v in values]
        axes.append([dict(zip(names, row, strict=True)) for row in rows])
    calls = []
    for combination in itertools.product(*axes):
        params = {k: v for part in combination for k, v in part.items()}
        suffix = "-".join(f"{k}={v}" for k, v in params.items())
        calls.append((f"[{suffix}]" if suffix else "", params))
    return calls


def test_functions(module: Any) -> list[tuple[str, Callable]]:
    """The module's `test_*` functions, in definition order."""
    return [(name, value) for name, value in vars(module).items()
            if name.startswith("test_") and callable(value)
            and getattr(value, "__module__", None) == module.__name__]


def collect_file(path: Path, recorder: Recorder, collection: Collection) -> None:
    """Imports `path` (a module of the tests folder on sys.path) and runs its tests."""
    np.random.seed(0)
    module = importlib.import_module(path.stem)
    for name, test in test_functions(module):
        for suffix, params in parametrized(test):
            recorder.where = (path.name, name + suffix)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    test(**params)
            except KeyboardInterrupt:
                raise
            except BaseException as error:  # noqa: BLE001  (pytest's Failed is no Exception)
                first = (str(error).splitlines() or [""])[0]
                collection.errors[f"{path.name}::{name}{suffix}"] = \
                    f"{type(error).__name__}: {first}"


def collect(tests: Path, files: list[str] | None = None) -> Collection:
    """Every case of the `test_*.py` files of `tests` (or of `files`, names), sorted by file."""
    recorder, collection = Recorder(), Collection()
    paths = sorted(tests.glob("test_*.py"))
    if files:
        paths = [p for p in paths if p.name in files or p.stem in files]
    with shims_installed(recorder, tests):
        for path in paths:
            try:
                collect_file(path, recorder, collection)
            except Exception as error:  # noqa: BLE001  (an import error: the file is lost)
                collection.errors[path.name] = f"{type(error).__name__}: {error}"
    collection.cases = recorder.cases
    return collection
