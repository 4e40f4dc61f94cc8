"""Deeply nested expressions in the user's code: compiled, or refused with a clear error.

The frontend walks expressions recursively (gast conversion, normalisation, `to_ir`), and a
product of hundreds of factors or a chain of nested calls is as deep as it is long.
`nesting_guard(fn)` raises Python's recursion limit to RECURSION_LIMIT while the frontend
runs (Python 3.11 keeps Python frames off the C stack, so this cannot overflow it; the
limit is restored when the last concurrent user leaves), and turns a RecursionError that
still happens into an `AdliteSyntaxError` naming the function and suggesting to split the
expression. Python's own parser refuses sources nested much deeper than this limit allows.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .source import get_source

RECURSION_LIMIT = 30_000
_lock = threading.Lock()
_users = [0, 0]  # active guards, the limit to restore


@contextmanager
def nesting_guard(fn) -> Iterator[None]:
    with _lock:
        if _users[0] == 0:
            _users[1] = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_users[1], RECURSION_LIMIT))
        _users[0] += 1
    try:
        yield
    except RecursionError:
        source = get_source(fn)
        raise source.error(None, f"an expression in {fn.__name__!r} is nested too deeply to "
                                 "compile", "split it into several statements with "
                                            "intermediate variables") from None
    finally:
        with _lock:
            _users[0] -= 1
            if _users[0] == 0:
                sys.setrecursionlimit(_users[1])
