"""Compile-time values computed from `Known` parameters (see `arguments.Known`).

Contract: a differentiated int, bool or float parameter of the entry function whose value the
function needs when compiling (an array length, `np.arange(0.0, T, dt)`) is a `Known` leaf of
the signature: a graph input like any other number, differentiated through its arithmetic,
whose value the compilation is specialised on (the API's cache key holds it, so a call with
another value compiles again). While the entry function is converted, `KNOWN` maps those
inputs to their values. `value_of(b, var)` is `(True, value)` when `var` is computed, by the
equations of builder `b`, from such inputs and constants only: the input's own value as the
caller gave it (an int stays an int, as Python sees it), or the Python number the
equations give when run with their primitives' numpy `impl`s on the inputs' values taken in
their graph types (an int differentiated is a float there); `(False, None)` otherwise (another
run-time value, an effect, an array). The derivative through such a value is zero: it is a
constant of the compiled code, piecewise constant in the parameter. `constant(b, atom)` is
the `Const` of that value, or `atom` itself.
"""

from __future__ import annotations

import contextvars

import numpy as np

from ..ir.builder import Builder
from ..ir.core import Atom, Const, Var
from ..ir.primitive import PRIMITIVES
from ..ir.transform import producers

KNOWN: contextvars.ContextVar[dict | None] = contextvars.ContextVar("adlite_known",
                                                                   default=None)


def value_of(b: Builder, var) -> tuple[bool, object]:
    """See the module docstring."""
    known = KNOWN.get()
    if not known or not isinstance(var, Var) or var.type.is_array:
        return False, None
    if var in known:
        return True, known[var]
    defining = producers(b.eqns)
    needed, todo = {}, [var]
    while todo:
        v = todo.pop()
        eqn = defining.get(id(v))
        if eqn is None:
            if v not in known:
                return False, None
            continue
        if id(eqn) in needed:
            continue
        if PRIMITIVES[eqn.prim].effectful or PRIMITIVES[eqn.prim].impl is None:
            return False, None
        needed[id(eqn)] = eqn
        todo += [a for a in eqn.inputs if isinstance(a, Var)]
    env = {id(v): np.array(value, dtype=v.type.dtype.numpy).item() for v, value in known.items()}
    try:
        with np.errstate(all="ignore"):
            for eqn in (e for e in b.eqns if id(e) in needed):  # in program order
                outs = PRIMITIVES[eqn.prim].impl(
                    *(a.value if isinstance(a, Const) else env[id(a)] for a in eqn.inputs),
                    **eqn.params)
                env.update((id(o), value) for o, value in zip(eqn.outputs, outs, strict=True))
    except (ArithmeticError, ValueError):  # raised at run time, as Python
        return False, None
    value = env[id(var)]
    return True, value.item() if isinstance(value, np.generic) else value


def constant(b: Builder, atom: Atom) -> Atom:
    """See the module docstring."""
    is_known, value = value_of(b, atom)
    return Const(value, atom.type) if is_known else atom
