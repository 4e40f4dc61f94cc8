"""The native thread pool (threads.py): started lazily, honours the thread count, survives
`fork`, serves several Python threads at once, and lets Ctrl-C through. Scenarios that start
threads, fork or signal run in a child process, so the test runner's own state is untouched."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from adlite.compiler import grad, jit
from adlite.compiler.backends.llvm import threads

PRELUDE = textwrap.dedent('''
    import os, signal, sys, threading, time
    import numpy as np

    # CPython's handler, as in a Python started from a terminal: a child of a process that
    # ignores SIGINT (`nohup make test &`) inherits SIG_IGN, and Ctrl-C would be ignored
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from adlite.compiler import grad, jit
    from adlite.compiler.backends.llvm import threads

    def rosenbrock(x):
        return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    def tasks():
        return len(os.listdir("/proc/self/task"))

    def reference(x):
        return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
''')


def run_child(body: str, tmp_path, env=None) -> str:
    script = tmp_path / "child.py"
    script.write_text(PRELUDE + textwrap.dedent(body))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=300, env=dict(os.environ, **(env or {})))
    assert result.returncode == 0, result.stderr
    return result.stdout


linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/task")


@linux
def test_workers_start_on_the_first_parallel_loop_only(tmp_path):
    out = run_child('''
        start = tasks()
        small = np.linspace(0.0, 1.0, 1000)
        assert abs(jit(rosenbrock)(small) - reference(small)) < 1e-9
        after_small = tasks()
        big = np.linspace(0.0, 1.0, 1_000_000)
        value = jit(rosenbrock)(big)
        assert abs(value - reference(big)) <= 1e-9 * abs(value)
        print(after_small - start, tasks() - start)
    ''', tmp_path, {"ADLITE_NUM_THREADS": "4", "ADLITE_OPT": "full"})  # no optimiser thread
    assert out.split() == ["0", "3"]  # the caller and three workers


@linux
def test_a_forked_child_builds_its_own_pool(tmp_path):
    out = run_child('''
        x = np.linspace(-1.0, 1.0, 2_000_001)
        g = grad(rosenbrock)
        first = g(x)
        pid = os.fork()
        if pid == 0:
            signal.alarm(120)  # a deadlocked child dies instead of hanging the test
            same = np.array_equal(g(x), first)
            threads.set_num_threads(3)
            same = same and np.array_equal(g(x), first)
            os._exit(0 if same else 1)
        _, code = os.waitpid(pid, 0)
        print(code, np.array_equal(g(x), first))
    ''', tmp_path, {"ADLITE_NUM_THREADS": "2"})
    assert out.split() == ["0", "True"]


@linux
def test_ctrl_c_interrupts_a_parallel_loop_and_the_pool_stays_usable(tmp_path):
    out = run_child('''
        def heavy(x):
            return np.sum(np.sin(np.cos(np.sin(x) * 3.0) * 2.0) * np.cos(x * 0.5))
        x = np.linspace(0.0, 1.0, 20_000_000)
        f = jit(heavy)
        f(x)  # compiled before the signal, so it arrives in native code
        small = x[:300_000].copy()
        expected = jit(heavy)(small)
        threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT)).start()
        try:
            for _ in range(50):
                f(x)
            print("not interrupted")
        except KeyboardInterrupt:
            print("interrupted")
        print(jit(heavy)(small) == expected)
    ''', tmp_path, {"ADLITE_NUM_THREADS": "2"})
    assert out.split() == ["interrupted", "True"]


def scaled(x):
    return np.sum(np.exp(x * 0.001) * x)


def test_python_threads_calling_parallel_code_get_the_serial_bits():
    before = threads.num_threads()
    x = np.random.default_rng(0).standard_normal(700_001)
    f, g = jit(scaled), grad(scaled)
    try:
        threads.set_num_threads(1)
        expected = hashlib.sha256(np.float64(f(x)).tobytes() + g(x).tobytes()).hexdigest()
        threads.set_num_threads(3)
        seen, errors = [], []

        def work():
            try:
                for _ in range(15):
                    seen.append(hashlib.sha256(np.float64(f(x)).tobytes() +
                                               g(x).tobytes()).hexdigest())
            except Exception as e:  # reported below
                errors.append(e)

        workers = [threading.Thread(target=work) for _ in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        threads.set_num_threads(before)
    assert not errors
    assert seen == [expected] * 60


def test_the_interrupt_flag_restarts_a_parallel_call_with_the_same_result():
    """The pool polls the Ctrl-C flag before each block on the main thread: a set flag with
    no Python signal pending makes the call start again, which gives the same bits."""
    from adlite.compiler.backends.llvm import interrupt

    x = np.random.default_rng(1).standard_normal(500_000)
    # CPython's handler, as in a Python started from a terminal (a runner that ignores SIGINT,
    # `nohup make test &`, leaves compiled code no Ctrl-C to see: the flag is then ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        f = jit(scaled)
        expected = f(x)  # loading the code puts adlite's handler in front of CPython's
        interrupt._flag.value = 1
        assert np.float64(f(x)).tobytes() == np.float64(expected).tobytes()
        assert interrupt._flag.value == 0  # acknowledged: the parallel loop saw it
    finally:
        interrupt._flag.value = 0
        signal.signal(signal.SIGINT, previous)


def test_invalid_thread_counts_are_refused(monkeypatch):
    with pytest.raises(ValueError, match="positive int"):
        threads.set_num_threads(0)
    monkeypatch.setenv("ADLITE_NUM_THREADS", "two")
    with pytest.raises(ValueError, match="ADLITE_NUM_THREADS must be a positive integer"):
        threads.default_threads()
    for text in ("\u00b2", "-1", "0", "2.0"):  # '²' is a digit to str.isdigit, not to int
        monkeypatch.setenv("ADLITE_NUM_THREADS", text)
        with pytest.raises(ValueError, match="variable ADLITE_NUM_THREADS must be a positive "
                                             "integer"):
            threads.default_threads()
    monkeypatch.setenv("ADLITE_NUM_THREADS", "3")
    assert threads.default_threads() == 3
    monkeypatch.setenv("ADLITE_NUM_THREADS", " +2 ")  # as int() reads it
    assert threads.default_threads() == 2


@linux
def test_workers_take_small_stacks_and_no_more_than_the_blocks(tmp_path):
    """ADLITE_NUM_THREADS far above the CPU count: 63 workers reserve 63 MiB of address space
    (glibc's default stack, the 8 MiB stack rlimit, made it 504 MiB), and a job of k blocks
    starts k - 1 workers (the caller runs one)."""
    out = run_child('''
        def vm_kib():
            with open("/proc/self/status") as status:
                return next(int(line.split()[1]) for line in status if line.startswith("VmSize"))

        f = jit(rosenbrock)
        f(np.linspace(0.0, 1.0, 10))  # compiled and loaded: the pool is not started yet
        start_tasks = tasks()
        from adlite.compiler.backends.llvm.parallel import BLOCK, PARALLEL_MIN
        blocks = PARALLEL_MIN // BLOCK + 2  # the fewest that run in parallel, and two more
        few = np.linspace(0.0, 1.0, blocks * BLOCK + 1)  # x[1:] and x[:-1]: `blocks` blocks
        f(few)
        after_few = tasks()
        before = vm_kib()
        big = np.linspace(0.0, 1.0, 4_000_000)
        assert abs(f(big) - reference(big)) <= 1e-9 * abs(reference(big))
        print(after_few - start_tasks, blocks, tasks() - start_tasks, vm_kib() - before)
    ''', tmp_path, {"ADLITE_NUM_THREADS": "64"})
    few_workers, blocks, workers, growth_kib = map(int, out.split())
    assert few_workers == blocks - 1
    assert workers == 63
    assert growth_kib < 63 * 2 * 1024
