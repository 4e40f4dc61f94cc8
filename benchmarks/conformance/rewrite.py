"""autograd's functions as numpy programs, and the entry functions adlite compiles.

autograd's tests are written against `autograd.numpy as np`, `autograd.scipy.special`, ...;
the user's intent is numpy's and scipy's functions. `Rewriter.to_numpy(value)` gives:

- for an autograd module, the real one (`autograd.numpy.linalg` -> `numpy.linalg`,
  `autograd.scipy.stats.norm` -> `scipy.stats.norm`; `autograd.scipy.misc` ->
  `scipy.special`, where scipy keeps `logsumexp` now);
- for a function of those modules (`autograd.numpy.sin`), the real function of that name; for
  autograd's `tuple`, `list`, `dict`, `isinstance`, `type`, Python's builtins; for autograd's
  `grad` (and collect's shim of it), `adlite.compiler.grad` (a gradient taken inside the
  function: compiled code composes it);
- for a Python function defined in the tests folder, a copy with the same code whose globals
  are a copy of its module's globals with every value rewritten this way (one copy per
  module, shared by its functions), and whose closure cells and defaults are rewritten too;
  a `functools.partial` of such functions likewise;
- anything else unchanged (the original function is never modified).

`Rewriter(tests, tape=True)` rewrites for the eager tape, as a tape user writes the program:
autograd's scipy becomes `adlite.runtime.scipy` where that has the module or object (scipy's
otherwise), and autograd's `grad`, `value_and_grad`, `elementwise_grad`, `jacobian` (and the
shim's) those of
`adlite.runtime.transforms`, which differentiate Tensors, and autograd's `isinstance`
`tape_isinstance` (a Tensor is what its array is); numpy stays numpy (Tensors dispatch).

`write_entry(case, fun, folder, number, output)` writes `case_entry(x0, ...)`, calling `fun`
with the case's differentiated arguments as parameters and its other arguments and keywords
as constants (literals where they are literals, names bound in the module otherwise), and
`case_scalar`, the entry's result contracted with fixed cotangents (`np.sum(out[i] * u_i)`
summed over the result's leaves; the entry itself when its result is one number; their real
parts where the result is complex, so that the scalar is real), into a
file adlite can read the source of, and returns the module's namespace.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from adlite.compiler import grad as adlite_grad
from adlite.runtime import Tensor, transforms

MODULE_ALIASES = {"autograd.scipy.misc": "scipy.special"}
BUILTIN_NAMES = ("tuple", "list", "dict", "isinstance", "type")
TAPE_TRANSFORMS = ("value_and_grad", "elementwise_grad", "jacobian")


def real_module(name: str, tape: bool = False) -> Any:
    """The numpy/scipy module (or object) an `autograd.*` module stands for, or None; with
    `tape`, scipy's as a tape user writes it: `adlite.runtime.scipy`'s where it has one."""
    if name in MODULE_ALIASES:
        target = MODULE_ALIASES[name]
    elif name.startswith(("autograd.numpy", "autograd.scipy")):
        target = name.removeprefix("autograd.")
    else:
        return None
    ours = _imported(f"adlite.runtime.{target}") if tape and target.startswith("scipy") \
        else None
    return ours if ours is not None else _imported(target)


def _imported(target: str) -> Any:
    """The module `target`, or the attribute its last part names of its parent, or None."""
    try:
        return importlib.import_module(target)
    except ImportError:
        parent, _, attribute = target.rpartition(".")
        try:
            return getattr(importlib.import_module(parent), attribute, None)
        except ImportError:
            return None


class Rewriter:
    """Rewrites values of autograd's test modules (in `tests`) into numpy/scipy programs (for
    the tape with `tape`: see the module)."""

    def __init__(self, tests: Path, tape: bool = False) -> None:
        self.tests = str(tests.resolve())
        self.modules: dict[int, Any] = {}
        self.objects: dict[int, Any] = {}
        self.grad = transforms.grad if tape else adlite_grad
        for name, module in sorted(sys.modules.items()):
            real = real_module(name, tape) if module is not None else None
            if real is None:
                continue
            self.modules[id(module)] = real
            for attribute, value in vars(module).items():
                if not isinstance(value, types.ModuleType) and callable(value) \
                        and hasattr(real, attribute):
                    self.objects.setdefault(id(value), getattr(real, attribute))
        autograd = sys.modules.get("autograd")
        for name in BUILTIN_NAMES:
            if autograd is not None and hasattr(autograd, name):
                self.objects[id(getattr(autograd, name))] = \
                    tape_isinstance if tape and name == "isinstance" else getattr(builtins, name)
        differential_operators = sys.modules.get("autograd.differential_operators")
        if differential_operators is not None:
            self.objects[id(differential_operators.grad)] = self.grad
            if tape:
                for name in TAPE_TRANSFORMS:
                    self.objects[id(getattr(differential_operators, name))] = \
                        getattr(transforms, name)
        self.memo: dict[int, Any] = {}

    def is_test_code(self, fn: types.FunctionType) -> bool:
        return str(Path(fn.__code__.co_filename).resolve()).startswith(self.tests)

    def to_numpy(self, value: Any) -> Any:
        if id(value) in self.memo:
            return self.memo[id(value)]
        if isinstance(value, types.ModuleType):
            return self.modules.get(id(value), value)
        if isinstance(value, types.FunctionType) and self.is_test_code(value):
            return self.function(value)
        if getattr(value, "stands_for", None) == "grad":  # collect's recording shim
            return self.grad
        if isinstance(getattr(value, "grad_of", None), tuple):  # a gradient the shim made
            fun, argnum = value.grad_of
            return self.grad(self.to_numpy(fun), argnum)
        if isinstance(value, functools.partial):
            return functools.partial(self.to_numpy(value.func),
                                     *[self.to_numpy(a) for a in value.args],
                                     **{k: self.to_numpy(v) for k, v in value.keywords.items()})
        try:
            return self.objects.get(id(value), value)
        except TypeError:
            return value

    def globals_of(self, namespace: dict[str, Any]) -> dict[str, Any]:
        """The rewritten copy of one module's globals (made once, filled after it is memoised,
        so that functions calling each other end up in the same copy)."""
        if id(namespace) not in self.memo:
            copy: dict[str, Any] = {}
            self.memo[id(namespace)] = copy
            copy.update({k: self.to_numpy(v) for k, v in namespace.items()})
        return self.memo[id(namespace)]

    def function(self, fn: types.FunctionType) -> types.FunctionType:
        closure = None if fn.__closure__ is None else tuple(
            types.CellType(self.to_numpy(cell.cell_contents)) if _filled(cell)
            else types.CellType() for cell in fn.__closure__)
        defaults = None if fn.__defaults__ is None else tuple(
            self.to_numpy(d) for d in fn.__defaults__)
        copy = types.FunctionType(fn.__code__, self.globals_of(fn.__globals__), fn.__name__,
                                  defaults, closure)
        self.memo[id(fn)] = copy
        copy.__kwdefaults__ = None if fn.__kwdefaults__ is None else {
            k: self.to_numpy(v) for k, v in fn.__kwdefaults__.items()}
        copy.__qualname__, copy.__module__ = fn.__qualname__, fn.__module__
        copy.__dict__.update(fn.__dict__)
        return copy


def tape_isinstance(obj: Any, classinfo: Any) -> bool:
    """autograd's `isinstance` on the tape: a Tensor is an instance of what its array (or, for
    one of no dimensions, its number) is, as autograd's boxes are of what they hold."""
    if isinstance(obj, Tensor):
        return isinstance(obj.data, classinfo) or \
            obj.ndim == 0 and isinstance(obj.data[()], classinfo)
    return isinstance(obj, classinfo)


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018  (an empty cell raises)
    except ValueError:
        return False
    return True


def _is_literal(value: Any) -> bool:
    if type(value) not in (int, float, bool, str, type(None), tuple, list):
        return False
    try:
        return ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError):
        return False


def leaf_paths(tree: Any, prefix: str = "") -> list[str]:
    """Index expressions of a result's leaves (`[0]['a']`), in order (dicts in key order)."""
    if isinstance(tree, dict):
        return [p for k, v in tree.items() for p in leaf_paths(v, f"{prefix}[{k!r}]")]
    if isinstance(tree, tuple | list):
        return [p for i, v in enumerate(tree) for p in leaf_paths(v, f"{prefix}[{i}]")]
    return [prefix]


def tree_leaves(tree: Any) -> list[Any]:
    """The leaves of a result (tuples, lists, dicts in order), as they are."""
    if isinstance(tree, dict):
        return [x for v in tree.values() for x in tree_leaves(v)]
    if isinstance(tree, tuple | list):
        return [x for v in tree for x in tree_leaves(v)]
    return [tree]


def entry_source(case: Any, output: Any) -> tuple[str, dict[str, Any]]:
    """The source of `case_entry` and `case_scalar` and the constants they name (`fun`, the
    cotangents `u<i>` are bound by the caller)."""
    constants: dict[str, Any] = {}

    def constant(name: str, value: Any) -> str:
        if _is_literal(value):
            return repr(value)
        constants[name] = value
        return name

    params = [f"x{i}" for i in range(len(case.argnums))]
    where = dict(zip(case.argnums, params, strict=True))
    call = [where.get(i) or constant(f"a{i}", a) for i, a in enumerate(case.args)]
    call += [f"{k}={constant(f'k_{k}', v)}" for k, v in case.kwargs.items()]
    signature = ", ".join(params)
    paths = leaf_paths(output)
    is_complex = any(np.iscomplexobj(leaf) for leaf in tree_leaves(output))

    def real(expression: str) -> str:
        return f"np.real({expression})" if is_complex else expression

    if paths == [""] and np.ndim(output) == 0:
        scalar = f"    return {real(f'case_entry({signature})')}\n"
    else:
        terms = " + ".join(f"np.sum({real(f'out{p} * u{i}')})" for i, p in enumerate(paths))
        scalar = f"    out = case_entry({signature})\n    return {terms}\n"
    source = (f"def case_entry({signature}):\n    return fun({', '.join(call)})\n\n\n"
              f"def case_scalar({signature}):\n{scalar}")
    return source, constants


def write_entry(case: Any, fun: Callable, folder: Path, number: int, output: Any,
                cotangents: list[Any]) -> dict[str, Any]:
    """Writes the entry module of case `number` into `folder` and executes it."""
    source, constants = entry_source(case, output)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"case_{number:05d}.py"
    path.write_text(source)
    namespace: dict[str, Any] = {"np": np, "fun": fun, "__name__": f"case_{number:05d}",
                                 **constants,
                                 **{f"u{i}": u for i, u in enumerate(cotangents)}}
    exec(compile(source, str(path), "exec"), namespace)  # noqa: S102
    return namespace
