"""Every case in its own process, `workers` at a time, each with a time limit.

The parent collects the cases (autograd's test modules imported, their functions recorded)
and forks one child per case, which inherits the case as recorded: nothing is pickled, and
the child starts from the parent's imports. Each child sends each mode's `Result` through a
pipe as soon as it has it; a child still running after `timeout` seconds is killed, and a
child that dies (a signal, a timeout, an exit without reporting) leaves its unreported modes
as `crash` with the reason. The parent never runs adlite, so no compiler or thread pool
state is forked.
"""

from __future__ import annotations

import multiprocessing
import os
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from pathlib import Path

from .collect import Case
from .modes import Result, planned_modes, run_case


def _child(case: Case, tests: Path, entries: Path, number: int, pipe: Connection) -> None:
    try:
        run_case(case, tests, entries, number, pipe.send)
    except BaseException:  # noqa: BLE001  (the parent reports the missing modes)
        traceback.print_exc()
    finally:
        pipe.close()
        os._exit(0)  # no atexit handlers or finalizers inherited from the parent


def run_all(cases: list[Case], tests: Path, entries: Path, *, workers: int = 2,
            timeout: float = 60.0,
            progress: Callable[[int, int], None] | None = None) -> list[list[Result]]:
    """One list of results per case (in `cases`' order; each mode once, in `MODES` order)."""
    context = multiprocessing.get_context("fork")
    results: list[list[Result]] = [[] for _ in cases]
    pending = list(range(len(cases)))[::-1]
    running: dict[int, tuple[multiprocessing.Process, Connection, float]] = {}
    done = 0
    while pending or running:
        while pending and len(running) < workers:
            number = pending.pop()
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_child, args=(cases[number], tests, entries,
                                                           number, send), daemon=True)
            process.start()
            send.close()
            running[number] = (process, receive, time.monotonic())
        ready = wait([r for _, r, _ in running.values()], timeout=1.0)
        for number, (process, receive, started) in list(running.items()):
            finished = False
            if receive in ready:
                try:
                    while receive.poll():
                        results[number].append(receive.recv())
                except (EOFError, OSError):
                    finished = True
            late = time.monotonic() - started > timeout
            if not (finished or late):
                continue
            if late and process.is_alive():
                process.kill()
            process.join()
            receive.close()
            reason = (f"timeout after {timeout:.0f} s" if late
                      else f"process died (exit code {process.exitcode})")
            seen = {r.mode for r in results[number]}
            results[number] += [Result(m, "crash", reason) for m in planned_modes(cases[number])
                                if m not in seen and not (m == "hessian" and process.exitcode
                                                          == 0 and not late)]
            del running[number]
            done += 1
            if progress is not None:
                progress(done, len(cases))
    return results
