"""Arithmetic, comparison and boolean operators: `Operators`, a mixin of
`to_ir.FunctionConverter`.

Contract: Python's numeric tower is followed (bool < int < float, `/` always gives float,
int / int is Python's exact quotient, int ** non-negative int constant stays int); operands
take a common element type (`promote`: scalars are weak next to float arrays, literals next
to float numbers, two arrays numpy's `result_type`, as in numpy 2; `join_type` is the type
two values can both take). Tuples
concatenate (`t + u`) and repeat (`t * n`, n known when compiling), keeping their items'
objects; lists, masks and bitwise operators go to `sequences.py` and `masks.py`. Comparisons
of compile-time values are answered while compiling; `and`/`or` return a known operand that
decides, as Python does, and otherwise need booleans.
"""

from __future__ import annotations

import gast

from ..ir import dtypes
from ..ir.builder import const
from ..ir.core import BOOL, C128, I64, Atom, Const, Type, Var
from . import externals, masks, selection_values, sequences, static_values
from .context import CallContext
from .library import arrays
from .library.reductions import dot_of_selections
from .selection_values import Selection, involved
from .sequences import ListValue


class Operators:
    """The converter's operators (see the module doc); of the rest of the converter it uses
    `conversion_context.ExpressionContext`."""

    def promote(self, x, y, node) -> tuple[Atom, Atom]:
        """Common element type of two operands; scalars are weak next to float arrays
        (float32 array * 2.0 stays float32) and literals next to float numbers
        (np.float32 number * 2.0 stays float32), as in numpy 2."""
        given = [getattr(v, "type", None) for v in (x, y)]
        x, y = self.numeric(x, node), self.numeric(y, node)
        if not (x.type.is_complex or y.type.is_complex):
            t = _common_type(x, y, given, x.type, y.type)
        else:  # the common type of the parts, made complex (a complex literal is weak too)
            parts = _common_type(x, y, [_part(g) for g in given], _part(x.type), _part(y.type))
            t = Type(parts.dtype.complex_dtype if parts.is_float else C128)
        return self.to_type(x, t), self.to_type(y, t)

    def expr_BinOp(self, node):
        return self.binop_ref(node)[0]

    def binop_ref(self, node):
        """(value, Ref) of a binary operation: tuples concatenate (`shape + (1,)`) and repeat
        (`(0.0,) * n`, n known when compiling), keeping their items' objects."""
        (x, rx), (y, ry) = self.expr_ref(node.left), self.expr_ref(node.right)
        if static_values.is_tuple(x) or static_values.is_tuple(y):
            return _tuple_binop(self, node, x, rx, y, ry)
        return self.binop(node, x, y), None

    def binop(self, node, x, y):
        if isinstance(x, ListValue) or isinstance(y, ListValue):
            return sequences.binop(self, BINOPS.get(type(node.op)), x, y, node)
        if isinstance(x, masks.MaskedRead):  # x[mask] op= y
            x, y = masks.augmented_operands(self, x, y, node)
        elif involved((x, y)):
            if isinstance(node.op, gast.MatMult):
                return dot_of_selections(self, x, y, node)
            return selection_values.elementwise(self, [x, y], lambda v: self.binop(node, *v),
                                                node)
        if masks.is_bitwise(node.op):
            return masks.bitwise(self, node.op, x, y, node)
        if isinstance(node.op, gast.MatMult):
            return arrays.matmul(self, self.array(x, node), self.array(y, node), node)
        op = BINOPS.get(type(node.op))
        if op is None:
            raise self.source.error(node, f"unsupported operator {type(node.op).__name__}",
                                    "use + - * / // % ** @")
        if op == "div" and not _has_float(x, y):  # int / int: Python's exact quotient
            return self.b.int_truediv(*(self.to_type(self.scalar(v, node), I64)
                                        for v in (x, y)))
        if op == "div":
            return self.b.div(*self.promote(self.as_float(x, node), self.as_float(y, node),
                                            node))
        x, y = self.promote(x, y, node)
        if op == "pow" and x.type == I64 and not (isinstance(y, Const) and y.value >= 0):
            x, y = self.as_float(x, node), self.as_float(y, node)
        return self.b.op(op, x, y)  # `n % 0` raises ZeroDivisionError when it runs, as Python

    def expr_UnaryOp(self, node):
        x = self.expr(node.operand)
        if isinstance(x, Selection) and not isinstance(node.op, gast.Not):
            return selection_values.elementwise(self, [x], lambda v: self.unary(node, v[0]),
                                                node)
        return self.unary(node, x)

    def unary(self, node, x):
        if isinstance(node.op, gast.Not):
            return self.b.not_(self.truth(x, node))
        if isinstance(node.op, gast.USub):
            return self.b.neg(self.numeric(x, node))
        if isinstance(node.op, gast.UAdd):
            return self.numeric(x, node)
        if isinstance(node.op, gast.Invert):
            return masks.invert(self, x, node)
        raise self.source.error(node, f"unsupported operator {type(node.op).__name__}")

    def expr_Compare(self, node):
        result = None
        left = self.expr(node.left)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.expr(comparator)
            known = static_values.compare(op, left, right)
            prim = CMPOPS.get(type(op))
            if known is not None:
                test = const(known)
            elif static_values.PossibleTypes in (type(left), type(right)):
                raise self.source.error(node, "the answer depends on whether the number is "
                                        "a Python or a numpy scalar, which compiled code does "
                                        "not tell apart", "test with isinstance(x, float) "
                                        "(true of both) or against np.ndarray")
            elif prim is None:
                raise self.source.error(node, f"unsupported comparison {type(op).__name__}",
                                        "compare numbers with < <= > >= == !=; `is`, `in` "
                                        "and `==` on strings, None and functions")
            elif involved((left, right)):
                if len(node.ops) > 1:
                    raise selection_values.escape(self, involved((left, right)), node,
                                                  "a chained comparison")
                test = selection_values.elementwise(
                    self, [left, right], lambda v, p=prim: self.b.op(p, *self.promote(*v, node)),
                    node)
            else:
                test = self.b.op(prim, *self.promote(*externals.fold_comparison(left, right),
                                                      node))
            result = test if result is None else self.b.and_(result, test)
            left = right
        return result

    def expr_BoolOp(self, node):
        is_or, values = isinstance(node.op, gast.Or), []
        for v in node.values:
            x = self.expr(v)
            if values or static_values.is_runtime(x):
                values.append(self.scalar(x, v))
            elif bool(static_values.python_value(x)) == is_or or v is node.values[-1]:
                return x  # a known operand decides, as Python returns it (`tol or 1e-6`)
        if any(v.type != BOOL for v in values):
            raise self.source.error(node, "`and`/`or` on non-boolean values",
                                    "compare explicitly, e.g. `x != 0 and y > 1`")
        prim = "and_" if isinstance(node.op, gast.And) else "or_"
        result = values[0]
        for v in values[1:]:
            result = self.b.op(prim, result, v)
        return result


BINOPS = {gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "div",
          gast.FloorDiv: "floordiv", gast.Mod: "mod", gast.Pow: "pow"}


CMPOPS = {gast.Lt: "lt", gast.LtE: "le", gast.Gt: "gt", gast.GtE: "ge", gast.Eq: "eq",
          gast.NotEq: "ne"}


RANK = {dtypes.BOOL: 0, dtypes.I64: 1, dtypes.F32: 2, dtypes.F64: 3, dtypes.C64: 4,
        dtypes.C128: 5}


def join_type(a: Type, b: Type) -> Type:
    """The type both values can take (the wider element type); shapes must agree."""
    if a.shape != b.shape:
        raise TypeError(f"a variable changes shape ({a} and {b})")
    return a if RANK[a.dtype] >= RANK[b.dtype] else b


def _common_type(x: Atom, y: Atom, given: list, tx: Type, ty: Type) -> Type:
    """The element type `promote` gives operands of types `tx`, `ty` (`given`: their types
    before bools became ints)."""
    if tx.is_array != ty.is_array:
        array, scalar = (tx, ty) if tx.is_array else (ty, tx)
        return array.scalar if array.is_float else join_type(array.scalar, scalar.scalar)
    if isinstance(y, Const) and not ty.is_array and tx.is_float and ty != BOOL:
        return tx.scalar
    if isinstance(x, Const) and not tx.is_array and ty.is_float and tx != BOOL:
        return ty.scalar
    if tx.is_array:  # two arrays: numpy's promotion (float32 with int64 is float64, with
        # bool float32); bools still count as ints with each other
        kinds = [g.dtype if g is not None else n.dtype for g, n in
                 zip(given, (tx, ty), strict=True)]
        common = dtypes.result_dtype(*kinds)
        return Type(I64 if common == BOOL else common)
    return join_type(tx.scalar, ty.scalar)


def _part(t: Type | None) -> Type | None:
    """The type of a complex value's parts (other types unchanged)."""
    return t if t is None else Type(t.dtype.real_dtype, t.shape)


def _tuple_binop(conv: CallContext, node, x, rx, y, ry):
    """`t + u` of two tuples, `t * n` / `n * t` with n an int known when compiling."""
    def refs(value, ref):
        return ref if isinstance(ref, tuple) else (None,) * len(value)

    if isinstance(node.op, gast.Add) and isinstance(x, tuple) and isinstance(y, tuple):
        return x + y, refs(x, rx) + refs(y, ry)
    if isinstance(node.op, gast.Mult):
        (t, rt), n = ((x, rx), y) if isinstance(x, tuple) else ((y, ry), x)
        count = conv.static(n, node) if isinstance(n, Var | Const) else None
        if isinstance(count, int) and not isinstance(count, bool):
            return t * count, refs(t, rt) * count
    raise conv.source.error(node, "unsupported operation on a tuple",
                            "tuples support `t + u` and `t * n` with n known when compiling")


def _has_float(*values) -> bool:
    """Does `/` take numpy's float division here (an operand is a float or an array)?"""
    return any(not isinstance(v, Var | Const) or v.type.is_float or v.type.is_array or
               v.type.is_complex for v in values)
