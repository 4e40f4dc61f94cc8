"""Fast entry points for calls whose arguments are tuples, lists and dicts of numbers and arrays.

Contract:
- `structured_entry(args, entry, fallback)` returns a function of as many positional
arguments as `args` that calls `entry(*leaves)` when its arguments have the structure of
`args`, and `fallback(*arguments)` otherwise; None when `args` holds anything but numbers,
numpy arrays and tuples, named tuples, lists and dicts (with their keys, in order) of them.
"The structure" is what `arguments.flatten` turns into one signature tree: the same types of
containers with the same lengths and dict keys in the same order, arrays of the same exact
type (`np.ndarray`), shape and dtype, numbers of the same exact type. The leaves are passed
in `flatten`'s order (a complex array's real and imaginary parts, contiguous copies). A
dict's values are read once.
- `builder(tree)` returns a function of a sequence of leaf values giving the Python value of
  the signature tree `tree` (what `arguments.unflatten(tree, values)` gives).
- `finishing(run, finish)` is the entry point `run` followed by `finish` (FIRST: the first
  of its values; else a function of its values, a `builder`); `structured_entry` calls the
  two itself instead of the entry point (one call less).

Both are generated as Python source, one function per structure (as `dataclasses` and `attrs`
generate `__init__`): a structure-generic walk costs 1-3 us per call, the generated code a
fraction of that.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .arguments import (
    Static,
    Tree,
    complex_value,
    leaf_types,
    run_time_array,
    run_time_list,
)
from .ir.core import Type

_NUMBERS = (float, int, bool)


class _Emitter:
    """The conditions and leaf names of one call's structure, and the constants they use."""

    def __init__(self) -> None:
        self.conditions: list[str] = []
        self.leaves: list[str] = []
        self.constants: dict[str, Any] = {"ndarray": np.ndarray}
        self.temporaries = 0

    def constant(self, value: Any) -> str:
        name = f"c{len(self.constants)}"
        self.constants[name] = value
        return name

    def visit(self, value: Any, first: str, name: str) -> bool:
        """Conditions for `value`, read as `first` the first time (it assigns `name`)."""
        kind = type(value)
        if kind is np.ndarray and value.dtype.kind == "c":  # its parts (`complex_parts`)
            if value.ndim == 0:
                return False
            self.conditions.append(f"type({first}) is ndarray and {name}.shape == "
                                   f"{self.constant(value.shape)} and {name}.dtype == "
                                   f"{self.constant(value.dtype)}")
            copy = self.constant(np.ascontiguousarray)
            self.leaves += [f"{copy}({name}.real)", f"{copy}({name}.imag)"]
            return True
        if kind is np.ndarray:
            self.conditions.append(f"type({first}) is ndarray and {name}.shape == "
                                   f"{self.constant(value.shape)} and {name}.dtype == "
                                   f"{self.constant(value.dtype)}")
            self.leaves.append(f"{name}[()]" if value.ndim == 0 else name)  # 0-d: its number
            return True
        if kind in _NUMBERS or isinstance(value, np.generic) and \
                isinstance(value, np.bool_ | np.integer | np.floating):
            self.conditions.append(f"type({first}) is {self.constant(kind)}")
            self.leaves.append(name)
            return True
        if kind is dict and all(isinstance(k, str) for k in value):
            self.conditions.append(f"type({first}) is dict and tuple({name}) == "
                                   f"{self.constant(tuple(value))}")
            return all(self._child(v, f"{name}[{self.constant(k)}]") for k, v in value.items())
        if kind in (tuple, list) or isinstance(value, tuple) and hasattr(kind, "_fields"):
            self.conditions.append(f"type({first}) is {self.constant(kind)} and len({name}) == "
                                   f"{len(value)}")
            return all(self._child(v, f"{name}[{i}]") for i, v in enumerate(value))
        return False

    def _child(self, value: Any, read: str) -> bool:
        self.temporaries += 1
        name = f"t{self.temporaries}"
        return self.visit(value, f"({name} := {read})", name)


FIRST = "first"


def finishing(run: Callable, finish: Callable | str) -> Callable:
    """See the module docstring."""
    entry = (lambda *a: run(*a)[0]) if finish == FIRST else (lambda *a: finish(run(*a)))
    entry.parts = (run, finish)
    return entry


def builder(tree: Tree) -> Callable[[Sequence[Any]], Any]:
    """See the module docstring."""
    constants: dict[str, Any] = {}
    position = iter(range(len(leaf_types(tree))))

    def expression(t: Tree) -> str:
        if isinstance(t, Type):
            return f"v[{next(position)}]"
        if isinstance(t, Static):
            name = f"c{len(constants)}"
            constants[name] = t.value
            return name
        items = [expression(c) for c in t.children]
        if t.kind == "selection":
            return f"{items[0]}[{items[1]}]"
        if t.kind == "runlist":
            constants["run_time_list"] = run_time_list
            return f"run_time_list({items[0]}, {t.keys!r})"
        if t.kind == "runzip":
            return f"[*zip({', '.join(items)}, strict=True)]"
        if t.kind == "runarray":
            constants["run_time_array"] = run_time_array
            return f"run_time_array({items[0]}, {t.children[0].keys!r})"
        if t.kind == "array0":
            constants["asarray"] = np.asarray
            return f"asarray({items[0]})"
        if t.kind in ("complex", "conjugate"):
            name = f"c{len(constants)}"
            constants[name] = functools.partial(complex_value, t)
            return f"{name}({items[0]}, {items[1]})"
        if t.kind == "dict":
            keys = [f"c{len(constants)}_{k}" for k in range(len(items))]
            constants.update(zip(keys, t.keys, strict=True))
            return "{" + ", ".join(f"{k}: {v}" for k, v in zip(keys, items, strict=True)) + "}"
        if t.named is not None:
            name = f"c{len(constants)}"
            constants[name] = t.named
            return f"{name}({', '.join(items)})"
        if t.kind == "list":
            return "[" + ", ".join(items) + "]"
        return "(" + "".join(f"{v}, " for v in items) + ")"

    source = f"def build(v):\n    return {expression(tree)}\n"
    exec(compile(source, "<adlite structured result>", "exec"), constants)  # noqa: S102
    return constants["build"]


def structured_entry(args: tuple, entry: Callable, fallback: Callable) -> Callable | None:
    """See the module docstring."""
    emitter = _Emitter()
    names = [f"a{i}" for i in range(len(args))]
    if not all(emitter.visit(a, n, n) for a, n in zip(args, names, strict=True)):
        return None
    run, finish = getattr(entry, "parts", (entry, None))
    emitter.constants.update(run=run, finish=finish, fallback=fallback)
    call = f"run({', '.join(emitter.leaves)})"
    result = call if finish is None else f"{call}[0]" if finish == FIRST else f"finish({call})"
    parameters = ", ".join(names)
    source = (f"def structured({parameters}):\n"
              f"    if {' and '.join(f'({c})' for c in emitter.conditions)}:\n"
              f"        return {result}\n"
              f"    return fallback({parameters})\n")
    namespace = dict(emitter.constants)
    exec(compile(source, "<adlite structured call>", "exec"), namespace)  # noqa: S102
    return namespace["structured"]
