"""Derivative rules of the run-time lists (`primitives/lists.py`), attached to the primitive
table when this module is imported.

Reverse mode: the cotangents of list L's items accumulate in the buffer `adjoint(L)`, indexed
as L is. A read (`list_get`) adds its cotangent there; the write that made the item
(`list_append`, `list_set`) takes it back (`list_adjoint_take`: read, then reset to 0, so the
buffer is zero again for whatever used the same positions before). Since the cotangents move
through the buffer and not through the data flow the generic interpreter follows, every list
equation, and every `while` / `cond` holding one, is visited by the backward sweep whether a
cotangent reached it or not (`reverse.touches_tape`). The reverse sweep reads items of the
list as the forward sweep left them (the replay of an `if` arm, the recomputation of a
checkpointed loop), which is exact while items are only appended: reverse mode through
`xs[i] = v` and `xs.pop()` on a run-time list is refused, naming the user's line, and so is
differentiating adjoint code in reverse mode again (forward over reverse, `hessian`, runs).

Forward mode writes each item's tangent into `tangent(L)` with the same token as the item
(zero where the item has none) and reads it back beside the item; the cotangent buffers get
tangent buffers of their own the same way.
"""

from __future__ import annotations

from ..errors import AdliteSyntaxError
from ..ir.builder import Builder, const
from ..ir.core import Eqn
from ..ir.primitive import attach
from ..primitives.lists import adjoint, tangent
from .custom import origin_error
from .reverse import ALWAYS


def _params(eqn: Eqn, name: str) -> dict:
    return {**eqn.params, "list": name}


def append_vjp(b: Builder, eqn: Eqn, cts, guards, plan):
    n, v = eqn.inputs
    if not v.type.is_float:
        return [None, None], [ALWAYS, ALWAYS]
    taken = b.op("list_adjoint_take", n, b.add(n, const(1)), const(0),  # item n
                 list=adjoint(eqn.params["list"]), type=v.type)
    return [None, taken], [ALWAYS, ALWAYS]


def get_vjp(b: Builder, eqn: Eqn, cts, guards, plan):
    if cts[0] is not None:
        b.emit("list_adjoint_add", [*eqn.inputs, cts[0]], list=adjoint(eqn.params["list"]))
    return [None, None, None], [ALWAYS, ALWAYS, ALWAYS]


def no_cotangent_vjp(b: Builder, eqn: Eqn, cts, guards, plan):
    """`list_export` (a returned list carries no cotangent), `list_open`."""
    return [None] * len(eqn.inputs), [ALWAYS] * len(eqn.inputs)


def refused_vjp(b: Builder, eqn: Eqn, cts, guards, plan):
    what = {"list_set": "`xs[i] = v` on a list whose length is known only at run time",
            "list_pop": "`xs.pop()` on a list whose length is known only at run time"}
    message = what.get(eqn.prim, "reverse-mode differentiation of adjoint code through a "
                                 "list whose length is known only at run time")
    message = (f"reverse-mode differentiation through {message} (the reverse sweep reads the "
               "list's items as the forward sweep left them)")
    hint = "build a new list instead of changing items, or use forward mode (jvp) for this " \
        "function"
    if "origin" in eqn.params:  # xs[i] = v, xs.pop(): the user's line
        raise origin_error(eqn, message, hint)
    raise AdliteSyntaxError(message, "<adlite>", eqn.loc or 0, 0, "", hint)


def _lockstep_jvp(b: Builder, eqn: Eqn, tangents):
    """Forward mode of a write: the same write of the tangent into the tangent buffer."""
    b.eqns.append(eqn)
    value = eqn.inputs[-1]
    if value.type.is_float:
        t = tangents[-1] if tangents[-1] is not None else b.zeros(value.type)
        b.op(eqn.prim, *eqn.inputs[:-1], t, **_params(eqn, tangent(eqn.params["list"])))
    return [None] * len(eqn.outputs)


def _read_jvp(b: Builder, eqn: Eqn, tangents):
    """Forward mode of a read: the same read of the tangent buffer."""
    b.eqns.append(eqn)
    (out,) = eqn.outputs
    if not out.type.is_float:
        return [None]
    return [b.op(eqn.prim, *eqn.inputs, hint="t" + out.hint,
                 **_params(eqn, tangent(eqn.params["list"])))]


def _add_jvp(b: Builder, eqn: Eqn, tangents):
    b.eqns.append(eqn)
    if tangents[3] is not None:
        b.emit("list_adjoint_add", [*eqn.inputs[:3], tangents[3]],
               list=tangent(eqn.params["list"]))
    return []


def _no_tangent_jvp(b: Builder, eqn: Eqn, tangents):
    """`list_export`, `list_open`: ints."""
    b.eqns.append(eqn)
    return [None]


attach("list_append", vjp=append_vjp, jvp=_lockstep_jvp)
attach("list_set", vjp=refused_vjp, jvp=_lockstep_jvp)
attach("list_get", vjp=get_vjp, jvp=_read_jvp)
attach("list_pop", vjp=refused_vjp, jvp=_read_jvp)
attach("list_open", vjp=no_cotangent_vjp, jvp=_no_tangent_jvp)
attach("list_export", vjp=no_cotangent_vjp, jvp=_no_tangent_jvp)
attach("list_adjoint_add", vjp=refused_vjp, jvp=_add_jvp)
attach("list_adjoint_take", vjp=refused_vjp, jvp=_read_jvp)
