"""Normalized gast -> IR graph, specialised to the argument types of one call signature.

Contract: `build_graph(fn, arg_types)` returns `(graph, n_results, result tree)`, the results
computed from the argument values at entry; `build_program(fn, arg_types)` returns a `Program`
whose graph also outputs the final values of the argument arrays the function writes into
(for `jit`'s write-back). `arg_types` holds one tree per parameter (`arguments.py`): the
graph's inputs are its runtime leaves, compile-time values are bound as Python objects, tuples
and lists as tuples, dicts (string keys) as dicts; the outputs are the result's leaves. When
a shape or another compile-time value is computed from runtime int parameters of the entry
function, `arguments.NeedStatic` names them (the API compiles again with them static); a
differentiated one comes back as an `arguments.Known` input, whose value `static` and truth
tests read (`known_values.py`) while its arithmetic stays differentiated.
`FunctionConverter` converts one function body: its statements, names, attributes and
displays here; operators (`operators.py`), subscripts (`subscripts.py`), `if` and loops
(`control_flow.py`) and calls (`calls.py`) in mixins of their own. Variables map to SSA
values in a `scope.Scope`. Arrays are shared objects as in numpy (see `aliasing.py`): a
write (`x[i] = v`, `x op= v` on an array, a write in an inlined callee) rebinds every name
and live view of the written object (a 0-d array argument is an `static_values.Array0`
number: writing into it in place is refused, returning it returns a 0-d array). Python lists
are compile-time containers of values (`sequences.py`), true when not empty. Chained
assignment (`a = b = v`) binds every target, left to right, to the one value (one array
object); unpacking an array (`a, b = x`) takes its items along the first axis (rows are
views of x). Compile-time values (strings, None, functions, modules: `static_values.py`)
cost nothing at run time: `==`, `is`, `in`, `isinstance`, `np.isscalar`, `callable` and
truth tests on them are answered while compiling. `assert`, `raise` and `print` statements
become effect equations (`statements.py`). A variable assigned in only some paths and read
afterwards is an `AdliteSyntaxError` (Python would fail at run time). Module-level and
closed-over names and attributes of Python objects (`W`, `model.W`, `self.layer.b`) are
externals (see `externals.py`): floats and float arrays become hidden graph inputs after the
arguments, read at every call, other values are compile-time values guarded at every call;
methods of objects are inlined with the object as `self`. Writing into such an array or
assigning an attribute is refused naming the line.
"""

from __future__ import annotations

import builtins
import types
from dataclasses import dataclass

import gast
import numpy as np

from .. import arguments
from ..arguments import Known, NeedStatic, Node, Static
from ..errors import AdliteSyntaxError
from ..ir.builder import Builder, const
from ..ir.core import BOOL, C128, F64, I64, Atom, Const, Graph, Type, Var
from ..ir.index import WHOLE
from ..ir.transform import inline
from ..passes.complex_pairs import ComplexRefused, complex_pairs
from ..passes.dce import dce
from ..transformation import is_transformation
from . import (
    closures,
    compile_time_sequences,  # noqa: F401  (registers its rules)
    externals,
    known_values,
    objects,
    runtime_lists,
    selection_values,
    sequences,
    statements,
    static_values,
)
from .aliasing import LIVE, Ref, frozen_ref, hidden_name, new_object, spec_operands
from .calls import Calls, Method, RecursionError_
from .control_flow import ENTRY_SCALARS, ControlFlow, entry_scalars, unrollable
from .library import arrays, complex_parts, registry, scipy_special_stats
from .nesting import nesting_guard
from .normalize import HIDDEN_FUNCTIONS, Normalizer
from .operators import Operators
from .scope import Scope
from .selection_calls import METHODS as SELECTION_METHODS
from .selection_values import Selection, escape, involved
from .sequences import ListMethod, ListValue, RangeValue
from .static_requirements import refusal, runtime_origin
from .subscripts import Subscripts

UNSUPPORTED_EXPRESSIONS = {
    gast.ListComp: ("list comprehension here", "build the list in a statement before"),
    gast.GeneratorExp: ("generator expression here", "build a list in a statement before"),
    gast.SetComp: ("set comprehension", "write the loop out with `for`"),
    gast.Set: ("set", "use separate variables"),
    gast.JoinedStr: ("f-string", "compiled functions compute numbers only"),
    gast.NamedExpr: ("assignment expression (:=)", "assign in a separate statement"),
    gast.Starred: ("starred expression", "pass arguments one by one"),
    gast.Yield: ("yield", "return the values instead"),
    gast.Await: ("await", "call the compiled function from synchronous code"),
}


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
    if is_transformation(fn):  # e.g. grad of grad
        with externals.recording():
            graph, tree = fn.ir_for(tuple(arg_types))
            b = Builder()
            own, hidden = externals.bind_graph(graph)
            leaves = [t for tree in arg_types for t in arguments.leaf_types(tree)]
            inputs = [Var(t.plain if isinstance(t, Known) else t, v.hint)
                      for t, v in zip(leaves, own, strict=True)]
            args = [cast(b, a, v.type) for a, v in zip(inputs, own, strict=True)]
            outputs = inline(b, graph, args + hidden)
            graph = externals.finish(Graph(inputs, b.eqns, outputs, graph.name))
            return graph, len(outputs), tree
    p = build_program(fn, arg_types)
    graph = p.graph
    pure = Graph(graph.inputs, graph.eqns, graph.outputs[:p.n_results], graph.name,
                 graph.externals)
    if p.written:
        dce(pure)
    return pure, p.n_results, p.tree


def build_program(fn, arg_types: list) -> Program:
    with nesting_guard(fn), externals.recording(), runtime_lists.naming():
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
    token, known = ENTRY_SCALARS.set(entry.scalars), known_values.KNOWN.set(entry.known)
    try:
        result, ref = conv.run([v for v, _ in values], [r for _, r in values], entry.bases)
    finally:
        ENTRY_SCALARS.reset(token)
        known_values.KNOWN.reset(known)
    inputs = entry.inputs
    tree, outputs, refs = _result(conv, result, ref, conv.fdef.body[-1].value)
    objects = conv.argument_objects  # object -> input position, in argument order
    written = [(i, conv.scope.get(conv.hidden[obj])) for obj, i in objects.items()
               if conv.scope.get(conv.hidden[obj]) is not entry.complex_objects.get(
                   obj, inputs[i])]
    if any(v.type.is_complex for _, v in written):
        raise conv.source.error(conv.fdef, "the function writes into a complex argument array, "
                                "which compiled code cannot write back yet",
                                "write into a copy (z = z.copy()) and return it")
    returned = tuple((objects[r.obj], r.view) if isinstance(r, Ref) and r.obj in objects and
                     (r.plain or r.view) else None for r in refs)
    finals = [v for _, v in written]
    graph = externals.finish(Graph(inputs, b.eqns, outputs + finals, fn.__name__))
    try:
        graph = complex_pairs(graph)
    except ComplexRefused as e:
        raise conv.source.error(_Line(e.loc - conv.source.first_line + 1 if e.loc else 1),
                                str(e), "compute with the real and imaginary parts "
                                "(z.real, z.imag) where adlite has no complex rule") from None
    return Program(graph, len(outputs), tree, tuple(i for i, _ in written), returned)


@dataclass(frozen=True)
class _Line:
    """A place in the function's source by line alone (an equation's `loc`)."""
    lineno: int
    col_offset: int = 0


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
        self.known: dict[Var, object] = {}  # `Known` leaves -> their values (`static`)
        self.complex_objects: dict[int, Var] = {}  # complex argument arrays, as made

    def parameter(self, name: str, tree, in_dict: bool = False, zero_d: bool = False):
        """(value, Ref) of a parameter (or part of one) described by `tree`; `zero_d`: the
        number of a 0-d array (`static_values.Array0`)."""
        make = static_values.Array0 if zero_d else Var
        if isinstance(tree, Known):  # a graph input whose value `static` reads
            var = make(tree.plain, name)
            self.inputs.append(var)
            self.known[var] = tree.value
            return var, None
        if isinstance(tree, Type):
            var = make(tree, name)
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
        if tree.kind == "array0":
            return self.parameter(name, tree.children[0], in_dict, zero_d=True)
        if tree.kind == "complex":  # its real and imaginary parts are the graph's inputs
            re, im = (self.parameter(name, t, in_dict=True)[0] for t in tree.children)
            value = self.conv.b.complex(re, im, hint=name)
            if not value.type.is_array or in_dict:
                return value, None
            ref = Ref(new_object())  # an argument object: writes into it are refused
            self.bases[ref.obj] = self.complex_objects[ref.obj] = value
            self.conv.argument_objects[ref.obj] = len(self.inputs) - 2
            return value, ref
        pairs = [self.parameter(name, t, in_dict or tree.kind == "dict") for t in tree.children]
        if tree.kind == "dict":
            return dict(zip(tree.keys, (v for v, _ in pairs), strict=True)), None
        values = [v for v, _ in pairs]
        items = static_values.NamedTupleValue(values, tree.named) if tree.named else \
            (static_values.ListTuple if tree.kind == "list" else tuple)(values)
        return items, tuple(r for _, r in pairs)


def _result(conv: FunctionConverter, result, ref, node):
    """(tree, output atoms, their Refs) of the returned value; a list display returns a
    list (lists are tuples inside the frontend)."""
    if isinstance(result, static_values.Array0):  # a 0-d array argument, returned as one
        return Node("array0", (result.type,)), [result], [ref]
    if isinstance(result, Var | Const) and result.type.is_complex:  # returned as its parts
        parts = [conv.b.real(result), conv.b.imag(result)]
        return Node("complex", tuple(p.type for p in parts)), parts, [None, None]
    if isinstance(result, Var | Const):
        return result.type, [result], [ref]
    if isinstance(result, ListValue) and result.runtime is not None:  # a buffer's handle
        tree, handles = runtime_lists.export(conv, result, node)
        return tree, handles, [None] * len(handles)
    if isinstance(result, runtime_lists.RunTimeArray):  # the same, made a numpy array
        tree, handles = runtime_lists.export(conv, result.view, node)
        return Node("runarray", (tree,)), handles, [None]
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
        elts = [node if e is None else e for e in elts]  # errors name the whole value
        parts = [_result(conv, v, r, e) for v, r, e in zip(items, refs, elts, strict=True)]
        kind = "dict" if isinstance(result, dict) else \
            "list" if isinstance(node, gast.List) else "tuple"
        keys = tuple(result) if isinstance(result, dict) else ()
        named = result.named if isinstance(result, static_values.NamedTupleValue) else None
        return (Node(kind, tuple(t for t, _, _ in parts), keys, named),
                [o for _, os, _ in parts for o in os], [r for _, _, rs in parts for r in rs])
    if result is None or isinstance(result, str | bytes | int | float):
        return Static(result), [], []
    if isinstance(result, Selection):  # the caller selects: `array[mask]`, in numpy
        return Node("selection", (result.array.type, result.mask.type)), \
            [result.array, result.mask], [None, None]
    raise conv.source.error(node if node is not None else conv.fdef,
                            "the function must return numbers, arrays, strings or None, or "
                            "tuples, lists and dicts of them")


def cast(b: Builder, value: Atom, t: Type) -> Atom:
    """`value` with the element type of `t` (its shape is kept). A complex value is never
    made real here: where a rule wants real numbers, complex ones are refused (TypeError, at
    the user's line) rather than losing their imaginary parts (`astype` says it with
    `np.real`)."""
    if value.type.name == t.name:
        return value
    if value.type.is_complex and not t.dtype.is_complex:
        raise TypeError(f"complex numbers ({value.type}) where this function takes real "
                        f"numbers ({t.name}): adlite has no complex rule for it; pass "
                        "np.real(z) / np.abs(z) if that is what you mean")
    if isinstance(value, Const):
        return const(value.value, t.scalar)
    return b.convert(value, to=t.scalar)


class FunctionConverter(Operators, Subscripts, ControlFlow, Calls):
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
        self.array_like = False  # inside a numpy function's lowering: a list is an array

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
        """`x op= v` on an array writes into x's object (numpy), seen through its aliases
        (`o.a op= v` too, on an attribute of an object made in compiled code)."""
        target = s.targets[0]
        if isinstance(target, gast.Attribute):
            base = self.expr(target.value)
            if not isinstance(base, objects.Instance) or target.attr not in base.names:
                return False
            name = base.variable(target.attr)
        else:
            name = target.id
        current = self.scope.get(name)
        if isinstance(current, static_values.Array0):
            raise self.source.error(s, f"in-place operation on {name!r}, a 0-d array argument "
                                       "(compiled code holds its number)",
                                    f"write {name} = {name} op value, or pass float({name})")
        if not (isinstance(self.scope.ref(name), Ref) and (current is LIVE or isinstance(
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
            self._assign_item(target, value, ref)
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
        elif isinstance(target, gast.Attribute) and \
                isinstance(base := self.expr(target.value), objects.Instance):
            objects.setattr_(self, base, target.attr, value, ref, target)
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

    def _assign_item(self, target: gast.Subscript, value, ref) -> None:
        """`x[index] = value` into a local array (or list) variable `x`; a write into an array
        from outside the function is refused."""
        target = self.slice_syntax(target)
        outside, root = target.value, target.value
        while isinstance(root, gast.Attribute):
            root = root.value
        local = isinstance(root, gast.Name) and root.id in self.scope and (
            isinstance(self.scope.get(root.id), Var | Const) or self.scope.get(root.id) is LIVE)
        if not local and (isinstance(outside, gast.Attribute) or isinstance(
                root, gast.Name) and root.id in self.globals):
            raise self.source.error(target, f"write into {gast.unparse(outside)!r}, an "
                                            "array from outside the function (module-level, "
                                            "closed over or an object's attribute): "
                                            "compiled code reads such arrays at every call "
                                            "but does not write them",
                                    "pass the array as an argument: compiled code writes "
                                    "into argument arrays")
        if not isinstance(target.value, gast.Name) or target.value.id not in self.scope:
            raise self.source.error(target, "assignment into something that is not a "
                                            "local array variable",
                                    "assign into an array variable: `x[i] = v`")
        base = self.expr(target.value)  # refuses a poisoned or maybe-undefined name
        if isinstance(base, ListValue):
            sequences.setitem(self, base, target.slice, value, ref, target)
            return
        if not isinstance(value, Selection):  # a selection is written through its mask
            value = self.value(value, target)
        self.write(target.value.id, target.slice, None, value, target)


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
        for n, r in self.scope.objects().items():
            if isinstance(r, Ref) and r.view and r.obj == obj:
                self.freeze(n, base)

    def view_value(self, ref: Ref, base: Atom | None = None) -> Atom:
        """The current value of view `ref`, read from `base` (default: its object's value)."""
        spec, ints = spec_operands(ref.view)
        if base is None:
            base = self.scope.get(self.scope.base_name(ref.obj))
        return self.b.index(base, *map(const, ints), spec=spec)

    def freeze(self, name: str, base: Atom | None = None) -> None:
        """View `name` keeps its current value from now on (it no longer follows its base)."""
        ref = self.scope.ref(name)
        self.scope.rebind(name, self.view_value(ref, base), Ref(ref.obj, frozen=True))


    # ---- values ---------------------------------------------------------------------------

    def value(self, value, node) -> Atom:
        """A number or an array (not a tuple, module or function); inside the lowering of
        a numpy or scipy function (`array_like`) a list or tuple of numbers and arrays is
        `np.array` of it, as numpy converts it."""
        if isinstance(value, Selection):
            raise escape(self, value, node, "this use")
        if isinstance(value, tuple) and involved(value):  # np.sum(np.nonzero(m))
            raise escape(self, involved(value), node, "a tuple holding it, used as an array")
        if isinstance(value, ListValue) and value.runtime is not None:
            raise runtime_lists.refused(self, node, "an array or number made")
        if isinstance(value, runtime_lists.RunTimeArray):
            raise runtime_lists.refused(self, node, "a use needing the shape of an array made")
        if self.array_like and (static_values.is_tuple(value) or isinstance(value, ListValue)):
            return sequences.stack(self, list(sequences.as_tuples(value)), node, empty=True)
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

    def static(self, value, node, what: str = "", key: str = "value"):
        """The compile-time Python value of a constant, or of a tuple or list of them (nested;
        a list is a `ListTuple`: a tuple to the rules, a list where numpy tells them apart);
        else the refusal of requirement `key` naming `node`'s code and `what` the value is
        for."""
        if isinstance(value, ListValue | RangeValue):
            value = sequences.as_tuples(value)
        if isinstance(value, tuple):
            items = tuple(self.static(v, node, what, key) for v in value)
            return static_values.ListTuple(items) if isinstance(value, static_values.ListTuple) \
                else items
        if isinstance(value, Const):
            return value.value
        if value is None or isinstance(value, type | str) or value in DTYPE_OBJECTS:
            return value
        is_known, known = externals.known(value)  # a module-level float: guarded by value
        if is_known:
            return known
        is_known, known = known_values.value_of(self.b, value)  # from `Known` parameters:
        if is_known and not isinstance(known, float):  # piecewise constant, derivative 0
            return known
        names = entry_scalars(self.b, value) if isinstance(value, Var) else frozenset()
        runtime = runtime_origin(names) if isinstance(value, Var) else \
            f"it is {static_values.describe(value)}"
        error = refusal(self.source, node, key, f"{what or 'a value it uses'} must be known "
                                                f"when compiling, but {runtime}")
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
        return value if value.type.is_float or value.type.is_complex else \
            self.to_type(value, F64)

    def to_type(self, value: Atom, t: Type, b: Builder | None = None) -> Atom:
        return cast(b or self.b, value, t)

    def truth(self, value, node) -> Atom:
        if isinstance(value, ListValue) and value.runtime is not None:  # non-empty, when run
            return self.b.gt(runtime_lists.length(self, value, node), const(0))
        if isinstance(value, ListValue | RangeValue):  # `if xs:`: non-empty
            return const(len(value.items if isinstance(value, ListValue) else value.range) > 0)
        if static_values.is_static(value):  # `if tol:`, `if callback:`: Python's truth
            return const(bool(static_values.python_value(value)))
        value = known_values.constant(self.b, self.scalar(value, node))  # `Known` inputs'
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
        if isinstance(v, bool | int | float):
            return const(v)
        if isinstance(v, complex):
            return const(v, C128)
        if v is None or isinstance(v, str):
            return v  # a compile-time value
        raise self.source.error(node, f"unsupported constant {v!r}", "use int or float values")

    def expr_NestedDef(self, node):
        return closures.make(self, node)

    def expr_Name(self, node):
        name = node.id
        if name in self.scope:
            if not self.scope.defined(name) and not name.startswith("__"):
                raise self.source.error(node, f"variable {name!r} may be undefined here: it is "
                                              "assigned only on some paths",
                                        f"assign {name} before the if/loop")
            line = self.scope.poisoned_at(name)
            if line is not None:
                raise unrollable(self.source.error(
                    node, f"{name!r} is a view of an array that was written at line {line} "
                          "(or may be the same array); compiled code cannot tell which values "
                          "it sees", "use .copy() to make an independent array"))
            value = self.scope.get(name)
            return self.view_value(self.scope.ref(name)) if value is LIVE else value
        if name in HIDDEN_FUNCTIONS:
            return HIDDEN_FUNCTIONS[name]
        if name in self.globals:
            return self.resolve_global(self.globals[name], node,
                                       externals.global_place(self.fn, name))
        if hasattr(builtins, name):
            return self.resolve_global(getattr(builtins, name), node)
        raise self.source.error(node, f"name {name!r} is not defined", registry.nearest(
            name, [n for n in [*self.scope.snapshot(), *self.globals, *dir(builtins)]
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
        if isinstance(obj, complex | np.complexfloating):  # a constant, guarded by value
            externals.guard(place, obj)
            return const(complex(obj), C128)
        if isinstance(obj, np.ndarray) and obj.dtype in arguments.COMPLEX_DTYPES and obj.ndim:
            return externals.complex_input(place, obj, self.b.complex)
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

    def expr_Attribute(self, node, base=None, ref=None):
        if base is None:
            base, ref = self.expr_ref(node.value)
        if isinstance(base, Selection):
            if node.attr in SELECTION_METHODS:
                return Method(base, node.attr, None)
            return selection_values.attribute(self, base, node.attr, node)
        if isinstance(base, Var | Const) and node.attr in ("real", "imag"):
            return complex_parts.part(self, base, node.attr)
        if isinstance(base, Var | Const) and base.type.is_array:
            if node.attr in ARRAY_METHODS:
                return Method(base, node.attr, ref)
            return arrays.attribute(self, base, node.attr, node)
        if isinstance(base, Var | Const) and node.attr in ("item", "conj", "conjugate"):
            return Method(base, node.attr, None)
        if isinstance(base, ListValue):
            return ListMethod(base, node.attr)
        if isinstance(base, runtime_lists.RunTimeArray):
            return runtime_lists.attribute(self, base, node.attr, node)
        if isinstance(base, types.ModuleType):
            return self._module_attribute(base, node)
        if (method := scipy_special_stats.method(base, node.attr)) is not None:  # norm.cdf
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
        if isinstance(base, objects.Instance):  # an object made in compiled code
            return objects.getattr_(self, base, node)[0]
        if isinstance(base, objects.Super):
            return base.attribute(self, node)
        if _is_object(base):  # a Python object's attribute, read at every call
            if not hasattr(base, node.attr):
                raise self.source.error(node, f"{type(base).__name__!r} object has no "
                                              f"attribute {node.attr!r}")
            return self.resolve_global(getattr(base, node.attr), node, externals.Place(
                base, "attr", node.attr, f"{gast.unparse(node.value)}.{node.attr}"))
        raise self.source.error(node, f"unsupported attribute access .{node.attr}",
                                "numbers have no attributes")

    def _module_attribute(self, module: types.ModuleType, node):
        """`module.name`: a math constant as a number, a module's numbers and arrays read at
        every call (externals.py), anything else (a function, a submodule) as it is."""
        value = registry.constant(module, node.attr)
        if value is not None:
            return const(float(value))
        if not hasattr(module, node.attr):
            raise self.source.error(node, f"module {module.__name__!r} has no attribute "
                                          f"{node.attr!r}", registry.nearest(
                                              node.attr, registry.supported_names(module)
                                              or dir(module)))
        value = getattr(module, node.attr)
        if isinstance(value, int | float | np.number | np.bool_ | np.ndarray) or \
                type(value) in (tuple, list):  # a module's numbers: read at every call
            return self.resolve_global(value, node, externals.Place(
                vars(module), "item", node.attr, f"{module.__name__}.{node.attr}"))
        return value

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
        if isinstance(node, gast.Name) and node.id in self.scope:
            return self.expr(node), self.scope.ref(node.id)
        if isinstance(node, gast.List):
            return self.expr_List(node), None
        if isinstance(node, gast.Tuple):
            pairs = [self.expr_ref(e) for e in node.elts]
            return tuple(v for v, _ in pairs), tuple(r for _, r in pairs)
        if isinstance(node, gast.BinOp):
            return self.binop_ref(node)
        if isinstance(node, gast.Subscript):
            return self.subscript(node)
        if isinstance(node, gast.Attribute):
            base, ref = self.expr_ref(node.value)
            if isinstance(base, objects.Instance):  # an attribute's own object
                return objects.getattr_(self, base, node)
            value = self.expr_Attribute(node, base, ref)
            if node.attr == "T":
                return value, frozen_ref(self.outside(base, ref))
            return value, self.outside(value, None)
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

    def expr_IfExp(self, node):
        return self.ifexp(node)[0]

    def expr_Call(self, node):
        return self.call(node)[0]

    def string_method(self, method, args, kwargs, node):
        """A method of a compile-time string, called when compiling (they have no effects):
        its arguments must be known when compiling too."""
        values = [*args, *kwargs.values()]
        if not all(static_values.is_static(v) or isinstance(v, Const) for v in values):
            raise refusal(self.source, node, "object",
                          f"str.{method.__name__}() of a value known only at run time")
        result = method(*[static_values.python_value(a) for a in args],
                        **{k: static_values.python_value(v) for k, v in kwargs.items()})
        if isinstance(result, bool | int | float):
            return const(result)
        return static_values.ListTuple(result) if isinstance(result, list) else result




def _is_object(value) -> bool:
    """A Python object whose attributes compiled code reads (not a value of compiled code,
    a module, a string or None)."""
    return not (isinstance(value, Var | Const | Method | types.ModuleType | str)
                or static_values.is_tuple(value) or value is None or value is LIVE)


def _flat_refs(refs):
    for r in refs:
        if isinstance(r, tuple):
            yield from _flat_refs(r)
        elif isinstance(r, Ref):
            yield r


ARRAY_METHODS = {"sum", "mean", "var", "std", "max", "min", "reshape", "transpose", "dot", "copy",
                 "ravel", "flatten", "swapaxes", "astype", "sort", "item",
                 *arrays.METHODS_AS_FUNCTIONS}
DTYPE_OBJECTS = (np.float64, np.float32, float)


