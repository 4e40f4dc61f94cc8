"""Ctrl-C for compiled code: a SIGINT flag that every compiled loop polls.

CPython's SIGINT handler only records the signal for the interpreter, which looks between
bytecodes, so native code never sees it. This module adds a process-wide int32 flag and, on
Linux (x86-64, AArch64), a native SIGINT handler that first chains to the handler it replaces
(CPython's, which records the signal as usual) and then sets the flag.

Contract:
- `register()` (called once per process by `jit.initialize`, before any code is loaded, and
  by `install`) makes the private symbols `__adlite_interrupt_flag` (int32) and
  `__adlite_main_thread` (the main thread's pthread_t) resolvable by MCJIT, so object code
  that refers to them (including cached object code from another process) links, and
  registers the fork hook that keeps the main thread right in a child. Importing the module
  does neither.
- `emit_poll(cx)` emits, at the current position, one atomic (monotonic) load of the flag
  with a branch predicted not taken. When the flag is set and the code runs on the main thread
  the function leaves through its error exit (which frees the AD tapes and the loop
  allocations) with status INTERRUPTED; other threads keep running (CPython delivers
  KeyboardInterrupt to the main thread only).
- The caller of a compiled function that returned INTERRUPTED calls `acknowledge()` (or the
  code `emit_acknowledge` generates): it clears the flag and runs CPython's pending signal
  handlers (`PyErr_CheckSignals`). If a handler raised (KeyboardInterrupt by default) that
  exception propagates; otherwise the call starts again from the beginning (compiled functions
  have no side effects, so this is invisible except for the time). The same path absorbs a
  stale flag left by a SIGINT that arrived while no compiled code was running.
- `install()` puts the handler in place when SIGINT is handled by CPython's handler (not
  SIG_DFL or SIG_IGN) and ours is not already there; it is called whenever a compiled
  function is loaded. A later `signal.signal(SIGINT, ...)` replaces our handler: nothing
  breaks, compiled loops just stop being interruptible until the next compilation reinstalls
  it. The handler's machine code is never freed (a signal may arrive during shutdown). After
  `fork` the forking thread is the child's main thread.
- `make_private(module)` turns the flag into a private constant zero for code that runs
  without Python (ahead-of-time kernels): the optimiser then removes the polls.
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import platform
import sys
import threading

import llvmlite.binding as llvm
from llvmlite import ir

from ...ir.core import Const, Eqn, Graph
from ...ir.dims import is_symbolic
from ...ir.loops import While
from ...ir.transform import all_graphs
from ...status import INTERRUPTED
from .context import LoweringContext
from .declarations import external_global, function

FLAG = "__adlite_interrupt_flag"
MAIN_THREAD = "__adlite_main_thread"
PREVIOUS = "__adlite_sigint_previous"

I32 = ir.IntType(32)
I64 = ir.IntType(64)
PTR = ir.PointerType()
SIGINT = 2
SIG_DFL, SIG_IGN = 0, 1
SA_SIGINFO = 4
POLL_WEIGHTS = [1, 1 << 20]  # (interrupted, running): the poll is almost never taken

_flag = ctypes.c_int32(0)
_main_thread = ctypes.c_uint64(0)
_previous = ctypes.c_void_p(0)  # the SIGINT handler ours chains to
_registered = False


def register() -> None:
    """Once per process: make the flag, the main thread and the previous handler resolvable
    by MCJIT, and keep the main thread right after `fork`."""
    global _registered
    if _registered:
        return
    for name, cell in ((FLAG, _flag), (MAIN_THREAD, _main_thread), (PREVIOUS, _previous)):
        llvm.add_symbol(name, ctypes.addressof(cell))
    os.register_at_fork(after_in_child=_after_fork_in_child)
    _registered = True


# ---- which loops poll -----------------------------------------------------------------------

WORK_BOUND = 1 << 20  # elementary operations a loop may run between polls (milliseconds)
_STEP_SIGN = {"add": 1, "sub": -1}
_FLIPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "ne": "ne"}


def needs_poll(loop: Eqn, function: Graph) -> bool:
    """Every `while` of `function` polls, except one whose trip count is known at compile time
    and whose whole work (trip count x operations, array elements and inner loops included)
    is at most WORK_BOUND: it ends within milliseconds anyway, and without a second exit LLVM
    can unroll it. Known trip counts: `while i < N: ...; i = i + s` (<, <=, >, >=, !=) where
    N, s and the start are constants or final counters of such loops (reverse AD loops)."""
    work = _work(loop, function)
    return work is None or work > WORK_BOUND


def _work(eqn: Eqn, function: Graph) -> int | None:
    """An upper bound on the elementary operations `eqn` runs; None when unbounded (or of
    run-time sizes)."""
    inner = [_work(e, function) for g in eqn.subgraphs() for e in g.eqns]
    if None in inner:
        return None
    if eqn.prim == "while":
        trips = _trip_count(eqn, function)
        return None if trips is None else (trips + 1) * (sum(inner) + 1)
    sizes = [math.prod(a.type.shape) for a in [*eqn.inputs, *eqn.outputs] if a.type.is_array]
    if any(is_symbolic(n) for n in sizes):  # run-time sizes: no bound known when compiling
        return None
    if eqn.prim == "matmul":  # (m, k) @ (k, n): m k n multiply-adds
        sizes.append(sizes[0] * sizes[1] // eqn.inputs[0].type.shape[-1])
    return sum(inner) + max(sizes, default=1)


def _trip_count(loop: Eqn, function: Graph) -> int | None:
    view = While(loop)
    n, cond = view.n_consts, view.cond
    if len(cond.eqns) != 1 or cond.outputs[0] is not cond.eqns[0].outputs[0]:
        return None
    test = cond.eqns[0]
    if test.prim not in _FLIPPED:
        return None
    counter, bound = test.inputs
    op = test.prim
    if counter not in cond.inputs[n:]:  # N < i is i > N
        counter, bound, op = bound, counter, _FLIPPED[op]
    if counter not in cond.inputs[n:] or counter.type.name != "i64":
        return None
    j = cond.inputs.index(counter)
    step = _step(loop, j)
    start = _static_int(loop.inputs[j], function)
    bound = (_static_int(loop.inputs[cond.inputs.index(bound)], function)
             if bound in cond.inputs[:n] else _static_int(bound, function))
    if step == 0 or start is None or bound is None:
        return None
    distance = bound - start
    if op == "ne":
        return distance // step if distance % step == 0 and distance // step >= 0 else None
    if op in ("le", "ge"):
        distance += 1 if op == "le" else -1
    upward = op in ("lt", "le")
    if upward != (step > 0):  # the counter moves away from N: never runs, or runs away
        return None if (distance > 0 if upward else distance < 0) else 0
    return max(0, -(-distance // step))


def _step(loop: Eqn, j: int) -> int:
    """s when carry j (an index into the body's inputs) becomes `carry + s`, else 0."""
    view = While(loop)
    n, body = view.n_consts, view.body
    update = body.outputs[j - n]
    return next((_STEP_SIGN[e.prim] * e.inputs[1].value for e in body.eqns
                 if e.outputs == [update] and e.prim in _STEP_SIGN
                 and e.inputs[0] is body.inputs[j] and isinstance(e.inputs[1], Const)
                 and e.inputs[1].type.name == "i64"), 0)


def _static_int(atom, function: Graph) -> int | None:
    """The value of an i64 atom of `function` known at compile time: a constant, or the final
    value of a counter (constant start and step) of a loop with a known trip count."""
    if isinstance(atom, Const):
        return atom.value if atom.type.name == "i64" else None
    loop = next((e for g in all_graphs(function) for e in g.eqns
                 if any(o is atom for o in e.outputs)), None)
    if loop is None or loop.prim != "while":
        return None
    n = While(loop).n_consts
    k = loop.outputs.index(atom)
    step = _step(loop, n + k)
    start = _static_int(loop.inputs[n + k], function)
    trips = _trip_count(loop, function) if step and start is not None else None
    return None if trips is None else start + trips * step


# ---- code generation ------------------------------------------------------------------------

def emit_poll(cx: LoweringContext) -> None:
    """Leave `cx.fn` with status INTERRUPTED if SIGINT arrived (main thread only)."""
    b, fn, module = cx.b, cx.fn, cx.module
    flag = b.load_atomic(external_global(module, FLAG, I32), "monotonic", 4, typ=I32)
    raised = fn.append_basic_block("interrupt.raised")
    stop = fn.append_basic_block("interrupt.stop")
    cont = fn.append_basic_block("interrupt.none")
    b.cbranch(b.icmp_signed("!=", flag, ir.Constant(I32, 0)), raised, cont).set_weights(
        POLL_WEIGHTS)
    b.position_at_end(raised)
    b.fence("acquire")  # CPython's record of the signal is visible from here on
    me = b.call(function(module, "pthread_self", I64, []), [])
    main = b.load(external_global(module, MAIN_THREAD, I64), typ=I64)
    b.cbranch(b.icmp_unsigned("==", me, main), stop, cont)
    b.position_at_end(stop)
    cx.leave(INTERRUPTED)
    b.position_at_end(cont)


def emit_acknowledge(module: ir.Module, b: ir.IRBuilder, retry, fail) -> None:
    """After a call returned INTERRUPTED: clear the flag, run CPython's signal handlers, then
    go to `fail` if one raised (the exception is set), else to `retry`."""
    b.store_atomic(ir.Constant(I32, 0), external_global(module, FLAG, I32), "monotonic", 4)
    check = function(module, "PyErr_CheckSignals", I32, [])
    raised = b.icmp_signed("<", b.call(check, []), ir.Constant(I32, 0))
    b.cbranch(raised, fail, retry)


def make_private(module: ir.Module) -> None:
    """Code without Python: a flag that is never set, so the optimiser drops the polls."""
    for name, typ in ((FLAG, I32), (MAIN_THREAD, I64)):
        var = module.globals.get(name)
        if var is not None:
            var.linkage = "internal"
            var.global_constant = True
            var.initializer = ir.Constant(typ, 0)


HANDLER_IR = f"""
@{FLAG} = external global i32
@{PREVIOUS} = external global ptr

define void @adlite_sigint(i32 %sig) {{
  %previous = load ptr, ptr @{PREVIOUS}
  call void %previous(i32 %sig)
  store atomic i32 1, ptr @{FLAG} release, align 4
  ret void
}}

define void @adlite_sigint_info(i32 %sig, ptr %info, ptr %context) {{
  %previous = load ptr, ptr @{PREVIOUS}
  call void %previous(i32 %sig, ptr %info, ptr %context)
  store atomic i32 1, ptr @{FLAG} release, align 4
  ret void
}}
"""  # the previous handler (same signature) runs first, so CPython's record of the signal is
#      written before the flag (release) that native code reads


# ---- the handler ----------------------------------------------------------------------------

class _Sigaction(ctypes.Structure):
    """`struct sigaction` of glibc and musl on x86-64 and AArch64."""

    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_uint64 * 16),
                ("flags", ctypes.c_int), ("restorer", ctypes.c_void_p)]


SUPPORTED = sys.platform.startswith("linux") and platform.machine() in ("x86_64", "aarch64")
_handlers: tuple[int, int] | None = None  # addresses of adlite_sigint, adlite_sigint_info


@functools.cache
def _sigaction():
    return ctypes.CDLL(None).sigaction


def _compile_handlers() -> tuple[int, int]:
    module_ref = llvm.parse_assembly(HANDLER_IR)
    module_ref.verify()
    # a few instructions: no optimisation and no host tuning (a quarter of the compile time)
    target = llvm.Target.from_default_triple()
    engine = llvm.create_mcjit_compiler(module_ref, target.create_target_machine(
        opt=0, jit=True, codemodel="jitdefault"))
    engine.finalize_object()
    addresses = (engine.get_function_address("adlite_sigint"),
                 engine.get_function_address("adlite_sigint_info"))
    engine.detach()  # never freed: the handler may run until the process ends
    return addresses


def install() -> None:
    """Put our SIGINT handler in front of CPython's, unless it is there already or SIGINT is
    not handled by a function (SIG_DFL, SIG_IGN); Linux on x86-64 and AArch64 only."""
    global _handlers
    if not SUPPORTED:
        return
    register()
    sigaction = _sigaction()
    current = _Sigaction()
    if sigaction(SIGINT, None, ctypes.byref(current)) != 0:
        return
    handler = current.handler or SIG_DFL
    if handler in (SIG_DFL, SIG_IGN) or (_handlers is not None and handler in _handlers):
        return
    if _handlers is None:
        _handlers = _compile_handlers()
    _previous.value = handler
    _main_thread.value = threading.main_thread().ident
    current.handler = _handlers[1] if current.flags & SA_SIGINFO else _handlers[0]
    sigaction(SIGINT, ctypes.byref(current), None)


def _after_fork_in_child() -> None:
    _main_thread.value = threading.get_ident()  # the forking thread is the child's main thread



def acknowledge() -> None:
    """After a call returned INTERRUPTED: clear the flag and run CPython's signal handlers;
    their exception (KeyboardInterrupt by default) propagates. Returns when none raised: the
    caller then starts the call again."""
    _flag.value = 0
    ctypes.pythonapi.PyErr_CheckSignals()  # a PyDLL function: raises what the handler raised
