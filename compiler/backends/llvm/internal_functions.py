"""Internal helper functions the lowering emits once per module (LU / Cholesky loops, merge
sort).

Contract: `InternalFunction(module, name, fn_type)` defines an internal function `name`:
`entry` is a builder of its entry block (allocas only, which LLVM promotes to registers),
`b` a builder of its body (which starts after the entry block), and `new_slot(typ, value)` a
mutable variable (an alloca of the entry block) set to `value` where `b` stands.
`for_range(b, fn, start, stop, body)` emits `for i in range(start, stop): body(i)` (i64
bounds known at run time) where `b` stands, in any function `fn` (the kernels' loops, the
run-time lists' copies in `lists.py`).
"""

from __future__ import annotations

from llvmlite import ir

I64 = ir.IntType(64)


def for_range(b: ir.IRBuilder, fn: ir.Function, start: ir.Value, stop: ir.Value,
              body) -> None:
    """for i in range(start, stop): body(i), at `b`'s position in `fn`."""
    pre = b.block
    head, inner, done = (fn.append_basic_block(n) for n in ("for", "body", "end"))
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64)
    i.add_incoming(start, pre)
    b.cbranch(b.icmp_signed("<", i, stop), inner, done)
    b.position_at_end(inner)
    body(i)
    i.add_incoming(b.add(i, ir.Constant(I64, 1)), b.block)
    b.branch(head)
    b.position_at_end(done)


class InternalFunction:
    def __init__(self, module: ir.Module, name: str, fn_type: ir.FunctionType) -> None:
        self.fn = ir.Function(module, fn_type, name)
        self.fn.linkage = "internal"
        self.entry = ir.IRBuilder(self.fn.append_basic_block("entry"))
        start = self.fn.append_basic_block("start")
        self.entry.branch(start)
        self.entry.position_at_start(self.entry.block)
        self.b = ir.IRBuilder(start)

    def new_slot(self, typ: ir.Type, value: ir.Value):
        ptr = self.entry.alloca(typ)
        self.b.store(value, ptr)
        return ptr
