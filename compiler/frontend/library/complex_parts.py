"""numpy's functions of complex numbers: on complex values their parts (`real`, `imag`,
`conj` primitives, lowered by the `complex_pairs` pass), on real numbers and arrays what
numpy gives for real input.

Contract, complex input: np.real / np.imag (the parts, differentiable), np.conj, np.angle
(`arctan2(imag, real)`, differentiable), np.iscomplex / np.isreal (imag != 0 / == 0),
np.iscomplexobj / np.isrealobj (True / False); np.real_if_close gives the complex values
and raises TypeError where numpy would return the real parts (all imaginary parts within
`tol`, a compile-time number: the result's type depends on the values). Python's
`complex(real, imag)` (real + imag 1j, as Python adds them) and `cmath`'s functions of a
number (`exp`, `log` (with a base), `log10`, `sqrt`, the trigonometric and hyperbolic
functions and their inverses but `asin`/`acos`/`atan`, `phase`, `polar`, `rect`, `isnan`,
`isinf`, `isfinite`; those raise Python's ValueError "math domain error" / OverflowError
"math range error" where a finite argument gives a result that is not finite). np.vdot
(the first argument conjugated).

Real input: registers `np.real` (the argument itself: numpy returns the same array object,
see `building.SAME_OBJECT`),
`np.real_if_close` (the argument; `tol` is accepted and unused, as numpy does for real
input), `np.imag` (zeros of the argument's dtype and shape;
nothing flows back), `np.conj` / `np.conjugate` (a copy; bool arrays are refused: numpy
gives int8, which adlite lacks), `np.angle(z, deg=False)` (numpy's `arctan2(0, z)`: pi
where z < 0 or z is -0.0, 0 elsewhere, NaN for NaN, float64 for ints and bools, times
180/pi in z's precision with `deg`; its derivative is zero, as autograd defines it for real
input), `np.iscomplex` / `np.isreal` (all false / all true, bool, the argument's shape) and
`np.iscomplexobj` / `np.isrealobj` (False / True, known when compiling). Their values and
dtypes are numpy's for real input; derivatives are those of the identity or zero.
"""

from __future__ import annotations

import builtins
import cmath
import math

import numpy as np

from ...ir.builder import const
from ...ir.core import BOOL, C64, C128, F64, Atom
from ..context import CallContext
from .elementwise import raise_at, raise_where
from .reductions import truth_reduce
from .registry import REQUIRED, bind_params, param, register


def _argument(cx: CallContext, name: str, args, kwargs, node, first: str = "x", **extra):
    """(the array or number argument `first` of `np.<name>`, the bound parameters)."""
    p = bind_params(cx, name, args, kwargs, {first: REQUIRED, **extra}, node)
    return cx.value(p[first], node), p


def _real(name: str, first: str, **extra):
    def lower(cx: CallContext, args, kwargs, node):
        x, p = _argument(cx, name, args, kwargs, node, first, **extra)
        if x.type.is_complex and name == "real_if_close":
            return _complex_unless_close(cx, x, param(cx, p, "tol", node), node)
        return cx.b.real(x) if x.type.is_complex else x

    return lower


def _complex_unless_close(cx: CallContext, z, tol, node):
    """np.real_if_close of complex values: `z` itself, numpy's result where an imaginary
    part is not within `tol` (numpy's: times the dtype's eps when above 1); where all are,
    numpy returns the real parts, a real array, so compiled code raises TypeError there (the
    type depends on the values)."""
    tol = float(tol)
    if tol > 1:
        tol *= float(np.finfo(np.complex64 if z.type.scalar == C64 else np.complex128).eps)
    b = cx.b
    magnitude = b.abs(b.imag(z))
    far = truth_reduce(cx, "any", b.ge(magnitude, const(tol, magnitude.type.scalar)), None,
                       False, node)
    raise_at(cx, node, b.not_(far), "TypeError",
             "np.real_if_close: every imaginary part is within tol here, where numpy returns "
             "the real parts (a real array) and compiled code the complex values (the type "
             "depends on the values); use np.real(z) where the imaginary parts are negligible")
    return z


def _filled(value: bool | None):
    """np.imag (`value` None: zeros of the argument's dtype), np.iscomplex / np.isreal
    (`value`: a bool array, or a bool for a number)."""

    def lower(cx: CallContext, args, kwargs, node):
        if value is None:
            x, _ = _argument(cx, "imag", args, kwargs, node, "val")
        else:
            x, _ = _argument(cx, "isreal" if value else "iscomplex", args, kwargs, node)
        if x.type.is_complex:  # the imaginary part; whether it is (not) zero
            imag = cx.b.imag(x)
            if value is None:
                return imag
            return cx.b.op("eq" if value else "ne", imag, const(0.0, imag.type.scalar))
        fill = const(0, x.type.scalar) if value is None else const(value, BOOL)
        if not x.type.is_array:
            return fill
        return cx.b.full(fill, shape=x.type.shape, dtype=fill.type.scalar)

    return lower


def _conjugate(cx: CallContext, args, node):
    x = cx.value(cx.one(args, node), node)
    if x.type.is_complex:
        return cx.b.conj(x)
    if x.type.scalar == BOOL:
        raise cx.source.error(node, "np.conjugate of bools gives numpy's int8, which "
                              "compiled code lacks", "convert first: np.conj(x.astype(int))")
    return x  # a new object (not `SAME_OBJECT`) of the same values


def _angle(cx: CallContext, args, kwargs, node):
    z, p = _argument(cx, "angle", args, kwargs, node, "z", deg=False)
    if z.type.is_complex:
        angle = cx.b.arctan2(cx.b.imag(z), cx.b.real(z))
    else:
        z = cx.b.op("stop_gradient", cx.as_float(cx.numeric(z, node), node))
        angle = cx.b.op("arctan2", *cx.promote(const(0.0, z.type.scalar), z, node))
    t = angle.type.scalar
    return cx.b.mul(angle, const(180.0 / math.pi, t)) if param(cx, p, "deg", node) else angle


def part(cx: CallContext, x, name: str):
    """`x.real` / `x.imag` of a number or an array (of a real one: itself / zeros)."""
    if x.type.is_complex:
        return cx.b.op(name, x)
    if name == "real":
        return x
    zero = const(0, x.type.scalar)
    return cx.b.full(zero, shape=x.type.shape, dtype=zero.type) if x.type.is_array else zero


def _object_test(real: bool):
    def lower(cx: CallContext, args, kwargs, node):
        x, _ = _argument(cx, "isrealobj" if real else "iscomplexobj", args, kwargs, node)
        return const(x.type.is_complex != real, BOOL)

    return lower


register([np.real], _real("real", "val"))
register([np.real_if_close], _real("real_if_close", "a", tol=100))
register([np.imag], _filled(None))
register([np.iscomplex], _filled(False))
register([np.isreal], _filled(True))
register([np.conj, np.conjugate], _conjugate, keywords=False)
register([np.angle], _angle)
register([np.iscomplexobj], _object_test(False))
register([np.isrealobj], _object_test(True))


def _complex_number(cx: CallContext, args, kwargs, node):
    """Python's complex(real=0, imag=0): real + imag * 1j, each argument a number."""
    p = bind_params(cx, "complex", args, kwargs, {"real": 0.0, "imag": 0.0}, node)
    (a_re, a_im), (b_re, b_im) = (_parts(cx, cx.scalar(cx.value(p[k], node), node), node)
                                  for k in ("real", "imag"))
    b = cx.b
    return b.complex(b.sub(a_re, b_im) if b_im is not None else a_re,
                     b_re if a_im is None else b.add(a_im, b_re))


def _parts(cx: CallContext, x: Atom, node) -> tuple[Atom, Atom | None]:
    """(real part, imaginary part or None for a real number) as float64."""
    if x.type.is_complex:
        x = cx.to_type(x, C128)
        return cx.b.real(x), cx.b.imag(x)
    return cx.to_type(cx.as_float(x, node), F64), None


_OVERFLOWING = ("exp", "sinh", "cosh")


def _cmath(prim: str, name: str):
    """cmath.<name> of a number: the primitive on complex128, with Python's errors."""
    def lower(cx: CallContext, args, node):
        b = cx.b
        z = cx.to_type(cx.scalar(cx.value(args[0], node), node), C128)
        result = b.op(prim, z)
        if len(args) == 2:  # cmath.log(z, base)
            result = b.div(result, b.log(cx.to_type(cx.value(args[1], node), C128)))
        elif len(args) != 1:
            raise cx.source.error(node, f"cmath.{name}() takes 1 argument, got {len(args)}")
        finite = b.and_(_finite(cx, b.real(z)), _finite(cx, b.imag(z)))
        bad = b.and_(finite, b.not_(b.and_(_finite(cx, b.real(result)),
                                           _finite(cx, b.imag(result)))))
        error, message = ("OverflowError", "math range error") if name in _OVERFLOWING else \
            ("ValueError", "math domain error")
        raise_where(cx, bad, error, message)
        return result

    return lower


def _finite(cx: CallContext, x: Atom) -> Atom:
    inf = const(math.inf, x.type.scalar)
    return cx.b.lt(cx.b.abs(x), inf)


def _phase(cx: CallContext, args, node):
    z = cx.to_type(cx.scalar(cx.value(cx.one(args, node), node), node), C128)
    return cx.b.arctan2(cx.b.imag(z), cx.b.real(z))


def _polar(cx: CallContext, args, node):
    z = cx.to_type(cx.scalar(cx.value(cx.one(args, node), node), node), C128)
    return cx.b.abs(z), _phase(cx, [z], node)


def _rect(cx: CallContext, args, node):
    r, phi = (cx.as_float(cx.scalar(cx.value(a, node), node), node)
              for a in cx.exactly(args, 2, node))
    b = cx.b
    return b.complex(b.mul(r, b.cos(phi)), b.mul(r, b.sin(phi)))


def _test(kind: str):
    """cmath.isnan (either part NaN) / isinf (either part infinite) / isfinite (both)."""
    def lower(cx: CallContext, args, node):
        z = cx.to_type(cx.scalar(cx.value(cx.one(args, node), node), node), C128)
        b, parts = cx.b, (cx.b.real(z), cx.b.imag(z))
        if kind == "isnan":
            return b.or_(*(b.ne(p, p) for p in parts))
        if kind == "isfinite":
            return b.and_(*(_finite(cx, p) for p in parts))
        inf = const(math.inf)
        return b.or_(*(b.eq(b.abs(p), inf) for p in parts))

    return lower


def _vdot(cx: CallContext, args, node):
    """np.vdot(a, b): sum(conj(a) * b) over the flattened arrays (numpy's error for sizes
    that differ)."""
    a, b = (cx.value(v, node) for v in cx.exactly(args, 2, node))
    sizes = [math.prod(v.type.shape or ()) for v in (a, b)]
    if sizes[0] != sizes[1]:
        raise cx.source.error(node, "vector and vector have different sizes (np.vdot)")
    flat = [cx.b.reshape(v, shape=(n,)) if v.type.is_array else v
            for v, n in zip((a, b), sizes, strict=True)]
    if flat[0].type.is_complex:
        flat[0] = cx.b.conj(flat[0])
    product = cx.b.mul(*cx.promote(*flat, node))
    return cx.b.sum(product, axis=(0,), keepdims=False) if product.type.is_array else product


register([np.vdot], _vdot, keywords=False)
register([builtins.complex, np.complex128], _complex_number)
for _prim, _name in (("exp", "exp"), ("log", "log"), ("log10", "log10"), ("sqrt", "sqrt"),
                     ("sin", "sin"), ("cos", "cos"), ("tan", "tan"), ("sinh", "sinh"),
                     ("cosh", "cosh"), ("tanh", "tanh"), ("arcsinh", "asinh"),
                     ("arccosh", "acosh"), ("arctanh", "atanh")):
    register([getattr(cmath, _name)], _cmath(_prim, _name), keywords=False)
register([cmath.phase], _phase, keywords=False)
register([cmath.polar], _polar, keywords=False)
register([cmath.rect], _rect, keywords=False)
for _kind in ("isnan", "isinf", "isfinite"):
    register([getattr(cmath, _kind)], _test(_kind), keywords=False)
