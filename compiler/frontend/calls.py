"""Calls in compiled code: `Calls`, a mixin of `to_ir.FunctionConverter`.

Contract: `call(node)` is the (value, Ref) of a call. Calls to math/numpy/builtin functions
become primitives through their lowering (`registry.lookup`; a numpy/scipy function without
a lowering is refused at the call, never inlined); a call of a function that stands for
another expression (`operator.add(x, y)`: `registry.rewriting`) is converted as that
expression; numpy's view-making functions and methods
return frozen views of their argument (`VIEW_FUNCTIONS`, `VIEW_METHODS`). Calls to other
Python functions (plain, lambdas, adlite-decorated, and nested `def`/`lambda` closures, which
read their free variables when called) are inlined (`inline`) in a converter of their own,
their arguments bound as Python binds them: defaults, keywords, `*args`, `f(*t)` (t a tuple,
a list or a range of length known when compiling) and `**d` (see `closures.py`); the callee's
writes into the caller's arrays are stored back, and a
recursive call is refused. adlite transformations (`grad`, `jit` of another function, ...)
are inlined from their IR (`inline_transformed`), also those of closures
(`nested_transformations.py`); `functools.partial` objects, made inside or outside, are
called as their function with their arguments (`partials.py`). Functions are values: passed
as arguments, stored in variables, called in loops.
"""

from __future__ import annotations

import functools
import sys
import types

import gast
import numpy as np

from ..arguments import Node, Static
from ..ir.builder import Builder, const
from ..ir.core import Atom, Const, Type, Var
from ..ir.transform import inline
from ..transformation import is_transformation, makes_transformations
from . import (
    closures,
    externals,
    fancy,
    nested_transformations,
    objects,
    partials,
    runtime_list_reductions,
    runtime_lists,
    selection_values,
    sequences,
    static_values,
)
from .aliasing import Ref, frozen_ref, new_object
from .library import arrays, building, registry, sorting
from .selection_calls import selection_call
from .selection_values import Selection
from .sequences import ListMethod


class Calls:
    """The converter's calls (see the module doc); of the rest of the converter it uses
    `conversion_context.StatementContext`."""

    def call(self, node):
        """(value, Ref) of a call: views for numpy's view-making functions, the callee's
        result refs for inlined functions."""
        func = self.expr(node.func)
        if isinstance(func, closures.Unusable):
            func.refuse(self, node)
        if registry.syntactic(func) is not None:  # reads its arguments' syntax
            return registry.syntactic(func)(self, node), None
        if registry.rewriting(func) is not None:  # stands for another expression
            return self.expr_ref(registry.rewriting(func)(self, node))
        if fancy.is_add_at(func):
            return fancy.add_at(self, node), None
        pairs = [p for a in node.args for p in self.call_argument(a)]
        args = [v for v, _ in pairs]
        kwpairs = self.call_keywords(node)
        kwargs = {k: v for k, (v, _) in kwpairs.items()}
        if isinstance(func, Method) and isinstance(func.array, Selection) or \
                selection_values.involved(args + list(kwargs.values())) and \
                not isinstance(func, types.FunctionType | closures.Closure):  # not inlined
            return selection_call(self, func, args, kwargs, node), None
        if isinstance(func, Method) and func.name == "sort":
            return sorting.sort_in_place(self, func.array, args, kwargs, node), None
        if isinstance(func, Method):
            value = arrays.method(self, func.array, func.name, args, kwargs, node)
            return value, (frozen_ref(func.ref) if func.name in VIEW_METHODS else None)
        if isinstance(func, ListMethod):
            return sequences.call_method(self, func, pairs, kwargs, node)
        if isinstance(func, runtime_lists.ArrayMethod):  # `a.sum()` of np.array(xs)
            reduce = runtime_list_reductions.REDUCTIONS[getattr(np, func.name)]
            return reduce(self, func.array.view, [v for v, _ in pairs], kwargs, node), None
        return self.call_value(func, pairs, kwpairs, node)

    def call_value(self, func, pairs: list, kwpairs: dict, node):
        """(value, Ref) of calling the function value `func` (a function with a lowering, an
        adlite transformation or a Python function, inlined) with the (value, Ref) `pairs`
        and the keyword `kwpairs`; `node` is the call the errors name."""
        if func is functools.partial:
            return partials.make(self, pairs, kwpairs, node), None
        if partials.is_partial(func):
            return self.call_value(*partials.applied(self, func, pairs, kwpairs, node), node)
        args = [v for v, _ in pairs]
        kwargs = {k: v for k, (v, _) in kwpairs.items()}
        lowering = registry.lookup(func)
        if lowering is not None:
            return self._call_lowering(func, lowering, pairs, kwargs, node)
        if getattr(func, "kind", None) == "jit" and isinstance(getattr(func, "fn", None),
                                                               types.FunctionType):
            func = func.fn  # inlined as Python, so that writes into arguments are seen
        if isinstance(func, nested_transformations.Nested):  # grad(f) of a closure f
            return nested_transformations.call(self, func, args, node), None
        if is_transformation(func):
            if kwargs:
                raise self.source.error(node, "keyword arguments in calls to adlite "
                                              "transformations", "pass arguments by position")
            return self.inline_transformed(func, args, node), None
        if makes_transformations(func):  # `grad(f)` inside compiled code: made now
            return self.transformation_of(func, args, kwargs, node), None
        if isinstance(func, types.BuiltinMethodType) and type(func.__self__) is dict and \
                func.__name__ in DICT_READS and not kwargs:  # a compile-time dict, read
            if func.__name__ == "get" and node.args:
                args = [self.key(node.args[0])] + args[1:]
            result = func(*args)
            return (result if func.__name__ == "get" else tuple(result)), None
        if isinstance(func, types.BuiltinMethodType) and isinstance(func.__self__, str | bytes):
            return self.string_method(func, args, kwargs, node), None
        library = registry.library_function(getattr(func, "__func__", func))
        if isinstance(func, types.MethodType) and isinstance(func.__func__, types.FunctionType) \
                and library is None:  # never inlined: numpy's or scipy's source
            return self.inline(func.__func__, [(func.__self__, None)] + pairs, kwpairs, node)
        if isinstance(func, types.FunctionType | closures.Closure) and library is None:
            return self.inline(func, pairs, kwpairs, node)
        if func is super:  # in a method of an object made in compiled code
            return objects.make_super(self, args, node), None
        if objects.is_user_class(func):  # an object made in compiled code
            return objects.construct(self, func, pairs, kwpairs, node), None
        if isinstance(func, objects.Instance) and callable(func.cls):  # its __call__
            return self.call_value(types.MethodType(func.cls.__call__, func), pairs, kwpairs,
                                   node)
        if not static_values.is_static(func):
            raise self.source.error(node, "this value is a number or an array, not a function")
        raise self._unsupported(func, library, node)

    def _call_lowering(self, func, lowering, pairs: list, kwargs: dict, node) -> tuple:
        """(value, Ref) of a call of library function `func` through its lowering: the
        argument itself for a function that may return it (`SAME_OBJECT`), a frozen view of
        it for a view function (`VIEW_FUNCTIONS`), else a new object. A numpy or scipy
        function's lowering reads a list or tuple where it wants an array as `np.array` of
        it (`array_like`, see `to_ir.FunctionConverter.value`)."""
        args = [sequences.as_tuples(v) for v, _ in pairs]
        if args and isinstance(args[0], runtime_lists.RunTimeArray):
            args[0] = args[0].view  # np.array(xs) of run-time length: reduced as the list
        if args and getattr(args[0], "runtime", None) is not None and \
                func in runtime_list_reductions.REDUCTIONS:  # e.g. np.mean(losses)
            return runtime_list_reductions.REDUCTIONS[func](self, args[0], args[1:], kwargs,
                                                            node), None
        outer = self.array_like
        self.array_like = registry.library_function(func) is not None or \
            isinstance(func, np.ufunc)  # numpy converts a list given as an array
        try:
            value = lowering(self, args, kwargs, node)
        finally:
            self.array_like = outer
        view = any(func is f for f in VIEW_FUNCTIONS) and pairs
        if pairs and value is pairs[0][0] and func in building.SAME_OBJECT:
            return value, pairs[0][1]
        if view and static_values.is_tuple(value) and \
                len(value) == len(pairs) > 1:  # atleast_2d(a, b)
            return value, tuple(frozen_ref(ref) for _, ref in pairs)
        return value, (frozen_ref(pairs[0][1]) if view else None)

    def _unsupported(self, func, library: str | None, node) -> Exception:
        """The refusal of a call of `func` (library: its numpy or scipy name, if any), with
        the nearest supported name as a hint."""
        name = getattr(func, "__name__", type(func).__name__)
        if library and library.startswith("np.random."):
            hint = "draw the random numbers outside the compiled function and pass them in " \
                "as an argument"
        else:
            module = sys.modules.get(getattr(func, "__module__", None) or "") if library \
                else None
            guess = registry.nearest(name, registry.supported_names(
                module if module is not None and library else None))
            hint = (f"{guess} " if guess else "") + "the README's 'Supported Python' lists " \
                "the library functions that compile; Python functions defined with def " \
                "compile (they are inlined)"
        return self.source.error(node, f"{library}() is not supported" if library else
                                 f"unsupported function {name!r}", hint)

    def call_keywords(self, node) -> dict:
        """{keyword: (value, Ref)} of a call's keyword arguments, `**d` of a dict included
        (its arrays are passed as views compiled code does not follow: read-only)."""
        pairs: dict = {}
        for kw in node.keywords:
            if kw.arg is not None:
                items = [(kw.arg, self.expr_ref(kw.value))]
            else:
                d = self.expr(kw.value)
                if not isinstance(d, dict):
                    raise self.source.error(kw.value, "argument after ** must be a dict")
                items = [(k, (v, Ref(new_object(), frozen=True) if isinstance(v, Var | Const)
                              and v.type.is_array else None)) for k, v in d.items()]
            for key, pair in items:
                if key in pairs:
                    raise self.source.error(node, f"TypeError: got multiple values for keyword "
                                                  f"argument {key!r}")
                pairs[key] = pair
        return pairs

    def call_argument(self, node) -> list:
        """The (value, Ref) pairs an argument passes: one, or the items of a tuple, a list or
        a range of length known when compiling for `*t`."""
        if not isinstance(node, gast.Starred):
            return [self.expr_ref(node)]
        value, ref = self.expr_ref(node.value)
        if isinstance(value, sequences.ListValue | sequences.RangeValue):
            return list(zip(*sequences.unpacked(self, value, node), strict=True))
        if not isinstance(value, tuple):
            raise self.source.error(node, f"*{static_values.describe(value)} in a call",
                                    "unpack a tuple, a list or a range: f(*args)")
        refs = ref if isinstance(ref, tuple) else (None,) * len(value)
        return list(zip(value, refs, strict=True))

    def _passed(self, value, ref, bases: dict):
        """The Ref a callee gets for an argument, recording in `bases` the current value of
        each array object passed (an object no name holds, e.g. a list item, is the value
        itself; a view of such an object is passed frozen)."""
        if isinstance(ref, tuple):
            values = value if isinstance(value, tuple) else (None,) * len(ref)
            return tuple(self._passed(v, r, bases) for v, r in zip(values, ref, strict=True))
        if not isinstance(ref, Ref) or not (ref.plain or ref.view):
            return ref
        name = self.scope.base_name(ref.obj)
        if name is not None:
            bases[ref.obj] = self.scope.get(name)
        elif ref.plain and isinstance(value, Var | Const):
            bases[ref.obj] = value
        else:
            return frozen_ref(ref)
        return ref

    def transformation_of(self, make, args: list, kwargs: dict, node):
        """`grad(f, ...)` (any API function making a transformation) called in compiled code:
        made while compiling from its compile-time arguments (`f` a function from outside
        the compiled code, or a transformation of one; of a closure defined in compiled
        code: `nested_transformations`)."""
        name = make.__name__
        function = args[0] if args else kwargs.get("fn")
        values = [function] + [self.static(a, node, f"the arguments of {name}()", "object")
                               for a in args[1:]]
        options = {k: self.static(v, node, f"the arguments of {name}()", "object")
                   for k, v in kwargs.items() if k != "fn"}
        if isinstance(function, closures.Closure | nested_transformations.Nested):
            return nested_transformations.make(self, make, function, values[1:], options, node)
        try:
            return make(*values, **options)
        except (TypeError, ValueError) as e:
            raise self.source.error(node, f"{name}(): {e}") from None

    def inline_transformed(self, transformed, args, node):
        """Inline the IR of an adlite-transformed function (`jit`, `grad`, ...): arguments
        and results may be numbers, arrays, and tuples, lists and dicts of them."""
        trees, atoms = [], []
        for a in args:
            trees.append(self._tree(a, node, atoms))
        try:
            graph, tree = transformed.ir_for(tuple(trees))
        except TypeError as e:
            raise self.source.error(node, str(e)) from None
        own, hidden = externals.bind_graph(graph)
        atoms = [self.to_type(a, v.type) for a, v in zip(atoms, own, strict=True)]
        return _structured(self.b, tree, iter(inline(self.b, graph, atoms + hidden)), node)

    def _tree(self, value, node, atoms: list):
        """The signature tree (`arguments.py`) of a value passed to a transformation; its
        runtime leaves are appended to `atoms`."""
        if isinstance(value, sequences.ListValue):
            value = static_values.ListTuple(value.items)
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return Node("dict", tuple(self._tree(v, node, atoms) for v in value.values()),
                        tuple(value))
        if static_values.is_tuple(value):
            kind = "list" if isinstance(value, static_values.ListTuple) else "tuple"
            named = value.named if isinstance(value, static_values.NamedTupleValue) else None
            return Node(kind, tuple(self._tree(v, node, atoms) for v in value), named=named)
        if static_values.is_static(value):
            return Static(value)
        value = self.value(value, node)
        if value.type.is_complex:  # its parts, as `arguments.complex_parts` passes them
            atoms += [self.b.real(value), self.b.imag(value)]
            return Node("complex", (atoms[-2].type, atoms[-1].type))
        atoms.append(value)
        return value.type

    def inline(self, fn, pairs, kwpairs, node):
        """Inline a call: the callee's parameters (then a closure's free variables) are
        bound to the caller's objects as Python binds them (closures.bind), and its writes
        into them are stored back into the caller's names."""
        if len(self.stack) > MAX_INLINE_DEPTH:
            raise self.source.error(node, "calls nested too deeply")
        try:
            callee = type(self)(fn, self.b, self.stack)
        except RecursionError_ as e:
            raise self.source.error(node, f"recursive call to {e.fn.__name__!r}",
                                    "write the recursion as a loop") from None
        bound = closures.bind(self, fn, pairs, kwpairs, node)
        attributes = objects.passed(self, [v for v, _ in bound.values()])
        bound.update((var, (value, ref)) for var, value, ref in attributes)
        args = [v for v, _ in bound.values()]
        loc = self.b.loc
        bases = {}
        refs = [self._passed(v, r, bases) for v, r in bound.values()]
        runtime_lists.share(self.scope, callee.scope, args)
        result, ref = callee.run(args, refs, bases, list(bound))
        runtime_lists.share(callee.scope, self.scope, (args, result))
        self.b.loc = loc
        for obj, before in bases.items():
            if obj not in callee.hidden:
                continue
            after = callee.scope.get(callee.hidden[obj])
            if after is not before:
                self.store(obj, after, self.line(node))
        objects.returned(self, callee, {var: value for var, value, _ in attributes},
                         [*args, result], node)
        if isinstance(fn, closures.Closure) and fn.rebinds:
            closures.store_rebound(self, fn, callee, set(bases), node)
        return result, _returned(ref, bases)


MAX_INLINE_DEPTH = 32


def _structured(b: Builder, tree, atoms, node):
    """The frontend value of a result of tree `tree` whose runtime leaves are `atoms` (an
    iterator): dicts, tuples, lists (tuples inside the frontend), complex values (of their
    parts; a gradient's conjugated) and boolean selections (made at the call `node`) as the
    tree says."""
    if isinstance(tree, Type):
        return next(atoms)
    if isinstance(tree, Static):
        v = tree.value
        return const(v) if isinstance(v, int | float) else v
    items = [_structured(b, child, atoms, node) for child in tree.children]
    if tree.kind in ("complex", "conjugate"):
        re, im = items
        return b.complex(re, b.neg(im) if tree.kind == "conjugate" else im)
    if tree.kind == "selection":
        return Selection(items[0], items[1], node)
    if tree.kind == "dict":
        return dict(zip(tree.keys, items, strict=True))
    if tree.named is not None:
        return static_values.NamedTupleValue(items, tree.named)
    return (static_values.ListTuple if tree.kind == "list" else tuple)(items)


def _returned(ref, bases: dict):
    """A callee's result Ref as the caller sees it: views of the callee's own arrays are
    frozen (their base is not reachable from the caller)."""
    if isinstance(ref, tuple):
        return tuple(_returned(r, bases) for r in ref)
    if isinstance(ref, Ref) and ref.view and ref.obj not in bases:
        return Ref(ref.obj, frozen=True)
    return ref


class RecursionError_(Exception):  # noqa: N801 - internal signal, not a user-facing error
    def __init__(self, fn) -> None:
        super().__init__(fn.__name__)
        self.fn = fn


DICT_READS = ("get", "keys", "values", "items")  # methods of a dict compiled code calls
# numpy returns views: followed as frozen views
VIEW_METHODS = {"reshape", "transpose", "ravel", "swapaxes"}
VIEW_FUNCTIONS = (np.reshape, np.transpose, np.squeeze, np.expand_dims, np.ravel, np.swapaxes,
                  np.moveaxis, np.flip, np.fliplr, np.flipud, np.broadcast_to, np.atleast_1d,
                  np.atleast_2d, np.atleast_3d)


class Method:
    """`x.sum` before the call: an array, its Ref and a method name."""

    def __init__(self, array: Atom, name: str, ref) -> None:
        self.array, self.name, self.ref = array, name, ref
