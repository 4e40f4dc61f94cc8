"""Normalized gast -> IR graph, specialised to the argument types of one call signature.

Contract: `build_graph(fn, arg_types)` returns `(graph, n_results, result tree)`, the results
computed from the argument values at entry; `build_program(fn, arg_types)` returns a `Program`
whose graph also outputs the final values of the argument arrays the function writes into
(for `jit`'s write-back). `arg_types` holds one tree per parameter (`arguments.py`): the
graph's inputs are its runtime leaves, compile-time values are bound as Python objects, tuples
and lists as tuples, dicts (string keys) as dicts; the outputs are the result's leaves. When
a shape or another compile-time value is computed from runtime int parameters of the entry
function, `arguments.NeedStatic` names them (the API compiles again with them static).
Arrays are shared objects as in numpy (see `aliasing.py`): a write
(`x[i] = v`, `x op= v` on an array, a write in an inlined callee) rebinds every name and live
view of the written object; `if` outputs and `while` carries are the names whose values
change, including aliases never named in the block (one carry per object), and aliasing
that cannot be followed is refused naming the line. Variables map to SSA values in an
environment; Python's numeric tower is followed (bool < int < float,
`/` always gives float, int ** non-negative int constant stays int). `if` becomes a `cond`
equation whose outputs are the variables assigned in either arm; `while` becomes a `while`
equation whose carries are the variables assigned in its body (types are widened to a fixed
point, e.g. `total = 0` then `total += x` makes `total` a float carry). A `for` loop (a
counted `while`, see normalize.py) whose body uses a Python list or tuple, or that cannot
be one `while` (a variable changes shape, a write through a row view), is unrolled when its
trip count is known when compiling (at most MAX_UNROLL trips; otherwise refused naming the
loop and why); after a `break`/`return` with a run-time condition each later trip runs
under an `if` on the loop's flags. After a loop whose trip count is known to be positive,
the variables its body assigns on every path are defined. Python lists are compile-time
containers of values (`sequences.py`). Conditions known at compile time are folded.
Chained assignment (`a = b = v`) binds every target, left to right, to the one value (one
array object); unpacking an array (`a, b = x`) takes its items along the first axis (rows
are views of x). Calls to math/numpy/builtin functions become primitives (a numpy/scipy
function without a lowering is refused at the call, never inlined); calls to other Python
functions (plain, lambdas, adlite-decorated, and nested `def`/`lambda` closures,
which read their free variables when called) are inlined, their arguments bound as Python
binds them: defaults, keywords, `*args` and `f(*t)` (see `closures.py`). Functions are values:
passed as arguments, stored in variables, called in loops. Compile-time values (strings,
None, functions, modules: `static_values.py`) cost nothing at run time: `==`, `is`, `in`,
`isinstance`, `np.isscalar`, `callable` and truth tests on them are answered while
compiling, and they cross an `if` or a loop when every path binds the same value (refused
otherwise, naming the variable). `assert`, `raise` and `print` statements become effect
equations (`statements.py`). A variable assigned in only some paths and read afterwards is
an `AdliteSyntaxError` (Python would fail at run time).
Module-level and closed-over names and attributes of Python objects (`W`, `model.W`,
`self.layer.b`) are externals (see `externals.py`): floats and float arrays become hidden
graph inputs after the arguments, read at every call, other values are compile-time values
guarded at every call; methods of objects are inlined with the object as `self`. Writing into
such an array or assigning an attribute is refused naming the line.
"""

from __future__ import annotations

import builtins
import contextvars
import sys
import types
from dataclasses import dataclass
from typing import NamedTuple

import gast
import numpy as np

from .. import arguments
from .. import gast_adapter as g
from ..arguments import NeedStatic, Node, Static
from ..errors import AdliteSyntaxError
from ..ir import dtypes
from ..ir.builder import Builder, const
from ..ir.core import BOOL, F64, I64, Atom, Const, Graph, Type, Var
from ..ir.index import WHOLE, Int, NewAxis, Slice
from ..ir.transform import inline
from ..passes.dce import dce
from . import (
    array_functions,
    closures,
    dynamic_slices,
    externals,
    fancy,
    functions,
    linalg_functions,  # noqa: F401 - registers np.linalg's lowerings
    masks,
    numpy_functions,
    scipy_functions,
    selections,  # noqa: F401 - registers np.select / np.piecewise
    sequences,
    sorting,
    statements,
    static_values,
    truth_reductions,  # noqa: F401 - registers np.any/all/argmax/argmin
    ufuncs,  # noqa: F401 - registers numpy's ufuncs called by name
)
from .aliasing import (
    LIVE,
    Ref,
    ambiguous,
    compose,
    hidden_name,
    is_static_view,
    join,
    new_object,
    objects_of,
    private_objects,
    signature,
    spec_operands,
    static_spec,
)
from .nesting import nesting_guard
from .normalize import HIDDEN_FUNCTIONS, Normalizer
from .scope import Scope
from .sequences import ListMethod, ListValue, RangeValue

BINOPS = {gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "div",
          gast.FloorDiv: "floordiv", gast.Mod: "mod", gast.Pow: "pow"}
CMPOPS = {gast.Lt: "lt", gast.LtE: "le", gast.Gt: "gt", gast.GtE: "ge", gast.Eq: "eq",
          gast.NotEq: "ne"}
RANK = {dtypes.BOOL: 0, dtypes.I64: 1, dtypes.F32: 2, dtypes.F64: 3}
UNSUPPORTED_EXPRESSIONS = {
    gast.ListComp: ("list comprehension here", "build the list in a statement before"),
    gast.GeneratorExp: ("generator expression here", "build a list in a statement before"),
    gast.DictComp: ("dict comprehension", "write the loop out with `for`"),
    gast.SetComp: ("set comprehension", "write the loop out with `for`"),
    gast.Set: ("set", "use separate variables"),
    gast.JoinedStr: ("f-string", "compiled functions compute numbers only"),
    gast.NamedExpr: ("assignment expression (:=)", "assign in a separate statement"),
    gast.Starred: ("starred expression", "pass arguments one by one"),
    gast.Yield: ("yield", "return the values instead"),
    gast.Await: ("await", "call the compiled function from synchronous code"),
}
ENTRY_SCALARS: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "entry_scalars", default=None)
MAX_INLINE_DEPTH = 32
MAX_LOOP_ATTEMPTS = 8
MAX_UNROLL = 1000  # trips of a `for` loop unrolled when compiling


def join_type(a: Type, b: Type) -> Type:
    """The type both values can take (the wider element type); shapes must agree."""
    if a.shape != b.shape:
        raise TypeError(f"a variable changes shape ({a} and {b})")
    return a if RANK[a.dtype] >= RANK[b.dtype] else b


@dataclass(frozen=True)
class Layout:
    """How `jit` shapes a call's results (see `Program`); plain data, picklable."""
    name: str
    n_results: int
    tree: object
    written: tuple[int, ...]
    returned: tuple[tuple[int, tuple | None] | None, ...]


@dataclass(frozen=True)
class Program:
    """A function's graph for `jit`: outputs are the `n_results` leaves of its result (whose
    structure is `tree`, see `arguments.py`), then the final values of the array arguments it
    writes (input positions `written`); `returned[k]` is None for a new value, or (position,
    view) when result leaf k is an argument's very array (view None) or a basic-slice view of
    it (a folded index spec): Python returns the caller's array or a view of it."""
    graph: Graph
    n_results: int
    tree: object
    written: tuple[int, ...]
    returned: tuple[tuple[int, tuple | None] | None, ...]

    @property
    def layout(self) -> Layout:
        return Layout(self.graph.name, self.n_results, self.tree, self.written,
                      self.returned)


def build_graph(fn, arg_types: list) -> tuple[Graph, int, object]:
    """The pure graph: results only, computed from the argument values at entry (writes into
    argument arrays are not outputs: `grad` and friends differentiate the values at entry).
    `arg_types` has one tree per parameter (see `arguments.py`; a plain `Type` for a number
    or an array); the graph's inputs are the trees' runtime leaves, its outputs the
    result's leaves, and the third element is the result's tree."""
    if hasattr(fn, "ir_for"):  # an adlite transformation (e.g. grad of grad)
        with externals.recording():
            graph, tree = fn.ir_for(tuple(arg_types))
            b = Builder()
            own, hidden = externals.bind_graph(graph)
            leaves = [t for tree in arg_types for t in arguments.leaf_types(tree)]
            inputs = [Var(t, v.hint) for t, v in zip(leaves, own, strict=True)]
            args = [cast(b, a, v.type) for a, v in zip(inputs, own, strict=True)]
            outputs = inline(b, graph, args + hidden)
            graph = externals.finish(Graph(inputs, b.eqns, outputs, graph.name))
            return graph, len(outputs), tree
    p = build_program(fn, arg_types)
    graph = p.graph
    pure = Graph(graph.inputs, graph.eqns, graph.outputs[:p.n_results], graph.name)
    externals.attach(pure, externals.of(graph))
    if p.written:
        dce(pure)
    return pure, p.n_results, p.tree


def build_program(fn, arg_types: list) -> Program:
    with nesting_guard(fn), externals.recording():
        return _build_program(fn, arg_types)


def _build_program(fn, arg_types: list) -> Program:
    b = Builder()
    conv = FunctionConverter(fn, b, stack=())
    params = conv.params
    if len(params) != len(arg_types):
        raise TypeError(f"{fn.__name__}() takes {len(params)} arguments but "
                        f"{len(arg_types)} were given")
    entry = _Entry(conv)
    values = [entry.parameter(name, tree) for name, tree in zip(params, arg_types, strict=True)]
    token = ENTRY_SCALARS.set(entry.scalars)
    try:
        result, ref = conv.run([v for v, _ in values], [r for _, r in values], entry.bases)
    finally:
        ENTRY_SCALARS.reset(token)
    inputs = entry.inputs
    tree, outputs, refs = _result(conv, result, ref, conv.fdef.body[-1].value)
    objects = conv.argument_objects  # object -> input position, in argument order
    written = [(i, conv.scope.env[conv.hidden[obj]]) for obj, i in objects.items()
               if conv.scope.env[conv.hidden[obj]] is not inputs[i]]
    returned = tuple((objects[r.obj], r.view) if isinstance(r, Ref) and r.obj in objects and
                     (r.plain or r.view) else None for r in refs)
    finals = [v for _, v in written]
    graph = externals.finish(Graph(inputs, b.eqns, outputs + finals, fn.__name__))
    return Program(graph, len(outputs), tree, tuple(i for i, _ in written), returned)


class _Entry:
    """The entry function's parameters rebuilt from their trees: runtime leaves become the
    graph's inputs (arrays are argument objects, so that writes into them, even inside a
    tuple, are written back), compile-time values are bound as Python objects (ints as
    constants), tuples and lists as tuples, dicts as dicts."""

    def __init__(self, conv: FunctionConverter) -> None:
        self.conv = conv
        self.inputs: list[Var] = []
        self.bases: dict[int, Var] = {}
        self.scalars: dict[Var, str] = {}  # int/bool/float leaves -> parameter (`static`)

    def parameter(self, name: str, tree, in_dict: bool = False):
        """(value, Ref) of a parameter (or part of one) described by `tree`."""
        if isinstance(tree, Type):
            var = Var(tree, name)
            self.inputs.append(var)
            if tree in (I64, BOOL, F64):  # may size an array: see `static`
                self.scalars[var] = name
            if not tree.is_array or in_dict:
                return var, None
            ref = Ref(new_object())
            self.bases[ref.obj] = var
            self.conv.argument_objects[ref.obj] = len(self.inputs) - 1
            return var, ref
        if isinstance(tree, Static):
            v = tree.value
            return (const(v) if isinstance(v, int | float) else v), None  # bools too
        pairs = [self.parameter(name, t, in_dict or tree.kind == "dict") for t in tree.children]
        if tree.kind == "dict":
            return dict(zip(tree.keys, (v for v, _ in pairs), strict=True)), None
        values = [v for v, _ in pairs]
        items = static_values.NamedTupleValue(values, tree.named) if tree.named else \
            (static_values.ListTuple if tree.kind == "list" else tuple)(values)
        return items, tuple(r for _, r in pairs)


def _structured(tree, atoms):
    """The frontend value of a result of tree `tree` whose runtime leaves are `atoms` (an
    iterator): dicts, tuples, lists (tuples inside the frontend) as the tree says."""
    if isinstance(tree, Type):
        return next(atoms)
    if isinstance(tree, Static):
        v = tree.value
        return const(v) if isinstance(v, int | float) else v
    items = [_structured(child, atoms) for child in tree.children]
    if tree.kind == "dict":
        return dict(zip(tree.keys, items, strict=True))
    if tree.named is not None:
        return static_values.NamedTupleValue(items, tree.named)
    return (static_values.ListTuple if tree.kind == "list" else tuple)(items)


def _result(conv: FunctionConverter, result, ref, node):
    """(tree, output atoms, their Refs) of the returned value; a list display returns a
    list (lists are tuples inside the frontend)."""
    if isinstance(result, Var | Const):
        return result.type, [result], [ref]
    if isinstance(result, ListValue):  # a Python list: its items, as a list
        tree, outputs, refs = _result(conv, tuple(result.items), tuple(result.refs), None)
        return Node("list", tree.children), outputs, refs
    if isinstance(result, tuple | dict):
        items = result.values() if isinstance(result, dict) else result
        refs = ref if isinstance(ref, tuple) else (None,) * len(result)
        elts = node.elts if isinstance(node, gast.Tuple | gast.List) and \
            len(node.elts) == len(result) else [None] * len(result)
        if isinstance(node, gast.Dict):
            elts = node.values
        parts = [_result(conv, v, r, e) for v, r, e in zip(items, refs, elts, strict=True)]
        kind = "dict" if isinstance(result, dict) else \
            "list" if isinstance(node, gast.List) else "tuple"
        keys = tuple(result) if isinstance(result, dict) else ()
        named = result.named if isinstance(result, static_values.NamedTupleValue) else None
        return (Node(kind, tuple(t for t, _, _ in parts), keys, named),
                [o for _, os, _ in parts for o in os], [r for _, _, rs in parts for r in rs])
    if result is None or isinstance(result, str | bytes | int | float):
        return Static(result), [], []
    raise conv.source.error(node if node is not None else conv.fdef,
                            "the function must return numbers, arrays, strings or None, or "
                            "tuples, lists and dicts of them")


def cast(b: Builder, value: Atom, t: Type) -> Atom:
    """`value` with the element type of `t` (its shape is kept)."""
    if value.type.name == t.name:
        return value
    if isinstance(value, Const):
        return const(value.value, t.scalar)
    return b.convert(value, to=t.scalar)


class FunctionConverter:
    """Converts one function body; inlined callees get their own converter."""

    def __init__(self, fn, b: Builder, stack: tuple) -> None:
        self.fn = fn
        key = fn.node if isinstance(fn, closures.Closure) else fn
        if key in stack:
            raise RecursionError_(self.fn)
        self.stack = stack + (key,)
        self.source, fdef, self.globals = closures.definition(fn)
        self.fdef = Normalizer(self.source).function(fdef)
        self.params = closures.parameters(self.fdef)
        self.b = b
        self.scope = Scope()
        self.argument_objects: dict[int, int] = {}  # object -> parameter position
        self.hidden: dict[int, str] = {}  # argument object -> its hidden name

    # ---- driver ---------------------------------------------------------------------------

    def run(self, args: list, refs: list | None = None, bases: dict | None = None,
            names: list[str] | None = None):
        """(result, its Ref(s)). `refs` are the arguments' refs in the caller (None: fresh
        values, as at the top level) and `bases` the values of the objects they belong to;
        every argument object gets a hidden name holding its final value. `names` are the
        variables the arguments bind (default: the parameters, in order)."""
        refs = refs or [None] * len(args)
        bases = dict(bases or {})
        for position, (name, value, ref) in enumerate(zip(names or self.params, args, refs,
                                                           strict=True)):
            if isinstance(value, Var | Const) and value.type.is_array and ref is None:
                ref = Ref(new_object())
                bases[ref.obj] = value
            for r in _flat_refs([ref]):
                if r.obj in bases:
                    self.argument_objects.setdefault(r.obj, position)
            self.scope.bind(name, LIVE if isinstance(ref, Ref) and ref.view else value, ref)
        for k, obj in enumerate(self.argument_objects):
            self.hidden[obj] = hidden_name(k)
            self.scope.bind(self.hidden[obj], bases[obj], Ref(obj))
        body = self.fdef.body
        self.block(body[:-1])
        ret = body[-1]
        self.b.loc = self.line(ret)
        return self.expr_ref(ret.value)

    def line(self, node) -> int:
        return self.source.first_line + getattr(node, "lineno", 1) - 1

    def block(self, stmts) -> None:
        for s in stmts:
            self.b.loc = self.line(s)
            self.stmt(s)

    def stmt(self, s) -> None:
        if isinstance(s, gast.Assign):
            if getattr(s, "augmented", False) and self.in_place(s):
                return
            value, ref = self.expr_ref(s.value)
            if len(s.targets) > 1 and ref is None and isinstance(value, Var | Const) and \
                    value.type.is_array:
                ref = Ref(new_object())  # `a = b = np.zeros(n)`: one new object, two names
            for target in s.targets:  # left to right, as Python
                self.assign(target, value, ref)
        elif isinstance(s, gast.If):
            self.stmt_if(s)
        elif isinstance(s, gast.While):
            self.stmt_while(s)
        elif statements.handles(self, s):
            statements.convert(self, s)
        elif isinstance(s, gast.Expr):
            self.expr(s.value)
        elif isinstance(s, gast.Pass):
            pass
        else:
            raise self.source.error(s, f"unsupported statement: {type(s).__name__}",
                                    "see the README for the supported subset of Python")

    def in_place(self, s) -> bool:
        """`x op= v` on an array writes into x's object (numpy), seen through its aliases."""
        name = s.targets[0].id
        current = self.scope.env.get(name)
        if not (isinstance(self.scope.refs.get(name), Ref) and (current is LIVE or isinstance(
                current, Var | Const) and current.type.is_array)):
            return False
        x = self.expr(s.value.left)
        value = self.value(self.expr(s.value), s)
        if value.type.shape != x.type.shape:
            raise self.source.error(s, f"in-place operation: a result of shape "
                                       f"{value.type.shape} cannot be written into an array of "
                                       f"shape {x.type.shape}")
        self.write(name, None, WHOLE, value, s)
        return True

    def assign(self, target, value, ref=None) -> None:
        if isinstance(target, gast.Name):
            if isinstance(value, Var) and not value.hint:
                value.hint = target.id
            self.bind(target.id, value, ref)
            self.scope.define(target.id)
        elif isinstance(target, gast.Subscript):
            outside, root = target.value, target.value
            while isinstance(root, gast.Attribute):
                root = root.value
            local = isinstance(root, gast.Name) and root.id in self.scope.env and (
                isinstance(self.scope.env[root.id], Var | Const) or self.scope.env[root.id] is LIVE)
            if not local and (isinstance(outside, gast.Attribute) or isinstance(
                    root, gast.Name) and root.id in self.globals):
                raise self.source.error(target, f"write into {gast.unparse(outside)!r}, an "
                                                "array from outside the function (module-level, "
                                                "closed over or an object's attribute): "
                                                "compiled code reads such arrays at every call "
                                                "but does not write them",
                                        "pass the array as an argument: compiled code writes "
                                        "into argument arrays")
            if not isinstance(target.value, gast.Name) or target.value.id not in self.scope.env:
                raise self.source.error(target, "assignment into something that is not a "
                                                "local array variable",
                                        "assign into an array variable: `x[i] = v`")
            base = self.expr(target.value)  # refuses a poisoned or maybe-undefined name
            if isinstance(base, ListValue):
                sequences.setitem(self, base, target.slice, value, ref, target)
                return
            self.write(target.value.id, target.slice, None, self.value(value, target), target)
        elif isinstance(target, gast.Tuple | gast.List):
            if isinstance(value, ListValue | RangeValue):  # unpacks like a tuple
                value, ref = sequences.unpacked(self, value, target)
            elif isinstance(value, Var | Const) and value.type.is_array:
                value, ref = self.rows(value, ref, len(target.elts), target)
            if not isinstance(value, tuple) or len(value) != len(target.elts):
                raise self.source.error(target, "cannot unpack: the value is not a tuple of "
                                                f"{len(target.elts)} elements")
            refs = ref if isinstance(ref, tuple) else (None,) * len(value)
            for t, v, r in zip(target.elts, value, refs, strict=True):
                self.assign(t, v, r)
        elif isinstance(target, gast.Attribute):
            raise self.source.error(target, f"assignment to the attribute "
                                            f"{gast.unparse(target)!r}: compiled code does not "
                                            "change Python objects",
                                    "return the new value and assign it outside the compiled "
                                    "function")
        else:
            raise self.source.error(target, f"unsupported assignment target: "
                                            f"{type(target).__name__}",
                                    "assign to a plain variable name")

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

    # ---- array objects and aliasing (see aliasing.py) ---------------------------------------

    def bind(self, name: str, value, ref) -> None:
        """Bind `name` to `value`, an alias of `ref`'s object (None: a new object)."""
        if isinstance(value, Var | Const) and value.type.is_array:
            ref = ref if isinstance(ref, Ref) else Ref(new_object())
            old, old_value = self.scope.bind(name, LIVE if ref.view else value, ref)
        else:
            kept = ref if isinstance(value, tuple) and isinstance(ref, tuple) else None
            old, old_value = self.scope.bind(name, value, kept)
        if isinstance(old, Ref) and old.plain and self.scope.base_name(old.obj) is None:
            self.freeze_views(old.obj, old_value)

    def freeze_views(self, obj: int, base) -> None:
        """The object lost its last name: its live views keep their current values."""
        for n, r in list(self.scope.refs.items()):
            if isinstance(r, Ref) and r.view and r.obj == obj:
                self.freeze(n, base)

    def view_value(self, ref: Ref, base: Atom | None = None) -> Atom:
        """The current value of view `ref`, read from `base` (default: its object's value)."""
        spec, ints = spec_operands(ref.view)
        if base is None:
            base = self.scope.env[self.scope.base_name(ref.obj)]
        return self.b.index(base, *map(const, ints), spec=spec)

    def freeze(self, name: str, base: Atom | None = None) -> None:
        """View `name` keeps its current value from now on (it no longer follows its base)."""
        ref = self.scope.refs[name]
        self.scope.env[name] = self.view_value(ref, base)
        self.scope.refs[name] = Ref(ref.obj, frozen=True)

    def write(self, name: str, index, index_spec, v: Atom, node, accumulate=False) -> None:
        """`name[index] = v` (or the whole array when `index_spec` is given): writes into the
        object `name` is bound to, seen through all of its names and views; with
        `accumulate`, `np.add.at(name, index, v)`."""
        ref = self.scope.refs.get(name)
        if not isinstance(ref, Ref):
            self.array(self.scope.env[name], node)  # raises: not an array
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
            raise _unrollable(self.source.error(
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
            raise _unrollable(self.source.error(
                node, f"write into {name!r}, a numpy view (reshape, transpose, .T, or an index "
                      "with runtime values) that compiled code cannot follow",
                "write into the base array directly, or use .copy() to make an independent "
                "array"))
        base = self.scope.env[self.scope.base_name(ref.obj)]
        x = self.view_value(ref) if ref.view else base
        if index_spec is None:
            spec, ints = self.index_spec(x, index)
        else:
            spec, ints = (index_spec,) * len(x.type.shape), []
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

    def store(self, obj: int, value: Atom, line: int) -> None:
        """The object's new value: its names see it, views cut off from it are poisoned."""
        for n, r in self.scope.refs.items():
            if isinstance(r, tuple):
                self.scope.env[n] = self._store_tuple(self.scope.env[n], r, obj, value, n, line)
            elif r.plain and r.obj == obj:
                self.scope.env[n] = value
            elif (r.frozen or r.maybe) and obj in r.objects():
                self.scope.poison(n, line)
        sequences.store_items(self, obj, value, line)

    def _store_tuple(self, values: tuple, refs: tuple, obj, value, name, line):
        out = []
        for v, r in zip(values, refs, strict=True):
            if isinstance(r, tuple):
                v = self._store_tuple(v, r, obj, value, name, line)
            elif isinstance(r, Ref) and obj in r.objects():
                if r.plain:
                    v = value
                else:
                    self.scope.poison(name, line)
            out.append(v)
        return tuple(out)

    # ---- values ---------------------------------------------------------------------------

    def value(self, value, node) -> Atom:
        """A number or an array (not a tuple, module or function)."""
        if not isinstance(value, Var | Const):
            raise self.source.error(node, f"expected a number or an array here, got "
                                          f"{static_values.describe(value)}",
                                    "strings, None and functions are compile-time values: "
                                    "compare them (`if option == 'put'`) or call them")
        return value

    def scalar(self, value, node) -> Atom:
        value = self.value(value, node)
        if value.type.is_array:
            raise self.source.error(node, f"expected a number here, got an array {value.type}")
        return value

    def array(self, value, node) -> Atom:
        value = self.value(value, node)
        if not value.type.is_array:
            raise self.source.error(node, f"expected an array here, got {value.type}")
        return value

    def static(self, value, node):
        """The compile-time Python value of a constant (or tuple of constants)."""
        if isinstance(value, tuple):
            return tuple(self.static(v, node) for v in value)
        if isinstance(value, Const):
            return value.value
        if value is None or isinstance(value, type | str) or value in DTYPE_OBJECTS:
            return value
        is_known, known = externals.known(value)  # a module-level float: guarded by value
        if is_known:
            return known
        error = self.source.error(node, "this value must be known when compiling (a constant, "
                                        "x.shape, len(x), ...)")
        names = _entry_scalars(self.b, value) if isinstance(value, Var) else None
        if names:
            raise NeedStatic(names, error)
        raise error

    def placeholder(self, t: Type, b: Builder | None = None) -> Atom:
        """The value of a variable on a path where it is not assigned (never read there)."""
        if not t.is_array:
            return const(0, t)
        return (b or self.b).full(const(0, t.scalar), shape=t.shape, dtype=t.scalar)

    def numeric(self, value, node) -> Atom:
        value = self.value(value, node)
        return self.to_type(value, I64) if value.type.name == "bool" else value

    def as_float(self, value, node) -> Atom:
        value = self.value(value, node)
        return value if value.type.is_float else self.to_type(value, F64)

    def to_type(self, value: Atom, t: Type, b: Builder | None = None) -> Atom:
        return cast(b or self.b, value, t)

    def promote(self, x, y, node) -> tuple[Atom, Atom]:
        """Common element type of two operands; scalars are weak next to float arrays
        (float32 array * 2.0 stays float32) and literals next to float numbers
        (np.float32 number * 2.0 stays float32), as in numpy 2."""
        x, y = self.numeric(x, node), self.numeric(y, node)
        tx, ty = x.type, y.type
        if tx.is_array != ty.is_array:
            array, scalar = (tx, ty) if tx.is_array else (ty, tx)
            t = array.scalar if array.is_float else join_type(array.scalar, scalar.scalar)
        elif isinstance(y, Const) and not ty.is_array and tx.is_float and ty != BOOL:
            t = tx.scalar
        elif isinstance(x, Const) and not tx.is_array and ty.is_float and tx != BOOL:
            t = ty.scalar
        else:
            t = join_type(tx.scalar, ty.scalar)
        return self.to_type(x, t), self.to_type(y, t)

    def truth(self, value, node) -> Atom:
        if static_values.is_static(value):  # `if tol:`, `if callback:`: Python's truth
            return const(bool(static_values.python_value(value)))
        value = self.scalar(value, node)
        if value.type == BOOL:
            return value
        if isinstance(value, Const):
            return const(bool(value.value))
        return self.b.ne(value, const(0, value.type))

    def one(self, args, node):
        return self.exactly(args, 1, node)[0]

    def exactly(self, args, n, node):
        if len(args) != n:
            raise self.source.error(node, f"expected {n} argument(s), got {len(args)}")
        return args

    # ---- expressions --------------------------------------------------------------------------

    def expr(self, node):
        kind = UNSUPPORTED_EXPRESSIONS.get(type(node))
        if kind:
            raise self.source.error(node, f"unsupported construct: {kind[0]}", kind[1])
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.source.error(node, f"unsupported expression: {type(node).__name__}",
                                    "see the README for the supported subset of Python")
        try:
            return method(node)
        except AdliteSyntaxError:  # reported already (numpy's TypeError among them)
            raise
        except TypeError as e:  # a primitive's type rule: shapes or dtypes do not fit
            raise self.source.error(node, str(e)) from None
        except OverflowError as e:  # an int constant (literal or outside value) too large
            raise self.source.error(node, str(e), "use a float, or an int below 2**63") \
                from None

    def expr_Constant(self, node):
        v = node.value
        if isinstance(v, bool | int | float) and not isinstance(v, complex):
            return const(v)
        if v is None or isinstance(v, str):
            return v  # a compile-time value
        raise self.source.error(node, f"unsupported constant {v!r}", "use int or float values")

    def expr_NestedDef(self, node):
        return closures.make(self, node)

    def expr_Name(self, node):
        name = node.id
        if name in self.scope.env:
            if not self.scope.defined(name) and not name.startswith("__"):
                raise self.source.error(node, f"variable {name!r} may be undefined here: it is "
                                              "assigned only on some paths",
                                        f"assign {name} before the if/loop")
            if name in self.scope.poisoned:
                raise _unrollable(self.source.error(
                    node, f"{name!r} is a view of an array that was written at line "
                          f"{self.scope.poisoned[name]} (or may be the same array); compiled code "
                          "cannot tell which values it sees",
                    "use .copy() to make an independent array"))
            if self.scope.env[name] is LIVE:
                return self.view_value(self.scope.refs[name])
            return self.scope.env[name]
        if name in HIDDEN_FUNCTIONS:
            return HIDDEN_FUNCTIONS[name]
        if name in self.globals:
            return self.resolve_global(self.globals[name], node,
                                       externals.global_place(self.fn, name))
        if hasattr(builtins, name):
            return self.resolve_global(getattr(builtins, name), node)
        raise self.source.error(node, f"name {name!r} is not defined", functions.nearest(
            name, [n for n in [*self.scope.env, *self.globals, *dir(builtins)]
                   if not n.startswith("_")]))

    def resolve_global(self, obj, node, place: externals.Place | None = None):
        """A value from outside the function. One with a `place` (a module-level or
        closed-over name, an object's attribute) is read at every call (see externals.py):
        floats and float arrays as hidden inputs, other values guarded."""
        if isinstance(obj, bool | int | np.integer | np.bool_):
            if place is not None:
                externals.guard(place, obj)
            return const(obj if not hasattr(obj, "item") else obj.item())
        if place is None:  # a builtin, or a value whose place is unknown: as it is now
            if isinstance(obj, np.ndarray):
                raise self.source.error(node, "an array from outside the function whose "
                                              "place compiled code cannot find",
                                        "pass the array as an argument")
            return const(obj) if isinstance(obj, float) else obj
        if isinstance(obj, float | np.floating | np.ndarray):
            t = externals.input_type(obj)
            if isinstance(t, str):
                raise self.source.error(node, f"{place.title!r} is {t}",
                                        "pass it as an argument")
            return externals.input_var(place, obj, t)
        externals.guard(place, obj)
        if type(obj) in (tuple, list):  # its items are read at every call too
            if isinstance(obj, list):
                externals.guard(externals.Place(obj, "len", 0, f"len({place.title})"), len(obj))
            kind = static_values.ListTuple if isinstance(obj, list) else tuple
            return kind(self.resolve_global(v, node, externals.Place(
                obj, "item", i, f"{place.title}[{i}]")) for i, v in enumerate(obj))
        return obj  # modules, functions and objects are resolved by Attribute / Call

    def expr_Attribute(self, node, base=None):
        ref = None
        if base is None:
            masks.expect_method(node)
            base, ref = self.expr_ref(node.value)
        if isinstance(base, masks.Masked):
            return _Method(base, node.attr, None)
        if isinstance(base, Var | Const) and base.type.is_array:
            if node.attr in ARRAY_METHODS:
                return _Method(base, node.attr, ref)
            return array_functions.attribute(self, base, node.attr, node)
        if isinstance(base, ListValue):
            return ListMethod(base, node.attr)
        if isinstance(base, types.ModuleType):
            value = functions.constant(base, node.attr)
            if value is not None:
                return const(float(value))
            if not hasattr(base, node.attr):
                raise self.source.error(node, f"module {base.__name__!r} has no attribute "
                                              f"{node.attr!r}", functions.nearest(
                                                  node.attr, functions.supported_names(base)
                                                  or dir(base)))
            value = getattr(base, node.attr)
            if isinstance(value, int | float | np.number | np.bool_ | np.ndarray) or \
                    type(value) in (tuple, list):  # a module's numbers: read at every call
                return self.resolve_global(value, node, externals.Place(
                    vars(base), "item", node.attr, f"{base.__name__}.{node.attr}"))
            return value
        if (method := scipy_functions.method(base, node.attr)) is not None:  # norm.cdf
            return method
        if isinstance(base, str | bytes):  # a compile-time string: its methods run now
            if not hasattr(base, node.attr):
                raise self.source.error(node, f"{type(base).__name__!r} object has no "
                                              f"attribute {node.attr!r}")
            return getattr(base, node.attr)
        if isinstance(base, static_values.NamedTupleValue):
            value = base.field(node.attr)
            if value is None:
                raise self.source.error(node, f"{base.named.__name__!r} has no field "
                                              f"{node.attr!r} (its fields: "
                                              f"{', '.join(base.named._fields)})",
                                        "named tuples are read by field or index; their "
                                        "methods (_replace, _asdict) do not compile")
            return value
        if _is_object(base):  # a Python object's attribute, read at every call
            if not hasattr(base, node.attr):
                raise self.source.error(node, f"{type(base).__name__!r} object has no "
                                              f"attribute {node.attr!r}")
            return self.resolve_global(getattr(base, node.attr), node, externals.Place(
                base, "attr", node.attr, f"{gast.unparse(node.value)}.{node.attr}"))
        raise self.source.error(node, f"unsupported attribute access .{node.attr}",
                                "numbers have no attributes")

    def expr_Tuple(self, node):
        return tuple(self.expr(e) for e in node.elts)

    def expr_List(self, node):
        return sequences.new_list(self, [self.expr_ref(e) for e in node.elts])

    def expr_Dict(self, node):
        """A dict display with string keys (a compile-time structure of values)."""
        keys = [None if k is None else self.key(k) for k in node.keys]
        if not all(isinstance(k, str) for k in keys):
            raise self.source.error(node, "dict keys must be string constants",
                                    "use string keys: {'w': w, 'b': b}")
        return dict(zip(keys, (self.expr(v) for v in node.values), strict=True))

    def key(self, node):
        """A dict key: a string constant, or a compile-time value."""
        if isinstance(node, gast.Constant) and isinstance(node.value, str):
            return node.value
        return self.static(self.expr(node), node)

    def expr_Subscript(self, node):
        return self.subscript(node)[0]

    def expr_ref(self, node):
        """(value, Ref) of an expression: the object (or view of one) it evaluates to, None
        for a new array or a number, a tuple of them for a tuple."""
        try:
            return self._expr_ref(node)
        except AdliteSyntaxError:  # reported already (numpy's TypeError among them)
            raise
        except TypeError as e:  # a primitive's type rule: shapes or dtypes do not fit
            raise self.source.error(node, str(e)) from None

    def _expr_ref(self, node):
        if isinstance(node, gast.Name) and node.id in self.scope.env:
            return self.expr(node), self.scope.refs.get(node.id)
        if isinstance(node, gast.List):
            return self.expr_List(node), None
        if isinstance(node, gast.Tuple):
            pairs = [self.expr_ref(e) for e in node.elts]
            return tuple(v for v, _ in pairs), tuple(r for _, r in pairs)
        if isinstance(node, gast.BinOp):
            return self.binop_ref(node)
        if isinstance(node, gast.Subscript):
            return self.subscript(node)
        if isinstance(node, gast.Attribute) and node.attr == "T":
            base, ref = self.expr_ref(node.value)
            value = self.expr_Attribute(node, base)
            return value, _frozen(self.outside(base, ref))
        if isinstance(node, gast.Call):
            return self.call(node)
        if isinstance(node, gast.IfExp):
            return self.ifexp(node)
        value = self.expr(node)
        return value, self.outside(value, None)

    def outside(self, value, ref):
        """`ref`, or for an array read from outside the function the Ref of its own object
        (compiled code refuses writes into it, see externals.py)."""
        if ref is None:
            obj = externals.outside_object(value)
            if obj is not None:
                return Ref(obj, frozen=True)
        return ref

    def subscript(self, node):
        base, ref = self.expr_ref(node.value)
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
            if isinstance(index, Var):  # a counted loop unrolled indexes with constants
                raise _unrollable(self.source.error(node, "a tuple indexed with a run-time "
                                                          "value", "index tuples with integer "
                                                                   "constants, or use a list"))
            index = self.static(index, node)
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
        x = self.array(base, node)
        ref = self.outside(x, ref)
        spec, ints = self.index_spec(x, node.slice)
        if masks.is_mask(spec):
            return masks.read(self, x, spec[0], node), None
        if fancy.has_arrays(spec):
            return fancy.gather(self, x, spec, ints, node), None
        value = self.b.index(x, *ints, spec=spec)
        return value, self.view_ref(ref, spec, ints, value)

    def view_ref(self, ref, spec, ints, value):
        """The Ref of `value`, read from the array `ref` names by the index (spec, ints)."""
        if not isinstance(ref, Ref) or not value.type.is_array:
            return None
        if not (is_static_view(spec, ints) and (ref.plain or ref.view)):
            return _frozen(ref)
        view = static_spec(spec, ints)
        if ref.view:
            shape = self.scope.env[self.scope.base_name(ref.obj)].type.shape
            view = compose(shape, ref.view, view)
            if view is None:
                return _frozen(ref)
        return Ref(ref.obj, view=view)

    def index_spec(self, x, index_node):
        """(spec, runtime integer operands) of a basic numpy index (ints, slices with
        constant bounds, None, ...); negative runtime indices are wrapped at run time."""
        items = index_node.elts if isinstance(index_node, gast.Tuple) else [index_node]
        ndim = len(x.type.shape)
        values = [_Slice if isinstance(item, gast.Slice) else
                  item.value if isinstance(item, gast.Constant) and item.value in (None, Ellipsis)
                  else self.expr(item) for item in items]  # np.newaxis is None
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
                positions = dynamic_slices.index_item(self, x.type.shape[dim], parts, item)
                if positions is not None:
                    spec.append(positions)
                    dim += 1
                    continue
                bounds = self.static_slice(parts, item)
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

    def slice_parts(self, node: gast.Slice) -> list:
        """The values of a slice's lower, upper and step (None where absent)."""
        return [None if part is None else self.expr(part)
                for part in (node.lower, node.upper, node.step)]

    def static_slice(self, parts, node) -> slice:
        """The slice of bounds `parts` (see `slice_parts`), which must be ints known when
        compiling, with a nonzero step (Python's message)."""
        bounds = [None if part is None else self.static(part, node) for part in parts]
        if not all(b is None or isinstance(b, int) for b in bounds):
            raise self.source.error(node, "slice bounds must be integer constants")
        if bounds[2] == 0:
            raise self.source.error(node, "slice step cannot be zero")
        return slice(*bounds)

    def wrap_index(self, i, n, node):
        if isinstance(i, Const):
            if not -n <= i.value < n:
                raise self.source.error(node, f"index {i.value} is out of bounds for an axis "
                                              f"of size {n}")
            return const(i.value % n)
        return self.b.select(self.b.lt(i, 0), self.b.add(i, n), i)

    def expr_BinOp(self, node):
        return self.binop_ref(node)[0]

    def binop_ref(self, node):
        """(value, Ref) of a binary operation: tuples concatenate (`shape + (1,)`) and repeat
        (`(0.0,) * n`, n known when compiling), keeping their items' objects."""
        (x, rx), (y, ry) = self.expr_ref(node.left), self.expr_ref(node.right)
        if _is_tuple(x) or _is_tuple(y):
            return _tuple_binop(self, node, x, rx, y, ry)
        return self.binop(node, x, y), None

    def binop(self, node, x, y):
        if isinstance(x, ListValue) or isinstance(y, ListValue):
            return sequences.binop(self, BINOPS.get(type(node.op)), x, y, node)
        if isinstance(x, masks.MaskedRead):  # x[mask] op= y
            x, y = masks.augmented_operands(self, x, y, node)
        if masks.is_bitwise(node.op):
            return masks.bitwise(self, node.op, x, y, node)
        if isinstance(node.op, gast.MatMult):
            return array_functions.dot(self, self.array(x, node), self.array(y, node), node)
        op = BINOPS.get(type(node.op))
        if op is None:
            raise self.source.error(node, f"unsupported operator {type(node.op).__name__}",
                                    "use + - * / // % ** @")
        if op == "div" and not _has_float(x, y):  # int / int: Python's exact quotient
            return self.b.int_truediv(*(self.to_type(self.scalar(v, node), I64)
                                        for v in (x, y)))
        if op == "div":
            return self.b.div(*self.promote(self.as_float(x, node), self.as_float(y, node),
                                            node))
        x, y = self.promote(x, y, node)
        if op == "pow" and x.type == I64 and not (isinstance(y, Const) and y.value >= 0):
            x, y = self.as_float(x, node), self.as_float(y, node)
        return self.b.op(op, x, y)  # `n % 0` raises ZeroDivisionError when it runs, as Python

    def expr_UnaryOp(self, node):
        x = self.expr(node.operand)
        if isinstance(node.op, gast.Not):
            return self.b.not_(self.truth(x, node))
        if isinstance(node.op, gast.USub):
            return self.b.neg(self.numeric(x, node))
        if isinstance(node.op, gast.UAdd):
            return self.numeric(x, node)
        if isinstance(node.op, gast.Invert):
            return masks.invert(self, x, node)
        raise self.source.error(node, f"unsupported operator {type(node.op).__name__}")

    def expr_Compare(self, node):
        result = None
        left = self.expr(node.left)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.expr(comparator)
            known = static_values.compare(op, left, right)
            prim = CMPOPS.get(type(op))
            if known is not None:
                test = const(known)
            elif prim is None:
                raise self.source.error(node, f"unsupported comparison {type(op).__name__}",
                                        "compare numbers with < <= > >= == !=; `is`, `in` "
                                        "and `==` on strings, None and functions")
            else:
                test = self.b.op(prim, *self.promote(*externals.fold_comparison(left, right),
                                                      node))
            result = test if result is None else self.b.and_(result, test)
            left = right
        return result

    def expr_BoolOp(self, node):
        is_or, values = isinstance(node.op, gast.Or), []
        for v in node.values:
            x = self.expr(v)
            if values or static_values.is_runtime(x):
                values.append(self.scalar(x, v))
            elif bool(static_values.python_value(x)) == is_or or v is node.values[-1]:
                return x  # a known operand decides, as Python returns it (`tol or 1e-6`)
        if any(v.type != BOOL for v in values):
            raise self.source.error(node, "`and`/`or` on non-boolean values",
                                    "compare explicitly, e.g. `x != 0 and y > 1`")
        prim = "and_" if isinstance(node.op, gast.And) else "or_"
        result = values[0]
        for v in values[1:]:
            result = self.b.op(prim, result, v)
        return result

    def expr_IfExp(self, node):
        return self.ifexp(node)[0]

    def ifexp(self, node):
        test = self.truth(self.expr(node.test), node.test)
        if isinstance(test, Const):
            return self.expr_ref(node.body if test.value else node.orelse)
        return self.branch(test, [node.orelse], [node.body], expression=True)

    def expr_Call(self, node):
        return self.call(node)[0]

    def call(self, node):
        """(value, Ref) of a call: views for numpy's view-making functions, the callee's
        result refs for inlined functions."""
        func = self.expr(node.func)
        if isinstance(func, closures.Unusable):
            func.refuse(self, node)
        if numpy_functions.syntactic(func) is not None:  # reads its arguments' syntax
            return numpy_functions.syntactic(func)(self, node), None
        if fancy.is_add_at(func):
            return fancy.add_at(self, node), None
        masks.before_call(self, func, node)
        pairs = [p for a in node.args for p in self.call_argument(a)]
        args = [v for v, _ in pairs]
        kwpairs = self.call_keywords(node)
        kwargs = {k: v for k, (v, _) in kwpairs.items()}
        if isinstance(func, _Method) and isinstance(func.array, masks.Masked):
            return masks.reduce(self, func.name, func.array, args, kwargs, node), None
        if args and isinstance(args[0], masks.Masked):
            return masks.reduce(self, masks.reduction_name(func), args[0], args[1:], kwargs,
                                node), None
        if isinstance(func, _Method) and func.name == "sort":
            return sorting.sort_in_place(self, func.array, args, kwargs, node), None
        if isinstance(func, _Method):
            value = array_functions.method(self, func.array, func.name, args, kwargs, node)
            return value, (_frozen(func.ref) if func.name in VIEW_METHODS else None)
        if isinstance(func, ListMethod):
            return sequences.call_method(self, func, pairs, kwargs, node)
        return self.call_value(func, pairs, kwpairs, node)

    def call_value(self, func, pairs: list, kwpairs: dict, node):
        """(value, Ref) of calling the function value `func` (a function with a lowering, an
        adlite transformation or a Python function, inlined) with the (value, Ref) `pairs`
        and the keyword `kwpairs`; `node` is the call the errors name."""
        args = [v for v, _ in pairs]
        kwargs = {k: v for k, (v, _) in kwpairs.items()}
        lowering = functions.lookup(func)
        if lowering is not None:
            args = [sequences.as_tuples(a) for a in args]
            value = lowering(self, args, kwargs, node)
            view = any(func is f for f in VIEW_FUNCTIONS) and pairs
            if pairs and value is pairs[0][0] and func in numpy_functions.SAME_OBJECT:
                return value, pairs[0][1]
            if view and _is_tuple(value) and len(value) == len(pairs) > 1:  # atleast_2d(a, b)
                return value, tuple(_frozen(ref) for _, ref in pairs)
            return value, (_frozen(pairs[0][1]) if view else None)
        if getattr(func, "kind", None) == "jit" and isinstance(getattr(func, "fn", None),
                                                               types.FunctionType):
            func = func.fn  # inlined as Python, so that writes into arguments are seen
        if hasattr(func, "ir_for"):
            if kwargs:
                raise self.source.error(node, "keyword arguments in calls to adlite "
                                              "transformations", "pass arguments by position")
            return self.inline_transformed(func, args, node), None
        if isinstance(func, types.BuiltinMethodType) and type(func.__self__) is dict and \
                func.__name__ in DICT_READS and not kwargs:  # a compile-time dict, read
            if func.__name__ == "get" and node.args:
                args = [self.key(node.args[0])] + args[1:]
            result = func(*args)
            return (result if func.__name__ == "get" else tuple(result)), None
        if isinstance(func, types.BuiltinMethodType) and isinstance(func.__self__, str | bytes):
            return self.string_method(func, args, kwargs, node), None
        library = numpy_functions.library_function(getattr(func, "__func__", func))
        if isinstance(func, types.MethodType) and isinstance(func.__func__, types.FunctionType) \
                and library is None:  # never inlined: numpy's or scipy's source
            return self.inline(func.__func__, [(func.__self__, None)] + pairs, kwpairs, node)
        if isinstance(func, types.FunctionType | closures.Closure) and library is None:
            return self.inline(func, pairs, kwpairs, node)
        if not static_values.is_static(func):
            raise self.source.error(node, "this value is a number or an array, not a function")
        name = getattr(func, "__name__", type(func).__name__)
        if library and library.startswith("np.random."):
            hint = "draw the random numbers outside the compiled function and pass them in " \
                "as an argument"
        else:
            module = sys.modules.get(getattr(func, "__module__", None) or "") if library \
                else None
            guess = functions.nearest(name, functions.supported_names(
                module if module is not None and library else None))
            hint = (f"{guess} " if guess else "") + "the README's 'Supported Python' lists " \
                "the library functions that compile; Python functions defined with def " \
                "compile (they are inlined)"
        raise self.source.error(node, f"{library}() is not supported" if library else
                                f"unsupported function {name!r}", hint)

    def string_method(self, method, args, kwargs, node):
        """A method of a compile-time string, called when compiling (they have no effects):
        its arguments must be known when compiling too."""
        values = [*args, *kwargs.values()]
        if not all(static_values.is_static(v) or isinstance(v, Const) for v in values):
            raise self.source.error(node, f"str.{method.__name__}() of a value known only "
                                          "at run time",
                                    "strings are compile-time values: build them from "
                                    "arguments outside the compiled function")
        result = method(*[static_values.python_value(a) for a in args],
                        **{k: static_values.python_value(v) for k, v in kwargs.items()})
        if isinstance(result, bool | int | float):
            return const(result)
        return static_values.ListTuple(result) if isinstance(result, list) else result

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
        """The (value, Ref) pairs an argument passes: one, or a tuple's elements for `*t`."""
        if not isinstance(node, gast.Starred):
            return [self.expr_ref(node)]
        value, ref = self.expr_ref(node.value)
        if not isinstance(value, tuple):
            raise self.source.error(node, f"*{static_values.describe(value)} in a call",
                                    "unpack a tuple: f(*args) with args a tuple")
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
            bases[ref.obj] = self.scope.env[name]
        elif ref.plain and isinstance(value, Var | Const):
            bases[ref.obj] = value
        else:
            return _frozen(ref)
        return ref

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
        return _structured(tree, iter(inline(self.b, graph, atoms + hidden)))

    def _tree(self, value, node, atoms: list):
        """The signature tree (`arguments.py`) of a value passed to a transformation; its
        runtime leaves are appended to `atoms`."""
        if isinstance(value, sequences.ListValue):
            value = static_values.ListTuple(value.items)
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return Node("dict", tuple(self._tree(v, node, atoms) for v in value.values()),
                        tuple(value))
        if _is_tuple(value):
            kind = "list" if isinstance(value, static_values.ListTuple) else "tuple"
            named = value.named if isinstance(value, static_values.NamedTupleValue) else None
            return Node(kind, tuple(self._tree(v, node, atoms) for v in value), named=named)
        if static_values.is_static(value):
            return Static(value)
        atoms.append(self.value(value, node))
        return atoms[-1].type

    def inline(self, fn, pairs, kwpairs, node):
        """Inline a call: the callee's parameters (then a closure's free variables) are
        bound to the caller's objects as Python binds them (closures.bind), and its writes
        into them are stored back into the caller's names."""
        if len(self.stack) > MAX_INLINE_DEPTH:
            raise self.source.error(node, "calls nested too deeply")
        try:
            callee = FunctionConverter(fn, self.b, self.stack)
        except RecursionError_ as e:
            raise self.source.error(node, f"recursive call to {e.fn.__name__!r}",
                                    "write the recursion as a loop") from None
        bound = closures.bind(self, fn, pairs, kwpairs, node)
        args = [v for v, _ in bound.values()]
        loc = self.b.loc
        bases = {}
        refs = [self._passed(v, r, bases) for v, r in bound.values()]
        result, ref = callee.run(args, refs, bases, list(bound))
        self.b.loc = loc
        for obj, before in bases.items():
            if obj not in callee.hidden:
                continue
            after = callee.scope.env[callee.hidden[obj]]
            if after is not before:
                self.store(obj, after, self.line(node))
        return result, _returned(ref, bases)

    # ---- control flow -------------------------------------------------------------------------

    def stmt_if(self, s):
        test = self.truth(self.expr(s.test), s.test)
        if isinstance(test, Const):
            self.block(s.body if test.value else s.orelse)
            return
        self.branch(test, s.orelse, s.body, expression=False)

    def _operands(self, nodes, refs: dict | None = None) -> list[str]:
        """Names whose current values the nodes read, may keep or may write through an alias
        (closed subgraph inputs); live views are read through their base's names."""
        refs = self.scope.refs if refs is None else refs
        names = []
        for n in nodes:
            for sub in gast.walk(n):
                if isinstance(sub, gast.Name) and sub.id in self.scope.env and sub.id not in names:
                    names.append(sub.id)
        closures.operands(self, names, refs, nodes[0])  # what the closures they hold read
        assigned = _assigned(nodes)
        for name in [n for n in names if isinstance(self.scope.env[n], ListValue)]:
            if name in assigned:
                raise sequences.crossing_error(self, name, nodes[0])
            names += sequences.leaf_operands(self, name)  # read through a read-only copy
        for name in [n for n in names if isinstance(self.scope.env[n], tuple | dict)
                     and sequences.has_runtime_leaves(self.scope.env[n])]:
            if name in assigned:  # a counted loop unrolled rebinds it once per trip
                kind = "tuple" if isinstance(self.scope.env[name], tuple) else "dict"
                raise _unrollable(self.source.error(
                    nodes[0], f"{name!r} holds a {kind} of run-time values, which is rebound "
                              "inside an if or a loop", "unpack it into separate variables"))
            names += sequences.leaf_operands(self, name)  # read through a read-only copy
        objs = objects_of(refs.get(n) for n in names)
        names += [n for n, r in refs.items() if n not in names and n in self.scope.env
                  and isinstance(r, Ref) and r.objects() & objs]
        return [n for n in names if isinstance(self.scope.env[n], Var)]

    def _sub(self, names: list[str], inputs: list[Var], run, refs=None, poisoned=None):
        """Run `run()` with a fresh builder and the given names bound to `inputs`."""
        saved = self.b, self.scope
        self.b = Builder(saved[0].loc)
        self.scope = self.scope.enter(dict(zip(names, inputs, strict=True)), refs, poisoned)
        lists = sequences.read_only_copies(self.scope.env, names)
        try:
            result = run()
            self.scope.env.update(lists)
            return _Arm(result, self.b, self.scope)
        finally:
            self.b, self.scope = saved

    def _arm_view(self, arm, ref: Ref) -> Atom:
        """A live view's value at the end of an arm, emitted into the arm."""
        saved = self.b, self.scope
        self.b, self.scope = arm.b, arm.scope
        try:
            return self.view_value(ref)
        finally:
            self.b, self.scope = saved

    def branch(self, test, else_nodes, then_nodes, expression: bool):
        nodes = list(else_nodes) + list(then_nodes)
        names = self._operands(nodes)
        arms = []
        for arm_nodes in (else_nodes, then_nodes):
            inputs = [Var(self.scope.env[n].type, n) for n in names]
            run = (lambda ns=arm_nodes: self.expr_ref(ns[0])) if expression else \
                (lambda ns=arm_nodes: self.block(ns))
            start = {**self.scope.env, **dict(zip(names, inputs, strict=True))}
            arms.append((inputs, start, self._sub(names, inputs, run)))
        if expression:
            return self._branch_expression(test, names, nodes, arms)
        old = objects_of(self.scope.refs.values())
        candidates = _assigned(nodes)
        for n in self.scope.env:
            if n in candidates or isinstance(self.scope.env[n], tuple | dict | ListValue) and all(
                    arm.scope.refs.get(n) == self.scope.refs.get(n) for _, _, arm in arms):
                continue  # containers follow the arrays the arms write (_follow_containers)
            if any(arm.scope.env.get(n) is not start.get(n) or
                   arm.scope.refs.get(n) != self.scope.refs.get(n) for _, start, arm in arms):
                candidates.append(n)
        pairs: dict = {}
        joined, live = {}, set()
        for name in candidates:
            rs = [arm.scope.refs.get(name) for _, _, arm in arms]
            present = [r for (_, _, arm), r in zip(arms, rs, strict=True) if name in arm.scope.env]
            joined[name] = join(*rs, old, pairs) if len(present) == 2 else \
                (present[0] if present else None)
            if all(arm.scope.env.get(name) is LIVE for _, _, arm in arms) and rs[0] == rs[1]:
                live.add(name)
                continue
            for _, _, arm in arms:
                if arm.scope.env.get(name) is LIVE:
                    arm.scope.env[name] = self._arm_view(arm, arm.scope.refs[name])
        renamed = {o: new for key, new in pairs.items() if isinstance(key, tuple) for o in key}
        for name, r in joined.items():  # views of objects made in the arms see the joined one
            if isinstance(r, Ref) and r.objects() & renamed.keys():
                joined[name] = Ref(r.obj, r.view, r.frozen,
                                   r.maybe | {renamed[o] for o in r.objects() if o in renamed})
        outs, out_types, groups = [], [], {}
        for name in candidates:
            if name in live or self._join_static(name, arms, nodes[0]):
                continue
            vals = [arm.scope.env.get(name) for _, _, arm in arms]
            if any(v is not None and not isinstance(v, Var | Const) for v in vals):
                raise self.source.error(nodes[0], f"{name!r} holds a tuple, which cannot cross "
                                                  "an if", "unpack it into separate variables")
            present = [v for v in vals if v is not None]
            if not present:
                continue
            try:
                t = present[0].type if len(present) == 1 else join_type(present[0].type,
                                                                        present[1].type)
            except TypeError as e:
                error = self.source.error(nodes[0], f"{name!r}: {e} in the two branches")
                flags = _entry_scalars(self.b, test) if isinstance(test, Var) else None
                if flags:  # an entry flag chooses the shape: compile once per value
                    raise NeedStatic(flags, error) from None
                raise error from None
            r = joined[name]
            key = r.obj if isinstance(r, Ref) and r.plain else ("name", name)
            if key not in groups:
                groups[key] = len(outs)
                outs.append(name)
                out_types.append(t)
            groups[name] = groups[key]
        graphs = []
        for inputs, _, arm in arms:
            values = [self.to_type(arm.scope.env[n], t, arm.b) if n in arm.scope.env
                      else self.placeholder(t, arm.b)
                      for n, t in zip(outs, out_types, strict=True)]
            graphs.append(Graph(inputs, arm.b.eqns, values, "arm"))
        results = self.b.emit("cond", [test] + [self.scope.env[n] for n in names],
                              branches=tuple(graphs))
        for name in candidates:
            if name not in groups and name not in live:
                continue
            everywhere = all(arm.scope.defined(name) for _, _, arm in arms)
            before = self.scope.defined(name)
            if name in live:
                self.scope.env[name] = LIVE
            else:
                var = results[groups[name]]
                var.hint = var.hint or name
                self.scope.env[name] = var
            if isinstance(joined[name], Ref | tuple):
                self.scope.refs[name] = joined[name]
            else:
                self.scope.refs.pop(name, None)
            self.scope.join_defined(name, everywhere, before)
        for _, _, arm in arms:
            self.scope.poisoned.update(arm.scope.poisoned)
        self._follow_containers(candidates)
        return results

    def _join_static(self, name: str, arms, node) -> bool:
        """A compile-time value after an if: one value, the same on every path that binds it
        (no run-time choice). False when `name` holds numbers or arrays."""
        present = [arm.scope.env[name] for _, _, arm in arms if name in arm.scope.env]
        if not any(static_values.is_static(v) for v in present):
            return False
        if len(present) == 2 and not static_values.same(*present):
            then, other = (static_values.describe(v) for v in reversed(present))
            raise self.source.error(node, f"{_shown(name)} is a compile-time value bound "
                                          f"differently on the two paths ({then} and {other})",
                                    "bind it to the same value on both paths, or choose with "
                                    "numbers")
        before = self.scope.defined(name)
        if self.scope.env.get(name) is not present[0] or name not in self.scope.env:
            self.scope.env[name] = closures.after_block(self, present[0], self.scope.env,
                                                        self.line(node))
        everywhere = len(present) == 2 and not any(name in arm.scope.undefined
                                                   for _, _, arm in arms)
        self.scope.join_defined(name, everywhere, before)
        return True

    def _static_loop_values(self, s, assigned, entry: dict, body_env: dict) -> dict:
        """Compile-time values the loop body binds: the same as before the loop, or bound only
        in it ({name: value}; no carry)."""
        out = {}
        for n in assigned:
            values = [env[n] for env in (entry, body_env) if n in env]
            if not any(static_values.is_static(v) for v in values):
                continue
            if len(values) == 2 and not static_values.same(*values):
                before, inside = (static_values.describe(v) for v in values)
                raise self.source.error(s, f"{_shown(n)} is a compile-time value that the loop "
                                           f"body binds differently ({before} before the loop, "
                                           f"{inside} in it)",
                                        "bind it before the loop only, or choose with numbers")
            if n not in entry:
                out[n] = closures.after_block(self, values[-1], entry, self.line(s))
        return out

    def _branch_expression(self, test, names, nodes, arms):
        for _, start, arm in arms:
            if any(arm.scope.env.get(n) is not v for n, v in start.items()):
                raise self.source.error(nodes[0], "a conditional expression that writes into "
                                                  "an array", "use an if statement")
        values = [self.value(arm.result[0], nodes[0]) for _, _, arm in arms]
        try:
            t = join_type(values[0].type, values[1].type)
        except TypeError as e:
            raise self.source.error(nodes[0], f"conditional expression: {e}") from None
        graphs = [Graph(inp, arm.b.eqns, [self.to_type(v, t, arm.b)], "arm")
                  for (inp, _, arm), v in zip(arms, values, strict=True)]
        (out,) = self.b.emit("cond", [test] + [self.scope.env[n] for n in names],
                             branches=tuple(graphs))
        r0, r1 = (arm.result[1] for _, _, arm in arms)
        return out, (r0 if r0 == r1 else ambiguous(r0, r1) if r0 or r1 else None)

    def _freeze_rebound_views(self, stmts) -> None:
        """Live views that a loop body rebinds, or whose base's names it all rebinds, keep
        their value at loop entry (frozen)."""
        rebound = set(_rebound(stmts))
        for n, ref in list(self.scope.refs.items()):
            if self.scope.env.get(n) is not LIVE:
                continue
            bases = [m for m, r in self.scope.refs.items()
                     if isinstance(r, Ref) and r.plain and r.obj == ref.obj]
            if n in rebound or all(m in rebound for m in bases):
                self.freeze(n)

    def stmt_while(self, s):
        """A `while` equation. A loop lowered from `for` (normalize.py marks it) is unrolled
        when its body uses a Python list or tuple, or cannot be one loop (a variable changes
        shape from one iteration to the next), provided that its trip count is known when
        compiling and at most MAX_UNROLL; otherwise the refusal names the loop and why."""
        if not hasattr(s, "counter"):
            return self._loop(s, None)
        count = self.expr(s.trips)  # names only: nothing emitted
        sizes = frozenset().union(*(_entry_scalars(self.b, c) for c in (
            count if isinstance(count, tuple) else (count,)) if isinstance(c, Var)))
        if isinstance(count, tuple):  # (low, high): a Python int, which never overflows
            trips = max(count[1].value - count[0].value, 0) \
                if all(isinstance(c, Const) for c in count) else None
        else:
            trips = max(count.value, 0) if isinstance(count, Const) else None
        iterated = {sub.value.id for stmt in s.body if getattr(stmt, "loop_prefix", False)
                    for sub in gast.walk(stmt) if getattr(sub, "in_range", False)}
        if any(isinstance(self.scope.env.get(n), ListValue) for n in iterated) or \
                sequences.mutated(self, s.body):
            return self.unroll(s, trips, "its body changes or iterates over a Python list", sizes)
        try:
            return self._loop(s, trips)
        except AdliteSyntaxError as e:
            if not getattr(e, "unrollable", False):
                raise
            if trips is None or trips > MAX_UNROLL:  # the user's construct, at its line
                hint = "loop over a range(n) with n known when compiling (at most " \
                    f"{MAX_UNROLL}): such a loop is unrolled"
                error = AdliteSyntaxError(e.message, e.filename, e.line, e.col, e.source_line,
                                          f"{e.hint}; or {hint}" if e.hint else hint)
                if trips is None and sizes:  # compile once per value of the entry's sizes
                    raise NeedStatic(sizes, error) from None
                raise error from None
            return self.unroll(s, trips, e.message, sizes)

    def unroll(self, s, trips: int | None, reason: str, sizes=frozenset()) -> None:
        """Run the body of the counted loop `s` once per trip. After a `break` (or return)
        with a run-time condition, the rest of each trip is guarded by the loop's flags (the
        hidden item fetch and counter step run unguarded). A trip count computed from the
        entry's int parameters `sizes` asks the API to compile once per value of them."""
        if trips is None or trips > MAX_UNROLL:
            count = "only known at run time" if trips is None else f"{trips} (more than " \
                                                                   f"{MAX_UNROLL})"
            error = self.source.error(s, f"this loop must be unrolled when compiling ({reason}) "
                                         f"but its trip count is {count}",
                                      "loop over a range(n) with n known when compiling, or "
                                      "keep arrays of one shape in the loop and preallocate "
                                      "arrays instead of lists (`xs = np.zeros(n)`)")
            if trips is None and sizes:
                raise NeedStatic(sizes, error)
            raise error
        prefix = [stmt for stmt in s.body if getattr(stmt, "loop_prefix", False)]
        fetched = [t.id for stmt in prefix for t in gast.walk(stmt.targets[0])
                   if isinstance(t, gast.Name) and t.id.startswith("__item")]
        iterated = {sub.value.id: self.scope.env[sub.value.id] for stmt in prefix
                    for sub in gast.walk(stmt.value) if getattr(sub, "in_range", False)
                    and isinstance(self.scope.env.get(sub.value.id), ListValue)}
        lengths = {name: len(lst.items) for name, lst in iterated.items()}
        for _trip in range(trips + 1):
            if any(len(lst.items) != lengths[n] for n, lst in iterated.items()):
                raise self.source.error(s, "the loop changes the length of the list it "
                                           "iterates over", "iterate over a copy: "
                                                            "`for x in list(xs)`")
            flags = []
            for part in _conjuncts(s.test):
                value = self.truth(self.expr(part), part)
                if isinstance(value, Const) and not value.value:
                    for name in fetched:  # hidden, read only by the body
                        self.scope.env.pop(name, None)
                    return
                if not isinstance(value, Const):
                    flags.append(part)
            if not flags:
                self.block(s.body)
                continue
            guard, segment = g.and_(*flags, at=s), []
            for stmt in s.body + [None]:
                if stmt is None or getattr(stmt, "loop_prefix", False):
                    if segment:
                        self.block([g.if_(guard, segment, at=segment[0])])
                    segment = []
                    if stmt is not None:
                        self.block([stmt])
                else:
                    segment.append(stmt)

    def _loop(self, s, trips: int | None):
        self._freeze_rebound_views(s.body)
        assigned = _assigned(s.body)
        nodes = [s.test] + list(s.body)
        entry = dict(self.scope.env)
        defined_before = {n for n in self.scope.env if self.scope.defined(n)}
        written = objects_of(self.scope.refs.get(n) for n in assigned)
        aliases = [n for n, r in self.scope.refs.items() if isinstance(r, Ref) and r.plain
                   and r.obj in written]  # rebound by writes through the assigned names
        carry_types = {n: self.scope.env[n].type for n in assigned + aliases
                       if isinstance(self.scope.env.get(n), Var | Const)}
        amb: dict[str, Ref] = {}  # names whose object differs from one iteration to the next
        private: frozenset = frozenset()  # objects only traded among names by the body
        extra_poison: dict[str, int] = {}
        for _attempt in range(MAX_LOOP_ATTEMPTS):
            head_refs = {**self.scope.refs, **amb}
            head_poison = {**self.scope.poisoned, **extra_poison}
            carried = [n for n in assigned if n in carry_types] + \
                [n for n in carry_types if n not in assigned]
            consts = [n for n in self._operands(nodes, head_refs) if n not in carried]
            c_in = [Var(self.scope.env[n].type, n) for n in consts]
            k_in, reps = _carry_vars(carried, carry_types, head_refs)
            names = consts + carried
            undefined_inside = {n for n in carried if n not in defined_before}

            def run_body(undefined=undefined_inside):
                for n in undefined:
                    self.scope.mark_maybe_undefined(n)
                self.block(s.body)
                for n in assigned:
                    if self.scope.env.get(n) is LIVE and entry.get(n) is not LIVE:
                        self.freeze(n)

            inputs = c_in + [k_in[n] for n in carried]
            arm = self._sub(names, inputs, run_body, head_refs, head_poison)
            body_b, body_env = arm.b, arm.scope.env
            start = {**entry, **dict(zip(names, inputs, strict=True))}
            widened = dict(carry_types)
            changed = [n for n in entry if n not in widened and isinstance(entry[n], Var | Const)
                       and body_env.get(n) is not start[n]]
            for n in assigned + changed:
                if n in body_env and isinstance(body_env[n], Var | Const):
                    t = body_env[n].type
                    try:
                        widened[n] = t if n not in widened else join_type(widened[n], t)
                    except TypeError as e:
                        raise _unrollable(self.source.error(s, f"loop variable {n!r}: {e}")) \
                            from None
            old = objects_of(head_refs.values())
            known = {n for n in head_refs if n in entry}
            new_amb = {n: ambiguous(r, arm.scope.refs.get(n)) for n, r in head_refs.items()
                       if n in known and n not in amb and isinstance(r, Ref)
                       and signature(n, head_refs, old, known) !=
                       (signature(n, arm.scope.refs, old, known)
                        if isinstance(arm.scope.refs.get(n), Ref) else None)}
            traded = private_objects(set(new_amb), head_refs, arm.scope.refs, known, old)
            if traded is not None:  # `u, u_new = u_new, u`: which is which is unobservable
                new_amb, private = {}, private | traded
            new_poison = {n: line for n, line in arm.scope.poisoned.items()
                          if n in entry and n not in head_poison}
            if widened == carry_types and not new_amb and not new_poison:
                break
            carry_types = widened
            amb.update(new_amb)
            extra_poison.update(new_poison)
        else:
            raise _unrollable(self.source.error(s, "could not infer the types of the loop "
                                                   "variables"))
        statics = self._static_loop_values(s, assigned, entry, body_env)
        body_out = [self.to_type(body_env[n], carry_types[n], body_b) for n in reps]
        c_vars = c_in + [k_in[n] for n in reps]
        body = Graph(c_vars, body_b.eqns, body_out, "body")
        copies = {id(v): Var(v.type, v.hint) for v in c_vars}
        cc_in = [copies[id(v)] for v in inputs]
        test, cond_b, _ = self._sub(names, cc_in,
                                             lambda: self.truth(self.expr(s.test), s.test),
                                             head_refs, head_poison)
        if isinstance(test, Const) and not test.value:
            return
        if isinstance(test, Const):
            raise self.source.error(s.test, "the loop condition is always true, so the loop "
                                            "never ends", "add a condition or a break")
        cond = Graph([copies[id(v)] for v in c_vars], cond_b.eqns, [test], "cond")
        init = [self.to_type(self.scope.env[n], carry_types[n]) if n in self.scope.env
                else self.placeholder(carry_types[n]) for n in reps]
        outs = self.b.emit("while", [self.scope.env[n] for n in consts] + init, cond=cond,
                           body=body, n_consts=len(consts))
        by_rep = dict(zip(reps, outs, strict=True))
        for n, value in zip(reps, init, strict=True):
            if body_env.get(n) is k_in[n] and n in self.scope.env:  # the body never changes it
                by_rep[n] = value  # (e.g. an argument array only rebound: not written)
        for name in carried:
            var = by_rep[next(r for r in reps if k_in[r] is k_in[name])]
            if isinstance(var, Var):
                var.hint = var.hint or name
            self.scope.env[name] = var
            if name not in defined_before and not (trips and name not in arm.scope.undefined):
                self.scope.mark_maybe_undefined(name)
        for n, r in amb.items():
            head_refs[n] = ambiguous(r, arm.scope.refs.get(n))
        self.scope.leave_loop(head_refs, head_poison, arm.scope, entry, private)
        for n, v in statics.items():  # bound only in the body (no trip: undefined)
            self.scope.env[n] = v
            self.scope.mark_maybe_undefined(n)
        self._follow_containers(carried)

    def _follow_containers(self, rebound: list[str]) -> None:
        """After an if or a loop: tuples and lists holding an array object that the block
        wrote (through the rebound names) hold its new value."""
        line = self.b.loc or 0
        for name in rebound:
            ref, value = self.scope.refs.get(name), self.scope.env.get(name)
            if isinstance(ref, Ref) and ref.plain and isinstance(value, Var):
                for n, r in self.scope.refs.items():
                    if isinstance(r, tuple):
                        self.scope.env[n] = self._store_tuple(self.scope.env[n], r, ref.obj,
                                                              value, n, line)
                sequences.store_items(self, ref.obj, value, line)


class _Arm(NamedTuple):
    """What running a block in a fresh builder left: its result, builder and state."""
    result: object
    b: Builder
    scope: Scope


def _carry_vars(carried: list[str], types: dict, refs: dict) -> tuple[dict, list[str]]:
    """One carry per object: names bound to the same object share their input var. Returns
    ({name: input var}, the representative names, one per carry)."""
    by_key: dict = {}
    k_in, reps = {}, []
    for n in carried:
        r = refs.get(n)
        key = r.obj if isinstance(r, Ref) and r.plain else ("name", n)
        if key not in by_key:
            by_key[key] = Var(types[n], n)
            reps.append(n)
        k_in[n] = by_key[key]
    return k_in, reps


def _shown(name: str) -> str:
    """A variable as the user knows it (early returns store their value in hidden names)."""
    return "the returned value" if name.startswith("__rv") else repr(name)


def _unrollable(error: AdliteSyntaxError) -> AdliteSyntaxError:
    """Mark a refusal of a `while` equation that unrolling a counted loop avoids."""
    error.unrollable = True
    return error


def _conjuncts(test) -> list:
    if isinstance(test, gast.BoolOp) and isinstance(test.op, gast.And):
        return list(test.values)
    return [test]


def _tuple_binop(conv, node, x, rx, y, ry):
    """`t + u` of two tuples, `t * n` / `n * t` with n an int known when compiling."""
    def refs(value, ref):
        return ref if isinstance(ref, tuple) else (None,) * len(value)

    if isinstance(node.op, gast.Add) and isinstance(x, tuple) and isinstance(y, tuple):
        return x + y, refs(x, rx) + refs(y, ry)
    if isinstance(node.op, gast.Mult):
        (t, rt), n = ((x, rx), y) if isinstance(x, tuple) else ((y, ry), x)
        count = conv.static(n, node) if isinstance(n, Var | Const) else None
        if isinstance(count, int) and not isinstance(count, bool):
            return t * count, refs(t, rt) * count
    raise conv.source.error(node, "unsupported operation on a tuple",
                            "tuples support `t + u` and `t * n` with n known when compiling")


def _rebound(nodes) -> list[str]:
    return [sub.id for n in nodes for sub in gast.walk(n)
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Store)]


_Slice = object()  # an index item that is a slice (index_spec)


class _Method:
    """`x.sum` before the call: an array, its Ref and a method name."""

    def __init__(self, array: Atom, name: str, ref) -> None:
        self.array, self.name, self.ref = array, name, ref


DICT_READS = ("get", "keys", "values", "items")  # methods of a dict compiled code calls
# numpy returns views: followed as frozen views
VIEW_METHODS = {"reshape", "transpose", "ravel", "swapaxes"}
VIEW_FUNCTIONS = (np.reshape, np.transpose, np.squeeze, np.expand_dims, np.ravel, np.swapaxes,
                  np.moveaxis, np.flip, np.fliplr, np.flipud, np.broadcast_to, np.atleast_1d,
                  np.atleast_2d, np.atleast_3d)


def _is_object(value) -> bool:
    """A Python object whose attributes compiled code reads (not a value of compiled code,
    a module, a string or None)."""
    return not (isinstance(value, Var | Const | _Method | types.ModuleType | str)
                or _is_tuple(value) or value is None or value is LIVE)


def _is_tuple(value) -> bool:
    """A tuple of the frontend (a list read as a tuple is one), not a masks.MaskedRead."""
    return type(value) in (tuple, static_values.ListTuple, static_values.NamedTupleValue)


def _frozen(ref):
    """The Ref of a view compiled code does not follow (None for a new array)."""
    if not isinstance(ref, Ref):
        return None
    return Ref(ref.obj, frozen=True, maybe=ref.maybe)


def _flat_refs(refs):
    for r in refs:
        if isinstance(r, tuple):
            yield from _flat_refs(r)
        elif isinstance(r, Ref):
            yield r


def _returned(ref, bases: dict):
    """A callee's result Ref as the caller sees it: views of the callee's own arrays are
    frozen (their base is not reachable from the caller)."""
    if isinstance(ref, tuple):
        return tuple(_returned(r, bases) for r in ref)
    if isinstance(ref, Ref) and ref.view and ref.obj not in bases:
        return Ref(ref.obj, frozen=True)
    return ref


ARRAY_METHODS = {"sum", "mean", "var", "std", "max", "min", "reshape", "transpose", "dot", "copy",
                 "ravel", "flatten", "swapaxes", "astype", "sort",
                 *array_functions.METHODS_AS_FUNCTIONS}
DTYPE_OBJECTS = (np.float64, np.float32, float)


class RecursionError_(Exception):  # noqa: N801 - internal signal, not a user-facing error
    def __init__(self, fn) -> None:
        super().__init__(fn.__name__)
        self.fn = fn


def _entry_scalars(b: Builder, value: Var) -> frozenset[str]:
    """The entry function's runtime int, bool and float parameters `value` is computed from in
    builder `b`: the entry's own input vars, or inputs of the if/loop body being built named
    like one."""
    scalars = ENTRY_SCALARS.get() or {}
    names = set(scalars.values())
    producers = {id(o): e for e in b.eqns for o in e.outputs}
    found, seen, todo = set(), set(), [value]
    while todo:
        v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        eqn = producers.get(id(v))
        if eqn is not None:
            todo += [a for a in eqn.inputs if isinstance(a, Var)]
        elif v in scalars:
            found.add(scalars[v])
        elif v.type in (I64, BOOL, F64) and v.hint in names:
            found.add(v.hint)
    return frozenset(found)


def _has_float(*values) -> bool:
    """Does `/` take numpy's float division here (an operand is a float or an array)?"""
    return any(not isinstance(v, Var | Const) or v.type.is_float or v.type.is_array
               for v in values)


def _assigned(nodes) -> list[str]:
    """Variables (re)bound by the nodes, including arrays updated with `x[i] = v`."""
    names = []
    for n in nodes:
        for sub in gast.walk(n):
            if isinstance(sub, gast.Subscript) and isinstance(sub.ctx, gast.Store) and \
                    isinstance(sub.value, gast.Name):
                sub = sub.value
            elif not (isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Store)):
                continue
            if sub.id not in names:
                names.append(sub.id)
    return names

