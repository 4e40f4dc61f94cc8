"""The growable stacks in a compiled function's frame: the AD tapes and the allocation lists.

Contract: `tape(cx, kind)` is the (data, size, capacity) slots of the stack `kind`, created
in the frame (entry block) on first use and kept in `cx.tapes`: "f64.<n>" and "i64.<n>"
(ints, bools, array pointers) for AD tape n, "allocs" (the buffers allocated inside loops)
and "stored" (buffers that must live until the call ends). `push(cx, value, kind)` appends,
growing the stack by `realloc` (doubling, from 64 entries; a stack of 4 MiB or more is
advised onto transparent huge pages on Linux); an array pushed on an AD tape moves from
"allocs" to "stored", so that the loops reclaiming their iterations' buffers (`reclaim`)
keep it. `pop(cx, t, number)` pops a value of IR type `t` from AD tape `number`.
`reclaim(cx, mark, keep)` frees the buffers allocated since `mark` except those in `keep`.
`free_tapes(cx, b)` frees, at builder `b` (an exit path), the buffers of both lists and then
the stacks themselves. The rules of the primitives `push` and `pop` are registered here.
"""

from __future__ import annotations

import sys

from llvmlite import ir

from ... import status
from . import buffer_cache
from .context import F32, PTR, LoweringContext
from .ops import F64, I1, I64
from .registry import lowers

HUGE_PAGES = sys.platform.startswith("linux")  # large AD tapes on transparent huge pages
MADV_HUGEPAGE = 14


def tape(cx: LoweringContext, kind: str) -> list:
    """(data, size, capacity) slots of the tape for `kind`, created on first use."""
    if kind not in cx.tapes:
        slots = []
        for field, typ, init in (("data", PTR, None), ("size", I64, 0), ("cap", I64, 0)):
            slot = cx.entry.alloca(typ, name=f"tape_{kind}_{field}")
            cx.entry.store(ir.Constant(typ, init), slot)
            slots.append(slot)
        cx.tapes[kind] = slots
    return cx.tapes[kind]


def push(cx: LoweringContext, value: ir.Value, kind: str) -> None:
    """Append to tape `kind`: "f64.<n>", "i64.<n>" (ints, bools, array pointers) for AD
    tape n, "allocs" or "stored". An array stored on an AD tape leaves "allocs" (if it is
    there) for "stored", so that the loops reclaiming their iterations' buffers keep it
    until the end of the call."""
    if value.type == PTR:
        _retire(cx, value)
    slot = tape(cx, kind)
    elem = F64 if kind.startswith("f64") else I64
    b = cx.b
    size = b.load(slot[1], typ=I64)
    cap = b.load(slot[2], typ=I64)
    grow = cx.fn.append_basic_block("tape.grow")
    store = cx.fn.append_basic_block("tape.store")
    b.cbranch(b.icmp_signed("==", size, cap), grow, store)
    b.position_at_end(grow)
    new_cap = b.select(b.icmp_signed("<", cap, ir.Constant(I64, 64)), ir.Constant(I64, 64),
                       b.mul(cap, ir.Constant(I64, 2)))
    realloc = cx.declare("realloc", ir.FunctionType(PTR, [PTR, I64]))
    data = b.load(slot[0], typ=PTR)
    nbytes = b.mul(new_cap, ir.Constant(I64, 8))
    grown = b.call(realloc, [data, nbytes])
    cx.check(b.icmp_unsigned("!=", grown, ir.Constant(PTR, None)), status.NO_MEMORY)
    if HUGE_PAGES:
        _huge_pages(cx, grown, nbytes)
    b.store(grown, slot[0])
    b.store(new_cap, slot[2])
    b.branch(store)
    b.position_at_end(store)
    data = b.load(slot[0], typ=PTR)
    if not kind.startswith("f64") and value.type == I1:
        value = b.zext(value, I64)
    elif value.type == PTR:
        value = b.ptrtoint(value, I64)
    elif value.type == F32:  # float32 values travel on the float64 tape, exactly
        value = b.fpext(value, F64)
    b.store(value, b.gep(data, [size], inbounds=True, source_etype=elem))
    b.store(b.add(size, ir.Constant(I64, 1)), slot[1])


def _huge_pages(cx, data, nbytes) -> None:
    """Ask Linux to back a tape of 4 MiB or more with transparent huge pages: a long
    loop's tape is written once, and a fault per 4 KiB page costs more than the stores.
    The advice covers the whole allocation (`malloc_usable_size`), pages partly used
    included, so that the mapping stays one piece that `realloc` can grow in place. Runs
    when the tape grows; a failure changes nothing."""
    b = cx.b
    advise = cx.fn.append_basic_block("tape.advise")
    done = cx.fn.append_basic_block("tape.advised")
    b.cbranch(b.icmp_unsigned(">=", nbytes, ir.Constant(I64, 4 << 20)), advise, done)
    b.position_at_end(advise)
    usable = b.call(cx.declare("malloc_usable_size", ir.FunctionType(I64, [PTR])),
                    [data])
    page = ir.Constant(I64, 4095)
    start = b.and_(b.ptrtoint(data, I64), b.not_(page))
    end = b.and_(b.add(b.add(b.ptrtoint(data, I64), usable), page), b.not_(page))
    i32 = ir.IntType(32)
    madvise = cx.declare("madvise", ir.FunctionType(i32, [PTR, I64, i32]))
    b.call(madvise, [b.inttoptr(start, PTR), b.sub(end, start),
                     ir.Constant(i32, MADV_HUGEPAGE)])
    b.branch(done)
    b.position_at_end(done)


def pop(cx: LoweringContext, t, number: int = 0) -> ir.Value:
    """Pop a value of IR type `t` from AD tape `number`."""
    kind = "f64" if t.is_float and not t.is_array else "i64"
    value = _pop_raw(cx, f"{kind}.{number}", cx.b)
    if t.is_array:
        return cx.b.inttoptr(value, PTR)
    if t.name == "f32":
        return cx.b.fptrunc(value, F32)
    return cx.b.trunc(value, I1) if t.name == "bool" else value


def _pop_raw(cx, kind: str, b: ir.IRBuilder):
    slot = tape(cx, kind)
    elem = F64 if kind.startswith("f64") else I64
    size = b.sub(b.load(slot[1], typ=I64), ir.Constant(I64, 1))
    b.store(size, slot[1])
    data = b.load(slot[0], typ=PTR)
    return b.load(b.gep(data, [size], inbounds=True, source_etype=elem), typ=elem)


def _retire(cx, ptr) -> None:
    """Move buffer `ptr` from "allocs" (searched from its newest entry) to "stored"."""
    b = cx.b
    slots = tape(cx, "allocs")
    found = b.call(_retire_function(cx.module), [slots[0], slots[1], b.ptrtoint(ptr, I64)])
    move = cx.fn.append_basic_block("retire.move")
    done = cx.fn.append_basic_block("retire.done")
    b.cbranch(found, move, done)
    b.position_at_end(move)
    push(cx, b.ptrtoint(ptr, I64), "stored")
    b.branch(done)
    b.position_at_end(done)


def _retire_function(module: ir.Module) -> ir.Function:
    """`retire(data_slot, size_slot, p) -> found`: remove p from the list, keeping the
    order of the others (it is usually among the newest, so the search is short)."""
    name = "adlite_retire"
    if name in module.globals:
        return module.globals[name]
    fn = ir.Function(module, ir.FunctionType(I1, [PTR, PTR, I64]), name)
    fn.linkage = "internal"
    data_slot, size_slot, p = fn.args
    blocks = {k: fn.append_basic_block(k) for k in
              ("entry", "search", "check", "shift", "move", "moved", "exit", "missing")}
    b = ir.IRBuilder(blocks["entry"])
    data = b.load(data_slot, typ=PTR)
    size = b.load(size_slot, typ=I64)
    one = ir.Constant(I64, 1)
    b.branch(blocks["search"])
    b.position_at_end(blocks["search"])
    i = b.phi(I64)
    i.add_incoming(size, blocks["entry"])
    b.cbranch(b.icmp_signed(">", i, ir.Constant(I64, 0)), blocks["check"], blocks["missing"])
    b.position_at_end(blocks["check"])
    k = b.sub(i, one)
    i.add_incoming(k, blocks["check"])
    hit = b.icmp_signed("==", b.load(b.gep(data, [k], source_etype=I64), typ=I64), p)
    b.cbranch(hit, blocks["shift"], blocks["search"])
    b.position_at_end(blocks["shift"])
    last = b.sub(size, one)
    b.branch(blocks["move"])
    b.position_at_end(blocks["move"])
    j = b.phi(I64)
    j.add_incoming(k, blocks["shift"])
    b.cbranch(b.icmp_signed("<", j, last), blocks["moved"], blocks["exit"])
    b.position_at_end(blocks["moved"])
    nxt = b.add(j, one)
    b.store(b.load(b.gep(data, [nxt], source_etype=I64), typ=I64),
            b.gep(data, [j], source_etype=I64))
    j.add_incoming(nxt, blocks["moved"])
    b.branch(blocks["move"])
    b.position_at_end(blocks["exit"])
    b.store(last, size_slot)
    b.ret(ir.Constant(I1, 1))
    b.position_at_end(blocks["missing"])
    b.ret(ir.Constant(I1, 0))
    return fn


def free_tapes(cx: LoweringContext, b: ir.IRBuilder) -> None:
    """Free the arrays allocated so far (those of loop iterations into the function's
    buffer cache: `buffer_cache.keep`), then the tapes themselves."""
    buffer_cache.keep(cx, b, cx.tapes)
    free = cx.declare("free", ir.FunctionType(ir.VoidType(), [PTR]))
    for kind in ("allocs", "stored"):
        if kind not in cx.tapes:
            continue
        data, size, _ = cx.tapes[kind]
        head = cx.fn.append_basic_block("free.head")
        body = cx.fn.append_basic_block("free.body")
        done = cx.fn.append_basic_block("free.done")
        b.branch(head)
        b.position_at_end(head)
        n = b.load(size, typ=I64)
        b.cbranch(b.icmp_signed(">", n, ir.Constant(I64, 0)), body, done)
        b.position_at_end(body)
        b.call(free, [b.inttoptr(_pop_raw(cx, kind, b), PTR)])
        b.branch(head)
        b.position_at_end(done)
    for data, _, _ in cx.tapes.values():
        b.call(free, [b.load(data, typ=PTR)])


def reclaim(cx: LoweringContext, mark: ir.Value, keep: list) -> None:
    """Free the buffers allocated since `mark` whose addresses are not in `keep`."""
    b = cx.b
    slots = tape(cx, "allocs")
    kept = cx.entry.alloca(I64, size=max(len(keep), 1))
    for k, ptr in enumerate(keep):
        b.store(b.ptrtoint(ptr, I64), b.gep(kept, [ir.Constant(I64, k)], source_etype=I64))
    b.call(_reclaim_function(cx.module), [slots[0], slots[1], mark, kept,
                                          ir.Constant(I64, len(keep)),
                                          buffer_cache.descriptor(cx, b)])


def _reclaim_function(module: ir.Module) -> ir.Function:
    name = "adlite_reclaim"
    if name in module.globals:
        return module.globals[name]
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, PTR, I64, PTR, I64, PTR]),
                     name)
    fn.linkage = "internal"
    data_slot, size_slot, mark, kept, n_kept, cache = fn.args
    blocks = {k: fn.append_basic_block(k) for k in
              ("entry", "loop", "scan", "search", "check", "step", "keep", "drop", "next",
               "exit")}
    b = ir.IRBuilder(blocks["entry"])
    data = b.load(data_slot, typ=PTR)
    size = b.load(size_slot, typ=I64)
    b.branch(blocks["loop"])
    b.position_at_end(blocks["loop"])
    i, j = b.phi(I64), b.phi(I64)
    i.add_incoming(mark, blocks["entry"])
    j.add_incoming(mark, blocks["entry"])
    b.cbranch(b.icmp_signed("<", i, size), blocks["scan"], blocks["exit"])
    b.position_at_end(blocks["scan"])
    p = b.load(b.gep(data, [i], source_etype=I64), typ=I64)
    b.branch(blocks["search"])
    b.position_at_end(blocks["search"])
    k = b.phi(I64)
    k.add_incoming(ir.Constant(I64, 0), blocks["scan"])
    b.cbranch(b.icmp_signed("<", k, n_kept), blocks["check"], blocks["drop"])
    b.position_at_end(blocks["check"])
    hit = b.icmp_signed("==", b.load(b.gep(kept, [k], source_etype=I64), typ=I64), p)
    b.cbranch(hit, blocks["keep"], blocks["step"])
    b.position_at_end(blocks["step"])
    k.add_incoming(b.add(k, ir.Constant(I64, 1)), blocks["step"])
    b.branch(blocks["search"])
    b.position_at_end(blocks["keep"])
    b.store(p, b.gep(data, [j], source_etype=I64))
    j_kept = b.add(j, ir.Constant(I64, 1))
    b.branch(blocks["next"])
    b.position_at_end(blocks["drop"])
    b.call(buffer_cache.give_function(module), [cache, b.inttoptr(p, PTR)])
    b.branch(blocks["next"])
    b.position_at_end(blocks["next"])
    j_next = b.phi(I64)
    j_next.add_incoming(j_kept, blocks["keep"])
    j_next.add_incoming(j, blocks["drop"])
    i.add_incoming(b.add(i, ir.Constant(I64, 1)), blocks["next"])
    j.add_incoming(j_next, blocks["next"])
    b.branch(blocks["loop"])
    b.position_at_end(blocks["exit"])
    b.store(j, size_slot)
    b.ret_void()
    return fn


@lowers("push")
def lower_push(cx: LoweringContext, eqn, env) -> list:
    t = eqn.inputs[0].type
    kind = "f64" if t.is_float and not t.is_array else "i64"
    push(cx, cx.value(env, eqn.inputs[0]), f"{kind}.{eqn.params.get('tape', 0)}")
    return []


@lowers("pop")
def lower_pop(cx: LoweringContext, eqn, env) -> list:
    return [pop(cx, eqn.params["type"], eqn.params.get("tape", 0))]
