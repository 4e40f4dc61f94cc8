"""A native thread pool for compiled loops, written in LLVM IR (no C compiler, no new package).

Contract:
- `ensure_runtime(tm)` (once per process, by `jit.jit_object` before it loads object code that
  calls the pool, cached code included) compiles the pool's module (its object code kept in
  the disk cache, cache.py) and makes its symbols resolvable by MCJIT:

      int32_t __adlite_parallel_for(body, ctx, int64_t rows, int64_t per)
      int32_t body(ctx, int64_t begin, int64_t end, int64_t block)

  `__adlite_parallel_for` runs `body` once for every block k of [0, rows) cut into blocks of
  `per` rows ([k * per, min((k + 1) * per, rows)), the blocks fixed by the caller, never by
  the thread count), on the calling thread and up to `num_threads() - 1` pool workers, which
  take blocks in turn from a shared counter. What a block computes does not depend on which
  thread runs it, so results are the same bits for any thread count. It returns 0, or the
  status of the lowest-numbered block that returned one (blocks after it may be skipped), so a
  failing check reports what the serial loop reports first. On the main thread it polls
  the Ctrl-C flag (interrupt.py) before each block: status INTERRUPTED.
- The pool: workers are native threads created on first need (never at import; no more than
  a job has blocks besides the caller's), each with a stack of WORKER_STACK bytes, parked on
  a condition variable between jobs, and never exit. A worker that cannot be created (no
  memory, a thread limit) is not an error: the job runs on the threads there are. One job
  runs at a time: a caller that finds the pool busy (another Python thread's compiled code,
  released GIL) runs its blocks itself, in order, with the same results. After `fork` the
  child's first parallel call finds the pool created by another process (its pid) and builds
  a new one (the parent's workers do not exist in the child; a lock held by one of them is
  taken over).
- Thread count: `set_num_threads(n)` at any time (it takes effect at the next parallel loop;
  more workers are started then, surplus workers sit out); else `ADLITE_NUM_THREADS` (a
  positive integer) as it is when the pool is first needed in the process, else the CPUs
  this process may run on (`os.sched_getaffinity`). `num_threads()` reads it. Matrix
  products are not affected: they use the BLAS's own threads.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import threading

import llvmlite
import llvmlite.binding as llvm

from ...status import INTERRUPTED
from . import cache
from .interrupt import FLAG, MAIN_THREAD

PARALLEL_FOR = "__adlite_parallel_for"
NUM_THREADS = "__adlite_num_threads"
MAX_THREADS = 1024  # a worker's index travels in the low 16 bits of its start argument
# A worker's stack. Compiled blocks keep at most a few KiB there (scratch above
# pywrapper.STACK_SCRATCH comes from malloc); the rest is headroom for libm, BLAS and LAPACK.
# glibc's default (the stack rlimit, 8 MiB) made 1,024 workers take 8 GiB of address space.
WORKER_STACK = 1 << 20

_lock = threading.Lock()
_runtime: dict = {}  # "loaded": the pool is linked in this process
_count = ctypes.c_int64(0)  # the thread count the pool reads (0: not set yet, see num_threads)


def default_threads() -> int:
    """`ADLITE_NUM_THREADS`, else the number of CPUs this process may run on."""
    text = os.environ.get("ADLITE_NUM_THREADS", "").strip()
    if text:
        if not re.fullmatch(r"\+?[0-9]+", text, flags=re.ASCII) or int(text) < 1:
            raise ValueError("the environment variable ADLITE_NUM_THREADS must be a positive "
                             f"integer (like 4), got {text!r}")
        return min(int(text), MAX_THREADS)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


_RUN_BLOCK = f"""
define internal i32 @run_block(ptr %fn, ptr %ctx, i64 %rows, i64 %per, i64 %k, i1 %poll) {{
entry:
  br i1 %poll, label %check, label %go
check:
  %flag = load atomic i32, ptr @{FLAG} monotonic, align 4
  %set = icmp ne i32 %flag, 0
  br i1 %set, label %stop, label %go, !prof !0
stop:
  ret i32 {INTERRUPTED}
go:
  %begin = mul i64 %k, %per
  %e0 = add i64 %begin, %per
  %short = icmp slt i64 %e0, %rows
  %end = select i1 %short, i64 %e0, i64 %rows
  %st = call i32 %fn(ptr %ctx, i64 %begin, i64 %end, i64 %k)
  ret i32 %st
}}

define internal i32 @run_serial(ptr %fn, ptr %ctx, i64 %rows, i64 %per, i64 %blocks, i1 %poll) {{
entry:
  br label %loop
loop:
  %k = phi i64 [0, %entry], [%next, %ok]
  %more = icmp slt i64 %k, %blocks
  br i1 %more, label %work, label %done
work:
  %st = call i32 @run_block(ptr %fn, ptr %ctx, i64 %rows, i64 %per, i64 %k, i1 %poll)
  %bad = icmp ne i32 %st, 0
  %next = add i64 %k, 1
  br i1 %bad, label %failed, label %ok
ok:
  br label %loop
failed:
  ret i32 %st
done:
  ret i32 0
}}
"""

_POOL = f"""
@{FLAG} = external global i32
@{MAIN_THREAD} = external global i64
@{NUM_THREADS} = external global i64
@owner = internal global i32 0
@pool_pid = internal global i32 0
@workers = internal global i64 0
@mutex = internal global [128 x i8] zeroinitializer, align 64
@work_cv = internal global [128 x i8] zeroinitializer, align 64
@done_cv = internal global [128 x i8] zeroinitializer, align 64
@generation = internal global i64 0
@job_fn = internal global ptr null
@job_ctx = internal global ptr null
@job_rows = internal global i64 0
@job_per = internal global i64 0
@job_blocks = internal global i64 0
@job_poll = internal global i1 0
@job_next = internal global i64 0, align 64
@job_fail = internal global i64 0, align 64
@job_status = internal global i32 0
@job_active = internal global i64 0
@job_workers = internal global i64 0

declare i32 @pthread_mutex_init(ptr, ptr)
declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_cond_init(ptr, ptr)
declare i32 @pthread_cond_wait(ptr, ptr)
declare i32 @pthread_cond_broadcast(ptr)
declare i32 @pthread_cond_signal(ptr)
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_attr_init(ptr)
declare i32 @pthread_attr_setstacksize(ptr, i64)
declare i32 @pthread_attr_destroy(ptr)
declare i64 @pthread_self()
declare i32 @getpid()

!0 = !{{!"branch_weights", i32 1, i32 1048576}}
{_RUN_BLOCK}
; the blocks of the posted job, taken in turn from the shared counter until none is left or
; all that are left come after a failed one
define internal void @run_shared() {{
entry:
  %fn = load ptr, ptr @job_fn
  %ctx = load ptr, ptr @job_ctx
  %rows = load i64, ptr @job_rows
  %per = load i64, ptr @job_per
  %blocks = load i64, ptr @job_blocks
  %poll = load i1, ptr @job_poll
  br label %loop
loop:
  %k = atomicrmw add ptr @job_next, i64 1 monotonic
  %more = icmp slt i64 %k, %blocks
  br i1 %more, label %check, label %done
check:
  %fail = load atomic i64, ptr @job_fail monotonic, align 8
  %after = icmp sgt i64 %k, %fail
  br i1 %after, label %done, label %work
work:
  %st = call i32 @run_block(ptr %fn, ptr %ctx, i64 %rows, i64 %per, i64 %k, i1 %poll)
  %bad = icmp ne i32 %st, 0
  br i1 %bad, label %record, label %loop
record:
  call i32 @pthread_mutex_lock(ptr @mutex)
  %old = load atomic i64, ptr @job_fail monotonic, align 8
  %earlier = icmp slt i64 %k, %old
  br i1 %earlier, label %set, label %unlock
set:
  store atomic i64 %k, ptr @job_fail monotonic, align 8
  store i32 %st, ptr @job_status
  br label %unlock
unlock:
  call i32 @pthread_mutex_unlock(ptr @mutex)
  br label %done
done:
  ret void
}}

; a worker: its index in the low 16 bits of %arg, the generation it was created in above
define internal ptr @worker(ptr %arg) {{
entry:
  %a = ptrtoint ptr %arg to i64
  %id = and i64 %a, 65535
  %g0 = lshr i64 %a, 16
  call i32 @pthread_mutex_lock(ptr @mutex)
  br label %wait
wait:
  %seen = phi i64 [%g0, %entry], [%seen, %sleep], [%g, %skip], [%g, %finished]
  %g = load i64, ptr @generation
  %new = icmp ne i64 %g, %seen
  br i1 %new, label %job, label %sleep
sleep:
  call i32 @pthread_cond_wait(ptr @work_cv, ptr @mutex)
  br label %wait
job:
  %w = load i64, ptr @job_workers
  %in = icmp ult i64 %id, %w
  br i1 %in, label %run, label %skip
skip:
  br label %wait
run:
  call i32 @pthread_mutex_unlock(ptr @mutex)
  call void @run_shared()
  call i32 @pthread_mutex_lock(ptr @mutex)
  %act = load i64, ptr @job_active
  %act1 = sub i64 %act, 1
  store i64 %act1, ptr @job_active
  %last = icmp eq i64 %act1, 0
  br i1 %last, label %signal, label %finished
signal:
  call i32 @pthread_cond_signal(ptr @done_cv)
  br label %finished
finished:
  br label %wait
}}

define i32 @{PARALLEL_FOR}(ptr %fn, ptr %ctx, i64 %rows, i64 %per) {{
entry:
  %tid = alloca i64
  %attr = alloca [128 x i8], align 16
  %last = add i64 %rows, %per
  %last1 = sub i64 %last, 1
  %blocks = sdiv i64 %last1, %per
  %self = call i64 @pthread_self()
  %main = load i64, ptr @{MAIN_THREAD}
  %poll = icmp eq i64 %self, %main
  %want = load atomic i64, ptr @{NUM_THREADS} monotonic, align 8
  %many = icmp sgt i64 %want, 1
  %several = icmp sgt i64 %blocks, 1
  %try = and i1 %many, %several
  br i1 %try, label %acquire, label %serial
acquire:
  %me = call i32 @getpid()
  %x = cmpxchg ptr @owner, i32 0, i32 %me acquire monotonic
  %took = extractvalue {{ i32, i1 }} %x, 1
  br i1 %took, label %owned, label %contended
contended:
  %holder = extractvalue {{ i32, i1 }} %x, 0
  %ours = icmp eq i32 %holder, %me
  br i1 %ours, label %serial, label %steal
steal:
  %y = cmpxchg ptr @owner, i32 %holder, i32 %me acquire monotonic
  %took2 = extractvalue {{ i32, i1 }} %y, 1
  br i1 %took2, label %owned, label %serial
owned:
  %pid = load i32, ptr @pool_pid
  %current = icmp eq i32 %pid, %me
  br i1 %current, label %grow, label %init
init:
  call i32 @pthread_mutex_init(ptr @mutex, ptr null)
  call i32 @pthread_cond_init(ptr @work_cv, ptr null)
  call i32 @pthread_cond_init(ptr @done_cv, ptr null)
  store i64 0, ptr @workers
  store i64 0, ptr @generation
  store i32 %me, ptr @pool_pid
  br label %grow
grow:
  %want1 = sub i64 %want, 1
  %blocks1 = sub i64 %blocks, 1
  %capped = icmp slt i64 %blocks1, %want1
  %need = select i1 %capped, i64 %blocks1, i64 %want1
  %n = load i64, ptr @workers
  %fewer = icmp slt i64 %n, %need
  br i1 %fewer, label %spawn, label %ready
spawn:
  %gen = load i64, ptr @generation
  %genbits = shl i64 %gen, 16
  %packed = or i64 %genbits, %n
  %arg = inttoptr i64 %packed to ptr
  call i32 @pthread_attr_init(ptr %attr)
  call i32 @pthread_attr_setstacksize(ptr %attr, i64 {WORKER_STACK})
  %r = call i32 @pthread_create(ptr %tid, ptr %attr, ptr @worker, ptr %arg)
  call i32 @pthread_attr_destroy(ptr %attr)
  %failed = icmp ne i32 %r, 0
  br i1 %failed, label %ready, label %spawned
spawned:
  %n1 = add i64 %n, 1
  store i64 %n1, ptr @workers
  br label %grow
ready:
  %have = load i64, ptr @workers
  %fits = icmp slt i64 %have, %need
  %use = select i1 %fits, i64 %have, i64 %need
  %none = icmp slt i64 %use, 1
  br i1 %none, label %release, label %post
release:
  store atomic i32 0, ptr @owner release, align 4
  br label %serial
post:
  call i32 @pthread_mutex_lock(ptr @mutex)
  store ptr %fn, ptr @job_fn
  store ptr %ctx, ptr @job_ctx
  store i64 %rows, ptr @job_rows
  store i64 %per, ptr @job_per
  store i64 %blocks, ptr @job_blocks
  store i1 %poll, ptr @job_poll
  store atomic i64 0, ptr @job_next monotonic, align 64
  store atomic i64 %blocks, ptr @job_fail monotonic, align 64
  store i32 0, ptr @job_status
  store i64 %use, ptr @job_active
  store i64 %use, ptr @job_workers
  %g = load i64, ptr @generation
  %g1 = add i64 %g, 1
  store i64 %g1, ptr @generation
  call i32 @pthread_cond_broadcast(ptr @work_cv)
  call i32 @pthread_mutex_unlock(ptr @mutex)
  call void @run_shared()
  call i32 @pthread_mutex_lock(ptr @mutex)
  br label %join
join:
  %act = load i64, ptr @job_active
  %busy = icmp ne i64 %act, 0
  br i1 %busy, label %joinwait, label %joined
joinwait:
  call i32 @pthread_cond_wait(ptr @done_cv, ptr @mutex)
  br label %join
joined:
  %st = load i32, ptr @job_status
  call i32 @pthread_mutex_unlock(ptr @mutex)
  store atomic i32 0, ptr @owner release, align 4
  ret i32 %st
serial:
  %s = call i32 @run_serial(ptr %fn, ptr %ctx, i64 %rows, i64 %per, i64 %blocks, i1 %poll)
  ret i32 %s
}}
"""


def ensure_runtime(tm) -> None:
    """Compile the pool once per process for target machine `tm` and make its symbols
    resolvable (see the module doc). Needs the interrupt flag and libc resolvable
    (`jit.initialize`)."""
    with _lock:
        if _runtime:
            return
        pthread = ctypes.util.find_library("pthread")  # in libc since glibc 2.34
        if pthread:
            llvm.load_library_permanently(pthread)
        if not _count.value:
            _count.value = default_threads()
        llvm.add_symbol(NUM_THREADS, ctypes.addressof(_count))
        key = cache.key_for(_POOL, llvm.get_host_cpu_name(),
                            llvm.get_host_cpu_features().flatten(), llvmlite.__version__,
                            ".".join(map(str, llvm.llvm_version_info)))
        code = cache.load(key)
        if code is None:  # not optimised: its loops run once per block
            module = llvm.parse_assembly(_POOL)
            module.triple, module.data_layout = tm.triple, str(tm.target_data)
            code = tm.emit_object(module)
            cache.store(key, code)
        engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm)
        engine.add_object_file(llvm.ObjectFileRef.from_data(code))
        engine.finalize_object()
        llvm.add_symbol(PARALLEL_FOR, engine.get_function_address(PARALLEL_FOR))
        engine.detach()  # never freed: parked workers run its code until the process ends
        _runtime["loaded"] = True


def set_num_threads(n: int) -> None:
    """Use at most `n` threads (the caller's included) in the next parallel loops."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"the number of threads must be a positive int, got {n!r}")
    _count.value = min(n, MAX_THREADS)


def num_threads() -> int:
    """The number of threads parallel loops use."""
    return _count.value or default_threads()
