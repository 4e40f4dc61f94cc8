"""Declarations of the symbols an LLVM module uses but does not define.

Contract: `function(module, name, ret, args)` and `external_global(module, name, typ)` return
the module's declaration of `name`, adding it on first use, so that every helper of the
backend (lowering, CPython entry point, Ctrl-C polling) refers to one declaration per symbol.
"""

from __future__ import annotations

from llvmlite import ir


def function(module: ir.Module, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
    existing = module.globals.get(name)
    return existing if existing is not None else \
        ir.Function(module, ir.FunctionType(ret, args), name)


def external_global(module: ir.Module, name: str, typ: ir.Type) -> ir.GlobalVariable:
    existing = module.globals.get(name)
    if existing is None:
        existing = ir.GlobalVariable(module, typ, name)
        existing.linkage = "external"
    return existing
