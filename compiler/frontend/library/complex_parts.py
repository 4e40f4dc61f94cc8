"""numpy's functions of complex numbers: on complex values their parts (`real`, `imag`,
`conj` primitives, lowered by the `complex_pairs` pass), on real numbers and arrays what
numpy gives for real input.

Contract, complex input: np.real / np.imag (the parts, differentiable), np.conj, np.angle
(`arctan2(imag, real)`, differentiable), np.iscomplex / np.isreal (imag != 0 / == 0),
np.iscomplexobj / np.isrealobj (True / False); np.real_if_close is refused (whether its
result is complex depends on the values). Real input: registers `np.real` (the argument
itself: numpy returns the same array object, see `building.SAME_OBJECT`),
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

import math

import numpy as np

from ...ir.builder import const
from ...ir.core import BOOL
from ..context import CallContext
from .registry import REQUIRED, bind_params, param, register


def _argument(cx: CallContext, name: str, args, kwargs, node, first: str = "x", **extra):
    """(the array or number argument `first` of `np.<name>`, the bound parameters)."""
    p = bind_params(cx, name, args, kwargs, {first: REQUIRED, **extra}, node)
    return cx.value(p[first], node), p


def _real(name: str, first: str, **extra):
    def lower(cx: CallContext, args, kwargs, node):
        x = _argument(cx, name, args, kwargs, node, first, **extra)[0]
        if x.type.is_complex and name == "real_if_close":
            raise cx.source.error(node, "np.real_if_close of complex values: whether the "
                                  "result is real depends on the values, known only when the "
                                  "code runs", "use np.real(z) (or z.real)")
        return cx.b.real(x) if x.type.is_complex else x

    return lower


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
