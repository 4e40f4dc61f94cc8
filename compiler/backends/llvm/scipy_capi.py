"""scipy's C special functions called from compiled code: the LLVM lowering of the primitives
of `primitives/special.SCIPY_FUNCTIONS` and `SCIPY_QUANTILES`, and the binding of their
symbols when code is linked.

Contract: `LOWERINGS[name](cx, args, eqn)` calls the external function `SYMBOL_PREFIX + name`
(`__adlite_scipy_<name>`), declared `double (double, ..., i32)`: the C signature of the
function scipy exports from `scipy.special.cython_special` (its `__pyx_capi__` capsules, as
numba-scipy uses them), the last argument Cython's `__pyx_skip_dispatch` (0). Of the fused
variants (`__pyx_fuse_<k><name>`) the double-precision real one is taken (`CAPSULES`; `yn`'s
with a double order, which scipy's ufunc truncates to an int as its `dd->d` loop does);
float32 operands are widened and the result rounded (scipy's `ff->f` loops compute in
double), except `betainc`, `betaincc`, `betaincinv` and `stdtr`, whose float32 loops are
scipy's float functions (`FLOAT_CAPSULES`: `float (float, ...)`, symbol
`__adlite_scipy_<name>_f32`).
The primitive `complex_special` (part 0 or 1 of `erf`, `erfc`, `erfi`, `erfcx`, `wofz` or
`dawsn` at x + iy, `primitives/complex_special.py`) calls the complex variant
(`COMPLEX_CAPSULES`, `double complex (double complex, int)`: the function scipy's 'D->D' loop
calls) through the symbol `__adlite_scipy_<function>_complex`, declared
`{double, double} (double, double, i32)`: the C ABI of a `double _Complex` passed and returned
by value on x86-64 SysV (two SSE registers each way, as clang declares it) and on AArch64
(a homogeneous aggregate of two doubles: d0 and d1 each way, the two leading double
arguments taking the same registers as clang's `[2 x double]`); the part is taken from the
result. float32 operands are widened and the part rounded (scipy's 'F->F' loop computes in
double complex).
The IR and the object code hold symbol names, never addresses: `bind(object_code)`, called
before an object is linked (`jit._engine`, so also for objects from the disk cache written by
another process), gives each such symbol the object names the address of scipy's function in
this process (`llvmlite.binding.add_symbol`), importing `scipy.special.cython_special` only
then. Ahead-of-time kernels cannot link scipy's extension: `aot` refuses the symbols that start
with `SYMBOL_PREFIX`.
"""

from __future__ import annotations

import ctypes
import functools
import importlib

from llvmlite import binding as llvm
from llvmlite import ir

from .declarations import function
from .ops import F64

F32 = ir.FloatType()
I32 = ir.IntType(32)
SYMBOL_PREFIX = "__adlite_scipy_"
CAPSULES = {"iv": "__pyx_fuse_1iv", "ive": "__pyx_fuse_1ive", "i0": "i0", "i1": "i1",
            "j0": "j0", "j1": "j1", "jv": "__pyx_fuse_1jv", "y0": "y0", "y1": "y1",
            "yn": "__pyx_fuse_0yn", "gamma": "__pyx_fuse_1gamma",
            "rgamma": "__pyx_fuse_1rgamma", "gammasgn": "gammasgn", "gammainc": "gammainc",
            "gammaincc": "gammaincc", "beta": "beta", "betaln": "betaln",
            "betainc": "__pyx_fuse_0betainc", "betaincc": "__pyx_fuse_0betaincc",
            "stdtr": "__pyx_fuse_0stdtr", "chdtr": "chdtr", "chdtrc": "chdtrc", "pdtr": "pdtr",
            "pdtrc": "pdtrc", "gammaincinv": "gammaincinv",
            "betaincinv": "__pyx_fuse_0betaincinv", "erfcx": "__pyx_fuse_1erfcx",
            "erfi": "__pyx_fuse_1erfi", "dawsn": "__pyx_fuse_1dawsn"}
COMPLEX_CAPSULES = {"erf": "__pyx_fuse_0erf", "erfc": "__pyx_fuse_0erfc",
                    "erfi": "__pyx_fuse_0erfi", "erfcx": "__pyx_fuse_0erfcx", "wofz": "wofz",
                    "dawsn": "__pyx_fuse_0dawsn"}
FLOAT_CAPSULES = {"betainc": "__pyx_fuse_1betainc", "betaincc": "__pyx_fuse_1betaincc",
                  "stdtr": "__pyx_fuse_1stdtr", "betaincinv": "__pyx_fuse_1betaincinv"}


def _symbols() -> dict[str, str]:
    """Every symbol this module declares, and the capsule it is bound to."""
    return {**{SYMBOL_PREFIX + n: c for n, c in CAPSULES.items()},
            **{SYMBOL_PREFIX + n + "_f32": c for n, c in FLOAT_CAPSULES.items()},
            **{SYMBOL_PREFIX + n + "_complex": c for n, c in COMPLEX_CAPSULES.items()}}


def _address(capsules: dict, capsule: str) -> int:
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    obj = capsules[capsule]
    return api.PyCapsule_GetPointer(obj, api.PyCapsule_GetName(obj))


@functools.cache
def _bound(symbol: str) -> bool:
    """Binds `symbol` once per process."""
    capsules = importlib.import_module("scipy.special.cython_special").__pyx_capi__
    llvm.add_symbol(symbol, _address(capsules, _symbols()[symbol]))
    return True


def bind(object_code: bytes) -> None:
    """Make the scipy symbols `object_code` refers to resolvable (see the module doc)."""
    if SYMBOL_PREFIX.encode() not in object_code:
        return
    for symbol in _symbols():
        if symbol.encode() in object_code:
            _bound(symbol)


def _lowering(name: str):
    def lower(cx, args, eqn):
        b = cx.b
        single = args[0].type == F32
        if single and name in FLOAT_CAPSULES:
            callee = function(cx.module, SYMBOL_PREFIX + name + "_f32", F32,
                              [F32] * len(args) + [I32])
            return [b.call(callee, [*args, ir.Constant(I32, 0)])]
        callee = function(cx.module, SYMBOL_PREFIX + name, F64, [F64] * len(args) + [I32])
        wide = [b.fpext(a, F64) if single else a for a in args]
        value = b.call(callee, [*wide, ir.Constant(I32, 0)])
        return [b.fptrunc(value, F32) if single else value]

    return lower


_COMPLEX = ir.LiteralStructType([F64, F64])


def _complex_part(cx, args, eqn):
    """Part `part` of the complex function at (x, y) (see the module doc)."""
    b = cx.b
    single = args[0].type == F32
    callee = function(cx.module, SYMBOL_PREFIX + eqn.params["function"] + "_complex", _COMPLEX,
                      [F64, F64, I32])
    wide = [b.fpext(a, F64) if single else a for a in args]
    value = b.extract_value(b.call(callee, [*wide, ir.Constant(I32, 0)]), eqn.params["part"])
    return [b.fptrunc(value, F32) if single else value]


LOWERINGS = {**{name: _lowering(name) for name in CAPSULES}, "complex_special": _complex_part}
