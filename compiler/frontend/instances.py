"""The objects of user classes that compiled code makes (`objects.py`), as values: `Instance`
and the variables holding their attributes.

Contract: an `Instance` stands for one object made in compiled code: its class, the names of
the attributes it has been given (in the order first set) and, per attribute, the variable
every converter handling the object binds it under (`variable`). `reachable(get, values)`
are the instances reachable from `values` (through tuples, dicts, lists and attributes);
`attribute_variables(scope, values)` the variables of `scope` holding their attributes,
which blocks and inlined calls pass on as they do variables (`closures.py`, `objects.py`).
"""

from __future__ import annotations

import itertools

from .sequences import ListValue

_ids = itertools.count(1)


class Instance:
    """An object made in compiled code: its class and the attributes it has been given."""

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.key = next(_ids)
        self.names: list[str] = []  # its attributes, in the order they were first set
        params = getattr(cls, "__dataclass_params__", None)
        self.frozen = bool(params is not None and params.frozen)

    @property
    def python_class(self) -> type:
        return self.cls

    def variable(self, name: str) -> str:
        """The variable holding attribute `name` (in every converter handling the object)."""
        return f"__obj{self.key}.{name}"

    def __repr__(self) -> str:
        return f"<{self.cls.__name__} object made in compiled code>"


def reachable(get, values) -> list[Instance]:
    """The instances reachable from `values` (through tuples, dicts, lists and the
    attributes `get(variable)` gives: None for one not bound)."""
    found: list[Instance] = []
    stack = list(values)
    while stack:
        v = stack.pop()
        if isinstance(v, Instance) and not any(v is f for f in found):
            found.append(v)
            stack.extend(get(v.variable(n)) for n in v.names)
        elif isinstance(v, tuple | list):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, ListValue):
            stack.extend(v.items)
    return found


def attribute_variables(scope, values) -> list[str]:
    """The variables of `scope` holding attributes of the instances reachable from
    `values`."""
    def get(var):
        return scope.get(var) if var in scope else None

    return [v.variable(n) for v in reachable(get, values) for n in v.names
            if v.variable(n) in scope]
