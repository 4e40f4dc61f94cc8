"""The adjoints of basic indexing (see `vocabulary.Linear`), each written once.

`key` is an opaque index each side gives in its own representation (the compiler: its index
spec with the integer operands; the tape: a numpy key); only the vocabulary words `take`,
`scatter_add` and `zero_at` read it.
- `index`: `y = x[key]`; `x` gets the cotangent scattered (added) into zeros of its shape;
- `index_update`: `x[key] = v` (`mode="set"`, the tape's `index_put`) or `x[key] += v`
  (`mode="add"`); `x` gets the cotangent (zeroed at `key` when setting), `v` gets the
  cotangent at `key` summed back to its shape (it was broadcast), read before the zeroing
  so that the compiled zeroing can update the cotangent in place;
- `index_add` (the tape's scatter-add into zeros of `shape`): the cotangent at `key`.
"""

from __future__ import annotations

from .vocabulary import Linear, define


def _index_update(o, g, shapes, *, key, mode):
    taken = o.sum_to(o.take(g, key), shapes[1])  # read before zeroing: an in-place update
    return [g if mode == "add" else o.zero_at(g, key), taken]


define(Linear("index", lambda o, g, shapes, *, key: [o.scatter_add(shapes[0], g, key)]))
define(Linear("index_update", _index_update))
define(Linear("index_add", lambda o, g, shapes, *, key, shape: [o.take(g, key)]))
