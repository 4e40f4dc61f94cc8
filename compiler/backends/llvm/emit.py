"""Small control-flow emitters for lowering rules that write their own loops.

Contract (both emit at `cx.b`'s position, in `cx.fn`, and leave the builder after what they
emitted):
- `when(cx, cond, emit)`: `emit()` run only when the i1 `cond` holds;
- `counted(cx, start, stop, step, carried, body)`: `for i in range(start, stop, step)` (i64
  values; `step` a positive int), carrying the values `carried` (LLVM phis): `body(i, values)`
  emits one iteration and returns the next values; returns the values after the loop.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from .ops import I64


def when(cx, cond: ir.Value, emit: Callable[[], None]) -> None:
    then = cx.fn.append_basic_block("when")
    done = cx.fn.append_basic_block("when.end")
    cx.b.cbranch(cond, then, done)
    cx.b.position_at_end(then)
    emit()
    cx.b.branch(done)
    cx.b.position_at_end(done)


def counted(cx, start: ir.Value, stop: ir.Value, step: int, carried: list,
            body: Callable[[ir.Value, list], list]) -> list:
    b = cx.b
    pre = b.block
    head, inner, done = (cx.fn.append_basic_block(f"counted.{name}")
                         for name in ("head", "body", "end"))
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64)
    i.add_incoming(start, pre)
    phis = []
    for v in carried:
        phi = b.phi(v.type)
        phi.add_incoming(v, pre)
        phis.append(phi)
    b.cbranch(b.icmp_signed("<", i, stop), inner, done)
    b.position_at_end(inner)
    following = body(i, phis)
    i.add_incoming(b.add(i, ir.Constant(I64, step)), b.block)
    for phi, v in zip(phis, following, strict=True):
        phi.add_incoming(v, b.block)
    b.branch(head)
    b.position_at_end(done)
    return phis
