"""CPython entry points generated next to the native function (METH_FASTCALL).

Contract: `add_python_wrapper(module, name, in_types, out_types)` defines two functions
`ptr <prefix><name>(ptr self, ptr const *args, i64 nargs)` in `module`, for signatures that
`wraps` accepts (Python float, int and bool scalars; float64, float32, int64 and bool arrays):

- `py_<name>` (CONVERTING) unboxes scalars with the C API (`PyFloat_AsDouble`,
  `PyLong_AsLongLong`, `PyObject_IsTrue`, which raise TypeError or OverflowError for wrong
  values) and returns a tuple of the results;
- `pyx_<name>` (STRICT) takes scalars of exactly the type of the signature (`float`, `int`,
  `bool`: anything else, a numpy scalar or a subclass, may belong to another signature) and
  returns the result itself when there is one, else their tuple.

Both take an array argument only when it is exactly a `numpy.ndarray` of the signature's
dtype in native byte order and shape, C-contiguous and aligned: its buffer is passed as is
(nothing is copied). A run-time size of the signature (`ir.dims`, `shapes="dynamic"`) takes
its value from the first dimension that has it (at least MIN_SIZE and different from the
other symbols' values, as the signature says; the other dimensions that have it must equal
it): the values are passed to the native function first, and array results get their
shapes from them. For anything else (the wrong argument count, a value a strict entry does
not take, an array that needs converting or is of another signature) they call `self[0]`
with the same arguments and return what it returns (the builtin's `self` is a tuple: see
`make_builtin`), so every check and conversion that is not the common case stays in Python.
Nothing reaches native code unless every argument passed its check. Array results are new
arrays (`PyArray_New`, see numpy_api.py), made before the call for every call: results never
share memory with arguments or with an earlier call's. Array code (which defines
`<name>_scratch`) gets a scratch buffer owned by the call: on the stack up to STACK_SCRATCH
bytes, else the one the function keeps between calls (up to SCRATCH_CACHED bytes; a call
finding it taken by another call mallocs its own) or from malloc (MemoryError when that
fails). The GIL is released around the native
call (after unboxing and allocating, so other threads run Python or compiled code meanwhile)
unless the code is straight-line scalar code, which takes less time than releasing the GIL
costs. A nonzero status becomes the matching Python exception: INTERRUPTED runs the signal
handlers and starts again if none raised (see interrupt.py); for any other `self[1](status)`
raises it (`jit.raise_for_status`: the table in status.py, an effect's pending exception, a
linear algebra error); results made for a failed call are released. The two entry points are
calls of one body (`entry_<name>`, compiled once without optimisation, which costs a few
nanoseconds per call and saves milliseconds per compilation), which takes whether it is
strict; the native function is never inlined into it.
`make_builtin(address, name, owner)` wraps an entry point as a Python builtin function; calls
cost about as much as calling a builtin. CPython reads a builtin's method definition when it
traverses and deallocates it, so the definition is a `bytes` object (its memory lives as long
as the object, and the collector never clears it: a ctypes structure's buffer is freed when
the collector clears a cycle holding it, even while referenced) held by the builtin's own
`self` (the owner tuple plus the definition, last); its name points into a bytes object kept
for the process."""

from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir

from ...ir.dims import is_symbolic, symbol_name, symbols_of
from ...status import INTERRUPTED, NO_MEMORY
from . import numpy_api
from .context import extent, size_admissible
from .declarations import external_global, function
from .interrupt import emit_acknowledge
from .ops import F64, I64

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
PTR = ir.PointerType()
METH_FASTCALL = 0x80
STACK_SCRATCH = 8192  # bytes of scratch a call may take from the (thread's) stack
SCRATCH_CACHED = 256 << 20  # the largest scratch buffer a function keeps between calls
CONVERTING, STRICT = "py_", "pyx_"  # the prefixes of the two entry points

SCALARS = {"f64": (F64, "PyFloat_Type"), "i64": (I64, "PyLong_Type"),
           "bool": (I64, "PyBool_Type")}  # Python float, int and bool
ARRAY_INPUTS = ("f64", "f32", "i64", "bool")
ARRAY_OUTPUTS = ("f64", "f32", "i64")


def wraps(in_types: list, out_types: list) -> bool:
    """Whether the generated entry points can take and return values of these types: scalars
    that are Python floats, ints and bools (a float32 result must stay a numpy float32), and
    arrays when numpy's C ABI is the one the entry points know (`numpy_api.available`)."""
    if any(t.is_array for t in in_types + out_types) and not numpy_api.available():
        return False
    return all(t.name in (ARRAY_INPUTS if t.is_array else SCALARS) for t in in_types) and \
        all(t.name in (ARRAY_OUTPUTS if t.is_array else SCALARS) for t in out_types)


def add_python_wrapper(module: ir.Module, name: str, in_types: list, out_types: list) -> None:
    """Define `py_<name>` and `pyx_<name>` (see the module docstring) for `in_types` and
    `out_types` (`Type`s that `wraps` accepts): two calls of one body (compiled once) that
    takes whether it is strict as an argument."""
    release_gil = f"{name}_scratch" in module.globals or any(
        _has_cycle(fn) for fn in module.functions if fn.blocks)
    # the native function stays out of line: inlining it would optimise its loops twice
    module.globals[name].attributes.add("noinline")
    body = _Entry(module, name, release_gil)
    body.build(in_types, out_types)
    for prefix, strict in ((CONVERTING, 0), (STRICT, 1)):
        fn = ir.Function(module, ir.FunctionType(PTR, [PTR, PTR, I64]), prefix + name)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        b.ret(b.call(body.fn, [*fn.args, ir.Constant(I1, strict)]))


def _i64(value: int) -> ir.Constant:
    return ir.Constant(I64, value)


class _Entry:
    """The body of the entry points under construction, `ptr entry_<name>(ptr self, ptr
    const *args, i64 nargs, i1 strict)`: its blocks are made in the order they run."""

    def __init__(self, module: ir.Module, name: str, release_gil: bool) -> None:
        self.module, self.name, self.release_gil = module, name, release_gil
        self.fn = ir.Function(module, ir.FunctionType(PTR, [PTR, PTR, I64, I1]),
                              f"entry_{name}")
        self.fn.linkage = "internal"
        self.fn.attributes.add("noinline")  # one copy for both entry points, and not
        self.fn.attributes.add("optnone")  # optimised: it is straight-line code already
        self.self_, self.args, self.nargs, self.strict = self.fn.args
        self.b = ir.IRBuilder(self.fn.append_basic_block("entry"))
        self.fallback = self.fn.append_basic_block("fallback")
        self.fail = self.fn.append_basic_block("fail")  # an exception is set, nothing owned
        self.null = ir.Constant(PTR, None)
        self.sizes: dict[str, ir.Value] = {}  # size symbol -> its value in this call

    def api(self, name: str, ret: ir.Type, args: list[ir.Type]):
        return function(self.module, name, ret, args)

    def block(self, label: str) -> ir.Block:
        return self.fn.append_basic_block(label)

    def check(self, ok, label: str, otherwise: ir.Block | None = None) -> None:
        """Go on in a new block when `ok`, else to `otherwise` (the fallback)."""
        then = self.block(label)
        self.b.cbranch(ok, then, otherwise or self.fallback)
        self.b.position_at_end(then)

    def field(self, obj, offset: int, typ: ir.Type):
        return self.b.load(self.b.gep(obj, [_i64(offset)], source_etype=I8), typ=typ)

    def build(self, in_types: list, out_types: list) -> None:
        b = self.b
        self.check(b.icmp_signed("==", self.nargs, _i64(len(in_types))), "count_ok")
        values = [self.argument(i, t) for i, t in enumerate(in_types)]
        owned = [b.alloca(PTR) for _ in out_types]  # the array results made
        for slot in owned:
            b.store(self.null, slot)
        self.cleanup = self.block("cleanup")  # release the results made, then fail
        outputs = [self.output(i, t, owned) for i, t in enumerate(out_types)]
        sizes = [self.sizes[name] for name in symbols_of(t.shape for t in in_types)]
        status = self.call(sizes + values + outputs)
        called = b.block
        error = self.statuses(status)
        b.position_at_end(called)
        self.check(b.icmp_signed("==", status, ir.Constant(I32, 0)), "ok", error)
        b.ret(self.results(out_types, outputs, owned))
        self.finish(owned)

    # ---- arguments ---------------------------------------------------------------------------

    def argument(self, i: int, t):
        obj = self.b.load(self.b.gep(self.args, [_i64(i)], source_etype=PTR), typ=PTR)
        return self.array(i, t, obj) if t.is_array else self.scalar(i, t, obj)

    def scalar(self, i: int, t, obj):
        b = self.b
        exact = external_global(self.module, SCALARS[t.name][1], I8)
        same = b.icmp_unsigned("==", self.field(obj, numpy_api.ARRAY["type"], PTR), exact)
        self.check(b.or_(b.not_(self.strict), same), f"arg{i}_type")
        if t.name == "f64":
            v = b.call(self.api("PyFloat_AsDouble", F64, [PTR]), [obj])
            maybe = b.fcmp_ordered("==", v, ir.Constant(F64, -1.0))
        elif t.name == "i64":
            v = b.call(self.api("PyLong_AsLongLong", I64, [PTR]), [obj])
            maybe = b.icmp_signed("==", v, _i64(-1))
        else:
            truth = b.call(self.api("PyObject_IsTrue", I32, [PTR]), [obj])
            maybe = b.icmp_signed("<", truth, ir.Constant(I32, 0))
            v = b.zext(b.icmp_signed(">", truth, ir.Constant(I32, 0)), I64)
        check = self.block(f"arg{i}_check")
        done = self.block(f"arg{i}_ok")
        b.cbranch(maybe, check, done)
        b.position_at_end(check)
        raised = b.icmp_unsigned("!=", b.call(self.api("PyErr_Occurred", PTR, []), []),
                                 self.null)
        self.check(raised, f"arg{i}_raised", done)
        clear = self.block(f"arg{i}_clear")  # strict: the fallback raises Python's error
        b.cbranch(self.strict, clear, self.fail)  # (e.g. for an int out of range)
        b.position_at_end(clear)
        b.call(self.api("PyErr_Clear", ir.VoidType(), []), [])
        b.branch(self.fallback)
        b.position_at_end(done)
        return v

    def array(self, i: int, t, obj):
        """The data pointer of `obj`, an exact ndarray of `t`'s dtype and shape, C-contiguous
        and aligned (the fallback otherwise). Its fields are read once its type is known."""
        b, a, d = self.b, numpy_api.ARRAY, numpy_api.DESCR
        ndarray = external_global(self.module, numpy_api.PYARRAY_TYPE, I8)
        self.check(b.icmp_unsigned("==", self.field(obj, a["type"], PTR), ndarray),
                   f"arg{i}_ndarray")
        descr = self.field(obj, a["descr"], PTR)
        order = ord(np.dtype(numpy_api.DTYPES[t.name]).byteorder)
        wanted = numpy_api.C_CONTIGUOUS | numpy_api.ALIGNED
        flags = b.and_(self.field(obj, a["flags"], I32), ir.Constant(I32, wanted))
        tests = [(self.field(descr, d["type_num"], I32), numpy_api.type_num(t.name)),
                 (self.field(descr, d["byteorder"], I8), order),
                 (self.field(obj, a["ndim"], I32), len(t.shape)), (flags, wanted)]
        ok = ir.Constant(ir.IntType(1), 1)
        for value, expected in tests:
            ok = b.and_(ok, b.icmp_signed("==", value, ir.Constant(value.type, expected)))
        self.check(ok, f"arg{i}_dtype")
        if t.shape:  # the dimensions exist: ndim matched
            dims = self.field(obj, a["dims"], PTR)
            same = ir.Constant(ir.IntType(1), 1)
            for k, n in enumerate(t.shape):
                size = self.field(dims, 8 * k, I64)
                same = b.and_(same, self.size_matches(size, n))
            self.check(same, f"arg{i}_shape")
        return self.field(obj, a["data"], PTR)

    def size_matches(self, size, n):
        """Whether an argument's dimension `size` is `n`: a static size, or a size symbol
        (`ir.dims`: the first occurrence binds it, at least MIN_SIZE and different from the
        other symbols' sizes; later ones must equal it)."""
        b = self.b
        if not is_symbolic(n):
            return b.icmp_signed("==", size, _i64(n))
        name = symbol_name(n)  # an argument's dimension: a size or a symbol (dynamic_trees)
        if name in self.sizes:
            return b.icmp_signed("==", size, self.sizes[name])
        ok = size_admissible(b, size, self.sizes.values())
        self.sizes[name] = size
        return ok

    # ---- results and the call ----------------------------------------------------------------

    def output(self, i: int, t, owned):
        """Where the native function writes result `i`: a stack slot for a scalar, the data
        of a new array (kept in `owned`) for an array."""
        b = self.b
        if not t.is_array:
            with b.goto_entry_block():
                return b.alloca(F64 if t.name == "f64" else I64)
        dims = ir.ArrayType(I64, max(1, len(t.shape)))
        if symbols_of([t.shape]):  # run-time sizes: the shape is computed per call
            with b.goto_entry_block():
                shape = b.alloca(dims)
            for k, n in enumerate(t.shape):
                b.store(extent(self, n), b.gep(shape, [_i64(0), ir.Constant(I32, k)]))
        else:
            shape = ir.GlobalVariable(self.module, dims, f"{self.name}_shape{i}")
            shape.global_constant, shape.linkage = True, "internal"
            shape.initializer = ir.Constant(dims, list(t.shape) or [0])
        new = self.api(numpy_api.PYARRAY_NEW, PTR,
                       [PTR, I32, PTR, I32, PTR, PTR, I32, I32, PTR])
        array = b.call(new, [external_global(self.module, numpy_api.PYARRAY_TYPE, I8),
                             ir.Constant(I32, len(t.shape)), shape,
                             ir.Constant(I32, numpy_api.type_num(t.name)), self.null,
                             self.null, ir.Constant(I32, 0), ir.Constant(I32, 0), self.null])
        b.store(array, owned[i])
        self.check(b.icmp_unsigned("!=", array, self.null), f"result{i}_made", self.cleanup)
        return self.field(array, numpy_api.ARRAY["data"], PTR)

    def call(self, args: list):
        """The native call (made again after an interrupt no handler raised for)."""
        b, module = self.b, self.module
        self.again = self.block("call")
        b.branch(self.again)
        b.position_at_end(self.again)
        core = module.globals[self.name]
        if self.release_gil:
            thread = b.call(self.api("PyEval_SaveThread", PTR, []), [])
        scratch_size = module.globals.get(f"{self.name}_scratch")
        if scratch_size is None:
            status = b.call(core, args)
        else:
            status = _call_with_scratch(b, module, core, args, scratch_size)
        if self.release_gil:
            b.call(self.api("PyEval_RestoreThread", ir.VoidType(), [PTR]), [thread])
        return status

    def statuses(self, status) -> ir.Block:
        """The blocks raising the exception of a nonzero `status` (returns the first):
        INTERRUPTED starts the call again unless a signal handler raised; `self[1](status)`
        raises the exception of any other."""
        b = self.b
        first = self.block("status_error")
        b.position_at_end(first)
        interrupted = self.block("interrupted")
        other = self.block("status_other")
        b.cbranch(b.icmp_signed("==", status, ir.Constant(I32, INTERRUPTED)), interrupted, other)
        b.position_at_end(interrupted)
        emit_acknowledge(self.module, b, self.again, self.cleanup)
        b.position_at_end(other)
        code = b.call(self.api("PyLong_FromLongLong", PTR, [I64]), [b.sext(status, I64)])
        self.check(b.icmp_unsigned("!=", code, self.null), "status_boxed", self.cleanup)
        with b.goto_entry_block():
            box = b.alloca(PTR)
        b.store(code, box)
        raised = b.call(self.vectorcall(), [self.item_of_self(1), box, _i64(1), self.null])
        decref = self.api("Py_DecRef", ir.VoidType(), [PTR])
        b.call(decref, [code])
        b.call(decref, [raised])
        b.branch(self.cleanup)
        return first

    def results(self, out_types: list, outputs: list, owned):
        b = self.b
        boxes = []
        for i, (t, where) in enumerate(zip(out_types, outputs, strict=True)):
            if t.is_array:
                boxes.append(b.load(owned[i], typ=PTR))
            elif t.name == "f64":
                boxes.append(b.call(self.api("PyFloat_FromDouble", PTR, [F64]),
                                    [b.load(where, typ=F64)]))
            elif t.name == "i64":
                boxes.append(b.call(self.api("PyLong_FromLongLong", PTR, [I64]),
                                    [b.load(where, typ=I64)]))
            else:
                boxes.append(b.call(self.api("PyBool_FromLong", PTR, [I64]),
                                    [b.load(where, typ=I64)]))
        if len(boxes) == 1:  # strict: the result itself
            single, pack = self.block("single"), self.block("pack")
            b.cbranch(self.strict, single, pack)
            b.position_at_end(single)
            b.ret(boxes[0])
            b.position_at_end(pack)
        result = b.call(self.api("PyTuple_New", PTR, [I64]), [_i64(len(boxes))])
        for i, box in enumerate(boxes):  # a NULL box (no memory) leaves NULL: the tuple fails
            b.call(self.api("PyTuple_SetItem", I32, [PTR, I64, PTR]), [result, _i64(i), box])
        return result

    def item_of_self(self, i: int):
        return self.b.call(self.api("PyTuple_GetItem", PTR, [PTR, I64]), [self.self_, _i64(i)])

    def vectorcall(self):
        return self.api("PyObject_Vectorcall", PTR, [PTR, PTR, I64, PTR])

    def finish(self, owned: list) -> None:
        b = self.b
        b.position_at_end(self.cleanup)
        for slot in owned:
            b.call(self.api("Py_DecRef", ir.VoidType(), [PTR]), [b.load(slot, typ=PTR)])
        b.branch(self.fail)
        b.position_at_end(self.fail)
        b.ret(self.null)
        b.position_at_end(self.fallback)
        b.ret(b.call(self.vectorcall(), [self.item_of_self(0), self.args, self.nargs,
                                         self.null]))


def _successors(block: ir.Block) -> list[ir.Block]:
    term = block.terminator
    cases = [target for _, target in getattr(term, "cases", [])]
    default = [term.default] if isinstance(term, ir.SwitchInstr) else []
    return [op for op in term.operands if isinstance(op, ir.Block)] + default + cases


def _has_cycle(fn: ir.Function) -> bool:
    """Whether the control flow of `fn` has a cycle (a loop): depth-first search for an edge
    back to a block on the current path."""
    entry = fn.entry_basic_block
    on_path, done = {entry}, set()
    stack = [(entry, iter(_successors(entry)))]
    while stack:
        block, successors = stack[-1]
        for succ in successors:
            if succ in on_path:
                return True
            if succ not in done:
                on_path.add(succ)
                stack.append((succ, iter(_successors(succ))))
                break
        else:
            stack.pop()
            on_path.discard(block)
            done.add(block)
    return False


def _call_with_scratch(b: ir.IRBuilder, module: ir.Module, core, args: list, scratch_size):
    """Call `core(*args, scratch)` with a scratch buffer owned by this call: on the stack up
    to STACK_SCRATCH bytes, else from the function's cache (one buffer, taken by an atomic
    exchange, so concurrent calls never share one) or, when another call holds it, from
    malloc (NO_MEMORY when malloc fails). After the call the buffer goes back to the cache
    (freeing the one another call left there) when it is at most SCRATCH_CACHED bytes: a
    large scratch malloc'ed per call is memory glibc maps and unmaps, faulting every page
    in again on each call (15 ms for the 42 MB of an embedding gradient). The size is a
    constant, so the optimiser keeps the paths it needs."""
    fn = b.function
    size = b.call(scratch_size, [])
    with b.goto_entry_block():
        stack = b.alloca(ir.ArrayType(I8, STACK_SCRATCH))
        stack.align = 64
    cache = ir.GlobalVariable(module, I64, f"{core.name}_scratch_cache")
    cache.linkage, cache.initializer = "internal", ir.Constant(I64, 0)
    before = b.block
    heap, fresh, run, done = (fn.append_basic_block(f"scratch_{n}")
                              for n in ("heap", "fresh", "run", "done"))
    b.cbranch(b.icmp_unsigned("<=", size, _i64(STACK_SCRATCH)), run, heap)
    b.position_at_end(heap)
    cached = b.inttoptr(b.atomic_rmw("xchg", cache, _i64(0), "acq_rel"), PTR)
    b.cbranch(b.icmp_unsigned("==", cached, ir.Constant(PTR, None)), fresh, run)
    b.position_at_end(fresh)
    allocated = b.call(function(module, "malloc", PTR, [I64]), [size])
    b.cbranch(b.icmp_unsigned("==", allocated, ir.Constant(PTR, None)), done, run)
    b.position_at_end(run)
    owned = b.phi(PTR)  # what to give back: null when the stack is used
    owned.add_incoming(ir.Constant(PTR, None), before)
    owned.add_incoming(cached, heap)
    owned.add_incoming(allocated, fresh)
    buffer = b.phi(PTR)
    buffer.add_incoming(stack, before)
    buffer.add_incoming(cached, heap)
    buffer.add_incoming(allocated, fresh)
    result = b.call(core, args + [buffer])
    keep = b.and_(b.icmp_unsigned("!=", owned, ir.Constant(PTR, None)),
                  b.icmp_unsigned("<=", size, _i64(SCRATCH_CACHED)))
    kept = b.select(keep, b.ptrtoint(owned, I64), _i64(0))
    previous = b.atomic_rmw("xchg", cache, kept, "acq_rel")
    released = b.select(keep, b.inttoptr(previous, PTR), owned)  # free(NULL) does nothing
    b.call(function(module, "free", ir.VoidType(), [PTR]), [released])
    b.branch(done)
    b.position_at_end(done)
    status = b.phi(I32)
    status.add_incoming(ir.Constant(I32, NO_MEMORY), fresh)
    status.add_incoming(result, run)
    return status


class PyMethodDef(ctypes.Structure):
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p),
                ("ml_flags", ctypes.c_int), ("ml_doc", ctypes.c_char_p)]


_new_builtin = ctypes.pythonapi.PyCFunction_NewEx
_new_builtin.restype = ctypes.py_object
_new_builtin.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.c_void_p]


_NAMES: dict[str, bytes] = {}  # the builtins' names, never freed (a method definition's
# name must stay valid while any builtin using it lives)


def make_builtin(address: int, name: str, owner: tuple):
    """A Python builtin calling the entry point at `address`. Its `self` is `owner` (the
    fallback, the raiser of statuses, what keeps the machine code alive) followed by the
    method definition (bytes)."""
    definition = bytes(PyMethodDef(_NAMES.setdefault(name, name.encode()), address,
                                   METH_FASTCALL, None))
    pointer = ctypes.cast(ctypes.c_char_p(definition), ctypes.c_void_p).value  # its buffer
    return _new_builtin(pointer, (*owner, definition), None)


PYTHON_SYMBOLS = ("PyFloat_AsDouble", "PyLong_AsLongLong", "PyObject_IsTrue", "PyErr_Occurred",
                  "PyErr_Clear", "PyTuple_New", "PyTuple_SetItem", "PyTuple_GetItem",
                  "PyFloat_FromDouble", "PyLong_FromLongLong", "PyBool_FromLong",
                  "PyEval_SaveThread", "PyEval_RestoreThread", "PyErr_CheckSignals",
                  "PyObject_Vectorcall", "Py_DecRef", "PyFloat_Type", "PyLong_Type",
                  "PyBool_Type")
