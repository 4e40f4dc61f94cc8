"""Python's `sorted`, `map`, `slice`, `operator.itemgetter` / `attrgetter` and dict
comprehensions on values known when compiling.

Contract: importing it (`to_ir.py` does) registers the rules of
- `sorted(iterable, key=None, reverse=False)`: a list (`sequences.ListValue`) of the items of
  a list, tuple, range or dict (its keys) in Python's stable order, the keys compared being
  compile-time values (strings, ints, constants: `sorted(d)`, `sorted(d.items(),
  key=op.itemgetter(0))`); `key` is any function compiled code can call (a lambda, a getter),
  called once per item. Sorting by numbers known only at run time is refused at the call
  (np.sort sorts arrays);
- `map(f, *iterables)` of such sequences: the list of the calls, made in order (Python's
  iterator, read once, as a list);
- `dict_with`, the hidden function of dict comprehensions (`comprehensions.py`);
- `slice(start, stop, step)` of ints and None known when compiling: the Python slice object,
  which subscripts read as `start:stop:step` (`operator_module.index_syntax`);
- `operator.itemgetter(...)` / `operator.attrgetter(...)` of compile-time items: the getter
  object; calling one on a tuple, list or dict of the compiled code indexes it as Python
  does (a resolver), on anything else it is refused.
"""

from __future__ import annotations

import builtins
import operator

from ..ir.builder import const
from . import static_values
from .context import CallContext
from .library.registry import add_resolver, register
from .sequences import ListValue, RangeValue
from .static_requirements import refusal


def _items(cx: CallContext, iterable, node, name: str) -> tuple[list, list]:
    """(items, their refs) of what `name` (sorted, map) iterates."""
    if isinstance(iterable, ListValue) and iterable.runtime is None:
        return list(iterable.items), list(iterable.refs)
    if isinstance(iterable, RangeValue):
        return [const(i) for i in iterable.range], [None] * len(iterable.range)
    if isinstance(iterable, dict):
        return list(iterable), [None] * len(iterable)
    if static_values.is_tuple(iterable):
        return list(iterable), [None] * len(iterable)
    raise cx.source.error(node, f"{name}() of {static_values.describe(iterable)}",
                          f"{name}() takes lists, tuples, ranges and dicts known when "
                          "compiling; use numpy's functions on arrays (np.sort)")


def _sorted(cx: CallContext, args, kwargs, node):
    (iterable,) = cx.exactly(args, 1, node)
    unknown = set(kwargs) - {"key", "reverse"}
    if unknown:
        raise cx.source.error(node, f"sorted() got an unexpected keyword argument "
                                    f"{unknown.pop()!r}")
    key = kwargs.get("key")
    reverse = "reverse" in kwargs and bool(cx.static(kwargs["reverse"], node,
                                                     "sorted(reverse=...)"))
    items, refs = _items(cx, iterable, node, "sorted")
    keys = [item if key is None else cx.call_value(key, [(item, ref)], {}, node)[0]
            for item, ref in zip(items, refs, strict=True)]
    if any(static_values.is_runtime(k) for k in keys):
        raise refusal(cx.source, node, "value", "sorted() compares its items' keys when "
                      "compiling, and some are numbers known only at run time",
                      "sort an array with np.sort / np.argsort")
    order = sorted(range(len(items)), key=lambda i: static_values.python_value(keys[i]),
                   reverse=reverse)
    return ListValue([items[i] for i in order], [refs[i] for i in order], cx.b)


def _slice(cx: CallContext, args, node):
    if not 1 <= len(args) <= 3:
        raise cx.source.error(node, f"slice expected 1 to 3 arguments, got {len(args)}")
    bounds = [cx.static(a, node, "the bounds of slice()") for a in args]
    return builtins.slice(*bounds)


def _getter(kind):
    def make(cx: CallContext, args, node):
        return kind(*[cx.static(a, node, f"the arguments of {kind.__name__}()") for a in args])

    return make


def _getter_call(obj):
    """The rule of calling an itemgetter / attrgetter made when compiling (None otherwise)."""
    if not isinstance(obj, operator.itemgetter | operator.attrgetter):
        return None

    def call(cx: CallContext, args, kwargs, node):
        (value,) = cx.exactly(args, 1, node)
        if isinstance(value, ListValue) and value.runtime is None:
            value = static_values.ListTuple(value.items)
        if not (static_values.is_tuple(value) or isinstance(value, dict)):
            raise cx.source.error(node, f"{type(obj).__name__} of "
                                        f"{static_values.describe(value)}",
                                  "index it: x[i]")
        try:
            return obj(value)
        except (IndexError, KeyError, TypeError, AttributeError) as e:
            raise cx.source.error(node, f"{type(e).__name__}: {e}") from None

    return call


def dict_with(d, key, value):
    """The hidden function of dict comprehensions (`comprehensions.py`): `{**d, key: value}`."""
    raise TypeError("compiled code only")  # a marker object; lowered by `_dict_with`


def _dict_with(cx: CallContext, args, node):
    d, key, value = args
    if static_values.is_runtime(key):
        raise refusal(cx.source, node, "value", "a dict comprehension's keys are strings "
                      "known when compiling, and these are known only at run time")
    key = static_values.python_value(key)
    if not isinstance(key, str):
        raise cx.source.error(node, f"a dict comprehension with the key {key!r}",
                              "compiled code's dicts have string keys known when compiling")
    return {**d, key: value}


def _map(cx: CallContext, args, node):
    """`map(f, *iterables)`: the list of the calls (shortest iterable), made now."""
    if len(args) < 2:
        raise cx.source.error(node, "map() must have at least two arguments.")
    f, *iterables = args
    columns = [_items(cx, it, node, "map") for it in iterables]
    rows = zip(*[zip(*column, strict=True) for column in columns], strict=False)
    return ListValue([cx.call_value(f, list(row), {}, node)[0] for row in rows], None, cx.b)


register([builtins.sorted], _sorted)
register([builtins.map], _map, keywords=False)
register([dict_with], _dict_with, keywords=False)
register([builtins.slice], _slice, keywords=False)
register([operator.itemgetter], _getter(operator.itemgetter), keywords=False)
register([operator.attrgetter], _getter(operator.attrgetter), keywords=False)
add_resolver(_getter_call)
