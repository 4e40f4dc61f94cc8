"""Each optimisation leaves a mark on the code it produces, and these tests assert that mark.

Values cannot tell whether an optimisation ran (the code stays correct, only slower or
larger), so each test checks structure instead, never a timing:

- DCE of loop carries and of `cond` outputs: the optimised IR keeps no carry and no branch
  output that nothing reads (their variable names are gone from `show(f, "optimize")`).
- elementwise fusion: an elementwise expression reduced by `np.sum` is one native loop.
- scatter-cotangent accumulation: in the adjoint loop of `x[i]` reads, the cotangent of `x` is
  updated by scatter-adds into the carried array, with no array-sized `full` or `add`.
- in-place element updates: native loops that update `y[i]` (and accumulate the cotangent of
  `x[i]`) call neither `malloc` nor `memcpy` per iteration.

Native code is inspected in the LLVM IR the backend emits, before LLVM's own passes (which
may version, split or unroll loops): a block is inside a loop when it lies on a cycle of its
function's control-flow graph.
"""

from __future__ import annotations

import re

import llvmlite.binding as llvm
import numpy as np
import pytest

from adlite.compiler import grad, jit, show
from adlite.compiler.backends.llvm.lower import lower_module, symbol_name
from adlite.compiler.ir.core import F64, I64, Type, walk_eqns

from ..support import llvm_examples as lx

VECTOR = Type("f64", (1024,))


# ---- functions under test ---------------------------------------------------------------------


def dead_carries(x):
    s = 0.0
    junk = 1.0      # only feeds itself and `waste`
    waste = 0.0     # only fed by `junk`
    i = 0
    while i < 10:
        s = s + x * i
        junk = junk * 2.0 + s
        waste = waste + junk
        i += 1
    return s


def dead_branch_outputs(x):
    if x > 0.0:
        y = x * 2.0
        unused = np.sin(x)  # noqa: F841 - dead on purpose: DCE must drop this output
    else:
        y = x * 3.0
        unused = np.cos(x)  # noqa: F841
    return y


def elementwise_sum(x):
    return np.sum(np.sin(x) * 2.0 + x * x - 1.0)


def neighbour_differences(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s = s + (x[i + 1] - x[i]) ** 2
    return s


# ---- helpers ----------------------------------------------------------------------------------


def _loops(graph):
    return [e for e in walk_eqns(graph) if e.prim == "while"]


def _loops_of(function) -> list[set[str]]:
    """The loops of an LLVM function: the sets of blocks that reach each other through the
    control-flow graph (strongly connected components that contain a cycle)."""
    succ = {b.name: {o.name for o in list(b.instructions)[-1].operands
                     if o.value_kind == llvm.ValueKind.basic_block} for b in function.blocks}
    reach = {}
    for start in succ:  # blocks reachable from `start` through at least one edge
        seen, todo = set(), list(succ[start])
        while todo:
            b = todo.pop()
            if b not in seen:
                seen.add(b)
                todo.extend(succ[b])
        reach[start] = seen
    loops = []
    for b in succ:
        if b in reach[b] and not any(b in loop for loop in loops):
            loops.append({c for c in reach[b] if b in reach[c]})
    return loops


class NativeCode:
    """The LLVM IR that the backend emits for the entry function of `transform(fn)` at
    argument types `types`."""

    def __init__(self, transform, fn, types) -> None:
        graph, _ = transform(fn).ir_for(tuple(types))
        module = llvm.parse_assembly(str(lower_module(graph, symbol_name(graph.name, "test"))))
        (self.function,) = [f for f in module.functions if not f.is_declaration and
                            graph.name in f.name and not f.name.endswith("_scratch")]
        self.loops = _loops_of(self.function)
        self.blocks = {b.name: b for b in self.function.blocks}

    def calls_in_loops(self, pattern: str) -> list[str]:
        """Names of the functions called from inside loops that match `pattern`."""
        found = []
        for loop in self.loops:
            for name in sorted(loop):
                for ins in self.blocks[name].instructions:
                    if ins.opcode == "call":
                        callee = list(ins.operands)[-1].name
                        if re.search(pattern, callee):
                            found.append(callee)
        return found


# ---- DCE --------------------------------------------------------------------------------------


def test_dce_drops_loop_carries_nothing_reads():
    before = show(dead_carries, "frontend")
    assert "junk" in before and "waste" in before       # the frontend carries them
    after = show(dead_carries, "optimize")
    assert "junk" not in after and "waste" not in after, after
    (loop,) = _loops(jit(dead_carries).ir_for((F64,))[0])
    assert len(loop.outputs) == 2, after                 # s and i
    assert "junk" not in show(dead_carries, "optimize", grad=True)


def test_dce_drops_branch_outputs_nothing_reads():
    before = show(dead_branch_outputs, "frontend")
    assert " sin " in before and " cos " in before
    after = show(dead_branch_outputs, "optimize")
    assert " sin " not in after and " cos " not in after, after
    (branch,) = [e for e in walk_eqns(jit(dead_branch_outputs).ir_for((F64,))[0])
                 if e.prim == "cond"]
    assert len(branch.outputs) == 1, after
    assert all(len(arm.outputs) == 1 for arm in branch.params["branches"])


# ---- fusion -----------------------------------------------------------------------------------


def test_elementwise_expression_is_one_native_loop():
    code = NativeCode(jit, elementwise_sum, [VECTOR])
    assert len(code.loops) == 1, [sorted(s) for s in code.loops]
    assert code.calls_in_loops("malloc") == []
    x = np.linspace(-2.0, 2.0, 1024)
    assert jit(elementwise_sum)(x) == pytest.approx(np.sum(np.sin(x) * 2.0 + x * x - 1.0),
                                                    rel=1e-13)


def test_fused_gradient_is_one_native_loop():
    code = NativeCode(grad, elementwise_sum, [VECTOR])
    assert len(code.loops) == 1, [sorted(s) for s in code.loops]


# ---- scatter-cotangent accumulation -----------------------------------------------------------


def _adjoint_loop(fn, types):
    """The reverse sweep's loop: the last top-level loop (it runs after the forward one)."""
    graph, _ = grad(fn).ir_for(types)
    return [e for e in graph.eqns if e.prim == "while"][-1].params["body"]


def test_cotangent_of_element_reads_is_scattered_into_the_carried_array():
    for fn, reads in ((lx.running_squares, 1), (neighbour_differences, 2)):
        body = _adjoint_loop(fn, (VECTOR,))
        arrays = [e for e in walk_eqns(body) if e.outputs and e.outputs[0].type.is_array]
        assert not [e.prim for e in arrays if e.prim in ("full", "add")], fn.__name__
        scatters = [e for e in arrays
                    if e.prim == "index_update" and e.params["mode"] == "add"]
        assert len(scatters) == reads, fn.__name__
        carried = {id(v) for v in body.inputs}
        chain_start = scatters[0].inputs[0]
        assert id(chain_start) in carried, fn.__name__     # accumulates into the carry
        for first, second in zip(scatters, scatters[1:], strict=False):
            assert second.inputs[0] is first.outputs[0]


# ---- in-place element updates -----------------------------------------------------------------


def test_element_updates_in_loops_neither_allocate_nor_copy():
    for transform in (jit, grad):
        code = NativeCode(transform, lx.running_squares, [VECTOR])
        assert code.loops, transform.__name__
        assert code.calls_in_loops(ALLOCATIONS + "|memcpy") == [], transform.__name__


def test_loops_that_build_new_arrays_are_seen_to_allocate():
    # the check above can see allocations: a loop making a new array per iteration has one
    code = NativeCode(jit, lx.many_temporaries, [VECTOR, I64])
    assert code.calls_in_loops(ALLOCATIONS)


# what a loop calls to allocate: malloc, or the buffer cache's take (buffer_cache.py)
ALLOCATIONS = "malloc|adlite_buffer_take"
