"""What an adlite transformation is to the rest of the compiler, decided in one place.

Contract: a transformation (`jit`, `grad`, `vmap`, `custom_vjp`, ... of a function) has
`ir_for(trees) -> (graph, result tree)`: its graph for the argument trees of a call (inputs and
outputs flat), so that compiled code can call it and other transformations can transform it
again. `is_transformation(obj)` tells one from a plain callable; `innermost(fn)` is the Python
function under any number of transformations (its source is what the user wrote).
`transformer` marks the API functions that make transformations (`grad`, `jit`, ...), so that
compiled code calling `grad(f)` runs that call while compiling.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Transformation(Protocol):
    """Anything compiled code can call and transformations can transform again."""

    def ir_for(self, trees: Any) -> tuple[Any, Any]:
        ...


def is_transformation(obj: object) -> bool:
    return isinstance(obj, Transformation)


def transformer(fn: Callable) -> Callable:
    """Marks an API function that makes a transformation of a function (`grad(f)`, `jit(f)`,
    ...): called inside compiled code with compile-time arguments it runs while compiling
    (`makes_transformations`), and its result is called as a transformation."""
    fn.makes_transformation = True
    return fn


def makes_transformations(obj: object) -> bool:
    return getattr(obj, "makes_transformation", False) is True


def innermost(fn: Callable) -> Callable:
    """The function under the transformations of `fn` (`fn` itself when it is none); a
    transformation without an inner `fn` (a `custom_vjp` object) is its own innermost."""
    while is_transformation(fn) and hasattr(fn, "fn"):
        fn = fn.fn
    return fn
