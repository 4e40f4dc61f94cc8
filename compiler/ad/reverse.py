"""Reverse mode over the IR: a generic reverse interpreter with no per-primitive cases.

Contract:
- `linearize(g)` splits `g` into `fwd: inputs -> outputs + residuals` and
  `bwd: residuals + output cotangents -> input cotangents`, where cotangents exist for float
  values only, scalars and arrays (ints and bools carry none). Residuals are exactly the
  forward values the backward equations read. Each primitive contributes through its table
  entry: `vjp` (emitted in the backward sweep), or `ad_forward` when its forward sweep must
  change too (`while` stores per-iteration values on the tape, see `control.py`).
- `vjp_graph(g)` is both sweeps in one graph: `inputs + output cotangents -> outputs + input
  cotangents`.
- The AD tapes a differentiation uses are chosen once, by its outermost `linearize`
  (`TapePlan`, passed explicitly to the nested `linearize` / `vjp_graph` calls and to the
  structural rules), so that differentiating adjoint code again never mixes tape streams.
  The plan also carries how loops bound their tapes (`checkpoint_policy`; automatic unless
  the caller says otherwise).
Symbolic zeros are `None` while transforming; they become zeros only where a value is needed.
Cotangents are summed back to each operand's shape (`fit`) and accumulated with `add` (the
pass `passes/scatter.py`, run after AD, turns sums of scatters into zeros into scatter-adds).
Cotangent vars are named `d<name>` after the primal variable they belong to.

Untaken paths contribute nothing (the eager tape's semantics): a cotangent may be *guarded* by a
runtime bool (a branch predicate, `trips > 0` of a loop, or a combination of them) when it only
stems from code that may not have run. Its value is zero while the guard is false, and the
contributions it makes through a primitive whose derivative may be inf or nan are gated,
`cond(guard, contributions, zeros)`, so `0 * nan` from a path that did not run never reaches an
input; contributions linear in the cotangent with finite factors (`add`, `neg`, shape changes,
products with finite constants, ...) need no gate. Guarded cotangents meeting combine their
guards with `or`; an unguarded contribution drops the guard. Structural rules (equations with
subgraphs, and the tape primitives) receive the guards of their output cotangents and the
`TapePlan`, and return the guards of their input cotangents (a load's cotangent travels back to
its store with its guard). `linearize(g, seeds, plan)` / `vjp_graph(g, seeds, plan)` serve them:
`seeds` says per float output whether its cotangent is PLAIN, ABSENT (none reaches it), GUARDED
(by a bool input of the backward sweep, after the cotangents) or guarded by the graph's own bool
output number k (the int k: a return flag the graph sets); the backward sweep then also returns
one guard per float input: `ALWAYS`, `NEVER` (none reaches it) or a bool var.

Elements a selection did not choose contribute nothing either (beyond JAX, PyTorch and
autograd, where `0 * inf` from the unselected side gives NaN): the cotangent of an operand of
the output's shape whose partial derivative is a `Mask` (in the formulas that declare
`selects`: `select`, `clip`, `maximum`, ...; `derivatives.supports`) carries an element mask,
where it was chosen and-ed with the output's own mask; through an elementwise equation, a
masked cotangent's contributions that may not vanish with it are zeroed where the mask is
false (`select`), and operands of the output's shape inherit the mask. Masks meeting combine
with `or`; an unmasked contribution, or one from any other equation, drops the mask
(`_masked`, `_combine`). A number's mask is and-ed into its guard instead (`_flags`): a number
a selection did not choose is as a path not taken, and its guard crosses the structural rules.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from adlite.derivatives import Formula, Mask, supports

from ..ir.builder import Builder
from ..ir.core import BOOL, Atom, Const, Eqn, Graph, Var, walk_eqns
from ..ir.primitive import PRIMITIVES
from ..ir.transform import clone, free_vars, inline
from ..passes.dce import dce
from ..primitives.lists import LIST_PRIMITIVES
from ..primitives.vocabulary import BuilderOps
from .checkpoint_policy import Checkpoint, policy


@dataclass(frozen=True)
class TapePlan:
    """Which AD tapes a differentiation uses: `residual` for the values its loops store,
    `transport[t]` carrying cotangents from the loads of tape t (in adjoint code being
    differentiated again) back to its stores, and `snapshots` for the loop states that
    checkpointed loops keep (apart from the residuals, so that every push of the residual
    tape stores one loop body's whole record: `passes/tape.py` then prunes unread fields).
    Each is its own LIFO, so streams never mix."""

    residual: int
    transport: dict
    snapshots: int
    checkpoint: Checkpoint | None = None  # how its loops bound their tapes (`checkpoint`)
    segmented_around: int = 0  # checkpointed loops around the code being linearized

    def inside_segments(self) -> TapePlan:
        """This plan for the body of a checkpointed loop."""
        return dataclasses.replace(self, segmented_around=self.segmented_around + 1)

    @staticmethod
    def for_graph(graph: Graph, checkpoint: object = None) -> TapePlan:
        """The plan of a differentiation of `graph`: tapes numbered after those it uses;
        `checkpoint` as the argument of `grad` (`checkpoint_policy.policy`)."""
        used = tapes_in(graph)
        residual = max(used) + 1 if used else 0
        return TapePlan(residual, {t: residual + 1 + t for t in sorted(used)},
                        2 * residual + 1, policy(checkpoint))


def tapes_in(graph: Graph) -> set[int]:
    return {e.params.get("tape", 0) for e in walk_eqns(graph) if e.prim in ("push", "pop")}


TRAFFIC = ("push", "pop", *LIST_PRIMITIVES)  # equations moving values outside the data flow


def touches_tape(eqn: Eqn) -> bool:
    """Does `eqn` (or a subgraph of it) move values on a tape or through a run-time list's
    buffers? The backward sweep visits it whether a cotangent reached it or not."""
    return eqn.prim in TRAFFIC or any(e.prim in TRAFFIC for sub in eqn.subgraphs()
                                      for e in walk_eqns(sub))


PLAIN, ABSENT, GUARDED = "plain", "absent", "guarded"
ALWAYS, NEVER = Const(True, BOOL), Const(False, BOOL)


@dataclass
class Linearized:
    fwd: Graph
    bwd: Graph
    residuals: list[Var]


def _float_atoms(atoms) -> list:
    return [a for a in atoms if a.type.is_float]


def fit(b: Builder, value: Atom, t) -> Atom:
    """`value` brought to the shape of `t`: summed down for the cotangent of a broadcast
    operand, broadcast up when a rule produced a scalar for an array operand."""
    if value.type.shape == t.shape:
        return value
    if not value.type.is_array:
        return b.broadcast_to(value, shape=t.shape)
    return b.sum_to(value, shape=t.shape)


def _recent_definition(b: Builder, value: Atom, window: int = 16):
    for eqn in reversed(b.eqns[-window:]):
        if eqn.outputs and eqn.outputs[0] is value:
            return eqn
    return None


def _accumulate(bb: Builder, ct: dict[int, Atom], unsummed: dict[int, tuple],
                guards: dict[int, Atom], var: Var, value: Atom, guard: Atom | None) -> None:
    """ct[var] += value, where `value` is guarded by `guard` (None: unguarded). A value of
    another shape than var's (the cotangent of a broadcast use) is kept in `unsummed[var]`,
    added to the others of its shape, and summed down once (`_settle`) when the sweep leaves
    the statement or var's cotangent is read. So `sum_to(x) + sum_to(y)` is `sum_to(x + y)`:
    a number used twice in one statement is one reduction, not two (one pass over a
    stencil's field), and no sum waits beyond its statement (one at the end of a long sweep
    would keep, or compute again, the cotangents of all the statements between)."""
    fresh = not _reached(ct, unsummed, var)
    if value.type.is_array and value.type.shape != var.type.shape:
        by_type = unsummed.setdefault(id(var), (var, {}))[1]
        held = by_type.get(value.type)
        by_type[value.type] = value if held is None else bb.add(held, value)
    else:
        _add(bb, ct, var, value)
    _combine(bb, guards, var, guard, fresh=fresh)


def _reached(ct: dict[int, Atom], unsummed: dict[int, tuple], var: Var) -> bool:
    """Has a contribution to var's cotangent been made (summed or not)?"""
    return id(var) in ct or id(var) in unsummed


def _add(bb: Builder, ct: dict[int, Atom], var: Var, value: Atom) -> None:
    """ct[var] += value brought to var's shape (`fit`)."""
    value = fit(bb, value, var.type)
    if isinstance(value, Var) and not value.hint and var.hint:
        value.hint = "d" + var.hint.lstrip("_")
    current = ct.get(id(var))
    ct[id(var)] = value if current is None else bb.add(current, value)


def _settle(bb: Builder, ct: dict[int, Atom], unsummed: dict[int, tuple],
            only: list | None = None) -> None:
    """Sum down the unsummed parts of the cotangents (of the vars `only`, else of all) into
    `ct`."""
    for key in [id(v) for v in only] if only is not None else list(unsummed):
        var, by_type = unsummed.pop(key, (None, {}))
        for value in by_type.values():
            _add(bb, ct, var, value)


def _combine(bb: Builder, held: dict[int, Atom], var: Var, flag: Atom | None,
             fresh: bool) -> None:
    """The guard (or element mask) of `var`'s cotangent in `held` after a contribution that
    has `flag` (None: none); `fresh`: it is the first contribution. Flags meeting combine
    with `or`; a contribution without one drops it."""
    if fresh:
        if flag is not None:
            held[id(var)] = flag
        return
    current = held.get(id(var))
    if current is None or flag is None:
        held.pop(id(var), None)
    elif current is not flag:
        held[id(var)] = bb.or_(current, flag)


def _vanishes(atom: Atom, defs: dict[int, Eqn], cts: set[int], finite: set[int]) -> bool:
    """Whether `atom` (a contribution computed by the equations `defs`, by output id) is zero
    whenever the cotangents `cts` are: it is built from them and zero constants by linear
    primitives, with factors in products that are finite constants or vars in `finite`, and
    divisors that are nonzero finite constants."""
    if isinstance(atom, Const):
        return atom.value == 0
    if id(atom) in cts:
        return True
    eqn = defs.get(id(atom))
    if eqn is None or not PRIMITIVES[eqn.prim].linear:
        return False
    floats = [a for a in eqn.inputs if a.type.is_float]
    if eqn.prim == "div":
        divisor = eqn.inputs[1]
        return isinstance(divisor, Const) and 0 < abs(divisor.value) < float("inf") and \
            _vanishes(eqn.inputs[0], defs, cts, finite)
    if eqn.prim == "mul":
        factors = [a for a in floats if id(a) in finite or
                   isinstance(a, Const) and abs(a.value) < float("inf")]
        rest = [a for a in floats if not any(a is f for f in factors)]
        return bool(rest) and all(_vanishes(a, defs, cts, finite) for a in rest)
    return bool(floats) and all(_vanishes(a, defs, cts, finite) for a in floats)


def _finite_values(eqns: list[Eqn]) -> set[int]:
    """Ids of the float values that are finite whatever the inputs: conversions of ints."""
    return {id(e.outputs[0]) for e in eqns
            if e.prim == "convert" and not e.inputs[0].type.is_float}


def _gate(bb: Builder, start: int, eqn: Eqn, cts: list, in_cts: list, guard: Atom,
          finite: set[int]) -> list:
    """`in_cts`, the contributions of `eqn` emitted since `bb.eqns[start]` from cotangents
    guarded by `guard`, made zero where the guard is false: those that do not vanish with
    the cotangents anyway are computed in the taken arm of a `cond` on the guard (they are
    not run when it is false; their first copies become dead code)."""
    emitted = bb.eqns[start:]
    defs = {id(o): e for e in emitted for o in e.outputs}
    seeds = {id(c) for c in cts if c is not None}
    finite = finite | _finite_values(emitted)
    unsafe = [k for k, (a, c) in enumerate(zip(eqn.inputs, in_cts, strict=True))
              if c is not None and isinstance(a, Var) and a.type.is_float
              and not _vanishes(c, defs, seeds, finite)]
    if not unsafe:
        return in_cts
    values = [in_cts[k] for k in unsafe]
    if any(PRIMITIVES[e.prim].effectful or touches_tape(e) for e in emitted):
        emitted = []  # tape traffic stays unconditional: only its results are gated
    operands = free_vars(emitted, values)
    taken = clone(Graph(operands, emitted, values, "gate"))
    zb = Builder(bb.loc)
    untaken = Graph([Var(a.type, a.hint) for a in operands], zb.eqns,
                    [zb.zeros(v.type) for v in values], "gate")
    gated = bb.emit("cond", [guard] + operands, branches=(untaken, taken))
    out = list(in_cts)
    for k, value in zip(unsafe, gated, strict=True):
        out[k] = value
    return out


def _masked(bb: Builder, start: int, eqn: Eqn, ct: Atom, in_cts: list, mask: Atom | None,
            finite: set[int]) -> tuple[list, list]:
    """The contributions of the elementwise `eqn` (emitted since `bb.eqns[start]` from its
    output cotangent `ct`, masked by `mask` or None) with those that may not vanish zeroed
    where `mask` is false, and each operand's mask (see the module)."""
    shape = eqn.outputs[0].type.shape
    formula = PRIMITIVES[eqn.prim].formula
    found = supports(formula, BuilderOps(bb), eqn.inputs, eqn.outputs[0]) if \
        isinstance(formula, Formula) and formula.selects else [None] * len(eqn.inputs)
    masks = [None if a.type.shape != shape else mask if s is None else
             _selected(bb, s, mask, shape) for a, s in zip(eqn.inputs, found, strict=True)]
    if mask is None:
        return in_cts, masks
    defs = {id(o): e for e in bb.eqns[start:] for o in e.outputs}
    finite = finite | _finite_values(bb.eqns[start:])
    out = [c if c is None or _vanishes(c, defs, {id(ct)}, finite) else
           bb.select(mask if c.type.shape == shape else
                     bb.broadcast_to(mask, shape=c.type.shape), c, Const(0.0, c.type.scalar))
           for c in in_cts]
    return out, masks


def _selected(bb: Builder, support: Mask, mask: Atom | None, shape) -> Atom:
    """Where an operand whose partial is `support` was selected, and-ed with the output's
    `mask` (None: none), in the output's `shape`."""
    cond = support.cond
    if cond.type.shape != shape:
        cond = bb.broadcast_to(cond, shape=shape)
    if not support.where:
        cond = bb.not_(cond)
    return cond if mask is None else bb.and_(mask, cond)


def _flags(bb: Builder, var: Var, guard: Atom | None, mask: Atom | None
           ) -> tuple[Atom | None, Atom | None]:
    """(guard, element mask) of a contribution to `var`'s cotangent: the mask of a number
    is and-ed into its guard (a number a selection did not choose is as a path not taken, so
    the guard machinery, structural rules included, keeps it from `0 * inf`)."""
    if mask is None or var.type.is_array:
        return guard, mask
    return (mask if guard is None else bb.and_(guard, mask)), None


def _as_guard(bb: Builder, atom: Atom, negation: dict[int, Atom]) -> Atom | None | bool:
    """A guard returned by a rule as the driver keeps it: None for always, False for never,
    simplified (`_simplest`) so that a return flag stays recognisable as the output of the
    `cond` that sets it."""
    if isinstance(atom, Const):
        return None if atom.value else False
    return _simplest(bb, atom, negation)


def _simplest(bb: Builder, atom: Atom, negation: dict[int, Atom]) -> Atom:
    """`atom`, a guard just built in `bb`, with `not (not x)` -> x and `x and x`, `x or x`
    -> x applied (`negation` maps the forward sweep's `not_` results to their operands)."""
    eqn = _recent_definition(bb, atom)
    if eqn is None or eqn.prim not in ("not_", "and_", "or_"):
        return atom
    if eqn.prim == "not_":
        inner = eqn.inputs[0]
        twice = _recent_definition(bb, inner)
        if twice is not None and twice.prim == "not_":
            return twice.inputs[0]
        return negation.get(id(inner), atom)
    left, right = (_simplest(bb, a, negation) for a in eqn.inputs)
    return left if left is right else atom


def _rule(eqn: Eqn, vjp, plan: TapePlan):
    """The backward step of `eqn` by its primitive's `vjp` rule (structural rules also get
    the guards and the plan)."""
    if eqn.subgraphs() or touches_tape(eqn):
        return lambda b, cts, guards: vjp(b, eqn, cts, guards, plan)
    return lambda b, cts: vjp(b, eqn, cts)


def linearize(graph: Graph, seeds: list[str | int] | None = None,
              plan: TapePlan | None = None) -> Linearized:
    """`plan`: that of the outermost differentiation (None: this is the outermost)."""
    plan = plan or TapePlan.for_graph(graph)
    g = clone(graph)
    fb, bb = Builder(), Builder()
    negation = {id(e.outputs[0]): e.inputs[0] for e in g.eqns if e.prim == "not_"}
    finite = _finite_values(g.eqns)
    backward_steps = []
    hooked: dict[int, tuple[int, int, Eqn]] = {}  # equations whose forward sweep was changed
    for eqn in g.eqns:
        prim = PRIMITIVES[eqn.prim]
        if prim.ad_forward is not None:
            start = len(fb.eqns)
            emit = prim.ad_forward(fb, eqn, plan)
            hooked[id(eqn)] = (start, len(fb.eqns), eqn)
        else:
            fb.eqns.append(eqn)
            emit = _rule(eqn, prim.vjp, plan)
        backward_steps.append((eqn, prim, emit))

    float_outs = _float_atoms(g.outputs)
    kinds = [PLAIN] * len(float_outs) if seeds is None else list(seeds)
    out_bars = [Var(a.type, "d" + (a.hint if isinstance(a, Var) else "out"))
                for a in float_outs]
    out_guards = [Var(BOOL, "g" + bar.hint) for bar, kind in zip(out_bars, kinds, strict=True)
                  if kind == GUARDED]
    ct: dict[int, Atom] = {}
    unsummed: dict[int, tuple] = {}
    guards: dict[int, Atom] = {}
    pending_guards = iter(out_guards)
    for atom, bar, kind in zip(float_outs, out_bars, kinds, strict=True):
        guard = next(pending_guards) if kind == GUARDED else \
            g.outputs[kind] if isinstance(kind, int) else None
        if isinstance(atom, Var) and kind != ABSENT:
            _accumulate(bb, ct, unsummed, guards, atom, bar, guard)
    masks: dict[int, Atom] = {}
    for eqn, prim, emit in reversed(backward_steps):
        if eqn.loc != bb.loc:  # the sweep leaves a statement: the sums of its uses are made
            _settle(bb, ct, unsummed)
        bb.loc = eqn.loc
        _settle(bb, ct, unsummed, eqn.outputs)
        cts = [ct.pop(id(v), None) for v in eqn.outputs]
        out_gs = [guards.pop(id(v), None) for v in eqn.outputs]
        out_mask = masks.pop(id(eqn.outputs[0]), None) if len(eqn.outputs) == 1 else None
        idle = all(c is None for c in cts) or not prim.differentiable
        if idle and not touches_tape(eqn):  # tape traffic must stay paired, cotangent or not
            continue
        if eqn.subgraphs() or touches_tape(eqn):
            in_cts, in_gs = emit(bb, cts, out_gs)
            in_gs = [_as_guard(bb, x, negation) for x in in_gs]
        else:
            start = len(bb.eqns)
            in_cts = emit(bb, cts)
            guard = next((x for c, x in zip(cts, out_gs, strict=True) if c is not None), None)
            if guard is not None:
                in_cts = _gate(bb, start, eqn, cts, in_cts, guard, finite)
            in_gs = [guard] * len(in_cts)
        in_masks = [None] * len(in_cts)
        if prim.elementwise and len(eqn.outputs) == 1 and cts[0] is not None:
            in_cts, in_masks = _masked(bb, start, eqn, cts[0], in_cts, out_mask, finite)
        hooked.pop(id(eqn), None)
        for k, (atom, c) in enumerate(zip(eqn.inputs, in_cts, strict=True)):
            if c is not None and in_gs[k] is not False and isinstance(atom, Var) \
                    and atom.type.is_float:
                guard, mask = _flags(bb, atom, in_gs[k], in_masks[k])
                _combine(bb, masks, atom, mask, fresh=not _reached(ct, unsummed, atom))
                _accumulate(bb, ct, unsummed, guards, atom, c, guard)
    for start, end, eqn in sorted(hooked.values(), key=lambda h: -h[0]):
        # no cotangent reached it: run the plain primal, so it stores nothing on the tape
        # (a store without its matching loads would shift every later load)
        fb.eqns[start:end] = [eqn]
    float_ins = _float_atoms(g.inputs)
    _settle(bb, ct, unsummed)
    bars = [ct[id(v)] if id(v) in ct else bb.zeros(v.type) for v in float_ins]
    in_guards = [guards.get(id(v), ALWAYS) if id(v) in ct else NEVER for v in float_ins]
    bwd = Graph([], bb.eqns, bars + (in_guards if seeds is not None else []),
                g.name + "_bwd")
    dce(bwd)  # rules compute cotangents for constants too; keep only what is needed
    bar_ids = {id(v) for v in out_bars + out_guards}
    residuals = [v for v in free_vars(bwd.eqns, bwd.outputs) if id(v) not in bar_ids]
    bwd.inputs = residuals + out_bars + out_guards
    fwd = Graph(g.inputs, fb.eqns, list(g.outputs) + residuals, g.name + "_fwd", g.externals)
    return Linearized(fwd, bwd, residuals)


def vjp_graph(graph: Graph, seeds: list[str | int] | None = None,
              plan: TapePlan | None = None) -> Graph:
    """`inputs + cotangents of float outputs -> outputs + cotangents of float inputs`; with
    `seeds`, also the guards of the GUARDED cotangents in, and one guard per float input out
    (see the module's contract)."""
    lin = linearize(graph, seeds, plan)
    b = Builder()
    inputs = [Var(v.type, v.hint) for v in graph.inputs]
    fwd_out = inline(b, lin.fwd, inputs)
    n = len(graph.outputs)
    extra = [Var(v.type, v.hint) for v in lin.bwd.inputs[len(lin.residuals):]]
    bars = inline(b, lin.bwd, fwd_out[n:] + extra)
    return Graph(inputs + extra, b.eqns, fwd_out[:n] + bars, graph.name + "_vjp",
                 graph.externals.renamed(graph.inputs, inputs))
