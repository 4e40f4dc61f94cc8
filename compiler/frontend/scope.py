"""The variables of a function body at one point of its conversion: one `Scope` value.

Contract: a `Scope` is the only owner of four tables, which nothing else reads or writes:
- the values: for every bound name, an IR atom, a compile-time value, a tuple/dict/list of
  them, or `aliasing.LIVE` for a live view (read through its base's names);
- the objects: the array object a name is bound to (an `aliasing.Ref`; a tuple of them for
  a tuple);
- the maybe-undefined names: bound on some paths only (reading one is refused);
- the poisoned names: views a write cut off from their base (name -> the write's line;
  reading one is refused).
Its operations say what they mean in Python terms: `bind` (an assignment), `rebind` (the same
variable holds a new version of its value, e.g. after a write into its array), `define`,
`poison`; reads (`in`, `get`, `ref`, `defined`, `poisoned_at`) and copies of the tables
(`snapshot`, `objects`, `poisoned`); and the steps of the control flow (`enter` a block run
in a fresh builder, `join_defined` / `join_poisoned` after an if, `leave_loop`). The converter
(`to_ir.py`) owns one scope and replaces it while it runs a block; `control_flow.py` merges
the scopes the blocks leave. Operations only change these tables: emitting IR and the
refusals (with the user's line) are the converter's.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..ir.core import Const, Var
from .aliasing import Ref, blur

_KEEP = object()  # `rebind`: the name keeps its object


class Scope:
    """The four tables of a function's variables (see the module doc)."""

    __slots__ = ("_values", "_objects", "_undefined", "_poisoned")

    def __init__(self) -> None:
        self._values: dict[str, object] = {}
        self._objects: dict[str, object] = {}
        self._undefined: set[str] = set()
        self._poisoned: dict[str, int] = {}

    # ---- reads -----------------------------------------------------------------------------

    def __contains__(self, name: str) -> bool:
        """`name` is bound (on some path at least)."""
        return name in self._values

    def get(self, name: str):
        """The value `name` is bound to (LIVE for a live view), None when it is unbound."""
        return self._values.get(name)

    def ref(self, name: str):
        """The array object(s) `name` is bound to (a Ref, a tuple of them), else None."""
        return self._objects.get(name)

    def defined(self, name: str) -> bool:
        """Bound on every path that reaches this point."""
        return name in self._values and name not in self._undefined

    def poisoned_at(self, name: str) -> int | None:
        """The line of the write that cut view `name` off from its base, if one did."""
        return self._poisoned.get(name)

    def snapshot(self) -> dict[str, object]:
        """{name: value} now (a copy: later bindings do not change it)."""
        return dict(self._values)

    def objects(self) -> dict[str, object]:
        """{name: its array object(s)} now (a copy), for the names bound to one."""
        return dict(self._objects)

    def poisoned(self) -> dict[str, int]:
        """{view name: the line that poisoned it} now (a copy)."""
        return dict(self._poisoned)

    def base_name(self, obj: int) -> str | None:
        """A name bound to the whole of array object `obj` (its value), if any."""
        return next((n for n, r in self._objects.items()
                     if isinstance(r, Ref) and r.plain and r.obj == obj
                     and isinstance(self._values.get(n), Var | Const)), None)

    # ---- bindings --------------------------------------------------------------------------

    def bind(self, name: str, value, ref) -> tuple:
        """An assignment: `name` is bound to `value` (LIVE for a live view) and the object
        `ref` (None: none); a rebound name is no longer poisoned. Returns its previous
        (Ref, value)."""
        old = self._objects.pop(name, None), self._values.get(name)
        self._poisoned.pop(name, None)
        self._values[name] = value
        if ref is not None:
            self._objects[name] = ref
        return old

    def rebind(self, name: str, value, ref=_KEEP) -> None:
        """The same variable holds `value` now (its array's new version after a write, a
        frozen view, a name the conversion adds): its poison and definedness are kept, its
        object too unless `ref` is given (None: none)."""
        self._values[name] = value
        if ref is None:
            self._objects.pop(name, None)
        elif ref is not _KEEP:
            self._objects[name] = ref

    def unbind(self, name: str) -> None:
        """Forget the value of hidden name `name` (its object and poison are kept)."""
        self._values.pop(name, None)

    def define(self, name: str) -> None:
        """`name` is bound on every path from now on."""
        self._undefined.discard(name)

    def mark_maybe_undefined(self, name: str) -> None:
        """`name` is bound on some paths only from now on."""
        self._undefined.add(name)

    def poison(self, name: str, line: int) -> None:
        """A write at `line` cut view `name` off from its base."""
        self._poisoned[name] = line

    # ---- blocks ----------------------------------------------------------------------------

    def enter(self, bound: dict, refs: dict | None = None,
              poisoned: dict | None = None) -> Scope:
        """A copy for a block run in a fresh builder: the names of `bound` rebound to the
        block's inputs; `refs` and `poisoned` replace this scope's (a loop's head state)."""
        inner = Scope()
        inner._values = {**self._values, **bound}
        inner._objects = dict(self._objects if refs is None else refs)
        inner._undefined = set(self._undefined)
        inner._poisoned = dict(self._poisoned if poisoned is None else poisoned)
        return inner

    def join_defined(self, name: str, arms: Iterable[Scope]) -> None:
        """After an if whose arms left `arms`: `name` is defined when every arm defines it,
        maybe undefined when some arm does not and it was not defined before the if."""
        if all(arm.defined(name) for arm in arms):
            self.define(name)
        elif not self.defined(name):
            self.mark_maybe_undefined(name)

    def join_poisoned(self, arms: Iterable[Scope]) -> None:
        """After an if: the views that some arm poisoned are poisoned."""
        for arm in arms:
            self._poisoned.update(arm._poisoned)

    def leave_loop(self, head_refs: dict, head_poisoned: dict, body: Scope, entry: dict,
                   private: frozenset) -> None:
        """After a loop: the objects and poisoned views at its head, with those of the names
        that only its body binds (their objects blurred over the `private` ones the body
        trades, see aliasing.blur); `entry` is the environment before the loop."""
        self._objects = {**head_refs, **blur({n: r for n, r in body._objects.items()
                                              if n not in entry}, private)}
        self._poisoned = {**head_poisoned, **{n: line for n, line in body._poisoned.items()
                                              if n not in entry}}
