"""Python lists whose length is known only at run time (a list grown in a `while` loop).

Contract: a run-time list is a region [base, n) of a buffer of items of one type (numbers,
or arrays of one shape), the buffer named by the parameter `list` (a string unique to the
list's creation in its function). `base` and the end `n`, the *token*, are i64 values the
program threads through like any other: each change returns the new token and each read
takes the current one, so that data flow orders reads and writes, loops carry a list as ints
and `if` arms join it. Its length is n - base. A list made where another of the same buffer
was made before (a list created in a loop body) starts after every item written so far, so
no item is ever written over by a later list while the call runs (the reverse sweep reads the
items of every iteration's list).
- `list_open[list]() -> base`: the start of a new list (the buffer's high-water mark).
- `list_append[list](n, v) -> n + 1`: item n becomes `v` (the buffer grows as needed).
- `list_get[list, type](base, n, i) -> item`: Python's `xs[i]` (a negative `i` counts from
  the end; IndexError "list index out of range").
- `list_set[list](base, n, i, v) -> n`: `xs[i] = v` (IndexError "list assignment index out
  of range").
- `list_pop[list, type](base, n, i) -> item`: `xs.pop(i)`, after which the token is n - 1;
  the later items move down (IndexError "pop from empty list" / "pop index out of range").
- `list_export[list, type](base, n) -> handle`: the list the function returns. The Python
  backend's handle is the Python list of the items; native code's is a pointer (an i64) to a
  malloc'd block holding the length and the items, which the caller turns into a Python list
  and frees (`backends/llvm/lists.py`).
Reverse mode (`ad/lists.py`) keeps the cotangents of list L's items in a second buffer,
`adjoint(L)`, indexed as L is: `list_adjoint_add[list](base, n, i, c)` adds `c` to the
cotangent of item `i` of the list [base, n) (a read's contribution) and
`list_adjoint_take[list, type](base, n, i) -> c` reads it and resets it to 0 (at the write
that made the item). Forward mode writes the tangents of L's items into `tangent(L)` in
lockstep. Every list primitive is effectful: never removed, merged, reordered or computed on
a path that did not run (an append in one arm of an `if` must not run when the other is
taken). Writes with the same token and value store the same item again, so the reverse sweep
may replay the forward code of an `if` arm (`ad/control.py`).
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np

from ..ir.core import I64
from ..ir.evaluate import current_tape
from ..ir.primitive import Primitive, register
from ..status import ERRORS, LIST_INDEX, LIST_SET_INDEX, POP_EMPTY, POP_INDEX


def adjoint(name: str) -> str:
    """The name of the buffer holding the cotangents of list `name`'s items."""
    return f"d({name})"


def tangent(name: str) -> str:
    """The name of the buffer holding the tangents of list `name`'s items."""
    return f"t({name})"


def _items(name: str) -> list:
    return current_tape(("list", name))


def _raise(status: int):
    cls, message = ERRORS[status]
    raise cls(message)


def position(base: int, n: int, i: int, status: int) -> int:
    """Python's index `i` into the list held at positions [base, n) as a position, or its
    IndexError."""
    k = i + n if i < 0 else base + i
    if not base <= k < n:
        _raise(status)
    return k


# The operations on a buffer (a Python list), as the Python backend's generated code calls
# them (`_rt.list_append(...)`) and the reference interpreter runs them.

def list_open(items: list) -> int:
    return len(items)


def list_append(items: list, n: int, v) -> int:
    if n < len(items):  # a stale item (after a pop), or the same item again (a replay)
        items[n] = v
    else:
        items.append(v)
    return n + 1


def list_get(items: list, base: int, n: int, i: int):
    return items[position(base, n, i, LIST_INDEX)]


def list_set(items: list, base: int, n: int, i: int, v) -> int:
    items[position(base, n, i, LIST_SET_INDEX)] = v
    return n


def list_pop(items: list, base: int, n: int, i: int):
    if n == base:
        _raise(POP_EMPTY)
    return items.pop(position(base, n, i, POP_INDEX))


def list_export(items: list, base: int, n: int, python: type) -> list:
    """The items as the Python list a function returns: Python floats, ints or bools, or
    copies of the arrays."""
    return [np.array(v) if isinstance(v, np.ndarray) else python(v) for v in items[base:n]]


def list_adjoint_add(items: list, base: int, n: int, i: int, c) -> None:
    k = position(base, n, i, LIST_INDEX)
    items.extend([0.0] * (k + 1 - len(items)))
    items[k] = items[k] + c


def list_adjoint_take(items: list, base: int, n: int, i: int, shape=None):
    k = position(base, n, i, LIST_INDEX)
    value = items[k] if k < len(items) else 0.0
    if k < len(items):
        items[k] = 0.0
    return np.float64(value) if shape is None else value + np.zeros(shape)


def native_list(handle: int, t) -> list:
    """The Python list of the block native code's `list_export` made (`backends/llvm/
    lists.py`: the length, then the items in 8-byte slots: doubles for floats, int64 for
    ints and bools, and for arrays the address of a block holding the array's elements, which
    is copied into a numpy array and freed), items of IR type `t`; frees the block."""
    n = ctypes.c_int64.from_address(handle).value
    if t.is_array:
        addresses = (ctypes.c_int64 * n).from_address(handle + 8)
        values = [_array_at(a, t) for a in addresses]
    else:
        items = ((ctypes.c_double if t.is_float else ctypes.c_int64) * n).from_address(
            handle + 8)
        values = [t.dtype.python(v) for v in items]
    _libc().free(ctypes.c_void_p(handle))
    return values


def _array_at(address: int, t) -> np.ndarray:
    dtype = np.dtype(t.dtype.numpy)
    size = int(np.prod(t.shape)) * dtype.itemsize
    data = ctypes.string_at(address, size)
    _libc().free(ctypes.c_void_p(address))
    return np.frombuffer(data, dtype=dtype).reshape(t.shape).copy()


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library whose `malloc` native code calls (the process's)."""
    return ctypes.CDLL(None)


def _impl(operation, outputs: int = 1):
    """The reference implementation: `operation` on the buffer named by the `list` param."""
    def impl(*args, list, **_):  # noqa: A002 - the parameter's name in the IR
        value = operation(_items(list), *args)
        return (value,) if outputs else ()
    return impl


def _export(base, n, list, type):  # noqa: A002
    return (list_export(_items(list), base, n, type.dtype.python),)


def _take(base, n, i, list, type):  # noqa: A002
    return (list_adjoint_take(_items(list), base, n, i, type.shape),)


def _py(template: str):
    return lambda args, eqn: template.format(*args, list=_buffer_name(eqn.params["list"]),
                                             type=eqn.params.get("type"))


def _buffer_name(name: str) -> str:
    """The Python backend's variable holding list `name`'s items."""
    return "_list_" + "".join(c if c.isalnum() else "_" for c in name)


def buffer_names(eqns) -> list[str]:
    """The Python backend's variables of the lists the equations use, sorted."""
    return sorted({_buffer_name(e.params["list"]) for e in eqns if e.prim in LIST_PRIMITIVES})


def _item_type(in_types, params) -> list:
    return [params["type"]]


def _register(name: str, type_rule, impl, template: str) -> None:
    register(Primitive(name, type_rule, impl, None, None, _py(template), effectful=True,
                       jvp_emits_primal=True, structural=True))


_register("list_open", lambda t, p: [I64], _impl(list_open), "_rt.list_open({list})")
_register("list_append", lambda t, p: [I64], _impl(list_append),
          "_rt.list_append({list}, {0}, {1})")
_register("list_get", _item_type, _impl(list_get), "_rt.list_get({list}, {0}, {1}, {2})")
_register("list_set", lambda t, p: [I64], _impl(list_set),
          "_rt.list_set({list}, {0}, {1}, {2}, {3})")
_register("list_pop", _item_type, _impl(list_pop), "_rt.list_pop({list}, {0}, {1}, {2})")
_register("list_export", lambda t, p: [I64], _export,
          "_rt.list_export({list}, {0}, {1}, {type.dtype.python.__name__})")
_register("list_adjoint_add", lambda t, p: [], _impl(list_adjoint_add, outputs=0),
          "_rt.list_adjoint_add({list}, {0}, {1}, {2}, {3})")
_register("list_adjoint_take", _item_type, _take,
          "_rt.list_adjoint_take({list}, {0}, {1}, {2}, {type.shape})")
LIST_PRIMITIVES = ("list_open", "list_append", "list_get", "list_set", "list_pop", "list_export",
                   "list_adjoint_add", "list_adjoint_take")
