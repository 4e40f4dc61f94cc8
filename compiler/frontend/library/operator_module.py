"""The functions of Python's `operator` module in compiled code: `op.add(x, y)` is `x + y`.

Contract: registers rewriting rules (`registry.register(..., rewrite=True)`) for `add`, `sub`,
`mul`, `truediv`, `floordiv`, `mod`, `pow`, `matmul`, `and_`, `or_`, `xor` (binary
operators), `eq`, `ne`, `lt`, `le`, `gt`, `ge` (comparisons), `neg`, `pos`, `not_`, `invert` /
`inv` (unary operators) and `getitem` (a subscript). A call is converted as the expression
it stands for, built from the call's own argument expressions (one evaluation each, in
order), so it means exactly what the operator means in compiled code: numbers, arrays,
tuples, lists, boolean selections, compile-time strings; `getitem` gives a view, as `x[i]`
(`slice(a, b, c)` objects in its index are read as `a:b:c`, also in subscripts:
`index_syntax`). Since calls find the rule by the
callee's value, the functions work as values too: passed as arguments, held in variables
or lists, called in loops (`for fn in (op.add, op.mul): ...`). `operator.abs` is builtin
`abs`'s rule. Python's TypeError for keywords or a wrong number of arguments is raised
when compiling, at the call.
"""

from __future__ import annotations

import builtins
import operator

import gast

from ... import gast_adapter as g
from ...errors import AdliteTypeError
from ..context import CallContext
from . import elementwise  # noqa: F401  (registers builtin abs, whose rule op.abs shares)
from .registry import register, registered

BINARY = {operator.add: gast.Add, operator.sub: gast.Sub, operator.mul: gast.Mult,
          operator.truediv: gast.Div, operator.floordiv: gast.FloorDiv, operator.mod: gast.Mod,
          operator.pow: gast.Pow, operator.matmul: gast.MatMult, operator.and_: gast.BitAnd,
          operator.or_: gast.BitOr, operator.xor: gast.BitXor}
COMPARISONS = {operator.eq: gast.Eq, operator.ne: gast.NotEq, operator.lt: gast.Lt,
               operator.le: gast.LtE, operator.gt: gast.Gt, operator.ge: gast.GtE}
UNARY = {operator.neg: gast.USub, operator.pos: gast.UAdd, operator.not_: gast.Not,
         operator.invert: gast.Invert, operator.inv: gast.Invert}


def _operands(cx: CallContext, node, name: str, count: int) -> list:
    """The call's `count` positional argument expressions (Python's TypeError otherwise)."""
    if node.keywords:
        raise cx.source.error(node, f"{name}() takes no keyword arguments",
                              kind=AdliteTypeError)
    if any(isinstance(a, gast.Starred) for a in node.args):
        raise cx.source.error(node, f"operator.{name}(*args) is not supported",
                              f"pass the operands one by one: {name}(x, y)")
    if len(node.args) != count:
        raise cx.source.error(node, f"{name} expected {count} argument"
                              f"{'s' if count > 1 else ''}, got {len(node.args)}",
                              kind=AdliteTypeError)
    return list(node.args)


def _binary(function, op):
    def lower(cx: CallContext, node):
        left, right = _operands(cx, node, function.__name__, 2)
        return g.binop(left, op(), right, at=node)

    return lower


def _comparison(function, op):
    def lower(cx: CallContext, node):
        left, right = _operands(cx, node, function.__name__, 2)
        return g.compare(left, op(), right, at=node)

    return lower


def _unary(function, op):
    def lower(cx: CallContext, node):
        (operand,) = _operands(cx, node, function.__name__, 1)
        return g.unary(op(), operand, at=node)

    return lower


def _getitem(cx: CallContext, node):
    value, index = _operands(cx, node, "getitem", 2)
    return g.subscript(value, index_syntax(cx, index), at=node)


def index_syntax(cx: CallContext, node):
    """The index expression `node` as subscript syntax: `slice(a, b, c)` calls (alone or in
    a tuple) become `a:b:c`, and so does a name bound to a slice object made when compiling
    (`s = slice(None, -1)`; its bounds are constants). `node` itself when it has none."""
    if isinstance(node, gast.Tuple):
        items = [index_syntax(cx, item) for item in node.elts]
        return node if all(a is b for a, b in zip(items, node.elts, strict=True)) else \
            g.tuple_(items, at=node)
    if isinstance(node, gast.Name) and isinstance(cx.expr(node), slice):
        bounds = cx.expr(node)
        return g.slice_(*[None if v is None else g.const(v, at=node)
                          for v in (bounds.start, bounds.stop, bounds.step)], at=node)
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            not node.keywords and len(node.args) <= 3 and \
            not any(isinstance(a, gast.Starred) for a in node.args) and \
            cx.expr(node.func) is builtins.slice:
        bounds = [None if isinstance(a, gast.Constant) and a.value is None else a
                  for a in node.args]
        lower, upper, step = ([None, *bounds, None] if len(bounds) == 1 else
                              bounds + [None] * (3 - len(bounds)))
        return g.slice_(lower, upper, step, at=node)
    return node


for _table, _rule in ((BINARY, _binary), (COMPARISONS, _comparison), (UNARY, _unary)):
    for _function, _op in _table.items():
        register([_function], _rule(_function, _op), rewrite=True)
register([operator.getitem], _getitem, rewrite=True)
register([operator.abs], registered(builtins.abs))
