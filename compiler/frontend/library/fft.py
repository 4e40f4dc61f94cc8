"""`np.fft` in compiled code: the transforms as the `fft`, `rfft` and `irfft` primitives
(`primitives/fft.py`: numpy's own pocketfft, one axis at a time), on the real and imaginary
parts packed into one array.

Contract: `np.fft.fft`, `ifft`, `rfft`, `irfft` (`n`, `axis`, `norm`), `fft2`, `ifft2`,
`rfft2`, `irfft2`, `fftn`, `ifftn`, `rfftn`, `irfftn` (`s`, `axes`, `norm`; `out=` refused)
give numpy's values: the lengths and axes are resolved as numpy resolves them (known when
compiling; -1 in `s` for the input's length, irfftn's last length 2 (m - 1) by default), the
input is truncated or zero-padded at the end of each axis to its length, and the n-D
transforms apply the one-axis transform along each axis in numpy's order (`fftn` from the
last axis to the first; `rfftn` the real transform along the last axis first; `irfftn` the
real one last). The scale of each transform is numpy's for `norm` (None / "backward",
"ortho", "forward"). Real input of a complex transform is taken as complex (imaginary part
zero). `fftfreq(n, d)` / `rfftfreq` (n known when compiling) are numpy's arrays (`fftshift` is
`rearranging`'s). A repeated axis, and what numpy refuses, are refused at the call's line.
"""

from __future__ import annotations

import numpy as np

from adlite.derivatives import fft as fft_axes

from ...ir.builder import const
from ...ir.core import Atom, Type
from ...ir.index import Int
from ...primitives.vocabulary import BuilderOps
from ..context import CallContext
from .registry import REQUIRED, bind_params, param, register

_NORMS = (None, "backward", "ortho", "forward")
_DEFAULT = object()  # `axes` not given: the function's default (None is "every axis")


def _scale(n: int, norm: str | None, inverse: bool, x: Atom) -> float:
    """numpy's factor `fct` of a transform of length `n` of `x`, computed as numpy computes
    it, in the precision of x's real parts (`_raw_fft`)."""
    real = np.float32 if x.type.dtype.real_dtype.name == "f32" else np.float64
    if norm == "ortho":
        return float(np.reciprocal(np.sqrt(n, dtype=real)))
    if (norm == "forward") != inverse:  # forward-normalised forward, or a backward inverse
        return float(np.reciprocal(n, dtype=real))
    return 1.0


def _resized(cx: CallContext, x: Atom, axis: int, n: int) -> Atom:
    """`x` truncated or zero-padded at the end of `axis` to length `n` (numpy's `n`/`s`)."""
    have = x.type.shape[axis]
    if have > n:
        return BuilderOps(cx.b).slice_along(x, axis, 0, n)
    if have < n:
        shape = x.type.shape[:axis] + (n - have,) + x.type.shape[axis + 1:]
        return BuilderOps(cx.b).concatenate([x, cx.b.zeros(Type(x.type.dtype, shape))], axis)
    return x


def _parts(cx: CallContext, z: Atom) -> tuple[Atom, Atom]:
    """The (real, imaginary) parts of a complex transform's input (ints as float64)."""
    if z.type.is_complex:
        return cx.b.real(z), cx.b.imag(z)
    if not z.type.is_float:
        z = cx.to_type(z, Type("f64", z.type.shape))
    return z, cx.b.zeros(z.type)


def _packed(cx: CallContext, re: Atom, im: Atom) -> Atom:
    """The parts as the FFT primitives take them: one array of shape (2,) + shape."""
    shape = (1, *re.type.shape)
    return cx.b.concatenate(cx.b.reshape(re, shape=shape), cx.b.reshape(im, shape=shape),
                            axis=0)


def _unpacked(cx: CallContext, p: Atom) -> Atom:
    """The complex array of packed parts."""
    return cx.b.complex(*(cx.b.index(p, const(k), spec=(Int(),)) for k in (0, 1)))


def _double(z: Atom, scale: float) -> bool:
    """Whether numpy computes a complex transform of `z` in double precision: for the int
    scale 1, and for real float32 input (its gufuncs' resolution)."""
    return scale == 1 or not z.type.is_complex


def _c2c(cx: CallContext, z: Atom, axis: int, n: int, norm, inverse: bool) -> Atom:
    re, im = (_resized(cx, p, axis, n) for p in _parts(cx, z))
    scale = _scale(n, norm, inverse, re)
    out = cx.b.fft(_packed(cx, re, im), axis=axis, inverse=inverse, scale=scale,
                   double=_double(z, scale))
    return _unpacked(cx, out)


def _r2c(cx: CallContext, x: Atom, axis: int, n: int, norm) -> Atom:
    if x.type.is_complex:
        raise TypeError("rfft of complex values: numpy discards the imaginary part (with a "
                        "ComplexWarning); pass np.real(z) or use np.fft.fft")
    if not x.type.is_float:
        x = cx.to_type(x, Type("f64", x.type.shape))
    scale = _scale(n, norm, False, x)
    return _unpacked(cx, cx.b.rfft(_resized(cx, x, axis, n), axis=axis, scale=scale,
                                   double=scale == 1))


def _c2r(cx: CallContext, z: Atom, axis: int, n: int, norm) -> Atom:
    re, im = (_resized(cx, p, axis, n // 2 + 1) for p in _parts(cx, z))
    scale = _scale(n, norm, True, re)
    return cx.b.irfft(_packed(cx, re, im), axis=axis, n=n, scale=scale,
                      double=_double(z, scale))


def _resolved(cx: CallContext, name: str, shape: tuple, s, axes, node) -> tuple:
    """numpy's lengths and axes of the transform (`derivatives.fft`), refused at the call's
    line with numpy's message where numpy refuses them."""
    try:
        lengths, axes = fft_axes.resolved(name, shape, s, axes)
        for n in lengths:
            if n < 1:
                raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    except (TypeError, ValueError, IndexError, NotImplementedError) as e:
        raise cx.source.error(node, f"np.fft.{name}(): {e}") from None
    return lengths, axes


def _transform(name: str, one_axis: bool, default_axes):
    def lower(cx: CallContext, args, kwargs, node):
        if one_axis:
            p = bind_params(cx, name, args, kwargs,
                            {"a": REQUIRED, "n": None, "axis": -1, "norm": None}, node)
            n, axis = param(cx, p, "n", node), param(cx, p, "axis", node)
            s, axes = (None if n is None else (n,)), (axis,)
        else:
            p = bind_params(cx, name, args, kwargs,
                            {"a": REQUIRED, "s": None, "axes": _DEFAULT, "norm": None}, node)
            s = param(cx, p, "s", node)
            axes = default_axes if p["axes"] is _DEFAULT else param(cx, p, "axes", node)
        norm = param(cx, p, "norm", node)
        if norm not in _NORMS:
            raise cx.source.error(node, f'np.fft.{name}(): Invalid norm value {norm}; should '
                                  'be "backward", "ortho" or "forward".')
        x = cx.array(cx.value(p["a"], node), node)
        lengths, axes = _resolved(cx, name, x.type.shape, s, axes, node)
        kind = name.rstrip("n2") if not one_axis else name
        try:
            return _apply(cx, kind, x, lengths, axes, norm)
        except TypeError as e:
            raise cx.source.error(node, f"np.fft.{name}(): {e}") from None

    return lower


def _apply(cx: CallContext, kind: str, x: Atom, lengths: list, axes: list, norm) -> Atom:
    """The transform `kind` (fft, ifft, rfft, irfft) over `axes` in numpy's order."""
    pairs = list(zip(lengths, axes, strict=True))
    if kind in ("fft", "ifft"):
        for n, axis in reversed(pairs):
            x = _c2c(cx, x, axis, n, norm, kind == "ifft")
        return x
    if kind == "rfft":
        x = _r2c(cx, x, pairs[-1][1], pairs[-1][0], norm)
        for n, axis in reversed(pairs[:-1]):
            x = _c2c(cx, x, axis, n, norm, False)
        return x
    for n, axis in pairs[:-1]:
        x = _c2c(cx, x, axis, n, norm, True)
    return _c2r(cx, x, pairs[-1][1], pairs[-1][0], norm)


def _frequencies(name: str):
    """fftfreq / rfftfreq: numpy's integer frequencies (n known when compiling: 0, 1, ...,
    then fftfreq's negative half -(n // 2), ..., -1) times 1 / (n d), as numpy computes
    them."""
    def lower(cx: CallContext, args, kwargs, node):
        p = bind_params(cx, name, args, kwargs, {"n": REQUIRED, "d": 1.0}, node)
        n = param(cx, p, "n", node)
        if not isinstance(n, int) or n < 1:  # numpy: ZeroDivisionError, or a negative size
            raise cx.source.error(node, f"np.fft.{name}({n!r}): numpy takes n >= 1 here "
                                  "(n = 0 divides by zero, a negative n is no size)")
        count = n // 2 + 1 if name == "rfftfreq" else n
        b = cx.b
        k = b.arange(n=count, dtype=Type("f64"))
        if name == "fftfreq":  # numpy's results[N:] = arange(-(n // 2), 0), N = (n - 1)//2 + 1
            k = b.select(b.ge(k, const(float((n - 1) // 2 + 1))), b.sub(k, const(float(n))), k)
        d = cx.to_type(cx.as_float(cx.value(p["d"], node), node), Type("f64"))
        return b.mul(k, b.div(const(1.0), b.mul(const(float(n)), d)))

    return lower


for _name in ("fft", "ifft", "rfft", "irfft"):
    register([getattr(np.fft, _name)], _transform(_name, True, None))
for _name in ("fft2", "ifft2", "rfft2", "irfft2"):
    register([getattr(np.fft, _name)], _transform(_name, False, (-2, -1)))
for _name in ("fftn", "ifftn", "rfftn", "irfftn"):
    register([getattr(np.fft, _name)], _transform(_name, False, None))
register([np.fft.fftfreq], _frequencies("fftfreq"))
register([np.fft.rfftfreq], _frequencies("rfftfreq"))
