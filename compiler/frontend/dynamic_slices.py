"""Slices with run-time bounds: `x[i:i+3]`, `x[i-1:i+n]` (length known when compiling), and
`x[i:j]` whose length is known only at run time.

Contract: `index_item(conv, size, parts, node, alone)` with `parts` the evaluated (lower,
upper, step) of a slice over an axis of `size`: None when both bounds are known when
compiling (the slice is then an ordinary static one). When the length `k` is `upper - lower`
with both the same run-time int plus constants (also through names: `j = i + 3; x[i:j]`; a
constant that is an int argument of the compiled function specialises it, see
arguments.NeedStatic), the `fancy.IndexArray` of the positions `i + arange(k)`, which reads
with `take` (gradients scatter back) and writes with `put`; numpy shortens a slice that runs
past the end (or starts before it): compiled code keeps that length static, so a start
outside `[0, size - k]` raises IndexError at run time instead. Any other length: a bound that
is an int argument of the compiled function specialises it; otherwise, for a slice that is
the whole index (`alone`), the `masks.Mask` of the positions it selects (Python's rules for
negative and out-of-range bounds), so that `x[i:j]` is a boolean selection (see
selection_values: reductions, elementwise operations, `x[i:j] = v`); among other index items
it is refused at the user's line, as is a step other than 1.
"""

from __future__ import annotations

from ..errors import AdliteSyntaxError
from ..ir.builder import const
from ..ir.core import I64, Const, Var
from ..ir.dims import DimUndecided, is_symbolic
from ..ir.transform import producers
from .context import CallContext
from .fancy import IndexArray
from .masks import Mask
from .static_requirements import refusal

_STEPS = {"add": 1, "sub": -1}


def index_item(conv: CallContext, size: int, parts, node,
               alone: bool) -> IndexArray | Mask | None:
    lower, upper, step = parts
    runtime = [isinstance(p, Var) and p.type == I64 for p in (lower, upper)]
    if not any(runtime):
        return None
    if step is not None and conv.static(step, node) != 1:
        raise refusal(conv.source, node, "slice", "a slice with run-time bounds and a step "
                                                  "(its length is known only at run time)",
                      "slice with step 1, or use index arrays")
    base, start = _offset(conv, lower, node) if runtime[0] else (None, None)
    end_base, end = _offset(conv, upper, node) if isinstance(upper, Var) else (None, None)
    if base is None or end_base is not base:
        for bound in (lower, upper):  # an int argument is specialised (NeedStatic) instead
            if isinstance(bound, Var):
                _known(conv, bound, node)
        if not alone:
            raise refusal(conv.source, node, "slice",
                          "its length depends on values known only at run time, and it comes "
                          "with other index items",
                          "slice alone (`x[i:j]` is a boolean selection), or write "
                          "x[i:i + k] with k known when compiling")
        return _positions(conv, size, lower, upper, node)
    k = end - start
    if is_symbolic(size):  # its messages name the size: compiled per shape
        raise DimUndecided(f"a slice of run-time start in an axis of run-time size {size}")
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


def _positions(conv: CallContext, size: int, lower, upper, node) -> Mask:
    """The mask of the positions `x[lower:upper]` selects along an axis of `size` (Python's
    rules: a negative bound counts from the end; bounds beyond the axis select up to it)."""
    b = conv.b
    positions = b.op("arange", n=size, dtype=I64)
    mask = None
    for bound, compare in ((lower, b.ge), (upper, b.lt)):
        if bound is None:
            continue
        bound = conv.scalar(bound, node)
        if bound.type != I64:
            raise conv.source.error(node, f"slice indices must be integers, got {bound.type}")
        wrapped = b.select(b.lt(bound, const(0)), b.add(bound, const(size)), bound)
        test = compare(positions, wrapped)
        mask = test if mask is None else b.and_(mask, test)
    return Mask(mask, node)


def _offset(conv: CallContext, value: Var, node) -> tuple[Var, int]:
    """(v, c) with `value` = `v + c`, `c` known when compiling."""
    defining = producers(conv.b.eqns)
    total = 0
    while True:
        eqn = defining.get(id(value))
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
