"""Core IR data structures: types, values, equations and graphs. No backend knowledge.

Contract:
- Array shapes pass numpy's creation check (`check_shape`, in `Type`): every path that
  computes a shape (creation, reshape, broadcasting, ...) refuses what numpy refuses, with
  numpy's message, as a `ShapeError` (a TypeError, so type rules report it at the user's
  line).
- A `Graph` is closed: every value an equation reads is a graph input, a `Const`, or the
  output of an earlier equation of the same graph. Subgraphs (loop bodies, branch arms) are
  `Graph`s stored in an equation's params and are closed too: values from outside are passed
  as explicit inputs.
- `Var`s compare by identity (SSA: each is defined once). `hint` is the user variable the
  value came from (used by printers and the Python backend for readable names).
- An `Eqn` applies a primitive (by name, see `adlite.compiler.primitives`) to input atoms and
  defines output vars; `loc` is the user's source line, when known.
- A `Graph` declares its calling convention: its `inputs` are the user's `arguments` (in
  order) and its `externals.inputs`, hidden inputs standing for values compiled code reads
  from outside its arguments (`externals.reads`: the frontend's records of what they read,
  opaque here but for their `type`); its `outputs` are its results. Every transformation that
  makes a graph from another carries the externals forward (`Externals.renamed` when the
  inputs are fresh copies); compiled code takes them last (the pipeline puts them there).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .dims import DimLike, is_symbolic
from .dtypes import DTYPES, DType


@dataclass(frozen=True)
class Type:
    """A scalar (`shape is None`) or an array of `shape` with element type `dtype` (a
    `DType`, or its name: f64, f32, i64 or bool). Dimensions are ints, or `dims.Dim`s (sizes
    known at run time) in code compiled with `shapes="dynamic"`."""

    dtype: DType
    shape: tuple[DimLike, ...] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.dtype, str):
            object.__setattr__(self, "dtype", DTYPES[self.dtype])
        if self.shape is not None:
            check_shape(self.shape, self.dtype.itemsize)

    def __str__(self) -> str:
        if self.shape is None:
            return self.name
        return f"{self.name}[{','.join(map(str, self.shape))}]"

    @property
    def name(self) -> str:
        """The element type's name (f64, f32, i64 or bool)."""
        return self.dtype.name

    @property
    def is_float(self) -> bool:
        return self.dtype.is_float

    @property
    def is_complex(self) -> bool:
        return self.dtype.is_complex

    @property
    def is_array(self) -> bool:
        return self.shape is not None

    @property
    def scalar(self) -> Type:
        return Type(self.dtype)

    def with_shape(self, shape: tuple[int, ...] | None) -> Type:
        return Type(self.dtype, None if shape is None else tuple(shape))



class ShapeError(TypeError):
    """A shape numpy refuses to create (the frontend reports it at the user's line)."""


def check_shape(shape: tuple[int, ...], itemsize: int) -> None:
    """numpy's check when it creates an array: dimensions non-negative and the byte count,
    accumulated dimension by dimension, within int64 (else numpy's ValueError message)."""
    nbytes = itemsize
    for n in shape:
        if n < 0:
            raise ShapeError("negative dimensions are not allowed")
        if is_symbolic(n):  # a run-time size (dims.py): numpy checks the bytes at run time
            return
        nbytes *= n
        if nbytes > 2 ** 63 - 1:
            raise ShapeError("array is too big; `arr.size * arr.dtype.itemsize` is larger than "
                             "the maximum possible size.")


F64, F32, I64, BOOL = Type("f64"), Type("f32"), Type("i64"), Type("bool")
C128, C64 = Type("c128"), Type("c64")
TYPES = {t.name: t for t in (F64, F32, I64, BOOL, C128, C64)}


_ids = itertools.count()


class Var:
    """An SSA value."""

    __slots__ = ("type", "hint", "uid")

    def __init__(self, type: Type, hint: str = "") -> None:  # noqa: A002
        self.type = type
        self.hint = hint
        self.uid = next(_ids)

    def __repr__(self) -> str:
        return f"Var({self.hint or '_'}#{self.uid}:{self.type})"


@dataclass(frozen=True)
class Const:
    """A literal value of a scalar type: a number, or a run-time size (`dims.Dim`, the
    value of `len(x)` or `x.shape[k]` in code compiled with `shapes="dynamic"`: a constant
    of the compilation, known as a number only when the code runs) of type i64 or f64."""

    value: Any
    type: Type

    def __post_init__(self) -> None:
        if self.type.is_array:
            raise TypeError("constants are scalars")
        if is_symbolic(self.value) and self.type.dtype.name in ("i64", "f64"):
            return
        value = self.type.dtype.python(self.value)
        if self.type.dtype.python is int and not -2**63 <= value < 2**63:
            raise OverflowError(f"the int {value} does not fit in 64 bits (compiled code "
                                "computes with int64)")
        object.__setattr__(self, "value", value)


Atom = Var | Const


@dataclass(eq=False)
class Eqn:
    """`outputs = prim(*inputs, **params)`."""

    prim: str
    inputs: list[Atom]
    outputs: list[Var]
    params: dict[str, Any] = field(default_factory=dict)
    loc: int | None = None

    def subgraphs(self) -> list[Graph]:
        if not self.params:  # most equations (the check keeps the passes' walks cheap)
            return []
        return [g for v in self.params.values()
                for g in (v if isinstance(v, tuple) else (v,)) if isinstance(g, Graph)]


class Read(Protocol):
    """What the IR knows of a value read from outside the arguments (the frontend's
    `External`): the type of its hidden input, None for a compile-time value the code is
    specialised to (checked at every call, never passed)."""

    @property
    def type(self) -> Type | None: ...


@dataclass(frozen=True)
class Externals:
    """What a graph reads from outside its arguments: `reads`, in first-read order, and
    `inputs`, the graph inputs standing for the reads that have a type, in the same order (a
    parsed graph knows its external inputs, not what they read: `reads` is empty)."""

    reads: tuple[Read, ...] = ()
    inputs: tuple[Var, ...] = ()

    def renamed(self, old: Sequence[Var], new: Sequence[Var]) -> Externals:
        """The same externals for a graph whose inputs `new` stand for `old` (by position)."""
        position = {id(v): k for k, v in enumerate(old)}
        return Externals(self.reads, tuple(new[position[id(v)]] for v in self.inputs))


NO_EXTERNALS = Externals()


@dataclass(eq=False)
class Graph:
    """A closed function from `inputs` to `outputs` through `eqns` (in execution order),
    `externals` among its inputs (see the module's contract)."""

    inputs: list[Var]
    eqns: list[Eqn]
    outputs: list[Atom]
    name: str = "f"
    externals: Externals = NO_EXTERNALS

    @property
    def arguments(self) -> list[Var]:
        """The inputs standing for the user's arguments: all but the external ones."""
        hidden = {id(v) for v in self.externals.inputs}
        return [v for v in self.inputs if id(v) not in hidden]

    @property
    def in_types(self) -> list[Type]:
        return [v.type for v in self.inputs]

    @property
    def out_types(self) -> list[Type]:
        return [a.type for a in self.outputs]


def walk_eqns(graph: Graph):
    """Every equation of `graph` and of its subgraphs, depth first, in order."""
    stack = [iter(graph.eqns)]
    while stack:
        eqn = next(stack[-1], None)
        if eqn is None:
            stack.pop()
            continue
        yield eqn
        for sub in reversed(eqn.subgraphs()):
            stack.append(iter(sub.eqns))
