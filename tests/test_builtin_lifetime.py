"""A generated entry point's method definition lives as long as its builtin.

CPython reads a builtin's `PyMethodDef` when it traverses the builtin for the garbage
collector and when it deallocates it (`PyCFunction_GET_CLASS`); a definition freed first (it
was held by the `NativeFunction`, which sits in a reference cycle with its builtins, so the
collector may clear it first) is a use after free: a segfault "Garbage-collecting" seen once in
a full test run. The definition is now held by the builtin's own `self`, as CPython expects.
"""

import ctypes
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
        definition = builtin.__self__[-1]
        assert isinstance(definition, PyMethodDef)
        assert definition.ml_name.endswith(b"kernel")
        assert ctypes.cast(definition.ml_meth, ctypes.c_void_p).value is not None


def test_collected_entry_points_leave_the_process_sound():
    for n in range(2, 40):
        f = jit(kernel)
        assert f(np.ones(n)) == n
        del f
        gc.collect()
    assert jit(kernel)(np.arange(3.0)) == 5.0
