"""Scalar primitives: arithmetic, math functions, comparisons, logic, select, convert.

Each `_define` call is one primitive with all of its rules; `g` is the output cotangent,
`x`/`y` the inputs, `out` the output (see the table's contract in `__init__`). Binary
arithmetic takes two operands of the same type (the frontend inserts `convert`s).
"""

from __future__ import annotations

import numpy as np

from ..ir import dtypes
from ..ir.core import F64, I64, Const, Type
from ..ir.primitive import Primitive, register
from .ints import int64, int_pow, range_len
from .shapes import broadcast, elementwise


def same_type(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types, allowed=("f64", "f32", "i64", "bool"))]


def float_only(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types, allowed=("f64", "f32"))]


def numeric(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types)]


def to_bool(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types, "bool", ("f64", "f32", "i64", "bool"))]


def bool_only(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types, allowed=("bool",))]


def _ieee(fn):
    def impl(*args, **params):
        with np.errstate(all="ignore"):
            return (fn(*args, **params),)

    return impl


def _define(name, type_rule, impl, template, vjp=None, jvp=None, differentiable=True,
            array_template=None, int_template=None):
    """Register a single-output primitive whose Python lowering is the format string
    `template` (`array_template` when an operand is an array, `int_template` when the result
    is a scalar int: it checks the int64 range); its `vjp(b, eqn, g)` receives the one output
    cotangent `g`."""

    def py(args, eqn):
        arrays = array_template and any(a.type.is_array for a in eqn.inputs)
        if int_template and eqn.outputs[0].type == I64:
            return int_template.format(*args)
        return (array_template if arrays else template).format(*args)

    register(Primitive(name, type_rule, _ieee(impl), _single_output(vjp), jvp, py,
                       differentiable=differentiable, elementwise=True))


def _single_output(vjp):
    return None if vjp is None else (lambda b, eqn, cts: vjp(b, eqn, cts[0]))


def _x(eqn, i=0):
    return eqn.inputs[i]


# ---- binary arithmetic ------------------------------------------------------------------------

def _python_ints(*values) -> bool:
    return all(isinstance(v, int) for v in values)


def _checked(fn):
    """`fn` on Python ints is exact then range-checked (int64); other values as numpy."""
    return lambda *args: int64(fn(*args)) if _python_ints(*args) else fn(*args)


_define("add", numeric, _checked(lambda x, y: x + y), "({0} + {1})",
        vjp=lambda b, e, g: [g, g],
        jvp=lambda b, e, t: [_sum(b, t[0], t[1])], int_template="_rt.int64({0} + {1})")
_define("sub", numeric, _checked(lambda x, y: x - y), "({0} - {1})",
        vjp=lambda b, e, g: [g, b.neg(g)],
        jvp=lambda b, e, t: [_sum(b, t[0], None if t[1] is None else b.neg(t[1]))],
        int_template="_rt.int64({0} - {1})")
_define("mul", numeric, _checked(lambda x, y: x * y), "({0} * {1})",
        vjp=lambda b, e, g: [b.mul(g, _x(e, 1)), b.mul(g, _x(e, 0))],
        jvp=lambda b, e, t: [_sum(b, _scale(b, t[0], _x(e, 1)), _scale(b, t[1], _x(e, 0)))],
        int_template="_rt.int64({0} * {1})")


def _div_vjp(b, e, g):
    gx = b.div(g, _x(e, 1))
    return [gx, b.neg(b.mul(gx, e.outputs[0]))]


def _div_jvp(b, e, t):
    tx = None if t[0] is None else b.div(t[0], _x(e, 1))
    ty = None if t[1] is None else b.neg(b.mul(b.div(t[1], _x(e, 1)), e.outputs[0]))
    return [_sum(b, tx, ty)]


_define("div", float_only, lambda x, y: np.float64(x) / np.float64(y), "({0} / {1})",
        vjp=_div_vjp, jvp=_div_jvp)


def _scalar_ints(n_inputs: int, out: Type):
    def rule(in_types: list[Type], params: dict) -> list[Type]:
        if len(in_types) != n_inputs or any(t != I64 for t in in_types):
            raise TypeError(f"expects {n_inputs} int operands, got "
                            f"{', '.join(map(str, in_types))}")
        return [out]

    return rule


# Python's int / int: the correctly rounded quotient; a zero divisor raises ZeroDivisionError
_define("int_truediv", _scalar_ints(2, F64), lambda x, y: np.float64(int(x) / int(y)),
        "({0} / {1})", differentiable=False)
# len(range(start, stop, step)), capped at INT64_MAX (the trip count of a `for` loop)
_define("range_len", _scalar_ints(3, I64), range_len, "_rt.range_len({0}, {1}, {2})",
        differentiable=False)


def _pow_partials(b, e):
    """d/dx x**y = y x**(y-1); d/dy = x**y log x, taken as 0 where x == 0 and y >= 0."""
    x, y = e.inputs
    dx = b.mul(y, b.pow(x, b.sub(y, 1.0)))
    zero_base = b.and_(b.eq(x, 0.0), b.ge(y, 0.0))
    safe_x = b.select(zero_base, 1.0, x)
    dy = b.select(zero_base, 0.0, b.mul(e.outputs[0], b.log(safe_x)))
    return dx, dy


def _pow_vjp(b, e, g):
    dx, dy = _pow_partials(b, e)
    return [b.mul(g, dx), b.mul(g, dy)]


def _pow_jvp(b, e, t):
    dx, dy = _pow_partials(b, e)
    return [_sum(b, _scale(b, t[0], dx), _scale(b, t[1], dy))]


_define("pow", numeric, lambda x, y: int_pow(x, y) if _python_ints(x, y) else np.power(x, y),
        "({0} ** {1})", vjp=_pow_vjp, jvp=_pow_jvp, int_template="_rt.int_pow({0}, {1})")


def _floor_div(x, y):
    return int64(x // y) if _python_ints(x, y) else np.floor_divide(x, y)


def _mod(x, y):
    return x % y if _python_ints(x, y) else np.mod(x, y)


def _float(x):
    """Python numbers become float64; numpy values keep their precision."""
    return x if isinstance(x, np.ndarray | np.floating) else np.float64(x)


_define("floordiv", numeric, _floor_div, "({0} // {1})",
        vjp=lambda b, e, g: [None, None], jvp=lambda b, e, t: [None],
        int_template="_rt.int64({0} // {1})")
_define("mod", numeric, _mod, "({0} % {1})",
        vjp=lambda b, e, g: [g, b.neg(b.mul(g, b.floordiv(_x(e, 0), _x(e, 1))))],
        jvp=lambda b, e, t: [_sum(b, t[0], None if t[1] is None else b.neg(
            b.mul(t[1], b.floordiv(_x(e, 0), _x(e, 1)))))])


def _extremum(name, compare, fn, py):
    """np.maximum/np.minimum: the winner takes the cotangent, ties share it equally
    (torch.maximum, as the eager tape)."""

    def weight(b, e):
        x, y = e.inputs
        t = e.outputs[0].type.scalar
        return b.select(b.op(compare, x, y), Const(1.0, t),
                        b.select(b.eq(x, y), Const(0.5, t), Const(0.0, t)))

    def vjp(b, e, g):
        w = weight(b, e)
        return [b.mul(g, w), b.mul(g, b.sub(1.0, w))]

    def jvp(b, e, t):
        w = weight(b, e)
        return [_sum(b, _scale(b, t[0], w), _scale(b, t[1], b.sub(1.0, w)))]

    _define(name, numeric, fn, py, vjp=vjp, jvp=jvp)


_extremum("maximum", "gt", lambda x, y: max(x, y) if _python_ints(x, y) else np.maximum(x, y),
          "np.maximum({0}, {1})")
_extremum("minimum", "lt", lambda x, y: min(x, y) if _python_ints(x, y) else np.minimum(x, y),
          "np.minimum({0}, {1})")


def _clip_type(in_types: list[Type], params: dict) -> list[Type]:
    if len(in_types) != 3:
        raise TypeError(f"clip takes x, lo and hi, got {len(in_types)} operand(s)")
    return numeric(in_types, params)


def _clip_masks(b, e):
    """torch.clamp's: `x` where lo <= x <= hi, `lo` where x < lo < hi, `hi` where x > hi or
    hi < lo (numpy then returns hi); nothing where an operand is NaN."""
    x, lo, hi = e.inputs
    return [b.and_(b.ge(x, lo), b.le(x, hi)), b.and_(b.lt(x, lo), b.lt(lo, hi)),
            b.or_(b.gt(x, hi), b.lt(hi, lo))]


def _clip_vjp(b, e, g):
    return [b.select(mask, g, 0.0) for mask in _clip_masks(b, e)]


def _clip_jvp(b, e, t):
    parts = [None if ti is None else b.select(mask, ti, 0.0)
             for mask, ti in zip(_clip_masks(b, e), t, strict=True)]
    return [_sum(b, _sum(b, parts[0], parts[1]), parts[2])]


_define("clip", _clip_type, lambda x, lo, hi: np.clip(x, lo, hi), "np.clip({0}, {1}, {2})",
        vjp=_clip_vjp, jvp=_clip_jvp)

# ---- unary ------------------------------------------------------------------------------------

_define("neg", numeric, _checked(lambda x: -x), "(-{0})",
        vjp=lambda b, e, g: [b.neg(g)], jvp=lambda b, e, t: [b.neg(t[0])],
        int_template="_rt.int64(-{0})")


def _unary(name, np_fn, derivative, py=None):
    """An f64 -> f64 function with derivative `derivative(b, x, out)`."""

    def vjp(b, e, g):
        return [b.mul(g, derivative(b, e.inputs[0], e.outputs[0]))]

    def jvp(b, e, t):
        return [b.mul(t[0], derivative(b, e.inputs[0], e.outputs[0]))]

    _define(name, float_only, lambda x: np_fn(_float(x)), py or f"np.{name}({{0}})",
            vjp=vjp, jvp=jvp)


_unary("exp", np.exp, lambda b, x, out: out)
_unary("log", np.log, lambda b, x, out: b.div(1.0, x))
_unary("sqrt", np.sqrt, lambda b, x, out: b.div(0.5, out))
_unary("sin", np.sin, lambda b, x, out: b.cos(x))
_unary("cos", np.cos, lambda b, x, out: b.neg(b.sin(x)))
_unary("tan", np.tan, lambda b, x, out: b.add(1.0, b.mul(out, out)))
_unary("tanh", np.tanh, lambda b, x, out: b.sub(1.0, b.mul(out, out)))
_unary("sinh", np.sinh, lambda b, x, out: b.cosh(x))
_unary("cosh", np.cosh, lambda b, x, out: b.sinh(x))
_unary("arcsin", np.arcsin, lambda b, x, out: b.div(1.0, b.sqrt(b.sub(1.0, b.mul(x, x)))))
_unary("arccos", np.arccos,
       lambda b, x, out: b.neg(b.div(1.0, b.sqrt(b.sub(1.0, b.mul(x, x))))))
_unary("arctan", np.arctan, lambda b, x, out: b.div(1.0, b.add(1.0, b.mul(x, x))))
_unary("log1p", np.log1p, lambda b, x, out: b.div(1.0, b.add(1.0, x)))
_unary("expm1", np.expm1, lambda b, x, out: b.add(out, 1.0))
_define("abs", numeric, _checked(abs), "abs({0})",
        vjp=lambda b, e, g: [b.mul(g, b.sign(_x(e)))],
        jvp=lambda b, e, t: [b.mul(t[0], b.sign(_x(e)))], int_template="_rt.int64(abs({0}))")


def _zero_derivative(name, np_fn, py):
    _define(name, float_only, lambda x: np_fn(_float(x)), py,
            vjp=lambda b, e, g: [None], jvp=lambda b, e, t: [None])


_zero_derivative("sign", np.sign, "np.sign({0})")
_zero_derivative("floor", np.floor, "np.floor({0})")
_zero_derivative("ceil", np.ceil, "np.ceil({0})")

# ---- comparisons, logic, select, convert (no cotangent flows through a bool) -----------------

for _name, _fn, _op in [("lt", np.less, "<"), ("le", np.less_equal, "<="),
                        ("gt", np.greater, ">"), ("ge", np.greater_equal, ">="),
                        ("eq", np.equal, "=="), ("ne", np.not_equal, "!=")]:
    _define(_name, to_bool, (lambda f: lambda x, y: _bool(f(x, y)))(_fn), f"({{0}} {_op} {{1}})",
            differentiable=False)

_define("and_", bool_only, lambda x, y: _bool(np.logical_and(x, y)), "({0} and {1})",
        differentiable=False, array_template="np.logical_and({0}, {1})")
_define("or_", bool_only, lambda x, y: _bool(np.logical_or(x, y)), "({0} or {1})",
        differentiable=False, array_template="np.logical_or({0}, {1})")
_define("not_", bool_only, lambda x: _bool(np.logical_not(x)), "(not {0})",
        differentiable=False, array_template="np.logical_not({0})")


def _bool(value):
    return value if isinstance(value, np.ndarray) else bool(value)


def _select_type(in_types, params):
    if in_types[0].name != "bool":
        raise TypeError(f"select condition must be bool, got {in_types[0]}")
    out = same_type(in_types[1:], params)[0]
    return [out.with_shape(broadcast(in_types[0].shape, out.shape))]


def _select_vjp(b, e, g):
    c = e.inputs[0]
    zero = 0.0
    return [None, b.select(c, g, zero), b.select(c, zero, g)]


def _select_jvp(b, e, t):
    c = e.inputs[0]
    a = 0.0 if t[1] is None else t[1]
    f = 0.0 if t[2] is None else t[2]
    return [None if t[1] is None and t[2] is None else b.select(c, a, f)]


_define("select", _select_type, lambda c, x, y: np.where(c, x, y) if
        isinstance(c, np.ndarray) else (x if c else y), "({1} if {0} else {2})",
        vjp=_select_vjp, jvp=_select_jvp, array_template="np.where({0}, {1}, {2})")

_CASTS = {dtypes.F64: "np.float64({0})", dtypes.F32: "np.float32({0})", dtypes.I64: "int({0})",
          dtypes.BOOL: "bool({0})"}


def _convert_type(in_types, params):
    return [Type(params["to"].dtype, in_types[0].shape)]


def _convert_impl(x, to):
    if isinstance(x, np.ndarray):
        return x.astype(to.dtype.numpy)
    if to.dtype == dtypes.I64:
        return int64(int(x))  # int(nan) and int(inf) raise Python's errors
    return to.dtype.numpy(x) if to.is_float else bool(x)


def _convert_back(b, e, ct):
    """A cotangent/tangent flows through float -> float conversions only, in the source
    precision; conversions from or to ints and bools cut it."""
    source, target = e.inputs[0].type, e.outputs[0].type
    if not (source.is_float and target.is_float):
        return None
    return ct if source.name == target.name else b.convert(ct, to=source.scalar)


def _convert_forward(b, e, t):
    source, target = e.inputs[0].type, e.outputs[0].type
    if t[0] is None or not (source.is_float and target.is_float):
        return [None]
    return [t[0] if source.name == target.name else b.convert(t[0], to=target.scalar)]


def _convert_py(args, eqn):
    if eqn.inputs[0].type.is_array:
        return f"{args[0]}.astype(np.{eqn.params['to'].dtype.numpy.__name__})"
    if eqn.params["to"].name == "i64" and eqn.inputs[0].type.is_float:
        return f"_rt.int64(int({args[0]}))"
    return _CASTS[eqn.params["to"].dtype].format(*args)


register(Primitive(
    "convert", _convert_type, _ieee(_convert_impl),
    vjp=_single_output(lambda b, e, g: [_convert_back(b, e, g)]),
    jvp=_convert_forward, py=_convert_py, elementwise=True))


# ---- helpers for rules with symbolic zeros ----------------------------------------------------

def _sum(b, x, y):
    if x is None:
        return y
    return x if y is None else b.add(x, y)


def _scale(b, t, factor):
    return None if t is None else b.mul(t, factor)

