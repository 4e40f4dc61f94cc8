"""Slices with run-time bounds whose length is known when compiling: `x[i:i+3]`, `x[i-1:i+n]`.

Contract: `index_item(conv, size, parts, node)` with `parts` the evaluated (lower, upper, step)
of a slice over an axis of `size`: None when the lower bound is known when compiling (the
slice is then an ordinary static one), otherwise the `fancy.IndexArray` of the positions
`i + arange(k)`, which reads with `take` (gradients scatter back) and writes with `put`. The
length `k` is `upper - lower` when both are the same run-time int plus constants (also through
names: `j = i + 3; x[i:j]`; a constant that is an int argument of the compiled function
specialises it, see arguments.NeedStatic); any other length depends on run-time values and is
refused at the user's line, as are a step other than 1 and a length beyond the axis. numpy
shortens a slice that runs past the end (or starts before it): compiled code keeps the
length static, so a start outside `[0, size - k]` raises IndexError at run time instead.
"""

from __future__ import annotations

from ..errors import AdliteSyntaxError
from ..ir.builder import const
from ..ir.core import I64, Const, Var
from .context import CallContext
from .fancy import IndexArray

_STEPS = {"add": 1, "sub": -1}


def index_item(conv: CallContext, size: int, parts, node) -> IndexArray | None:
    lower, upper, step = parts
    if not (isinstance(lower, Var) and lower.type == I64):
        return None
    if step is not None and conv.static(step, node) != 1:
        raise conv.source.error(node, "a slice with run-time bounds and a step",
                                "slice with step 1, or use index arrays")
    base, start = _offset(conv, lower, node)
    end_base, end = _offset(conv, upper, node) if isinstance(upper, Var) else (None, None)
    if end_base is not base:
        raise conv.source.error(node, "slice with run-time bounds whose length depends on "
                                      "run-time values (compiled code needs array shapes when "
                                      "compiling)", "write x[i:i + k] with k known when "
                                                    "compiling, or use np.where with a mask")
    k = end - start
    if not 0 <= k <= size:
        raise conv.source.error(node, f"slice x[i:i + {k}] of an axis of size {size}: numpy "
                                      f"would shorten it, compiled code needs its length",
                                f"use a length between 0 and {size}")
    b = conv.b
    ok = b.and_(b.ge(lower, const(0)), b.le(lower, const(size - k)))
    b.emit("check", [ok, lower], error="IndexError",
           args=(("str", ("slice start ", (0, None, ()), f" leaves fewer than {k} elements of "
                          f"an axis of size {size} (numpy would return a shorter array; "
                          f"compiled code keeps the length {k} static)")),))
    positions = b.add(b.op("arange", n=k, dtype=I64), lower)
    return IndexArray(positions, node)


def _offset(conv: CallContext, value: Var, node) -> tuple[Var, int]:
    """(v, c) with `value` = `v + c`, `c` known when compiling."""
    producers = {id(o): e for e in conv.b.eqns for o in e.outputs}
    total = 0
    while True:
        eqn = producers.get(id(value))
        if eqn is None or eqn.prim not in _STEPS:
            return value, total
        x, y = eqn.inputs
        if isinstance(x, Const) and eqn.prim == "add":
            x, y = y, x
        if not isinstance(x, Var) or isinstance(y, Var) and not _known(conv, y, node):
            return value, total
        total += _STEPS[eqn.prim] * conv.static(y, node)
        value = x


def _known(conv: CallContext, value: Var, node) -> bool:
    """Whether the run-time int `value` can be made known when compiling (an int argument of
    the compiled function: `conv.static` raises NeedStatic to specialise it)."""
    try:
        conv.static(value, node)
    except AdliteSyntaxError:
        return False
    return True
