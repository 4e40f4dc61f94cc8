"""A generated entry point's method definition lives as long as its builtin.

CPython reads a builtin's `PyMethodDef` when it traverses the builtin for the garbage
collector and when it deallocates it (`PyCFunction_GET_CLASS`). The definition was a ctypes
structure; a `NativeFunction` sits in a reference cycle with its builtins, and when the
collector clears such a cycle, ctypes frees the structure's buffer (`PyCData_clear`) even
though it is still referenced: a use after free, segfaults "Garbage-collecting" in full test
runs (gdb: `meth_dealloc` -> `PyCFunction_GET_CLASS` under `subtype_clear`). The definition
is now an untracked `bytes` object held by the builtin's own `self`.
"""

import gc

import numpy as np

from adlite.compiler import jit
from adlite.compiler.backends.llvm.jit import native_of
from adlite.compiler.backends.llvm.pywrapper import PyMethodDef


def kernel(x):
    return np.sum(x * x)


def test_the_builtin_holds_its_own_method_definition():
    f = jit(kernel)
    f(np.ones(3))
    (run, _), = f.cache.values()
    native = native_of(run)
    for builtin in (native.call, native.strict_entry(native._ctypes_call)):
        held = builtin.__self__[-1]
        assert type(held) is bytes and not gc.is_tracked(held)  # never cleared by the collector
        definition = PyMethodDef.from_buffer_copy(held)
        assert definition.ml_name.endswith(b"kernel")
        assert definition.ml_meth


def test_collected_entry_points_leave_the_process_sound():
    for n in range(2, 40):
        f = jit(kernel)
        assert f(np.ones(n)) == n
        del f
        gc.collect()
    assert jit(kernel)(np.arange(3.0)) == 5.0
