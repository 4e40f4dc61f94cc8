"""User-facing transformations: `jit`, `grad`, `value_and_grad`, `vjp`, `jvp`, `show`.

Contract:
- Each transformation returns a callable that compiles the function once per call signature
  (the tuple of argument types: float -> f64, int -> i64, bool -> bool) and caches the result;
  later calls with the same signature run the cached code without tracing or compiling
  (`.compile_count` tells how often it compiled). Threads asking for the same new signature
  at once share one compilation.
- Transformed functions pickle at any time (before or after their first call) as the function,
  the transformation and its arguments, never as native code: the receiving process compiles
  again or loads the code from the disk cache. The function must be picklable (defined at
  module level); a module-level `@jit def f` is pickled by name. `hessian(f)` results pickle
  too.
- `grad(f, wrt=0)` differentiates a function with one float result with respect to argument
  `wrt` (an int, or a tuple of ints, then a tuple of gradients is returned). Arguments that
  are differentiated are taken as floats even when given as ints.
- Arguments are checked before any generated code runs: wrong count or non-numeric values
  raise `TypeError`.
- `backend="python"` runs the readable Python produced by the Python backend (the reference).
- Arrays are shared objects, as in numpy: `jit` of a function that writes into an argument
  array (`out[i] = ...`, `x += v`, through an alias, a basic-slice view or an inlined callee)
  writes the final values back into the caller's array (`np.copyto`, any memory layout), and
  a returned argument is the caller's very array. Arguments that share memory with an argument
  the function writes raise `ValueError` at call time. `grad`, `value_and_grad`, `vjp`, `jvp`
  and `hessian` differentiate with respect to the argument values at entry and never modify
  the caller's arrays.
- Module-level and closed-over numbers and arrays and attributes of Python objects the
  function reads are read at every call, never stale (`frontend/externals.py`): floats and
  arrays are passed to the compiled code, other values (ints sizing arrays, functions,
  objects) are checked, and a change of one of them, or of an array's shape or dtype,
  compiles again (one compilation per state, cached). They are constants for the
  derivatives: `grad`, `jvp`, `vjp` and `hessian` take and return derivatives for the
  arguments only.
"""

from __future__ import annotations

import functools
import inspect
import sys
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import pipeline
from .compile_once import once
from .frontend import externals
from .frontend.aliasing import view_key
from .frontend.to_ir import Layout
from .ir.core import BOOL, F64, I64, Graph, Type
from .ir.dot import graph_to_dot
from .ir.printer import print_graph
from .pipeline import DIFFERENTIATE, JIT, Compilation, Derivative

BACKENDS = ("llvm", "python")


ARRAY_DTYPES = {np.dtype(np.float64): "f64", np.dtype(np.float32): "f32"}


def arg_type(value: Any, position: int) -> Type:
    if isinstance(value, np.ndarray):
        if value.dtype not in ARRAY_DTYPES:
            raise TypeError(f"argument {position} is an array of {value.dtype}; compiled "
                            "functions take float64 or float32 arrays")
        if value.ndim == 0:
            raise TypeError(f"argument {position} is a 0-d array; pass float(x) instead")
        return Type(ARRAY_DTYPES[value.dtype], value.shape)
    if isinstance(value, bool | np.bool_):
        return BOOL
    if isinstance(value, int | np.integer):
        return I64
    if isinstance(value, float | np.floating):
        return F64
    raise TypeError(f"argument {position} has type {type(value).__name__}; compiled "
                    "functions take Python or numpy scalars (float, int, bool) and float64 or "
                    "float32 numpy arrays")


class Transformed:
    """A compiled transformation of `fn`, specialised and cached per argument signature."""

    def __init__(self, fn: Callable, kind: str, wrt: int | tuple[int, ...] = 0,
                 backend: str = "llvm") -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; choose one of {BACKENDS}")
        self.fn, self.kind, self.backend = fn, kind, backend
        self.wrt = (wrt,) if isinstance(wrt, int) else tuple(wrt)
        self.multi = not isinstance(wrt, int)
        self.cache: dict[tuple, tuple] = {}
        self.dispatch: dict[tuple[type, ...], Callable] = {}
        self.n_params = len(inspect.signature(fn).parameters)
        functools.update_wrapper(self, fn, updated=())  # keep our own __dict__

    @property
    def compile_count(self) -> int:
        """How many signatures were compiled to native (or Python backend) code."""
        return sum(1 for key in list(self.cache) if key[:1] != ("ir",))

    def __reduce__(self):
        """Pickle the function and the transformation, never native state: a module-level
        `@jit def f` by name, anything else by rebuilding it from (fn, kind, wrt, backend)."""
        if _by_name(self.__module__, self.__qualname__) is self:
            return self.__qualname__
        wrt = self.wrt if self.multi else self.wrt[0]
        return Transformed, (self.fn, self.kind, wrt, self.backend)

    def signature(self, args: Sequence[Any]) -> tuple[Type, ...]:
        if len(args) != self.n_params:
            raise TypeError(f"{self.fn.__name__}() takes {self.n_params} positional arguments "
                            f"but {len(args)} were given")
        return self.signature_types([arg_type(a, i) for i, a in enumerate(args)])

    def signature_types(self, types: list[Type]) -> tuple[Type, ...]:
        """Argument types after promotion: differentiated arguments are floats."""
        if self.kind != "jit":
            for i in self.wrt:
                if not -len(types) <= i < len(types):
                    raise TypeError(f"wrt={i} but {self.fn.__name__} got {len(types)} "
                                    "arguments")
                if not types[i].is_float:
                    types[i] = F64
        return tuple(types)

    @property
    def stages(self) -> tuple[str, ...]:
        return JIT if self.kind == "jit" else DIFFERENTIATE

    def compilation(self, types: tuple[Type, ...], effects: bool = True) -> Compilation:
        """What to compile for one signature. With `effects`, `jit`'s graph also returns the
        final values of the argument arrays the function writes (its result is a `Layout`
        instead of the tuple flag)."""
        derivative = None if self.kind == "jit" else Derivative(self.kind, self.wrt)
        return Compilation(self.fn, types, derivative, effects and self.kind == "jit",
                           self.backend)

    def graphs(self, types: tuple[Type, ...], effects: bool = True) -> tuple[Graph, Graph, Any]:
        """(primal graph, transformed graph, result is a tuple or `Layout`) for one
        signature: the pipeline up to lowering."""
        c = pipeline.run(self.compilation(types, effects), self.stages[:-1])
        return c.primal, c.graph, c.result

    def ir_for(self, types: tuple[Type, ...]) -> tuple[Graph, bool]:
        """The optimised graph of this transformation for argument types `types` (used to
        inline it into other compiled code, or to transform it again: grad of grad)."""
        if len(types) != self.n_params:
            raise TypeError(f"{self.fn.__name__}() takes {self.n_params} positional arguments "
                            f"but {len(types)} were given")
        types = self.signature_types(list(types))
        key = ("ir",) + types
        graph, is_tuple = once(self.cache, key, lambda: self.graphs(types, effects=False)[1:])
        if not externals.holds(externals.of(graph)):  # a value it reads has changed
            graph, is_tuple = self.cache[key] = self.graphs(types, effects=False)[1:]
        if self.kind != "jit":  # outputs: [value,] gradients (flat)
            is_tuple = self.multi or self.kind == "value_and_grad"
        return graph, is_tuple

    def compiled(self, types: tuple[Type, ...]):
        """(run, result is a tuple) for one signature; `run(*args)` returns a tuple."""
        return once(self.cache, types, lambda: self._compile(types))

    def _compile(self, types: tuple[Type, ...]):
        c = pipeline.run(self.compilation(types), self.stages)
        return c.code, c.result

    def __call__(self, *args: Any):
        fast = self.dispatch.get(_dispatch_key(args))
        if fast is None:
            fast = self._prepare(args)
        return fast(*args)

    def _prepare(self, args: Sequence[Any]) -> Callable:
        """Validate a new argument signature, compile it and cache the entry point that
        shapes the native result like the Python function's (keyed by the argument types)."""
        run, is_tuple = self.compiled(self.signature(args))
        if isinstance(is_tuple, Layout):
            fast = _jit_entry(run, is_tuple, self.backend)
        elif self.kind == "jit":
            fast = run if is_tuple else (lambda *a: run(*a)[0])
        elif self.kind == "value_and_grad" and self.multi:
            def fast(*a):
                values = run(*a)
                return values[0], values[1:]
        elif self.kind == "value_and_grad":
            fast = run  # (value, gradient) already
        else:
            fast = run if self.multi else (lambda *a: run(*a)[0])
        self.dispatch[_dispatch_key(args)] = fast
        return fast


def _by_name(module: str, qualname: str) -> Any:
    """The object that `module.qualname` names, or None."""
    obj = sys.modules.get(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj


def _jit_entry(run: Callable, program: Layout, backend: str) -> Callable:
    """The entry point of `jit`: runs the code, writes the final values of the argument
    arrays the function writes into back into the caller's arrays (np.copyto, any memory
    layout), and returns the caller's very array where the function returns an argument."""
    n, written, returned = program.n_results, program.written, program.returned
    simple = not written and not any(r is not None for r in returned) and backend != "python"
    if simple:
        return run if program.is_tuple else (lambda *a: run(*a)[0])
    keys = [None if source is None or source[1] is None else view_key(source[1])
            for source in returned]  # the numpy index of each returned view

    def fast(*args):
        for i in written:
            for j, other in enumerate(args):
                if j != i and isinstance(other, np.ndarray) and \
                        np.may_share_memory(args[i], other) and np.shares_memory(args[i], other):
                    raise ValueError(f"arguments {i} and {j} share memory and "
                                     f"{program.name} writes into argument {i}; "
                                     "compiled code cannot follow that: pass a copy")
        values = run(*args)
        for i, final in zip(written, values[n:], strict=True):
            np.copyto(args[i], final)
        results = []
        for value, source, key in zip(values[:n], returned, keys, strict=True):
            if source is not None:
                value = args[source[0]] if key is None else args[source[0]][key]
            elif isinstance(value, np.ndarray) and any(
                    isinstance(a, np.ndarray) and np.may_share_memory(value, a) for a in args):
                value = value.copy()  # a new array, as in Python (the Python backend may
                # hand back an argument's buffer)
            results.append(value)
        return tuple(results) if program.is_tuple else results[0]

    return fast


def _dispatch_key(args) -> tuple:
    """Argument types, plus shape and dtype for arrays (what selects a specialisation)."""
    return tuple((a.shape, a.dtype) if isinstance(a, np.ndarray) else type(a) for a in args)


def jit(fn: Callable | None = None, *, backend: str = "llvm"):
    """Compile `fn` (usable as `@jit` or `@jit(backend=...)`)."""
    if fn is None:
        return lambda f: Transformed(f, "jit", backend=backend)
    return Transformed(fn, "jit", backend=backend)


def grad(fn: Callable | None = None, wrt: int | tuple[int, ...] = 0, *,
         backend: str = "llvm"):
    """Gradient of a float-valued `fn` w.r.t. argument(s) `wrt` (reverse mode)."""
    if fn is None:
        return lambda f: Transformed(f, "grad", wrt, backend)
    return Transformed(fn, "grad", wrt, backend)


def value_and_grad(fn: Callable, wrt: int | tuple[int, ...] = 0, *, backend: str = "llvm"):
    """Like `grad`, returning `(value, gradient)`."""
    return Transformed(fn, "value_and_grad", wrt, backend)


_EXTENDED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _compile_extended(fn, types, derivative: Derivative):
    """(primal graph, compiled derivative, result is a tuple), cached per function, argument
    types and derivative like the other transformations."""
    def build():
        c = pipeline.run(Compilation(fn, types, derivative), DIFFERENTIATE)
        return c.primal, c.code, c.result

    per_fn = _EXTENDED.setdefault(fn, {})
    key = (derivative, types)
    return once(per_fn, key, build)


def _zero_like(t: Type):
    return np.zeros(t.shape, dtype=np.float32 if t.name == "f32" else np.float64) \
        if t.is_array else 0.0


def vjp(fn: Callable, *primals: Any):
    """`(outputs, pullback)`: `pullback(*cotangents)` gives cotangents of the float inputs."""
    types = tuple(arg_type(a, i) for i, a in enumerate(primals))
    primal, run, is_tuple = _compile_extended(fn, types, Derivative("vjp"))
    n_out = len(primal.outputs)
    float_outs = [a.type for a in primal.outputs if a.type.is_float]
    outs = run(*primals, *(_zero_like(t) for t in float_outs))[:n_out]

    def pullback(*cotangents: Any):
        if len(cotangents) != len(float_outs):
            raise TypeError(f"pullback takes {len(float_outs)} cotangent(s), got "
                            f"{len(cotangents)}")
        return run(*primals, *cotangents)[n_out:]

    return (outs if is_tuple else outs[0]), pullback


def jvp(fn: Callable, primals: Sequence[Any], tangents: Sequence[Any]):
    """`(outputs, output tangents)` of `fn` at `primals` along `tangents` (forward mode)."""
    types = tuple(arg_type(a, i) for i, a in enumerate(primals))
    n_float = sum(t.is_float for t in types)
    if len(tangents) != n_float:
        raise TypeError(f"jvp needs one tangent per float argument ({n_float}), got "
                        f"{len(tangents)}")
    primal, run, is_tuple = _compile_extended(fn, types, Derivative("jvp"))
    values = run(*primals, *tangents)
    n_out = len(primal.outputs)
    outs, touts = values[:n_out], values[n_out:]
    return (outs, touts) if is_tuple else (outs[0], touts[0])


def hessian(fn: Callable, wrt: int = 0):
    """The Hessian of a float-valued `fn` w.r.t. argument `wrt` (a float or an array), by
    forward over reverse: one Hessian-vector product `jvp(grad(fn))` per input component,
    loops included. For an array of shape S the result has shape S + S."""
    return functools.partial(_hessian_at, grad(fn, wrt=wrt), wrt)  # picklable


def _hessian_at(gradient: Transformed, wrt: int, *args: Any):
    x = np.asarray(args[wrt], dtype=float)
    types = tuple(arg_type(a, i) for i, a in enumerate(args))
    if not types[wrt].is_float:
        raise TypeError(f"hessian: argument {wrt} must be a float or a float array")
    # only argument `wrt` moves: the others are constants, not zero tangents (which would
    # give 0 * inf = nan where the gradient is infinite in them)
    _, run, _ = _compile_extended(gradient, types, Derivative("jvp", (wrt,)))
    columns = []
    for k in range(x.size):
        basis = np.zeros(x.size)
        basis[k] = 1.0
        tangent = basis.reshape(x.shape) if x.ndim else 1.0
        columns.append(np.asarray(run(*args, tangent)[1], dtype=float))
    if x.ndim == 0:
        return float(columns[0])
    return np.stack(columns, axis=-1).reshape(x.shape + x.shape)


STAGES = tuple(pipeline.STAGES)
ALIASES = {  # the names `show` had before the pipeline: (stage, grad, render)
    "ir": ("frontend", False, "ir"), "optimized": ("optimize", False, "ir"),
    "adjoint": ("optimize", True, "ir"), "python": ("lower", False, "python"),
    "python-grad": ("lower", True, "python"), "llvm": ("lower", False, "llvm"),
    "llvm-grad": ("lower", True, "llvm"), "dot": ("optimize", False, "dot"),
    "dot-grad": ("optimize", True, "dot")}


def show(fn: Callable, stage: str = "frontend", types: Sequence[Type] | None = None, *,
         grad: bool = False, backend: str = "llvm", dot: bool = False) -> str:
    """The code of `fn` after pipeline stage `stage` (the last one of that name) of `jit`, or
    of `grad` (w.r.t. argument 0) with `grad=True` or `stage="ad"`: the IR (as Graphviz with
    `dot`), and after `lower` the code for `backend` (LLVM IR, or Python source). The default
    signature is every argument f64. The names of ALIASES are accepted too."""
    if stage in ALIASES:
        stage, grad, render = ALIASES[stage]
        backend = render if render in ("llvm", "python") else backend
        dot = render == "dot"
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; choose one of "
                         f"{', '.join(STAGES + tuple(ALIASES))}")
    if types is None:
        types = [F64] * len(inspect.signature(fn).parameters)
    transformed = Transformed(fn, "grad" if grad or stage == "ad" else "jit", backend=backend)
    c = transformed.compilation(transformed.signature_types(list(types)))
    pipeline.run(c, pipeline.through(transformed.stages[:-1], stage if stage != "lower"
                                     else "optimize"))
    if stage == "lower":
        return pipeline.lowered_text(c, backend)
    return graph_to_dot(c.graph) if dot else print_graph(c.graph)


__all__ = ["grad", "hessian", "jit", "jvp", "show", "value_and_grad", "vjp"]
