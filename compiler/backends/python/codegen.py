"""IR graph -> readable Python source (through gast, ast and astor) -> a Python function.

Contract: `graph_to_source(graph, name, line_text)` returns the source of `def name(...)`
(`name` made an identifier: `<lambda>_grad` -> `lambda_grad`) computing the graph:
variables are named after the user's variables (unique suffixes added), single-use
temporaries are folded into the expression that uses them (up to MAX_NESTING
levels, so that Python's parser accepts any chain of operations), `while` / `cond`
equations become `while` / `if` statements whose carried variables are reassigned together
at the end of the body, the AD tape is a list `_tape`, and a comment `# L<n>: <source>`
precedes the code coming from each source line. Floats are numpy float64 scalars, so
division by zero or overflow gives inf/nan as IEEE (and the LLVM backend) do; ints are Python
ints whose results are checked to fit int64 (`_rt.int64`: OverflowError otherwise, as the
LLVM backend's checked arithmetic);
`compile_graph` runs the code under `np.errstate(all="ignore")` and returns numbers as Python
numbers, float32 ones as numpy float32 scalars (numpy's and the LLVM backend's result type).
"""

from __future__ import annotations

import builtins
import keyword
import linecache
import math
import re
from collections.abc import Callable

import astor
import gast
import numpy as np

from ... import gast_adapter as g
from ...ir.core import F64, Const, Eqn, Graph, Var, walk_eqns
from ...ir.dims import is_symbolic, symbol_name
from ...ir.loops import While
from ...ir.primitive import PRIMITIVES
from ...primitives.control import tape_name
from ...primitives.lists import buffer_names

RESERVED = {"np", "_rt", "abs", "max", "min", "int", "float", "bool", "pow", "range", "len"}
TAPE_NAME = re.compile(r"_tape\d*")  # the AD tapes' lists
COMMENT = "__adlite_comment__"
MAX_NESTING = 40  # Python refuses more than 200 nested parentheses


def _const_source(c: Const) -> str:
    v = c.value
    if is_symbolic(v):  # a run-time size: read from an argument's shape (`_size_sources`)
        return f"float({v})" if c.type.is_float else f"({v})"
    if c.type.name == "f32":
        return f"np.float32({_const_source(Const(v, F64))})"
    if c.type.name == "f64":
        if math.isnan(v):
            return "np.nan"
        if math.isinf(v):
            return "np.inf" if v > 0 else "(-np.inf)"
        return f"({v!r})" if v < 0 or (v == 0 and math.copysign(1, v) < 0) else repr(v)
    return f"({v!r})" if isinstance(v, int) and not isinstance(v, bool) and v < 0 else repr(v)


class _Emitter:
    def __init__(self, graph: Graph, line_text: Callable[[int], str] | None) -> None:
        self.prims = PRIMITIVES
        self.line_text = line_text
        self.names: dict[int, str] = {}
        self.used = set(RESERVED)
        self.exprs: dict[int, str] = {}
        self.nesting: dict[int, int] = {}  # levels of the folded expression of a var
        self.uses: dict[int, int] = {}
        self.pinned: set[int] = set()
        self.comments: list[str] = []
        for eqn in walk_eqns(graph):
            for a in eqn.inputs:
                if isinstance(a, Var):
                    self.uses[id(a)] = self.uses.get(id(a), 0) + 1
                    if eqn.subgraphs():
                        self.pinned.add(id(a))  # bound to a subgraph input: materialise
        for sub in [graph] + [s for e in walk_eqns(graph) for s in e.subgraphs()]:
            for a in sub.outputs:
                if isinstance(a, Var):
                    self.uses[id(a)] = self.uses.get(id(a), 0) + 1

    # ---- names and expressions --------------------------------------------------------------

    def name(self, var: Var) -> str:
        if id(var) not in self.names:
            base = re.sub(r"\W", "_", var.hint) or "t"
            if keyword.iskeyword(base) or base[0].isdigit():
                base = "v_" + base
            name, k = base, 0
            while name in self.used or (base == "t" and k == 0) or TAPE_NAME.fullmatch(name):
                k += 1
                name = f"{base}{k}" if base == "t" else f"{base}_{k}"
            self.used.add(name)
            self.names[id(var)] = name
        return self.names[id(var)]

    def comment(self, text: str):
        """A marker statement, replaced by `# text` after printing (astor drops comments)."""
        self.comments.append(text)
        call = gast.Call(func=g.name(COMMENT), args=[g.const(len(self.comments) - 1)],
                         keywords=[])
        return gast.Expr(value=call)

    def alias(self, var: Var, source: str) -> None:
        self.exprs[id(var)] = source

    def src(self, atom) -> str:
        if isinstance(atom, Const):
            return _const_source(atom)
        if isinstance(atom, _Named):
            return atom.source
        return self.exprs.get(id(atom)) or self.name(atom)

    # ---- statements ---------------------------------------------------------------------------

    def block(self, graph: Graph, out_names: list[str] | None) -> list:
        """Statements of `graph`; a source-line comment precedes the first statement that
        code from a new line produced (lines whose code was folded away get none)."""
        stmts: list = []
        last_loc = None
        for eqn in graph.eqns:
            emitted = self.eqn(eqn)
            if emitted and eqn.loc is not None and eqn.loc != last_loc and self.line_text:
                text = self.line_text(eqn.loc).strip()
                stmts.append(self.comment(f"L{eqn.loc}: {text}" if text else f"L{eqn.loc}"))
                last_loc = eqn.loc
            stmts.extend(emitted)
        if out_names is not None:
            pairs = [(n, self.src(a)) for n, a in zip(out_names, graph.outputs, strict=True)
                     if n != self.src(a)]
            if pairs:
                stmts.append(_assign_many([n for n, _ in pairs], [s for _, s in pairs]))
        return stmts

    def eqn(self, eqn: Eqn) -> list:
        if eqn.prim == "while":
            return self.loop(eqn)
        if eqn.prim == "cond":
            return self.branch(eqn)
        prim = self.prims[eqn.prim]
        expr = prim.py([self.src(a) for a in eqn.inputs], eqn)
        if not eqn.outputs:
            return [gast.Expr(value=_parse_expr(expr))]
        (out,) = eqn.outputs
        nesting = 1 + max((self.nesting.get(id(a), 0) for a in eqn.inputs), default=0)
        inline = (not prim.effectful and not out.hint and self.uses.get(id(out), 0) == 1
                  and id(out) not in self.pinned and nesting <= MAX_NESTING)
        if inline:
            self.nesting[id(out)] = nesting
            self.alias(out, f"({expr})")
            return []
        return [g.assign(self.name(out), _parse_expr(expr))]

    def _bind(self, graph: Graph, atoms) -> None:
        for var, atom in zip(graph.inputs, atoms, strict=True):
            self.alias(var, self.src(atom))

    def loop(self, eqn: Eqn) -> list:
        loop = While(eqn)
        cond, body = loop.cond, loop.body
        consts, init = loop.consts, loop.carries
        out_names = [self.name(v) for v in eqn.outputs]
        stmts = []
        pairs = [(o, self.src(a)) for o, a in zip(out_names, init, strict=True)]
        if pairs:
            stmts.append(_assign_many([o for o, _ in pairs], [s for _, s in pairs]))
        for sub in (cond, body):
            self._bind(sub, list(consts) + [_Named(o) for o in out_names])
        cond_stmts = self.block(Graph(cond.inputs, cond.eqns, []), None)
        test = _parse_expr(self.src(cond.outputs[0]))
        body_stmts = self.block(body, out_names)
        if any(not _is_comment(s) for s in cond_stmts):
            brk = gast.If(test=g.not_(test), body=[gast.Break()], orelse=[])
            stmts.append(g.while_(g.const(True), cond_stmts + [brk] + body_stmts))
        else:
            stmts.append(g.while_(test, cond_stmts + body_stmts))
        return stmts

    def branch(self, eqn: Eqn) -> list:
        else_, then = eqn.params["branches"]
        out_names = [self.name(v) for v in eqn.outputs]
        arms = []
        for arm in (then, else_):
            self._bind(arm, eqn.inputs[1:])
            arms.append(self.block(arm, out_names) or [gast.Pass()])
        return [gast.If(test=_parse_expr(self.src(eqn.inputs[0])), body=arms[0],
                        orelse=arms[1])]


class _Named:
    """An atom that is already a Python name (loop-carried variables)."""

    def __init__(self, name: str) -> None:
        self.hint = name
        self.type = None
        self.source = name


def _parse_expr(source: str):
    return gast.parse(source, mode="eval").body


def _is_comment(stmt) -> bool:
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and \
        isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == COMMENT


def _assign_many(names: list[str], sources: list[str]):
    if len(names) == 1:
        return g.assign(names[0], _parse_expr(sources[0]))
    target = gast.Tuple(elts=[g.name(n, store=True) for n in names], ctx=gast.Store())
    return gast.Assign(targets=[target], value=g.tuple_(map(_parse_expr, sources)),
                       type_comment=None)


def python_name(name: str) -> str:
    """`name` as a Python identifier (`<lambda>_grad` -> `lambda_grad`) that shadows none of
    the builtins generated code calls (`abs_` stays `abs_`, not `abs`, which would call
    itself)."""
    cleaned = re.sub(r"\W+", "_", name).strip("_") or "f"
    if cleaned[0].isdigit() or keyword.iskeyword(cleaned):
        return f"_{cleaned}"
    return f"{cleaned}_" if cleaned in RESERVED or hasattr(builtins, cleaned) else cleaned


def graph_to_source(graph: Graph, name: str,
                    line_text: Callable[[int], str] | None = None) -> str:
    name = python_name(name)
    em = _Emitter(graph, line_text)
    sizes = _size_sources(graph.inputs)
    em.used |= set(sizes)
    params = [em.name(v) for v in graph.inputs]
    body = [g.assign(size, _parse_expr(f"{params[i]}.shape[{axis}]"))
            for size, (i, axis) in sizes.items()]
    for tape in sorted({tape_name(e) for e in walk_eqns(graph) if e.prim in ("push", "pop")}):
        body.append(g.assign(tape, _parse_expr("[]")))
    for buffer in buffer_names(walk_eqns(graph)):  # the run-time lists' items
        body.append(g.assign(buffer, _parse_expr("[]")))
    header = "import numpy as np\n"
    body += em.block(Graph(graph.inputs, graph.eqns, []), None)
    outs = [em.src(a) for a in graph.outputs]
    body.append(g.return_(_parse_expr("(" + ", ".join(outs) + ",)")))
    fdef = gast.FunctionDef(
        name=name, args=gast.arguments(args=[g.name(p, store=False) for p in params],
                                       posonlyargs=[], vararg=None, kwonlyargs=[],
                                       kw_defaults=[], kwarg=None, defaults=[]),
        body=body, decorator_list=[], returns=None, type_comment=None, type_params=[])
    for arg in fdef.args.args:
        arg.ctx = gast.Param()
    module = gast.Module(body=[fdef], type_ignores=[])
    text = astor.to_source(gast.gast_to_ast(gast.fix_missing_locations(module)))
    text = re.sub(rf"^(\s*){COMMENT}\((\d+)\)$",
                  lambda m: f"{m.group(1)}# {em.comments[int(m.group(2))]}", text, flags=re.M)
    if re.search(r"\b_rt\s*\.", text):  # astor may break a long line before the dot
        header += "from adlite.compiler.backends.python import support as _rt\n"
    return header + "\n\n" + text


def _size_sources(inputs) -> dict[str, tuple[int, int]]:
    """Each run-time size symbol of the inputs' shapes (`ir.dims`) -> (input, axis) of its
    first occurrence: the generated code reads it there, and the shapes it prints use it."""
    sources: dict[str, tuple[int, int]] = {}
    for i, v in enumerate(inputs):
        for axis, n in enumerate(v.type.shape or ()):
            if is_symbolic(n):
                sources.setdefault(symbol_name(n), (i, axis))
    return sources


_counter = [0]


def _argument_cast(t):
    if t.is_array:
        return np.asarray
    return t.dtype.numpy if t.is_float else t.dtype.python


def compile_graph(graph: Graph, name: str, line_text=None):
    """Compile the graph to a Python function returning a tuple of its outputs."""
    source = graph_to_source(graph, name, line_text)
    name = python_name(name)
    _counter[0] += 1
    filename = f"<adlite-python-{_counter[0]}:{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our generated code
    fn = namespace[name]
    casts = [_argument_cast(v.type) for v in graph.inputs]
    # float32 numbers come back as numpy's float32 (as numpy and the LLVM backend give them),
    # other numbers as Python numbers
    kept = tuple(o.type.shape is None and o.type.name == "f32" for o in graph.outputs)

    def run(*args):
        if len(args) != len(casts):
            raise TypeError(f"{name}() takes {len(casts)} positional arguments")
        with np.errstate(all="ignore"):
            values = fn(*(cast(a) for cast, a in zip(casts, args, strict=True)))
        return tuple(np.float32(v) if f32 else v.item() if isinstance(v, np.generic) else v
                     for v, f32 in zip(values, kept, strict=True))

    run.source = source
    return run
