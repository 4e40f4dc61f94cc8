"""The primitives that make and take apart complex values: `complex(re, im)`, `real(z)`,
`imag(z)`, `conj(z)`.

Contract: complex values (element types c128 and c64, `ir.dtypes`) live only between the
frontend and the `complex_pairs` pass (`passes/complex_pairs.py`), which rewrites every
complex value into its real and imaginary parts; these four primitives become those parts
there. So they have a type rule and numpy's values (for constant folding) and no derivative
or lowering rules: the AD and the backends never see them.
"""

from __future__ import annotations

import numpy as np

from ..ir.core import Type
from ..ir.primitive import Primitive, register
from .shapes import elementwise


def _complex_type(in_types: list[Type], params: dict) -> list[Type]:
    out = elementwise(in_types, allowed=("f64", "f32"))
    return [Type(out.dtype.complex_dtype, out.shape)]


def _part_type(in_types: list[Type], params: dict) -> list[Type]:
    out = elementwise(in_types, allowed=("c128", "c64"))
    return [Type(out.dtype.real_dtype, out.shape)]


def _conj_type(in_types: list[Type], params: dict) -> list[Type]:
    return [elementwise(in_types, allowed=("c128", "c64"))]


def _made(re, im):
    if isinstance(re, np.ndarray):  # (not re + 1j * im: 1j * inf has a NaN real part)
        out = np.empty(re.shape, np.result_type(re.dtype, np.complex64))
        out.real, out.imag = re, im
        return out,
    return complex(re, im),


for _name, _rule, _impl in (
        ("complex", _complex_type, _made),
        ("real", _part_type, lambda z: (np.real(z) if isinstance(z, np.ndarray) else
                                        z.real,)),
        ("imag", _part_type, lambda z: (np.imag(z) if isinstance(z, np.ndarray) else
                                        z.imag,)),
        ("conj", _conj_type, lambda z: (np.conj(z),))):
    register(Primitive(_name, _rule, _impl, vjp=None, jvp=None, py=None, elementwise=True,
                       linear=True))
