"""Values compiled code reads from outside its arguments ("externals"), read at every call.

Contract:
- While the frontend builds a graph (inside `recording()`), every read of a module-level name,
  a closed-over variable, a number or array attribute of a module (`config.W`) or an
  attribute of a Python object (`W`, `model.W`, `self.layer.b`) is recorded as an `External`:
  its `Place` (a module's globals dict and a name, a closure cell, an object and an attribute
  name, a tuple or list and an index) and what the compiled code assumes about it.
- Floats and arrays (f64/f32/i64/bool, at least 1-d; a 0-d float array is a float, an
  `Array0`, fetched as its number) are *inputs*: each place gets one hidden
  graph input (`input_var`), after the user's arguments in first-read order, and compiled code
  gets their current values at every call. Everything else compiled code uses is a
  compile-time value and is *guarded* (`guard`): ints, bools, strings and None by type and
  value (`np.zeros(N)`, `range(N)`, `x[:N]`), functions and objects by identity. An input
  float read where a compile-time value is needed (`np.full(n, G)`) is guarded by value too
  (`known`), and so is one compared with a constant (`if EPS > 0:` folds,
  `fold_comparison`). Tuples and lists are read item by item (a list's length is guarded).
  Modules and bound methods are not re-checked (rebinding `np` is not seen); builtins,
  ufuncs and classes are, by identity (`F = np.add` rebound to `np.multiply` between calls).
- An input array is an aliasing object of its own (`outside_object`, see aliasing.py): the
  frontend refuses writes into it through any name, view or callee.
- `finish(graph)` appends the hidden inputs to a graph built while recording, passes them
  explicitly into the loop bodies and branch arms that read them (subgraphs are closed), and
  declares them in the graph's calling convention (`graph.externals`, see `ir/core.py`: the
  graphs made from it carry them forward). `bind_graph(graph)` maps a graph's externals,
  which are its last inputs, onto the current recording (inlining a compiled function, grad
  of grad).
- `bind(code, reads, result, rebuild)` is the entry point of compiled code with externals:
  it fetches the inputs, checks every guard (inputs: type, shape and dtype) and returns
  `code(*args, *inputs)`. When a guard fails it runs an earlier compilation whose guards hold,
  or `rebuild()`s one for the current values (one compilation per state of the externals;
  a `RuntimeWarning` at the MANY-th, naming the values that changed; a `RuntimeError` when
  the new one's guards fail at once: a value that changes at every read).
  `holds(reads)` checks the guards now; `guarded(code, reads, miss)` is `code` behind the
  guards of `reads`, calling `miss(args)` when one fails. An argument array `jit`'s code
  writes into that shares memory with an array it reads from outside raises `ValueError`
  (compiled code reads that array at entry).
"""

from __future__ import annotations

import contextvars
import threading
import types
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ..ir.core import F64, Atom, Const, Eqn, Externals, Graph, Type, Var
from ..ir.loops import While
from ..ir.transform import free_vars
from .aliasing import new_object
from .static_values import Array0

ARRAY_TYPES = {np.dtype(np.float64): "f64", np.dtype(np.float32): "f32",
               np.dtype(np.int64): "i64", np.dtype(np.bool_): "bool"}
DTYPE_OF = {name: dtype for dtype, name in ARRAY_TYPES.items()}
FLOAT_TYPES = (float, np.float64, np.float32, np.float16)
BY_VALUE = (bool, int, float, complex, str, type(None), np.bool_, np.integer, np.floating,
            np.complexfloating)
# a module rebound (`np = ...`) is not seen. Builtins, ufuncs and classes are checked by
# identity: a global rebound from np.add to np.multiply between calls is seen.
NOT_CHECKED = (types.ModuleType, types.MethodType)


def _checked(value) -> bool:
    """Is `value` guarded? Not a module, nor a bound method (`obj.f`, `np.add.at`,
    `options.get`): one is made anew at each attribute read, so identity would never hold."""
    if isinstance(value, NOT_CHECKED):
        return False
    return not (isinstance(value, types.BuiltinMethodType) and not isinstance(
        getattr(value, "__self__", None), types.ModuleType | type(None)))


@dataclass(frozen=True, eq=False)
class Place:
    """Where a value lives: `source[name]` (a globals dict, or a tuple or list and an index),
    `source.cell_contents` (a closure cell), `getattr(source, name)` (an object) or
    `len(source)` (a list). `label` is how the user's code names it (default: `name`)."""

    source: object
    step: str  # "item", "cell", "attr" or "len"
    name: str | int
    label: str = ""

    @property
    def key(self) -> tuple:
        return id(self.source), self.step, self.name

    @property
    def title(self) -> str:
        return self.label or str(self.name)

    def expression(self, source: str) -> str:
        """Python code fetching the value, given the name of a variable holding `source`."""
        if self.step == "item":
            return f"{source}[{self.name!r}]"
        if self.step == "cell":
            return f"{source}.cell_contents"
        if self.step == "len":
            return f"len({source})"
        return f"getattr({source}, {self.name!r})"


def global_place(fn, name: str) -> Place | None:
    """The place of free name `name` in `fn`: its closure cell, or its module's globals."""
    code = getattr(fn, "__code__", None)
    if code is not None and name in code.co_freevars and fn.__closure__:
        return Place(fn.__closure__[code.co_freevars.index(name)], "cell", name)
    module_globals = getattr(fn, "__globals__", None)
    if module_globals is not None and name in module_globals:
        return Place(module_globals, "item", name)
    return None


@dataclass(frozen=True, eq=False)
class External:
    """A place compiled code reads, its value when compiling (None for an array: compiled
    code depends on its shape and dtype only) and `type`: the hidden input's type for an
    input (None for a guarded compile-time value)."""

    place: Place
    value: object
    type: Type | None
    array0: bool = False  # a float input held as a 0-d array (passed as its number)
    part: str | None = None  # "real" / "imag": a part of a complex array (`complex_input`)

    def condition(self, v: str, k: str, scope: dict) -> str:
        """Python code: does fetched value `v` still fit? (`k`: a prefix for the names of
        the constants it puts into `scope`)"""
        if self.part is not None:
            scope[f"{k}shape"] = self.type.shape
            scope[f"{k}dtype"] = np.result_type(DTYPE_OF[self.type.name], np.complex64)
            return f"(type({v}) is ndarray and {v}.shape == {k}shape and {v}.dtype == {k}dtype)"
        if self.array0:
            scope[f"{k}dtype"] = DTYPE_OF[self.type.name]
            return f"(type({v}) is ndarray and {v}.shape == () and {v}.dtype == {k}dtype)"
        if self.type is not None and self.type.is_array:
            scope[f"{k}shape"] = self.type.shape
            scope[f"{k}dtype"] = DTYPE_OF[self.type.name]
            return f"(type({v}) is ndarray and {v}.shape == {k}shape and {v}.dtype == {k}dtype)"
        if self.type is not None:
            return f"type({v}) in FLOAT_TYPES"
        scope[k] = self.value
        if isinstance(self.value, BY_VALUE):
            scope[f"{k}type"] = type(self.value)
            return f"(type({v}) is {k}type and {v} == {k})"
        return f"{v} is {k}"


def input_type(value) -> Type | str:
    """The hidden input type of a float or an array (float64, float32, int64 or bool; a 0-d
    float array is a number, see `External.array0`), or why it cannot be one."""
    if isinstance(value, FLOAT_TYPES):
        return F64
    if value.dtype not in ARRAY_TYPES:
        return (f"an array of {value.dtype}; compiled code reads float64, float32, int64 "
                "and bool arrays from outside its arguments")
    if value.ndim == 0 and value.dtype.kind == "f":
        return Type(ARRAY_TYPES[value.dtype])
    if value.ndim == 0:
        return "a 0-d int or bool array; use a number"
    return Type(ARRAY_TYPES[value.dtype], value.shape)


class Recorder:
    """The externals read while building one graph (see `recording`)."""

    def __init__(self) -> None:
        self.reads: dict[tuple, External] = {}
        self.vars: dict[tuple, Var] = {}  # place key -> hidden input
        self.by_var: dict[int, External] = {}
        self.objects: dict[int, str] = {}  # aliasing object of an input array -> its title
        self.object_of: dict[tuple, int] = {}
        self.made: dict[int, External] = {}  # complex value of outside parts -> its real part

    def input_var(self, place: Place, value, t: Type, array0: bool = False,
                  part: str | None = None) -> Var:
        key = place.key + ((part,) if part else ())
        if key not in self.vars:
            self.reads[key] = External(place, None if t.is_array else value, t, array0, part)
            self.vars[key] = var = (Array0 if array0 else Var)(t, place.title)
            self.by_var[id(var)] = self.reads[key]
        elif self.vars[key].type != t:
            raise TypeError(f"{place.title!r} changed from {self.vars[key].type} to {t} while "
                            "compiling")
        return self.vars[key]

    def guard(self, place: Place, value) -> None:
        if not _checked(value):
            return
        key = (*place.key, "value")
        self.reads.setdefault(key, External(place, value, None))

    def externals(self) -> tuple[External, ...]:
        return tuple(self.reads.values())


_current: contextvars.ContextVar[Recorder | None] = contextvars.ContextVar("externals",
                                                                          default=None)


@contextmanager
def recording() -> Iterator[Recorder]:
    """Record the externals read while building one graph (nested builds record apart)."""
    recorder = Recorder()
    token = _current.set(recorder)
    try:
        yield recorder
    finally:
        _current.reset(token)


def _recorder() -> Recorder:
    recorder = _current.get()
    if recorder is None:
        raise RuntimeError("externals are read only while a graph is built")
    return recorder


def input_var(place: Place, value, t: Type) -> Var:
    """The hidden input standing for the float or float array at `place` (a 0-d array: an
    `Array0` number)."""
    return _recorder().input_var(place, value, t, isinstance(value, np.ndarray) and
                                 not t.is_array)


def complex_input(place: Place, value: np.ndarray, make: Callable[[Var, Var], Var]) -> Var:
    """The complex array at `place` as `make(real part, imaginary part)` of two hidden inputs
    (the call passes contiguous copies of its parts); writes into it are refused as into
    any outside array (`outside_object`)."""
    recorder = _recorder()
    t = Type("f32" if value.dtype == np.complex64 else "f64", value.shape)
    parts = [recorder.input_var(place, None, t, part=part) for part in ("real", "imag")]
    made = make(*parts)
    recorder.made[id(made)] = recorder.by_var[id(parts[0])]
    return made


def guard(place: Place, value) -> None:
    """Compiled code assumes `place` holds `value` (by value or identity)."""
    _recorder().guard(place, value)


def _input_of(value) -> tuple[Recorder | None, External | None]:
    """(the current recorder, the input External `value` stands for, or None)."""
    recorder = _current.get()
    if recorder is None or not isinstance(value, Var):
        return recorder, None
    return recorder, recorder.by_var.get(id(value), recorder.made.get(id(value)))


def known(var) -> tuple[bool, object]:
    """(True, value) when `var` is an input float, which is then also guarded by value."""
    recorder, e = _input_of(var)
    if e is None or e.type.is_array:
        return False, None
    recorder.guard(e.place, e.value)
    return True, float(e.value)


def fold_comparison(a, b) -> tuple:
    """The operands of a comparison: input floats compared with constants (or with each
    other) are replaced by their values, guarded, so that `if EPS > 0:` folds (a flag or
    threshold recompiles when it changes instead of compiling both branches)."""
    pairs = [(_input_of(v)[1], v) for v in (a, b)]
    if all(e is None for e, _ in pairs) or any(
            e.type.is_array if e is not None else not isinstance(v, Const) for e, v in pairs):
        return a, b
    return tuple(v if e is None else Const(known(v)[1], e.type) for e, v in pairs)


def outside_object(value) -> int | None:
    """The aliasing object (see aliasing.py) standing for the input array `value` (None when
    `value` is not one): compiled code refuses writes through it."""
    recorder, e = _input_of(value)
    if e is None or not e.type.is_array:
        return None
    if e.place.key not in recorder.object_of:
        obj = recorder.object_of[e.place.key] = new_object()
        recorder.objects[obj] = e.place.title
    return recorder.object_of[e.place.key]


def outside_title(obj: int) -> str | None:
    """How the user's code names the outside array of aliasing object `obj` (or None)."""
    recorder = _current.get()
    return recorder.objects.get(obj) if recorder is not None else None


# ---- graphs with externals ---------------------------------------------------------------

def finish(graph: Graph) -> Graph:
    """The graph built while recording, with the hidden inputs appended (and passed into the
    subgraphs that read them)."""
    recorder = _current.get()
    if recorder is None or not recorder.reads:
        return graph
    hidden = list(recorder.vars.values())
    _close(graph, {id(v) for v in hidden})
    return Graph(graph.inputs + hidden, graph.eqns, graph.outputs, graph.name,
                 Externals(recorder.externals(), tuple(hidden)))


def bind_graph(graph: Graph) -> tuple[list[Var], list[Atom]]:
    """(`graph`'s own inputs, the current recording's hidden inputs for its externals, which
    are its last inputs): for inlining `graph` into the graph being built."""
    args = []
    recorder = _recorder()
    for e in graph.externals.reads:
        if e.type is None:
            recorder.guard(e.place, e.value)
        else:
            args.append(recorder.input_var(e.place, e.value, e.type, e.array0, e.part))
    return graph.arguments, args


def _close(graph: Graph, hidden: set[int]) -> None:
    """Pass the hidden inputs that subgraphs read as explicit operands, innermost first."""
    for eqn in graph.eqns:
        subs = eqn.subgraphs()
        if not subs:
            continue
        for sub in subs:
            _close(sub, hidden)
        needed: list[Var] = []
        for sub in subs:
            own = {id(v) for v in sub.inputs}
            needed += [v for v in free_vars(sub.eqns, sub.outputs)
                       if id(v) in hidden and id(v) not in own and v not in needed]
        if needed:
            _pass_in(eqn, subs, needed)


def _pass_in(eqn: Eqn, subs: list[Graph], needed: list[Var]) -> None:
    """Loops take them as consts (after the others), branches as operands (last)."""
    if eqn.prim == "while":
        loop = While(eqn)
        at = loop.n_consts
        loop.add_consts(needed)
    else:
        at = len(eqn.inputs) - 1
        eqn.inputs += needed
    for sub in subs:
        fresh = {id(v): Var(v.type, v.hint) for v in needed}
        for inner in sub.eqns:
            inner.inputs = [fresh.get(id(a), a) for a in inner.inputs]
        sub.outputs = [fresh.get(id(a), a) for a in sub.outputs]
        sub.inputs[at:at] = [fresh[id(v)] for v in needed]


# ---- the entry point -----------------------------------------------------------------------

MISS = object()
MANY = 16  # compilations of one entry point before a warning


def _variant(code: Callable, reads: tuple[External, ...], miss: Callable | None,
             written: tuple[int, ...] = ()) -> Callable:
    """`code` behind the guards of `reads`: on a failed guard, `miss(args)` (None: MISS).
    `written`: the argument arrays the code writes, which must not share memory with the
    arrays it reads from outside (it reads those at entry)."""
    scope = {"ndarray": np.ndarray, "FLOAT_TYPES": FLOAT_TYPES, "MISS": MISS, "code": code,
             "contiguous": np.ascontiguousarray,
             "miss": miss, "shared": _shared, "written": written}
    fetch, checks, passed, arrays = [], [], [], []
    for i, e in enumerate(reads):
        scope[f"s{i}"] = e.place.source
        fetch.append(f"        v{i} = {e.place.expression(f's{i}')}")
        checks.append(e.condition(f"v{i}", f"k{i}", scope))
        if e.type is not None:
            passed.append(f"v{i}[()]" if e.array0 else f"contiguous(v{i}.{e.part})"
                          if e.part else f"v{i}")
            if e.type.is_array:
                arrays.append(f"({e.place.title!r}, v{i})")
    fail = "miss(args)" if miss is not None else "MISS"
    overlap = [f"    shared(args, written, ({', '.join(arrays)},))"] if written and arrays \
        else []
    source = "\n".join(["def entry(*args):", "    try:", *fetch,
                        "    except Exception:", f"        return {fail}",
                        f"    if not ({' and '.join(checks)}):", f"        return {fail}",
                        *overlap, f"    return code(*args, {', '.join(passed)})"])
    exec(compile(source, "<adlite externals>", "exec"), scope)  # noqa: S102 - generated guards
    return scope["entry"]


def _shared(args: tuple, written: tuple[int, ...], arrays: tuple) -> None:
    for i in written:
        for title, array in arrays:
            if np.may_share_memory(args[i], array) and np.shares_memory(args[i], array):
                raise ValueError(f"argument {i} shares memory with {title}, which the function "
                                 f"reads from outside its arguments, and the function writes "
                                 f"into argument {i}; compiled code cannot follow that: pass "
                                 "a copy")


def holds(reads: tuple[External, ...]) -> bool:
    """Do the guards of `reads` hold for the current values?"""
    return not reads or _variant(lambda *_: None, reads, None)() is not MISS


class _Variants:
    """The compilations of one entry point, one per state of its externals (a warning when
    there are MANY: values changing at every call are better passed as arguments)."""

    def __init__(self, reads: tuple[External, ...], result, rebuild: Callable) -> None:
        self.result, self.rebuild, self.last = result, rebuild, reads
        self.written = getattr(result, "written", ())  # a `jit` Layout
        self.others: list[Callable] = []
        self.lock = threading.Lock()

    def miss(self, args: tuple):
        out = self._earlier(args)
        if out is not MISS:
            return out
        with self.lock:
            out = self._earlier(args)  # another thread may have compiled it meanwhile
            if out is not MISS:
                return out
            code, reads, result = self.rebuild()
            if result != self.result:
                raise RuntimeError("a module-level or closed-over value this function reads "
                                   "changed the structure of its results since it was "
                                   "compiled; compile it again (a new jit/grad)")
            variant = _variant(code, reads, None, self.written)
            out = variant(*args)
            if out is MISS:  # e.g. a property that makes a new object at every read
                changing = ", ".join(e.place.title for e in reads if not holds((e,)))
                raise RuntimeError(f"{changing} changed while compiling, or changes at every "
                                   "read (a property making a new object?); compiled code "
                                   "cannot rely on it: pass it as an argument")
            self.others.insert(0, variant)
            if len(self.others) + 1 == MANY:
                self._warn(reads)
            self.last = reads
            return out

    def _warn(self, reads: tuple[External, ...]) -> None:
        before = {(e.place.key, e.type): e.value for e in self.last}
        changed = sorted({e.place.title for e in reads if e.type is None
                          and (e.place.key, e.type) in before
                          and before[e.place.key, e.type] is not e.value
                          and before[e.place.key, e.type] != e.value}) or ["values"]
        warnings.warn(f"compiled {MANY} times because {', '.join(changed)} read from outside "
                      "its arguments changed; a value that changes at every call is better "
                      "passed as an argument", RuntimeWarning, stacklevel=4)

    def _earlier(self, args: tuple):
        """The result of the first earlier compilation whose guards hold (moved to the
        front), or MISS."""
        for i, variant in enumerate(self.others):
            out = variant(*args)
            if out is not MISS:
                if i:
                    self.others.insert(0, self.others.pop(i))
                return out
        return MISS


def bind(code: Callable, reads: tuple[External, ...], result, rebuild: Callable) -> Callable:
    """The entry point running `code` with the current values of its externals (see the
    module's contract); `rebuild()` -> (code, reads, result) compiles for the current values.
    The entry point's attributes `code` and `reads` are the first compilation's."""
    variants = _Variants(reads, result, rebuild)
    entry = _variant(code, reads, variants.miss, variants.written)
    entry.code, entry.reads = code, reads
    return entry


def guarded(code: Callable, reads: tuple[External, ...], miss: Callable) -> Callable:
    """`code(*args, *inputs)` with the current values of the inputs of `reads` when their
    guards hold, else `miss(args)` (for code that writes no argument array)."""
    return _variant(code, reads, miss)
