"""Element types of IR values: `F64`, `F32`, `I64`, `BOOL`, and the complex `C128`, `C64`
(`DType`s; `DTYPES` by name).

Complex values exist only between the frontend and the `complex_pairs` pass, which rewrites
each into its real and imaginary parts (two values of `real_dtype`), so passes, AD and the
backends see real types only.

A `DType` knows its name in the IR text, its numpy scalar type and the Python type of a
constant's value; `result_dtype(*dtypes)` is numpy's promotion of arrays of them
(`np.result_type`: float32 with int64 is float64). Backend types (C, ctypes, LLVM, numpy in
generated source) are tables in their backends keyed by these objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, repr=False)
class DType:
    name: str
    numpy: type  # numpy's scalar type (np.float64, ...)
    python: type  # the Python type of a constant's value (float, int, bool)

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__

    @property
    def itemsize(self) -> int:
        """numpy's element size in bytes."""
        return np.dtype(self.numpy).itemsize

    @property
    def is_float(self) -> bool:
        return self.python is float

    @property
    def is_complex(self) -> bool:
        return self.python is complex

    @property
    def real_dtype(self) -> DType:
        """The element type of the real and imaginary parts (complex), else itself."""
        return {"c128": F64, "c64": F32}.get(self.name, self)

    @property
    def complex_dtype(self) -> DType:
        """The complex type whose parts have this float type (itself for a complex one)."""
        return {"f64": C128, "f32": C64}.get(self.name, self)


F64 = DType("f64", np.float64, float)
F32 = DType("f32", np.float32, float)
I64 = DType("i64", np.int64, int)
BOOL = DType("bool", np.bool_, bool)
C128 = DType("c128", np.complex128, complex)
C64 = DType("c64", np.complex64, complex)
DTYPES = {d.name: d for d in (F64, F32, I64, BOOL, C128, C64)}


def result_dtype(*dtypes: DType) -> DType:
    """numpy's common element type of arrays of `dtypes` (none of them weak)."""
    common = np.result_type(*(d.numpy for d in dtypes))
    return next(d for d in DTYPES.values() if np.dtype(d.numpy) == common)
