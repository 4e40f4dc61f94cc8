"""A CPython entry point generated next to the native function (METH_FASTCALL).

Contract: `add_python_wrapper(module, name, in_types, out_types)` defines
`ptr py_<name>(ptr self, ptr const *args, i64 nargs)` in `module`. It checks the argument
count, unboxes each argument with the C API (`PyFloat_AsDouble`, `PyLong_AsLongLong`,
`PyObject_IsTrue`, which raise TypeError for wrong types), calls the native function, turns a
nonzero status into the matching Python exception (INTERRUPTED: runs the signal handlers and
starts again if none raised, see interrupt.py), and returns a tuple of the results.
Nothing reaches native code unless every argument converted. Array code (which defines
`<name>_scratch`) gets a scratch buffer owned by the call: on the stack up to STACK_SCRATCH
bytes, else from malloc (MemoryError when that fails). The GIL is released around the native
call (after unboxing, so other threads run Python or compiled code meanwhile) unless the code
is straight-line scalar code, which takes less time than releasing the GIL costs.
`wraps(types)` tells whether the entry point handles a signature (Python float, int and bool
scalars only). `make_builtin(address, name)` wraps it as a Python builtin function; calls
cost about as much as calling a builtin."""

from __future__ import annotations

import ctypes

from llvmlite import ir

from ...status import ERRORS, INTERRUPTED, NO_MEMORY
from .declarations import external_global, function
from .interrupt import emit_acknowledge
from .ops import F64, I64

I32 = ir.IntType(32)
PTR = ir.PointerType()
METH_FASTCALL = 0x80
STACK_SCRATCH = 8192  # bytes of scratch a call may take from the (thread's) stack


def _string(module: ir.Module, name: str, text: str):
    data = bytearray(text.encode() + b"\0")
    typ = ir.ArrayType(ir.IntType(8), len(data))
    var = ir.GlobalVariable(module, typ, name)
    var.global_constant = True
    var.linkage = "internal"
    var.initializer = ir.Constant(typ, data)
    return var


WRAPPED = ("f64", "i64", "bool")  # Python float, int and bool


def wraps(types: list) -> bool:
    """Whether the generated entry point can take or return values of these types: scalars
    that are Python floats, ints and bools (a float32 result must stay a numpy float32)."""
    return all(not t.is_array and t.name in WRAPPED for t in types)


def add_python_wrapper(module: ir.Module, name: str, in_types: list[str],
                       out_types: list[str]) -> str:
    core = module.globals[name]
    scratch_size = module.globals.get(f"{name}_scratch")
    release_gil = scratch_size is not None or any(
        _has_cycle(fn) for fn in module.functions if fn.blocks)
    wrapper = ir.Function(module, ir.FunctionType(PTR, [PTR, PTR, I64]), f"py_{name}")
    _, args, nargs = wrapper.args
    entry = wrapper.append_basic_block("entry")
    fail = wrapper.append_basic_block("fail")
    b = ir.IRBuilder(entry)
    null = ir.Constant(PTR, None)
    set_error = function(module, "PyErr_SetString", ir.VoidType(), [PTR, PTR])
    occurred = function(module, "PyErr_Occurred", PTR, [])

    def raise_(exc_name, text, tag):
        b.call(set_error, [b.load(external_global(module, exc_name, PTR), typ=PTR),
                           _string(module, f"msg_{name}_{tag}", text)])
        b.ret(null)

    count_ok = wrapper.append_basic_block("count_ok")
    bad_count = wrapper.append_basic_block("bad_count")
    b.cbranch(b.icmp_signed("==", nargs, ir.Constant(I64, len(in_types))), count_ok, bad_count)
    b.position_at_end(bad_count)
    raise_("PyExc_TypeError", f"{name}() takes {len(in_types)} positional arguments",
           "count")
    b.position_at_end(count_ok)

    values = []
    for i, t in enumerate(in_types):
        obj = b.load(b.gep(args, [ir.Constant(I64, i)], source_etype=PTR), typ=PTR)
        if t == "f64":
            v = b.call(function(module, "PyFloat_AsDouble", F64, [PTR]), [obj])
            maybe = b.fcmp_ordered("==", v, ir.Constant(F64, -1.0))
        elif t == "i64":
            v = b.call(function(module, "PyLong_AsLongLong", I64, [PTR]), [obj])
            maybe = b.icmp_signed("==", v, ir.Constant(I64, -1))
        else:
            truth = b.call(function(module, "PyObject_IsTrue", I32, [PTR]), [obj])
            maybe = b.icmp_signed("<", truth, ir.Constant(I32, 0))
            v = b.zext(b.icmp_signed(">", truth, ir.Constant(I32, 0)), I64)
        check = wrapper.append_basic_block(f"check{i}")
        next_ = wrapper.append_basic_block(f"arg{i}_ok")
        b.cbranch(maybe, check, next_)
        b.position_at_end(check)
        b.cbranch(b.icmp_unsigned("!=", b.call(occurred, []), null), fail, next_)
        b.position_at_end(next_)
        values.append(v)

    slots = [b.alloca(F64 if t == "f64" else I64) for t in out_types]
    call = wrapper.append_basic_block("call")  # an interrupted call starts again here
    b.branch(call)
    b.position_at_end(call)
    if release_gil:
        thread = b.call(function(module, "PyEval_SaveThread", PTR, []), [])
    if scratch_size is None:
        status = b.call(core, values + slots)
    else:
        status = _call_with_scratch(b, module, core, values + slots, scratch_size)
    if release_gil:
        b.call(function(module, "PyEval_RestoreThread", ir.VoidType(), [PTR]), [thread])
    ok = wrapper.append_basic_block("ok")
    switch_bb = wrapper.append_basic_block("status_error")
    b.cbranch(b.icmp_signed("==", status, ir.Constant(I32, 0)), ok, switch_bb)
    b.position_at_end(switch_bb)
    switch = b.switch(status, fail)
    for code, (error, text) in ERRORS.items():
        exc = f"PyExc_{error.__name__}"
        block = wrapper.append_basic_block(f"status{code}")
        switch.add_case(ir.Constant(I32, code), block)
        b.position_at_end(block)
        if code == INTERRUPTED:  # no signal handler raised: start again
            emit_acknowledge(module, b, call, fail)
        else:
            raise_(exc, text, f"status{code}")

    b.position_at_end(ok)
    tuple_new = function(module, "PyTuple_New", PTR, [I64])
    set_item = function(module, "PyTuple_SetItem", I32, [PTR, I64, PTR])
    result = b.call(tuple_new, [ir.Constant(I64, len(out_types))])
    for i, (t, slot) in enumerate(zip(out_types, slots, strict=True)):
        if t == "f64":
            box = b.call(function(module, "PyFloat_FromDouble", PTR, [F64]),
                         [b.load(slot, typ=F64)])
        elif t == "i64":
            box = b.call(function(module, "PyLong_FromLongLong", PTR, [I64]),
                         [b.load(slot, typ=I64)])
        else:
            box = b.call(function(module, "PyBool_FromLong", PTR, [I64]),
                         [b.load(slot, typ=I64)])
        b.call(set_item, [result, ir.Constant(I64, i), box])
    b.ret(result)
    b.position_at_end(fail)
    b.ret(null)
    return wrapper.name


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
    to STACK_SCRATCH bytes, else from malloc (freed after the call; NO_MEMORY when malloc
    fails). The size is a constant, so the optimiser keeps one of the two paths."""
    fn = b.function
    size = b.call(scratch_size, [])
    with b.goto_entry_block():
        stack = b.alloca(ir.ArrayType(ir.IntType(8), STACK_SCRATCH))
        stack.align = 64
    before = b.block
    heap = fn.append_basic_block("scratch_heap")
    run = fn.append_basic_block("scratch_run")
    done = fn.append_basic_block("scratch_done")
    b.cbranch(b.icmp_unsigned("<=", size, ir.Constant(I64, STACK_SCRATCH)), run, heap)
    b.position_at_end(heap)
    allocated = b.call(function(module, "malloc", PTR, [I64]), [size])
    b.cbranch(b.icmp_unsigned("==", allocated, ir.Constant(PTR, None)), done, run)
    b.position_at_end(run)
    owned = b.phi(PTR)  # what to free: null when the stack is used
    owned.add_incoming(ir.Constant(PTR, None), before)
    owned.add_incoming(allocated, heap)
    buffer = b.phi(PTR)
    buffer.add_incoming(stack, before)
    buffer.add_incoming(allocated, heap)
    result = b.call(core, args + [buffer])
    b.call(function(module, "free", ir.VoidType(), [PTR]), [owned])
    b.branch(done)
    b.position_at_end(done)
    status = b.phi(I32)
    status.add_incoming(ir.Constant(I32, NO_MEMORY), heap)
    status.add_incoming(result, run)
    return status


class PyMethodDef(ctypes.Structure):
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p),
                ("ml_flags", ctypes.c_int), ("ml_doc", ctypes.c_char_p)]


_new_builtin = ctypes.pythonapi.PyCFunction_NewEx
_new_builtin.restype = ctypes.py_object
_new_builtin.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.c_void_p]


def make_builtin(address: int, name: str, owner):
    """A Python builtin calling the wrapper at `address`. The builtin holds a reference to
    `owner` (its `self`), which must keep the machine code and the returned method
    definition alive: returns (builtin, method definition)."""
    method = PyMethodDef(name.encode(), address, METH_FASTCALL, None)
    return _new_builtin(ctypes.addressof(method), owner, None), method


PYTHON_SYMBOLS = ("PyFloat_AsDouble", "PyLong_AsLongLong", "PyObject_IsTrue", "PyErr_Occurred",
                  "PyErr_SetString", "PyTuple_New", "PyTuple_SetItem", "PyFloat_FromDouble",
                  "PyLong_FromLongLong", "PyBool_FromLong", "PyEval_SaveThread",
                  "PyEval_RestoreThread", "PyErr_CheckSignals", "PyExc_TypeError",
                  *(f"PyExc_{error.__name__}" for error, _ in ERRORS.values()))
