"""Native code of the run-time lists (`primitives/lists.py`): their buffers and operations.

Contract: list L's items live in the growable stack "list.L" of the frame (`tapes.tape`: its
data, a count of initialised items and a capacity), one 8-byte slot per item (a double for
floats, float32 items widened exactly; an int64 for ints and bools; for an array, the
address of the list's own malloc'd copy, on the "stored" list, and a read copies it again,
since the value read may be updated in place), freed with the tapes on every exit path. The
token (the list's end) indexes it: `list_open` reads the count of initialised items, which
every append raises to its end (the high-water mark), an append stores item n, growing the buffer by
`realloc` (doubling, from 64 items), and a read checks its index against the token (Python's
IndexError through `status`). Reverse mode's cotangent buffers are zero beyond the
initialised count (`list_adjoint_add` zero-fills what it grows into; `list_adjoint_take`
reads 0.0 there). `list_export` copies the first n items after a header holding n into a
fresh `malloc` block whose address the function returns as an i64: the caller turns it into
a Python list and frees it (`primitives.lists.native_list`)."""

from __future__ import annotations

from llvmlite import ir

from ... import status
from ...ir.core import Type
from .arrays import alloc, copy_array, element_type, itemsize, n_elements
from .context import F32, PTR, LoweringContext
from .internal_functions import for_range
from .ops import F64, I1, I64
from .registry import lowers
from .tapes import push, tape

ZERO, ONE = ir.Constant(I64, 0), ir.Constant(I64, 1)


def _slot(cx: LoweringContext, eqn) -> list:
    return tape(cx, "list." + eqn.params["list"])


def _reserve(cx: LoweringContext, slots: list, count: ir.Value, zero: bool) -> ir.Value:
    """Make room for `count` items (zero-filling the new ones where `zero`); the data."""
    b = cx.b
    grow = cx.fn.append_basic_block("list.grow")
    done = cx.fn.append_basic_block("list.ready")
    cap = b.load(slots[2], typ=I64)
    b.cbranch(b.icmp_signed(">", count, cap), grow, done)
    b.position_at_end(grow)
    doubled = b.select(b.icmp_signed("<", cap, ir.Constant(I64, 32)), ir.Constant(I64, 64),
                       b.mul(cap, ir.Constant(I64, 2)))
    new_cap = b.select(b.icmp_signed(">", count, doubled), count, doubled)
    realloc = cx.declare("realloc", ir.FunctionType(PTR, [PTR, I64]))
    grown = b.call(realloc, [b.load(slots[0], typ=PTR), b.mul(new_cap, ir.Constant(I64, 8))])
    cx.check(b.icmp_unsigned("!=", grown, ir.Constant(PTR, None)), status.NO_MEMORY)
    b.store(grown, slots[0])
    b.store(new_cap, slots[2])
    b.branch(done)
    b.position_at_end(done)
    data = b.load(slots[0], typ=PTR)
    if zero:  # items between the initialised count and `count` become 0.0
        filled = b.load(slots[1], typ=I64)
        fill = cx.fn.append_basic_block("list.zero")
        ready = cx.fn.append_basic_block("list.zeroed")
        b.cbranch(b.icmp_signed(">", count, filled), fill, ready)
        b.position_at_end(fill)
        memset = cx.declare("llvm.memset.p0.i64",
                            ir.FunctionType(ir.VoidType(), [PTR, ir.IntType(8), I64, I1]))
        start = b.gep(data, [filled], source_etype=I64)
        b.call(memset, [start, ir.Constant(ir.IntType(8), 0),
                        b.mul(b.sub(count, filled), ir.Constant(I64, 8)), ir.Constant(I1, 0)])
        b.store(count, slots[1])
        b.branch(ready)
        b.position_at_end(ready)
    return data


def _position(cx: LoweringContext, base: ir.Value, n: ir.Value, i: ir.Value,
              code: int) -> ir.Value:
    """Python's index `i` into the list at positions [base, n) as a position (else
    `code`)."""
    b = cx.b
    k = b.select(b.icmp_signed("<", i, ZERO), b.add(i, n), b.add(base, i))
    inside = b.and_(b.icmp_signed(">=", k, base), b.icmp_signed("<", k, n))
    cx.check(inside, code)
    return k


def _slot_type(t: Type) -> ir.Type:
    return F64 if t.is_float and not t.is_array else I64


def _store(cx: LoweringContext, data, k, value: ir.Value, t: Type) -> None:
    b = cx.b
    if t.is_array:  # the list keeps its own copy until the call ends
        value = b.ptrtoint(_owned_copy(cx, value, t, keep=True), I64)
    elif value.type == F32:
        value = b.fpext(value, F64)
    elif value.type == I1:
        value = b.zext(value, I64)
    b.store(value, b.gep(data, [k], source_etype=value.type))


def _owned_copy(cx: LoweringContext, ptr: ir.Value, t: Type, keep: bool) -> ir.Value:
    """A malloc'd copy of array `ptr`: freed when the call ends where `keep`, else the
    caller's to free."""
    b = cx.b
    nbytes = ir.Constant(I64, max(n_elements(t.shape) * itemsize(t), 8))
    block = b.call(cx.declare("malloc", ir.FunctionType(PTR, [I64])), [nbytes])
    cx.check(b.icmp_unsigned("!=", block, ir.Constant(PTR, None)), status.NO_MEMORY)
    b.call(cx.declare("memcpy", ir.FunctionType(PTR, [PTR, PTR, I64])), [block, ptr, nbytes])
    if keep:
        push(cx, b.ptrtoint(block, I64), "stored")
    return block


def _load(cx: LoweringContext, data, k, t: Type) -> ir.Value:
    b = cx.b
    value = b.load(b.gep(data, [k], source_etype=_slot_type(t)), typ=_slot_type(t))
    if t.is_array:  # a copy: the array read may be updated in place, the item may not
        return copy_array(cx, b.inttoptr(value, PTR), t)
    if t.name == "f32":
        return b.fptrunc(value, F32)
    return b.trunc(value, I1) if t.name == "bool" else value


@lowers("list_open")
def lower_open(cx: LoweringContext, eqn, env) -> list:
    return [cx.b.load(_slot(cx, eqn)[1], typ=I64)]  # the high-water mark


@lowers("list_append")
def lower_append(cx: LoweringContext, eqn, env) -> list:
    n, v = (cx.value(env, a) for a in eqn.inputs)
    b = cx.b
    slots = _slot(cx, eqn)
    count = b.add(n, ONE)
    data = _reserve(cx, slots, count, zero=False)
    _store(cx, data, n, v, eqn.inputs[1].type)
    mark = b.load(slots[1], typ=I64)
    b.store(b.select(b.icmp_signed(">", count, mark), count, mark), slots[1])
    return [count]


@lowers("list_get")
def lower_get(cx: LoweringContext, eqn, env) -> list:
    base, n, i = (cx.value(env, a) for a in eqn.inputs)
    k = _position(cx, base, n, i, status.LIST_INDEX)
    data = cx.b.load(_slot(cx, eqn)[0], typ=PTR)
    return [_load(cx, data, k, eqn.params["type"])]


@lowers("list_set")
def lower_set(cx: LoweringContext, eqn, env) -> list:
    base, n, i, v = (cx.value(env, a) for a in eqn.inputs)
    k = _position(cx, base, n, i, status.LIST_SET_INDEX)
    _store(cx, cx.b.load(_slot(cx, eqn)[0], typ=PTR), k, v, eqn.inputs[3].type)
    return [n]


@lowers("list_pop")
def lower_pop(cx: LoweringContext, eqn, env) -> list:
    base, n, i = (cx.value(env, a) for a in eqn.inputs)
    b = cx.b
    cx.check(b.icmp_signed(">", n, base), status.POP_EMPTY)
    k = _position(cx, base, n, i, status.POP_INDEX)
    data = b.load(_slot(cx, eqn)[0], typ=PTR)
    value = _load(cx, data, k, eqn.params["type"])
    memmove = cx.declare("llvm.memmove.p0.p0.i64",
                         ir.FunctionType(ir.VoidType(), [PTR, PTR, I64, I1]))
    later = b.sub(b.sub(n, k), ONE)  # the items after k move down one place
    b.call(memmove, [b.gep(data, [k], source_etype=I64),
                     b.gep(data, [b.add(k, ONE)], source_etype=I64),
                     b.mul(later, ir.Constant(I64, 8)), ir.Constant(I1, 0)])
    return [value]


@lowers("list_export")
def lower_export(cx: LoweringContext, eqn, env) -> list:
    base, end = (cx.value(env, a) for a in eqn.inputs)
    b = cx.b
    n = b.sub(end, base)
    malloc = cx.declare("malloc", ir.FunctionType(PTR, [I64]))
    nbytes = b.mul(b.add(n, ONE), ir.Constant(I64, 8))
    block = b.call(malloc, [nbytes])
    cx.check(b.icmp_unsigned("!=", block, ir.Constant(PTR, None)), status.NO_MEMORY)
    b.store(n, block)
    data = _reserve(cx, _slot(cx, eqn), ONE, zero=False)  # a buffer even when never written
    data = b.gep(data, [base], source_etype=I64)  # the list's first item
    t = eqn.params["type"]
    if t.is_array:  # each item in a block of its own, which the caller frees
        def copy(k):
            item = b.inttoptr(b.load(b.gep(data, [k], source_etype=I64), typ=I64), PTR)
            own = b.ptrtoint(_owned_copy(cx, item, t, keep=False), I64)
            b.store(own, b.gep(block, [b.add(k, ONE)], source_etype=I64))
        _count(cx, n, copy)
    else:
        memcpy = cx.declare("llvm.memcpy.p0.p0.i64",
                            ir.FunctionType(ir.VoidType(), [PTR, PTR, I64, I1]))
        b.call(memcpy, [b.gep(block, [ONE], source_etype=I64), data,
                        b.mul(n, ir.Constant(I64, 8)), ir.Constant(I1, 0)])
    return [b.ptrtoint(block, I64)]


def _count(cx: LoweringContext, n: ir.Value, body) -> None:
    """`for k in range(n): body(k)` at the current position."""
    for_range(cx.b, cx.fn, ZERO, n, body)


@lowers("list_adjoint_add")
def lower_adjoint_add(cx: LoweringContext, eqn, env) -> list:
    base, n, i, c = (cx.value(env, a) for a in eqn.inputs)
    b = cx.b
    k = _position(cx, base, n, i, status.LIST_INDEX)
    data = _reserve(cx, _slot(cx, eqn), b.add(k, ONE), zero=True)
    t = eqn.inputs[3].type
    if not t.is_array:
        _store(cx, data, k, b.fadd(_load(cx, data, k, t), c), t)
        return []
    slot = b.gep(data, [k], source_etype=I64)
    held = b.load(slot, typ=I64)  # 0: no cotangent yet
    first = cx.fn.append_basic_block("list.first")
    more = cx.fn.append_basic_block("list.more")
    done = cx.fn.append_basic_block("list.added")
    b.cbranch(b.icmp_signed("==", held, ZERO), first, more)
    b.position_at_end(first)
    b.store(b.ptrtoint(_owned_copy(cx, c, t, keep=True), I64), slot)
    b.branch(done)
    b.position_at_end(more)
    total = b.inttoptr(held, PTR)
    elem = element_type(t)

    def add(j):
        into = b.gep(total, [j], source_etype=elem)
        b.store(b.fadd(b.load(into, typ=elem),
                       b.load(b.gep(c, [j], source_etype=elem), typ=elem)), into)
    _count(cx, ir.Constant(I64, n_elements(t.shape)), add)
    b.branch(done)
    b.position_at_end(done)
    return []


@lowers("list_adjoint_take")
def lower_adjoint_take(cx: LoweringContext, eqn, env) -> list:
    base, n, i = (cx.value(env, a) for a in eqn.inputs)
    b = cx.b
    t = eqn.params["type"]
    k = _position(cx, base, n, i, status.LIST_INDEX)
    data = _reserve(cx, _slot(cx, eqn), b.add(k, ONE), zero=True)
    if not t.is_array:
        value = _load(cx, data, k, t)
        _store(cx, data, k, ir.Constant(F64, 0.0), Type("f64"))
        return [value]
    slot = b.gep(data, [k], source_etype=I64)
    held = b.load(slot, typ=I64)  # 0: no cotangent
    value = alloc(cx, t.shape, element_type(t))
    nbytes = ir.Constant(I64, n_elements(t.shape) * itemsize(t))
    some = cx.fn.append_basic_block("list.some")
    none = cx.fn.append_basic_block("list.none")
    done = cx.fn.append_basic_block("list.taken")
    b.cbranch(b.icmp_signed("==", held, ZERO), none, some)
    b.position_at_end(some)
    b.call(cx.declare("memcpy", ir.FunctionType(PTR, [PTR, PTR, I64])),
           [value, b.inttoptr(held, PTR), nbytes])
    b.store(ZERO, slot)
    b.branch(done)
    b.position_at_end(none)
    b.call(cx.declare("memset", ir.FunctionType(PTR, [PTR, ir.IntType(32), I64])),
           [value, ir.Constant(ir.IntType(32), 0), nbytes])
    b.branch(done)
    b.position_at_end(done)
    return [value]
