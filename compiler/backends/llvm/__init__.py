"""LLVM backend: IR -> LLVM IR (llvmlite) -> O3 -> native code, cached in memory and on disk.

`compile_graph(graph, name)` returns a callable taking Python scalars and returning the tuple
of outputs. The disk cache is keyed by the printed optimised IR (which determines the code),
the host CPU and features, and the adlite, llvmlite and LLVM versions.
"""

from __future__ import annotations

import llvmlite
import llvmlite.binding as llvm

from ...ir.printer import print_graph
from . import cache
from .jit import NativeFunction, host_target_machine, initialize, jit_module, jit_object
from .lower import lower_module

ADLITE_VERSION = "0.1.0"
initialize()  # once per process, at import: the first compilation should not pay for it


def compile_graph(graph, name: str) -> NativeFunction:
    in_types = [v.type for v in graph.inputs]
    out_types = [a.type for a in graph.outputs]
    key = cache.key_for(print_graph(graph), name, llvm.get_host_cpu_name(),
                        llvm.get_host_cpu_features().flatten(), ADLITE_VERSION,
                        llvmlite.__version__, ".".join(map(str, llvm.llvm_version_info)))
    code = cache.load(key)
    if code is not None:
        return jit_object(code, name, in_types, out_types)
    native = jit_module(lower_module(graph, name), name, in_types, out_types)
    cache.store(key, native.object_code)
    return native


def llvm_ir(graph, name: str) -> str:
    """The optimised LLVM IR of a graph (for `adlite show --stage llvm`)."""
    from .jit import parse_and_optimize

    return str(parse_and_optimize(str(lower_module(graph, name)), host_target_machine()))
