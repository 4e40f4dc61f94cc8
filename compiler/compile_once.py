"""Build each cache entry once, even when several threads ask for it at the same moment.

Contract: `once(table, key, build)` returns `table[key]`, first storing `build()` there when
the key is missing; an existing entry is returned without locking. Builds run one at a time
under one process-wide reentrant lock: threads asking for the same new key wait for the first
build and return its entry, and a build may call `once` again from the same thread (nested
compilations: grad of grad, compiled functions called inside compiled code), so no
combination of builds can deadlock. Serialising builds costs little, as the frontend and the
passes hold the GIL anyway, and it is needed: CPython's `ast` conversions are not safe from
concurrent threads (3.11 raises "SystemError: AST constructor recursion depth mismatch"), and
llvmlite parses modules in LLVM's global context. Python's cyclic garbage collector is paused
during a build (the outermost one; builds allocate millions of long-lived objects, and the
collections they triggered took a third of the time of compiling a 5000-statement function);
it runs again, on its usual schedule, once the build returns or raises. (The pause was taken
out for a while after the large collection following a build segfaulted in full test runs;
the cause was elsewhere: entry points' method definitions freed by the collector, see
`pywrapper.make_builtin`.)
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any

_lock = threading.RLock()


def once(table: dict, key: Hashable, build: Callable[[], Any]) -> Any:
    entry = table.get(key)
    if entry is not None:
        return entry
    with _lock:
        if key not in table:
            with _collector_paused():
                table[key] = build()
        return table[key]


@contextmanager
def _collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
