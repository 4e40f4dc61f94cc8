"""Derivative rules of the user-defined derivatives (`primitives/custom.py`), attached to the
primitive table when this module is imported.

- `custom_vjp`, reverse mode (`ad_forward`): the forward sweep runs the user's `fwd` as one
  `call` equation that also returns the residuals; the backward sweep runs the user's `bwd`
  on them and the output cotangents (zeros for those absent). When every output cotangent is
  guarded (see `reverse`), the contributions are computed under the guards' `or` only
  (`_gate`), so `bwd` never turns a zero cotangent from a path that did not run into nan.
  No cotangent reaching it: the plain call stays (`linearize` restores the equation).
  Forward mode is refused, as JAX does, naming the function (`jvp` of a `grad` works: the
  gradient's code is ordinary).
- `custom_jvp`, forward mode: one `call` of the user's rule computes the outputs and their
  tangents (absent tangents are zeros). Reverse mode transposes the rule: it is linear in
  the tangents, so the cotangents of the inputs are those of the tangents in the rule's
  `vjp_graph` taken at zero tangents, replayed in the backward sweep (recomputing the rule
  at the primal point, without its prints and checks).
- `call`, both modes: the graph is ordinary code (`jvp_graph` / a replay of `vjp_graph`, as
  `cond` does for its arm), which is what differentiates `fwd`, `bwd` and the rules again
  at higher orders.
"""

from __future__ import annotations

from .. import primitives  # noqa: F401  (registers the primitives completed here)
from ..errors import AdliteSyntaxError
from ..ir.builder import Builder
from ..ir.core import Atom, Const, Eqn, Graph, Type, Var
from ..ir.primitive import attach
from ..ir.transform import clone, inline
from ..primitives.effects import without_effects
from .forward import jvp_graph
from .reverse import ABSENT, ALWAYS, GUARDED, NEVER, PLAIN, TapePlan, _gate, vjp_graph


def float_type(t: Type) -> Type:
    """The type of a derivative of a value of type `t` (ints and bools get float ones)."""
    return t if t.is_float else Type("f64", t.shape)


def _zero_filled(b: Builder, values: list, types: list[Type]) -> list[Atom]:
    return [b.zeros(float_type(t)) if v is None else v for v, t in zip(values, types,
                                                                        strict=True)]


def _common_guard(b: Builder, cts: list, guards: list) -> Atom | None:
    """The guard under which the present cotangents may be nonzero: None when one of them is
    unguarded, else the `or` of their guards."""
    present = [g for c, g in zip(cts, guards, strict=True) if c is not None]
    if not present or any(g is None for g in present):
        return None
    guard = present[0]
    for g in present[1:]:
        if g is not guard:
            guard = b.or_(guard, g)
    return guard


# ---- custom_vjp -------------------------------------------------------------------------------

def custom_vjp_ad_forward(fb: Builder, eqn: Eqn, plan: TapePlan):
    fwd = eqn.params["fwd"]
    n_out = len(eqn.outputs)
    residuals = [Var(a.type, getattr(a, "hint", "") or "res") for a in fwd.outputs[n_out:]]
    fb.eqns.append(Eqn("call", list(eqn.inputs), list(eqn.outputs) + residuals,
                       {"graph": clone(fwd)}, eqn.loc))

    def emit_backward(bb: Builder, cts, guards):
        bars = _zero_filled(bb, cts, [o.type for o in eqn.outputs])
        start = len(bb.eqns)
        results = inline(bb, eqn.params["bwd"], list(eqn.inputs) + residuals + bars)
        in_cts = [None] * len(eqn.inputs)
        for position, ct in zip(eqn.params["wrt"], results, strict=True):
            in_cts[position] = ct
        guard = _common_guard(bb, cts, guards)
        if guard is None:
            return in_cts, [ALWAYS] * len(in_cts)
        in_cts = _gate(bb, start, eqn, cts, in_cts, guard, set())
        return in_cts, [guard] * len(in_cts)

    return emit_backward


def custom_vjp_jvp(b: Builder, eqn: Eqn, tangents):
    raise origin_error(eqn, f"forward-mode differentiation (jvp) of custom_vjp "
                            f"function {eqn.params['name']!r} is not supported (as in JAX)",
                       "define its derivative with @custom_jvp instead, or differentiate it in "
                       "reverse mode (grad, vjp)")


def origin_error(eqn: Eqn, message: str, hint: str) -> AdliteSyntaxError:
    """An error pointing at the definition of the user's function behind `eqn`."""
    filename, line, text = eqn.params["origin"]
    return AdliteSyntaxError(message, filename, line, len(text) - len(text.lstrip()),
                             text.strip(), hint)


# ---- custom_jvp -------------------------------------------------------------------------------

def custom_jvp_jvp(b: Builder, eqn: Eqn, tangents):
    n = eqn.params["n_leaves"]
    leaf_tangents = tangents[:n]
    if all(t is None for t in leaf_tangents):
        b.eqns.append(eqn)
        return [None] * len(eqn.outputs)
    t_in = _zero_filled(b, leaf_tangents, [a.type for a in eqn.inputs[:n]])
    return _call_with_tangents(b, eqn, clone(eqn.params["jvp"]), t_in)


def _call_with_tangents(b: Builder, eqn: Eqn, graph: Graph, t_in: list) -> list:
    """One `call` of `graph` (inputs, then tangents -> outputs, then the tangents of the
    float outputs) defining `eqn`'s outputs and their tangents."""
    positions = [k for k, o in enumerate(eqn.outputs) if o.type.is_float]
    t_out = [Var(eqn.outputs[k].type, "t" + eqn.outputs[k].hint) for k in positions]
    b.eqns.append(Eqn("call", list(eqn.inputs) + list(t_in), list(eqn.outputs) + t_out,
                      {"graph": graph}, eqn.loc))
    result = [None] * len(eqn.outputs)
    for k, t in zip(positions, t_out, strict=True):
        result[k] = t
    return result


def custom_jvp_vjp(b: Builder, eqn: Eqn, cts, guards, plan: TapePlan):
    rule = eqn.params["jvp"]
    n_in, n_leaves, n_out = len(eqn.inputs), eqn.params["n_leaves"], len(eqn.outputs)
    tangent_part = Graph(rule.inputs, rule.eqns, rule.outputs[n_out:], rule.name)
    zeros = [b.zeros(v.type) for v in rule.inputs[n_in:]]
    tangent_cts = _replay(b, tangent_part, list(eqn.inputs) + zeros, eqn.outputs, cts, guards,
                          plan)
    in_cts, in_guards = [None] * n_in, [NEVER] * n_in
    for p in range(n_leaves):
        in_cts[p], in_guards[p] = tangent_cts[n_in + p]
    return in_cts, in_guards


# ---- call -------------------------------------------------------------------------------------

def call_vjp(b: Builder, eqn: Eqn, cts, guards, plan: TapePlan):
    pairs = _replay(b, eqn.params["graph"], list(eqn.inputs), eqn.outputs, cts, guards, plan)
    return [c for c, _ in pairs], [g for _, g in pairs]


def call_jvp(b: Builder, eqn: Eqn, tangents):
    moving = [i for i, t in enumerate(tangents) if t is not None and eqn.inputs[i].type.is_float]
    if not moving:
        b.eqns.append(eqn)
        return [None] * len(eqn.outputs)
    return _call_with_tangents(b, eqn, jvp_graph(eqn.params["graph"], moving),
                               [tangents[i] for i in moving])


def _replay(b: Builder, graph: Graph, args: list, outputs: list, cts, guards,
            plan: TapePlan) -> list[tuple]:
    """(cotangent or None, guard) per input of `graph`, from the cotangents (and guards) of
    its float outputs `outputs`: `vjp_graph(graph)` inlined at `args` (recomputing the
    forward values, without prints and checks: they ran in the forward sweep)."""
    floats = [k for k, o in enumerate(outputs) if o.type.is_float]
    seeds = [ABSENT if cts[k] is None else PLAIN if guards[k] is None else GUARDED
             for k in floats]
    full = vjp_graph(graph, seeds, plan)
    without_effects(full)
    bars = _zero_filled(b, [cts[k] for k in floats], [outputs[k].type for k in floats])
    extra = [guards[k] for k, s in zip(floats, seeds, strict=True) if s == GUARDED]
    results = inline(b, full, args + bars + extra)[len(graph.outputs):]
    float_inputs = [i for i, v in enumerate(graph.inputs) if v.type.is_float]
    m = len(float_inputs)
    pairs: list[tuple] = [(None, NEVER)] * len(graph.inputs)
    for j, i in enumerate(float_inputs):
        guard = results[m + j]
        if isinstance(guard, Const) and not guard.value:
            continue
        pairs[i] = (results[j], guard)
    return pairs


attach("custom_vjp", ad_forward=custom_vjp_ad_forward, jvp=custom_vjp_jvp)
attach("custom_jvp", vjp=custom_jvp_vjp, jvp=custom_jvp_jvp)
attach("call", vjp=call_vjp, jvp=call_jvp)
