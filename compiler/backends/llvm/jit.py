"""JIT compilation of LLVM modules with MCJIT at O3 for the host CPU, and the call wrapper.

Contract: `jit_module(module, name, in_types, out_types)` optimises the module with the new
pass manager (loop and SLP vectorisation on, loops with in-order float sums included, host
CPU features; for very long basic blocks
SLP off and the blocks split before code generation, see blocks.py), creates an MCJIT engine and
returns a `NativeFunction` that takes Python scalars and numpy arrays, returns a tuple of
Python scalars (numpy float32 for f32) and new arrays, and turns nonzero statuses into Python
exceptions (the table in status.py). Calls from several threads are safe and run in parallel:
the GIL is released while native code runs, every call owns its outputs, and scratch buffers
are per call or per thread. Int arguments are range-checked (OverflowError, never reduced mod
2**64). A call interrupted by Ctrl-C (status INTERRUPTED, see interrupt.py) lets Python run
its SIGINT handler and starts again if the handler did not raise. Only symbols that resolve
in this process are called (libm and libc, loaded explicitly; CPython's and numpy's C API for
the generated entry points, see pywrapper.py and numpy_api.py), so MCJIT never jumps to an
unresolved address. `native_of(call)` finds the `NativeFunction` of a generated entry point.
The object code can be cached: `object_code` is what `jit_object` loads back (code that
calls the thread pool links it first: threads.py; scipy's C functions are bound by name
before any object is linked: scipy_capi.py). `name` is the
module's private symbol (`lower.symbol_name`). A compilation keeps no native memory once its
function is dropped: the pass managers and target machines it creates are freed before it returns.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import operator
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple, NoReturn

import llvmlite.binding as llvm
import numpy as np
from llvmlite.binding.newpassmanagers import NewPassManager

from ... import log
from ...ir import dtypes
from ...ir.dims import bind_sizes, evaluate, symbols_of
from ...status import (
    ERRORS,
    INTERRUPTED,
    NO_MEMORY,
    NOT_POSITIVE_MINOR,
    PENDING,
    SINGULAR_DIAGONAL,
    linalg_message,
)
from . import effects, fft, interrupt, numpy_api, scipy_capi, threads, tiers, vector_math
from .blocks import SLP_LIMIT, longest_block, split_long_blocks
from .pywrapper import (
    CONVERTING,
    PYTHON_SYMBOLS,
    STRICT,
    add_python_wrapper,
    make_builtin,
    wraps,
)

_initialized = False


def initialize() -> None:
    """Once per process, on first use (never at import): LLVM's native target, libm and libc,
    and adlite's own symbols (`interrupt.register`)."""
    global _initialized
    if not _initialized:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.initialize_native_asmparser()
        llvm.set_option("", vector_math.ORDERED_REDUCTIONS)
        for lib in ("m", "c"):
            path = ctypes.util.find_library(lib)
            if path:
                llvm.load_library_permanently(path)
        interrupt.register()
        effects.register()
        numpy_api.register()
        _initialized = True


def host_target_machine(jit: bool = True, opt: int = 3):
    """The host CPU's target machine; `opt` is code generation's level (0: the fast
    instruction selector and register allocator of the quick tier, see tiers.py)."""
    initialize()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                        features=llvm.get_host_cpu_features().flatten(),
                                        opt=opt, jit=jit,
                                        reloc="default" if jit else "pic",
                                        codemodel="jitdefault" if jit else "default")


def optimize(module_ref, tm, slp: bool = True) -> None:
    """Run the O3 pipeline (loop vectorisation on, SLP vectorisation when `slp`) over
    `module_ref`, freeing every
    pass-manager object before returning. llvmlite's `ModulePassManager.close()` frees
    nothing (its method resolution order picks `ObjectRef`'s empty `_dispose`), which leaked
    the whole pipeline, about 55 KB per compilation, so the pass manager is disposed of here."""
    with llvm.create_pipeline_tuning_options(speed_level=3) as pto:
        pto.loop_vectorization = True
        pto.slp_vectorization = slp
        with llvm.create_pass_builder(tm, pto) as pb:
            mpm = pb.getModulePassManager()
            try:
                mpm.run(module_ref, pb)
            finally:
                NewPassManager._dispose(mpm)
                mpm.detach()


def parse_and_optimize(ir_text: str, tm):
    """The optimised module, its very long blocks split for code generation (without SLP
    vectorisation when a block is longer than `blocks.SLP_LIMIT`, see `blocks.py`)."""
    module_ref = _parse(ir_text, tm)
    optimize(module_ref, tm, slp=longest_block(ir_text) <= SLP_LIMIT)
    split = split_long_blocks(str(module_ref))
    return module_ref if split is None else _parse(split, tm)


def _parse(ir_text: str, tm):
    module_ref = llvm.parse_assembly(ir_text)
    module_ref.verify()
    module_ref.triple = tm.triple
    module_ref.data_layout = str(tm.target_data)
    return module_ref



C_TYPES = {dtypes.F64: ctypes.c_double, dtypes.F32: ctypes.c_float, dtypes.I64: ctypes.c_int64,
           dtypes.BOOL: ctypes.c_int64}
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


def python_api_available() -> bool:
    """Whether the CPython C API symbols resolve in this process (they do unless Python is
    embedded without exporting them); otherwise calls go through ctypes."""
    return all(hasattr(ctypes.pythonapi, s) for s in PYTHON_SYMBOLS)


def raise_for_status(status: int) -> NoReturn:
    """Raise the exception of a nonzero status returned by native code, for the ctypes path
    and the generated entry points alike (PENDING: the exception an effect of the user's code
    left, see effects.py; the linear algebra's: numpy's LinAlgError, see linalg.py)."""
    if status == PENDING:
        effects.raise_pending()
    if linalg_message(status) is not None:
        raise np.linalg.LinAlgError(_library_message(status) or linalg_message(status))
    error, message = ERRORS[status]
    raise error(message)


def _library_message(status: int) -> str | None:
    """The message scipy itself gives for the failure `status` reports (its wording changes
    between releases: scipy 1.18 says "Internal potrf return info = [2] for slices [0]."),
    found by running scipy on a matrix that fails the same way; None for other statuses."""
    import scipy.linalg

    if SINGULAR_DIAGONAL <= status < NOT_POSITIVE_MINOR:
        k = status - SINGULAR_DIAGONAL  # the 0-based index of the zero on the diagonal
        a = np.diag([1.0] * k + [0.0])
        fails = functools.partial(scipy.linalg.solve_triangular, a, np.ones(k + 1))
    elif NOT_POSITIVE_MINOR <= status < 3 << 20:
        k = status - NOT_POSITIVE_MINOR  # the order of the leading minor
        fails = functools.partial(scipy.linalg.cholesky, np.diag([1.0] * (k - 1) + [-1.0]))
    else:
        return None
    try:
        fails(check_finite=False)
    except np.linalg.LinAlgError as e:
        return str(e)
    return None


def as_int64(value) -> int:
    """`value` as an int64 argument, as `PyLong_AsLongLong` converts it in the generated entry
    point: through `__index__` (TypeError otherwise), OverflowError outside the int64 range
    (ctypes alone would silently reduce it mod 2**64)."""
    value = operator.index(value)
    if INT64_MIN <= value <= INT64_MAX:
        return value
    raise OverflowError("int too big to convert")


def _converter(t) -> Callable:
    """The conversion of an argument of type `t`, the same as the generated entry point's:
    `PyFloat_AsDouble` (by ctypes), `PyLong_AsLongLong`, `PyObject_IsTrue`; arrays become
    contiguous arrays of the expected dtype and shape."""
    if not t.is_array:
        return {dtypes.F64: ctypes.c_double, dtypes.F32: ctypes.c_float, dtypes.I64: as_int64,
                dtypes.BOOL: bool}[t.dtype]

    def convert(a):
        return np.ascontiguousarray(a, dtype=t.dtype.numpy)
    return convert


def _scalar_reader(t) -> Callable:
    if t.name == "bool":
        return lambda box: bool(box.value)
    if t.name == "f32":
        return lambda box: np.float32(box.value)
    return lambda box: box.value


class NativeFunction:
    """A compiled graph callable from Python; keeps its engine alive.

    `call(*args)` is the fastest entry: the generated METH_FASTCALL builtin (pywrapper's
    converting entry point) when the C API is available and the signature's types are ones it
    takes (`pywrapper.wraps`), else a ctypes call; the builtin hands every call it does not
    take (an array to convert, a wrong argument count) to the ctypes call, which converts or
    refuses. `strict_entry(fallback)` is the entry point taking exactly this signature's
    argument types. All release the GIL while native code runs (but for straight-line scalar
    code), so calls from several threads run in parallel: every call owns its output buffers,
    and the scratch buffer of array code is per call (generated entry point) or per thread
    (ctypes; a thread runs one native call at a time: native code calls back into Python only
    for the user's `print` and failed checks, which do not call it again)."""

    def __init__(self, engine, name: str, in_types: list, out_types: list,
                 object_code: bytes, forwarded: tuple[str, ...] = ()) -> None:
        self.engine = engine
        self.object_code = object_code
        self.name = name
        self.in_types, self.out_types = in_types, out_types
        self._symbols = symbols_of(t.shape for t in in_types)  # sizes passed first
        self.optimised: _Engine | None = None  # the swapped-in tier
        self._forwarded = forwarded  # entry points forwarding to it (tiers.py)
        self._kernel = self._kernel_of(engine)
        self._thread = threading.local()  # .scratch: (size, argument, buffer) of this thread
        self._convert = [_converter(t) for t in in_types]
        self._read = [None if t.is_array else _scalar_reader(t) for t in out_types]
        wrapper = engine.get_function_address(CONVERTING + name)
        self.call = self._builtin(wrapper, self._ctypes_call) if wrapper else \
            self._ctypes_call
        interrupt.install()  # again if signal.signal(SIGINT, ...) replaced it since

    def _kernel_of(self, engine) -> tuple[Callable, int | None]:
        """The ctypes function of this signature's kernel in `engine`, and its scratch size
        (None: it takes no scratch buffer)."""
        address = engine.get_function_address(self.name)
        if not address:
            raise RuntimeError(f"compiled function {self.name} not found in its module")
        size_fn = engine.get_function_address(f"{self.name}_scratch")
        size = ctypes.CFUNCTYPE(ctypes.c_int64)(size_fn)() if size_fn else None
        # CFUNCTYPE releases the GIL during the call
        fn = ctypes.CFUNCTYPE(
            ctypes.c_int32, *[ctypes.c_int64] * len(self._symbols),
            *[ctypes.c_void_p if t.is_array else C_TYPES[t.dtype] for t in self.in_types],
            *[ctypes.c_void_p if t.is_array else ctypes.POINTER(C_TYPES[t.dtype])
              for t in self.out_types], *([ctypes.c_void_p] if size_fn else []))(address)
        return fn, size

    def adopt(self, optimised: _Engine) -> None:
        """Swap in the optimised tier of this function (tiers.py): the generated entry points
        forward to its entry points from the next call on, the ctypes path calls its kernel.
        Any thread may call it, once."""
        kernel = self._kernel_of(optimised.engine)
        self.optimised = optimised
        self.object_code = optimised.object_code
        self._kernel = kernel
        for entry in self._forwarded:
            slot = self.engine.get_global_value_address(tiers.slot_name(entry))
            target = optimised.engine.get_function_address(entry)
            if slot and target:  # an aligned 8-byte store: the entries read it atomically
                ctypes.c_void_p.from_address(slot).value = target

    def _builtin(self, address: int, fallback: Callable) -> Callable:
        return make_builtin(address, self.name, (fallback, raise_for_status, self))

    def strict_entry(self, fallback: Callable) -> Callable | None:
        """The generated entry point taking arguments of exactly this signature's types
        (see pywrapper), calling `fallback(*args)` for any other call; None when this
        signature has no generated entry point."""
        address = self.engine.get_function_address(STRICT + self.name)
        return self._builtin(address, fallback) if address else None

    def __call__(self, *args):
        return self.call(*args)

    def _scratch(self, size: int | None) -> tuple:
        """The scratch argument of array code: this thread's buffer of `size` bytes,
        allocated on first use (again when the optimised tier needs another size)."""
        if size is None:
            return ()
        held = getattr(self._thread, "scratch", None)
        if held is None or held[0] != size:
            try:
                buffer = np.empty(max(size, 64), dtype=np.uint8)
            except MemoryError:
                raise_for_status(NO_MEMORY)  # as the generated entry point reports it
            held = self._thread.scratch = (size, (buffer.ctypes.data,), buffer)
        return held[1]

    def _sizes(self, inputs: list) -> dict[str, int]:
        """The values of the size symbols for these converted inputs (`dims.bind_sizes`);
        a TypeError for arrays of other shapes (native code never reads past a buffer)."""
        arrays = [(t.shape, a.shape) for t, a in zip(self.in_types, inputs, strict=True)
                  if t.is_array]
        sizes = bind_sizes([s for s, _ in arrays], [s for _, s in arrays])
        if sizes is None:
            expected = ", ".join(str(s) for s, _ in arrays)
            got = ", ".join(str(s) for _, s in arrays)
            raise TypeError(f"expected arrays of shapes {expected}, got {got}")
        return sizes

    def _ctypes_call(self, *args):
        if len(args) != len(self.in_types):
            raise TypeError(f"{self.name}() takes {len(self.in_types)} positional arguments "
                            f"but {len(args)} were given")
        fn, size = self._kernel  # one tier for the whole call
        # the argument lists keep the arrays alive until the call returns
        inputs = [convert(a) for convert, a in zip(self._convert, args, strict=True)]
        sizes = self._sizes(inputs)
        outputs = [np.empty(tuple(evaluate(n, sizes) for n in t.shape), dtype=t.dtype.numpy)
                   if t.is_array else C_TYPES[t.dtype]() for t in self.out_types]
        passed = [sizes[s] for s in self._symbols] + [
            a.ctypes.data if isinstance(a, np.ndarray) else a for a in inputs + outputs]
        status = fn(*passed, *self._scratch(size))
        while status == INTERRUPTED:  # no signal handler raised: start again
            interrupt.acknowledge()
            status = fn(*passed, *self._scratch(size))
        if status:
            raise_for_status(status)
        return tuple(out if read is None else read(out)
                     for out, read in zip(outputs, self._read, strict=True))


class _Engine(NamedTuple):
    """The optimised tier's object code, loaded in an engine of its own."""

    engine: Any
    object_code: bytes


def jit_module(module, name: str, in_types: list, out_types: list,
               store: Callable[[bytes], None] | None = None) -> NativeFunction:
    """The native function of `module` (see the module doc) built as `tiers.mode()` says;
    `store(object_code)` is called with the O3 code once it exists (not for `fast`). The
    module is consumed: its functions are emptied once its text is taken."""
    entries = []
    if python_api_available() and wraps(in_types, out_types):
        add_python_wrapper(module, name, in_types, out_types)
        entries = [CONVERTING + name, STRICT + name]
    text = str(module)
    signatures = []
    for entry in entries:
        t = module.get_global(entry).function_type
        signatures.append((entry, str(t.return_type), [str(a) for a in t.args]))
    _release(module)
    setting = tiers.mode()
    if setting == "full":
        object_code = optimised_object(text)[0]
        native = jit_object(object_code, name, in_types, out_types)
        if store is not None:
            store(object_code)
        return native
    if setting == "tiered":
        quick_text = tiers.with_forwarders(text, signatures)
    else:
        quick_text, entries = text, []
    with host_target_machine(opt=0) as tm:
        with log.stage("codegen"):
            object_code = tm.emit_object(_parse(quick_text, tm))
    native = jit_object(object_code, name, in_types, out_types, tuple(entries))
    if setting == "tiered":
        tiers.submit(lambda: _optimise_in_background(native, text, store))
    return native


def _release(module) -> None:
    """Empty `module`'s functions, once its text is taken: llvmlite's instructions and blocks
    refer to their parents, so a module left whole is freed only by the cyclic collector, which
    then walks every instruction (a fifth of a second for a 5000-statement function)."""
    for fn in module.functions:
        for block in fn.blocks:
            block.instructions.clear()
        fn.blocks.clear()


def optimised_object(text: str) -> tuple[bytes, float, float]:
    """The O3 object code of module `text` for the host CPU (what `full` compiles), and the
    seconds spent in LLVM's passes and in code generation (also timed as the stages
    `llvm-opt` and `codegen` of the current compilation, if any)."""
    with host_target_machine() as tm:
        start = time.perf_counter()
        with log.stage("llvm-opt"):
            optimized = parse_and_optimize(text, tm)
        optimising = time.perf_counter() - start
        with log.stage("codegen"):
            object_code = tm.emit_object(optimized)
    return object_code, optimising, time.perf_counter() - start - optimising


def _optimise_in_background(native: NativeFunction, text: str,
                            store: Callable[[bytes], None] | None) -> None:
    """Have the optimising process build the O3 code of module `text`, load it and swap it
    into `native` (tiers.py)."""
    object_code, optimising, generating = tiers.optimised(text)
    native.adopt(_Engine(_engine(object_code, host_target_machine()), object_code))
    if store is not None:
        store(object_code)
    log.optimised(native.name, optimising, generating)


def jit_object(object_code: bytes, name: str, in_types: list, out_types: list,
               forwarded: tuple[str, ...] = ()) -> NativeFunction:
    with log.stage("load"):
        tm = host_target_machine()
        if threads.PARALLEL_FOR.encode() in object_code:  # it calls the pool: link it first
            threads.ensure_runtime(tm)
        return NativeFunction(_engine(object_code, tm), name, in_types, out_types,
                              object_code, forwarded)


def _engine(object_code: bytes, tm):
    """An MCJIT engine holding `object_code`, linked (the optimised tier's needs no pool
    check: its quick tier, loaded first, calls the same symbols); scipy's functions it calls
    are bound first (`scipy_capi.bind`), and so are numpy's FFT loops (`fft.bind`)."""
    scipy_capi.bind(object_code)
    fft.bind(object_code)
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm)
    engine.add_object_file(llvm.ObjectFileRef.from_data(object_code))
    engine.finalize_object()
    return engine


def native_of(call: Callable) -> NativeFunction | None:
    """The native function whose generated entry point `call` is (a `NativeFunction.call`),
    or None (Python code, the ctypes path, a Python wrapper)."""
    owner = getattr(call, "__self__", None)  # (fallback, raiser, native, method definition)
    return owner[2] if type(owner) is tuple and len(owner) == 4 and \
        isinstance(owner[2], NativeFunction) else None
