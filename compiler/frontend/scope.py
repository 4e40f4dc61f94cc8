"""The variables of a function body at one point of its conversion: one `Scope` value.

Contract: a `Scope` holds, for every variable name,
- `env`: its value (an IR atom, a compile-time value, a tuple/dict/list of them, or
  `aliasing.LIVE` for a live view, read through its base's names);
- `refs`: the array object it is bound to (an `aliasing.Ref`; a tuple of them for a tuple);
- `undefined`: the names bound on some paths only (reading one is refused);
- `poisoned`: the views a write cut off from their base (name -> the write's line; reading one
  is refused).
The converter (`to_ir.py`) owns one scope and replaces it while it runs a block in a fresh
builder (`enter`: an if arm, a loop body or test); `control_flow.py` merges the scopes the
blocks leave. Operations only change these four tables: emitting IR and the refusals (with
the user's line) are the converter's.
"""

from __future__ import annotations

from ..ir.core import Const, Var
from .aliasing import Ref, blur


class Scope:
    """The four tables of a function's variables (see the module doc)."""

    __slots__ = ("env", "refs", "undefined", "poisoned")

    def __init__(self, env: dict | None = None, refs: dict | None = None,
                 undefined: set | None = None, poisoned: dict | None = None) -> None:
        self.env: dict[str, object] = {} if env is None else env
        self.refs: dict[str, object] = {} if refs is None else refs
        self.undefined: set[str] = set() if undefined is None else undefined
        self.poisoned: dict[str, int] = {} if poisoned is None else poisoned

    def enter(self, bound: dict, refs: dict | None = None,
              poisoned: dict | None = None) -> Scope:
        """A copy for a block run in a fresh builder: the names of `bound` rebound to the
        block's inputs; `refs` and `poisoned` replace this scope's (a loop's head state)."""
        return Scope({**self.env, **bound}, dict(self.refs if refs is None else refs),
                     set(self.undefined), dict(self.poisoned if poisoned is None else poisoned))

    def bind(self, name: str, value, ref) -> tuple:
        """Bind `name` to `value` (LIVE for a live view) and the object `ref` (None: none);
        a rebound name is no longer poisoned. Returns its previous (Ref, value)."""
        old = self.refs.pop(name, None), self.env.get(name)
        self.poisoned.pop(name, None)
        self.env[name] = value
        if ref is not None:
            self.refs[name] = ref
        return old

    def defined(self, name: str) -> bool:
        """Bound on every path that reaches this point."""
        return name in self.env and name not in self.undefined

    def define(self, name: str) -> None:
        """`name` is bound on every path from now on."""
        self.undefined.discard(name)

    def mark_maybe_undefined(self, name: str) -> None:
        self.undefined.add(name)

    def join_defined(self, name: str, everywhere: bool, before: bool) -> None:
        """After an if: defined when every arm binds it, maybe undefined when some arm does
        not and it was not defined `before` the if."""
        if everywhere:
            self.define(name)
        elif not before:
            self.mark_maybe_undefined(name)

    def poison(self, name: str, line: int) -> None:
        """A write at `line` cut view `name` off from its base."""
        self.poisoned[name] = line

    def base_name(self, obj: int) -> str | None:
        """A name bound to the whole of array object `obj` (its value), if any."""
        return next((n for n, r in self.refs.items()
                     if isinstance(r, Ref) and r.plain and r.obj == obj
                     and isinstance(self.env.get(n), Var | Const)), None)

    def leave_loop(self, head_refs: dict, head_poisoned: dict, body: Scope, entry: dict,
                   private: frozenset) -> None:
        """After a loop: the objects and poisoned views at its head, with those of the names
        that only its body binds (their objects blurred over the `private` ones the body
        trades, see aliasing.blur); `entry` is the environment before the loop."""
        self.refs = {**head_refs, **blur({n: r for n, r in body.refs.items() if n not in entry},
                                         private)}
        self.poisoned = {**head_poisoned, **{n: line for n, line in body.poisoned.items()
                                             if n not in entry}}

