"""Which array object each name is bound to, so that writes are seen through every alias.

The IR is functional: `x[i] = v` produces a new value. numpy arrays are shared objects: after
`y = x`, a write through `y` is seen through `x`. The frontend therefore binds every name that
holds an array to a `Ref`: an object identity (a fresh one for every expression that creates a
new array; the same one for `y = x`, tuple unpacking, arguments of inlined calls and returned
arguments), optionally a *live view* (a basic index with constant ints and slices: `x[1:4]`,
`x[0]`, `x[:, 2]`), whose value is re-read from its base each time it is used and written by
writing into the base. Contract:

- `Ref.view` is a *folded* index spec into the object's value: a tuple of constant ints
  and `Slice`s (see `ir.index`), one per leading dimension;
- `Ref.frozen` marks a numpy view that compiled code cannot follow (reshape, transpose, `.T`,
  an index with runtime ints or `None`): its value is taken when it is created; a write
  through it is refused and a later write to its base *poisons* it (reading it is refused);
- `Ref.maybe` (non-empty) marks a name whose object depends on the path taken (the arms of an
  `if`, or the iterations of a loop, bind it differently): writes through it are refused and
  writes to any of the objects it may be poison it.
- A loop whose body only trades objects among some names (`u, u_new = u_new, u`), objects no
  other name sees, keeps those names plain (`private_objects`): which object a name holds is
  then unobservable, the loop carries each name's value, and the body's own names left
  bound to one of them are made `maybe` over them after the loop (`blur`).
Refusals are `AdliteSyntaxError`s raised by the converter naming the line; this module only
holds the data and the joins.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ..ir.core import Const
from ..ir.index import WHOLE, Int, NewAxis, Slice, Spec

_ids = itertools.count(1)
HIDDEN_PREFIX = "__arg"  # hidden names that keep an argument's object reachable


def new_object() -> int:
    return next(_ids)


def hidden_name(k: int) -> str:
    """The hidden variable holding the value of a function's k-th argument object (never
    read by user code, so that its final value is known even when every user name was
    rebound)."""
    return f"{HIDDEN_PREFIX}{k}"


@dataclass(frozen=True)
class Ref:
    obj: int
    view: tuple | None = None
    frozen: bool = False
    maybe: frozenset = frozenset()

    @property
    def plain(self) -> bool:
        """The name is bound to the object itself."""
        return self.view is None and not self.frozen and not self.maybe

    def objects(self) -> frozenset:
        """The objects whose writes this name may see."""
        return self.maybe | {self.obj}


def ambiguous(*refs) -> Ref:
    """A name whose object depends on the path taken: any of the objects of `refs`."""
    objs = frozenset().union(*(r.objects() for r in refs if isinstance(r, Ref)))
    return Ref(new_object(), maybe=objs)


def join(r0, r1, old: set[int], pairs: dict):
    """The Ref after an `if` of a name bound to `r0` in one arm and `r1` in the other.
    Objects made in the arms (not in `old`) are matched pairwise through `pairs`."""
    if r0 == r1 or isinstance(r0, tuple) or isinstance(r1, tuple):
        return r0
    if isinstance(r0, Ref) and isinstance(r1, Ref) and r0.plain and r1.plain and \
            r0.obj not in old and r1.obj not in old:
        left, right = pairs.setdefault("left", {}), pairs.setdefault("right", {})
        if left.get(r0.obj, r1.obj) == r1.obj and right.get(r1.obj, r0.obj) == r0.obj:
            left[r0.obj], right[r1.obj] = r1.obj, r0.obj
            return Ref(pairs.setdefault((r0.obj, r1.obj), new_object()))
    if isinstance(r0, Ref) or isinstance(r1, Ref):
        return ambiguous(r0, r1)
    return None


def objects_of(refs) -> set[int]:
    out = set()
    for r in refs:
        if isinstance(r, tuple):
            out |= objects_of(r)
        elif isinstance(r, Ref):
            out |= r.objects()
    return out


class LiveView:
    """The environment entry of a live view: its value is derived from the base on use."""

    __slots__ = ()


LIVE = LiveView()


View = tuple[int | Slice, ...]  # a folded spec: constant ints in place of `Int` items


def is_static_view(spec: Spec, ints: list) -> bool:
    """Basic indices whose view relation is known when compiling: constant ints and slices."""
    return not any(isinstance(item, NewAxis) for item in spec) and \
        all(isinstance(i, Const) for i in ints)


def static_spec(spec: Spec, ints: list) -> View:
    """An index spec with its (constant) ints folded in."""
    ints = iter(ints)
    return tuple(next(ints).value if isinstance(item, Int) else item for item in spec)


def spec_operands(view: View) -> tuple[Spec, list[int]]:
    """(spec, int values) of a folded spec, to emit `index` / `index_update` with constants."""
    spec = tuple(Int() if isinstance(item, int) else item for item in view)
    return spec, [item for item in view if isinstance(item, int)]


def view_key(view: View) -> tuple:
    """The numpy index of a folded spec (`x[view_key(v)]` is the view)."""
    return tuple(item if isinstance(item, int) else item.key() for item in view)


def compose(shape: tuple, outer: View, inner: View) -> View | None:
    """The folded spec on the base equal to `base[outer][inner]` (both folded, constant), or
    None when it is not expressible as one basic index."""
    items = list(outer) + [WHOLE] * (len(shape) - len(outer))
    inner = list(inner)
    out = []
    for n, item in zip(shape, items, strict=True):
        if isinstance(item, int):
            out.append(item)
            continue
        r = range(n)[item.key()]
        sub = inner.pop(0) if inner else WHOLE
        if isinstance(sub, int):
            if not -len(r) <= sub < len(r):
                return None
            out.append(r[sub])
        else:
            rr = r[sub.key()]
            out.append(Slice(rr.start, rr.stop if rr.stop >= 0 else None, rr.step))
    return tuple(out) if not inner else None


def signature(name: str, refs: dict, old: set[int], names) -> tuple:
    """How `name` relates to the other `names` (used to check that a loop keeps its aliasing
    from one iteration to the next): its own ref (objects made inside the loop are anonymous)
    and the names sharing its object."""
    r = refs[name]

    def label(obj):
        return obj if obj in old else None

    peers = frozenset((n, q.view, q.frozen) for n, q in refs.items()
                      if n != name and n in names and isinstance(q, Ref) and not q.maybe
                      and q.obj == r.obj)
    return label(r.obj), r.view, r.frozen, frozenset(map(label, r.maybe)), peers


def private_objects(names, head: dict, end: dict, known, old: set[int]) -> frozenset | None:
    """The objects `names` hold at a loop's head when the body only trades them among these
    names (each ends plain, on one of them or on an object the body made, aliased among
    themselves as at the head) and no other name of the loop's (`known`; at the head: any)
    sees them; else None."""
    if not names or not all(isinstance(head.get(n), Ref) and head[n].plain and
                            isinstance(end.get(n), Ref) and end[n].plain for n in names):
        return None
    at_head = frozenset(head[n].obj for n in names)
    at_end = frozenset(end[n].obj for n in names)
    if any(obj in old and obj not in at_head for obj in at_end):
        return None
    if any(n not in names and objects_of([r]) & at_head for n, r in head.items()) or \
            any(n not in names and n in known and objects_of([r]) & (at_head | at_end)
                for n, r in end.items()):
        return None
    if any((head[n].obj == head[m].obj) != (end[n].obj == end[m].obj)
           for n in names for m in names):
        return None
    return at_head | at_end


def blur(refs: dict, objects: frozenset) -> dict:
    """`refs` with every name that may see one of `objects` made ambiguous over them."""
    out = {}
    for n, r in refs.items():
        if isinstance(r, Ref) and r.objects() & objects:
            r = Ref(new_object(), frozen=r.frozen or bool(r.view), maybe=objects | r.maybe)
        out[n] = r
    return out


def frozen_ref(ref):
    """The Ref of a view compiled code does not follow (None for a new array)."""
    if not isinstance(ref, Ref):
        return None
    return Ref(ref.obj, frozen=True, maybe=ref.maybe)
