"""Structural derivative rules of `while`, `cond` and the tape primitives, attached to the
primitive table (`ir.primitive.attach`) when this module is imported: the primitives register
these four without them, since the rules are graph transformations of this layer.

Reverse mode of `while` (registered as its `ad_forward`):

    forward sweep:  carries, trips = while(cond, body', consts, carries0, 0)
                    body' = linearized body; pushes its residuals on the tape, trips += 1
    backward sweep: dcarries, dconsts = while(k > 0, body_bar, consts, dcarries_out, 0, trips)
                    body_bar pops the residuals (in reverse order) and runs the body's
                    backward equations; dconsts accumulate over iterations

so the adjoint loop runs backwards over the values stored by the forward loop, whatever its
trip count (data-dependent `while` included). Which residuals are stored is `storage`'s
choice: loop constants are read directly, loop invariants are computed once before the
adjoint loop (passed to it as constants), counters and values cheap to recompute are
recomputed, a carry's new value is the next iteration's old one (the adjoint loop carries
it), the rest is stored once per iteration. Guards (see `reverse`): a const's
cotangent is guarded by `trips > 0` (or by "some iteration contributed", a carried bool,
when the body's contribution is itself guarded); a carry's cotangent carries its guard
through the adjoint loop when some iteration may pass none on (its body overwrites the
carry, or the loop's output cotangent is guarded). The body is linearized once those guards
are known, so the forward loop's body is completed by the backward rule. Loops the
differentiation's checkpointing policy covers (`checkpoint.applies`) store snapshots of
their carries instead, and the backward sweep recomputes the residuals segment by segment
before running the same adjoint loop over each (`checkpoint.Segmented`).

Reverse mode of `cond` replays the taken arm: the backward sweep is a `cond` on the same
predicate whose arms are the arms' `vjp_graph`s (recomputing the arm's forward values, without
the user's prints and checks, which ran in the forward sweep). An
operand reached by one arm only gets the predicate (or its negation) as its guard.

Forward mode of both transforms the subgraphs with `jvp_graph`. The tape primitives have
rules too, so adjoint code can be differentiated again: in forward mode every stored value
travels with its tangent; in reverse mode a load's cotangent goes back to its store on a
transport tape (see `TapePlan`), followed by its guard.
"""

from __future__ import annotations

from .. import primitives  # noqa: F401  (registers while/cond/push/pop, completed below)
from ..ir.builder import Builder
from ..ir.core import BOOL, I64, Const, Eqn, Graph, Var, walk_eqns
from ..ir.loops import While
from ..ir.primitive import attach
from ..ir.transform import clone, inline
from ..primitives.effects import without_effects
from .checkpoint import Segmented
from .checkpoint import applies as checkpointed
from .forward import jvp_graph
from .reverse import (
    ABSENT,
    ALWAYS,
    GUARDED,
    NEVER,
    PLAIN,
    TapePlan,
    linearize,
    vjp_graph,
)
from .storage import Storage, forward_body, plan_storage


def _fresh(vars_) -> list[Var]:
    return [Var(v.type, v.hint) for v in vars_]


def _with_extra_inputs(graph: Graph, extra: list[Var]) -> Graph:
    """`graph` taking unused `extra` inputs after its own."""
    b = Builder()
    inputs = _fresh(graph.inputs)
    outputs = inline(b, graph, inputs)
    return Graph(inputs + extra, b.eqns, outputs, graph.name)


def _seed(ct, guard) -> str:
    """How an output cotangent enters a linearized subgraph (see `reverse`)."""
    if ct is None:
        return ABSENT
    return PLAIN if guard is None else GUARDED


def while_ad_forward(fb: Builder, eqn: Eqn, plan: TapePlan):
    loop = While(eqn)
    n, cond, body = loop.n_consts, loop.cond, loop.body
    consts, carries = loop.consts, loop.carries
    # the forward loop; its body, which stores the residuals of the body's backward
    # equations, is set by `emit_backward` once the cotangents (and their guards) are known
    trips = Var(I64, "trips")
    segmented = Segmented(fb, eqn, trips, plan) if checkpointed(eqn, plan) else None
    if segmented is None:
        forward = Eqn("while", list(consts) + list(carries) + [Const(0, I64)],
                      list(eqn.outputs) + [trips],
                      While.params(_with_extra_inputs(cond, [Var(I64, "trips")]), None, n),
                      eqn.loc)
        fb.eqns.append(forward)
    float_carries = [i for i, v in enumerate(carries) if v.type.is_float]
    float_consts = [i for i, v in enumerate(consts) if v.type.is_float]
    float_inputs = [i for i, v in enumerate(body.inputs) if v.type.is_float]

    def linearized_body(cts, guards):
        """The body linearized with the carries' cotangents guarded wherever some iteration
        may receive none (a fixpoint: a carry its body leaves untouched passes nothing on)."""
        kinds = {i: _seed(cts[i], guards[i]) for i in float_carries}
        inner = plan if segmented is None else plan.inside_segments()
        while True:
            lin = linearize(body, [kinds[i] for i in float_carries], inner)
            in_guards = lin.bwd.outputs[len(float_inputs):]
            carry_guards = [g for i, g in zip(float_inputs, in_guards, strict=True) if i >= n]
            stable = {PLAIN: ALWAYS, ABSENT: NEVER}
            widen = [i for i, g in zip(float_carries, carry_guards, strict=True)
                     if kinds[i] != GUARDED and g != stable[kinds[i]]]
            if not widen:
                return lin, kinds
            kinds.update((i, GUARDED) for i in widen)

    def emit_backward(bb: Builder, cts, guards):
        lin, kinds = linearized_body(cts, guards)
        storage = plan_storage(lin, n)
        taped = _taped_body(lin, storage, body.name, plan, eqn.loc)
        if segmented is None:
            forward.params["body"] = taped
        else:
            segmented.complete(taped, storage)
        body_inputs = lin.fwd.inputs
        guarded = [i for i in float_carries if kinds[i] == GUARDED]
        rb = Builder(eqn.loc)
        r_consts = [Var(c.type, getattr(c, "hint", "")) for c in consts]
        r_hoisted = [Var(v.type, v.hint) for v in storage.invariant]
        r_bars = [Var(carries[i].type, "d" + eqn.outputs[i].hint) for i in float_carries]
        r_guards = [Var(BOOL, "g" + eqn.outputs[i].hint) for i in guarded]
        r_acc = [Var(consts[i].type, "d" + body_inputs[i].hint) for i in float_consts]
        r_next = {j: Var(carries[j].type, eqn.outputs[j].hint) for j in storage.next_carries}
        k = Var(I64, "k")
        env, starts = storage.reverse_values(rb, r_consts, r_hoisted, r_next, plan.residual)
        res_atoms = [env[id(r)] for r in lin.residuals]
        results = inline(rb, lin.bwd, res_atoms + r_bars + r_guards)
        bars, in_guards = results[:len(float_inputs)], results[len(float_inputs):]
        const_bars = [(bar, g) for i, bar, g in zip(float_inputs, bars, in_guards, strict=True)
                      if i < n]
        carry_bars = [bar for i, bar in zip(float_inputs, bars, strict=True) if i >= n]
        carry_guards = [g for i, g in zip(float_inputs, in_guards, strict=True) if i >= n]
        # a const's accumulated cotangent is guarded by "some iteration contributed"
        runtime = [j for j, (_, g) in enumerate(const_bars) if isinstance(g, Var)]
        r_any = [Var(BOOL, "g" + body_inputs[float_consts[j]].hint) for j in runtime]

        new_acc = [acc if g == NEVER else rb.add(acc, bar)
                   for acc, (bar, g) in zip(r_acc, const_bars, strict=True)]
        new_any = [rb.or_(r, const_bars[j][1]) for r, j in zip(r_any, runtime, strict=True)]
        new_guards = [g for i, g in zip(float_carries, carry_guards, strict=True)
                      if kinds[i] == GUARDED]
        r_inputs = r_consts + r_hoisted + r_bars + r_guards + r_acc + r_any + \
            list(r_next.values()) + [k]
        rev_body = Graph(r_inputs, rb.eqns,
                         carry_bars + new_guards + new_acc + new_any + list(starts.values())
                         + [rb.sub(k, 1)], body.name + "_bar")
        cb = Builder(eqn.loc)
        c_inputs = _fresh(r_inputs)
        rev_cond = Graph(c_inputs, cb.eqns, [cb.gt(c_inputs[-1], 0)], cond.name + "_bar")
        init = [bb.zeros(carries[i].type) if cts[i] is None else cts[i] for i in float_carries]
        init_guards = [NEVER if cts[i] is None else ALWAYS if guards[i] is None else guards[i]
                       for i in guarded]
        acc0 = [bb.zeros(consts[i].type) for i in float_consts]
        hoisted = storage.hoist(bb, bb.gt(trips, 0), consts)

        def adjoint(b: Builder, consts_, hoisted_, state, last, count) -> list:
            """The adjoint loop over `count` iterations from the adjoint `state` (cotangents,
            guards, accumulators), the last of which ended with the carries `last`."""
            outs = b.emit("while", list(consts_) + hoisted_ + state + last + [count],
                          **While.params(clone(rev_cond), clone(rev_body), n + len(hoisted_)))
            for out, var in zip(outs, r_bars + r_guards + r_acc + r_any +
                                list(r_next.values()) + [k], strict=True):
                out.hint = var.hint
            return outs[:len(state)]

        state = init + init_guards + acc0 + [NEVER] * len(r_any)
        if segmented is None:  # the carries' values after the last iteration
            outs = adjoint(bb, consts, hoisted, state, [eqn.outputs[j] for j in r_next], trips)
        else:
            outs = segmented.reverse(bb, list(consts), hoisted, state, list(r_next), adjoint)
        out_bars, outs = outs[:len(r_bars)], outs[len(r_bars):]
        out_guards, outs = dict(zip(guarded, outs, strict=False)), outs[len(guarded):]
        out_acc, out_any = outs[:len(r_acc)], dict(zip(runtime, outs[len(r_acc):], strict=False))
        in_cts, in_guards = [None] * len(eqn.inputs), [ALWAYS] * len(eqn.inputs)
        for i, bar in zip(float_carries, out_bars, strict=True):
            if kinds[i] != ABSENT:
                in_cts[n + i], in_guards[n + i] = bar, out_guards.get(i, ALWAYS)
        ran = None  # the loop ran at least once
        for j, (i, acc) in enumerate(zip(float_consts, out_acc, strict=True)):
            if const_bars[j][1] == NEVER:
                continue
            if j not in out_any and ran is None:
                ran = bb.gt(trips, 0)
            in_cts[i], in_guards[i] = acc, out_any.get(j, ran)
        return in_cts, in_guards

    return emit_backward


def _taped_body(lin, storage: Storage, name: str, plan: TapePlan, loc) -> Graph:
    """The forward loop's body: the linearized body `lin`, also storing on the tape the
    values of the body's residuals that `storage` says to store, and counting the
    iterations (`consts + carries + [count] -> new carries + [count + 1]`)."""
    b = Builder(loc)
    inputs, count = _fresh(lin.fwd.inputs), Var(I64, "trips")
    new_carries = forward_body(lin, storage, b, inputs, plan.residual)
    return Graph(inputs + [count], b.eqns, new_carries + [b.add(count, 1)], name)


def _float_positions(atoms) -> list[int]:
    return [i for i, a in enumerate(atoms) if a.type.is_float]


def cond_vjp(b: Builder, eqn: Eqn, cts, guards, plan: TapePlan):
    """Replay of the taken arm's backward sweep. An operand's cotangent is guarded by the
    predicate when only one arm reaches it, by a guard the arms return when it depends on
    guards inside them, and is absent when no arm reaches it. An output cotangent guarded by
    a bool output of the same `cond` (a return flag) is plain or absent in an arm that sets
    that flag to a constant."""
    pred, operands = eqn.inputs[0], eqn.inputs[1:]
    arms = eqn.params["branches"]
    n_out = len(eqn.outputs)
    out_pos = _float_positions(eqn.outputs)
    seeds = [_seed(cts[i], guards[i]) for i in out_pos]
    out_bars = [b.zeros(eqn.outputs[i].type) if cts[i] is None else cts[i] for i in out_pos]
    guarded = [i for i, s in zip(out_pos, seeds, strict=True) if s == GUARDED]
    outer = list(operands) + out_bars + [guards[i] for i in guarded]
    fulls = [_arm_vjp(arm, eqn, seeds, [guards[i] for i in out_pos], len(guarded), plan)
             for arm in arms]
    in_pos = _float_positions(operands)
    m = len(in_pos)
    kept, runtime = [], []  # operand positions with a cotangent; those with a guard output
    in_guards = [ALWAYS] * len(eqn.inputs)
    for j, i in enumerate(in_pos):
        # each arm's guard as a value outside the cond, where it is one
        arm_guards = [x if isinstance(x, Const) else outer[f.inputs.index(x)]
                      if x in f.inputs else None
                      for f, x in ((f, f.outputs[n_out + m + j]) for f in fulls)]
        if arm_guards == [NEVER, NEVER]:
            continue
        kept.append(j)
        guard = None if None in arm_guards else _select_guard(b, pred, *arm_guards)
        if guard is None:
            runtime.append(j)
        else:
            in_guards[1 + i] = guard
    bar_arms = [Graph(f.inputs, f.eqns, [f.outputs[n_out + j] for j in kept] +
                      [f.outputs[n_out + m + j] for j in runtime], arm.name + "_bar")
                for f, arm in zip(fulls, arms, strict=True)]
    results = b.emit("cond", [pred] + outer, branches=tuple(bar_arms))
    in_cts = [None] * len(eqn.inputs)
    for j, bar in zip(kept, results, strict=False):
        in_cts[1 + in_pos[j]] = bar
    for j, guard in zip(runtime, results[len(kept):], strict=True):
        guard.hint = "g" + getattr(operands[in_pos[j]], "hint", "")
        in_guards[1 + in_pos[j]] = guard
    return in_cts, in_guards


def _select_guard(b: Builder, pred, g_else, g_then):
    """`g_then if pred else g_else` for guards known outside the cond (constants or outer
    values), without a select; None when both are values (the arms return it then)."""
    if g_else is g_then or g_else == g_then:
        return g_else
    if isinstance(g_else, Const) and isinstance(g_then, Const):
        return pred if g_then.value else b.not_(pred)
    if isinstance(g_else, Const):
        return b.and_(pred, g_then) if g_else == NEVER else b.or_(b.not_(pred), g_then)
    if isinstance(g_then, Const):
        return b.and_(b.not_(pred), g_else) if g_then == NEVER else b.or_(pred, g_else)
    return None


def _arm_vjp(arm: Graph, eqn: Eqn, seeds: list, guards: list, n_guards: int,
             plan: TapePlan) -> Graph:
    """`vjp_graph(arm)` taking `operands + output cotangents + n_guards guards`; a guard that
    is an output of `eqn` itself is the arm's value for it (a constant, or a var of the arm)."""
    own = {id(o): k for k, o in enumerate(eqn.outputs)}
    arm_seeds = list(seeds)
    for k, (seed, guard) in enumerate(zip(seeds, guards, strict=True)):
        if seed == GUARDED and id(guard) in own:
            value = arm.outputs[own[id(guard)]]
            arm_seeds[k] = own[id(guard)] if isinstance(value, Var) else \
                PLAIN if value.value else ABSENT
    full = vjp_graph(arm, arm_seeds, plan)
    without_effects(full)  # the replay recomputes values: prints and checks ran forward
    if arm_seeds == seeds:
        return full
    b = Builder()
    n_bars = len(seeds)
    inputs = _fresh(full.inputs[:len(arm.inputs) + n_bars]) + \
        [Var(BOOL, "g") for _ in range(n_guards)]
    kept = [inputs[len(arm.inputs) + n_bars + g]
            for g, k in enumerate(k for k, s in enumerate(seeds) if s == GUARDED)
            if arm_seeds[k] == GUARDED]
    outputs = inline(b, full, inputs[:len(arm.inputs) + n_bars] + kept)
    return Graph(inputs, b.eqns, outputs, full.name)


def _tape_loads(graph: Graph) -> set[int]:
    """ids of `graph`'s equations that load from a tape, themselves or in a subgraph: their
    outputs carry the tangents stored with the values, whatever else moves."""
    return {id(eqn) for eqn in graph.eqns if eqn.prim in LOADS or any(
        e.prim in LOADS for sub in eqn.subgraphs() for e in walk_eqns(sub))}


LOADS = ("pop", "list_get", "list_pop", "list_adjoint_take")  # reads of tapes and lists


def _moving_outputs(graph: Graph, moving: set[int], loads: set[int]) -> set[int]:
    """Positions of `graph`'s outputs that may have a nonzero tangent when only its inputs at
    positions `moving` have one: those that depend on them (subgraphs are closed, so through
    equation inputs), and the outputs of the equations in `loads` (`_tape_loads`)."""
    live = {id(graph.inputs[i]) for i in moving}
    for eqn in graph.eqns:
        if id(eqn) in loads or any(isinstance(a, Var) and id(a) in live for a in eqn.inputs):
            live.update(id(o) for o in eqn.outputs)
    return {k for k, a in enumerate(graph.outputs) if isinstance(a, Var) and id(a) in live}


def cond_jvp(b: Builder, eqn: Eqn, tangents):
    """Operands without a tangent are constants of the arms (symbolic zeros, so no
    `0 * inf` comes from them)."""
    pred, operands = eqn.inputs[0], eqn.inputs[1:]
    n_out = len(eqn.outputs)
    moving = [i for i in _float_positions(operands) if tangents[1 + i] is not None]
    arms = [jvp_graph(arm, moving) for arm in eqn.params["branches"]]
    t_in = [tangents[1 + i] for i in moving]
    t_out = [Var(eqn.outputs[i].type, "t" + eqn.outputs[i].hint)
             for i in _float_positions(eqn.outputs)]
    # one branch computes the outputs and their tangents (it replaces the primal equation)
    b.eqns.append(Eqn("cond", [pred] + list(operands) + t_in, list(eqn.outputs) + t_out,
                      {"branches": tuple(arms)}, eqn.loc))
    result = [None] * n_out
    for t, i in zip(t_out, _float_positions(eqn.outputs), strict=True):
        result[i] = t
    return result


def _moving_carries(body: Graph, n: int, moving: set[int]) -> set[int]:
    """Body input positions with a tangent: the consts and carries in `moving`, and every
    carry that an iteration makes depend on them (a fixpoint)."""
    loads = _tape_loads(body)
    while True:
        grown = moving | {n + k for k in _moving_outputs(body, moving, loads)
                          if body.inputs[n + k].type.is_float}
        if grown == moving:
            return moving
        moving = grown


def while_jvp(b: Builder, eqn: Eqn, tangents):
    """Consts and carries that never get a tangent stay constants of the loop (symbolic
    zeros, so no `0 * inf` comes from them)."""
    loop = While(eqn)
    n, cond, body = loop.n_consts, loop.cond, loop.body
    consts, carries = loop.consts, loop.carries
    floats = _float_positions(body.inputs)
    moving = _moving_carries(body, n, {i for i in floats if tangents[i] is not None})
    float_in = [i for i in floats if i in moving]
    jbody = jvp_graph(body, float_in)
    n_in = len(body.inputs)
    primal_in, tangent_in = jbody.inputs[:n_in], jbody.inputs[n_in:]
    t_consts = [t for i, t in zip(float_in, tangent_in, strict=True) if i < n]
    t_carries = [t for i, t in zip(float_in, tangent_in, strict=True) if i >= n]
    moving_out = [i - n for i in float_in if i >= n]  # in order
    n_out = len(body.outputs)
    t_body_out = [t for k, t in zip(_float_positions(body.outputs), jbody.outputs[n_out:],
                                    strict=True) if k in moving_out]
    # loop layout: consts + const tangents | carries + carry tangents
    order = primal_in[:n] + t_consts + primal_in[n:] + t_carries
    loop_body = Graph(order, jbody.eqns, jbody.outputs[:n_out] + t_body_out,
                      body.name + "_jvp")
    loop_cond = _reorder_cond(cond, n, t_consts, t_carries)
    init_t = [b.zeros(eqn.inputs[i].type) if tangents[i] is None else tangents[i]
              for i in float_in]
    tc = [t for i, t in zip(float_in, init_t, strict=True) if i < n]
    tk = [t for i, t in zip(float_in, init_t, strict=True) if i >= n]
    t_out = [Var(carries[i].type, "t" + eqn.outputs[i].hint) for i in moving_out]
    # one loop computes the carries and their tangents (it replaces the primal equation, so
    # values stored on the tape by the body are stored once, each with its tangent)
    b.eqns.append(Eqn("while", list(consts) + tc + list(carries) + tk,
                      list(eqn.outputs) + t_out,
                      While.params(loop_cond, loop_body, n + len(tc)), eqn.loc))
    result = [None] * len(carries)
    for t, i in zip(t_out, moving_out, strict=True):
        result[i] = t
    return result


def _reorder_cond(cond: Graph, n: int, tangent_consts, tangent_carries) -> Graph:
    b = Builder()
    inputs = _fresh(cond.inputs)
    extra_c = [Var(t.type, "t") for t in tangent_consts]
    extra_k = [Var(t.type, "t") for t in tangent_carries]
    outputs = inline(b, cond, inputs)
    return Graph(inputs[:n] + extra_c + inputs[n:] + extra_k, b.eqns, outputs, cond.name)


def pop_vjp(b: Builder, eqn: Eqn, cts, guards, plan: TapePlan):
    """Reverse of a load from tape t: send the cotangent back on tape t's transport tape
    (zero when none reached it, so that stores and loads stay paired), followed by its guard
    (whether it is a contribution at all: the store's side cannot know it statically)."""
    (out,) = eqn.outputs
    if out.type.is_float:
        tape = plan.transport[eqn.params.get("tape", 0)]
        ct, guard = cts[0], guards[0]
        b.emit("push", [b.zeros(out.type) if ct is None else ct], tape=tape)
        b.emit("push", [NEVER if ct is None else ALWAYS if guard is None else guard],
               tape=tape)
    return [], []


def push_vjp(b: Builder, eqn: Eqn, cts, guards, plan: TapePlan):
    """Reverse of a store to tape t: its value's cotangent and guard arrive on the transport
    tape."""
    (x,) = eqn.inputs
    if not x.type.is_float:
        return [None], [ALWAYS]
    tape = plan.transport[eqn.params.get("tape", 0)]
    guard = b.op("pop", type=BOOL, tape=tape)
    return [b.op("pop", type=x.type, tape=tape)], [guard]


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


attach("while", jvp=while_jvp, ad_forward=while_ad_forward)
attach("cond", vjp=cond_vjp, jvp=cond_jvp)
attach("push", vjp=push_vjp, jvp=push_jvp)
attach("pop", vjp=pop_vjp, jvp=pop_jvp)
