"""Scalar primitives: arithmetic, math functions, comparisons, logic, select, convert.

Each `_define` call is one primitive with all of its rules; `g` is the output cotangent,
`x`/`y` the inputs, `out` the output (see the table's contract in `__init__`). Binary
arithmetic takes two operands of the same type (the frontend inserts `convert`s). The
arithmetic and math primitives (`_arith`) take their `vjp` and `jvp` from the derivative
formulas shared with the eager tape (`adlite.derivatives`), run with the `Builder` as their
operations vocabulary (`vocabulary.BuilderOps`), and so do `select` and `convert`.
"""

from __future__ import annotations

import numpy as np

from adlite import derivatives

from ..ir import dtypes
from ..ir.core import F64, I64, Type
from ..ir.primitive import ARITHMETIC, CHEAP, Primitive, register
from .ints import int64, int64_array, int_pow, range_len
from .shapes import broadcast, elementwise
from .vocabulary import BuilderOps


def same_type(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types, allowed=("f64", "f32", "i64", "bool"))]


def float_only(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types, allowed=("f64", "f32"))]


def numeric(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types)]


# The primitives complex operands may reach (until the `complex_pairs` pass rewrites them)
COMPLEX = ("c128", "c64")


def float_or_complex(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types, allowed=("f64", "f32") + COMPLEX)]


def numeric_or_complex(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types, allowed=("f64", "f32", "i64") + COMPLEX)]


def _abs_type(in_types: list[Type], params: dict) -> list[Type]:
    """abs: a complex operand's magnitude is real."""
    out = numeric_or_complex(in_types, params)[0]
    return [Type(out.dtype.real_dtype, out.shape)]


def to_bool(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types, "bool", ("f64", "f32", "i64", "bool"))]


def equality(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types, "bool", ("f64", "f32", "i64", "bool") + COMPLEX)]


def bool_only(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types, allowed=("bool",))]


def _ieee(fn):
    def impl(*args, **params):
        with np.errstate(all="ignore"):
            return (fn(*args, **params),)

    return impl


def _define(name, type_rule, impl, template, formula=None, differentiable=True,
            array_template=None, int_template=None, **facts):
    """Register a single-output primitive whose Python lowering is the format string
    `template` (`array_template` when an operand is an array, `int_template` when the result
    is a scalar int: it checks the int64 range); its `vjp` and `jvp` run the shared `formula`
    (`adlite.derivatives`), or are None (not differentiable). `facts`: `linear`, `cost`."""

    def py(args, eqn):
        arrays = array_template and any(a.type.is_array for a in eqn.inputs)
        if int_template and eqn.outputs[0].type == I64:
            return int_template.format(*args)
        return (array_template if arrays else template).format(*args)

    vjp = jvp = None
    if formula is not None:
        vjp, jvp = _formula_vjp(formula), _formula_jvp(formula)
    register(Primitive(name, type_rule, _ieee(impl), vjp, jvp, py,
                       differentiable=differentiable, elementwise=True, formula=formula,
                       **facts))


def define_unary(name, impl, template, formula) -> None:
    """Register a float elementwise primitive of one operand (`special` registers its own)."""
    _define(name, float_only, impl, template, formula)


def _formula_vjp(formula):
    return lambda b, e, cts: derivatives.vjp(formula, BuilderOps(b), cts[0], e.inputs,
                                             e.outputs[0])


def _formula_jvp(formula):
    return lambda b, e, t: [derivatives.jvp(formula, BuilderOps(b), t, e.inputs, e.outputs[0])]


# ---- arithmetic -------------------------------------------------------------------------------

def _python_ints(*values) -> bool:
    return all(isinstance(v, int) for v in values)


def _checked(fn):
    """`fn` on Python ints is exact then range-checked (int64); other values as numpy."""
    return lambda *args: int64(fn(*args)) if _python_ints(*args) else fn(*args)


def _arith(name, type_rule, impl, template, int_template=None, **facts):
    """An elementwise primitive whose derivative is the shared formula of the same name."""
    _define(name, type_rule, impl, template, derivatives.FORMULAS[name],
            int_template=int_template, **facts)


_arith("add", numeric_or_complex, _checked(lambda x, y: x + y), "({0} + {1})",
       "_rt.int64({0} + {1})", linear=True, cost=ARITHMETIC)
_arith("sub", numeric_or_complex, _checked(lambda x, y: x - y), "({0} - {1})",
       "_rt.int64({0} - {1})", linear=True, cost=ARITHMETIC)
_arith("mul", numeric_or_complex, _checked(lambda x, y: x * y), "({0} * {1})",
       "_rt.int64({0} * {1})", linear=True, cost=ARITHMETIC)
_arith("div", float_or_complex, lambda x, y: _float(x) / _float(y), "({0} / {1})",
       linear=True)
_arith("arctan2", float_only, lambda y, x: np.arctan2(_float(y), _float(x)),
       "np.arctan2({0}, {1})")
_arith("fmod", float_only, lambda x, y: np.fmod(_float(x), _float(y)), "np.fmod({0}, {1})")
_arith("pow", numeric_or_complex,
       lambda x, y: int_pow(x, y) if _python_ints(x, y) else np.power(x, y), "({0} ** {1})",
       "_rt.int_pow({0}, {1})")


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


def _floor_div(x, y):
    return int64(x // y) if _python_ints(x, y) else np.floor_divide(x, y)


def _mod(x, y):
    return x % y if _python_ints(x, y) else np.mod(x, y)


def _float(x):
    """Python numbers become float64 (complex128); numpy values keep their precision."""
    if isinstance(x, np.ndarray | np.floating | np.complexfloating):
        return x
    return np.complex128(x) if isinstance(x, complex) else np.float64(x)


_arith("floordiv", numeric, _floor_div, "({0} // {1})", "_rt.int64({0} // {1})")
_arith("mod", numeric, _mod, "({0} % {1})")
_arith("maximum", numeric, lambda x, y: max(x, y) if _python_ints(x, y) else np.maximum(x, y),
       "np.maximum({0}, {1})")
_arith("minimum", numeric, lambda x, y: min(x, y) if _python_ints(x, y) else np.minimum(x, y),
       "np.minimum({0}, {1})")


def _clip_type(in_types: list[Type], params: dict) -> list[Type]:
    if len(in_types) != 3:
        raise TypeError(f"clip takes x, lo and hi, got {len(in_types)} operand(s)")
    return numeric(in_types, params)


_arith("clip", _clip_type, lambda x, lo, hi: np.clip(x, lo, hi), "np.clip({0}, {1}, {2})")

# ---- unary ------------------------------------------------------------------------------------

_arith("neg", numeric_or_complex, _checked(lambda x: -x), "(-{0})", "_rt.int64(-{0})", linear=True,
       cost=ARITHMETIC)
_arith("abs", _abs_type, _checked(abs), "abs({0})", "_rt.int64(abs({0}))")
HOLOMORPHIC = ("exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "arcsin",
               "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "log1p", "expm1", "log2",
               "log10")
for _name in HOLOMORPHIC + ("cbrt", "sign", "floor", "ceil"):
    _arith(_name, float_or_complex if _name in HOLOMORPHIC else float_only,
           (lambda f: lambda x: f(_float(x)))(getattr(np, _name)), f"np.{_name}({{0}})")

# ---- comparisons, logic, select, convert (no cotangent flows through a bool) -----------------

for _name, _fn, _op in [("lt", np.less, "<"), ("le", np.less_equal, "<="),
                        ("gt", np.greater, ">"), ("ge", np.greater_equal, ">="),
                        ("eq", np.equal, "=="), ("ne", np.not_equal, "!=")]:
    _define(_name, equality if _name in ("eq", "ne") else to_bool,
            (lambda f: lambda x, y: _bool(f(x, y)))(_fn), f"({{0}} {_op} {{1}})",
            differentiable=False, cost=CHEAP)

_define("and_", bool_only, lambda x, y: _bool(np.logical_and(x, y)), "({0} and {1})",
        differentiable=False, array_template="np.logical_and({0}, {1})", cost=CHEAP)
_define("or_", bool_only, lambda x, y: _bool(np.logical_or(x, y)), "({0} or {1})",
        differentiable=False, array_template="np.logical_or({0}, {1})", cost=CHEAP)
_define("not_", bool_only, lambda x: _bool(np.logical_not(x)), "(not {0})",
        differentiable=False, array_template="np.logical_not({0})", cost=CHEAP)


def _bool(value):
    return value if isinstance(value, np.ndarray) else bool(value)


def _select_type(in_types, params):
    if in_types[0].name != "bool":
        raise TypeError(f"select condition must be bool, got {in_types[0]}")
    out = elementwise(in_types[1:], allowed=("f64", "f32", "i64", "bool") + COMPLEX)
    return [out.with_shape(broadcast(in_types[0].shape, out.shape))]


_define("select", _select_type, lambda c, x, y: np.where(c, x, y) if
        isinstance(c, np.ndarray) else (x if c else y), "({1} if {0} else {2})",
        array_template="np.where({0}, {1}, {2})", formula=derivatives.FORMULAS["select"],
        linear=True, cost=CHEAP)

_CASTS = {dtypes.F64: "np.float64({0})", dtypes.F32: "np.float32({0})", dtypes.I64: "int({0})",
          dtypes.BOOL: "bool({0})"}


def _convert_type(in_types, params):
    return [Type(params["to"].dtype, in_types[0].shape)]


def _convert_impl(x, to):
    if isinstance(x, np.ndarray):
        if to.dtype == dtypes.I64 and x.dtype.kind == "f":
            return int64_array(x)
        return x.astype(to.dtype.numpy)
    if to.dtype == dtypes.I64:
        return int64(int(x))  # int(nan) and int(inf) raise Python's errors
    return to.dtype.numpy(x) if to.is_float or to.is_complex else bool(x)


def _convert_rules():
    """`vjp` and `jvp` from the shared `convert` formula (`adlite.derivatives`): a derivative
    crosses float -> float conversions only."""
    formula = derivatives.FORMULAS["convert"]

    def vjp(b, e, cts):
        source, target = e.inputs[0].type.scalar, e.outputs[0].type.scalar
        return [None if cts[0] is None else formula.across(BuilderOps(b), cts[0], target, source)]

    def jvp(b, e, t):
        source, target = e.inputs[0].type.scalar, e.outputs[0].type.scalar
        return [None if t[0] is None else formula.across(BuilderOps(b), t[0], source, target)]

    return {"vjp": vjp, "jvp": jvp, "formula": formula}


def _convert_py(args, eqn):
    if eqn.inputs[0].type.is_array:
        if eqn.params["to"].name == "i64" and eqn.inputs[0].type.is_float:
            return f"_rt.int64_array({args[0]})"
        return f"{args[0]}.astype(np.{eqn.params['to'].dtype.numpy.__name__})"
    if eqn.params["to"].name == "i64" and eqn.inputs[0].type.is_float:
        return f"_rt.int64(int({args[0]}))"
    return _CASTS[eqn.params["to"].dtype].format(*args)


register(Primitive(
    "convert", _convert_type, _ieee(_convert_impl), py=_convert_py, elementwise=True,
    linear=True, cost=ARITHMETIC, **_convert_rules()))
