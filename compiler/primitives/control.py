"""Structured control flow and the AD tape, as primitives.

- `while[cond, body, n_consts]`: inputs `consts + carries`; `cond(consts, carries) -> bool`
  and `body(consts, carries) -> carries` are closed graphs; outputs are the final carries.
- `cond[branches=(else, then)]`: inputs `pred + operands`; each arm maps operands to outputs.
- `push[tape] x` / `x = pop[type, tape]`: the AD tapes (LIFOs numbered from 0: first-order
  residuals use tape 0, differentiating adjoint code uses higher ones), effectful.
Their derivative rules are structural: `adlite.compiler.ad.control` attaches them to the table
(their `vjp`/`jvp`/`ad_forward` are None here). The Python lowering of `while`/`cond` is
structural too and lives in the Python backend.
"""

from __future__ import annotations

from ..ir.core import BOOL, Type
from ..ir.evaluate import current_tape, run_graph
from ..ir.primitive import Primitive, register


def _while_type(in_types: list[Type], params: dict) -> list[Type]:
    n = params["n_consts"]
    carries = in_types[n:]
    cond, body = params["cond"], params["body"]
    if cond.in_types != in_types or body.in_types != in_types:
        raise TypeError("while: cond/body input types must match the loop's inputs")
    if cond.out_types != [BOOL]:  # a scalar bool
        raise TypeError(f"while: cond must return one bool, got {cond.out_types}")
    if body.out_types != carries:
        raise TypeError(f"while: body returns {body.out_types} for carries {carries}")
    return list(carries)


def _cond_type(in_types: list[Type], params: dict) -> list[Type]:
    if in_types[0] != BOOL:
        raise TypeError(f"cond: predicate must be bool, got {in_types[0]}")
    else_, then = params["branches"]
    for arm in (else_, then):
        if arm.in_types != in_types[1:]:
            raise TypeError("cond: arm input types must match the operands")
    if else_.out_types != then.out_types:
        raise TypeError(f"cond: arms return {else_.out_types} and {then.out_types}")
    return list(then.out_types)


def _run_while(*values, cond, body, n_consts):
    consts, carries = list(values[:n_consts]), list(values[n_consts:])
    while run_graph(cond, consts + carries)[0]:
        carries = run_graph(body, consts + carries)
    return tuple(carries)


def _run_cond(pred, *operands, branches):
    return tuple(run_graph(branches[bool(pred)], list(operands)))


register(Primitive("while", _while_type, _run_while, None, None, None, jvp_emits_primal=True,
                   structural=True))
register(Primitive("cond", _cond_type, _run_cond, None, None, None, jvp_emits_primal=True,
                   structural=True))
def _push(x, tape=0):
    current_tape(tape).append(x)
    return ()


def _pop(type, tape=0):  # noqa: A002
    return (current_tape(tape).pop(),)


def tape_name(eqn) -> str:
    """The Python backend's list for the equation's tape: `_tape`, `_tape1`, ..."""
    tape = eqn.params.get("tape", 0)
    return "_tape" if tape == 0 else f"_tape{tape}"


register(Primitive("push", lambda in_types, params: [], _push, None, None,
                   lambda args, eqn: f"{tape_name(eqn)}.append({args[0]})",
                   effectful=True, jvp_emits_primal=True, structural=True))
register(Primitive("pop", lambda in_types, params: [params["type"]], _pop, None, None,
                   lambda args, eqn: f"{tape_name(eqn)}.pop()", effectful=True,
                   jvp_emits_primal=True, structural=True))
