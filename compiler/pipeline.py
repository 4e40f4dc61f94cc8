"""The compilation pipeline: one flat list of named stages,

    frontend -> optimize -> ad -> optimize -> lower

Contract:
- A `Compilation` says what to compile (the function, its argument types: one tree per
  parameter, see `arguments.py`; the `Derivative` the
  `ad` stage takes, whether `jit` also returns the final values of the argument arrays the
  function writes, the backend) and holds what the stages made: `primal` (the frontend's
  graph), `graph` (the current one), `result` (whether the function returns a tuple, or the
  `Layout` of a `jit` call) and `code` (the callable `lower` made).
- What the function reads from outside its arguments (`frontend/externals.py`) is part of
  each graph's calling convention (`graph.externals`, `ir/core.py`): every stage's graph
  carries it, and takes its external inputs last, after the derivative's seeds; `code`
  fetches them and checks the other reads at every call, compiling again when one changed.
- `run(compilation, stages)` runs the named stages in order. `JIT` and `DIFFERENTIATE` are the
  two sequences; `api.py` only chooses one of them, or a prefix of it (`through`).
- Stages: `frontend` (Python source -> IR), `optimize` (`passes.optimize`: simplify, fold, cse,
  dce to a fixpoint), `ad` (the derivative: `grad` / `value_and_grad` / `vjp` by reverse mode,
  then the `scatter` pass; `jvp` by forward mode; `jacrev` / `jacfwd` / `jacobian` /
  `hessian`: `ad/jacobian.py`), `lower` (native code through LLVM; Python source for
  `backend="python"` or graphs LLVM does not take), after expanding the calls with
  user-defined derivatives (`passes/custom_calls.py`).
- `ADLITE_DUMP=frontend,ad` (or `all`) prints the IR after those stages to stderr (after
  `lower`: the code, LLVM IR or Python); the names of the passes run inside the stages
  (simplify, fold, cse, dce, scatter) print after those passes. `ADLITE_VERIFY=1` runs the
  verifier after every stage that makes IR, and after every pass.
- Every run through `lower` is one compilation for the `adlite.compile` log (`log.py`): its
  signature, why it compiled, and the time of each stage.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from math import prod
from typing import Any

from . import log
from .ad import jvp_graph, vjp_graph
from .ad.jacobian import MODES as JACOBIANS
from .ad.jacobian import jacobian_graph
from .ad.reverse import ABSENT, PLAIN, TapePlan
from .arguments import Node, has_complex, leaf_types, returns_selection, selection_refused
from .backends.llvm import compile_graph as compile_native
from .backends.llvm import llvm_ir
from .backends.python import compile_graph as compile_python
from .backends.python import graph_to_source
from .compile_once import once
from .frontend import externals
from .frontend.source import get_source
from .frontend.to_ir import build_graph, build_program
from .ir.builder import Builder
from .ir.core import F32, F64, Const, Graph, Var
from .ir.printer import print_graph
from .ir.transform import clone, externals_last, inline
from .ir.verify import verify
from .passes import dump_requested, optimize, run_pass
from .passes.custom_calls import expand
from .passes.scatter import accumulate_scatters
from .transformation import innermost, is_transformation


@dataclass(frozen=True)
class Derivative:
    """What the `ad` stage computes. `grad` / `value_and_grad`: the gradient of a function
    with one float result w.r.t. graph inputs `wrt` (flat positions; its value first);
    `vjp`: `vjp_graph`; `jvp`: `jvp_graph`, with tangents for the float inputs `wrt` (all
    when None)."""

    mode: str
    wrt: tuple[int, ...] | None = None
    checkpoint: object = None  # reverse mode: how loops bound their tapes (`ad.checkpoint`)
    aux: bool = False  # the function returns (output, auxiliary data): see `ad`
    holomorphic: bool = False  # grad of a complex result: f'(z) (see `_gradient`)


@dataclass
class Compilation:
    fn: Callable
    types: tuple
    derivative: Derivative | None = None
    effects: bool = False
    backend: str = "llvm"
    primal: Graph | None = None
    graph: Graph | None = None
    result: Any = None
    code: Callable | None = None


def frontend(c: Compilation) -> None:
    """Python source -> IR (`jit` of a plain function with `effects`: the whole program)."""
    if c.effects and not is_transformation(c.fn):
        program = build_program(c.fn, list(c.types))
        c.primal, c.result = program.graph, program.layout
    else:
        c.primal, _, c.result = build_graph(c.fn, list(c.types))
    c.graph = c.primal


def optimize_stage(c: Compilation) -> None:
    c.graph = optimize(c.graph)


def ad(c: Compilation) -> None:
    """The derivative `c.derivative` asks for. With `aux`, the function returns a pair
    (output, auxiliary data): the derivative is that of the output alone, and the auxiliary
    data's leaves follow the derivative's outputs, computed from the same inputs (never
    differentiated: no cotangent or tangent reaches them; reverse mode shares one forward
    sweep between them, the other modes compute the auxiliary data beside the derivative)."""
    output = c.result.children[0] if c.derivative.aux and isinstance(c.result, Node) else \
        c.result
    if returns_selection(output):
        raise selection_refused(f"{c.derivative.mode} of {c.fn.__name__}")
    if not c.derivative.aux or c.derivative.mode in ("grad", "value_and_grad"):
        _derivative(c)
        return
    full, n_output = c.graph, _output_leaves(c)
    c.graph = Graph(full.inputs, full.eqns, full.outputs[:n_output], full.name, full.externals)
    _derivative(c)
    derived = c.graph  # its first inputs stand for the arguments (`_derivative`)
    b = Builder()
    b.eqns.extend(derived.eqns)
    aux = externals_last(clone(Graph(full.inputs, full.eqns, full.outputs[n_output:],
                                     full.name, full.externals)))
    outputs = inline(b, aux, derived.inputs[:len(aux.arguments)] +
                     list(derived.externals.inputs))
    c.graph = Graph(derived.inputs, b.eqns, derived.outputs + outputs, derived.name,
                    derived.externals)


def _output_leaves(c: Compilation) -> int:
    """The number of leaves of the output of a function returning (output, aux)."""
    tree = c.result
    if not (isinstance(tree, Node) and tree.kind in ("tuple", "list")
            and len(tree.children) == 2):
        raise TypeError(f"has_aux=True: {c.fn.__name__} must return a pair (output, "
                        "auxiliary data), like `return loss, predictions`")
    return len(leaf_types(tree.children[0]))


def _derivative(c: Compilation) -> None:
    """The derivative's graph: its inputs are the arguments (their leaves: structured,
    static, any), the seeds, then the externals (constants: no tangent or cotangent)."""
    d = c.derivative
    if d.mode in JACOBIANS:
        if has_complex(c.result) or any(has_complex(t) for t in c.types):
            raise TypeError(f"{d.mode} of {c.fn.__name__}: Jacobians and Hessians of complex "
                            "numbers are not supported yet; use grad (holomorphic=True for "
                            "f'(z)), jvp or vjp")
        c.graph = jacobian_graph(c.graph, d.mode, d.wrt)
        run_pass("scatter", accumulate_scatters, c.graph)
        return
    if d.mode == "jvp":
        arguments = {id(v) for v in c.graph.arguments}
        wrt = d.wrt if d.wrt is not None else \
            [i for i, v in enumerate(c.graph.inputs) if id(v) in arguments]
        c.graph = externals_last(jvp_graph(c.graph, wrt))
        return
    if d.mode == "vjp":
        full = vjp_graph(c.graph, plan=TapePlan.for_graph(c.graph, d.checkpoint))
        c.graph = externals_last(_without_external_cotangents(full, c.graph))
    else:
        c.graph = _gradient(c)
    run_pass("scatter", accumulate_scatters, c.graph)


def _without_external_cotangents(full: Graph, primal: Graph) -> Graph:
    """The vjp graph of `primal` without the cotangents of its external inputs."""
    hidden = {id(v) for v in primal.externals.inputs}
    if not hidden:
        return full
    n = len(primal.outputs)
    float_ins = [v for v in primal.inputs if v.type.is_float]
    bars = [a for v, a in zip(float_ins, full.outputs[n:], strict=True) if id(v) not in hidden]
    return Graph(full.inputs, full.eqns, full.outputs[:n] + bars, full.name, full.externals)


def _gradient(c: Compilation) -> Graph:
    """`inputs -> [value,] gradients w.r.t. arguments wrt [, auxiliary data]`, from the vjp
    seeded with 1.0 (no cotangent for the auxiliary data: it shares the forward sweep). A
    result that is a float array of one element is differentiated as its number (autograd's
    and PyTorch's `backward` take it; the value keeps its shape)."""
    graph = c.graph
    n_output = _output_leaves(c) if c.derivative.aux else len(graph.outputs)
    output = c.result.children[0] if c.derivative.aux else c.result
    if isinstance(output, Node) and output.kind == "complex":
        if not c.derivative.holomorphic:
            raise TypeError(f"grad of {c.fn.__name__}: the function returns a complex "
                            "number; grad takes real-valued functions (differentiate "
                            "np.real(f) or abs(f) ** 2), or holomorphic=True for f'(z) of a "
                            "holomorphic f, as in JAX")
        # f'(z) = d Re f / dx - i d Re f / dy (Cauchy-Riemann): the gradient of the real
        # part, conjugated as every complex gradient is (`arguments.cotangents`)
        graph = Graph(graph.inputs, graph.eqns, [graph.outputs[0]] + graph.outputs[2:],
                      graph.name, graph.externals)
        n_output -= 1
    returned = graph.outputs[0].type if graph.outputs else None
    if n_output == 1 and returned.is_array and returned.is_float and prod(returned.shape) == 1:
        graph = _as_number(graph)  # one element (`keepdims=True`): its number, as autograd
    if n_output != 1 or graph.outputs[0].type not in (F64, F32):
        raise TypeError(f"grad of {c.fn.__name__}: the function must return one float, "
                        f"it returns {n_output} value(s) of type "
                        f"{', '.join(str(a.type) for a in graph.outputs[:n_output])}")
    float_outs = [a.type for a in graph.outputs if a.type.is_float]
    seeds = [PLAIN] + [ABSENT] * (len(float_outs) - 1) if c.derivative.aux else None
    full = vjp_graph(graph, seeds, plan=TapePlan.for_graph(graph, c.derivative.checkpoint))
    b = Builder()
    inputs = [Var(v.type, v.hint) for v in graph.inputs]
    unused = [b.zeros(t) for t in float_outs[1:]] if c.derivative.aux else []
    results = inline(b, full, inputs + [Const(1.0, graph.outputs[0].type)] + unused)
    float_positions = [i for i, v in enumerate(graph.inputs) if v.type.is_float]
    bars = results[len(graph.outputs):]
    wanted = [bars[float_positions.index(i)] for i in c.derivative.wrt]
    value = b.reshape(results[0], shape=returned.shape) if returned.is_array else results[0]
    outputs = ([value] if c.derivative.mode == "value_and_grad" else []) + wanted
    return Graph(inputs, b.eqns, outputs + results[1:len(graph.outputs)], graph.name + "_grad",
                 graph.externals.renamed(graph.inputs, inputs))


def _as_number(graph: Graph) -> Graph:
    """`graph` whose first output, an array of one element, is that element."""
    b = Builder()
    b.eqns.extend(graph.eqns)
    number = b.reshape(graph.outputs[0], shape=None)
    return Graph(graph.inputs, b.eqns, [number] + graph.outputs[1:], graph.name,
                 graph.externals)


def lower(c: Compilation) -> None:
    c.code = backend_compile(c.backend, c.graph, c.fn)


PIPELINE = [("frontend", frontend), ("optimize", optimize_stage), ("ad", ad),
            ("optimize", optimize_stage), ("lower", lower)]
STAGES = dict(PIPELINE)
DIFFERENTIATE = tuple(name for name, _ in PIPELINE)
JIT = ("frontend", "optimize", "lower")


def through(stages: Sequence[str], name: str) -> tuple[str, ...]:
    """`stages` up to the last `name` among them."""
    if name not in stages:
        raise ValueError(f"no stage {name!r} in {' -> '.join(stages)}")
    return tuple(stages[:len(stages) - stages[::-1].index(name)])


def run(c: Compilation, stages: Sequence[str]) -> Compilation:
    """Run `stages`; code with externals is bound to fetch them (and recompile when a guard
    fails, see `externals.bind`)."""
    _stages(c, stages)
    reads = c.graph.externals.reads
    if reads and c.code is not None:
        c.code = externals.bind(c.code, reads, c.result, lambda: _again(c, stages))
    return c


def _again(c: Compilation, stages: Sequence[str]) -> tuple:
    """(code, externals, result) of a fresh compilation of `c` for the current values."""
    fresh = Compilation(c.fn, c.types, c.derivative, c.effects, c.backend)
    once({}, "fresh", lambda: _stages(fresh, stages, rebuilt=True))  # builds: one at a time
    return fresh.code, fresh.graph.externals.reads, fresh.result


def _stages(c: Compilation, stages: Sequence[str], rebuilt: bool = False) -> None:
    """Run `stages`, timed (`log.stage`); through `lower`, as one logged compilation
    (`log.compilation`; `rebuilt`: values the code reads from outside changed)."""
    with log.compilation(c, rebuilt) if "lower" in stages else nullcontext():
        for name in stages:
            with log.stage(name):
                STAGES[name](c)
            if dump_requested(name):
                text = lowered_text(c, c.backend) if name == "lower" else print_graph(c.graph)
                print(f"--- after stage {name} ---", file=sys.stderr)
                print(text, file=sys.stderr)
            if os.environ.get("ADLITE_VERIFY") and name != "lower":
                verify(c.graph)


def llvm_supports(graph: Graph) -> bool:
    """The LLVM backend compiles everything but graphs returning bool arrays (bool arrays
    exist only inside compiled functions)."""
    return not any(isinstance(a, Var) and a.type.is_array and a.type.name == "bool"
                   for a in graph.outputs)


def backend_compile(backend: str, graph: Graph, fn) -> Callable:
    graph = expand(graph)  # calls with user-defined derivatives: the backends see their code
    if backend == "llvm" and llvm_supports(graph):
        return compile_native(graph, graph.name).call
    return compile_python(graph, graph.name, line_text(fn))


def lowered_text(c: Compilation, backend: str) -> str:
    """The code `lower` makes from `c.graph` for `backend`: LLVM IR (optimised) or Python."""
    graph = expand(c.graph)
    if backend == "llvm":
        return llvm_ir(graph, graph.name)
    return graph_to_source(graph, graph.name, line_text(c.fn))


def line_text(fn) -> Callable[[int], str]:
    """Line number -> text of the source file of `fn` (under any transformations)."""
    return get_source(innermost(fn)).line
