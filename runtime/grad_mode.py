"""Global gradient-recording switch of the eager tape.

Contract: `is_grad_enabled()` tells whether operations on tensors that require grad are
recorded. `no_grad()` / `enable_grad()` / `set_grad_enabled(mode)` are context managers (and
decorators) that set the switch for a block and restore it afterwards, as in PyTorch.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

_state = threading.local()


def is_grad_enabled() -> bool:
    """True when new operations are recorded on the tape."""
    return getattr(_state, "enabled", True)


def _set(mode: bool) -> None:
    _state.enabled = bool(mode)


class set_grad_enabled:
    """Context manager / decorator setting gradient recording to `mode` inside its block."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self._previous: list[bool] = []

    def __enter__(self) -> None:
        self._previous.append(is_grad_enabled())
        _set(self.mode)

    def __exit__(self, *exc: object) -> None:
        _set(self._previous.pop())

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with type(self)(self.mode) if type(self) is set_grad_enabled else type(self)():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(set_grad_enabled):
    """Disable recording: results have `requires_grad=False` and `grad_fn=None`."""

    def __init__(self) -> None:
        super().__init__(False)


class enable_grad(set_grad_enabled):
    """Enable recording inside a `no_grad` block."""

    def __init__(self) -> None:
        super().__init__(True)
