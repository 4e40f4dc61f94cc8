"""Python lists and ranges in compiled code: compile-time containers of run-time values.

Contract:
- `ListValue` is a Python list whose length is known when compiling; its items are IR values
  (numbers, arrays), tuples, lists or compile-time values. It is a mutable shared object as
  in Python: `ys = xs`, a callee's parameter and a loop's hidden sequence are the same
  object, so `append`, `extend`, `insert`, `pop`, `xs[i] = v` through any name are seen
  through all of them. An array item keeps its `Ref` (aliasing.py): a write into that array
  updates the item (`store_items`); an item that is a view of a written array, or an item
  written inside an `if` arm or a loop body that is not unrolled, is poisoned (reading it is
  refused, naming the line of the write).
- `RangeValue` is `range(start, stop, step)` with compile-time bounds (`len`, indexing,
  iteration, `list(range(...))`).
- Indices into a list are compile-time ints (constants, loop variables of unrolled loops,
  negative ones count from the end); a run-time index into a list of numbers or of arrays
  of one shape indexes their stack (`np.stack(xs)[i]`, a copy: writing into the item is
  refused).
- Lowerings registered in `registry`: `len`, `range`, `list`, `tuple`, `sum` (of a list, tuple or
  array: Python's left fold from 0), `np.array` / `np.asarray` / `np.stack` of numbers,
  arrays or nested lists (stacked along a new first axis), `np.vstack`, `np.hstack`; other
  registered lowerings receive lists as tuples (`as_tuples`).
An `if` arm or a loop body that is not unrolled reads a list through a read-only copy whose
run-time values are the block's operands (`leaf_operands`, `read_only_copies`); changing a
list there is refused (`crossing_error`), and `to_ir` unrolls instead a `for` loop with a
trip count known when compiling whose body changes or iterates over a list (`mutated`,
`control_flow.stmt_while`).
"""

from __future__ import annotations

import builtins
import itertools

import gast
import numpy as np

from ..errors import AdliteSyntaxError
from ..ir.builder import const
from ..ir.core import BOOL, C64, C128, F32, F64, I64, Const, Var
from ..ir.index import Int
from . import runtime_lists
from .aliasing import Ref, new_object
from .conversion_context import ConversionContext
from .library.arrays import joined, resolve_dtype
from .library.python_builtins import builtin_sum_of_array
from .library.registry import options, register
from .scope import Scope
from .static_requirements import refusal
from .static_values import ListTuple


class Poisoned:
    """An item whose array was written where compiled code cannot follow it."""

    def __init__(self, line: int) -> None:
        self.line = line


class ListValue:
    """A Python list: `items` with their `refs` (aliasing.py; None for new values)."""

    python_class = list  # what `isinstance` sees

    def __init__(self, items, refs=None, builder=None) -> None:
        self.items = list(items)
        self.refs = list(refs) if refs is not None else [None] * len(self.items)
        self.builder = builder  # where it was made: writes from a nested block poison
        self.crossing = False  # a read-only copy inside an if arm or a loop body
        self.runtime: runtime_lists.RunTimeList | None = None  # its items in a buffer
        self.original: ListValue | None = None  # a read-only copy's list outside the block


class RangeValue:
    """`range(start, stop, step)` with compile-time int bounds."""

    python_class = range  # what `isinstance` sees

    def __init__(self, start: int, stop: int, step: int) -> None:
        self.range = range(start, stop, step)


class ListMethod:
    """`xs.append` before the call."""

    def __init__(self, target: ListValue, name: str) -> None:
        self.target, self.name = target, name


def new_list(conv: ConversionContext, pairs) -> ListValue:
    """A list of the (value, ref) pairs."""
    return ListValue([v for v, _ in pairs], [r for _, r in pairs], conv.b)


def crossing_error(conv: ConversionContext, name: str | None, node):
    """A list changed inside an `if` arm or a loop that is not unrolled (a `for` loop with a
    trip count known when compiling is unrolled instead: the error is `unrollable`)."""
    what = "a list comprehension whose `if` filter depends on run-time values" \
        if name and name.startswith("__lc") else \
        f"{name!r} holds a Python list, which" if name else "a Python list"
    error = refusal(conv.source, node, "list-change",
                    f"{what} cannot change inside an `if` with a run-time condition or a loop "
                    "whose trip count is only known at run time")
    error.unrollable = True
    return error


def _changed_in_a_block(conv: ConversionContext, copy: ListValue, name: str | None, node):
    """A read-only copy changed inside a block (e.g. by a function the block calls): the
    list outside moves into a buffer and the block runs again (`runtime_lists.NeedsBuffer`),
    or, when it cannot, the refusal."""
    if runtime_lists.convertible(copy.original):
        raise runtime_lists.NeedsBuffer(copy.original)
    raise crossing_error(conv, name, node)


# ---- lists read inside an if arm or a loop body (closed subgraphs) -------------------------

LEAF = "__leaf "  # hidden names of a list's run-time values passed into a block
MUTATORS = ("append", "extend", "insert", "pop")


def _leaves(value):
    if isinstance(value, ListValue | tuple | dict):
        for v in (value.items if isinstance(value, ListValue) else
                  value.values() if isinstance(value, dict) else value):
            yield from _leaves(v)
    elif isinstance(value, Var):
        yield value


def has_runtime_leaves(value) -> bool:
    """Does the container (list, tuple, dict, nested) hold run-time values?"""
    return next(_leaves(value), None) is not None


def leaf_operands(conv: ConversionContext, name: str) -> list[str]:
    """Hidden names bound to the run-time values inside list `name` (in `conv.scope`), the
    operands through which a block reads the list (`read_only_copies`)."""
    names = []
    for j, leaf in enumerate(_leaves(conv.scope.get(name))):
        conv.scope.rebind(f"{LEAF}{name} {j}", leaf)
        names.append(f"{LEAF}{name} {j}")
    return names


def read_only_copies(scope: Scope, names) -> dict:
    """Inside a block (its `scope`) whose inputs `names` bind a list's leaves, the list becomes
    a read-only copy holding the inputs (so does a list without run-time values). Returns
    {list name: the list outside} to restore afterwards."""
    env = scope.snapshot()
    lists = dict.fromkeys(n[len(LEAF):].rsplit(" ", 1)[0] for n in names if n.startswith(LEAF))
    lists.update((n, None) for n, v in env.items()
                 if isinstance(v, ListValue) and v.runtime is None and
                 next(_leaves(v), None) is None)
    originals = {}
    for name in lists:
        originals[name] = env[name]
        scope.rebind(name, _copy(env[name], env, name, itertools.count()))
    return originals


def _copy(value, env, name, counter):
    if isinstance(value, ListValue):
        copy = ListValue([_copy(v, env, name, counter) for v in value.items], value.refs,
                         value.builder)
        copy.crossing = True
        copy.original = value.original if value.crossing else value
        return copy
    if isinstance(value, tuple):
        return tuple(_copy(v, env, name, counter) for v in value)
    if isinstance(value, dict):
        return {k: _copy(v, env, name, counter) for k, v in value.items()}
    return env[f"{LEAF}{name} {next(counter)}"] if isinstance(value, Var) else value


def mutated(conv: ConversionContext, nodes) -> bool:
    """Do the nodes change a list by name (`xs.append(v)`, `xs[i] = v`, `xs = ...`)?"""
    for n in nodes:
        for sub in gast.walk(n):
            target = sub.value if isinstance(sub, gast.Attribute) and \
                sub.attr in MUTATORS else sub.value if isinstance(sub, gast.Subscript) and \
                isinstance(sub.ctx, gast.Store) else sub if isinstance(sub, gast.Name) and \
                isinstance(sub.ctx, gast.Store) else None
            if isinstance(target, gast.Name) and \
                    isinstance(conv.scope.get(target.id), ListValue):
                return True
    return False


# ---- items ---------------------------------------------------------------------------------

def _read(conv: ConversionContext, lst: ListValue, i: int, node):
    value = lst.items[i]
    if isinstance(value, Poisoned):
        raise conv.source.error(node, f"this list item is an array that was written at line "
                                      f"{value.line} inside an if or a loop, or through a view; "
                                      "compiled code cannot tell which values it holds",
                                "append a .copy() of the array, or write into the list's "
                                "item only outside ifs and loops")
    return value, lst.refs[i]


def _position(conv: ConversionContext, n: int, index, node, what: str = "list") -> int:
    if not isinstance(index, int) or isinstance(index, bool):
        raise conv.source.error(node, f"{what} indices must be integers, got {index!r}")
    if not -n <= index < n:
        raise conv.source.error(node, f"{what} index out of range (index {index}, length {n})",
                                "an IndexError in Python")
    return index % n


def getitem(conv: ConversionContext, seq, node):
    """(value, ref) of `seq[index]` for a list or range `seq`."""
    index_node = node.slice
    if getattr(seq, "runtime", None) is not None:
        if isinstance(index_node, gast.Slice):
            raise runtime_lists.refused(conv, node, "a slice")
        return runtime_lists.getitem(conv, seq, conv.expr(index_node), index_node), None
    if isinstance(index_node, gast.Slice):
        part = conv.static_slice(conv.slice_parts(index_node), index_node)
        if isinstance(seq, RangeValue):
            r = seq.range[part]
            return RangeValue(r.start, r.stop, r.step), None
        picked = range(len(seq.items))[part]
        return ListValue([seq.items[i] for i in picked], [seq.refs[i] for i in picked],
                         conv.b), None
    index = conv.scalar(conv.expr(index_node), index_node)
    n = len(seq.range) if isinstance(seq, RangeValue) else len(seq.items)
    if isinstance(index, Const):
        i = _position(conv, n, index.value, index_node,
                      "range object" if isinstance(seq, RangeValue) else "list")
        return (const(seq.range[i]), None) if isinstance(seq, RangeValue) \
            else _read(conv, seq, i, node)
    if index.type != I64:
        raise conv.source.error(index_node, f"list indices must be integers, got {index.type}")
    if isinstance(seq, RangeValue):
        if not getattr(node, "in_range", False):
            raise refusal(conv.source, node, "sequence", "a range indexed with an index known "
                                                         "only at run time",
                          "compute start + i * step")
        r = seq.range
        return conv.b.add(const(r.start), conv.b.mul(index, const(r.step))), None
    try:
        stacked = stack(conv, [_read(conv, seq, i, node)[0] for i in range(n)], node)
    except AdliteSyntaxError as e:
        e.unrollable = True  # a counted loop unrolled indexes with constants
        raise
    value = conv.b.index(stacked, conv.wrap_index(index, n, index_node), spec=(Int(),))
    return value, Ref(new_object(), frozen=True)


def setitem(conv: ConversionContext, lst: ListValue, index_node, value, ref, node) -> None:
    if lst.runtime is not None:
        return runtime_lists.setitem(conv, lst, conv.expr(index_node), value, node)
    if lst.crossing:
        _changed_in_a_block(conv, lst, None, node)
    if isinstance(value, Var | Const) and value.type.is_array and not isinstance(ref, Ref):
        ref = Ref(new_object())
    index = conv.static(conv.expr(index_node), index_node, "its index", "sequence")
    i = _position(conv, len(lst.items), index, index_node)
    lst.items[i], lst.refs[i] = value, ref


def store_items(conv: ConversionContext, obj: int, value, line: int) -> None:
    """Array object `obj` now has `value`: list items bound to it follow (see the module
    docstring); lists reachable from the converter's names."""
    seen = set()
    stack_ = [v for v in conv.scope.snapshot().values() if isinstance(v, ListValue | tuple)]
    while stack_:
        item = stack_.pop()
        if isinstance(item, tuple):
            stack_.extend(v for v in item if isinstance(v, ListValue | tuple))
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        for i, r in enumerate(item.refs):
            if isinstance(r, Ref) and obj in r.objects():
                followed = r.plain and item.builder is conv.b
                item.items[i] = value if followed else Poisoned(line)
        stack_.extend(v for v in item.items if isinstance(v, ListValue | tuple))


# ---- methods and operators -----------------------------------------------------------------

def call_method(conv: ConversionContext, method: ListMethod, pairs, kwargs, node):
    lst, name = method.target, method.name
    if kwargs:
        raise conv.source.error(node, f"keyword arguments of list.{name}()")
    if lst.runtime is not None:
        return _run_time_method(conv, lst, name, pairs, node)
    if lst.crossing and name in MUTATORS:
        value = node.func.value
        _changed_in_a_block(conv, lst, value.id if isinstance(value, gast.Name) else None, node)
    if name == "append":
        ((value, ref),) = _arity(conv, pairs, 1, 1, node, name)
        if isinstance(value, Var | Const) and value.type.is_array and not isinstance(ref, Ref):
            ref = Ref(new_object())
        lst.items.append(value)
        lst.refs.append(ref)
        return None, None
    if name == "extend":
        ((other, _),) = _arity(conv, pairs, 1, 1, node, name)
        values, refs = _contents(conv, other, node)
        lst.items.extend(values)
        lst.refs.extend(refs)
        return None, None
    if name == "insert":
        (index, _), (value, ref) = _arity(conv, pairs, 2, 2, node, name)
        i = conv.static(index, node, "its position", "sequence")
        lst.items.insert(i, value)
        lst.refs.insert(i, ref)
        return None, None
    if name == "pop":
        args = _arity(conv, pairs, 0, 1, node, name)
        if not lst.items:
            raise conv.source.error(node, "pop from empty list", "an IndexError in Python")
        i = _position(conv, len(lst.items),
                      conv.static(args[0][0], node, "its position", "sequence") if args else -1,
                      node)
        value = _read(conv, lst, i, node)
        del lst.items[i], lst.refs[i]
        return value
    if name == "copy":
        _arity(conv, pairs, 0, 0, node, name)
        return ListValue(lst.items, lst.refs, conv.b), None
    raise conv.source.error(node, f"unsupported list method .{name}()",
                            "supported: append, extend, insert, pop, copy")


def _run_time_method(conv: ConversionContext, lst: ListValue, name: str, pairs, node):
    """A method of a list whose length is known only at run time (runtime_lists.py)."""
    if name == "append":
        ((value, _),) = _arity(conv, pairs, 1, 1, node, name)
        runtime_lists.append(conv, lst, value, node)
        return None, None
    if name == "extend":
        ((other, _),) = _arity(conv, pairs, 1, 1, node, name)
        if getattr(other, "runtime", None) is not None:
            raise runtime_lists.refused(conv, node, "extending by another list")
        runtime_lists.extend(conv, lst, _contents(conv, other, node)[0], node)
        return None, None
    if name == "pop":
        args = _arity(conv, pairs, 0, 1, node, name)
        return runtime_lists.pop(conv, lst, args[0][0] if args else None, node), None
    raise runtime_lists.refused(conv, node, f"list.{name}()")


def _arity(conv: ConversionContext, pairs, low, high, node, name):
    if not low <= len(pairs) <= high:
        raise conv.source.error(node, f"list.{name}() takes {low}..{high} arguments, "
                                      f"{len(pairs)} given")
    return pairs


def _contents(conv: ConversionContext, seq, node) -> tuple[list, list]:
    """The items and refs of a list, tuple or range."""
    if getattr(seq, "runtime", None) is not None:
        raise runtime_lists.refused(conv, node, "this use (it needs the items when compiling)")
    if isinstance(seq, ListValue):
        for i in range(len(seq.items)):
            _read(conv, seq, i, node)
        return list(seq.items), list(seq.refs)
    if isinstance(seq, RangeValue):
        return [const(v) for v in seq.range], [None] * len(seq.range)
    if isinstance(seq, tuple):
        return list(seq), [None] * len(seq)
    raise conv.source.error(node, "expected a list, a tuple or a range here")


def binop(conv: ConversionContext, op: str, x, y, node):
    """`xs + ys` (a new list) and `xs * n` / `n * xs` (n a compile-time int)."""
    if op == "add" and isinstance(x, ListValue) and isinstance(y, ListValue):
        (a, ra), (b, rb) = _contents(conv, x, node), _contents(conv, y, node)
        return ListValue(a + b, ra + rb, conv.b)
    if op == "mul":
        lst, n = (x, y) if isinstance(x, ListValue) else (y, x)
        count = conv.static(n, node, "its count", "sequence")
        if isinstance(lst, ListValue) and isinstance(count, int):
            items, refs = _contents(conv, lst, node)
            return ListValue(items * max(count, 0), refs * max(count, 0), conv.b)
    raise conv.source.error(node, f"unsupported operation on a list ({op})",
                            "lists support + (another list) and * (an int known when "
                            "compiling); use np.array(xs) for arithmetic")


def unpacked(conv: ConversionContext, seq, node) -> tuple[tuple, tuple]:
    """(values, refs) of a list or range unpacked into a tuple target."""
    values, refs = _contents(conv, seq, node)
    return tuple(values), tuple(refs)


def as_tuples(value):
    """A list as a tuple (recursively), for lowerings that read sequences as tuples; a list
    whose length is known only at run time stays itself (`runtime_lists.py`)."""
    if isinstance(value, ListValue) and value.runtime is None:
        return ListTuple(as_tuples(v) for v in value.items)
    if isinstance(value, RangeValue):
        return tuple(const(v) for v in value.range)
    return value


# ---- functions -----------------------------------------------------------------------------

def stack(conv: ConversionContext, items, node, axis: int = 0, empty: bool = False):
    """np.array / np.stack of numbers, arrays of one shape, or nested sequences of them,
    along a new axis `axis` (float64; float32 when every item is, bool when every item is,
    int64 when every item is an int or a bool, complex128 when an item is complex, complex64
    when every item is complex64 or float32, as numpy's). An empty sequence is an empty
    float64 array where `empty` (np.array), numpy's ValueError otherwise (np.stack)."""
    if not items:
        if empty:
            return conv.b.zeros(F64.with_shape((0,)))
        raise conv.source.error(node, "ValueError: need at least one array to stack")
    for v in items:
        if isinstance(v, Poisoned):
            raise conv.source.error(node, f"a list item written at line {v.line} inside an if "
                                          "or a loop", "append a .copy() of the array")
    values = [stack(conv, list(as_tuples(v)), node, empty=empty)
              if isinstance(v, tuple | ListValue) else conv.value(v, node) for v in items]
    shapes = {v.type.shape for v in values}
    if len(shapes) > 1:
        raise conv.source.error(node, "np.array / np.stack of arrays of different shapes "
                                      f"{sorted(map(str, shapes))}",
                                "all items must have the same shape")
    scalars = {v.type.scalar for v in values}
    dtype = F32 if scalars == {F32} else BOOL if scalars == {BOOL} else \
        I64 if scalars <= {I64, BOOL} else F64
    if any(t.is_complex for t in scalars):  # complex64 when every item is, else complex128
        dtype = C64 if scalars <= {C64, F32} else C128
    values = [conv.to_type(v, dtype) for v in values]
    if not values[0].type.is_array:
        return conv.b.pack(*values)
    item = values[0].type.shape
    if not -len(item) - 1 <= axis <= len(item):
        raise conv.source.error(node, f"axis {axis} is out of bounds for np.stack")
    axis %= len(item) + 1
    shape = item[:axis] + (1,) + item[axis:]
    return conv.b.concatenate(*(conv.b.reshape(v, shape=shape) for v in values), axis=axis)


def _sequence_arg(conv: ConversionContext, args, node, name):
    if len(args) != 1:
        raise conv.source.error(node, f"{name} takes one list, tuple or array here")
    return _items(conv, args[0], node)


def _items(conv: ConversionContext, value, node) -> list:
    """The items of a list, tuple, range, or the rows of an array (its length is known when
    compiling)."""
    if isinstance(value, ListValue | RangeValue | tuple):
        return _contents(conv, value, node)[0]
    x = conv.array(value, node)
    return [conv.b.index(x, const(i), spec=(Int(),)) for i in range(x.type.shape[0])]


def _zip(conv: ConversionContext, args, kwargs, node):
    """`zip(...)` as a value (a tuple of tuples): `for` loops over `zip(a, b)` are lowered
    without it (normalize.py); this takes the rest, `zip(*pairs)` among them."""
    strict = kwargs.pop("strict", const(False))
    if kwargs:
        raise conv.source.error(node, f"zip() got an unexpected keyword argument "
                                      f"{next(iter(kwargs))!r}")
    columns = [_items(conv, a, node) for a in args]
    lengths = [len(c) for c in columns]
    if conv.static(strict, node, "its `strict`", "option") and len(set(lengths)) > 1:
        shorter = min(range(len(lengths)), key=lengths.__getitem__)
        raise conv.source.error(node, f"ValueError: zip() argument {shorter + 1} is shorter "
                                      "than the others")
    return tuple(zip(*columns, strict=False))  # the shortest, as Python (checked above)


def _enumerate(conv: ConversionContext, args, kwargs, node):
    """`enumerate(seq, start=0)` as a value (a tuple of (index, item) pairs)."""
    if "start" in kwargs:
        args = [*args, kwargs.pop("start")]
    if kwargs or not 1 <= len(args) <= 2:
        raise conv.source.error(node, "enumerate() takes a sequence and an optional start")
    start = conv.static(args[1], node, "its `start`", "sequence") if len(args) == 2 else 0
    if not isinstance(start, int):
        raise conv.source.error(node, f"enumerate(): the start must be an int, got {start!r}")
    return tuple((const(start + i), item) for i, item in enumerate(_items(conv, args[0], node)))


def np_array(conv: ConversionContext, args, kwargs, node, empty: bool = True):
    """np.array (and np.stack, `empty` False: an empty sequence is numpy's error)."""
    if len(args) == 2 and "dtype" not in kwargs:  # np.array(xs, float): numpy's dtype
        args, kwargs = args[:1], {**kwargs, "dtype": args[1]}
    opts = options(conv, kwargs, ("dtype", "axis"), node)
    if args and getattr(args[0], "runtime", None) is not None and not opts:
        if not empty:  # np.stack: numpy's ValueError for no items
            conv.b.emit("check", [conv.b.gt(runtime_lists.length(conv, args[0], node),
                                            const(0))], error="ValueError",
                        args=(("str", ("need at least one array to stack",)),))
        return runtime_lists.as_array(conv, args[0], node)  # np.array(xs) of run-time length
    if args and isinstance(args[0], Var | Const) and args[0].type.is_array:
        value = args[0]  # np.array(x): a copy
    else:
        value = stack(conv, _sequence_arg(conv, args, node, "np.array"), node,
                      opts.get("axis", 0), empty)
    return conv.to_type(value, resolve_dtype(conv, opts["dtype"], node)) if "dtype" in opts \
        else value


def _at_least(conv: ConversionContext, value, ndim: int, node) -> Var | Const:
    """np.atleast_1d / np.atleast_2d of one item of np.hstack / np.vstack (numbers too)."""
    v = conv.value(value, node)
    shape = v.type.shape or ()
    if len(shape) >= ndim:
        return v
    new = (1,) * (ndim - len(shape)) + shape
    return conv.b.reshape(v, shape=new) if shape else conv.b.broadcast_to(v, shape=new)


def _vstack(conv: ConversionContext, args, kwargs, node):
    rows = [_at_least(conv, v, 2, node) for v in _sequence_arg(conv, args, node, "np.vstack")]
    return conv.b.concatenate(*joined(rows, conv), axis=0)


def _hstack(conv: ConversionContext, args, kwargs, node):
    items = [_at_least(conv, v, 1, node) for v in _sequence_arg(conv, args, node, "np.hstack")]
    return conv.b.concatenate(*joined(items, conv),
                              axis=0 if len(items[0].type.shape) == 1 else 1)


def _len(conv: ConversionContext, args, kwargs, node):
    (x,) = conv.exactly(args, 1, node)
    if isinstance(x, runtime_lists.RunTimeArray):
        x = x.view
    if isinstance(x, ListValue):
        return runtime_lists.length(conv, x, node) if x.runtime is not None else \
            Const(len(x.items), I64)
    if isinstance(x, RangeValue):
        return Const(len(x.range), I64)
    if isinstance(x, tuple | str | bytes):
        return Const(len(x), I64)
    x = conv.value(x, node)
    if not x.type.is_array:
        raise conv.source.error(node, f"object of type {x.type} has no len()")
    return Const(x.type.shape[0], I64)


def iteration_length(*args):
    """The hidden trip count of a `for` loop over a sequence (normalize.py): its `len`."""
    raise TypeError("compiled code only")  # a marker object; lowered by `_iteration_length`


def _iteration_length(conv: ConversionContext, args, kwargs, node):
    (x,) = args
    if isinstance(x, Var | Const) and not x.type.is_array:
        raise conv.source.error(node, f"{node.origin} over a number ({x.type}): a number is "
                                      "not iterable",
                                "loop over an array, a list, a tuple or range(n)")
    if not isinstance(x, ListValue | RangeValue | tuple | Var | Const):
        raise conv.source.error(node, f"{node.origin} over an unsupported object "
                                      f"({type(x).__name__})",
                                "loop over an array, a list, a tuple or range(n)")
    return _len(conv, args, kwargs, node)


def zip_strict_length(*args):
    """The hidden trip count of `zip(..., strict=True)` (normalize.py)."""
    raise TypeError("compiled code only")  # a marker object; lowered by `_zip_strict_length`


def _zip_strict_length(conv: ConversionContext, args, kwargs, node):
    lengths = [conv.static(a, node, "the lengths of its sequences", "sequence") for a in args]
    if len(set(lengths)) > 1:
        raise conv.source.error(node, f"zip(strict=True) of sequences of lengths {lengths} "
                                      "(Python raises ValueError)",
                                "pass sequences of one length, or strict=False")
    return const(lengths[0])


def _range(conv: ConversionContext, args, kwargs, node):
    if kwargs or not 1 <= len(args) <= 3:
        raise conv.source.error(node, "range() takes 1 to 3 integer arguments")
    bounds = [conv.static(a, node) if isinstance(a, Const) else None for a in args]
    if any(b is None for b in bounds):
        raise refusal(conv.source, node, "sequence",
                      "a range() stored in a variable or passed on needs bounds known when "
                      "compiling, and these are known only at run time",
                      "loop over range(...) directly: `for i in range(n)`")
    if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
        raise conv.source.error(node, "range() arguments must be integers")
    start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else \
        (bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else 1)
    if step == 0:
        raise conv.source.error(node, "range() arg 3 must not be zero")
    return RangeValue(start, stop, step)


def _list(conv: ConversionContext, args, kwargs, node):
    if kwargs or len(args) > 1:
        raise conv.source.error(node, "list() takes at most one argument")
    if not args:
        return ListValue([], None, conv.b)
    return ListValue(_sequence_arg(conv, args, node, "list()"), None, conv.b)


def _tuple(conv: ConversionContext, args, kwargs, node):
    if kwargs or len(args) > 1:
        raise conv.source.error(node, "tuple() takes at most one argument")
    return tuple(_sequence_arg(conv, args, node, "tuple()")) if args else ()


def _sum(conv: ConversionContext, args, kwargs, node):
    if kwargs or not 1 <= len(args) <= 2:
        raise conv.source.error(node, "sum() takes an iterable and an optional start")
    total = args[1] if len(args) == 2 else const(0)
    if isinstance(args[0], Var | Const) and args[0].type.is_array:
        return builtin_sum_of_array(conv, args[0], total, node)
    if getattr(args[0], "runtime", None) is not None:
        return _run_time_sum(conv, args[0], conv.value(total, node), node)
    for item in _sequence_arg(conv, args[:1], node, "sum()"):
        total = conv.b.add(*conv.promote(total, item, node))
    return total


def _run_time_sum(conv: ConversionContext, lst: ListValue, total, node):
    """`sum(xs)` of a run-time list: Python's left fold from `total` (float when the items
    are; an empty list of floats sums to 0.0 where Python gives the int 0)."""
    item = runtime_lists.item_type(conv, lst, node)
    types = {item.scalar, total.type.scalar}
    acc = (F64 if F64 in types else F32 if F32 in types else I64).with_shape(item.shape)
    start = conv.to_type(total, acc.scalar)
    if acc.is_array:  # 0 + xs[0] + ...: the start broadcast to the items' shape
        start = conv.b.broadcast_to(conv.value(start, node), shape=acc.shape)
    return runtime_lists.fold(conv, lst, start, lambda b, total, v: b.add(
        total, conv.to_type(v, acc, b)), node)


register([builtins.len], _len)
register([builtins.zip], _zip)
register([builtins.enumerate], _enumerate)
register([iteration_length], _iteration_length)
register([zip_strict_length], _zip_strict_length)
register([builtins.range], _range)
register([builtins.list], _list)
register([builtins.tuple], _tuple)
register([builtins.sum], _sum)
register([np.stack], lambda conv, args, kwargs, node: np_array(
    conv, args, kwargs, node, empty=False))
register([np.vstack], _vstack)
register([np.hstack], _hstack)
