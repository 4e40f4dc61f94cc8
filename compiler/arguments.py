"""Call arguments -> a compile-time signature and flat runtime values, and results back.

Contract:
- `bind(fn, args, kwargs)` binds a call to `fn`'s parameters as Python does
  (`inspect.signature(...).bind` with defaults applied; a wrong call raises Python's
  `TypeError`) and returns a `Binding`: the function whose source is compiled (`fn.__func__`
  for a bound method, `type(fn).__call__` for an instance of a class defining `__call__`),
  its parameter names and one value per parameter, in order (a bound method's `self`/`cls`
  or the called instance first, `*args` as a tuple, `**kwargs` as a dict).
- `flatten(value, where, static_scalars, known)` describes one parameter value as a hashable
  tree and lists its runtime leaves. A tree is a `Type` (a runtime number or array: float,
  int, bool, float64/float32/int64/bool arrays; a 0-d array is a Node "array0" of its
  number, so that results and gradients of it are 0-d arrays again), a `Known` (a runtime
  number whose value the compilation is specialised on too: numbers where `known`, for
  differentiated parameters), a `Static` (a compile-time value: strings, None, functions,
  modules, other objects, compared by value for str/bytes/None/int/float and by identity
  otherwise; ints, bools and floats only where `static_scalars`), or a `Node` (a tuple,
  named tuple, list or dict with string keys, nested). The signature of a call is the tuple
  of its parameters' trees: the cache key of a compilation, and what the frontend rebuilds
  the parameters from (graph inputs are the flat leaves, in order; named tuples are tuples
  there).
- `unflatten(tree, leaves)` rebuilds the Python value of a tree from its leaves (results and
  gradients); `leaf_types(tree)` lists a tree's runtime leaf types.
- `dynamic_trees(trees)` is the signature of the same call for code compiled for every size
  (`shapes="dynamic"`): each array dimension of `dims.MIN_SIZE` (8) or more becomes a size
  symbol of `ir.dims`, one symbol per distinct size (in order of appearance), so that calls
  with the same ranks, dtypes, smaller sizes and pattern of equal sizes share one
  compilation (native
  code takes the symbols' values: `dims.bind_sizes`); `has_sizes(trees)` tells whether a
  signature has such symbols; `SizesSpecialised` is the API's signal that a signature with
  symbols compiles per shape instead.
- `NeedStatic` is the frontend's signal that the compile-time value of entry int, bool or
  float parameters is needed (a shape, a slice bound, the trip count of a loop that must be
  unrolled, a flag choosing between values of different shapes): the API compiles again with
  them static, or `Known` where they are differentiated.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .ir.core import BOOL, F32, F64, I64, Type
from .ir.dims import MIN_SIZE, symbol, symbols_of
from .primitives.lists import native_list
from .transformation import is_transformation

ARRAY_DTYPES = {np.dtype(np.float64): "f64", np.dtype(np.float32): "f32",
                np.dtype(np.int64): "i64", np.dtype(np.bool_): "bool"}
SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)
COMPLEX_DTYPES = {np.dtype(np.complex128): np.float64, np.dtype(np.complex64): np.float32}


def arg_type(value: Any, position: int | str) -> Type:
    """The runtime type of a number or array argument (TypeError for anything else)."""
    if isinstance(value, np.ndarray):
        if value.dtype not in ARRAY_DTYPES:
            raise TypeError(f"argument {position} is an array of {value.dtype}; compiled "
                            "functions take float64, float32, int64 or bool arrays (convert "
                            "with .astype)")
        if value.ndim == 0:  # `flatten` takes them; a bare type has no place for one
            raise TypeError(f"argument {position} is a 0-d array; pass float(x) instead")
        return _array_type(ARRAY_DTYPES[value.dtype], value.shape)
    if isinstance(value, bool | np.bool_):
        return BOOL
    if isinstance(value, int | np.integer):
        return I64
    if isinstance(value, np.float32):
        return F32
    if isinstance(value, float | np.floating):
        return F64
    raise TypeError(f"argument {position} has type {type(value).__name__}; compiled "
                    "functions take Python or numpy scalars (float, int, bool) and float64, "
                    "float32, int64 or bool numpy arrays")


@functools.lru_cache(maxsize=1024)
def _array_type(dtype: str, shape: tuple[int, ...]) -> Type:
    return Type(dtype, shape)


class Static:
    """A compile-time value in a signature: equal by value (str, bytes, None, int; floats by
    their bits, so that 0.0 and -0.0 differ and a NaN equals itself) or by identity (bools,
    which are singletons, functions, modules, objects). Holds the object (so its identity
    stays unique while a compilation keyed on it lives)."""

    __slots__ = ("_key", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        by_value = value is None or isinstance(value, str | bytes | int) and \
            not isinstance(value, bool)
        self._key = (type(value), value) if by_value else \
            (type(value), value.hex()) if isinstance(value, float) else ("id", id(value))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Static) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"Static({self.value!r})"


@dataclass(frozen=True, eq=False)
class Known(Type):
    """A runtime number whose `value` the compilation is also specialised on: a
    differentiated int, bool or float parameter that the function needs when compiling (an
    array length). It is a graph input of its type (`plain`), differentiated through its
    arithmetic, and the frontend reads its value where a compile-time value is wanted; equal
    by type and value (as `Static`), so that a call with another value compiles again."""

    value: Any = None

    @property
    def plain(self) -> Type:
        return Type(self.dtype, self.shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Known) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    @property
    def _key(self) -> tuple:
        return (self.dtype, self.shape, Static(self.value))


@dataclass(frozen=True)
class Node:
    """A tuple, list or dict (string `keys`, in order) of trees; a named tuple is a tuple
    with its class (`named`); a "selection" (an array and its boolean mask: the value is
    `array[mask]`, whose length is known only at run time); a "runlist" (a list whose
    length is known only at run time: one i64 leaf, the handle `list_export` gives, and the
    items' type in `keys`, see `item_keys`); a "runzip" (such a list of tuples: a "runlist"
    per field); a "runarray" (`np.array` of a "runlist", its child); an "array0" (a 0-d
    array: its number, the child, is the leaf; rebuilt as a 0-d array)."""
    kind: str
    children: tuple
    keys: tuple[str, ...] = ()
    named: type | None = None


Tree = Type | Static | Node


class NeedStatic(Exception):  # noqa: N818 - an internal signal, caught by the API
    """The frontend needs the compile-time values of entry int parameters `names`;
    `error` is what to raise when they cannot be made static."""

    def __init__(self, names: frozenset[str], error: Exception) -> None:
        super().__init__(f"{error} (needs the value of {', '.join(sorted(names))})")
        self.names, self.error = names, error


@dataclass(frozen=True)
class Binding:
    """A call bound to the parameters of `target` (the Python function compiled)."""
    target: Callable
    names: tuple[str, ...]
    values: tuple
    n_bound: int  # leading parameters bound by the callable itself (a method's self)
    positions: tuple[tuple[int, int | None], ...]  # call position -> (parameter, index in *args)
    var_keyword: str | None  # the name of the **kwargs parameter


def target_of(fn: Callable) -> tuple[Callable, tuple]:
    """(the function whose source is compiled, the values bound before the call's
    arguments: a bound method's `self` or `cls`)."""
    if inspect.ismethod(fn):
        return fn.__func__, (fn.__self__,)
    call = inspect.getattr_static(type(fn), "__call__", None)
    if not inspect.isfunction(fn) and not is_transformation(fn) and inspect.isfunction(call):
        return call, (fn,)  # an instance of a class with a __call__ method
    return fn, ()


def bind(fn: Callable, args: tuple, kwargs: dict,
         signature: inspect.Signature | None = None) -> Binding:
    """(`signature`: `inspect.signature(fn)`, when the caller has it already.)"""
    target, bound = target_of(fn)
    name = getattr(fn, "__name__", type(fn).__name__)
    try:
        signature = signature or inspect.signature(fn)
        ba = signature.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(_python_message(target, bound + tuple(args), kwargs) or
                        f"{name}() {e}") from None
    except ValueError as e:  # no signature (a builtin)
        raise TypeError(f"cannot compile {name!r}: {e}") from None
    ba.apply_defaults()
    names = tuple(ba.arguments)
    positions, k = [], 0
    for p_index, p in enumerate(signature.parameters.values()):
        if k >= len(args):
            break
        if p.kind == p.VAR_POSITIONAL:
            positions += [(p_index + len(bound), i) for i in range(len(args) - k)]
            break
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            positions.append((p_index + len(bound), None))
            k += 1
    if bound:
        first = next(iter(inspect.signature(target).parameters), "self")
        names = (first,) + names
    values = bound + tuple(ba.arguments.values())
    var_keyword = next((p.name for p in signature.parameters.values()
                        if p.kind == p.VAR_KEYWORD), None)
    return Binding(target, names, values, len(bound), tuple(positions), var_keyword)


def _python_message(fn: Callable, args: tuple, kwargs: dict) -> str | None:
    """The message of the TypeError Python raises for this wrong call of `fn`: a function
    with `fn`'s parameters (defaults replaced, the body empty) is called with the arguments."""
    signature = inspect.signature(fn)
    params = [p.replace(default=None if p.default is not p.empty else p.empty,
                        annotation=p.empty) for p in signature.parameters.values()]
    text = str(signature.replace(parameters=params, return_annotation=signature.empty))
    namespace: dict = {}
    exec(f"def stub{text}:\n    pass", namespace)  # parameter names only
    stub = namespace["stub"]
    stub.__name__, stub.__qualname__ = fn.__name__, fn.__qualname__
    try:
        stub(*args, **kwargs)
    except TypeError as e:
        return str(e)
    return None


def flatten(value: Any, where: str, static_scalars: bool = False,
            known: bool = False) -> tuple[Tree, list]:
    """(tree, runtime leaves) of one parameter value (see the module docstring); with
    `known`, numbers are `Known` leaves instead of compile-time values."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and (
            value.dtype in ARRAY_DTYPES or value.dtype in COMPLEX_DTYPES):
        tree, leaves = flatten(value[()], where, static_scalars, known)  # its number
        return Node("array0", (tree,)), leaves
    if isinstance(value, complex | np.complexfloating) or isinstance(value, np.ndarray) and \
            value.dtype in COMPLEX_DTYPES:
        return complex_parts(value, where)
    if known and isinstance(value, SCALARS):
        t = arg_type(value, where)
        return Known(t.dtype, t.shape, value.item() if isinstance(value, np.generic)
                     else value), [value]
    if isinstance(value, (np.ndarray, *SCALARS)):
        if static_scalars and isinstance(value, bool | np.bool_):
            return Static(bool(value)), []
        if static_scalars and isinstance(value, int | np.integer):
            return Static(int(value)), []
        if static_scalars and isinstance(value, float | np.floating):
            return Static(float(value)), []
        return arg_type(value, where), [value]
    named = isinstance(value, tuple) and hasattr(type(value), "_fields")
    if type(value) in (tuple, list) or named:
        pairs = [flatten(v, f"{where}[{i}]", static_scalars, known)
                 for i, v in enumerate(value)]
        kind = "list" if isinstance(value, list) else "tuple"
        return Node(kind, tuple(t for t, _ in pairs), named=type(value) if named else None), \
            [leaf for _, leaves in pairs for leaf in leaves]
    if type(value) is dict:
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"argument {where} is a dict with a key {key!r}; compiled "
                                "functions take dicts with string keys")
        pairs = [flatten(v, f"{where}[{k!r}]", static_scalars, known)
                 for k, v in value.items()]
        return Node("dict", tuple(t for t, _ in pairs), tuple(value)), \
            [leaf for _, leaves in pairs for leaf in leaves]
    return Static(value), []


def type_tree(t: Tree) -> Tree:
    """The tree of a parameter given as a type (`show`, ahead-of-time kernels): a complex
    type is a "complex" Node of its parts, as `complex_parts` makes it; others unchanged."""
    if isinstance(t, Type) and t.is_complex:
        part = Type(t.dtype.real_dtype, t.shape)
        return Node("complex", (part, part))
    return t


def complex_parts(value: Any, where: str) -> tuple[Tree, list]:
    """(tree, leaves) of a complex number or array: a "complex" Node of its real and imaginary
    parts (float arrays of its shape, contiguous copies), rebuilt as the complex value."""
    if isinstance(value, np.complex64):  # a number of its precision, as np.float32's
        return Node("complex", (F32, F32)), [np.float32(value.real), np.float32(value.imag)]
    if isinstance(value, complex):  # np.complex128 too: a Python complex
        return Node("complex", (F64, F64)), [float(value.real), float(value.imag)]
    real = np.dtype(COMPLEX_DTYPES[value.dtype])
    parts = [np.ascontiguousarray(value.real, real), np.ascontiguousarray(value.imag, real)]
    t = arg_type(parts[0], where)
    return Node("complex", (t, t)), parts


def has_static(tree: Tree) -> bool:
    """Whether `tree` has a compile-time part (a `Known` number's value is one)."""
    return isinstance(tree, Static | Known) or isinstance(tree, Node) and any(
        has_static(c) for c in tree.children)


def leaf_types(tree: Tree) -> list[Type]:
    if isinstance(tree, Type):
        return [tree]
    if isinstance(tree, Node):
        return [t for child in tree.children for t in leaf_types(child)]
    return []


def returns_selection(tree: Tree) -> bool:
    """Whether a result of `tree` holds a boolean selection (its length known only at run
    time: transformations other than `jit` refuse it)."""
    return isinstance(tree, Node) and (tree.kind in ("selection", "runlist", "runzip",
                                                     "runarray") or any(
        returns_selection(child) for child in tree.children))


def selection_refused(what: str) -> TypeError:
    return TypeError(f"{what}: the function returns a boolean selection (`x[mask]`, "
                     "np.nonzero, ...) or a list whose length is known only at run time; return "
                     "it from `jit` only, or reduce it (np.sum(x[mask]), sum(xs))")


def unflatten(tree: Tree, leaves: Iterator | list) -> Any:
    """The Python value of `tree` with runtime leaves taken in order from `leaves`."""
    leaves = iter(leaves)
    return _unflatten(tree, leaves)


def _unflatten(tree: Tree, leaves: Iterator) -> Any:
    if isinstance(tree, Type):
        return next(leaves)
    if isinstance(tree, Static):
        return tree.value
    children = [_unflatten(child, leaves) for child in tree.children]
    if tree.kind == "selection":  # a boolean selection returned: the array and its mask
        return children[0][children[1]]
    if tree.kind == "runlist":
        return run_time_list(children[0], tree.keys)
    if tree.kind == "runzip":  # a list of tuples: one list per field
        return [tuple(item) for item in zip(*children, strict=True)]
    if tree.kind == "runarray":
        return run_time_array(children[0], tree.children[0].keys)
    if tree.kind == "array0":
        return np.asarray(children[0])
    if tree.kind in ("complex", "conjugate"):
        return complex_value(tree, *children)
    if tree.kind == "dict":
        return dict(zip(tree.keys, children, strict=True))
    if tree.named is not None:
        return tree.named(*children)
    return list(children) if tree.kind == "list" else tuple(children)


def complex_value(tree: Node, real: Any, imag: Any) -> Any:
    """The complex value of a "complex" Node's parts (real + i imag), or of a "conjugate"
    one's (real - i imag: a gradient in JAX's convention, see `cotangents`)."""
    imag = -imag if tree.kind == "conjugate" else imag
    if isinstance(real, np.float32):
        return np.complex64(complex(real, imag))
    if not isinstance(real, np.ndarray):
        return complex(real, imag)
    real = np.asarray(real)
    out = np.empty(real.shape, np.result_type(real.dtype, np.complex64))
    out.real, out.imag = real, imag
    return out


def cotangents(tree: Tree) -> Tree:
    """The tree of a gradient (or cotangent) of a value of `tree`: complex numbers in JAX's
    convention, the conjugate of (d/d real part) + i (d/d imaginary part)."""
    if not isinstance(tree, Node):
        return tree
    kind = "conjugate" if tree.kind == "complex" else tree.kind
    return Node(kind, tuple(cotangents(c) for c in tree.children), tree.keys, tree.named)


def part_kinds(tree: Tree) -> list[str | None]:
    """Per runtime leaf of `tree` (`leaf_types` order): "re" / "im" for the parts of a complex
    value ("-im" where the value is real - i imaginary: a "conjugate" Node), None for the
    others."""
    if isinstance(tree, Type):
        return [None]
    if isinstance(tree, Static):
        return []
    if tree.kind == "complex":
        return ["re", "im"]
    if tree.kind == "conjugate":  # (a gradient's) imaginary part to be negated
        return ["re", "-im"]
    return [k for child in tree.children for k in part_kinds(child)]


def split_complex(values: Sequence, kinds: Sequence[str | None], conjugate: bool) -> list:
    """`values`, one per leaf of `kinds` where a complex value counts once, as the leaves:
    a complex value as its real and imaginary parts (the imaginary part negated with
    `conjugate`: a cotangent in JAX's convention, see `cotangents`)."""
    values, flat = iter(values), []
    for kind in kinds:
        if kind == "im":
            continue
        value = next(values)
        if kind == "re":
            z = np.asarray(value)
            real = np.float32 if z.dtype in (np.complex64, np.float32) else np.float64
            parts = [np.real(z), -np.imag(z) if conjugate else np.imag(z)]
            flat += [np.ascontiguousarray(p, real) if z.ndim else real(p) for p in parts]
        else:
            flat.append(value)
    return flat


def joined_complex(values: Sequence, kinds: Sequence[str | None]) -> list:
    """The inverse of `split_complex` for gradients: each (real, imaginary) pair of leaves
    joined into one complex value in JAX's convention, real - i imaginary."""
    out, values = [], list(values)
    for k, kind in enumerate(kinds):
        if kind == "re":
            out.append(complex_value(Node("conjugate", ()), values[k], values[k + 1]))
        elif kind is None:
            out.append(values[k])
    return out


def has_complex(tree: Tree) -> bool:
    return isinstance(tree, Node) and (tree.kind == "complex" or any(
        has_complex(c) for c in tree.children))


def item_keys(item: Type) -> tuple[str, ...]:
    """The `keys` of a "runlist" Node whose items have type `item`: its dtype's name, then
    for an array "[" and its dimensions."""
    return (item.name, "[", *map(str, item.shape)) if item.is_array else (item.name,)


def run_time_list(handle: int | list, keys: tuple[str, ...]) -> list:
    """A returned list whose length is known only at run time ("runlist"), of items of the
    type `keys` names (`item_keys`): the Python backend's list, or the address of the block
    native code made (freed here)."""
    if isinstance(handle, list):
        return handle
    shape = tuple(int(d) for d in keys[2:]) if len(keys) > 1 else None
    return native_list(handle, Type(keys[0], shape))


def run_time_array(items: list, keys: tuple[str, ...]) -> np.ndarray:
    """`np.array(items)` of a returned "runarray" (a "runlist" made an array in compiled
    code), the items of the type `keys` names: numpy's empty float64 array when none."""
    if not items:
        return np.array([])
    return np.array(items, dtype=Type(keys[0]).dtype.numpy)


def retyped(tree: Tree, types: Sequence[Type]) -> Tree:
    """`tree` with its runtime leaves' types replaced by `types`, in order (the structure of
    a result whose leaves changed shape: batched, or a derivative's)."""
    types = iter(types)

    def walk(t: Tree) -> Tree:
        if isinstance(t, Type):
            return next(types)
        if isinstance(t, Static):
            return t
        return Node(t.kind, tuple(walk(c) for c in t.children), t.keys, t.named)

    return walk(tree)


def dynamic_trees(trees: Sequence[Tree]) -> tuple[Tree, ...]:
    """`trees` with every array dimension of MIN_SIZE or more a size symbol, one per
    distinct size (see the module docstring); `Known` numbers and other leaves unchanged."""
    names: dict[int, Any] = {}

    def walk(t: Tree) -> Tree:
        if isinstance(t, Known) or isinstance(t, Type) and not t.is_array:
            return t
        if isinstance(t, Type):
            return Type(t.dtype, tuple(
                n if n < MIN_SIZE else names.setdefault(n, symbol(f"d{len(names)}"))
                for n in t.shape))
        if isinstance(t, Static):
            return t
        return Node(t.kind, tuple(walk(c) for c in t.children), t.keys, t.named)

    return tuple(walk(t) for t in trees)


def has_sizes(trees: Sequence[Tree]) -> bool:
    """Whether a signature has run-time sizes (`dynamic_trees`)."""
    return bool(symbols_of(t.shape for tree in trees for t in leaf_types(tree)))


class SizesSpecialised(Exception):  # noqa: N818 - an internal signal, caught by the API
    """A signature with run-time sizes failed to compile: bind the call again (per shape)."""


def differentiable(tree: Tree, where: str) -> Tree:
    """`tree` of a differentiated argument: int and bool numbers are taken as floats; int
    and bool arrays and compile-time values cannot be differentiated (TypeError)."""
    if isinstance(tree, Node):
        return Node(tree.kind, tuple(differentiable(c, where) for c in tree.children),
                    tree.keys, tree.named)
    if isinstance(tree, Static):
        raise TypeError(f"argument {where} has type {type(tree.value).__name__}; it cannot "
                        "be differentiated (only floats and float arrays can)")
    if tree.is_float:
        return tree
    if isinstance(tree, Known):  # an int or a bool taken as a float, its value as given
        return Known(F64.dtype, None, tree.value)
    if tree.is_array:
        raise TypeError(f"argument {where} is an array of {tree.name}; grad differentiates "
                        "float arguments only (int and bool arrays are data: labels, "
                        "indices, masks); differentiate w.r.t. the float arguments")
    return F64
