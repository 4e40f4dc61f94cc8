"""User-defined derivatives and stop-gradient, as primitives (`adlite.compiler.custom`).

- `custom_vjp[graph, fwd, bwd, wrt, n_leaves, name, origin]`: a call of a function whose
  reverse-mode derivative the user wrote. Inputs: the call's runtime argument leaves, then
  the values the functions read from outside (externals). `graph` computes the outputs from
  the inputs (the function itself); `fwd` the outputs then the residual leaves; `bwd` takes
  the inputs, the residuals and one cotangent per output leaf (floats) and returns the
  cotangents of the inputs at positions `wrt` (the others get none).
- `custom_jvp[graph, jvp, n_leaves, name, origin]`: a call of a function whose forward-mode
  derivative the user wrote. `jvp` takes the inputs then one float tangent per argument leaf
  (`n_leaves`) and returns the outputs then the tangents of the float outputs; it is linear
  in the tangents.
- `call[graph]`: a call of `graph` differentiated as ordinary code (reverse mode's forward
  sweep of a `custom_vjp`, forward mode of a `custom_jvp`, whose results are differentiated
  again at higher orders).
- `stop_gradient x`: `x`, through which no derivative flows (any mode, any order).
`name` and `origin` (file, line, source text of the function's definition) name the user's
function in errors. The AD rules are attached by `adlite.compiler.ad.custom`; the backends
never see these primitives: `passes.custom_calls.expand` inlines `graph` (and replaces
`stop_gradient x` by `x`) before lowering. `impl` runs `graph` (constant folding, the
reference interpreter).
"""

from __future__ import annotations

from ..ir.core import Type
from ..ir.evaluate import run_graph
from ..ir.primitive import Primitive, register

CALLS = ("custom_vjp", "custom_jvp", "call")


def _call_type(in_types: list[Type], params: dict) -> list[Type]:
    graph = params["graph"]
    if list(in_types) != graph.in_types:
        raise TypeError(f"call of {graph.name}: inputs {[str(t) for t in in_types]} do not "
                        f"match its parameters {[str(t) for t in graph.in_types]}")
    return graph.out_types


def _run(*values, graph, **_params):
    return tuple(run_graph(graph, list(values)))


for _name in CALLS:  # the rules of custom_jvp and call emit the call themselves in forward mode
    register(Primitive(_name, _call_type, _run, None, None, None,
                       jvp_emits_primal=_name != "custom_vjp"))

register(Primitive("stop_gradient", lambda in_types, params: [in_types[0]],
                   lambda x: (x,), None, None, lambda args, eqn: args[0],
                   differentiable=False))
