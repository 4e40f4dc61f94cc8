"""Build each cache entry once, even when several threads ask for it at the same moment.

Contract: `once(table, key, build)` returns `table[key]`, first storing `build()` there when
the key is missing. While one thread builds an entry, other threads asking for the same
(table, key) wait and then return that entry (or, if the build raised, one of them builds it
again); different keys build in parallel. A thread never waits for a build that waits, directly
or through other waiting threads, for the thread itself (nested compilations: grad of grad,
compiled functions called inside compiled code, or a recursion that the frontend rejects): it
builds the entry itself instead, so no combination of nested builds can deadlock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any


class _Build:
    """An entry being built by thread `owner`; `done` is set when the build ends."""

    def __init__(self) -> None:
        self.owner = threading.get_ident()
        self.done = threading.Event()


_lock = threading.Lock()  # guards the two tables below (held only for dictionary updates)
_building: dict[tuple[int, Hashable], _Build] = {}  # (id(table), key) -> build under way
_waiting: dict[int, _Build] = {}  # thread -> the build it waits for


def _would_wait_for_itself(build: _Build, me: int) -> bool:
    owner = build.owner
    seen = set()
    while owner != me:
        if owner in seen or owner not in _waiting:
            return False
        seen.add(owner)
        owner = _waiting[owner].owner
    return True


def once(table: dict, key: Hashable, build: Callable[[], Any]) -> Any:
    me = threading.get_ident()
    slot = (id(table), key)
    while True:
        with _lock:
            if key in table:
                return table[key]
            current = _building.get(slot)
            if current is None or _would_wait_for_itself(current, me):
                mine = _Build()
                if current is None:
                    _building[slot] = mine
                break
            _waiting[me] = current
        current.done.wait()
        with _lock:
            del _waiting[me]
    try:
        value = build()
        with _lock:
            return table.setdefault(key, value)
    finally:
        with _lock:
            if _building.get(slot) is mine:
                del _building[slot]
        mine.done.set()
