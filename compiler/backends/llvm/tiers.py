"""Tiered compilation: quick code for the first call, optimised code swapped in when ready.

Contract:
- `mode()` is the setting `ADLITE_OPT` (read at each compilation): `tiered` (the default)
  runs the first calls on code generated without LLVM's optimisation passes and with its fast
  instruction selector (a tenth of the time of O3 for array programs), while one background
  thread per process builds the O3 code of the same module and swaps it in; `full` compiles
  O3 code before the first call (what ahead-of-time kernels always get); `fast` keeps the
  quick code. Any other value is a ValueError naming the variable.
- The two tiers compute the same bits: the lowering emits no fast-math flags (so O3 contracts
  and reassociates nothing), reductions stay in order when vectorised (`vector_math`), and the
  math routines are the same calls or the same straight-line code in both. The tests compare
  the tiers bit for bit.
- `with_forwarders(module_text, entries)` is the quick tier's module: each entry point `e`
  (the generated Python entry points) first reads a slot `e.slot`; while it is null the entry
  runs its own body (renamed `e.tier1`), afterwards it calls the address stored there, the
  optimised module's `e`. `slot_name(e)` names the slot. Calls in flight finish on the code
  they started on; the quick engine is kept alive by the optimised function's owner.
- `submit(job)` queues `job()` (jit.py: have the optimising process build the O3 code,
  load it and swap it in) on the background thread, started on first use; `optimised(text)`
  is the optimising process's answer for module `text` (`Worker`, the parent's side of
  optimiser.py; only jobs call it).
  `wait(timeout)` blocks until every job submitted so far is done (True) or the timeout
  passes (False); `pending()` counts them. A job's exception is logged on `adlite.compile`
  and leaves the quick code in place; when the optimising process cannot start at all, that
  is logged once and no further job is queued (`OptimiserUnavailable`). At exit, queued
  jobs are dropped, the optimising process is killed and a running job is waited for (it
  must not load code while the process unloads LLVM); a fork waits for the running job, and
  a child process runs the jobs still queued with a thread and an optimising process of
  its own.
"""

from __future__ import annotations

import atexit
import os
import struct
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from typing import BinaryIO

from ... import log

MODES = ("tiered", "full", "fast")
TIER1 = ".tier1"
SLOT = ".slot"

_lock = threading.Condition()
_queue: deque[Callable[[], None]] = deque()
_running = 0  # jobs taken off the queue and not finished
_thread: threading.Thread | None = None
_exiting = False
_unavailable = False  # the optimising process could not start: jobs are dropped
_registered = False
OPTIMISER = __name__.rsplit(".", 1)[0] + ".optimiser"  # the optimising process's module
ANSWER = struct.Struct("<Bddq")  # ok, seconds optimising, seconds generating, payload length
LENGTH = struct.Struct("<q")


def mode() -> str:
    """`ADLITE_OPT`: tiered (default), full or fast."""
    text = os.environ.get("ADLITE_OPT", "").strip().lower() or "tiered"
    if text not in MODES:
        raise ValueError(f"ADLITE_OPT={text!r}: expected one of {', '.join(MODES)}")
    return text


def slot_name(entry: str) -> str:
    return entry + SLOT


def with_forwarders(module_text: str, entries: list[tuple[str, str, list[str]]]) -> str:
    """`module_text` with each entry point `(name, return type, parameter types)` renamed
    `name.tier1` and a forwarding `name` added (see the module doc)."""
    parts = []
    for name, ret, params in entries:
        module_text = module_text.replace(f'@"{name}"(', f'@"{name}{TIER1}"(')
        formal = ", ".join(f"{t} %a{i}" for i, t in enumerate(params))
        call = f"tail call {ret} %f({formal})"
        tail = f"  {call}\n  ret void\n" if ret == "void" else \
            f"  %r = {call}\n  ret {ret} %r\n"
        parts.append(
            f'@"{slot_name(name)}" = global ptr null, align 8\n'
            f'define {ret} @"{name}"({formal}) {{\n'
            f'  %t = load atomic ptr, ptr @"{slot_name(name)}" acquire, align 8\n'
            f"  %n = icmp eq ptr %t, null\n"
            f'  %f = select i1 %n, ptr @"{name}{TIER1}", ptr %t\n'
            f"{tail}"
            + "}\n")
    return module_text + "\n" + "\n".join(parts)


def submit(job: Callable[[], None]) -> None:
    """Run `job` on the background thread (after the jobs queued before it); nothing once
    the optimising process has proved unavailable."""
    global _thread, _registered
    with _lock:
        if _exiting or _unavailable:
            return
        if not _registered:
            atexit.register(_at_exit)
            os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                                after_in_child=_after_fork_in_child)
            _registered = True
        _queue.append(job)
        if _thread is None:
            _thread = threading.Thread(target=_work, name="adlite-optimiser", daemon=True)
            _thread.start()
        _lock.notify_all()


def wait(timeout: float | None = None) -> bool:
    """Wait until every function compiled so far runs its optimised code.

    Returns True then, or False after `timeout` seconds (some functions still run their
    first tier's code, which computes the same results). Benchmarks of steady-state speed
    call it after the first call; with `ADLITE_OPT=full` or `fast` it returns at once.

    Examples:
        >>> import adlite.compiler as ac
        >>> f = ac.grad(lambda x: x * x)
        >>> f(3.0)
        6.0
        >>> ac.wait_optimised()
        True
    """
    with _lock:
        return _lock.wait_for(lambda: not _queue and not _running, timeout)


class OptimiserError(RuntimeError):
    """The optimising process failed (its message), or died."""


class OptimiserUnavailable(OptimiserError):
    """The optimising process cannot start here (say, an embedded interpreter whose
    `sys.executable` is not Python), or exits before its first answer: tiering stops for
    the rest of the process."""


class Worker:
    """The parent's handle on one optimising process (optimiser.py; not thread safe: the
    background thread is its one caller). Why a process: llvmlite serialises every call into
    LLVM with one process-wide lock, so O3 on a thread of the user's process would stall the
    quick tier of the next function (and any other LLVM use) for as long as it runs; a
    process of its own also leaves the user's threads the GIL."""

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self._answered = False  # the current process has answered a request

    def compile(self, text: str) -> tuple[bytes, float, float]:
        """The O3 object code of module `text`, and the seconds of its two stages."""
        if self._process is None or self._process.poll() is not None:
            self._start()
        process = self._process
        try:
            data = text.encode()
            process.stdin.write(LENGTH.pack(len(data)) + data)
            process.stdin.flush()
            ok, optimising, generating, n = ANSWER.unpack(read_exactly(process.stdout, ANSWER.size))
            payload = read_exactly(process.stdout, n)
        except (OSError, EOFError, struct.error) as e:
            answered = self._answered
            self.close()
            if not answered:  # it cannot even import adlite: it would die every time
                raise _unavailable_error("it exited before answering") from None
            raise OptimiserError(f"the optimising process died: {e}") from None
        self._answered = True
        if not ok:
            raise OptimiserError(payload.decode(errors="replace"))
        return payload, optimising, generating

    def _start(self) -> None:
        """A new process, importing adlite from where this process does (its `sys.path`)."""
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", OPTIMISER], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        except OSError as e:
            raise _unavailable_error(str(e)) from None
        self._answered = False

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.stdin.close()
            process.kill()
            process.wait()

    def forget(self) -> None:
        """Drop the handle without touching the process (a forked child's copy)."""
        self._process = None


def _unavailable_error(why: str) -> OptimiserUnavailable:
    return OptimiserUnavailable(
        f"cannot start the optimising process ({sys.executable} -m {OPTIMISER}: {why}); "
        "functions keep their first tier's code (the same results); ADLITE_OPT=full "
        "optimises before the first call instead")


def read_exactly(stream: BinaryIO, n: int) -> bytes:
    data = stream.read(n)
    if len(data) != n:
        raise EOFError("end of stream")
    return data


_worker = Worker()


def optimised(text: str) -> tuple[bytes, float, float]:
    """The O3 object code of module `text` and the seconds of its passes and generation."""
    return _worker.compile(text)


def pending() -> int:
    """Jobs queued or running."""
    with _lock:
        return len(_queue) + _running


def _work() -> None:
    global _running, _unavailable
    while True:
        with _lock:
            _lock.wait_for(lambda: _queue)
            job = _queue.popleft()
            _running += 1
        try:
            job()
        except Exception as e:  # the quick code stays: it computes the same results
            if _exiting:  # the process was killed at exit: nothing to say
                continue
            if isinstance(e, OptimiserUnavailable):  # said once; the queue behind it dropped
                with _lock:
                    _unavailable = True
                    _queue.clear()
            log.optimiser_failed()
        finally:
            with _lock:
                _running -= 1
                _lock.notify_all()


def _at_exit() -> None:
    global _exiting
    with _lock:
        _exiting = True
        _queue.clear()
        _worker.close()
        _lock.wait_for(lambda: not _running)


def _before_fork() -> None:
    _lock.acquire()
    _lock.wait_for(lambda: not _running)


def _after_fork_in_parent() -> None:
    _lock.release()


def _after_fork_in_child() -> None:
    global _thread
    _thread = None
    _worker.forget()  # the parent's process: a child starts its own
    _lock.release()
    if _queue:
        submit(_queue.popleft())
