"""IR graph -> LLVM module (llvmlite.ir) with one native function per graph: the function's
calling convention, prologue and epilogue.

Contract: `lower_module(graph, name)` returns an `ir.Module` defining

    int32_t name(<one size per symbol>, <one scalar per input>, <one pointer per output>)

(f64 -> double, i64 and bool -> int64_t; arrays: pointers, then a scratch buffer pointer;
the sizes, int64_t, are the values of the size symbols of the inputs' shapes in order of
`dims.symbols_of`: none unless compiled with `shapes="dynamic"`)
that computes the graph, stores its outputs through the pointers and returns 0, or returns a
nonzero status of `status.py` without touching the outputs (out of memory, integer division
by zero, int64 overflow, ...). The body is lowered by a `context.LoweringContext` (`cx`):
every equation that is not fused (fusion.py) by its primitive's `llvm` rule in the primitive
table (`registry.py`; importing this module imports every module registering rules). The AD
tapes and allocation lists (tapes.py) are freed on every exit path. `name` is a symbol
private to adlite (`symbol_name`, or `adlite_<name>` for ahead-of-time libraries), so a user
function named like a C library function (`exp`, `free`) never clashes with the
declarations the lowering makes.
"""

from __future__ import annotations

import re

from llvmlite import ir

from ...ir import dtypes
from ...ir.core import Graph, Var
from ...ir.dims import symbols_of
from ...ir.transform import all_graphs
from . import (  # noqa: F401  (register their lowerings)
    array_rules,
    control,
    decompositions,
    effects,
    elements,
    fft,
    gather,
    linalg,
    lists,
    sorting,
)
from .arrays import extent, itemsize, n_elements
from .context import F32, I32, PTR, LoweringContext
from .ops import F64, I64
from .tapes import free_tapes

ABI = {dtypes.F64: F64, dtypes.F32: F32, dtypes.I64: I64, dtypes.BOOL: I64}


def abi_type(t) -> ir.Type:
    """The LLVM type of an argument of IR type `t`: arrays are pointers."""
    return PTR if t.is_array else ABI[t.dtype]


def lower_function(module: ir.Module, graph: Graph, name: str) -> LoweringContext:
    """Define function `name` of `module` computing `graph`; returns its lowering context."""
    symbols = symbols_of(v.type.shape for v in graph.inputs)
    in_types = [abi_type(v.type) for v in graph.inputs]
    out_ptrs = [PTR] * len(graph.outputs)
    scratch = [PTR] if has_arrays(graph) else []
    fn = ir.Function(module, ir.FunctionType(
        I32, [I64] * len(symbols) + in_types + out_ptrs + scratch), name)
    cx = LoweringContext(module, graph, fn, fn.args[-1] if scratch else None)
    cx.sizes = dict(zip(symbols, fn.args, strict=False))
    params = fn.args[len(symbols):]
    args = []
    for v, a in zip(graph.inputs, params[:len(graph.inputs)], strict=True):
        args.append(cx.b.icmp_signed("!=", a, ir.Constant(I64, 0))
                    if v.type.name == "bool" and not v.type.is_array else a)
    out_ptrs = params[len(graph.inputs):len(graph.inputs) + len(graph.outputs)]
    defined = {id(o) for e in graph.eqns for o in e.outputs}
    cx.out_buffers = {id(a): p for a, p in zip(graph.outputs, out_ptrs, strict=True)
                      if isinstance(a, Var) and a.type.is_array and id(a) in defined
                      and a.type.is_float and graph.outputs.count(a) == 1}
    outs = cx.graph_body(graph, args)
    memcpy = cx.declare("memcpy", ir.FunctionType(PTR, [PTR, PTR, I64]))
    for atom, value, ptr in zip(graph.outputs, outs, out_ptrs, strict=True):
        if atom.type.is_array:
            if value is not ptr:  # not already computed in place
                nbytes = n_elements(atom.type.shape) * itemsize(atom.type)
                cx.b.call(memcpy, [ptr, value, extent(cx, nbytes)])
            continue
        if atom.type.name == "bool":
            value = cx.b.zext(value, I64)
        cx.b.store(value, ptr)
    free_tapes(cx, cx.b)
    cx.b.ret(ir.Constant(I32, 0))
    fail = ir.IRBuilder(cx.fail_block)
    free_tapes(cx, fail)
    fail.ret(fail.load(cx.status, typ=I32))
    cx.entry.branch(fn.basic_blocks[1])
    return cx


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
    cx = lower_function(module, graph, name)
    if cx.uses_arrays:
        size_fn = ir.Function(module, ir.FunctionType(I64, []), f"{name}_scratch")
        ir.IRBuilder(size_fn.append_basic_block("entry")).ret(ir.Constant(I64, cx.scratch_size))
    return module
