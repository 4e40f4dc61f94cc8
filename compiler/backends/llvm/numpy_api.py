"""What the generated CPython entry point needs from numpy's C ABI, checked before use.

Contract: `register()` (once per process, from `jit.initialize`) reads numpy's C API table
(the `_ARRAY_API` capsule) and makes two symbols resolvable by MCJIT: `PYARRAY_TYPE` (the
address of `numpy.ndarray`'s type object) and `PYARRAY_NEW` (`PyArray_New`). It then checks,
on live objects, every assumption the entry point makes: the table's entries, the offsets of
an array's fields (`ARRAY`) and of a dtype's (`DESCR`), and that `PyArray_New` makes a new
C-contiguous array. `available()` tells whether all of that held; when it does not, array
signatures are not given a generated entry point (they are called through ctypes).
`type_num(name)` is numpy's type number of an element type ("f64", "f32", "i64", "bool").
`fingerprint()` names what the generated code depends on (part of the disk cache's key).
"""

from __future__ import annotations

import ctypes

import llvmlite.binding as llvm
import numpy as np

PYARRAY_TYPE = "__adlite_PyArray_Type"
PYARRAY_NEW = "__adlite_PyArray_New"
TABLE_TYPE, TABLE_NEW = 2, 93  # indices in numpy's C API table (__multiarray_api.h)
# byte offsets in PyArrayObject_fields and PyArray_Descr (numpy 2, CPython with a GIL)
ARRAY = {"type": 8, "data": 16, "ndim": 24, "dims": 32, "descr": 56, "flags": 64}
DESCR = {"byteorder": 26, "type_num": 28}
C_CONTIGUOUS, ALIGNED = 0x1, 0x100
NATIVE_ORDER = (b"=", b"|")  # byte orders of a dtype stored as this machine stores it
DTYPES = {"f64": np.float64, "f32": np.float32, "i64": np.int64, "bool": np.bool_}

_state: dict[str, bool] = {}


def type_num(name: str) -> int:
    return np.dtype(DTYPES[name]).num


def fingerprint() -> str:
    return f"numpy {np.__version__} entry {available()}"


def available() -> bool:
    if "ok" not in _state:
        register()
    return _state["ok"]


def register() -> None:
    if "ok" in _state:
        return
    try:
        table = _table()
        _state["ok"] = _layout_holds(table)
    except (AttributeError, TypeError, ValueError, OSError):  # another numpy or CPython
        _state["ok"] = False
    if _state["ok"]:
        llvm.add_symbol(PYARRAY_TYPE, table[TABLE_TYPE])
        llvm.add_symbol(PYARRAY_NEW, table[TABLE_NEW])


def _table():
    capsule = np._core._multiarray_umath._ARRAY_API
    name = ctypes.pythonapi.PyCapsule_GetName
    name.restype, name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    pointer = ctypes.pythonapi.PyCapsule_GetPointer
    pointer.restype, pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    address = pointer(capsule, name(capsule))
    if not address:
        raise ValueError("numpy's C API table is missing")
    return (ctypes.c_void_p * (TABLE_NEW + 1)).from_address(address)


def _read(address: int, offset: int, ctype):
    return ctype.from_address(address + offset).value


def _layout_holds(table) -> bool:
    """Whether the offsets and entries the entry point uses are those of this process."""
    if table[TABLE_TYPE] != id(np.ndarray) or not table[TABLE_NEW]:
        return False
    a = np.zeros((2, 3))
    dims = _read(id(a), ARRAY["dims"], ctypes.c_void_p)
    fields = (_read(id(a), ARRAY["type"], ctypes.c_void_p) == id(np.ndarray)
              and _read(id(a), ARRAY["data"], ctypes.c_void_p) == a.ctypes.data
              and _read(id(a), ARRAY["ndim"], ctypes.c_int) == 2
              and list((ctypes.c_int64 * 2).from_address(dims)) == [2, 3]
              and _read(id(a), ARRAY["descr"], ctypes.c_void_p) == id(a.dtype)
              and _read(id(a), ARRAY["flags"], ctypes.c_int) == a.flags.num)
    descrs = all(_read(id(np.dtype(t)), DESCR["type_num"], ctypes.c_int) == np.dtype(t).num
                 and _read(id(np.dtype(t)), DESCR["byteorder"], ctypes.c_char)
                 == np.dtype(t).byteorder.encode() for t in DTYPES.values())
    new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_int,
                            ctypes.POINTER(ctypes.c_int64), ctypes.c_int, ctypes.c_void_p,
                            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p)(
        table[TABLE_NEW])
    made = new(table[TABLE_TYPE], 2, (ctypes.c_int64 * 2)(4, 5), type_num("f32"), None, None,
               0, 0, None)
    return fields and descrs and type(made) is np.ndarray and made.shape == (4, 5) and \
        made.dtype == np.float32 and made.flags.c_contiguous and made.flags.writeable and \
        made.flags.owndata
