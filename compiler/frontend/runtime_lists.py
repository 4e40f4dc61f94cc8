"""Python lists whose length is known only at run time: a list of numbers or arrays that
changes inside a `while` loop, a `for` loop with a run-time trip count or an `if` with a
run-time condition.

Contract: such a list (`sequences.ListValue` whose `runtime` is a `RunTimeList`), of numbers
of one type, arrays of one shape and type, or tuples of those (one buffer per field), lives
in a buffer of compiled code (`primitives/lists.py`); its current length, the *token*, is
bound in the scope to a hidden name, so that loops carry it and `if`s join it as any int
variable, and aliases (`ys = xs`, the same ListValue) share it. `convert` turns a list whose
items are numbers or arrays of one type (or none) into one, before the block that changes it
(`blocks` finds them); afterwards it supports `append`, `extend` (by a list or tuple known
when compiling), `pop`, `xs[i]` and `xs[i] = v` with run-time `i` (Python's IndexErrors),
`len`, iteration (a `for` loop over it), `sum`, and `return` (a Python list of Python
numbers or numpy arrays). Inlined calls pass the lengths of the lists reachable from their
arguments and results (`share`). Its items keep one type and shape: appending another is
refused (Python's list would hold both). What needs its length when compiling (an array of
it, unpacking, `xs + ys`) is refused naming the user's line (key "run-time-list" of
`static_requirements`). Lists of lists or mixed items keep the compile-time lists' rules
(`sequences.py`).
"""

from __future__ import annotations

import contextvars
import itertools
from contextlib import contextmanager
from dataclasses import dataclass

import gast
import numpy as np

from ..arguments import Node, item_keys
from ..ir.builder import Builder, const
from ..ir.core import I64, Atom, Const, Graph, Type, Var
from ..ir.loops import While
from .conversion_context import ConversionContext
from .static_requirements import refusal

TOKEN = "__len "  # hidden names binding the lengths of run-time lists
MUTATORS = ("append", "extend", "insert", "pop")

_NAMES: contextvars.ContextVar[itertools.count | None] = contextvars.ContextVar(
    "adlite_list_names", default=None)


@contextmanager
def naming():
    """Buffer names unique within one compilation (the entry function and what it inlines)."""
    token = _NAMES.set(itertools.count())
    try:
        yield
    finally:
        _NAMES.reset(token)


class NeedsBuffer(Exception):  # noqa: N818 - an internal signal, caught by control_flow
    """A block changed `lst`, a list from outside it, other than through its own statements
    (a function it calls appends to it): convert the list before the block, then rerun it."""

    def __init__(self, lst) -> None:
        super().__init__("a list changed inside a block")
        self.lst = lst


def owns(scope, lst) -> bool:
    """Is `lst` itself (not a block's read-only copy) bound to a name of `scope`?"""
    return any(value is lst for value in scope.snapshot().values())


def tokens(scope) -> list[str]:
    """The hidden names of the lengths of the run-time lists bound in `scope`: blocks pass
    them in and out, since a function a block calls may change a list it never names."""
    return sorted(n for n in scope.snapshot() if n.startswith(TOKEN))


@dataclass
class RunTimeList:
    buffer: str  # the `list` param of its primitives (".k" added per field of a tuple)
    item: Type | tuple | None  # its items' type, or their fields' (tuples); None: not known
    token: str = ""  # the hidden name of its end (default: from the buffer's name)
    viewed: bool = False  # an array was made of it (`as_array`): its items may not change

    @property
    def token_name(self) -> str:
        return self.token or TOKEN + self.buffer

    @property
    def base_name(self) -> str:
        """The hidden name of its start (`list_open`)."""
        return f"{TOKEN}{self.buffer} base"

    def fields(self) -> list[tuple[str, Type]]:
        """(buffer, type) per field of an item: one buffer, or one per field of a tuple (all
        indexed by the same token); the first is the one `list_open` reads."""
        if isinstance(self.item, tuple):
            return [(f"{self.buffer}.{k}", t) for k, t in enumerate(self.item)]
        return [(f"{self.buffer}.0", self.item)]


def layout(value) -> Type | tuple | None:
    """The item type a list of run-time length would keep for `value`: its type, for a tuple
    the types of its fields (numbers or arrays), None when it cannot hold it."""
    if isinstance(value, Var | Const):
        return value.type
    if isinstance(value, tuple) and value and all(isinstance(v, Var | Const) for v in value):
        return tuple(v.type for v in value)
    return None


def convertible(lst) -> bool:
    """Can the list live in buffers: numbers of one type, arrays of one shape and type, or
    tuples of those with one layout (or no items)?"""
    layouts = {layout(v) for v in lst.items}
    return None not in layouts and len(layouts) <= 1


def mutated_names(nodes) -> list[str]:
    """Names of lists the nodes change in place: `xs.append(...)` (and the other mutators),
    `xs[i] = v`, `xs[i] += v`."""
    names = []
    for n in nodes:
        for sub in gast.walk(n):
            target = sub.func.value if isinstance(sub, gast.Call) and \
                isinstance(sub.func, gast.Attribute) and sub.func.attr in MUTATORS else \
                sub.value if isinstance(sub, gast.Subscript) and \
                isinstance(sub.ctx, gast.Store) else None
            if isinstance(target, gast.Name) and target.id not in names:
                names.append(target.id)
    return names


def blocks(conv: ConversionContext, nodes) -> None:
    """Before a block (a loop body, the arms of an `if`) that may run a number of times known
    only at run time: convert the lists of numbers it changes (emitting their items into the
    current builder). Blocks pass the lengths of every run-time list in and out (`tokens`)."""
    for name in mutated_names(nodes):
        lst = conv.scope.get(name) if name in conv.scope else None
        if getattr(lst, "runtime", False) is False or lst.crossing:  # not a list's own value
            continue
        if lst.runtime is None and convertible(lst):  # else refused inside the block
            convert(conv, lst)


def convert(conv: ConversionContext, lst) -> None:
    """Move the list's items into a new buffer."""
    names = _NAMES.get()
    if names is None:
        raise RuntimeError("run-time lists are named within `naming()`")
    lst.runtime = rt = RunTimeList(f"L{next(names)}",
                                   layout(lst.items[0]) if lst.items else None)
    start = conv.b.op("list_open", list=rt.fields()[0][0])
    conv.scope.rebind(rt.base_name, start)
    conv.scope.rebind(rt.token_name, start)
    items, lst.items, lst.refs = lst.items, [], []
    for v in items:
        _append_fields(conv, lst, v)


def end(conv: ConversionContext, lst, node) -> Atom:
    """The list's current end in its buffers (its token)."""
    name = lst.runtime.token_name
    if name not in conv.scope:  # e.g. held by a closure's default value
        raise refusal(conv.source, node, "run-time-list",
                      "a list whose length is known only at run time, reached here other than "
                      "as an argument or a variable", "pass the list as an argument")
    return conv.scope.get(name)


def start(conv: ConversionContext, lst, node) -> Atom:
    """Where the list starts in its buffers."""
    end(conv, lst, node)
    return conv.scope.get(lst.runtime.base_name)


def length(conv: ConversionContext, lst, node) -> Atom:
    """`len(xs)`."""
    return conv.b.sub(end(conv, lst, node), start(conv, lst, node))


def share(source, target, values) -> None:
    """Across an inlined call: the lengths of the run-time lists reachable from `values`
    (in lists, tuples and dicts), bound in scope `source`, are bound in scope `target` (the
    callee's scope on entry, the caller's on return)."""
    stack, seen = [values], set()
    while stack:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        rt = getattr(value, "runtime", None)
        if isinstance(rt, RunTimeList) and rt.token_name in source:
            target.rebind(rt.token_name, source.get(rt.token_name))
            target.rebind(rt.base_name, source.get(rt.base_name))
        items = value.values() if isinstance(value, dict) else value if isinstance(
            value, tuple | list) else getattr(value, "items", None)
        if isinstance(items, list | tuple) or isinstance(value, dict):
            stack.extend(items)


def _set_length(conv: ConversionContext, lst, token: Atom) -> None:
    conv.scope.rebind(lst.runtime.token_name, token)


def _item(conv: ConversionContext, lst, value, node):
    """`value` as an item of the list: of the list's item type (`layout`)."""
    kind = layout(value)
    if kind is None:
        raise refusal(conv.source, node, "run-time-list",
                      f"{_shown(value)} added to a list whose length is known only at run time "
                      "(such a list holds numbers of one type, arrays of one shape, or tuples "
                      "of those)")
    rt = lst.runtime
    if rt.item is None:
        rt.item = kind
    if kind != rt.item:
        scalar = isinstance(kind, Type) and isinstance(rt.item, Type) and not (
            kind.is_array or rt.item.is_array)
        hint = f"convert the value: {'float' if rt.item.is_float else 'int'}(...)" if scalar \
            else "give every item the same type and shape"
        raise refusal(conv.source, node, "run-time-list",
                      f"a {_typename(kind)} added to a list of {_typename(rt.item)} whose length "
                      "is known only at run time (compiled code keeps one type and shape per "
                      "list: Python's list would hold both)", hint)
    return value


def _typename(kind) -> str:
    return f"({', '.join(map(str, kind))})" if isinstance(kind, tuple) else str(kind)


def _shown(value) -> str:
    return "a tuple holding other values" if isinstance(value, tuple) else \
        f"a {type(value).__name__}"


def _leaves(rt: RunTimeList, value) -> list:
    return list(value) if isinstance(rt.item, tuple) else [value]


def _append_fields(conv: ConversionContext, lst, value) -> None:
    """Append `value` (of the list's layout) to each field's buffer; the first gives the new
    token (they all compute the same one)."""
    n = conv.scope.get(lst.runtime.token_name)
    rt = lst.runtime
    counts = [conv.b.op("list_append", n, v, list=buffer)
              for (buffer, _), v in zip(rt.fields(), _leaves(rt, value), strict=True)]
    _set_length(conv, lst, counts[0])


def _read(conv: ConversionContext, lst, prim: str, inputs: list, node, **params):
    """One read per field (`list_get`, `list_pop`): the item, a tuple for tuple items."""
    item_type(conv, lst, node)
    rt = lst.runtime
    values = tuple(conv.b.op(prim, *inputs, list=buffer, type=t, **params)
                   for buffer, t in rt.fields())
    return values if isinstance(rt.item, tuple) else values[0]


def item_type(conv: ConversionContext, lst, node) -> Type | tuple:
    if lst.runtime.item is None:
        raise refusal(conv.source, node, "run-time-list",
                      "a read of a list whose length is known only at run time before any "
                      "item was added to it (the type of its items is not known yet)",
                      "start the list with an item, or append before reading")
    return lst.runtime.item


def _index(conv: ConversionContext, index, node) -> Atom:
    value = conv.scalar(index, node)
    if value.type.name not in ("i64", "bool"):
        raise conv.source.error(node, f"list indices must be integers, got {value.type}")
    return conv.to_type(value, I64)


def append(conv: ConversionContext, lst, value, node) -> None:
    end(conv, lst, node)
    _append_fields(conv, lst, _item(conv, lst, value, node))


def extend(conv: ConversionContext, lst, values: list, node) -> None:
    for v in values:
        append(conv, lst, v, node)


def pop(conv: ConversionContext, lst, index, node):
    n = end(conv, lst, node)
    _unviewed(conv, lst, node)
    i = _index(conv, index, node) if index is not None else const(-1)
    value = _read(conv, lst, "list_pop", [start(conv, lst, node), n, i], node,
                  origin=_origin(conv, node))
    _set_length(conv, lst, conv.b.sub(n, const(1)))
    return value


def getitem(conv: ConversionContext, lst, index, node):
    return _read(conv, lst, "list_get", [start(conv, lst, node), end(conv, lst, node),
                                         _index(conv, index, node)], node)


def setitem(conv: ConversionContext, lst, index, value, node) -> None:
    rt, n, base = lst.runtime, end(conv, lst, node), start(conv, lst, node)
    _unviewed(conv, lst, node)
    i = _index(conv, index, node)
    leaves = _leaves(rt, _item(conv, lst, value, node))
    counts = [conv.b.op("list_set", base, n, i, v, list=buffer, origin=_origin(conv, node))
              for (buffer, _), v in zip(rt.fields(), leaves, strict=True)]
    _set_length(conv, lst, counts[0])


def _unviewed(conv: ConversionContext, lst, node) -> None:
    if lst.runtime.viewed:
        raise refused(conv, node, "changing an item (an array was made of it, which "
                                  "shares its items)")


def _origin(conv: ConversionContext, node) -> tuple[str, int, str]:
    """Where the user wrote it: (file, line, source line), for errors raised by the AD."""
    where = conv.source.error(node, "")
    return where.filename, where.line, where.source_line


def fold(conv: ConversionContext, lst, start_value: Atom, step, node,
         consts: tuple = ()) -> Atom:
    """`acc = start_value; for item in lst: acc = step(builder, acc, item, *consts)` as a
    `while` equation (`sum`, the reductions of runtime_list_reductions.py); `step` returns
    the new accumulator, of `start_value`'s type; `consts` are values from outside it reads
    (the loop's body receives them as inputs)."""
    bounds = [start(conv, lst, node), end(conv, lst, node)]
    count = conv.b.sub(bounds[1], bounds[0])
    items = item_type(conv, lst, node)
    if isinstance(items, tuple):
        raise conv.source.error(node, "TypeError: unsupported operand types for +: a tuple "
                                      "item of a list and a number")
    cond_b, body_b = Builder(conv.b.loc), Builder(conv.b.loc)

    def inputs() -> list[Var]:  # consts: base, end, count, the step's; carries: i, acc
        return [Var(I64, "base"), Var(I64, "end"), Var(I64, "n"),
                *(Var(c.type, "c") for c in consts), Var(I64, "i"), Var(start_value.type, "acc")]
    c_in, b_in = inputs(), inputs()
    test = cond_b.lt(c_in[-2], c_in[2])
    item = body_b.op("list_get", b_in[0], b_in[1], b_in[-2], list=lst.runtime.fields()[0][0],
                     type=items)
    acc = step(body_b, b_in[-1], item, *b_in[3:-2])
    body = Graph(b_in, body_b.eqns, [body_b.add(b_in[-2], const(1)), acc], "body")
    cond = Graph(c_in, cond_b.eqns, [test], "cond")
    *_, total = conv.b.emit("while", [*bounds, count, *consts, const(0), start_value],
                            **While.params(cond, body, 3 + len(consts)))
    return total


def export(conv: ConversionContext, lst, node) -> tuple[Node, list[Var]]:
    """The list as the function returns it: (its result tree, its output atoms), a handle per
    buffer, which the caller turns into a Python list ("runlist"; "runzip" zips the fields'
    lists of a list of tuples, see `arguments.py`)."""
    bounds = [start(conv, lst, node), end(conv, lst, node)]
    item_type(conv, lst, node)
    handles, trees = [], []
    for buffer, t in lst.runtime.fields():
        handles.append(conv.b.op("list_export", *bounds, list=buffer, type=t))
        trees.append(Node("runlist", (I64,), item_keys(t)))
    tree = Node("runzip", tuple(trees)) if isinstance(lst.runtime.item, tuple) else trees[0]
    return tree, handles


class RunTimeArray:
    """`np.array(xs)` / `np.asarray(xs)` of a list whose length is known only at run time: the
    items the list held then (`view`, a list sharing its buffers with the length of that
    moment; the list's items may not change afterwards). Compiled code can return it (a numpy
    array), index it, take its `len` and reduce it (runtime_list_reductions.py); what needs
    its shape when compiling is refused."""

    python_class = np.ndarray  # what `isinstance` sees

    def __init__(self, view) -> None:
        self.view = view


class ArrayMethod:
    """`a.sum` (`mean`, `max`, `min`, `prod`) of a RunTimeArray before the call."""

    def __init__(self, array: RunTimeArray, name: str) -> None:
        self.array, self.name = array, name


ARRAY_METHODS = ("sum", "mean", "max", "min", "prod")


def attribute(conv: ConversionContext, array: RunTimeArray, name: str, node):
    """An attribute of `np.array(xs)` of run-time length: its reductions' methods."""
    if name in ARRAY_METHODS:
        return ArrayMethod(array, name)
    raise refused(conv, node, f"`.{name}` of an array made")


def as_array(conv: ConversionContext, lst, node) -> RunTimeArray:
    """`np.array(lst)`: numbers or arrays of one shape (tuples are refused)."""
    if isinstance(item_type(conv, lst, node), tuple):
        raise refused(conv, node, "an array made")
    names = _NAMES.get()
    rt = lst.runtime
    view = type(lst)([], None, conv.b)
    view.runtime = RunTimeList(rt.buffer, rt.item, f"{rt.token_name}@{next(names)}")
    conv.scope.rebind(view.runtime.token_name, end(conv, lst, node))
    rt.viewed = True
    return RunTimeArray(view)


def refused(conv: ConversionContext, node, what: str):
    """The error for `what` (a construct needing the list's length when compiling)."""
    return refusal(conv.source, node, "run-time-list",
                   f"{what} of a list whose length is known only at run time")
