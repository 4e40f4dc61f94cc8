"""Parallel loop nests: a loop nest's outer dimension cut into fixed blocks run by the pool.

Contract (functions of the lowering context `cx`, context.py):
- `rows_per_block(shape)`: the rows of dimension 0 in one block (BLOCK elements, at least one
  row), or None when the nest stays one plain loop: fewer than PARALLEL_MIN elements (small
  arrays never pay for threads) or fewer than two blocks. It depends on the shape only, never
  on the thread count, so a blocked reduction has the same bits for any number of threads.
  For a shape with run-time sizes (`ir.dims`) it is None: `any_nest` decides when the code
  runs, by the same rule.
- `parallel_nest(cx, shape, body, cuts, per, before, after)` emits, at the current position,
  a call to the pool (threads.py) that runs, for every block k of dimension 0, an outlined
  function doing `before(k)`, `arrays.loop_nest` of (shape, body, cuts) over the block's
  rows, then `after(k)`; a nonzero status of the block (a failed check) leaves the calling
  function through its error exit with the status of the lowest failing block, as the plain
  loop reports it. The outlined function receives the values it uses from the calling function
  in a context structure. It returns False and emits nothing in the calling function when the
  body would touch the caller's frame (an AD tape, an allocation list, a stack slot): the
  caller then emits the plain loop. While the block function is filled, `cx`'s function,
  builders, status slot and error exit are the block function's.
- `any_nest(cx, shape, body, cuts)`: `arrays.loop_nest`, run by the pool when
  `rows_per_block` allows and `parallel_nest` succeeds: for bodies whose iterations write
  disjoint elements (a map, a reduction over inner axes). With run-time sizes, both loops
  are emitted and the rule of `rows_per_block` picks one when the code runs (the same
  blocks as code compiled for the shape: the same bits). Reductions over dimension 0 of
  run-time sizes stay serial (array_rules.py).
- `define_serial(module)`: for code without the pool (ahead-of-time kernels), defines the
  module's `__adlite_parallel_for` as a loop over the blocks in order on the calling thread:
  the same blocks, so the same bits as the pool's.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

from llvmlite import ir

from ...ir.dims import is_symbolic
from .arrays import loop_nest
from .context import LoweringContext, extent
from .ops import I64
from .threads import PARALLEL_FOR

I32 = ir.IntType(32)
PTR = ir.PointerType()
BLOCK = 1 << 14  # elements per block (a fixed partition: see rows_per_block)
PARALLEL_MIN = 1 << 17  # elements below which a loop nest runs on the calling thread alone
_VALUE_ATTRIBUTES = ("pointer", "aggregate", "value")  # operands llvmlite also keeps apart
_names = itertools.count()
BODY = ir.FunctionType(I32, [PTR, I64, I64, I64])  # a block: (ctx, begin, end, block)


class _BlockArgument(ir.Argument):
    """The pool entry's `body` argument, called: a pointer to a function of type BODY."""

    @property
    def function_type(self) -> ir.FunctionType:
        return BODY


def define_serial(module: ir.Module) -> None:
    run = module.globals.get(PARALLEL_FOR)
    if run is None or not run.is_declaration:
        return
    run.linkage = "internal"
    body, ctx, rows, per = run.args
    b = ir.IRBuilder(run.append_basic_block("entry"))
    head, step, done = (run.append_basic_block(n) for n in ("head", "step", "done"))
    entry = b.block
    b.branch(head)
    b.position_at_end(head)
    k = b.phi(I64)
    k.add_incoming(ir.Constant(I64, 0), entry)
    begin = b.mul(k, per)
    b.cbranch(b.icmp_signed("<", begin, rows), step, done)
    b.position_at_end(step)
    end = b.add(begin, per)
    end = b.select(b.icmp_signed("<", end, rows), end, rows)
    body.__class__ = _BlockArgument  # an indirect call: llvmlite reads the callee's type
    status = b.call(body, [ctx, begin, end, k])
    k.add_incoming(b.add(k, ir.Constant(I64, 1)), step)
    b.cbranch(b.icmp_signed("==", status, ir.Constant(I32, 0)), head, done)
    b.position_at_end(done)
    result = b.phi(I32)
    result.add_incoming(ir.Constant(I32, 0), head)
    result.add_incoming(status, step)
    b.ret(result)


def rows_per_block(shape) -> int | None:
    if not shape or any(is_symbolic(n) for n in shape):
        return None
    inner = 1
    for n in shape[1:]:
        inner *= n
    if shape[0] * inner < PARALLEL_MIN:
        return None
    per = max(1, BLOCK // max(inner, 1))
    return per if shape[0] > per else None


def blocks(shape, per: int) -> int:
    return -(-shape[0] // per)


def _foreign(value, fn) -> bool:
    """Whether `value` is an instruction or argument of a function other than `fn`."""
    if isinstance(value, ir.Instruction):
        return value.parent.parent is not fn
    return isinstance(value, ir.Argument) and value.parent is not fn


def _operands(instr) -> list:
    if isinstance(instr, ir.PhiInstr):
        return [v for v, _ in instr.incomings]
    return list(instr.operands)


def _rewire(instr, mapping: dict) -> None:
    """Replace the operands of `instr` found in `mapping` (id -> new value)."""
    def new(v):
        return mapping.get(id(v), v)

    if isinstance(instr, ir.PhiInstr):
        instr.incomings = [(new(v), blk) for v, blk in instr.incomings]
    else:
        ops = [new(v) for v in instr.operands]
        instr.operands = ops if isinstance(instr.operands, list) else tuple(ops)
        for attr in _VALUE_ATTRIBUTES:
            if attr in vars(instr):
                setattr(instr, attr, new(vars(instr)[attr]))
        if isinstance(instr, ir.GEPInstr):
            instr.indices = [new(v) for v in instr.indices]
    instr._clear_string_cache()


def parallel_nest(cx: LoweringContext, shape, body: Callable, cuts, per: int | ir.Value,
                  before: Callable | None = None, after: Callable | None = None) -> bool:
    outer = (cx.fn, cx.b, cx.entry, cx.status, cx.fail_block, cx.memo)
    tapes, scratch, cache = dict(cx.tapes), cx.scratch_size, cx.buffer_cache
    fn = ir.Function(cx.module, BODY,
                     f"{cx.fn.name}_block{next(_names)}")
    fn.linkage = "internal"
    _ctx, begin, end, block = fn.args
    cx.fn = fn
    cx.entry = ir.IRBuilder(fn.append_basic_block("entry"))
    start = fn.append_basic_block("start")
    cx.b = ir.IRBuilder(start)
    cx.status = cx.entry.alloca(I32, name="status")
    cx.fail_block = fn.append_basic_block("fail")
    cx.memo = {}  # values of the calling function: not this one's
    try:
        state = before(block) if before else None
        loop_nest(cx, shape, body, cuts, rows=(begin, end))
        if after:
            after(block, state)
        cx.b.ret(ir.Constant(I32, 0))
        fail = ir.IRBuilder(cx.fail_block)
        fail.ret(fail.load(cx.status, typ=I32))
        inner_entry = cx.entry
    finally:
        cx.fn, cx.b, cx.entry, cx.status, cx.fail_block, cx.memo = outer
    captured = {}
    for blk in fn.blocks:
        for instr in blk.instructions:
            for v in _operands(instr):
                if _foreign(v, fn):
                    captured.setdefault(id(v), v)
    values = list(captured.values())
    if cx.tapes != tapes or cx.scratch_size != scratch or \
            any(isinstance(v, ir.AllocaInstr) for v in values):
        cx.tapes, cx.scratch_size = tapes, scratch
        cx.buffer_cache = cache
        del cx.module.globals[fn.name]
        return False
    context = ir.LiteralStructType([v.type for v in values] or [I64])
    mapping = {}
    for i, v in enumerate(values):
        field = inner_entry.gep(fn.args[0], [ir.Constant(I32, 0), ir.Constant(I32, i)],
                                inbounds=True, source_etype=context)
        mapping[id(v)] = inner_entry.load(field, typ=v.type)
    inner_entry.branch(start)
    for blk in fn.blocks:
        for instr in blk.instructions:
            if any(id(v) in mapping for v in _operands(instr)):
                _rewire(instr, mapping)
    b = cx.b
    ctx = cx.entry.alloca(context)
    for i, v in enumerate(values):
        b.store(v, b.gep(ctx, [ir.Constant(I32, 0), ir.Constant(I32, i)], inbounds=True))
    run = cx.declare(PARALLEL_FOR, ir.FunctionType(I32, [PTR, PTR, I64, I64]))
    per = ir.Constant(I64, per) if isinstance(per, int) else per
    status = b.call(run, [fn, ctx, extent(cx, shape[0]), per])
    cx.check(b.icmp_signed("==", status, ir.Constant(I32, 0)), status)
    return True


def any_nest(cx: LoweringContext, shape, body: Callable, cuts=None) -> None:
    """`loop_nest`, run by the thread pool when large enough: for bodies whose iterations
    write disjoint elements (a map, a reduction over inner axes)."""
    if shape and any(is_symbolic(n) for n in shape):
        _nest_chosen_at_run_time(cx, shape, body, cuts)
        return
    per = rows_per_block(shape)
    if per is None or not parallel_nest(cx, shape, body, cuts, per):
        loop_nest(cx, shape, body, cuts)


def _nest_chosen_at_run_time(cx: LoweringContext, shape, body: Callable, cuts) -> None:
    """`any_nest` of run-time sizes: `rows_per_block`'s rule evaluated by the code."""
    b = cx.b
    inner = extent(cx, math.prod(shape[1:]))
    rows = extent(cx, shape[0])
    per = b.udiv(ir.Constant(I64, BLOCK), b.select(
        b.icmp_signed(">", inner, ir.Constant(I64, 1)), inner, ir.Constant(I64, 1)))
    per = b.select(b.icmp_signed(">", per, ir.Constant(I64, 1)), per, ir.Constant(I64, 1))
    large = b.icmp_signed(">=", b.mul(rows, inner), ir.Constant(I64, PARALLEL_MIN))
    threaded, serial, done = (cx.fn.append_basic_block(f"nest.{n}")
                              for n in ("threads", "serial", "done"))
    b.cbranch(b.and_(large, b.icmp_signed(">", rows, per)), threaded, serial)
    b.position_at_end(threaded)
    if not parallel_nest(cx, shape, body, cuts, per):
        loop_nest(cx, shape, body, cuts)
    cx.b.branch(done)
    cx.b.position_at_end(serial)
    loop_nest(cx, shape, body, cuts)
    cx.b.branch(done)
    cx.b.position_at_end(done)
