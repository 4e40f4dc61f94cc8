"""The FFT primitives: numpy's pocketfft along one axis, on packed real and imaginary parts.

Contract: a complex array of shape S travels as one float array of shape (2,) + S, its real
parts then its imaginary parts (`complex_pairs` packs and unpacks them), so each primitive
has one operand and one result, as the packed decompositions do. `axis` is always an axis of
S (non-negative); `scale` multiplies every result (numpy's `fct`: its normalisation);
`double` runs float32 data through numpy's double-precision loop, the result rounded, as
numpy resolves its gufuncs for the int scale 1 and for real float32 input of a complex
transform.
- `fft(p; axis, inverse, scale)`: the complex DFT along `axis` (exponent sign -1, or +1 with
  `inverse`), the length kept.
- `rfft(x; axis, scale)`: of a real array, length n -> n // 2 + 1 along `axis`.
- `irfft(p; axis, n, scale)`: to a real array of length n, the input's length being
  n // 2 + 1; the imaginary parts of the zero frequency (and, for an even n, the Nyquist
  one) are ignored, as numpy ignores them.
Values are numpy's bit for bit: `impl` calls the gufuncs of `numpy.fft._pocketfft_umath`
that `np.fft` calls, with the same `fct`, and so does the LLVM lowering
(`backends/llvm/fft.py`, through the gufuncs' inner loops) and the Python backend (`_rt.fft`,
this module's functions). All three are linear: the JVP is the primitive of the tangent; the
VJP its transpose for the real inner product of the parts: `fft` -> `fft` the other way
(the conjugate transpose of the DFT), `rfft` -> the cotangent zero-padded to n, `fft`
inverse, real part; `irfft` -> `rfft` of the cotangent with the frequencies other than 0 and
Nyquist doubled (irfft counts each twice).
"""

from __future__ import annotations

import numpy as np
from numpy.fft import _pocketfft_umath as pocketfft

from ..ir.core import I64, Const, Type
from ..ir.index import Int
from ..ir.primitive import Primitive, register
from .vocabulary import BuilderOps


def _axis_of(t: Type, axis: int, packed: bool) -> int:
    """`axis` checked against the (packed: first dimension 2) operand type `t`."""
    if not t.is_array or not t.is_float:
        raise TypeError(f"an FFT takes a float array, got {t}")
    if packed and (len(t.shape) < 2 or t.shape[0] != 2):
        raise TypeError(f"an FFT of packed parts takes shape (2, ...), got {t}")
    rank = len(t.shape) - packed
    if not 0 <= axis < rank:
        raise TypeError(f"FFT axis {axis} of an array of {rank} dimensions")
    return axis + packed


def _fft_type(in_types, params):
    (t,) = in_types
    _axis_of(t, params["axis"], True)
    return [t]


def _rfft_type(in_types, params):
    (t,) = in_types
    axis = _axis_of(t, params["axis"], False)
    shape = list(t.shape)
    shape[axis] = shape[axis] // 2 + 1
    return [Type(t.dtype, (2, *shape))]


def _irfft_type(in_types, params):
    (t,) = in_types
    axis = _axis_of(t, params["axis"], True)
    n = params["n"]
    if t.shape[axis] != n // 2 + 1:
        raise TypeError(f"irfft to {n} points takes {n // 2 + 1} frequencies, got "
                        f"{t.shape[axis]}")
    shape = list(t.shape[1:])
    shape[axis - 1] = n
    return [Type(t.dtype, tuple(shape))]


def _complex(p: np.ndarray) -> np.ndarray:
    out = np.empty(p.shape[1:], np.result_type(p.dtype, np.complex64))
    out.real, out.imag = p[0], p[1]
    return out


def _packed(z: np.ndarray) -> np.ndarray:
    return np.stack([z.real, z.imag])


def _gufunc(ufunc, x: np.ndarray, scale: float, double: bool, axis: int, length: int,
            dtype) -> np.ndarray:
    """numpy's `_raw_fft`: the gufunc along `axis` with `fct` = scale, in double precision
    with `double` (numpy's loop for the int scale 1 or real float32 input of a complex
    transform), the result rounded to `dtype`."""
    shape = list(x.shape)
    shape[axis] = length
    if double:
        x = x.astype(np.result_type(x.dtype, np.float64))
        return ufunc(x, np.float64(scale), axes=[(axis,), (), (axis,)],
                     out=np.empty(shape, np.result_type(dtype, np.float64))).astype(dtype)
    real = np.float32 if x.dtype in (np.float32, np.complex64) else np.float64
    return ufunc(x, real(scale), axes=[(axis,), (), (axis,)], out=np.empty(shape, dtype))


def c2c(p: np.ndarray, axis: int, inverse: bool, scale: float, double: bool) -> np.ndarray:
    z = _complex(p)
    ufunc = pocketfft.ifft if inverse else pocketfft.fft
    return _packed(_gufunc(ufunc, z, scale, double, axis, z.shape[axis], z.dtype))


def r2c(x: np.ndarray, axis: int, scale: float, double: bool) -> np.ndarray:
    n = x.shape[axis]
    ufunc = pocketfft.rfft_n_even if n % 2 == 0 else pocketfft.rfft_n_odd
    return _packed(_gufunc(ufunc, x, scale, double, axis, n // 2 + 1,
                           np.result_type(x.dtype, np.complex64)))


def c2r(p: np.ndarray, axis: int, n: int, scale: float, double: bool) -> np.ndarray:
    return _gufunc(pocketfft.irfft, _complex(p), scale, double, axis, n, p.dtype)


# ---- derivatives: each primitive is linear, its transpose another FFT --------------------

def _jvp(b, e, tangents):
    """The primitive (linear) of the tangent."""
    return [None if tangents[0] is None else b.op(e.prim, tangents[0], **e.params)]


def _fft_vjp(b, e, cts):
    if cts[0] is None:
        return [None]
    return [b.fft(cts[0], **{**e.params, "inverse": not e.params["inverse"]})]


def _rfft_vjp(b, e, cts):
    """The cotangent's half spectrum zero-padded to n, transformed back, its real part."""
    if cts[0] is None:
        return [None]
    axis, x = e.params["axis"], e.inputs[0]
    n, m = x.type.shape[axis], cts[0].type.shape[axis + 1]
    padded = cts[0]
    if n > m:
        shape = list(cts[0].type.shape)
        shape[axis + 1] = n - m
        padded = b.concatenate(cts[0], b.zeros(Type(x.type.dtype, tuple(shape))), axis=axis + 1)
    back = b.fft(padded, axis=axis, inverse=True, scale=e.params["scale"],
                 double=e.params["double"])
    return [_part(b, back, 0)]


def _irfft_vjp(b, e, cts):
    """rfft of the cotangent, times 2 but at the zero and (even n) Nyquist frequencies."""
    if cts[0] is None:
        return [None]
    axis, n = e.params["axis"], e.params["n"]
    half = b.rfft(cts[0], axis=axis, scale=e.params["scale"], double=e.params["double"])
    m, at = n // 2 + 1, axis + 1
    twice = m - 1 if n % 2 else m - 2  # the frequencies between 0 and Nyquist (or the end)
    if twice <= 0:
        return [half]
    o = BuilderOps(b)
    doubled = b.mul(o.slice_along(half, at, 1, 1 + twice), Const(2.0, half.type.scalar))
    pieces = [o.slice_along(half, at, 0, 1), doubled] + \
        ([o.slice_along(half, at, m - 1, m)] if n % 2 == 0 else [])
    return [o.concatenate(pieces, at)]


def _part(b, p, k: int):
    """The real (k = 0) or imaginary (1) parts of packed `p`."""
    return b.index(p, Const(k, I64), spec=(Int(),))


def _py(function: str, names: tuple[str, ...]):
    def source(args, e):
        return f"_rt.fft.{function}({args[0]}, " + ", ".join(
            repr(e.params[name]) for name in names) + ")"
    return source


register(Primitive("fft", _fft_type, lambda p, **params: (c2c(p, **params),), _fft_vjp, _jvp,
                   _py("c2c", ("axis", "inverse", "scale", "double")), linear=True))
register(Primitive("rfft", _rfft_type, lambda x, **params: (r2c(x, **params),), _rfft_vjp, _jvp,
                   _py("r2c", ("axis", "scale", "double")), linear=True))
register(Primitive("irfft", _irfft_type, lambda p, **params: (c2r(p, **params),), _irfft_vjp,
                   _jvp, _py("c2r", ("axis", "n", "scale", "double")), linear=True))
