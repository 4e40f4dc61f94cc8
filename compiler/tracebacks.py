"""Tracebacks that show the user's code, not adlite's (as JAX filters its own frames).

Contract: `boundary(fn)` wraps an entry point of the API (`vjp`, `jvp`, ...); a hot entry point
(a transformation's `__call__`) calls `hide_frames(error)` in its own `except` clause and
re-raises instead (no wrapper call on the way in). An exception leaving it has the frames of
adlite's own modules removed from its traceback (and from those of its `__cause__` /
`__context__` chain); what stays are the user's frames: the caller, and the user's functions
when adlite called them (a Python fallback, a callback). `ADLITE_TRACEBACK=full` in the
environment (read at each exception) keeps every frame. The exception itself (type, message,
notes, attributes) is unchanged: tests matching messages see what they saw. Nothing is
done, and nothing costs, when no exception is raised.
"""

from __future__ import annotations

import functools
import os
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

# adlite's packages: compiler/, derivatives/ and runtime/ beside this package's directory
_PACKAGE = Path(__file__).resolve().parent
_OURS = tuple(str(_PACKAGE.parent / name) + os.sep for name in
              ("compiler", "derivatives", "runtime")) + (str(_PACKAGE) + os.sep,)


def _ours(frame: types.FrameType) -> bool:
    return frame.f_code.co_filename.startswith(_OURS)


def _filtered(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback without adlite's frames."""
    kept = []
    while tb is not None:
        if not _ours(tb.tb_frame):
            kept.append(tb)
        tb = tb.tb_next
    result = None
    for entry in reversed(kept):
        result = types.TracebackType(result, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return result


def _clean(error: BaseException | None) -> None:
    """Filter the tracebacks of `error` and of its causes and contexts."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        error.__traceback__ = _filtered(error.__traceback__)
        error = error.__cause__ or error.__context__


def hide_frames(error: BaseException) -> None:
    """Remove adlite's frames from the tracebacks of `error` and its causes (unless
    ADLITE_TRACEBACK=full); the caller re-raises it (bare `raise`)."""
    if os.environ.get("ADLITE_TRACEBACK", "").strip().lower() != "full":
        _clean(error)


def boundary(fn: F) -> F:
    """`fn`, its exceptions' tracebacks without adlite's frames (see the module doc)."""
    @functools.wraps(fn)
    def entry(*args: Any, **kwargs: Any):
        try:
            return fn(*args, **kwargs)
        except Exception as error:
            hide_frames(error)
            raise

    return entry  # type: ignore[return-value]
