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
    """True when new operations are recorded on the tape (the default).

    The switch is per thread, as PyTorch's is; [`no_grad`][adlite.runtime.grad_mode.no_grad],
    [`enable_grad`][adlite.runtime.grad_mode.enable_grad] and
    [`set_grad_enabled`][adlite.runtime.grad_mode.set_grad_enabled] set it for a block.

    Examples:
        >>> from adlite.runtime import is_grad_enabled, no_grad
        >>> is_grad_enabled()
        True
        >>> with no_grad():
        ...     is_grad_enabled()
        False
    """
    return getattr(_state, "enabled", True)


def _set(mode: bool) -> None:
    _state.enabled = bool(mode)


class set_grad_enabled:
    """Context manager / decorator setting gradient recording to `mode` inside its block.

    The previous setting is restored when the block ends (also by an exception). As a
    decorator (`@set_grad_enabled(False)`), every call of the function runs with `mode`.

    Args:
        mode: True to record operations, False not to.

    Examples:
        >>> from adlite.runtime import is_grad_enabled, set_grad_enabled, tensor
        >>> x = tensor(1.0, requires_grad=True)
        >>> with set_grad_enabled(False):
        ...     y = x * 2
        >>> y.requires_grad, is_grad_enabled()
        (False, True)
    """

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
    """Disable recording: results have `requires_grad=False` and `grad_fn=None`.

    A context manager or a decorator, as PyTorch's; the usual place for parameter updates
    (in-place changes of leaves that require grad are refused while recording).

    Examples:
        >>> from adlite.runtime import no_grad, tensor
        >>> w = tensor([1.0, 2.0], requires_grad=True)
        >>> with no_grad():
        ...     w -= 0.5 * w
        >>> w
        tensor([0.5, 1. ], requires_grad=True)
        >>> @no_grad()
        ... def predict(x):
        ...     return w * x
        >>> predict(2.0).requires_grad
        False
    """

    def __init__(self) -> None:
        super().__init__(False)


class enable_grad(set_grad_enabled):
    """Enable recording inside a `no_grad` block (a context manager or a decorator).

    Examples:
        >>> from adlite.runtime import enable_grad, no_grad, tensor
        >>> x = tensor(1.0, requires_grad=True)
        >>> with no_grad():
        ...     with enable_grad():
        ...         y = x * 2
        >>> y.requires_grad
        True
    """

    def __init__(self) -> None:
        super().__init__(True)
