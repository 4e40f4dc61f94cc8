"""The determinant of a complex matrix after `complex_pairs`: `complex_slogdet`.

Contract: `complex_slogdet(a)` takes a complex matrix interleaved, f64 `(n, n, 2)`
(`pair_ops.interleaved`), and returns f64 `(3,)`: numpy's `slogdet` as `[sign.real,
sign.imag, logabsdet]` (the sign a unit complex number, 0 and -inf at a singular matrix).
`passes/complex_pairs.py` lowers `det`, `slogdet` and `det_sign` of complex matrices to it
(`det` = sign exp(logabsdet), numpy's formula). The reference is numpy's; the LLVM backend
calls LAPACK's `zgetrf` as numpy does (`backends/llvm/decompositions.py`).

Derivatives, with `tau = tr(A^-1 dA)`: `d logabsdet = Re tau`, `d sign = i sign Im tau`;
transposed, `gA = (g_l + i c) A^-H` with `c = Re(conj(g_sign) i sign)` (JAX's pairing of
real and imaginary parts, as everywhere after `complex_pairs`); `A^-1` through the real
embedding (`PairOps.inv`).
"""

from __future__ import annotations

import numpy as np

from ..ir.core import F64
from ..ir.primitive import Primitive, register
from .pair_ops import Pair, PairOps, deinterleaved, interleaved
from .vocabulary import BuilderOps


def complex_slogdet(a: np.ndarray) -> np.ndarray:
    sign, logabsdet = np.linalg.slogdet(a[..., 0] + 1j * a[..., 1])
    return np.array([sign.real, sign.imag, logabsdet])


def _type(in_types, params):
    (t,) = in_types
    if t.scalar != F64 or len(t.shape) != 3 or t.shape[0] != t.shape[1] or t.shape[2] != 2:
        raise TypeError(f"complex_slogdet: an interleaved square matrix expected, got {t}")
    return [F64.with_shape((3,))]


def _parts(o, packed):
    return [o.reshape(o.slice_along(packed, 0, k, k + 1), ()) for k in range(3)]


def _inverse_transposed(o, a):
    """`A^-T` of the interleaved matrix `a`, as a pair."""
    inverse = PairOps(o).inv(deinterleaved(o, a))
    return Pair(*(o.transpose(x, (1, 0)) for x in (inverse.re, inverse.im)))


def _at(b, e):
    """(ops, pair ops, the sign's parts, `A^-T` as a pair) of equation `e`."""
    o = BuilderOps(b)
    s_re, s_im, _ = _parts(o, e.outputs[0])
    return o, PairOps(o), s_re, s_im, _inverse_transposed(o, e.inputs[0])


def _jvp(b, e, tangents):
    (t,) = tangents
    if t is None:
        return [None]
    o, ops, s_re, s_im, inverse_t = _at(b, e)
    tau = ops.reduce_sum(ops.mul(inverse_t, deinterleaved(o, t)), None, False)
    parts = [o.neg(o.mul(s_im, tau.im)), o.mul(s_re, tau.im), tau.re]
    return [o.concatenate([o.reshape(x, (1,)) for x in parts], 0)]


def _vjp(b, e, cts):
    (g,) = cts
    if g is None:
        return [None]
    o, ops, s_re, s_im, inverse_t = _at(b, e)
    g_re, g_im, g_l = _parts(o, g)
    c = o.sub(o.mul(g_im, s_re), o.mul(g_re, s_im))
    return [interleaved(o, ops.mul(Pair(g_l, c), ops.conj(inverse_t)))]


register(Primitive("complex_slogdet", _type, lambda a: (complex_slogdet(a),),
                   py=lambda args, e: f"_rt.complex_linalg.complex_slogdet({args[0]})",
                   vjp=_vjp, jvp=_jvp))
