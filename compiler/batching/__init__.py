"""Batching: `vmap`, the transformation of a function of one example into a function of a
batch of examples, on the IR.

    from adlite.compiler import grad, vmap

    per_example = vmap(grad(loss), in_axes=(None, 0, 0))   # one gradient per example
    per_example(w, xs, ys)                                   # shape (batch,) + w.shape

Design:
- `vmap(f, in_axes, out_axes)` (`vmap.py`) builds the IR of `f` for one example (whatever
  `f` is: a Python function, or an adlite transformation such as `grad(f)`, `jit(f)` or
  another `vmap`, through their `ir_for`), batches that graph, and compiles it like `jit`.
  It has an `ir_for` too, so `jit(vmap(f))`, `grad` of a function calling it, and
  `vmap(vmap(f))` compose.
- The batching interpreter (`interpreter.py`) rewrites the graph equation by equation,
  knowing which values carry the batch, always as their axis 0, by the `batch` rule of
  each primitive in the table of primitives, which this package attaches (`table.py`;
  `rules.py`: elementwise, reductions, shapes, matmul, indexing; `control.py`: loops,
  branches, AD tapes).
- A primitive without a rule, or a rule that declines for its operands, falls back to the
  per-example map (`mapping.py`): a loop over the batch running the unbatched equation on
  example i, so every program batches. Loops whose trip count and branches whose
  predicate differ between examples run per example this way (branches whose arms cannot
  fail run both arms and select instead, and such loops run masked, while any example is
  active). The AD tapes are simulated while batching (`tapes.py`): a value loads batched
  exactly when it was stored batched, and a mapped loop that loads tape values visits the
  examples in the reverse order of the loop that stored them, so per-example gradients of
  any order work through loops of every kind.
- Semantics: as a Python loop over the examples calling `f`, except that arithmetic on
  batched scalars follows numpy's array semantics (int64 results wrap instead of raising
  `OverflowError`, as `f` applied to arrays would), and effects run statement by statement:
  each check or print runs for every example (in example order; the first failing check
  raises) before the next one, and one that reads no batched value runs once.
- The batched loops are array loops of the backends: the LLVM backend's parallel loop nests
  run them across cores.
"""

from . import control, rules  # noqa: F401  (attach the batching rules to the table)
from .interpreter import batch_graph
from .vmap import vmap

__all__ = ["batch_graph", "vmap"]
