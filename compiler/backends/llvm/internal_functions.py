"""Internal helper functions the lowering emits once per module (LU / Cholesky loops, merge
sort).

Contract: `InternalFunction(module, name, fn_type)` defines an internal function `name`:
`entry` is a builder of its entry block (allocas only, which LLVM promotes to registers),
`b` a builder of its body (which starts after the entry block), and `new_slot(typ, value)` a
mutable variable (an alloca of the entry block) set to `value` where `b` stands.
"""

from __future__ import annotations

from llvmlite import ir


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
