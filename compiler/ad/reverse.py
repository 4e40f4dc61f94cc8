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
  (`TapePlan`), so that differentiating adjoint code again never mixes tape streams.
Symbolic zeros are `None` while transforming; they become zeros only where a value is needed.
Cotangents are summed back to each operand's shape (`fit`); a cotangent that scatters into
zeros is accumulated as a scatter-add (`add_cotangents`). Cotangent vars are named
`d<name>` after the primal variable they belong to.
"""

from __future__ import annotations

import contextvars
from collections import Counter
from dataclasses import dataclass

from ..ir.builder import Builder
from ..ir.core import Atom, Const, Eqn, Graph, Var, walk_eqns
from ..ir.transform import clone, free_vars, inline
from ..passes.dce import dce


@dataclass(frozen=True)
class TapePlan:
    """Which AD tapes a differentiation uses: `residual` for the values its loops store, and
    `transport[t]` carrying cotangents from the loads of tape t (in adjoint code being
    differentiated again) back to its stores. Each is its own LIFO, so streams never mix."""

    residual: int
    transport: dict


_PLAN: contextvars.ContextVar = contextvars.ContextVar("adlite_tape_plan", default=None)


def tape_plan() -> TapePlan:
    return _PLAN.get()


def tapes_in(graph: Graph) -> set[int]:
    return {e.params.get("tape", 0) for e in walk_eqns(graph) if e.prim in ("push", "pop")}


def touches_tape(eqn: Eqn) -> bool:
    return eqn.prim in ("push", "pop") or any(tapes_in(sub) for sub in eqn.subgraphs())


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


def _scatters_into_zeros(b: Builder, value: Atom) -> list | None:
    """The chain of `index_update(..., mode=add)` equations, first to last, that builds
    `value` by scattering into `full(0)` (the cotangent of one or more `x[i]` reads), among
    the last equations of `b`; or None."""
    chain = []
    while True:
        eqn = _recent_definition(b, value)
        if eqn is None:
            return None
        if eqn.prim == "full":
            fill = eqn.inputs[0]
            zero = isinstance(fill, Const) and fill.value == 0
            return chain[::-1] if chain and zero else None
        if eqn.prim != "index_update" or eqn.params["mode"] != "add":
            return None
        chain.append(eqn)
        value = eqn.inputs[0]


def add_cotangents(b: Builder, current: Atom, value: Atom, live: set[int] = frozenset()) -> Atom:
    """`current + value`; when `value` scatters into zeros (the cotangent of `x[i]`), the
    scatters add into `current` instead, so an accumulation in a loop updates one array (in
    place, see the LLVM backend) rather than adding a fresh zero-filled array each time.
    The two forms differ at most in the sign of a zero cotangent. The rewrite is skipped when
    a scatter's result is used elsewhere (`live`: ids of atoms held as other cotangents)."""
    chain = _scatters_into_zeros(b, value) if current.type.is_array else None
    if chain is None or current.type != value.type:
        return b.add(current, value)
    window = b.eqns[b.eqns.index(chain[0]):]
    users = Counter(id(a) for e in window for a in e.inputs)
    for k, eqn in enumerate(chain):
        out = id(eqn.outputs[0])
        only_next = 1 if k + 1 < len(chain) else 0  # an intermediate feeds the next scatter
        if users[out] != only_next or out in live or current is eqn.outputs[0]:
            return b.add(current, value)
    for eqn in chain:
        b.eqns.remove(eqn)
    for eqn in chain:
        _, v, *ints = eqn.inputs
        current = b.index_update(current, v, *ints, **eqn.params)
    return current


def _accumulate(bb: Builder, ct: dict[int, Atom], var: Var, value: Atom,
                pending: set[int] = frozenset()) -> None:
    """ct[var] += value; `pending` holds the ids of cotangents still to be accumulated."""
    if isinstance(value, Var) and not value.hint and var.hint:
        value.hint = "d" + var.hint.lstrip("_")
    current = ct.get(id(var))
    if current is None:
        ct[id(var)] = value
        return
    live = {id(v) for k, v in ct.items() if k != id(var)} | set(pending)
    ct[id(var)] = add_cotangents(bb, current, value, live)


def linearize(graph: Graph) -> Linearized:
    if _PLAN.get() is not None:
        return _linearize(graph)
    used = tapes_in(graph)
    residual = max(used) + 1 if used else 0
    token = _PLAN.set(TapePlan(residual, {t: residual + 1 + t for t in sorted(used)}))
    try:
        return _linearize(graph)
    finally:
        _PLAN.reset(token)


def _linearize(graph: Graph) -> Linearized:
    from ..primitives import PRIMITIVES

    g = clone(graph)
    fb, bb = Builder(), Builder()
    backward_steps = []
    hooked: dict[int, tuple[int, Eqn]] = {}  # equations whose forward sweep was changed
    for eqn in g.eqns:
        prim = PRIMITIVES[eqn.prim]
        if prim.ad_forward is not None:
            emit = prim.ad_forward(fb, eqn)
            hooked[id(eqn)] = (len(fb.eqns) - 1, eqn)
        else:
            fb.eqns.append(eqn)
            emit = (lambda e, rule: lambda b, cts: rule(b, e, cts))(eqn, prim.vjp)
        backward_steps.append((eqn, prim, emit))

    out_bars = [Var(a.type, "d" + (a.hint if isinstance(a, Var) else "out"))
                for a in _float_atoms(g.outputs)]
    ct: dict[int, Atom] = {}
    for atom, bar in zip(_float_atoms(g.outputs), out_bars, strict=True):
        if isinstance(atom, Var):
            _accumulate(bb, ct, atom, bar)
    for eqn, prim, emit in reversed(backward_steps):
        cts = [ct.pop(id(v), None) for v in eqn.outputs]
        idle = all(c is None for c in cts) or not prim.differentiable
        if idle and not touches_tape(eqn):  # tape traffic must stay paired, cotangent or not
            continue
        bb.loc = eqn.loc
        in_cts = emit(bb, cts)
        hooked.pop(id(eqn), None)
        for k, (atom, c) in enumerate(zip(eqn.inputs, in_cts, strict=True)):
            if c is not None and isinstance(atom, Var) and atom.type.is_float:
                pending = {id(x) for x in in_cts[:k] + in_cts[k + 1:] if x is not None}
                _accumulate(bb, ct, atom, fit(bb, c, atom.type), pending)
    for position, eqn in hooked.values():
        # no cotangent reached it: run the plain primal, so it stores nothing on the tape
        # (a store without its matching loads would shift every later load)
        fb.eqns[position] = eqn
    bars = [ct[id(v)] if id(v) in ct else bb.zeros(v.type) for v in _float_atoms(g.inputs)]
    bwd = Graph([], bb.eqns, bars, g.name + "_bwd")
    dce(bwd)  # rules compute cotangents for constants too; keep only what is needed
    bar_ids = {id(v) for v in out_bars}
    residuals = [v for v in free_vars(bwd.eqns, bars) if id(v) not in bar_ids]
    bwd.inputs = residuals + out_bars
    fwd = Graph(g.inputs, fb.eqns, list(g.outputs) + residuals, g.name + "_fwd")
    return Linearized(fwd, bwd, residuals)


def vjp_graph(graph: Graph) -> Graph:
    """`inputs + cotangents of f64 outputs -> outputs + cotangents of f64 inputs`."""
    lin = linearize(graph)
    b = Builder()
    inputs = [Var(v.type, v.hint) for v in graph.inputs]
    fwd_out = inline(b, lin.fwd, inputs)
    n = len(graph.outputs)
    out_bars = [Var(v.type, v.hint) for v in lin.bwd.inputs[len(lin.residuals):]]
    bars = inline(b, lin.bwd, fwd_out[n:] + out_bars)
    return Graph(inputs + out_bars, b.eqns, fwd_out[:n] + bars, graph.name + "_vjp")
