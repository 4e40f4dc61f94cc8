"""Ctrl-C (SIGINT) interrupts compiled loops: KeyboardInterrupt, memory freed, state clean.

Every scenario runs in a child process (the test runner's signal handling is left alone). The
parent sends SIGINT after the child reports that it is about to enter compiled code, then
writes the time of the signal (CLOCK_MONOTONIC, shared by the processes) to the child's stdin.
The child prints one JSON line per scenario.
"""

from __future__ import annotations

import ctypes
import json
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="native SIGINT handling is implemented for Linux")

PRELUDE = textwrap.dedent('''
    import ctypes, json, math, signal, sys, threading, time
    import numpy as np

    # CPython's handler, as in a Python started from a terminal: a child of a process that
    # ignores SIGINT (`nohup make test &`) inherits SIG_IGN, and Ctrl-C would be ignored
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from adlite.compiler import grad, jit, wait_optimised

    def forever(x):
        while x > 0:
            x = x + 1
        return x

    def count(n):
        i = 0
        s = 0
        while i != n:
            i = i + 1
            s = s + i % 7
        return s

    def arrays(x, n):
        i = 0
        while i < n:
            x = np.sin(x) * 0.5 + x * 0.5
            i = i + 1
        return np.sum(x)

    def tape(p, n):
        x = 1.0
        i = 0
        while i < n:
            x = np.sin(x * p) + 1.0
            i = i + 1
        return x

    def count_reference(n):  # sum of i % 7 for i = 1..n
        return n // 7 * 21 + sum(range(1, n % 7 + 1))

    def signal_time():  # written by the parent right after it sent SIGINT
        return float(sys.stdin.readline())

    def interrupted(fn, *args, after=0.3):
        """Seconds from SIGINT (sent `after` seconds into the call) to KeyboardInterrupt; fails
        if the call returned."""
        print(f"started {after!r}", flush=True)
        try:
            fn(*args)
        except KeyboardInterrupt:
            caught = time.monotonic()
        else:
            raise AssertionError("the call was not interrupted")
        return caught - signal_time()

    def report(**fields):
        print(json.dumps(fields), flush=True)
''')


def run_child(tmp_path, body: str, timeout: float = 60.0) -> list[dict]:
    """Run PRELUDE + body; answer each "started <seconds>" line with SIGINT that much later."""
    script = tmp_path / "child.py"  # adlite reads the functions' source from a file
    script.write_text(PRELUDE + textwrap.dedent(body))
    child = subprocess.Popen([sys.executable, str(script)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(timeout, child.kill)  # a loop that ignores SIGINT never ends
    watchdog.start()
    reports = []
    try:
        for line in child.stdout:
            if line.startswith("started "):
                time.sleep(float(line.split()[1]))  # well inside the compiled loop by now
                sent = time.monotonic()
                child.send_signal(signal.SIGINT)
                child.stdin.write(f"{sent!r}\n")
                child.stdin.flush()
            else:
                reports.append(json.loads(line))
        child.wait()
    finally:
        watchdog.cancel()
    assert child.returncode == 0, f"exit status {child.returncode}: {child.stderr.read()}"
    return reports


def test_sigint_interrupts_compiled_loops_and_they_run_again(tmp_path):
    reports = run_child(tmp_path, '''
        g = jit(forever)
        assert g(-3) == -3
        report(case="scalar", seconds=interrupted(g, 1), again=g(-3))

        c = jit(count)
        c(1)
        report(case="count", seconds=interrupted(c, -1), again=c(1000),
               expected=count_reference(1000))

        a = jit(arrays)
        x = np.linspace(0.0, 1.0, 100)
        expected = float(arrays(x, 50))
        a(x, 1)  # compile before the signal
        report(case="arrays", seconds=interrupted(a, x, 10**15), again=float(a(x, 50)),
               expected=expected)

        d = grad(tape)
        h = 1e-6
        fd = (tape(0.5 + h, 100) - tape(0.5 - h, 100)) / (2 * h)
        d(0.5, 1)
        report(case="tape", seconds=interrupted(d, 0.5, 10**15), again=d(0.5, 100),
               expected=fd)
    ''')
    by_case = {r["case"]: r for r in reports}
    assert set(by_case) == {"scalar", "count", "arrays", "tape"}
    for r in reports:
        print(f"{r['case']}: KeyboardInterrupt {r['seconds'] * 1e3:.1f} ms after SIGINT")
        assert 0.0 <= r["seconds"] < 1.0
    assert by_case["scalar"]["again"] == -3
    assert by_case["count"]["again"] == by_case["count"]["expected"]
    assert by_case["arrays"]["again"] == pytest.approx(by_case["arrays"]["expected"], rel=1e-12)
    assert by_case["tape"]["again"] == pytest.approx(by_case["tape"]["expected"], rel=1e-6)


def test_checkpointed_gradients_stop_in_every_phase(tmp_path):
    """A checkpointed gradient runs three phases: the forward sweep (snapshots), the
    recomputation of each segment with its reverse sweep. The forward sweep is about 40 % of an
    uninterrupted call. The interrupted calls run 4 times as many steps as the one timed (so
    that a loaded machine does not finish them before the signal): SIGINT at 20 % of the timed
    call lands in the forward sweep, at 55 % and 75 % of the long one in the recomputations and
    reverse sweeps; every one stops within a second."""
    reports = run_child(tmp_path, '''
        n = 2 * 10**7
        for checkpoint in ("auto", 1000):
            d = grad(tape) if checkpoint == "auto" else grad(tape, checkpoint=checkpoint)
            d(0.5, 4 * n)  # the first call of this size is slower (the tape's pages are new)
            wait_optimised()  # time the code the interrupted calls run
            start = time.monotonic()
            d(0.5, n)
            whole = time.monotonic() - start
            for at in (0.2 * whole, 0.55 * 4 * whole, 0.75 * 4 * whole):
                report(checkpoint=checkpoint, at=at, whole=4 * whole,
                       seconds=interrupted(d, 0.5, 4 * n, after=at))
    ''')
    assert len(reports) == 6
    for r in reports:
        print(f"checkpoint={r['checkpoint']}: SIGINT {r['at']:.2f} s into a {r['whole']:.2f} s"
              f" call, KeyboardInterrupt {r['seconds'] * 1e3:.1f} ms later")
        assert 0.0 <= r["seconds"] < 1.0


@pytest.mark.skipif(not hasattr(ctypes.CDLL(None), "mallinfo2"), reason="needs glibc >= 2.33")
def test_interrupted_calls_free_their_memory(tmp_path):
    reports = run_child(tmp_path, '''
        class Mallinfo2(ctypes.Structure):
            _fields_ = [(name, ctypes.c_size_t) for name in (
                "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                "uordblks", "fordblks", "keepcost")]

        mallinfo2 = ctypes.CDLL(None).mallinfo2
        mallinfo2.restype = Mallinfo2

        def in_use():
            info = mallinfo2()
            return info.uordblks + info.hblkhd  # heap chunks + mmapped chunks in use

        a, d, x = jit(arrays), grad(tape), np.linspace(0.0, 1.0, 1000)
        a(x, 1), d(0.5, 1)  # compile before the signals
        wait_optimised()
        for fn, args in ((a, (x, 10**15)), (d, (0.5, 10**15))):  # warm up: first-call state
            interrupted(fn, *args)
        before = in_use()
        for _ in range(3):
            for fn, args in ((a, (x, 10**15)), (d, (0.5, 10**15))):
                interrupted(fn, *args)
        report(growth=in_use() - before)
    ''')
    (r,) = reports
    print(f"native heap growth after 6 interrupted calls: {r['growth']} bytes")
    assert r["growth"] < 256 * 1024  # each interrupted gradient call had a tape of ~100 MB


def test_other_threads_keep_running_and_a_stale_signal_does_not_interrupt(tmp_path):
    reports = run_child(tmp_path, '''
        c = jit(count)
        c(10)
        n, result = 6 * 10**8, []  # seconds of work

        def work():
            print("started 0.3", flush=True)
            result.append(c(n))
            result.append(time.monotonic())

        worker = threading.Thread(target=work)
        try:
            worker.start()
            time.sleep(600)  # the worker holds the GIL until its compiled loop ends
        except KeyboardInterrupt:
            main_interrupted = True
        sent = signal_time()
        worker.join()
        from adlite.compiler.backends.llvm import interrupt
        flag_left = interrupt._flag.value  # the worker's loop saw the flag and ignored it
        report(main_interrupted=main_interrupted, value=result[0], expected=count_reference(n),
               finished_after_signal=result[1] > sent, flag_left=flag_left,
               later_call=c(1000), later_expected=count_reference(1000))
    ''')
    (r,) = reports
    assert r["main_interrupted"] and r["finished_after_signal"]
    assert r["value"] == r["expected"]
    assert r["flag_left"] == 1
    assert r["later_call"] == r["later_expected"]  # the stale flag costs a restart, no error


def test_a_signal_handler_that_does_not_raise_lets_the_call_finish(tmp_path):
    reports = run_child(tmp_path, '''
        import signal
        ran = []
        signal.signal(signal.SIGINT, lambda *_: ran.append(time.monotonic()))
        c = jit(count)
        c(1)  # compiling puts the native handler back in front of Python's
        n = 6 * 10**8  # seconds of work
        print("started 0.3", flush=True)
        value = c(n)
        done = time.monotonic()
        sent = signal_time()
        report(value=value, expected=count_reference(n), handler_runs=len(ran),
               handler_delay=ran[0] - sent, handler_before_return=ran[0] < done)
    ''')
    (r,) = reports
    assert r["value"] == r["expected"]
    assert r["handler_runs"] == 1 and r["handler_before_return"]
    print(f"handler ran {r['handler_delay'] * 1e3:.1f} ms after SIGINT")
    assert 0.0 <= r["handler_delay"] < 1.0


def _load(tmp_path, source: str):
    import importlib.util

    path = tmp_path / "loops.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location("loops", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _loops(fn, kind: str, args) -> list:
    from adlite.compiler.api import Transformed, arg_type

    graph, _ = Transformed(fn, kind, 0).ir_for(tuple(arg_type(a, i) for i, a in enumerate(args)))
    return graph, [e for e in graph.eqns if e.prim == "while"]


def test_counted_loops_have_the_trip_count_python_runs(tmp_path):
    from adlite.compiler.backends.llvm.interrupt import _trip_count

    cases = [(op, start, stop, step) for op in ("<", "<=", ">", ">=", "!=")
             for start in (-7, 5) for stop in (-6, 4, 9) for step in (1, 3, -1, -2)]
    module = _load(tmp_path, "\n".join(
        f"def f{k}(x):\n    i = {start}\n    while i {op} {stop}:\n        i = i + ({step})\n"
        f"        x = x + 1.0\n    return x\n" for k, (op, start, stop, step) in enumerate(cases)))
    for k, (op, start, stop, step) in enumerate(cases):
        i, trips = start, 0
        while eval(f"{i} {op} {stop}") and trips < 1000:  # Python's own count, capped
            i, trips = i + step, trips + 1
        graph, (loop,) = _loops(getattr(module, f"f{k}"), "jit", (1.0,))
        expected = trips if trips < 1000 else None
        assert _trip_count(loop, graph) == expected, (op, start, stop, step)


def test_only_loops_that_may_run_long_poll(tmp_path):
    from adlite.compiler.backends.llvm.interrupt import needs_poll

    module = _load(tmp_path, '''
        def short(x):
            for _ in range(1000):
                x = x * 0.5 + 1.0
            return x

        def long(x):
            for _ in range(10**7):
                x = x * 0.5 + 1.0
            return x

        def unknown(x, n):
            for _ in range(n):
                x = x * 0.5 + 1.0
            return x

        def data_dependent(x):
            while x < 1000.0:
                x = x * 1.5 + 0.1
            return x

        def products(a):
            for _ in range(4):  # few iterations, but each 300**3 multiply-adds
                a = a @ a * 1e-3
            return a.sum()
    ''')
    for fn, args, polls in ((module.short, (1.0,), False), (module.long, (1.0,), True),
                            (module.unknown, (1.0, 5), True),
                            (module.data_dependent, (1.0,), True),
                            (module.products, (np.ones((300, 300)),), True)):
        for kind in ("jit", "grad"):  # grad: the forward loop and the reverse (tape) loop
            graph, loops = _loops(fn, kind, args)
            assert loops and all(needs_poll(e, graph) == polls for e in loops), (fn, kind)
