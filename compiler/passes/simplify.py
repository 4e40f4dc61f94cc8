"""Constant folding and algebraic simplification that are exact under IEEE arithmetic.

Contract (`fold_constants`, `simplify`): rewrite one graph level at a time, in place.
- Folding evaluates pure primitives whose inputs are all constants with their numpy `impl`
  (an operation that raises, as int division by zero or an int result outside int64 does,
  is left for run time, so no constant outside int64 is ever produced), replaces `cond` on
  a constant predicate by the taken arm, and removes `while` loops whose condition is
  constant false.
- Simplification applies only identities that hold for every IEEE value, including nan, inf
  and -0.0: `x*1`, `1*x`, `x/1`, `x-0`, `x**1`, `x**2 -> x*x`, `-(-x)`, `select(c, a, a)`,
  `select(True, a, b)` (broadcast to the output's shape when the kept operand has another),
  same-type `convert`, `and(x, True)`, `not(not x)`, and an operand
  that is a constant broadcast to the shape the other operand already has becomes the
  constant itself. It never rewrites `x*0 -> 0` or `x+0 -> x` (wrong for inf/nan and -0.0).
"""

from __future__ import annotations

from ..ir.builder import Builder, constant_values
from ..ir.core import BOOL, Const, Eqn, Graph
from ..ir.loops import While
from ..ir.primitive import PRIMITIVES
from ..ir.transform import all_graphs, inline
from .rewrite import Substitution


def _is(atom, value) -> bool:
    return isinstance(atom, Const) and atom.type != BOOL and atom.value == value and \
        not (value == 0 and str(atom.value).startswith("-"))


def fold_constants(graph: Graph) -> bool:
    changed = False
    for g in all_graphs(graph):
        sub, eqns = Substitution(), []
        for eqn in g.eqns:
            sub.apply(eqn)
            prim = PRIMITIVES[eqn.prim]
            if eqn.prim == "cond" and isinstance(eqn.inputs[0], Const):
                b = Builder()
                arm = eqn.params["branches"][eqn.inputs[0].value]
                for out, atom in zip(eqn.outputs, inline(b, arm, eqn.inputs[1:]), strict=True):
                    sub[out] = atom
                eqns.extend(b.eqns)
                changed = True
                continue
            if eqn.prim == "while" and _never_runs(eqn):
                for out, atom in zip(eqn.outputs, While(eqn).carries, strict=True):
                    sub[out] = atom
                changed = True
                continue
            foldable = (not prim.effectful and not eqn.subgraphs() and eqn.inputs
                        and all(isinstance(a, Const) for a in eqn.inputs)
                        and not any(o.type.is_array for o in eqn.outputs))
            if foldable:
                values = constant_values(prim, eqn.inputs, eqn.params)
                if values is not None:
                    for out, v in zip(eqn.outputs, values, strict=True):
                        sub[out] = Const(v, out.type)
                    changed = True
                    continue
            eqns.append(eqn)
        g.eqns = eqns
        sub.outputs(g)
    return changed


def _never_runs(eqn) -> bool:
    cond = eqn.params["cond"]
    out = cond.outputs[0]
    return isinstance(out, Const) and not out.value


def _simplified(eqn):
    """The atom equal to the equation's single output up to broadcasting to its shape, or
    None."""
    p, ins = eqn.prim, eqn.inputs
    if p == "mul":
        if _is(ins[1], 1):
            return ins[0]
        if _is(ins[0], 1):
            return ins[1]
    if p == "div" and _is(ins[1], 1):
        return ins[0]
    if p == "pow" and _is(ins[1], 1) and ins[0].type.is_float:
        return ins[0]
    if p == "sub" and _is(ins[1], 0) and ins[0].type.is_float:
        return ins[0]
    if p == "convert" and ins[0].type.name == eqn.params["to"].name:
        return ins[0]
    if p in ("sum_to", "broadcast_to", "reshape") and ins[0].type == eqn.outputs[0].type:
        return ins[0]
    if p == "select":
        if ins[1] is ins[2] or (isinstance(ins[1], Const) and ins[1] == ins[2]):
            return ins[1]
        if isinstance(ins[0], Const):
            return ins[1] if ins[0].value else ins[2]
    if p == "and_":
        for a, b in ((ins[0], ins[1]), (ins[1], ins[0])):
            if isinstance(b, Const) and b.value is True:
                return a
    return None


def _unbroadcast_constants(eqn, broadcasts: dict[int, Const]) -> bool:
    """In an elementwise op, `broadcast_to(c)` of a constant (`broadcasts`: the outputs of
    those, by id) becomes `c` when another operand already has the output's shape
    (broadcasting does the rest)."""
    if not broadcasts or not PRIMITIVES[eqn.prim].elementwise:
        return False
    shape = eqn.outputs[0].type.shape
    changed = False
    for k, a in enumerate(eqn.inputs):
        constant = broadcasts.get(id(a))
        if constant is not None and \
                any(o.type.shape == shape for o in eqn.inputs[:k] + eqn.inputs[k + 1:]):
            eqn.inputs = eqn.inputs[:k] + [constant] + eqn.inputs[k + 1:]
            changed = True
    return changed


def simplify(graph: Graph) -> bool:
    changed = False
    for g in all_graphs(graph):
        sub = Substitution()
        defs: dict[int, object] = {}
        broadcasts: dict[int, Const] = {}
        eqns = []
        for eqn in g.eqns:
            sub.apply(eqn)
            if eqn.prim == "pow" and _is(eqn.inputs[1], 2) and eqn.inputs[0].type.is_float:
                eqn.prim, eqn.inputs = "mul", [eqn.inputs[0], eqn.inputs[0]]
                changed = True
            if _unbroadcast_constants(eqn, broadcasts):
                changed = True
            result = _simplified(eqn) if len(eqn.outputs) == 1 else None
            if result is None and eqn.prim in ("neg", "not_"):
                inner = defs.get(id(eqn.inputs[0]))
                if inner is not None and inner.prim == eqn.prim:
                    result = inner.inputs[0]
            out = eqn.outputs[0] if result is not None else None
            if result is not None and result.type == out.type:
                sub[out] = result
                changed = True
                continue
            if result is not None and result.type.dtype == out.type.dtype:
                # the operand kept has another shape: it is broadcast against the others
                # (`select(cond, a, a)` of a number under an array condition)
                eqn = Eqn("broadcast_to", [result], [out], {"shape": out.type.shape}, eqn.loc)
                changed = True
            for out in eqn.outputs:
                defs[id(out)] = eqn
            if eqn.prim == "broadcast_to" and isinstance(eqn.inputs[0], Const):
                broadcasts[id(eqn.outputs[0])] = eqn.inputs[0]
            eqns.append(eqn)
        g.eqns = eqns
        sub.outputs(g)
    return changed
