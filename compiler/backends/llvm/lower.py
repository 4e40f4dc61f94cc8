"""IR graph -> LLVM module (llvmlite.ir) with one native function per graph.

Contract: `lower_module(graph, name)` returns an `ir.Module` defining

    int32_t name(<one scalar per input>, <one pointer per output>)

(f64 -> double, i64 and bool -> int64_t) that computes the graph, stores its outputs through
the pointers and returns 0, or returns a nonzero status of `status.py` without touching the
outputs (out of memory, integer division by zero, int64 overflow, ...). Every equation that
is not fused (fusion.py) is lowered by its primitive's `llvm` rule in the primitive table,
found in one place (`FunctionLowering.lower_eqn`; the rules are registered by `registry.py`
and `ops.py`); the rules run with the `FunctionLowering` as their context (`cx`: the
builder, the function, the error exit `check`, allocations, tapes). `while` lowers
to a loop with phi nodes for its carries that polls for Ctrl-C once per iteration unless it
provably ends within milliseconds (interrupt.py: status INTERRUPTED on the main thread),
`cond` to branches
joined by phis, and the AD tape to two growable stacks (f64, and int64 for ints and bools)
that live in the function's frame and are freed on every exit path (on Linux, a tape of 4 MiB
or more is advised onto transparent huge pages). The array buffers a loop allocates are freed
at the end of each iteration except those it carries on and those stored on the AD tape
(moved to a "stored" list freed on exit), so a loop's memory does not grow with its trip count
beyond its tape. `name` is a symbol
private to adlite (`symbol_name`, or `adlite_<name>` for ahead-of-time libraries), so a user
function named like a C library function (`exp`, `free`) never clashes with the
declarations the lowering makes.
"""

from __future__ import annotations

import re
import sys

import numpy as np
from llvmlite import ir

from ... import status
from ...ir import dtypes
from ...ir.core import Const, Graph, Var
from ...ir.loops import While
from ...ir.primitive import PRIMITIVES
from ...ir.transform import all_graphs
from . import (  # noqa: F401  (register their lowerings)
    array_rules,
    decompositions,
    effects,
    gather,
    linalg,
    sorting,
    special,
)
from .arrays import ArrayLowering, itemsize
from .declarations import function
from .fusion import Lazy, plan_fusion
from .inplace import dying_updates, in_place_updates
from .interrupt import emit_poll, needs_poll
from .ops import F64, I1, I64, overflow_intrinsic
from .parallel import ParallelLowering
from .registry import lowers

HUGE_PAGES = sys.platform.startswith("linux")  # large AD tapes on transparent huge pages
MADV_HUGEPAGE = 14

I32 = ir.IntType(32)
PTR = ir.PointerType()
F32 = ir.FloatType()
ABI = {dtypes.F64: F64, dtypes.F32: F32, dtypes.I64: I64, dtypes.BOOL: I64}
REGISTER = {dtypes.F64: F64, dtypes.F32: F32, dtypes.I64: I64, dtypes.BOOL: I1}


def abi_type(t):
    return PTR if t.is_array else ABI[t.dtype]


def register_type(t):
    return PTR if t.is_array else REGISTER[t.dtype]


class FunctionLowering(ArrayLowering, ParallelLowering):
    """Lowers one graph into one LLVM function."""

    def __init__(self, module: ir.Module, graph: Graph, name: str) -> None:
        self.module = module
        in_types = [abi_type(v.type) for v in graph.inputs]
        out_ptrs = [PTR] * len(graph.outputs)
        self.uses_arrays = has_arrays(graph)
        scratch = [PTR] if self.uses_arrays else []
        self.fn = ir.Function(module, ir.FunctionType(I32, in_types + out_ptrs + scratch), name)
        self.scratch = self.fn.args[-1] if self.uses_arrays else None
        self.scratch_size = 0
        self.loop_depth = 0
        self.in_place: set[int] = set()  # index_update equations that write in place
        self.memo: dict = {}
        self.ranges: dict = {}  # id(loop coordinate) -> (coordinate, lo, hi): see loop_nest
        self.out_buffers: dict = {}
        self.entry = ir.IRBuilder(self.fn.append_basic_block("entry"))  # allocas only
        self.b = ir.IRBuilder(self.fn.append_basic_block("start"))
        self.status = self.entry.alloca(I32, name="status")
        self.tapes = {}
        self.fail_block = self.fn.append_basic_block("fail")
        self.graph = graph

    # ---- helpers used by the primitive lowerings ---------------------------------------------

    def intrinsic(self, base: str, typ=F64):
        """`llvm.<op>.f64` or `.f32`, declared for `typ`."""
        n_args = 2 if base in ("llvm.pow", "llvm.copysign") else 1
        suffix = "f32" if isinstance(typ, ir.FloatType) else "f64"
        return self.declare(f"{base}.{suffix}", ir.FunctionType(typ, [typ] * n_args))

    def libm(self, name: str, n_args: int, typ=F64):
        """libm's `name` for double, `namef` for float."""
        if isinstance(typ, ir.FloatType):
            name += "f"
        return self.declare(name, ir.FunctionType(typ, [typ] * n_args))

    def declare(self, name: str, fn_type: ir.FunctionType):
        """Function `name` of the module, declared with `fn_type` on first use."""
        return function(self.module, name, fn_type.return_type, list(fn_type.args))

    def check(self, ok, status) -> None:
        """Continue when `ok`, else leave through the error exit with `status` (a code, or an
        i32 value computed before the check)."""
        cont = self.fn.append_basic_block("ok")
        bad = self.fn.append_basic_block("error")
        self.b.cbranch(ok, cont, bad)
        self.b.position_at_end(bad)
        self.b.store(ir.Constant(I32, status) if isinstance(status, int) else status,
                     self.status)
        self.b.branch(self.fail_block)
        self.b.position_at_end(cont)

    def int_pow(self):
        """i64 power by squaring (exponents are non-negative by construction) -> {power,
        overflowed}: a square is taken only when a higher exponent bit still needs it, so
        the flag is set exactly when Python's result does not fit int64."""
        name = "adlite_ipow"
        if name in self.module.globals:
            return self.module.globals[name]
        result_type = ir.LiteralStructType([I64, I1])
        fn = ir.Function(self.module, ir.FunctionType(result_type, [I64, I64]), name)
        fn.linkage = "internal"
        base, exp = fn.args
        entry, loop, square, done = (fn.append_basic_block(n)
                                     for n in ("entry", "loop", "square", "done"))
        b = ir.IRBuilder(entry)
        b.branch(loop)
        b.position_at_end(loop)
        acc, x, e, failed = b.phi(I64), b.phi(I64), b.phi(I64), b.phi(I1)
        acc.add_incoming(ir.Constant(I64, 1), entry)
        x.add_incoming(base, entry)
        e.add_incoming(exp, entry)
        failed.add_incoming(ir.Constant(I1, 0), entry)
        odd = b.trunc(e, I1)
        product = b.call(overflow_intrinsic(self.module, "smul"), [acc, x])
        acc2 = b.select(odd, b.extract_value(product, 0), acc)
        failed2 = b.or_(failed, b.and_(odd, b.extract_value(product, 1)))
        e2 = b.lshr(e, ir.Constant(I64, 1))
        b.cbranch(b.icmp_signed(">", e2, ir.Constant(I64, 0)), square, done)
        b.position_at_end(square)
        squared = b.call(overflow_intrinsic(self.module, "smul"), [x, x])
        for phi, value in ((acc, acc2), (x, b.extract_value(squared, 0)), (e, e2),
                           (failed, b.or_(failed2, b.extract_value(squared, 1)))):
            phi.add_incoming(value, square)
        b.branch(loop)
        b.position_at_end(done)
        result = b.insert_value(ir.Constant(result_type, ir.Undefined), acc2, 0)
        b.ret(b.insert_value(result, failed2, 1))
        return fn

    def int_truediv(self):
        """`double adlite_int_truediv(x, y)`: x / y correctly rounded, for nonzero x and y:
        64 quotient bits of the normalised magnitudes by restoring division, a sticky bit
        for the remainder, one rounding (uitofp), then an exact scaling by a power of 2."""
        name = "adlite_int_truediv"
        if name in self.module.globals:
            return self.module.globals[name]
        fn = ir.Function(self.module, ir.FunctionType(F64, [I64, I64]), name)
        fn.linkage = "internal"
        x, y = fn.args
        entry, loop, done = (fn.append_basic_block(n) for n in ("entry", "loop", "done"))
        b = ir.IRBuilder(entry)
        zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)
        ctlz = self.declare("llvm.ctlz.i64", ir.FunctionType(I64, [I64, I1]))

        def magnitude(v):  # |v| as unsigned (2**63 for -2**63)
            return b.select(b.icmp_signed("<", v, zero), b.neg(v), v)

        a, d = magnitude(x), magnitude(y)
        shift_a = b.call(ctlz, [a, ir.Constant(I1, 0)])
        shift_d = b.call(ctlz, [d, ir.Constant(I1, 0)])
        top_a, top_d = b.shl(a, shift_a), b.shl(d, shift_d)  # top bits set: ratio in (1/2, 2)
        b.branch(loop)
        b.position_at_end(loop)
        i, q, r = b.phi(I64), b.phi(I64), b.phi(I64)
        first = b.icmp_signed("==", i, zero)
        carry = b.and_(b.not_(first), b.icmp_signed("<", r, zero))  # 2r >= 2**64 > d
        r2 = b.select(first, r, b.shl(r, one))
        take = b.or_(carry, b.icmp_unsigned(">=", r2, top_d))
        q2 = b.or_(b.shl(q, one), b.zext(take, I64))
        r3 = b.select(take, b.sub(r2, top_d), r2)
        i2 = b.add(i, one)
        for phi, start, value in ((i, zero, i2), (q, zero, q2), (r, top_a, r3)):
            phi.add_incoming(start, entry)
            phi.add_incoming(value, loop)
        b.cbranch(b.icmp_signed("<", i2, ir.Constant(I64, 64)), loop, done)
        b.position_at_end(done)
        sticky = b.zext(b.icmp_signed("!=", r3, zero), I64)
        value = b.uitofp(b.or_(q2, sticky), F64)  # q2 >= 2**62: the sticky bit is below
        exponent = b.sub(b.sub(shift_d, shift_a), ir.Constant(I64, 63))  # a/d = q 2**exp
        scale = b.bitcast(b.shl(b.add(exponent, ir.Constant(I64, 1023)), ir.Constant(I64, 52)),
                          F64)
        result = b.fmul(value, scale)
        negative = b.icmp_signed("<", b.xor(x, y), zero)
        b.ret(b.select(negative, b.fneg(result), result))
        return fn

    # ---- the AD tape --------------------------------------------------------------------------

    def tape(self, kind: str):
        """(data, size, capacity) slots of the tape for `kind`, created on first use."""
        if kind not in self.tapes:
            slots = []
            for field, typ, init in (("data", PTR, None), ("size", I64, 0), ("cap", I64, 0)):
                slot = self.entry.alloca(typ, name=f"tape_{kind}_{field}")
                self.entry.store(ir.Constant(typ, init), slot)
                slots.append(slot)
            self.tapes[kind] = slots
        return self.tapes[kind]

    def push(self, value, kind: str) -> None:
        """Append to tape `kind`: "f64.<n>", "i64.<n>" (ints, bools, array pointers) for AD
        tape n, "allocs" or "stored". An array stored on an AD tape leaves "allocs" (if it is
        there) for "stored", so that the loops reclaiming their iterations' buffers keep it
        until the end of the call."""
        if value.type == PTR:
            self._retire(value)
        slot = self.tape(kind)
        elem = F64 if kind.startswith("f64") else I64
        b = self.b
        size = b.load(slot[1], typ=I64)
        cap = b.load(slot[2], typ=I64)
        grow = self.fn.append_basic_block("tape.grow")
        store = self.fn.append_basic_block("tape.store")
        b.cbranch(b.icmp_signed("==", size, cap), grow, store)
        b.position_at_end(grow)
        new_cap = b.select(b.icmp_signed("<", cap, ir.Constant(I64, 64)), ir.Constant(I64, 64),
                           b.mul(cap, ir.Constant(I64, 2)))
        realloc = self.declare("realloc", ir.FunctionType(PTR, [PTR, I64]))
        data = b.load(slot[0], typ=PTR)
        nbytes = b.mul(new_cap, ir.Constant(I64, 8))
        grown = b.call(realloc, [data, nbytes])
        self.check(b.icmp_unsigned("!=", grown, ir.Constant(PTR, None)), status.NO_MEMORY)
        if HUGE_PAGES:
            self._huge_pages(grown, nbytes)
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

    def _huge_pages(self, data, nbytes) -> None:
        """Ask Linux to back a tape of 4 MiB or more with transparent huge pages: a long
        loop's tape is written once, and a fault per 4 KiB page costs more than the stores.
        The advice covers the whole allocation (`malloc_usable_size`), pages partly used
        included, so that the mapping stays one piece that `realloc` can grow in place. Runs
        when the tape grows; a failure changes nothing."""
        b = self.b
        advise = self.fn.append_basic_block("tape.advise")
        done = self.fn.append_basic_block("tape.advised")
        b.cbranch(b.icmp_unsigned(">=", nbytes, ir.Constant(I64, 4 << 20)), advise, done)
        b.position_at_end(advise)
        usable = b.call(self.declare("malloc_usable_size", ir.FunctionType(I64, [PTR])),
                        [data])
        page = ir.Constant(I64, 4095)
        start = b.and_(b.ptrtoint(data, I64), b.not_(page))
        end = b.and_(b.add(b.add(b.ptrtoint(data, I64), usable), page), b.not_(page))
        i32 = ir.IntType(32)
        madvise = self.declare("madvise", ir.FunctionType(i32, [PTR, I64, i32]))
        b.call(madvise, [b.inttoptr(start, PTR), b.sub(end, start),
                         ir.Constant(i32, MADV_HUGEPAGE)])
        b.branch(done)
        b.position_at_end(done)

    def pop(self, t, tape: int = 0):
        """Pop a value of IR type `t` from tape number `tape`."""
        kind = "f64" if t.is_float and not t.is_array else "i64"
        value = self._pop_raw(f"{kind}.{tape}")
        if t.is_array:
            return self.b.inttoptr(value, PTR)
        if t.name == "f32":
            return self.b.fptrunc(value, F32)
        return self.b.trunc(value, I1) if t.name == "bool" else value

    def _pop_raw(self, kind: str):
        slot = self.tape(kind)
        elem = F64 if kind.startswith("f64") else I64
        b = self.b
        size = b.sub(b.load(slot[1], typ=I64), ir.Constant(I64, 1))
        b.store(size, slot[1])
        data = b.load(slot[0], typ=PTR)
        return b.load(b.gep(data, [size], inbounds=True, source_etype=elem), typ=elem)

    def _retire(self, ptr) -> None:
        """Move buffer `ptr` from "allocs" (searched from its newest entry) to "stored"."""
        b = self.b
        slots = self.tape("allocs")
        found = b.call(self._retire_function(), [slots[0], slots[1], b.ptrtoint(ptr, I64)])
        move = self.fn.append_basic_block("retire.move")
        done = self.fn.append_basic_block("retire.done")
        b.cbranch(found, move, done)
        b.position_at_end(move)
        self.push(b.ptrtoint(ptr, I64), "stored")
        b.branch(done)
        b.position_at_end(done)

    def _retire_function(self):
        """`retire(data_slot, size_slot, p) -> found`: remove p from the list, keeping the
        order of the others (it is usually among the newest, so the search is short)."""
        name = "adlite_retire"
        if name in self.module.globals:
            return self.module.globals[name]
        fn = ir.Function(self.module, ir.FunctionType(I1, [PTR, PTR, I64]), name)
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

    def free_tapes(self, b: ir.IRBuilder) -> None:
        """Free the arrays allocated so far, then the tapes themselves."""
        free = self.declare("free", ir.FunctionType(ir.VoidType(), [PTR]))
        for kind in ("allocs", "stored"):
            if kind not in self.tapes:
                continue
            data, size, _ = self.tapes[kind]
            saved, self.b = self.b, b
            head = self.fn.append_basic_block("free.head")
            body = self.fn.append_basic_block("free.body")
            done = self.fn.append_basic_block("free.done")
            b.branch(head)
            b.position_at_end(head)
            n = b.load(size, typ=I64)
            b.cbranch(b.icmp_signed(">", n, ir.Constant(I64, 0)), body, done)
            b.position_at_end(body)
            b.call(free, [b.inttoptr(self._pop_raw(kind), PTR)])
            b.branch(head)
            b.position_at_end(done)
            self.b = saved
        for data, _, _ in self.tapes.values():
            b.call(free, [b.load(data, typ=PTR)])

    # ---- graphs -------------------------------------------------------------------------------

    def value(self, env, atom):
        if isinstance(atom, Const):
            return ir.Constant(REGISTER[atom.type.dtype], atom.value)
        return env[id(atom)]

    def graph_body(self, graph: Graph, args) -> list:
        env = {id(v): a for v, a in zip(graph.inputs, args, strict=True)}
        lazy = plan_fusion(graph)
        self.in_place |= dying_updates(graph)
        for eqn in graph.eqns:
            if eqn.outputs and id(eqn.outputs[0]) in lazy:
                env[id(eqn.outputs[0])] = Lazy(eqn)
                continue
            outs = self.lower_eqn(eqn, env)
            env.update((id(v), o) for v, o in zip(eqn.outputs, outs, strict=True))
        return [self.value(env, a) for a in graph.outputs]

    def lower_eqn(self, eqn, env) -> list:
        """The output values of a non-fused equation, by its primitive's `llvm` rule: that of
        an elementwise primitive computes one element (array results: a loop nest over it,
        `lower_elementwise`), every other rule the whole equation (`registry.py`)."""
        prim = PRIMITIVES[eqn.prim]
        if prim.llvm is None:
            raise NotImplementedError(f"LLVM lowering of {eqn.prim}")
        if not prim.elementwise:
            return prim.llvm(self, eqn, env)
        if eqn.outputs[0].type.is_array:
            return self.lower_elementwise(eqn, env)
        return prim.llvm(self, [self.value(env, a) for a in eqn.inputs], eqn)

    @lowers("push")
    def lower_push(self, eqn, env):
        t = eqn.inputs[0].type
        kind = "f64" if t.is_float and not t.is_array else "i64"
        self.push(self.value(env, eqn.inputs[0]), f"{kind}.{eqn.params.get('tape', 0)}")
        return []

    @lowers("pop")
    def lower_pop(self, eqn, env):
        return [self.pop(eqn.params["type"], eqn.params.get("tape", 0))]

    @lowers("while")
    def lower_while(self, eqn, env):
        ins = [self.value(env, a) for a in eqn.inputs]
        n = While(eqn).n_consts
        for j, update_ids in in_place_updates(eqn).items():
            # a private copy, made once, that the body then updates in place
            ins[n + j] = self.copy_array(ins[n + j], eqn.inputs[n + j].type)
            self.in_place |= update_ids
        self.loop_depth += 1
        try:
            return self._loop(eqn, ins)
        finally:
            self.loop_depth -= 1

    def _loop(self, eqn, ins):
        n = While(eqn).n_consts
        consts, init = ins[:n], ins[n:]
        b = self.b
        reclaim = self.uses_arrays
        if reclaim:
            mark = b.load(self.tape("allocs")[1], typ=I64)
        pre = b.block
        head = self.fn.append_basic_block("loop.head")
        body = self.fn.append_basic_block("loop.body")
        exit_ = self.fn.append_basic_block("loop.exit")
        b.branch(head)
        b.position_at_end(head)
        phis = [b.phi(v.type) for v in init]
        for phi, v in zip(phis, init, strict=True):
            phi.add_incoming(v, pre)
        if needs_poll(eqn, self.graph):  # Ctrl-C: leave through the error exit, freeing everything
            emit_poll(self)
        (test,) = self.graph_body(eqn.params["cond"], consts + phis)
        b.cbranch(test, body, exit_)
        b.position_at_end(body)
        new = self.graph_body(eqn.params["body"], consts + phis)
        if reclaim:  # free this iteration's arrays, except those carried to the next one
            self.reclaim(mark, [v for v in new if v.type == PTR])
        latch = b.block
        for phi, v in zip(phis, new, strict=True):
            phi.add_incoming(v, latch)
        b.branch(head)
        b.position_at_end(exit_)
        return phis

    def reclaim(self, mark, keep) -> None:
        """Free the buffers allocated since `mark` whose addresses are not in `keep`."""
        b = self.b
        slots = self.tape("allocs")
        kept = self.entry.alloca(I64, size=max(len(keep), 1))
        for k, ptr in enumerate(keep):
            b.store(b.ptrtoint(ptr, I64), b.gep(kept, [ir.Constant(I64, k)], source_etype=I64))
        b.call(self._reclaim_function(), [slots[0], slots[1], mark, kept,
                                          ir.Constant(I64, len(keep))])

    def _reclaim_function(self):
        name = "adlite_reclaim"
        if name in self.module.globals:
            return self.module.globals[name]
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [PTR, PTR, I64, PTR, I64]),
                         name)
        fn.linkage = "internal"
        data_slot, size_slot, mark, kept, n_kept = fn.args
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
        free = self.declare("free", ir.FunctionType(ir.VoidType(), [PTR]))
        b.call(free, [b.inttoptr(p, PTR)])
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

    @lowers("cond")
    def lower_cond(self, eqn, env):
        pred, *operands = (self.value(env, a) for a in eqn.inputs)
        else_arm, then_arm = eqn.params["branches"]
        b = self.b
        then_bb = self.fn.append_basic_block("if.then")
        else_bb = self.fn.append_basic_block("if.else")
        merge = self.fn.append_basic_block("if.end")
        b.cbranch(pred, then_bb, else_bb)
        results = []
        for arm, block in ((then_arm, then_bb), (else_arm, else_bb)):
            b.position_at_end(block)
            outs = self.graph_body(arm, operands)
            results.append((outs, b.block))
            b.branch(merge)
        b.position_at_end(merge)
        phis = []
        for i, out in enumerate(eqn.outputs):
            phi = b.phi(register_type(out.type))
            for outs, block in results:
                phi.add_incoming(outs[i], block)
            phis.append(phi)
        return phis

    def lower(self) -> ir.Function:
        graph = self.graph
        args = []
        for v, a in zip(graph.inputs, self.fn.args[:len(graph.inputs)], strict=True):
            args.append(self.b.icmp_signed("!=", a, ir.Constant(I64, 0))
                        if v.type.name == "bool" and not v.type.is_array else a)
        out_ptrs = self.fn.args[len(graph.inputs):len(graph.inputs) + len(graph.outputs)]
        defined = {id(o) for e in graph.eqns for o in e.outputs}
        self.out_buffers = {id(a): p for a, p in zip(graph.outputs, out_ptrs, strict=True)
                            if isinstance(a, Var) and a.type.is_array and id(a) in defined
                            and a.type.is_float and graph.outputs.count(a) == 1}
        outs = self.graph_body(graph, args)
        memcpy = self.declare("memcpy", ir.FunctionType(PTR, [PTR, PTR, I64]))
        for atom, value, ptr in zip(graph.outputs, outs, out_ptrs, strict=True):
            if atom.type.is_array:
                if value is not ptr:  # not already computed in place
                    nbytes = int(np.prod(atom.type.shape)) * itemsize(atom.type)
                    self.b.call(memcpy, [ptr, value, ir.Constant(I64, nbytes)])
                continue
            if atom.type.name == "bool":
                value = self.b.zext(value, I64)
            self.b.store(value, ptr)
        self.free_tapes(self.b)
        self.b.ret(ir.Constant(I32, 0))
        fail = ir.IRBuilder(self.fail_block)
        self.free_tapes(fail)
        fail.ret(fail.load(self.status, typ=I32))
        self.entry.branch(self.fn.basic_blocks[1])
        return self.fn


def has_arrays(graph: Graph) -> bool:
    return any(v.type.is_array for g in all_graphs(graph)
               for v in list(g.inputs) + [o for e in g.eqns for o in e.outputs])


def c_identifier(name: str) -> str:
    """`name` (a Python identifier, possibly non-ASCII) as an ASCII C identifier."""
    return re.sub(r"[^0-9A-Za-z_]", lambda m: f"_u{ord(m.group()):x}_", name)


def symbol_name(name: str, tag: str) -> str:
    """The native symbol of the function compiled from graph `name`: `__adlite_<tag>_<name>`.
    The prefix keeps it apart from every libc, libm and CPython symbol (a function named
    `exp` or `free` must not replace or call the C library's), and `tag` (a digest of what is
    compiled) keeps the symbols of different modules apart."""
    return f"__adlite_{tag}_{c_identifier(name)}"


def lower_module(graph: Graph, name: str) -> ir.Module:
    """The module defining function `name`, a private symbol (`symbol_name`) that must not be
    the name of anything the lowering declares (libc/libm functions); for array code it also
    defines `int64_t <name>_scratch(void)`, the size of the scratch buffer the caller passes
    as the last argument."""
    if not name.startswith(("__adlite_", "adlite_")):
        raise ValueError(f"{name!r} is not a private adlite symbol (see symbol_name)")
    module = ir.Module(name=name)
    lowering = FunctionLowering(module, graph, name)
    lowering.lower()
    if lowering.uses_arrays:
        size_fn = ir.Function(module, ir.FunctionType(I64, []), f"{name}_scratch")
        ir.IRBuilder(size_fn.append_basic_block("entry")).ret(
            ir.Constant(I64, lowering.scratch_size))
    return module
