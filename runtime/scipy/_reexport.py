"""The module `__getattr__` that re-exports the rest of a scipy module (see the package)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any


def rest_of(module: ModuleType) -> Callable[[str], Any]:
    """A module `__getattr__` giving `module`'s attribute `name` (AttributeError as scipy's)."""

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module protocol's name
        return getattr(module, name)

    return __getattr__
