"""The user-facing `vmap(f, in_axes=0, out_axes=0)`.

Contract:
- `vmap(f, in_axes, out_axes)(*args)` is `f` applied to each example of a batch: for every
  i, `f` of example i of each batched argument (its slice at index i along its batch axis)
  and of the unbatched arguments as given, the results stacked along their `out_axes`.
  `f` is a Python function or an adlite transformation (`grad(g)` gives per-example
  gradients, `vmap(g)` batches twice); the result is compiled once per call signature, as
  `jit` does, and composes (`jit(vmap(f))`, `grad` of code calling it, `vmap(vmap(f))`).
- `in_axes`: an int (every argument batched along that axis, negative counting from the
  end), None (unbatched), or a tuple/list with one int or None per parameter of `f` (an int
  applies to every number or array inside a tuple, list or dict argument). Batched
  arguments are arrays; every batch axis has the same length. `out_axes`: an int or None
  for every output leaf, or a tuple/list with one per output leaf (the result's leaves, flat,
  in order); None only for outputs that do not depend on the batch.
- Bad input raises `ValueError` naming the argument: `in_axes` of the wrong length or type,
  an axis outside an argument's dimensions, a batched number or compile-time value,
  batch axes of different lengths, no batched argument, a batched output at `out_axes`
  None.
- `backend` is `jit`'s. Results have the structure `f` returns (tuples, lists, dicts,
  named tuples), each leaf batched. Writes of `f` into its argument arrays are not written
  back into the caller's arrays (as with `grad`: the batch is computed from the values at
  entry). A `vmap` pickles as `(f, in_axes, out_axes, backend)`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from .. import pickling
from ..api import Transformed
from ..arguments import (
    Node,
    Static,
    Tree,
    returns_selection,
    retyped,
    selection_refused,
    target_of,
)
from ..compile_once import once
from ..frontend import externals
from ..ir.builder import Builder
from ..ir.core import Externals, Graph, Type, Var
from ..passes import optimize
from ..pipeline import Compilation
from ..pipeline import run as run_stages
from ..tracebacks import boundary
from ..transformation import transformer
from . import tapes
from .interpreter import batch_eqns, batch_per_example, holds_lists
from .table import batch_of, move_axis

Axes = int | None | Sequence[int | None]


class Batched:
    """What [`vmap`][adlite.compiler.batching.vmap.vmap] returns: `vmap` of `fn`, its graph
    per signature (`ir_for`), compiled through `jit`."""

    def __init__(self, fn: Callable, in_axes: Axes = 0, out_axes: Axes = 0,
                 backend: str = "llvm") -> None:
        self.fn, self.backend = fn, backend
        self.in_axes, self.out_axes = _check_axes(in_axes, "in_axes"), \
            _check_axes(out_axes, "out_axes")
        functools.update_wrapper(self, fn, updated=())
        self.name = getattr(fn, "__name__", type(fn).__name__)
        self.params = _parameters(fn)
        if isinstance(self.in_axes, tuple) and self.params is not None and \
                len(self.in_axes) != len(self.params):
            raise self._error(f"in_axes has {len(self.in_axes)} entries but {self.name} takes "
                              f"{len(self.params)} arguments ({', '.join(self.params)})")
        self.cache: dict = {}
        self.compiled = Transformed(self, "jit", backend=backend)

    @boundary
    def __call__(self, *args: Any, **kwargs: Any):
        return self.compiled(*args, **kwargs)

    def __reduce__(self):
        return Batched, (pickling.shipped(self.fn, f"vmap({getattr(self.fn, '__qualname__', '')})"),
                         self.in_axes, self.out_axes, self.backend)

    @property
    def compile_count(self) -> int:
        """How many signatures were compiled (as `Transformed.compile_count`)."""
        return self.compiled.compile_count

    def ir_for(self, types: Sequence[Tree]) -> tuple[Graph, Tree]:
        """The batched graph for argument trees `types` (one per parameter; inputs and
        outputs flat), and the tree of its result (the function's, its leaves batched)."""
        trees = tuple(types)
        graph, tree = once(self.cache, trees, lambda: self._graph(trees))
        if not externals.holds(graph.externals.reads):  # a value it reads has changed
            graph, tree = self.cache[trees] = self._graph(trees)
        return graph, retyped(tree, [a.type for a in graph.outputs])

    def _error(self, message: str) -> ValueError:
        return ValueError(f"vmap({self.name}): {message}")

    def _graph(self, trees: tuple) -> tuple[Graph, Tree]:
        names = self.params if self.params and len(self.params) == len(trees) else \
            tuple(str(k) for k in range(len(trees)))
        axes = self.in_axes if isinstance(self.in_axes, tuple) else (self.in_axes,) * len(trees)
        if len(axes) != len(trees):
            raise self._error(f"in_axes has {len(axes)} entries but {self.name} was called "
                              f"with {len(trees)} arguments ({', '.join(names)})")
        leaves: list[tuple[str, Type, int | None]] = []
        for name, tree, axis in zip(names, trees, axes, strict=True):
            leaves += self._leaves(name, tree, axis)
        size = self._size(leaves)
        examples = tuple(self._example(tree, axis) for tree, axis in zip(trees, axes,
                                                                          strict=True))
        target, bound = target_of(self.fn)  # a method: its instance is compile-time
        c = run_stages(Compilation(target, tuple(Static(v) for v in bound) + examples),
                       ("frontend", "optimize"))
        if returns_selection(c.result):  # ragged: each example selects its own number
            raise selection_refused(f"vmap({self.name})")
        b = Builder()
        inputs = [Var(t, name) for name, t, _ in leaves]
        hidden = [Var(v.type, v.hint) for v in c.graph.externals.inputs]  # the last inputs
        args = [(move_axis(b, v, axis, 0), True) if axis is not None else (v, False)
                for v, (_, _, axis) in zip(inputs, leaves, strict=True)]
        batch = batch_per_example if holds_lists(c.graph) else batch_eqns
        with tapes.tapes():
            outs = batch(b, c.graph, args + [(v, False) for v in hidden], size)
        outputs = self._place(b, outs, size)
        graph = optimize(Graph(inputs + hidden, b.eqns, outputs, f"vmap_{c.graph.name}",
                               Externals(c.graph.externals.reads, tuple(hidden))))
        return graph, c.result

    def _leaves(self, name: str, tree: Tree, axis: int | None) -> list:
        """(name, type, normalised batch axis or None) of each runtime leaf of `tree`."""
        if isinstance(tree, Node):
            return [leaf for k, child in enumerate(tree.children)
                    for leaf in self._leaves(f"{name}[{tree.keys[k]!r}]" if tree.keys else
                                             f"{name}[{k}]", child, axis)]
        if axis is None:
            return [(name, tree, None)] if isinstance(tree, Type) else []
        if isinstance(tree, Static) or not tree.is_array:
            what = "a number" if isinstance(tree, Type) else "a compile-time value"
            raise self._error(f"argument {name!r} is {what}, not an array, and cannot be "
                              f"batched along axis {axis}; give it in_axes None")
        ndim = len(tree.shape)
        if not -ndim <= axis < ndim:
            raise self._error(f"in_axes {axis} is out of range for argument {name!r} of "
                              f"shape {tree.shape} ({ndim} dimension{'s' * (ndim != 1)})")
        return [(name, tree, axis % ndim)]

    def _size(self, leaves: list) -> int:
        batched = [(name, t.shape[axis], axis) for name, t, axis in leaves if axis is not None]
        if not batched:
            raise self._error("no argument is batched (in_axes is None for every argument)")
        first, size, axis = batched[0]
        for name, n, k in batched[1:]:
            if n != size:
                raise self._error(f"argument {name!r} has batch size {n} along axis {k}, "
                                  f"argument {first!r} {size} along axis {axis}")
        return size

    def _example(self, tree: Tree, axis: int | None) -> Tree:
        """The tree of one example of an argument."""
        if axis is None or isinstance(tree, Static):
            return tree
        if isinstance(tree, Node):
            return Node(tree.kind, tuple(self._example(c, axis) for c in tree.children),
                        tree.keys, tree.named)
        k = axis % len(tree.shape)
        return tree.with_shape(tree.shape[:k] + tree.shape[k + 1:] or None)

    def _place(self, b: Builder, outs: list, size: int) -> list:
        """The outputs with their batch axis moved to `out_axes`."""
        axes = self.out_axes if isinstance(self.out_axes, tuple) else \
            (self.out_axes,) * len(outs)
        if len(axes) != len(outs):
            raise self._error(f"out_axes has {len(axes)} entries but {self.name} returns "
                              f"{len(outs)} values")
        placed = []
        for k, ((atom, batched), axis) in enumerate(zip(outs, axes, strict=True)):
            if axis is None:
                if batched:
                    raise self._error(f"out_axes is None for output {k}, which depends on "
                                      "the batched arguments")
                placed.append(atom)
                continue
            atom = atom if batched else batch_of(b, atom, size)
            ndim = len(atom.type.shape)
            if not -ndim <= axis < ndim:
                raise self._error(f"out_axes {axis} is out of range for output {k} of "
                                  f"{ndim} dimension{'s' * (ndim != 1)}")
            placed.append(move_axis(b, atom, 0, axis % ndim))
        return placed


def _check_axes(axes: Axes, what: str) -> int | None | tuple:
    if axes is None or isinstance(axes, int) and not isinstance(axes, bool):
        return axes
    if isinstance(axes, tuple | list) and all(
            a is None or isinstance(a, int) and not isinstance(a, bool) for a in axes):
        return tuple(axes)
    raise ValueError(f"vmap: {what} must be an int, None, or a tuple of ints and Nones, "
                     f"got {axes!r}")


def _parameters(fn: Callable) -> tuple[str, ...] | None:
    """The parameter names of `fn`, or None when it takes *args or **kwargs."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None
    return tuple(p.name for p in params)


@transformer
def vmap(fn: Callable, in_axes: Axes = 0, out_axes: Axes = 0, *,
         backend: str = "llvm") -> Batched:
    """Vectorise a function of one example into a function of a batch of examples.

    `vmap(f, in_axes, out_axes)(*args)` is `f` applied to each example of a batch: for every
    index i, `f` of example i of each batched argument (its slice at i along its batch axis)
    and of the unbatched arguments as given, with the results stacked along `out_axes`. It
    equals a Python loop over the examples, except that batched int arithmetic wraps as
    numpy arrays do (instead of raising `OverflowError`), and each `print` or check runs for
    every example before the next statement runs.

    Like JAX's `vmap`, it transforms the whole function rather than calling it per example:
    adlite batches `f`'s IR (each primitive by its batching rule: elementwise operations,
    reductions, shape operations, matrix products, gathers and scatters); a primitive
    without a rule (linear algebra, sorting, checks) runs once per example inside the
    compiled code. Loops and branches whose condition is the same for every example stay
    one batched loop; conditions that differ per example run masked (both arms, then a
    select; a loop runs while any example is active) when nothing inside can raise, per
    example otherwise, so per-example trip counts work, also in per-example gradients.

    The result is compiled like [`jit`][adlite.compiler.jit] (once per call signature,
    cached) and composes: `f` may be a transformation (`vmap(grad(loss))` gives
    per-example gradients, `vmap(vmap(f))` batches twice), and `jit(vmap(f))`, `grad` of a
    function calling a `vmap`, or a `vmap` called from compiled code work. Results have
    the structure `f` returns (tuples, lists, dicts, named tuples), each leaf batched.
    Writes of `f` into its argument arrays are not written back into the caller's arrays.
    A `vmap` pickles as `(f, in_axes, out_axes, backend)`.

    Args:
        fn: The function of one example: a Python function or an adlite transformation.
        in_axes: Where each argument's batch axis is: an int (every argument batched along
            that axis; negative counts from the end), None (not batched: passed as given to
            every example), or a tuple or list with one int or None per parameter of `fn`
            (an int applies to every number or array inside a tuple, list or dict argument).
            Batched arguments are arrays, and every batch axis has the same length.
        out_axes: Where the batch axis goes in each output: an int or None for every output
            leaf, or a tuple or list with one per output leaf (flat, in order); None only
            for an output that does not depend on the batch.
        backend: `"llvm"` or `"python"`, as for [`jit`][adlite.compiler.jit].

    Returns:
        A callable taking the batched arguments (a `Batched`, with `compile_count` as
        [`Transformed`][adlite.compiler.api.Transformed] has).

    Raises:
        ValueError: Naming the argument: `in_axes` or `out_axes` of the wrong type or
            length (when made), and at a call an axis outside an argument's dimensions, a
            batched number or compile-time value, batch axes of different lengths, no
            batched argument, or a batched output at `out_axes` None.

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import grad, vmap
        >>> def loss(w, x, y):
        ...     return (np.dot(x, w) - y) ** 2
        >>> w = np.array([1.0, -1.0])
        >>> xs = np.array([[1.0, 2.0], [3.0, 4.0], [2.0, 1.0]])
        >>> ys = np.array([0.0, 1.0, 2.0])
        >>> vmap(loss, in_axes=(None, 0, 0))(w, xs, ys)
        array([1., 4., 1.])

        Per-example gradients:

        >>> vmap(grad(loss), in_axes=(None, 0, 0))(w, xs, ys)
        array([[ -2.,  -4.],
               [-12., -16.],
               [ -4.,  -2.]])

        A batch along axis 1 (columns), and one put last in the result:

        >>> def total(x):
        ...     return np.sum(x)
        >>> vmap(total, in_axes=1)(np.arange(6.0).reshape(2, 3))
        array([3., 5., 7.])
        >>> def scaled(x):
        ...     return x * np.array([1.0, 10.0])
        >>> vmap(scaled, out_axes=1)(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        array([[ 1.,  3.,  5.],
               [20., 40., 60.]])

        A trip count that differs per example:

        >>> def doublings(x):
        ...     n = 0
        ...     while x < 100.0:
        ...         x = x * 2.0
        ...         n += 1
        ...     return n
        >>> vmap(doublings)(np.array([1.0, 30.0, 200.0]))
        array([7, 2, 0])

        Mismatched batches are refused, naming the arguments:

        >>> vmap(loss, in_axes=(None, 0, 0))(w, xs, ys[:2])
        Traceback (most recent call last):
        ...
        ValueError: vmap(loss): argument 'y' has batch size 2 along axis 0, argument 'x' 3 ...
    """
    return Batched(fn, in_axes, out_axes, backend)


__all__ = ["Batched", "vmap"]
