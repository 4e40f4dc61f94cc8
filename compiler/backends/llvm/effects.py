"""LLVM lowering of the effects (`check`, `print`): native code calls back into Python.

Contract: `register()` (once per process, from `jit.initialize`) makes the symbol
`adlite_effect` resolvable by MCJIT: a ctypes callback

    int32_t adlite_effect(const char *descriptor, const uint64_t *operands)

which takes the GIL (native code runs without it), reads the operands (8 bytes each: a double,
an int64, or an array's data pointer) as the descriptor's types say, and runs the effect with
the functions of `primitives/effects.py`: it prints and returns 0, or keeps the exception to
raise (a failed check's, or one `print` raised) for this thread and returns `status.PENDING`;
`raise_pending()` raises it. The descriptor is a constant string in the object code (the
primitive, its params and its operand types as a Python literal), so cached object code
needs nothing from the process that compiled it. The rules (`registry.lowers`; they use
`b`, `entry`, `fn`, `module`, `status`, `fail_block`, `value` and `check` of the lowering
`cx`) lower `check` to a branch that calls back only when the check fails (or,
with a `status` param, which ahead-of-time kernels give the checks they can report,
returns that status), and
`print` to a call whose nonzero status leaves the function; the caller (the generated entry
point or the ctypes path, through `jit.raise_for_status`) raises the pending exception.
"""

from __future__ import annotations

import ast
import ctypes
import functools
import threading

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir

from ...primitives import effects
from ...status import PENDING
from .declarations import function
from .registry import lowers

SYMBOL = "adlite_effect"
I32 = ir.IntType(32)
I64 = ir.IntType(64)
I8 = ir.IntType(8)
F64 = ir.DoubleType()
F32 = ir.FloatType()
PTR = ir.PointerType()
STORAGE = {"bool": np.uint8, "f32": np.float32}  # array elements; others are doubles

_pending = threading.local()


@functools.cache
def _descriptor(text: bytes) -> tuple:
    return ast.literal_eval(text.decode())


def _read(t, address: int):
    if t.is_array:
        size = int(np.prod(t.shape))
        storage = np.dtype(STORAGE.get(t.name, np.float64))
        data = ctypes.c_uint64.from_address(address).value
        if size == 0:
            raw = np.zeros(t.shape, dtype=storage)
        else:
            buffer = (ctypes.c_char * (size * storage.itemsize)).from_address(data)
            raw = np.frombuffer(buffer, dtype=storage).reshape(t.shape).copy()
        return effects.python_value(t, raw)
    if t.is_float:
        return effects.python_value(t, ctypes.c_double.from_address(address).value)
    return effects.python_value(t, ctypes.c_int64.from_address(address).value)


def _run(descriptor: int, operands: int) -> int:
    try:
        prim, params, types = _descriptor(ctypes.string_at(descriptor))
        params = dict(params)
        values = [_read(effects.type_of(t), operands + 8 * k) for k, t in enumerate(types)]
        if prim == "check":
            effects.raise_check(params["error"], params["args"], values)
        effects.emit_print(params["items"], params["sep"], params["end"], params["flush"],
                           params["file"], values)
        return 0
    except BaseException as error:  # noqa: BLE001 - raised by the caller (raise_pending)
        _pending.error = error
        return PENDING


_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)(_run)
_registered = False


def register() -> None:
    global _registered
    if not _registered:
        llvm.add_symbol(SYMBOL, ctypes.cast(_CALLBACK, ctypes.c_void_p).value)
        _registered = True


def raise_pending():
    """Raises the exception the callback kept for this thread (status PENDING)."""
    error = _pending.__dict__.pop("error")
    raise error.with_traceback(None)


def _callback(cx, eqn, env):
    """The call of `adlite_effect` for `eqn` (operands: the inputs after `skip`)."""
    atoms = eqn.inputs[1:] if eqn.prim == "check" else eqn.inputs
    text = repr((eqn.prim, tuple(sorted(eqn.params.items())),
                 tuple(str(a.type) for a in atoms))).encode() + b"\0"
    typ = ir.ArrayType(I8, len(text))
    descriptor = ir.GlobalVariable(cx.module, typ, cx.module.get_unique_name("effect"))
    descriptor.global_constant = True
    descriptor.linkage = "internal"
    descriptor.initializer = ir.Constant(typ, bytearray(text))
    b = cx.b
    slots = cx.entry.alloca(I64, size=max(len(atoms), 1), name="operands")
    for k, atom in enumerate(atoms):
        v = cx.value(env, atom)
        if atom.type.is_array:
            v = b.ptrtoint(v, I64)
        elif v.type in (F32, F64):
            v = b.bitcast(b.fpext(v, F64) if v.type == F32 else v, I64)
        elif v.type != I64:
            v = b.zext(v, I64)
        b.store(v, b.gep(slots, [ir.Constant(I64, k)]))
    return b.call(function(cx.module, SYMBOL, I32, [PTR, PTR]), [descriptor, slots])


@lowers("check")
def lower_check(cx, eqn, env):
    ok = cx.value(env, eqn.inputs[0])
    cont = cx.fn.append_basic_block("check.ok")
    bad = cx.fn.append_basic_block("check.failed")
    cx.b.cbranch(ok, cont, bad)
    cx.b.position_at_end(bad)
    if "status" in eqn.params:  # an ahead-of-time kernel's (aot.py): no Python to call
        cx.leave(eqn.params["status"])
        cx.b.position_at_end(cont)
        return []
    _callback(cx, eqn, env)
    cx.leave(PENDING)
    cx.b.position_at_end(cont)
    return []


@lowers("print")
def lower_print(cx, eqn, env):
    result = _callback(cx, eqn, env)
    cx.check(cx.b.icmp_signed("==", result, ir.Constant(I32, 0)), result)
    return []
