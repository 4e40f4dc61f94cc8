"""JIT compilation of LLVM modules with MCJIT at O3 for the host CPU, and the call wrapper.

Contract: `jit_module(module, name, in_types, out_types)` optimises the module with the new
pass manager (loop and SLP vectorisation on, host CPU features), creates an MCJIT engine and
returns a `NativeFunction` that takes Python scalars, returns a tuple of Python scalars and
turns nonzero statuses into Python exceptions (MemoryError, ZeroDivisionError, ValueError).
Only symbols that resolve in this process are called (libm and libc, loaded explicitly), so
MCJIT never jumps to an unresolved address. The object code can be cached: `object_code` is
what `jit_object` loads back. `name` is the module's private symbol (`lower.symbol_name`).
A compilation keeps no native memory once its function is dropped: the pass managers and
target machines it creates are freed before it returns.
"""

from __future__ import annotations

import ctypes
import ctypes.util

import llvmlite.binding as llvm
import numpy as np
from llvmlite.binding.newpassmanagers import NewPassManager

from . import interrupt
from .pywrapper import PYTHON_SYMBOLS, add_python_wrapper, make_builtin
from .status import ERRORS, INTERRUPTED

_initialized = False


def initialize() -> None:
    global _initialized
    if not _initialized:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.initialize_native_asmparser()
        for lib in ("m", "c"):
            path = ctypes.util.find_library(lib)
            if path:
                llvm.load_library_permanently(path)
        _initialized = True


def host_target_machine(jit: bool = True):
    initialize()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                        features=llvm.get_host_cpu_features().flatten(),
                                        opt=3, jit=jit,
                                        reloc="default" if jit else "pic",
                                        codemodel="jitdefault" if jit else "default")


def optimize(module_ref, tm) -> None:
    """Run the O3 pipeline (loop and SLP vectorisation on) over `module_ref`, freeing every
    pass-manager object before returning. llvmlite's `ModulePassManager.close()` frees
    nothing (its method resolution order picks `ObjectRef`'s empty `_dispose`), which leaked
    the whole pipeline, about 55 KB per compilation, so the pass manager is disposed of here."""
    with llvm.create_pipeline_tuning_options(speed_level=3) as pto:
        pto.loop_vectorization = True
        pto.slp_vectorization = True
        with llvm.create_pass_builder(tm, pto) as pb:
            mpm = pb.getModulePassManager()
            try:
                mpm.run(module_ref, pb)
            finally:
                NewPassManager._dispose(mpm)
                mpm.detach()


def parse_and_optimize(ir_text: str, tm):
    module_ref = llvm.parse_assembly(ir_text)
    module_ref.verify()
    module_ref.triple = tm.triple
    module_ref.data_layout = str(tm.target_data)
    optimize(module_ref, tm)
    return module_ref



C_TYPES = {"f64": ctypes.c_double, "f32": ctypes.c_float, "i64": ctypes.c_int64,
           "bool": ctypes.c_int64}
NP_DTYPES = {"f64": np.float64, "f32": np.float32}


def python_api_available() -> bool:
    """Whether the CPython C API symbols resolve in this process (they do unless Python is
    embedded without exporting them); otherwise calls go through ctypes."""
    return all(hasattr(ctypes.pythonapi, s) for s in PYTHON_SYMBOLS)


class NativeFunction:
    """A compiled graph callable from Python; keeps its engine alive.

    `call(*args)` is the fastest entry: the generated METH_FASTCALL builtin when the C API is
    available, else a ctypes call (about 2 us slower)."""

    def __init__(self, engine, name: str, in_types: list, out_types: list,
                 object_code: bytes) -> None:
        self.engine = engine
        self.object_code = object_code
        self.address = engine.get_function_address(name)
        if not self.address:
            raise RuntimeError(f"compiled function {name} not found in its module")
        wrapper = engine.get_function_address(f"py_{name}")
        if wrapper:
            self.call, self._method = make_builtin(wrapper, name, self)
        else:
            self.call = self._ctypes_call
        self.in_types, self.out_types = in_types, out_types
        scalar_outs = [t for t in out_types if not t.is_array]
        size_fn = engine.get_function_address(f"{name}_scratch")
        self._scratch = None
        if size_fn:
            size = ctypes.CFUNCTYPE(ctypes.c_int64)(size_fn)()
            self._scratch = np.empty(max(size, 64), dtype=np.uint8)  # reused by every call
        # PYFUNCTYPE keeps the GIL during the call, so the output buffers cannot race
        proto = ctypes.PYFUNCTYPE(
            ctypes.c_int32, *[ctypes.c_void_p if t.is_array else C_TYPES[t.name]
                              for t in in_types],
            *[ctypes.c_void_p if t.is_array else ctypes.POINTER(C_TYPES[t.name])
              for t in out_types], *([ctypes.c_void_p] if size_fn else []))
        self._fn = proto(self.address)
        self._outs = [C_TYPES[t.name]() for t in scalar_outs]
        interrupt.install()  # again if signal.signal(SIGINT, ...) replaced it since

    def __call__(self, *args):
        return self.call(*args)

    def _ctypes_call(self, *args):
        if len(args) != len(self.in_types):
            raise TypeError(f"expected {len(self.in_types)} arguments, got {len(args)}")
        keep, passed = [], []
        for a, t in zip(args, self.in_types, strict=True):
            if t.is_array:
                a = np.ascontiguousarray(a, dtype=NP_DTYPES[t.name])
                if a.shape != t.shape:  # never let native code read past a buffer
                    raise TypeError(f"expected an array of shape {t.shape}, got {a.shape}")
                keep.append(a)
                passed.append(a.ctypes.data)
            else:
                passed.append(a)
        results, scalars, out_args = [], iter(self._outs), []
        for t in self.out_types:
            if t.is_array:
                out = np.empty(t.shape, dtype=NP_DTYPES[t.name])
                results.append(out)
                out_args.append(out.ctypes.data)
            else:
                box = next(scalars)
                results.append(box)
                out_args.append(ctypes.byref(box))
        if self._scratch is not None:
            out_args.append(self._scratch.ctypes.data)
        status = self._fn(*passed, *out_args)
        while status == INTERRUPTED:  # no signal handler raised: start again
            interrupt.acknowledge()
            status = self._fn(*passed, *out_args)
        if status:
            error, message = ERRORS[status]
            raise error(message)
        return tuple(r if isinstance(r, np.ndarray) else
                     (bool(r.value) if t.name == "bool" else
                      np.float32(r.value) if t.name == "f32" else r.value)
                     for r, t in zip(results, self.out_types, strict=True))


def jit_module(module, name: str, in_types: list, out_types: list) -> NativeFunction:
    scalar_only = not any(t.is_array for t in in_types + out_types)
    if python_api_available() and scalar_only:
        add_python_wrapper(module, name, [t.name for t in in_types],
                           [t.name for t in out_types])
    with host_target_machine() as tm:
        object_code = tm.emit_object(parse_and_optimize(str(module), tm))
    return jit_object(object_code, name, in_types, out_types)


def jit_object(object_code: bytes, name: str, in_types: list, out_types: list) -> NativeFunction:
    tm = host_target_machine()
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm)
    engine.add_object_file(llvm.ObjectFileRef.from_data(object_code))
    engine.finalize_object()
    return NativeFunction(engine, name, in_types, out_types, object_code)
