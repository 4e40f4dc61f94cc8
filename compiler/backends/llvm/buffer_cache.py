"""The buffers of loop iterations kept between calls: a compiled function's buffer cache.

Contract: the buffers `arrays.alloc` makes inside loops (per iteration: a time step's
residuals stored on the AD tape, its new field) came from malloc and went back to free, and
glibc gives the heap they grew back to the system (it trims its top), so every call faulted
its pages in again (a 1-D convection gradient spent most of its time so). Instead they
circulate through the function's cache, a stack of buffers: `take(cx, nbytes)` pops its top
buffer when it fits (at least `nbytes`, at most twice that plus a page, by
`malloc_usable_size`; a misfit is freed) and mallocs otherwise; the buffers an iteration no
longer needs (`tapes.reclaim`) are pushed back while the stack has room (`give_function`),
else freed; at every exit of the function (errors and interrupts included:
`tapes.free_tapes`), `keep(cx, b, lists)` makes the new stack of the buffers left in it and
those still held by the lists "allocs" and "stored", ordered so that a call with the same
shapes takes them in the order it allocates, up to CACHED_BYTES in all (the rest freed). The
cache is one global per compiled function holding a descriptor {buffers, count, capacity}:
taken by an atomic exchange with null when the call starts, put back by a compare-and-exchange
with null when it ends (when another call put one back meanwhile, this call's is freed), so
two concurrent calls never share a buffer. Only the calling thread allocates in loops
(`parallel.parallel_nest` refuses bodies that touch the lists). On Linux only (ENABLED:
`malloc_usable_size` is glibc's); elsewhere `take` is malloc and `give` free.
"""

from __future__ import annotations

import sys

from llvmlite import ir

from .context import PTR, LoweringContext
from .declarations import function
from .ops import I64

ENABLED = sys.platform.startswith("linux")
CACHED_BYTES = 256 << 20  # at most this much memory kept per compiled function
DESCRIPTOR = ir.LiteralStructType([PTR, I64, I64])  # {buffers (i64 addresses), count, capacity}


def _const(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


def _slot(cx: LoweringContext) -> ir.Value:
    """The frame slot holding this call's descriptor (null: none), taken at entry."""
    slot = cx.buffer_cache
    if slot is None:
        cache = ir.GlobalVariable(cx.module, I64, f"{cx.fn.name}_buffer_cache")
        cache.linkage, cache.initializer = "internal", _const(0)
        slot = cx.entry.alloca(PTR, name="buffer_cache")
        taken = cx.entry.atomic_rmw("xchg", cache, _const(0), "acq_rel")
        cx.entry.store(cx.entry.inttoptr(taken, PTR), slot)
        cx.buffer_cache = slot
        cx.buffer_cache_global = cache
    return slot


def take(cx: LoweringContext, nbytes: ir.Value) -> ir.Value:
    """A buffer of at least `nbytes` bytes (null when malloc fails): the cache's next one
    when it fits."""
    if not ENABLED:
        return cx.b.call(function(cx.module, "malloc", PTR, [I64]), [nbytes])
    return cx.b.call(_take_function(cx.module), [descriptor(cx, cx.b), nbytes])


def give_function(module: ir.Module) -> ir.Function:
    """`give(desc, p)`: buffer `p`, which a loop iteration no longer needs, back into the
    cache `desc` (null: none) while it has room, else freed."""
    name = "adlite_buffer_give"
    if name in module.globals:
        return module.globals[name]
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, PTR]), name)
    fn.linkage = "internal"
    desc, p = fn.args
    entry, some, put, drop = (fn.append_basic_block(k) for k in ("entry", "some", "put", "drop"))
    b = ir.IRBuilder(entry)
    b.cbranch(b.icmp_unsigned("==", desc, ir.Constant(PTR, None)), drop, some)
    b.position_at_end(some)
    count_slot, cap_slot = (_field(b, desc, k) for k in (1, 2))
    count = b.load(count_slot, typ=I64)
    b.cbranch(b.icmp_signed("<", count, b.load(cap_slot, typ=I64)), put, drop)
    b.position_at_end(put)
    b.store(b.ptrtoint(p, I64), b.gep(b.load(desc, typ=PTR), [count], source_etype=I64))
    b.store(b.add(count, _const(1)), count_slot)
    b.ret_void()
    b.position_at_end(drop)
    b.call(function(module, "free", ir.VoidType(), [PTR]), [p])
    b.ret_void()
    return fn


def descriptor(cx: LoweringContext, b: ir.IRBuilder) -> ir.Value:
    """This call's descriptor (null: none) at `b`."""
    return b.load(_slot(cx), typ=PTR) if ENABLED else ir.Constant(PTR, None)


def _field(b: ir.IRBuilder, desc: ir.Value, k: int) -> ir.Value:
    i32 = ir.IntType(32)
    return b.gep(desc, [ir.Constant(i32, 0), ir.Constant(i32, k)], inbounds=True,
                 source_etype=DESCRIPTOR)


def keep(cx: LoweringContext, b: ir.IRBuilder, lists: dict) -> None:
    """At an exit (builder `b`): the buffers of `lists` ("allocs" and "stored": their (data,
    size, capacity) slots) into the cache (see the module doc); the lists are left empty."""
    if cx.buffer_cache is None:
        return
    empty = (ir.Constant(PTR, None), _const(0))
    operands = [b.load(cx.buffer_cache, typ=PTR), cx.buffer_cache_global]
    for kind in ("allocs", "stored"):
        if kind in lists:
            data, size, _ = lists[kind]
            operands += [b.load(data, typ=PTR), b.load(size, typ=I64)]
            b.store(_const(0), size)
        else:
            operands += list(empty)
    b.call(_keep_function(cx.module), operands)


def _take_function(module: ir.Module) -> ir.Function:
    name = "adlite_buffer_take"
    if name in module.globals:
        return module.globals[name]
    fn = ir.Function(module, ir.FunctionType(PTR, [PTR, I64]), name)
    fn.linkage = "internal"
    desc, n = fn.args
    blocks = {k: fn.append_basic_block(k) for k in ("entry", "some", "next", "fits", "misfit",
                                                     "fresh")}
    b = ir.IRBuilder(blocks["entry"])
    b.cbranch(b.icmp_unsigned("==", desc, ir.Constant(PTR, None)), blocks["fresh"],
              blocks["some"])
    b.position_at_end(blocks["some"])
    count_slot = _field(b, desc, 1)
    count = b.load(count_slot, typ=I64)
    b.cbranch(b.icmp_signed(">", count, _const(0)), blocks["next"], blocks["fresh"])
    b.position_at_end(blocks["next"])
    last = b.sub(count, _const(1))
    b.store(last, count_slot)
    data = b.load(desc, typ=PTR)
    p = b.inttoptr(b.load(b.gep(data, [last], source_etype=I64), typ=I64), PTR)
    usable = b.call(function(module, "malloc_usable_size", I64, [PTR]), [p])
    fits = b.and_(b.icmp_unsigned(">=", usable, n),
                  b.icmp_unsigned("<=", usable, b.add(b.add(n, n), _const(4096))))
    b.cbranch(fits, blocks["fits"], blocks["misfit"])
    b.position_at_end(blocks["fits"])
    b.ret(p)
    b.position_at_end(blocks["misfit"])
    b.call(function(module, "free", ir.VoidType(), [PTR]), [p])
    b.branch(blocks["fresh"])
    b.position_at_end(blocks["fresh"])
    b.ret(b.call(function(module, "malloc", PTR, [I64]), [n]))
    return fn


def _loop(b: ir.IRBuilder, fn: ir.Function, n: ir.Value, body) -> None:
    """`for i in range(n): body(b, i)` at `b`, which ends after the loop."""
    pre = b.block
    head, inner, done = (fn.append_basic_block(k) for k in ("head", "body", "done"))
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64)
    i.add_incoming(_const(0), pre)
    b.cbranch(b.icmp_signed("<", i, n), inner, done)
    b.position_at_end(inner)
    body(b, i)
    i.add_incoming(b.add(i, _const(1)), b.block)
    b.branch(head)
    b.position_at_end(done)


def _keep_function(module: ir.Module) -> ir.Function:
    """`keep(desc, cache, allocs, n_allocs, stored, n_stored)`: the new cache holds the
    buffers left in the old one, then allocs reversed, then stored reversed (taken from its
    end: stored[0] first)."""
    name = "adlite_buffer_keep"
    if name in module.globals:
        return module.globals[name]
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, PTR, PTR, I64, PTR, I64]),
                     name)
    fn.linkage = "internal"
    desc, cache, allocs, n_allocs, stored, n_stored = fn.args
    free = function(module, "free", ir.VoidType(), [PTR])
    malloc = function(module, "malloc", PTR, [I64])
    usable_size = function(module, "malloc_usable_size", I64, [PTR])
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    count_slot = b.alloca(I64)
    bytes_slot = b.alloca(I64)

    def at(data, i):
        return b.gep(data, [i], source_etype=I64)

    def free_entry(b, data, i):
        b.call(free, [b.inttoptr(b.load(at(data, i), typ=I64), PTR)])

    # the old descriptor (reused) and the buffers left in it
    has_old, no_old, ready = (fn.append_basic_block(k) for k in ("old", "new", "ready"))
    b.cbranch(b.icmp_unsigned("==", desc, ir.Constant(PTR, None)), no_old, has_old)
    b.position_at_end(has_old)
    left_data = b.load(desc, typ=PTR)
    left_count = b.load(_field(b, desc, 1), typ=I64)
    b.branch(ready)
    b.position_at_end(no_old)
    fresh = b.call(malloc, [_const(24)])  # a DESCRIPTOR
    b.branch(ready)
    b.position_at_end(ready)
    d, old_data, old_count = b.phi(PTR), b.phi(PTR), b.phi(I64)
    for phi, old, new in ((d, desc, fresh), (old_data, left_data, ir.Constant(PTR, None)),
                          (old_count, left_count, _const(0))):
        phi.add_incoming(old, has_old)
        phi.add_incoming(new, no_old)
    total = b.add(old_count, b.add(n_allocs, n_stored))
    data = b.call(malloc, [b.mul(b.add(total, _const(1)), _const(8))])
    ok, fail, lost, done = (fn.append_basic_block(k) for k in ("ok", "fail", "lost", "done"))
    b.cbranch(b.and_(b.icmp_unsigned("!=", d, ir.Constant(PTR, None)),
                     b.icmp_unsigned("!=", data, ir.Constant(PTR, None))), ok, fail)
    b.position_at_end(fail)  # no memory for the cache: every buffer freed
    for source, n in ((old_data, old_count), (allocs, n_allocs), (stored, n_stored)):
        _loop(b, fn, n, lambda b, i, source=source: free_entry(b, source, i))
    for p in (old_data, d, data):
        b.call(free, [p])
    b.ret_void()
    b.position_at_end(ok)
    b.store(_const(0), count_slot)
    b.store(_const(0), bytes_slot)
    for source, n, reverse in ((old_data, old_count, False), (allocs, n_allocs, True),
                               (stored, n_stored, True)):
        def add(b, i, source=source, n=n, reverse=reverse):
            k = b.sub(b.sub(n, i), _const(1)) if reverse else i  # lists: newest first
            p = b.load(at(source, k), typ=I64)
            size = b.add(b.load(bytes_slot, typ=I64),
                         b.call(usable_size, [b.inttoptr(p, PTR)]))
            room = b.icmp_unsigned("<=", size, _const(CACHED_BYTES))
            put, drop, next_ = (fn.append_basic_block(k) for k in ("put", "drop", "next"))
            b.cbranch(room, put, drop)
            b.position_at_end(put)
            count = b.load(count_slot, typ=I64)
            b.store(p, at(data, count))
            b.store(b.add(count, _const(1)), count_slot)
            b.store(size, bytes_slot)
            b.branch(next_)
            b.position_at_end(drop)
            b.call(free, [b.inttoptr(p, PTR)])
            b.branch(next_)
            b.position_at_end(next_)
        _loop(b, fn, n, add)
    b.call(free, [old_data])
    count = b.load(count_slot, typ=I64)
    b.store(data, d)
    b.store(count, _field(b, d, 1))
    b.store(total, _field(b, d, 2))
    swapped = b.cmpxchg(cache, _const(0), b.ptrtoint(d, I64), "acq_rel",
                        "acquire")
    b.cbranch(b.extract_value(swapped, 1), done, lost)
    b.position_at_end(lost)  # another call's cache is there: this one freed
    _loop(b, fn, count, lambda b, i: free_entry(b, data, i))
    b.call(free, [data])
    b.call(free, [d])
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()
    return fn

