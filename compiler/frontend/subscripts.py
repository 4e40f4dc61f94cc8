"""Indexing reads and writes: `Subscripts`, a mixin of `to_ir.FunctionConverter`.

Contract: `subscript(node)` is the (value, Ref) of `x[index]`: `np.r_[...]` / `np.c_[...]`
(`library/index_tricks.py`), a Python list or range
(`sequences.py`), a dict (a string key), a tuple (an int or a slice known when compiling,
Python's IndexError when compiling), or an array: a basic numpy index (`index_spec`: ints,
slices with bounds known when compiling or of a run-time start and a length known when
compiling (`dynamic_slices.py`), None, Ellipsis; negative run-time ints are wrapped at run
time) whose result is a live view of the array when every index is a constant
(`aliasing.py`), a boolean mask (`masks.py`) or integer arrays (`fancy.py`).
`write(name, index, ...)` is `name[index] = v` (also `x op= v` and `np.add.at`): a new value
of the object `name` is bound to, which `store` gives to every name and live view of it
(views cut off from it are poisoned); writes into arrays from outside the function, into
views compiled code cannot follow, or into a name bound to different arrays on different
paths are refused naming the line. Slice objects in an index (`s = slice(None, -1)`,
`x[s]`) are read as slice syntax (`slice_syntax`). `rows` unpacks an array along its first axis
(`a, b = x`: rows are views of x).
"""

from __future__ import annotations

import gast

from .. import gast_adapter as g
from ..ir.builder import const
from ..ir.core import I64, Atom, Const, Var
from ..ir.dims import DimUndecided, is_symbolic
from ..ir.index import WHOLE, Int, NewAxis, Slice
from . import (
    closures,
    dynamic_slices,
    externals,
    fancy,
    masks,
    runtime_lists,
    sequences,
    static_values,
)
from .aliasing import (
    Ref,
    compose,
    frozen_ref,
    is_static_view,
    new_object,
    spec_operands,
    static_spec,
)
from .control_flow import unrollable
from .library import index_tricks, nonzero
from .library.operator_module import index_syntax
from .selection_calls import selection_item
from .selection_values import Selection, SelectionIndex, escape
from .sequences import ListValue, RangeValue
from .static_requirements import refusal


class Subscripts:
    """The converter's indexing reads and writes (see the module doc); of the rest of the
    converter it uses `conversion_context.StatementContext`."""

    def subscript(self, node):
        node = self.slice_syntax(node)
        base, ref = self.expr_ref(node.value)
        if index_tricks.is_concatenator(base):  # np.r_[...], np.c_[...]
            return index_tricks.subscript(self, base, node), None
        if isinstance(base, runtime_lists.RunTimeArray):  # np.array(xs) of run-time length
            return sequences.getitem(self, base.view, node)
        if isinstance(base, ListValue | RangeValue):
            return sequences.getitem(self, base, node)
        if isinstance(base, dict):
            key = self.key(node.slice)
            if key not in base:
                raise self.source.error(node, f"KeyError: {key!r} (the dict has keys "
                                              f"{', '.join(map(repr, base))})")
            value = base[key]
            frozen = isinstance(value, Var | Const) and value.type.is_array
            return value, (Ref(new_object(), frozen=True) if frozen else None)
        if isinstance(base, tuple) and isinstance(node.slice, gast.Slice):  # t[1:], t[::-1]
            part = self.static_slice(self.slice_parts(node.slice), node.slice)
            return base[part], (ref[part] if isinstance(ref, tuple) else None)
        if isinstance(base, tuple):
            index = self.expr(node.slice)
            if isinstance(index, Var):
                return self._tuple_item(base, index, node)
            index = self.static(index, node, "its index", "sequence")
            kind = "list" if isinstance(base, static_values.ListTuple) else "tuple"
            if not isinstance(index, int):
                raise self.source.error(node, f"{kind} indices must be integers, got "
                                              f"{static_values.describe(index)}")
            if not -len(base) <= index < len(base):  # Python's IndexError, when compiling
                raise self.source.error(node, f"IndexError: {kind} index {index} out of range "
                                              f"(the {kind} has {len(base)} items here)",
                                        "a list or tuple from outside the function is read "
                                        "when compiling: check its length before indexing")
            return base[index], self.outside(base[index], ref[index] if isinstance(ref, tuple)
                                             else None)
        if isinstance(base, Selection) and not isinstance(node.slice, gast.Slice | gast.Tuple):
            return selection_item(self, base, self.expr(node.slice), node), None
        x = self.array(base, node)
        ref = self.outside(x, ref)
        spec, ints = self.index_spec(x, node.slice)
        if masks.is_mask(spec):
            return masks.read(self, x, spec[0], node), None
        if isinstance(spec[0], SelectionIndex):
            return nonzero.index(self, x, spec[0].items, node), None
        if fancy.has_arrays(spec):
            return fancy.gather(self, x, spec, ints, node), None
        value = self.b.index(x, *ints, spec=spec)
        return value, self.view_ref(ref, spec, ints, value)

    def _tuple_item(self, items: tuple, index: Var, node):
        """`t[i]` with `i` known only at run time: the items (numbers of one type, or arrays
        of one shape and dtype) stacked and indexed, Python's IndexError out of range;
        other tuples are refused (a counted loop unrolled indexes with constants)."""
        types = {v.type for v in items if isinstance(v, Var | Const)}
        if len(types) != 1 or not all(isinstance(v, Var | Const) for v in items):
            raise unrollable(refusal(self.source, node, "sequence",
                                     "a tuple indexed with a value known only at run time, "
                                     "whose items are not numbers of one type or arrays of "
                                     "one shape and dtype",
                                     "index tuples with integer constants, or use a list"))
        if index.type != I64:
            raise self.source.error(node, f"tuple indices must be integers, got {index.type}")
        stacked = sequences.stack(self, list(items), node)
        value = self.b.index(stacked, self.wrap_index(index, len(items), node.slice),
                             spec=(Int(),))
        return value, Ref(new_object(), frozen=True) if value.type.is_array else None

    def view_ref(self, ref, spec, ints, value):
        """The Ref of `value`, read from the array `ref` names by the index (spec, ints)."""
        if not isinstance(ref, Ref) or not value.type.is_array:
            return None
        if not (is_static_view(spec, ints) and (ref.plain or ref.view)):
            return frozen_ref(ref)
        view = static_spec(spec, ints)
        if ref.view:
            shape = self.scope.get(self.scope.base_name(ref.obj)).type.shape
            view = compose(shape, ref.view, view)
            if view is None:
                return frozen_ref(ref)
        return Ref(ref.obj, view=view)

    def index_spec(self, x, index_node):
        """(spec, runtime integer operands) of a basic numpy index (ints, slices with
        constant bounds, None, ...); negative runtime indices are wrapped at run time."""
        items = index_node.elts if isinstance(index_node, gast.Tuple) else [index_node]
        ndim = len(x.type.shape)
        values = [_Slice if isinstance(item, gast.Slice) else
                  item.value if isinstance(item, gast.Constant) and item.value in (None, Ellipsis)
                  else self.expr(item) for item in items]  # np.newaxis is None
        inner = isinstance(index_node, gast.Tuple)  # a tuple in it is array-like too
        values = [sequences.stack(self, list(sequences.as_tuples(v)), item, empty=True)
                  if isinstance(v, ListValue) and v.runtime is None or
                  inner and type(v) is tuple and v else v
                  for v, item in zip(values, items, strict=True)]  # x[[0, 2]]: np.array
        selections = values[0] if len(values) == 1 and isinstance(values[0], tuple) else values
        if any(isinstance(v, Selection) for v in selections):  # x[np.nonzero(m)], x[idx]
            return (SelectionIndex(tuple(selections)),), []
        used = sum(v is not None and v is not Ellipsis for v in values)
        spec, ints, dim = [], [], 0
        for item, value in zip(items, values, strict=True):
            if value is Ellipsis:
                spec.extend([WHOLE] * (ndim - used))
                dim += ndim - used
                continue
            if value is None:
                spec.append(NewAxis())
                continue
            if dim >= ndim:
                raise self.source.error(index_node, f"too many indices for an array of "
                                                    f"dimension {ndim}")
            if isinstance(item, gast.Slice):
                parts = self.slice_parts(item)
                positions = dynamic_slices.index_item(self, x.type.shape[dim], parts, item,
                                                      len(items) == 1)
                if positions is not None:
                    spec.append(positions)
                    dim += 1
                    continue
                bounds = self.static_slice(parts, item, "slice")
                spec.append(Slice(bounds.start, bounds.stop, bounds.step))
            else:
                mask = masks.mask_item(self, x, value, len(items), item)
                if mask is not None:
                    spec.append(mask)
                    dim += len(value.type.shape)
                    continue
                array = fancy.index_array(self, value, item)
                if array is not None:
                    spec.append(array)
                    dim += 1
                    continue
                i = self.scalar(value, item)
                if i.type != I64:
                    raise self.source.error(item, f"array indices must be integers, got "
                                                  f"{i.type}")
                ints.append(self.wrap_index(i, x.type.shape[dim], item))
                spec.append(Int())
            dim += 1
        return tuple(spec), ints

    def slice_syntax(self, node: gast.Subscript) -> gast.Subscript:
        """`x[s]` with slice objects in the index (`slice(a, b)`, or a name bound to one) as
        `x[a:b]` (`operator_module.index_syntax`); `node` itself when it has none."""
        index = index_syntax(self, node.slice)
        return node if index is node.slice else g.subscript(node.value, index, at=node)

    def slice_parts(self, node: gast.Slice) -> list:
        """The values of a slice's lower, upper and step (None where absent)."""
        return [None if part is None else self.expr(part)
                for part in (node.lower, node.upper, node.step)]

    def static_slice(self, parts, node, key: str = "sequence") -> slice:
        """The slice of bounds `parts` (see `slice_parts`), which must be ints known when
        compiling (else the refusal of requirement `key`), with a nonzero step (Python's
        message)."""
        bounds = [None if part is None else self.static(part, node, "its bounds", key)
                  for part in parts]
        if not all(b is None or isinstance(b, int) or is_symbolic(b) for b in bounds):
            raise self.source.error(node, f"slice bounds must be integers, got "
                                          f"{slice(*bounds)!r}")
        if bounds[2] == 0:
            raise self.source.error(node, "slice step cannot be zero")
        return slice(*bounds)

    def wrap_index(self, i, n, node):
        """The index `i` of a dimension of size `n` made non-negative: a constant in bounds
        when compiling (an IndexError at the user's line if out of them), else the run-time
        value (which the code checks), also for a constant whose bounds depend on a run-time
        size (`x[2]` of an array of run-time length)."""
        if isinstance(i, Const):
            try:
                inside = -n <= i.value < n
            except DimUndecided:
                inside = None
            if inside is False:
                raise self.source.error(node, f"index {i.value} is out of bounds for an axis "
                                              f"of size {n}")
            if inside:
                return const(i.value if i.value >= 0 else i.value + n)
        return self.b.select(self.b.lt(i, 0), self.b.add(i, n), i)

    def rows(self, x: Atom, ref, n: int, node) -> tuple[tuple, tuple]:
        """`a, b, c = x` of an array: its items along the first axis (numbers, or rows that
        are views of x), or Python's ValueError at compile time when there are not n."""
        length = x.type.shape[0]
        if length != n:
            raise self.source.error(node, f"ValueError: too many values to unpack (expected "
                                          f"{n})" if length > n else
                                    f"ValueError: not enough values to unpack (expected {n}, "
                                    f"got {length})")
        items = [self.b.index(x, const(i), spec=(Int(),)) for i in range(n)]
        return tuple(items), tuple(self.view_ref(ref, (Int(),), [const(i)], item)
                                   for i, item in enumerate(items))

    def write(self, name: str, index, index_spec, v: Atom, node, accumulate=False) -> None:
        """`name[index] = v` (or the whole array when `index_spec` is given): writes into the
        object `name` is bound to, seen through all of its names and views; with
        `accumulate`, `np.add.at(name, index, v)`."""
        ref = self._writable(name, node)
        base = self.scope.get(self.scope.base_name(ref.obj))
        x = self.view_value(ref) if ref.view else base
        if index_spec is None:
            spec, ints = self.index_spec(x, index)
        else:
            spec, ints = (index_spec,) * len(x.type.shape), []
        if spec and isinstance(spec[0], SelectionIndex):
            raise escape(self, spec[0].items[0], node, "a write through it as an index")
        if masks.is_mask(spec):
            updated = masks.write(self, x, spec[0], v, node, accumulate)
        elif fancy.has_arrays(spec):
            updated = fancy.scatter(self, x, spec, ints, self.to_type(v, x.type), node,
                                    accumulate)
        else:
            updated = self.b.index_update(x, self.to_type(v, x.type), *ints, spec=spec,
                                          mode="add" if accumulate else "set")
        if ref.view:
            vspec, vints = spec_operands(ref.view)
            updated = self.b.index_update(base, updated, *map(const, vints), spec=vspec,
                                          mode="set")
        updated.hint = name
        self.store(ref.obj, updated, self.line(node))

    def _writable(self, name: str, node) -> Ref:
        """The object `name` is bound to, which a write through it may change; else the
        refusal, naming why (not an array, an array from outside the function, bound to
        different arrays on different paths, another function's array, a numpy view that
        compiled code cannot follow)."""
        ref = self.scope.ref(name)
        if not isinstance(ref, Ref):
            self.array(self.scope.get(name), node)  # raises: not an array
            raise self.source.error(node, f"cannot assign into {name!r}")
        outside = externals.outside_title(ref.obj)
        if outside is not None:
            raise self.source.error(node, f"write into {name!r}, which is the array "
                                          f"{outside} from outside the function (or a view of "
                                          "it): compiled code reads such arrays at every call "
                                          "but does not write them",
                                    "pass the array as an argument, or use .copy() to make "
                                    "an independent array")
        if ref.maybe:  # a counted loop unrolled binds it one way per trip
            raise unrollable(self.source.error(
                node, f"write into {name!r}, which is bound to different arrays depending on the "
                      "path taken (an if, or a loop iteration, binds it differently); compiled "
                      "code cannot tell which array this writes",
                "use .copy() to make an independent array, or write into the array itself"))
        if ref.frozen and closures.is_read_only(ref):
            raise self.source.error(node, f"write into {name!r}, an array of the function "
                                          "that defined this closure, from a call made in "
                                          "another function", "return the new values, or call "
                                                              "the closure where it is defined")
        if ref.frozen:  # a counted loop unrolled indexes with constants (e.g. `for row in X`)
            raise unrollable(self.source.error(
                node, f"write into {name!r}, a numpy view (reshape, transpose, .T, or an index "
                      "with runtime values) that compiled code cannot follow",
                "write into the base array directly, or use .copy() to make an independent "
                "array"))
        return ref

    def store(self, obj: int, value: Atom, line: int) -> None:
        """The object's new value: its names see it, views cut off from it are poisoned."""
        for n, r in self.scope.objects().items():
            if isinstance(r, tuple):
                self.scope.rebind(n, self.store_tuple(self.scope.get(n), r, obj, value, n, line))
            elif r.plain and r.obj == obj:
                self.scope.rebind(n, value)
            elif (r.frozen or r.maybe) and obj in r.objects():
                self.scope.poison(n, line)
        sequences.store_items(self, obj, value, line)

    def store_tuple(self, values: tuple, refs: tuple, obj, value, name, line):
        """The tuple `values` (of variable `name`, with objects `refs`) after array object
        `obj` got `value` at `line`: its items bound to it hold `value`, views of it poison
        `name`."""
        out = []
        for v, r in zip(values, refs, strict=True):
            if isinstance(r, tuple):
                v = self.store_tuple(v, r, obj, value, name, line)
            elif isinstance(r, Ref) and obj in r.objects():
                if r.plain:
                    v = value
                else:
                    self.scope.poison(name, line)
            out.append(v)
        return tuple(out)


_Slice = object()  # an index item that is a slice (index_spec)
