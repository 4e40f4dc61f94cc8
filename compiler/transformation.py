"""What an adlite transformation is to the rest of the compiler, decided in one place.

Contract: a transformation (`jit`, `grad`, `vmap`, `custom_vjp`, ... of a function) has
`ir_for(trees) -> (graph, result tree)`: its graph for the argument trees of a call (inputs and
outputs flat), so that compiled code can call it and other transformations can transform it
again. `is_transformation(obj)` tells one from a plain callable; `innermost(fn)` is the Python
function under any number of transformations (its source is what the user wrote).
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


def innermost(fn: Callable) -> Callable:
    """The function under the transformations of `fn` (`fn` itself when it is none); a
    transformation without an inner `fn` (a `custom_vjp` object) is its own innermost."""
    while is_transformation(fn) and hasattr(fn, "fn"):
        fn = fn.fn
    return fn
