"""Normalized gast -> IR graph, specialised to the argument types of one call signature.

Contract: `build_graph(fn, arg_types)` returns `(graph, n_results, is_tuple)`. Variables map
to SSA values in an environment; Python's numeric tower is followed (bool < int < float,
`/` always gives float, int ** non-negative int constant stays int). `if` becomes a `cond`
equation whose outputs are the variables assigned in either arm; `while` becomes a `while`
equation whose carries are the variables assigned in its body (types are widened to a fixed
point, e.g. `total = 0` then `total += x` makes `total` a float carry). Conditions known at
compile time are folded. Calls to math/numpy/builtin functions become primitives; calls to
other Python functions (plain or adlite-decorated) are inlined. A variable assigned in only
some paths and read afterwards is an `AdliteSyntaxError` (Python would fail at run time).
"""

from __future__ import annotations

import builtins
import inspect
import types

import gast
import numpy as np

from ..ir.builder import Builder, const
from ..ir.core import BOOL, F64, I64, Atom, Const, Graph, Type, Var
from ..ir.transform import inline
from . import array_functions, functions
from .nesting import nesting_guard
from .normalize import HIDDEN_FUNCTIONS, Normalizer
from .source import Source, get_source

BINOPS = {gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "div",
          gast.FloorDiv: "floordiv", gast.Mod: "mod", gast.Pow: "pow"}
CMPOPS = {gast.Lt: "lt", gast.LtE: "le", gast.Gt: "gt", gast.GtE: "ge", gast.Eq: "eq",
          gast.NotEq: "ne"}
RANK = {"bool": 0, "i64": 1, "f32": 2, "f64": 3}
UNSUPPORTED_EXPRESSIONS = {
    gast.ListComp: ("list comprehension", "write the loop out with `for`"),
    gast.GeneratorExp: ("generator expression", "write the loop out with `for`"),
    gast.DictComp: ("dict comprehension", "write the loop out with `for`"),
    gast.SetComp: ("set comprehension", "write the loop out with `for`"),
    gast.Lambda: ("lambda", "define a module-level function; calls to it are inlined"),
    gast.Dict: ("dict", "use separate variables"),
    gast.Set: ("set", "use separate variables"),
    gast.JoinedStr: ("f-string", "compiled functions compute numbers only"),
    gast.NamedExpr: ("assignment expression (:=)", "assign in a separate statement"),
    gast.Starred: ("starred expression", "pass arguments one by one"),
    gast.Yield: ("yield", "return the values instead"),
    gast.Await: ("await", "call the compiled function from synchronous code"),
}
MAX_INLINE_DEPTH = 32


def join(a: Type, b: Type) -> Type:
    """The type both values can take (the wider element type); shapes must agree."""
    if a.shape != b.shape:
        raise TypeError(f"a variable changes shape ({a} and {b})")
    return a if RANK[a.name] >= RANK[b.name] else b


def build_graph(fn, arg_types: list[Type]) -> tuple[Graph, int, bool]:
    if hasattr(fn, "ir_for"):  # an adlite transformation (e.g. grad of grad)
        graph, is_tuple = fn.ir_for(tuple(arg_types))
        b = Builder()
        inputs = [Var(t, v.hint) for t, v in zip(arg_types, graph.inputs, strict=True)]
        args = [cast(b, a, v.type) for a, v in zip(inputs, graph.inputs, strict=True)]
        outputs = inline(b, graph, args)
        return Graph(inputs, b.eqns, outputs, graph.name), len(outputs), is_tuple
    with nesting_guard(fn):
        return _build_function_graph(fn, arg_types)


def _build_function_graph(fn, arg_types: list[Type]) -> tuple[Graph, int, bool]:
    b = Builder()
    conv = FunctionConverter(fn, b, stack=())
    params = conv.params
    if len(params) != len(arg_types):
        raise TypeError(f"{fn.__name__}() takes {len(params)} positional arguments but "
                        f"{len(arg_types)} were given")
    inputs = [Var(t, name) for name, t in zip(params, arg_types, strict=True)]
    result = conv.run(list(inputs))
    outputs = list(result) if isinstance(result, tuple) else [result]
    for o in outputs:
        if not isinstance(o, Var | Const):
            raise conv.source.error(conv.fdef, "the function must return numbers, arrays or a "
                                               "tuple of them")
    return Graph(inputs, b.eqns, outputs, fn.__name__), len(outputs), isinstance(result, tuple)


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
        if self.fn in stack:
            raise RecursionError_(self.fn)
        self.stack = stack + (self.fn,)
        self.source: Source = get_source(self.fn)
        tree = gast.parse(self.source.text)
        fdef = tree.body[0] if tree.body else None
        if not isinstance(fdef, gast.FunctionDef):
            raise self.source.error(fdef, "only functions defined with `def` can be compiled",
                                    "replace the lambda with a `def` at module level")
        self.fdef = Normalizer(self.source).function(fdef)
        self.params = [a.id for a in self.fdef.args.args]
        if self.fdef.args.defaults:
            raise self.source.error(self.fdef, "unsupported signature: default argument "
                                               "values", "pass every argument explicitly")
        self.b = b
        self.env: dict[str, object] = {}
        self.maybe_undefined: set[str] = set()
        closure = inspect.getclosurevars(self.fn)
        self.globals = {**self.fn.__globals__, **closure.nonlocals}

    # ---- driver ---------------------------------------------------------------------------

    def run(self, args: list):
        self.env = dict(zip(self.params, args, strict=True))
        body = self.fdef.body
        self.block(body[:-1])
        ret = body[-1]
        self.b.loc = self.line(ret)
        return self.expr(ret.value)

    def line(self, node) -> int:
        return self.source.first_line + getattr(node, "lineno", 1) - 1

    def block(self, stmts) -> None:
        for s in stmts:
            self.b.loc = self.line(s)
            self.stmt(s)

    def stmt(self, s) -> None:
        if isinstance(s, gast.Assign):
            if len(s.targets) != 1:
                raise self.source.error(s, "chained assignment", "assign one target per "
                                                                  "statement")
            self.assign(s.targets[0], self.expr(s.value))
        elif isinstance(s, gast.If):
            self.stmt_if(s)
        elif isinstance(s, gast.While):
            self.stmt_while(s)
        elif isinstance(s, gast.Expr):
            self.expr(s.value)
        elif isinstance(s, gast.Pass):
            pass
        else:
            raise self.source.error(s, f"unsupported statement: {type(s).__name__}",
                                    "see the README for the supported subset of Python")

    def assign(self, target, value) -> None:
        if isinstance(target, gast.Name):
            if isinstance(value, Var) and not value.hint:
                value.hint = target.id
            self.env[target.id] = value
            self.maybe_undefined.discard(target.id)
        elif isinstance(target, gast.Subscript):
            if not isinstance(target.value, gast.Name) or target.value.id not in self.env:
                raise self.source.error(target, "assignment into something that is not a "
                                                "local array variable",
                                        "assign into an array variable: `x[i] = v`")
            name = target.value.id
            x = self.array(self.env[name], target)
            spec, ints = self.index_spec(x, target.slice)
            v = self.to_type(self.value(value, target), x.type)
            updated = self.b.index_update(x, v, *ints, spec=spec, mode="set")
            updated.hint = name
            self.env[name] = updated
        elif isinstance(target, gast.Tuple):
            if not isinstance(value, tuple) or len(value) != len(target.elts):
                raise self.source.error(target, "cannot unpack: the value is not a tuple of "
                                                f"{len(target.elts)} elements")
            for t, v in zip(target.elts, value, strict=True):
                self.assign(t, v)
        else:
            raise self.source.error(target, f"unsupported assignment target: "
                                            f"{type(target).__name__}",
                                    "assign to a plain variable name")

    # ---- values ---------------------------------------------------------------------------

    def value(self, value, node) -> Atom:
        """A number or an array (not a tuple, module or function)."""
        if not isinstance(value, Var | Const):
            raise self.source.error(node, f"expected a number or an array here, got "
                                          f"{type(value).__name__}")
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
        raise self.source.error(node, "this value must be known when compiling (a constant, "
                                      "x.shape, len(x), ...)")

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
        (float32 array * 2.0 stays float32), as in numpy 2."""
        x, y = self.numeric(x, node), self.numeric(y, node)
        tx, ty = x.type, y.type
        if tx.is_array != ty.is_array:
            array, scalar = (tx, ty) if tx.is_array else (ty, tx)
            name = array.name if array.is_float else join(array.scalar, scalar.scalar).name
        else:
            name = tx.name if RANK[tx.name] >= RANK[ty.name] else ty.name
        t = Type(name)
        return self.to_type(x, t), self.to_type(y, t)

    def truth(self, value, node) -> Atom:
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
        except TypeError as e:  # a primitive's type rule: shapes or dtypes do not fit
            raise self.source.error(node, str(e)) from None

    def expr_Constant(self, node):
        v = node.value
        if isinstance(v, bool | int | float) and not isinstance(v, complex):
            return const(v)
        raise self.source.error(node, f"unsupported constant {v!r}", "use int or float values")

    def expr_Name(self, node):
        name = node.id
        if name in self.env:
            if name in self.maybe_undefined and not name.startswith("__"):
                raise self.source.error(node, f"variable {name!r} may be undefined here: it is "
                                              "assigned only on some paths",
                                        f"assign {name} before the if/loop")
            return self.env[name]
        if name in HIDDEN_FUNCTIONS:
            return HIDDEN_FUNCTIONS[name]
        if name in self.globals:
            return self.resolve_global(self.globals[name], node)
        if hasattr(builtins, name):
            return self.resolve_global(getattr(builtins, name), node)
        raise self.source.error(node, f"name {name!r} is not defined")

    def resolve_global(self, obj, node):
        if isinstance(obj, bool | int | float) and not isinstance(obj, complex):
            return const(obj if not hasattr(obj, "item") else obj.item())
        if isinstance(obj, np.ndarray):
            raise self.source.error(node, f"global array {node.id!r} used in compiled code",
                                    "pass the array as an argument")
        return obj  # modules and functions are resolved by Attribute / Call

    def expr_Attribute(self, node):
        base = self.expr(node.value)
        if isinstance(base, Var | Const) and base.type.is_array:
            if node.attr in ARRAY_METHODS:
                return _Method(base, node.attr)
            return array_functions.attribute(self, base, node.attr, node)
        if isinstance(base, types.ModuleType):
            value = functions.constant(base, node.attr)
            if value is not None:
                return const(float(value))
            if not hasattr(base, node.attr):
                raise self.source.error(node, f"module {base.__name__!r} has no attribute "
                                              f"{node.attr!r}")
            return getattr(base, node.attr)
        raise self.source.error(node, f"unsupported attribute access .{node.attr}",
                                "numbers have no attributes")

    def expr_Tuple(self, node):
        return tuple(self.expr(e) for e in node.elts)

    expr_List = expr_Tuple  # list displays are immutable sequences here (np.array([...]))

    def expr_Subscript(self, node):
        base = self.expr(node.value)
        if isinstance(base, tuple):
            index = self.static(self.expr(node.slice), node)
            if not isinstance(index, int) or not -len(base) <= index < len(base):
                raise self.source.error(node, "unsupported tuple index",
                                        "index tuples with integer constants in range")
            return base[index]
        x = self.array(base, node)
        spec, ints = self.index_spec(x, node.slice)
        return self.b.index(x, *ints, spec=spec)

    def index_spec(self, x, index_node):
        """(spec, runtime integer operands) of a basic numpy index (ints, slices with
        constant bounds, None, ...); negative runtime indices are wrapped at run time."""
        items = index_node.elts if isinstance(index_node, gast.Tuple) else [index_node]
        ndim = len(x.type.shape)
        used = sum(not (isinstance(i, gast.Constant) and i.value in (None, Ellipsis))
                   for i in items)
        spec, ints, dim = [], [], 0
        for item in items:
            if isinstance(item, gast.Constant) and item.value is Ellipsis:
                spec.extend([(1, None, None, None)] * (ndim - used))
                dim += ndim - used
                continue
            if isinstance(item, gast.Constant) and item.value is None:
                spec.append((2,))
                continue
            if dim >= ndim:
                raise self.source.error(index_node, f"too many indices for an array of "
                                                    f"dimension {ndim}")
            if isinstance(item, gast.Slice):
                bounds = [None if part is None else self.static(self.expr(part), item)
                          for part in (item.lower, item.upper, item.step)]
                if not all(b is None or isinstance(b, int) for b in bounds):
                    raise self.source.error(item, "slice bounds must be integer constants")
                if bounds[2] == 0:
                    raise self.source.error(item, "slice step cannot be zero")
                spec.append((1, *bounds))
            else:
                i = self.scalar(self.expr(item), item)
                if i.type != I64:
                    raise self.source.error(item, f"array indices must be integers, got "
                                                  f"{i.type}")
                ints.append(self.wrap_index(i, x.type.shape[dim], item))
                spec.append((0,))
            dim += 1
        return tuple(spec), ints

    def wrap_index(self, i, n, node):
        if isinstance(i, Const):
            if not -n <= i.value < n:
                raise self.source.error(node, f"index {i.value} is out of bounds for an axis "
                                              f"of size {n}")
            return const(i.value % n)
        return self.b.select(self.b.lt(i, 0), self.b.add(i, n), i)

    def expr_BinOp(self, node):
        x, y = self.expr(node.left), self.expr(node.right)
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
        if op in ("floordiv", "mod") and x.type == I64 and isinstance(y, Const) and y.value == 0:
            raise self.source.error(node, "integer division by zero")
        return self.b.op(op, x, y)

    def expr_UnaryOp(self, node):
        x = self.expr(node.operand)
        if isinstance(node.op, gast.Not):
            return self.b.not_(self.truth(x, node))
        if isinstance(node.op, gast.USub):
            return self.b.neg(self.numeric(x, node))
        if isinstance(node.op, gast.UAdd):
            return self.numeric(x, node)
        raise self.source.error(node, "unsupported operator ~", "use arithmetic operators")

    def expr_Compare(self, node):
        result = None
        left = self.expr(node.left)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            prim = CMPOPS.get(type(op))
            if prim is None:
                raise self.source.error(node, f"unsupported comparison {type(op).__name__}",
                                        "compare numbers with < <= > >= == !=")
            right = self.expr(comparator)
            x, y = self.promote(left, right, node)
            test = self.b.op(prim, x, y)
            result = test if result is None else self.b.and_(result, test)
            left = right
        return result

    def expr_BoolOp(self, node):
        values = [self.scalar(self.expr(v), v) for v in node.values]
        if any(v.type != BOOL for v in values):
            raise self.source.error(node, "`and`/`or` on non-boolean values",
                                    "compare explicitly, e.g. `x != 0 and y > 1`")
        prim = "and_" if isinstance(node.op, gast.And) else "or_"
        result = values[0]
        for v in values[1:]:
            result = self.b.op(prim, result, v)
        return result

    def expr_IfExp(self, node):
        test = self.truth(self.expr(node.test), node.test)
        if isinstance(test, Const):
            return self.expr(node.body if test.value else node.orelse)
        return self.branch(test, [node.orelse], [node.body], expression=True)[0]

    def expr_Call(self, node):
        if any(kw.arg is None for kw in node.keywords):
            raise self.source.error(node, "**kwargs in calls", "pass arguments explicitly")
        func = self.expr(node.func)
        args = [self.expr(a) for a in node.args]
        kwargs = {kw.arg: self.expr(kw.value) for kw in node.keywords}
        if isinstance(func, _Method):
            return array_functions.method(self, func.array, func.name, args, kwargs, node)
        lowering = functions.lookup(func)
        if lowering is not None:
            return lowering(self, args, kwargs, node)
        if kwargs:
            raise self.source.error(node, "keyword arguments in calls to Python functions",
                                    "pass arguments by position")
        if hasattr(func, "ir_for"):
            return self.inline_transformed(func, args, node)
        if isinstance(func, types.FunctionType):
            return self.inline(func, args, node)
        name = getattr(func, "__name__", type(func).__name__)
        raise self.source.error(node, f"unsupported function {name!r}",
                                f"supported: {functions.supported_names()}, and Python "
                                "functions defined with def")

    def inline_transformed(self, transformed, args, node):
        """Inline the IR of an adlite-transformed function (`jit`, `grad`, ...)."""
        atoms = [self.value(a, node) for a in args]
        try:
            graph, is_tuple = transformed.ir_for(tuple(a.type for a in atoms))
        except TypeError as e:
            raise self.source.error(node, str(e)) from None
        atoms = [self.to_type(a, v.type) for a, v in zip(atoms, graph.inputs, strict=True)]
        outputs = inline(self.b, graph, atoms)
        return tuple(outputs) if is_tuple else outputs[0]

    def inline(self, fn, args, node):
        if len(self.stack) > MAX_INLINE_DEPTH:
            raise self.source.error(node, "calls nested too deeply")
        try:
            callee = FunctionConverter(fn, self.b, self.stack)
        except RecursionError_ as e:
            raise self.source.error(node, f"recursive call to {e.fn.__name__!r}",
                                    "write the recursion as a loop") from None
        if len(args) != len(callee.params):
            raise self.source.error(node, f"{fn.__name__}() takes {len(callee.params)} "
                                          f"arguments, {len(args)} given")
        loc = self.b.loc
        result = callee.run(args)
        self.b.loc = loc
        return result

    # ---- control flow -------------------------------------------------------------------------

    def stmt_if(self, s):
        test = self.truth(self.expr(s.test), s.test)
        if isinstance(test, Const):
            self.block(s.body if test.value else s.orelse)
            return
        self.branch(test, s.orelse, s.body, expression=False)

    def _operands(self, nodes) -> list[str]:
        """Names whose current values the nodes read or may keep (closed subgraph inputs)."""
        names = []
        for n in nodes:
            for sub in gast.walk(n):
                if isinstance(sub, gast.Name) and sub.id in self.env and sub.id not in names:
                    names.append(sub.id)
        for name in names:
            if not isinstance(self.env[name], Var | Const):
                raise self.source.error(nodes[0], f"{name!r} holds a tuple, which cannot cross "
                                                  "an if or a loop", "unpack it into separate "
                                                                     "variables first")
        return [n for n in names if isinstance(self.env[n], Var)]

    def _sub(self, names: list[str], inputs: list[Var], run):
        """Run `run()` with a fresh builder and the given names bound to `inputs`."""
        saved = self.b, self.env, set(self.maybe_undefined)
        self.b = Builder(saved[0].loc)
        self.env = {**saved[1], **dict(zip(names, inputs, strict=True))}
        try:
            result = run()
            return result, self.b, self.env, self.maybe_undefined
        finally:
            self.b, self.env, self.maybe_undefined = saved

    def branch(self, test, else_nodes, then_nodes, expression: bool):
        nodes = list(else_nodes) + list(then_nodes)
        names = self._operands(nodes)
        arms = []
        for arm_nodes in (else_nodes, then_nodes):
            inputs = [Var(self.env[n].type, n) for n in names]
            run = (lambda ns=arm_nodes: self.expr(ns[0])) if expression else \
                (lambda ns=arm_nodes: self.block(ns))
            arms.append((inputs,) + self._sub(names, inputs, run))
        if expression:
            values = [self.value(r, nodes[0]) for _, r, _, _, _ in arms]
            try:
                t = join(values[0].type, values[1].type)
            except TypeError as e:
                raise self.source.error(nodes[0], f"conditional expression: {e}") from None
            graphs = [Graph(inp, b.eqns, [self.to_type(v, t, b)], "arm")
                      for (inp, _, b, _, _), v in zip(arms, values, strict=True)]
            return self.b.emit("cond", [test] + [self.env[n] for n in names],
                               branches=tuple(graphs))
        assigned = _assigned(nodes)
        outs, out_types = [], []
        for name in assigned:
            vals = [env.get(name) for _, _, _, env, _ in arms]
            if any(v is not None and not isinstance(v, Var | Const) for v in vals):
                raise self.source.error(nodes[0], f"{name!r} holds a tuple, which cannot cross "
                                                  "an if", "unpack it into separate variables")
            present = [v for v in vals if v is not None]
            if not present:
                continue
            try:
                t = present[0].type if len(present) == 1 else join(present[0].type,
                                                                   present[1].type)
            except TypeError as e:
                raise self.source.error(nodes[0], f"{name!r}: {e} in the two branches") from None
            outs.append(name)
            out_types.append(t)
        graphs = []
        for inputs, _, b, env, _undefined in arms:
            values = [self.to_type(env[n], t, b) if n in env else self.placeholder(t, b)
                      for n, t in zip(outs, out_types, strict=True)]
            graphs.append(Graph(inputs, b.eqns, values, "arm"))
        results = self.b.emit("cond", [test] + [self.env[n] for n in names],
                              branches=tuple(graphs))
        for name, var in zip(outs, results, strict=True):
            var.hint = name
            everywhere = all(name in env and name not in undef for _, _, _, env, undef in arms)
            before = name in self.env and name not in self.maybe_undefined
            self.env[name] = var
            if everywhere:
                self.maybe_undefined.discard(name)
            elif not before:
                self.maybe_undefined.add(name)
        return results

    def stmt_while(self, s):
        assigned = _assigned(s.body)
        nodes = [s.test] + list(s.body)
        defined_before = {n for n in assigned if n in self.env and n not in self.maybe_undefined}
        carry_types = {n: self.env[n].type for n in assigned if n in self.env}
        for _attempt in range(4):
            carried = [n for n in assigned if n in carry_types]
            consts = [n for n in self._operands(nodes) if n not in carried]
            c_in = [Var(self.env[n].type, n) for n in consts]
            k_in = [Var(carry_types[n], n) for n in carried]
            names = consts + carried
            undefined_inside = {n for n in carried if n not in defined_before}

            def run_body(undefined=undefined_inside):
                self.maybe_undefined |= undefined
                self.block(s.body)

            _, body_b, body_env, _ = self._sub(names, c_in + k_in, run_body)
            widened = dict(carry_types)
            for n in assigned:
                if n in body_env and isinstance(body_env[n], Var | Const):
                    t = body_env[n].type
                    try:
                        widened[n] = t if n not in widened else join(widened[n], t)
                    except TypeError as e:
                        raise self.source.error(s, f"loop variable {n!r}: {e}") from None
            if widened == carry_types:
                break
            carry_types = widened
        else:
            raise self.source.error(s, "could not infer the types of the loop variables")
        body_out = [self.to_type(body_env[n], carry_types[n], body_b) for n in carried]
        body = Graph(c_in + k_in, body_b.eqns, body_out, "body")
        cc_in = [Var(v.type, v.hint) for v in c_in + k_in]
        test, cond_b, _, _ = self._sub(names, cc_in,
                                       lambda: self.truth(self.expr(s.test), s.test))
        if isinstance(test, Const) and not test.value:
            return
        if isinstance(test, Const):
            raise self.source.error(s.test, "the loop condition is always true, so the loop "
                                            "never ends", "add a condition or a break")
        cond = Graph(cc_in, cond_b.eqns, [test], "cond")
        init = [self.to_type(self.env[n], carry_types[n]) if n in self.env
                else self.placeholder(carry_types[n]) for n in carried]
        outs = self.b.emit("while", [self.env[n] for n in consts] + init, cond=cond, body=body,
                           n_consts=len(consts))
        for name, var in zip(carried, outs, strict=True):
            var.hint = name
            self.env[name] = var
            if name not in defined_before:
                self.maybe_undefined.add(name)


class _Method:
    """`x.sum` before the call: an array and a method name."""

    def __init__(self, array: Atom, name: str) -> None:
        self.array, self.name = array, name


ARRAY_METHODS = {"sum", "mean", "max", "min", "reshape", "transpose", "dot", "copy"}
DTYPE_OBJECTS = (np.float64, np.float32, float)


class RecursionError_(Exception):  # noqa: N801 - internal signal, not a user-facing error
    def __init__(self, fn) -> None:
        super().__init__(fn.__name__)
        self.fn = fn


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

