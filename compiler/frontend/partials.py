"""`functools.partial` objects called in compiled code, made inside it or outside it.

Contract: `make(conv, pairs, kwpairs, node)` is the value of `functools.partial(f, *args,
**keywords)` called in compiled code: a `Partial` holding `f` and the (value, Ref) pairs of
its arguments, which it binds when made, as Python's does (an array it holds is the same
object: a write into it before the call is seen, through its Ref, by the names of the
calling function or of the function that made it, as in Python).
`applied(conv, partial, pairs, kwpairs, node)` is `(f, pairs, kwpairs)` of a call of a
`Partial` or of a `functools.partial` object from outside the compiled code: the held
arguments first, then the call's; the call's keywords override the held ones (Python's
rule). An outside partial is a compile-time object checked by identity at every call; its
`func`, `args` and `keywords` are read at every call as the values of an object's attributes
are (`externals.py`: numbers and arrays passed, other values guarded). Nested partials
unwrap one level per call (`call_value` calls the result again).
"""

from __future__ import annotations

import functools

from . import static_values
from .aliasing import Ref
from .conversion_context import ConversionContext
from .externals import Place


class Partial:
    """`functools.partial(func, *args, **keywords)` made in compiled code."""

    python_class = functools.partial  # what `isinstance` sees

    def __init__(self, func, pairs: list, kwpairs: dict,
                 owner: ConversionContext | None = None) -> None:
        self.func, self.pairs, self.kwpairs = func, pairs, kwpairs
        self.owner = owner  # the converter that made it, whose names see its arrays

    def same_as(self, other) -> bool:
        """The same function and the same argument values (a join needs no choice)."""
        values = [v for v, _ in self.pairs] + [v for v, _ in self.kwpairs.values()]
        return isinstance(other, Partial) and other.func is self.func and \
            other.kwpairs.keys() == self.kwpairs.keys() and len(other.pairs) == len(self.pairs) \
            and all(a is b for a, b in zip(
                values, [v for v, _ in other.pairs] + [v for v, _ in other.kwpairs.values()],
                strict=True))


def is_partial(func) -> bool:
    return isinstance(func, Partial | functools.partial)


def make(conv: ConversionContext, pairs: list, kwpairs: dict, node) -> Partial:
    if not pairs:
        raise conv.source.error(node, "TypeError: partial() takes a function to call",
                                "functools.partial(f, *args, **keywords)")
    func = pairs[0][0]
    if not static_values.is_static(func):
        raise conv.source.error(node, "TypeError: the first argument of partial() must be "
                                      "callable")
    return Partial(func, list(pairs[1:]), dict(kwpairs), conv)


def _current(convs: list, value, ref):
    """The pair of an argument a partial holds, with an array's current value as the first
    of the converters `convs` that has a name for it sees it (a write into the array after
    the partial was made is seen, as in Python)."""
    if isinstance(ref, Ref) and ref.plain:
        for conv in convs:
            name = conv.scope.base_name(ref.obj)
            if name is not None:
                return conv.scope.get(name), ref
    return value, ref


def _outside(conv: ConversionContext, partial: functools.partial, node) -> Partial:
    """An outside partial's function and arguments, read as attributes of an object."""
    def read(source, step, key, label):
        return conv.resolve_global(source[key] if step == "item" else getattr(source, key),
                                   node, Place(source, step, key, label))

    func = read(partial, "attr", "func", "partial.func")
    args = read(partial, "attr", "args", "partial.args")
    keywords = {k: read(partial.keywords, "item", k, f"partial.keywords[{k!r}]")
                for k in partial.keywords}
    return Partial(func, [(v, None) for v in args], {k: (v, None) for k, v in
                                                      keywords.items()})


def applied(conv: ConversionContext, partial, pairs: list, kwpairs: dict, node) -> tuple:
    """(function, pairs, keyword pairs) of a call of `partial` with `pairs` and `kwpairs`."""
    if isinstance(partial, functools.partial):
        partial = _outside(conv, partial, node)
    convs = [conv] + ([partial.owner] if partial.owner is not None else [])
    held = [_current(convs, v, r) for v, r in partial.pairs]
    keywords = {k: _current(convs, v, r) for k, v, r in
                ((k, *pair) for k, pair in partial.kwpairs.items())}
    return partial.func, held + list(pairs), keywords | kwpairs
