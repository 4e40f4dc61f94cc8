"""Structural derivative rules of `while`, `cond` and the tape primitives.

Reverse mode of `while` (registered as its `ad_forward`):

    forward sweep:  carries, trips = while(cond, body', consts, carries0, 0)
                    body' = linearized body; pushes its residuals on the tape, trips += 1
    backward sweep: dcarries, dconsts = while(k > 0, body_bar, consts, dcarries_out, 0, trips)
                    body_bar pops the residuals (in reverse order) and runs the body's
                    backward equations; dconsts accumulate over iterations

so the adjoint loop runs backwards over the values stored by the forward loop, whatever its
trip count (data-dependent `while` included). Residuals that are loop constants are not
stored, they are read from the constants directly.

Reverse mode of `cond` replays the taken arm: the backward sweep is a `cond` on the same
predicate whose arms are the arms' `vjp_graph`s (recomputing the arm's forward values).

Forward mode of both transforms the subgraphs with `jvp_graph`. The tape primitives have
rules too, so adjoint code can be differentiated again: in forward mode every stored value
travels with its tangent; in reverse mode a load's cotangent goes back to its store on a
transport tape (see `TapePlan`).
"""

from __future__ import annotations

from ..ir.builder import Builder
from ..ir.core import I64, Const, Eqn, Graph, Var
from ..ir.transform import inline
from .forward import jvp_graph
from .reverse import add_cotangents, linearize, tape_plan, vjp_graph


def _fresh(vars_) -> list[Var]:
    return [Var(v.type, v.hint) for v in vars_]


def _with_extra_inputs(graph: Graph, extra: list[Var]) -> Graph:
    """`graph` taking unused `extra` inputs after its own."""
    b = Builder()
    inputs = _fresh(graph.inputs)
    outputs = inline(b, graph, inputs)
    return Graph(inputs + extra, b.eqns, outputs, graph.name)


def while_ad_forward(fb: Builder, eqn: Eqn):
    n = eqn.params["n_consts"]
    cond, body = eqn.params["cond"], eqn.params["body"]
    consts, carries = eqn.inputs[:n], eqn.inputs[n:]
    lin = linearize(body)
    body_inputs = lin.fwd.inputs
    const_slot = {id(v): i for i, v in enumerate(body_inputs[:n])}
    stored = [r for r in lin.residuals if id(r) not in const_slot]

    # forward loop: the body also stores its residuals and counts the iterations
    b = Builder(eqn.loc)
    inputs, count = _fresh(body_inputs), Var(I64, "trips")
    results = inline(b, lin.fwd, inputs)
    n_out = len(body.outputs)
    # each distinct value is stored once, even when several residuals stand for it
    first_of: dict[int, Var] = {}
    same_as: dict[int, Var] = {}
    for r, atom in zip(lin.residuals, results[n_out:], strict=True):
        if id(r) in const_slot:
            continue
        key = id(atom) if isinstance(atom, Var) else ("const", atom.type, atom.value)
        if key in first_of:
            same_as[id(r)] = first_of[key]
            continue
        first_of[key] = r
        b.emit("push", [atom], tape=tape_plan().residual)
    stored = [r for r in stored if id(r) not in same_as]
    fwd_body = Graph(inputs + [count], b.eqns, results[:n_out] + [b.add(count, 1)],
                     body.name)
    fwd_cond = _with_extra_inputs(cond, [Var(I64, "trips")])
    trips = Var(I64, "trips")
    fb.eqns.append(Eqn("while", list(consts) + list(carries) + [Const(0, I64)],
                       list(eqn.outputs) + [trips],
                       {"cond": fwd_cond, "body": fwd_body, "n_consts": n}, eqn.loc))

    float_carries = [i for i, v in enumerate(carries) if v.type.is_float]
    float_consts = [i for i, v in enumerate(consts) if v.type.is_float]

    def emit_backward(bb: Builder, cts):
        rb = Builder(eqn.loc)
        r_consts = [Var(c.type, getattr(c, "hint", "")) for c in consts]
        r_bars = [Var(carries[i].type, "d" + eqn.outputs[i].hint) for i in float_carries]
        r_acc = [Var(consts[i].type, "d" + body_inputs[i].hint) for i in float_consts]
        k = Var(I64, "k")
        tape = tape_plan().residual
        popped = {id(r): rb.op("pop", type=r.type, hint=r.hint, tape=tape)
                  for r in reversed(stored)}
        popped.update((rid, popped[id(first)]) for rid, first in same_as.items())
        res_atoms = [r_consts[const_slot[id(r)]] if id(r) in const_slot else popped[id(r)]
                     for r in lin.residuals]
        bars = inline(rb, lin.bwd, res_atoms + r_bars)
        float_inputs = [i for i, v in enumerate(body_inputs) if v.type.is_float]
        const_bars = [bar for i, bar in zip(float_inputs, bars, strict=True) if i < n]
        carry_bars = [bar for i, bar in zip(float_inputs, bars, strict=True) if i >= n]
        def others(bar):  # cotangents that must survive this accumulation
            return {id(o) for o in bars if o is not bar} | \
                ({id(bar)} if sum(o is bar for o in bars) > 1 else set())

        new_acc = [add_cotangents(rb, acc, bar, others(bar))
                   for acc, bar in zip(r_acc, const_bars, strict=True)]
        r_inputs = r_consts + r_bars + r_acc + [k]
        rev_body = Graph(r_inputs, rb.eqns, carry_bars + new_acc + [rb.sub(k, 1)],
                         body.name + "_bar")
        cb = Builder(eqn.loc)
        c_inputs = _fresh(r_inputs)
        rev_cond = Graph(c_inputs, cb.eqns, [cb.gt(c_inputs[-1], 0)], cond.name + "_bar")
        init = [bb.zeros(carries[i].type) if cts[i] is None else cts[i] for i in float_carries]
        acc0 = [bb.zeros(consts[i].type) for i in float_consts]
        outs = bb.emit("while", list(consts) + init + acc0 + [trips],
                       cond=rev_cond, body=rev_body, n_consts=n)
        for out, var in zip(outs, r_bars + r_acc + [k], strict=True):
            out.hint = var.hint
        in_cts = [None] * len(eqn.inputs)
        for j, i in enumerate(float_carries):
            in_cts[n + i] = outs[j]
        for j, i in enumerate(float_consts):
            in_cts[i] = outs[len(float_carries) + j]
        return in_cts

    return emit_backward


def _float_positions(atoms) -> list[int]:
    return [i for i, a in enumerate(atoms) if a.type.is_float]


def cond_vjp(b: Builder, eqn: Eqn, cts):
    pred, operands = eqn.inputs[0], eqn.inputs[1:]
    arms = eqn.params["branches"]
    n_out = len(eqn.outputs)
    out_bars = [b.zeros(eqn.outputs[i].type) if cts[i] is None else cts[i]
                for i in _float_positions(eqn.outputs)]
    bar_arms = []
    for arm in arms:
        full = vjp_graph(arm)
        bar_arms.append(Graph(full.inputs, full.eqns, full.outputs[n_out:], arm.name + "_bar"))
    bars = b.emit("cond", [pred] + list(operands) + out_bars, branches=tuple(bar_arms))
    in_cts = [None] * len(eqn.inputs)
    for bar, i in zip(bars, _float_positions(operands), strict=True):
        in_cts[1 + i] = bar
    return in_cts


def cond_jvp(b: Builder, eqn: Eqn, tangents):
    pred, operands = eqn.inputs[0], eqn.inputs[1:]
    n_out = len(eqn.outputs)
    arms = [jvp_graph(arm) for arm in eqn.params["branches"]]
    t_in = [b.zeros(operands[i].type) if tangents[1 + i] is None else tangents[1 + i]
            for i in _float_positions(operands)]
    t_out = [Var(eqn.outputs[i].type, "t" + eqn.outputs[i].hint)
             for i in _float_positions(eqn.outputs)]
    # one branch computes the outputs and their tangents (it replaces the primal equation)
    b.eqns.append(Eqn("cond", [pred] + list(operands) + t_in, list(eqn.outputs) + t_out,
                      {"branches": tuple(arms)}, eqn.loc))
    result = [None] * n_out
    for t, i in zip(t_out, _float_positions(eqn.outputs), strict=True):
        result[i] = t
    return result


def while_jvp(b: Builder, eqn: Eqn, tangents):
    n = eqn.params["n_consts"]
    cond, body = eqn.params["cond"], eqn.params["body"]
    consts, carries = eqn.inputs[:n], eqn.inputs[n:]
    jbody = jvp_graph(body)
    n_in = len(body.inputs)
    primal_in, tangent_in = jbody.inputs[:n_in], jbody.inputs[n_in:]
    float_in = _float_positions(body.inputs)
    t_consts = [t for i, t in zip(float_in, tangent_in, strict=True) if i < n]
    t_carries = [t for i, t in zip(float_in, tangent_in, strict=True) if i >= n]
    # loop layout: consts + const tangents | carries + carry tangents
    order = primal_in[:n] + t_consts + primal_in[n:] + t_carries
    loop_body = Graph(order, jbody.eqns, jbody.outputs, body.name + "_jvp")
    loop_cond = _reorder_cond(cond, n, t_consts, t_carries)
    init_t = [b.zeros(eqn.inputs[i].type) if tangents[i] is None else tangents[i]
              for i in float_in]
    tc = [t for i, t in zip(float_in, init_t, strict=True) if i < n]
    tk = [t for i, t in zip(float_in, init_t, strict=True) if i >= n]
    t_out = [Var(carries[i].type, "t" + eqn.outputs[i].hint) for i in _float_positions(carries)]
    # one loop computes the carries and their tangents (it replaces the primal equation, so
    # values stored on the tape by the body are stored once, each with its tangent)
    b.eqns.append(Eqn("while", list(consts) + tc + list(carries) + tk,
                      list(eqn.outputs) + t_out,
                      {"cond": loop_cond, "body": loop_body, "n_consts": n + len(tc)}, eqn.loc))
    result = [None] * len(carries)
    for t, i in zip(t_out, _float_positions(carries), strict=True):
        result[i] = t
    return result


def _reorder_cond(cond: Graph, n: int, tangent_consts, tangent_carries) -> Graph:
    b = Builder()
    inputs = _fresh(cond.inputs)
    extra_c = [Var(t.type, "t") for t in tangent_consts]
    extra_k = [Var(t.type, "t") for t in tangent_carries]
    outputs = inline(b, cond, inputs)
    return Graph(inputs[:n] + extra_c + inputs[n:] + extra_k, b.eqns, outputs, cond.name)


def pop_vjp(b: Builder, eqn: Eqn, cts):
    """Reverse of a load from tape t: send the cotangent back on tape t's transport tape
    (zero when none reached it, so that stores and loads stay paired)."""
    (out,) = eqn.outputs
    if out.type.is_float:
        ct = cts[0] if cts[0] is not None else b.zeros(out.type)
        b.emit("push", [ct], tape=tape_plan().transport[eqn.params.get("tape", 0)])
    return []


def push_vjp(b: Builder, eqn: Eqn, cts):
    """Reverse of a store to tape t: its value's cotangent arrives on the transport tape."""
    (x,) = eqn.inputs
    if not x.type.is_float:
        return [None]
    return [b.op("pop", type=x.type, tape=tape_plan().transport[eqn.params.get("tape", 0)])]


def push_jvp(b: Builder, eqn: Eqn, tangents):
    """Forward mode of a store: the tangent is stored first, then the value, so that the
    loads (in reverse order) get the value first, then its tangent."""
    (x,) = eqn.inputs
    if x.type.is_float:
        b.emit("push", [b.zeros(x.type) if tangents[0] is None else tangents[0]],
               tape=eqn.params.get("tape", 0))
    b.eqns.append(eqn)
    return []


def pop_jvp(b: Builder, eqn: Eqn, tangents):
    b.eqns.append(eqn)
    (out,) = eqn.outputs
    if not out.type.is_float:
        return [None]
    return [b.op("pop", type=out.type, hint="t" + out.hint, tape=eqn.params.get("tape", 0))]
