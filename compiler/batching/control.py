"""Batching rules of control flow (`while`, `cond`) and of the AD tapes (`push`, `pop`).

- `while` whose predicate is the same for every example (it reads no batched value, once
  the carries that become batched are known: a fixpoint over the body) stays one loop,
  with its body and predicate batched. A predicate that differs between examples (a
  per-example trip count): when the body and predicate cannot fail or act (see `cond`),
  one loop runs while any example is active, updating the carries of the active ones only
  (a mask, JAX's approach); otherwise (indexing, checks, tape stores and loads) the loop
  runs once per example (`mapping.py`): each example stops after its own trips, and a
  reverse sweep's loop visits them backwards, which keeps the tapes' LIFO order.
- `cond` whose predicate is the same for every example stays one branch with both arms
  batched alike. A per-example predicate runs both arms on the whole batch and selects per
  example when the arms cannot fail or act (only elementwise equations that never raise, and
  reduction, shape and matmul equations: running the untaken arm is then invisible), else
  the branch runs per example.
- `push` stores its value as it is, batched or not, and `pop` loads it back alike (the
  tapes are simulated, `tapes.py`): a reverse loop whose trip count its forward loop stored
  runs per example exactly when its forward loop did.
"""

from __future__ import annotations

from ..ir.builder import Builder
from ..ir.core import I64, Graph, Var, walk_eqns
from ..ir.loops import While
from ..ir.primitive import PRIMITIVES
from ..ir.transform import inline
from . import tapes
from .interpreter import batch_eqns, batch_graph
from .rules import SCALAR_ONLY
from .table import ensure, expand, rule, with_batch

INVISIBLE = ("sum", "prod", "max", "min", "sum_to", "reshape", "transpose", "broadcast_to",
             "concatenate", "full", "arange", "pack", "matmul", "no_derivative")


@rule("push")
def push(b, eqn, args, batched, size):
    tapes.current().store(eqn.params.get("tape", 0), batched[0])
    b.emit("push", args, **eqn.params)
    return []


@rule("pop")
def pop(b, eqn, args, batched, size):
    if not tapes.current().load(eqn.params.get("tape", 0)):
        return [(a, False) for a in b.emit("pop", [], **eqn.params)]
    (out,) = b.emit("pop", [], **dict(eqn.params, type=with_batch(eqn.params["type"], size)))
    return [(out, True)]


@rule("while")
def while_(b, eqn, args, batched, size):
    loop = While(eqn)
    n, body, cond = loop.n_consts, loop.body, loop.cond
    flags = list(batched)
    while True:  # carries that the body makes batched are batched from the start
        with tapes.trial():  # each try from the tapes as they are (its pops loaded them)
            _, out = batch_graph(body, flags, size)
        grown = flags[:n] + [f or o for f, o in zip(flags[n:], out, strict=True)]
        if grown == flags:
            break
        flags = grown
    with tapes.trial():
        new_cond, (per_example,) = batch_graph(cond, flags, size)
    if per_example:
        return _masked_while(b, eqn, args, batched, size) if _invisible(body) and \
            _invisible(cond) else None
    new_body, _ = batch_graph(body, flags, size, force=flags[n:])
    operands = [ensure(b, a, was, size) if f else a
                for a, was, f in zip(args, batched, flags, strict=True)]
    outs = b.emit("while", operands, **While.params(new_cond, new_body, n))
    return list(zip(outs, flags[n:], strict=True))


def _masked_while(b, eqn, args, batched, size):
    """The loop run while any example is active, each carry updated only where its example
    still is (the body and predicate run on the others too: they cannot fail or act)."""
    loop = While(eqn)
    n, body, cond = loop.n_consts, loop.body, loop.cond
    flags = list(batched[:n]) + [True] * (len(args) - n)
    carries = [ensure(b, a, f, size) for a, f in zip(args[n:], batched[n:], strict=True)]
    new_cond, _ = batch_graph(cond, flags, size, force=[True])
    new_body, _ = batch_graph(body, flags, size, force=flags[n:])
    (active,) = inline(b, new_cond, list(args[:n]) + carries)

    def loop_inputs() -> list[Var]:
        return [Var(a.type, getattr(a, "hint", "")) for a in list(args[:n]) + carries] + \
            [Var(active.type, "active")]

    ins = loop_inputs()
    cb = Builder(eqn.loc)
    any_active = cb.gt(cb.sum(cb.convert(ins[-1], to=I64), axis=(0,), keepdims=False), 0)
    loop_cond = Graph(ins, cb.eqns, [any_active], "any_active")
    ins = loop_inputs()
    bb = Builder(eqn.loc)
    old, mask = ins[n:-1], ins[-1]
    stepped = inline(bb, new_body, ins[:-1])
    kept = [bb.select(expand(bb, mask, len(v.type.shape) - 1), new, v)
            for new, v in zip(stepped, old, strict=True)]
    (still,) = inline(bb, new_cond, ins[:n] + kept)
    loop_body = Graph(ins, bb.eqns, kept + [bb.and_(mask, still)], "masked_body")
    (*outs, _) = b.emit("while", list(args[:n]) + carries + [active],
                        **While.params(loop_cond, loop_body, n))
    return [(o, True) for o in outs]


@rule("cond")
def cond(b, eqn, args, batched, size):
    (pred, *operands), (per_example, *flags) = args, batched
    arms = eqn.params["branches"]
    if per_example:
        if not all(_invisible(arm) for arm in arms):
            return None
        pairs = list(zip(operands, flags, strict=True))
        else_, then = (batch_eqns(b, arm, pairs, size) for arm in arms)
        outs = []
        for (e, fe), (t, ft), v in zip(else_, then, eqn.outputs, strict=True):
            mask = expand(b, pred, len(v.type.shape or ()))
            outs.append((b.select(mask, ensure(b, t, ft, size), ensure(b, e, fe, size)), True))
        return outs
    out = [False] * len(eqn.outputs)
    with tapes.trial():
        for arm in arms:
            out = [o or f for o, f in zip(out, batch_graph(arm, flags, size)[1], strict=True)]
    new_arms = tuple(batch_graph(arms[k], flags, size, force=out)[0]
                     for k in tapes.arms(len(arms)))
    outs = b.emit("cond", args, branches=new_arms)
    return list(zip(outs, out, strict=True))


def _invisible(arm: Graph) -> bool:
    """Running `arm` can neither fail nor act (so it may run for examples that did not
    take it)."""
    return all(e.prim in INVISIBLE or PRIMITIVES[e.prim].elementwise and not _can_fail(e)
               for e in walk_eqns(arm))


def _can_fail(eqn) -> bool:
    """An elementwise equation that raises for some operands: int division and powers
    (a zero divisor, an overflow), float -> int conversion (nan, inf), the scalar-only ones."""
    ints = eqn.outputs[0].type.name == "i64"
    return eqn.prim in SCALAR_ONLY or ints and (
        eqn.prim in ("floordiv", "mod", "pow") or
        eqn.prim == "convert" and eqn.inputs[0].type.is_float)
