"""LLVM lowering of the structural primitives `while` and `cond`.

Contract: `while` lowers to a loop with phi nodes for its carries (its body and test lowered
by `cx.graph_body`) that polls for Ctrl-C once per iteration unless it provably ends within
milliseconds (interrupt.py: status INTERRUPTED on the main thread); a carried array that the
body updates in place (inplace.py) is copied once before the loop. The array buffers a loop
allocates are freed at the end of each iteration except those it carries on and those
stored on the AD tape (`tapes.reclaim`), so a loop's memory does not grow with its trip
count beyond its tape. `cond` lowers to branches joined by phis.
"""

from __future__ import annotations

from ...ir.loops import While
from .arrays import copy_array
from .context import PTR, LoweringContext, register_type
from .inplace import in_place_updates
from .interrupt import emit_poll, needs_poll
from .ops import I64
from .registry import lowers
from .tapes import reclaim, tape


@lowers("while")
def lower_while(cx: LoweringContext, eqn, env) -> list:
    ins = [cx.value(env, a) for a in eqn.inputs]
    n = While(eqn).n_consts
    for j, update_ids in in_place_updates(eqn).items():
        # a private copy, made once, that the body then updates in place
        ins[n + j] = copy_array(cx, ins[n + j], eqn.inputs[n + j].type)
        cx.in_place |= update_ids
    cx.loop_depth += 1
    try:
        return _loop(cx, eqn, ins)
    finally:
        cx.loop_depth -= 1


def _loop(cx: LoweringContext, eqn, ins: list) -> list:
    n = While(eqn).n_consts
    consts, init = ins[:n], ins[n:]
    b = cx.b
    reclaims = cx.uses_arrays
    if reclaims:
        mark = b.load(tape(cx, "allocs")[1], typ=I64)
    pre = b.block
    head = cx.fn.append_basic_block("loop.head")
    body = cx.fn.append_basic_block("loop.body")
    exit_ = cx.fn.append_basic_block("loop.exit")
    b.branch(head)
    b.position_at_end(head)
    phis = [b.phi(v.type) for v in init]
    for phi, v in zip(phis, init, strict=True):
        phi.add_incoming(v, pre)
    if needs_poll(eqn, cx.graph):  # Ctrl-C: leave through the error exit, freeing everything
        emit_poll(cx)
    (test,) = cx.graph_body(eqn.params["cond"], consts + phis)
    b.cbranch(test, body, exit_)
    b.position_at_end(body)
    new = cx.graph_body(eqn.params["body"], consts + phis)
    if reclaims:  # free this iteration's arrays, except those carried to the next one
        reclaim(cx, mark, [v for v in new if v.type == PTR])
    latch = b.block
    for phi, v in zip(phis, new, strict=True):
        phi.add_incoming(v, latch)
    b.branch(head)
    b.position_at_end(exit_)
    return phis


@lowers("cond")
def lower_cond(cx: LoweringContext, eqn, env) -> list:
    pred, *operands = (cx.value(env, a) for a in eqn.inputs)
    else_arm, then_arm = eqn.params["branches"]
    b = cx.b
    then_bb = cx.fn.append_basic_block("if.then")
    else_bb = cx.fn.append_basic_block("if.else")
    merge = cx.fn.append_basic_block("if.end")
    b.cbranch(pred, then_bb, else_bb)
    results = []
    for arm, block in ((then_arm, then_bb), (else_arm, else_bb)):
        b.position_at_end(block)
        outs = cx.graph_body(arm, operands)
        results.append((outs, b.block))
        b.branch(merge)
    b.position_at_end(merge)
    phis = []
    for i, out in enumerate(eqn.outputs):
        phi = b.phi(register_type(out.type))
        for outs, block in results:
            phi.add_incoming(outs[i], block)
        phis.append(phi)
    return phis
