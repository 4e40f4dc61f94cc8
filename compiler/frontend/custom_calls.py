"""Calls of functions with user-defined derivatives (`adlite.compiler.custom`) -> IR.

Contract: `lower_call(spec, b, args, kwargs, error)` emits, with builder `b`, one
`custom_vjp` or `custom_jvp` equation (`primitives/custom.py`) for the call
`spec(*args, **kwargs)` of frontend values and returns `(output atoms, result tree)`
(`rebuild` makes the value). `spec` is duck-typed: `kind` ("vjp" or "jvp"), `fun`, `fwd` and
`bwd` (vjp) or `jvp_rule` (jvp) (None until `defvjp` / `defjvp`), `nondiff_argnums`, and
`__name__`. Arguments bind to `fun`'s parameters as Python binds them; numbers and arrays
are runtime values (constant ints and bools, and other Python objects, are compile-time
values), tuples and dicts are structures of them. Each user function is compiled on its own
for the argument types (`to_ir.build_program`; one that writes into an argument array is
refused): `fun(*args)`; `fwd(*args) -> (output, residuals)`; `bwd(*nondiff, residuals,
output cotangent) -> one cotangent per differentiable argument`, a tuple (None: zero);
`jvp_rule(*nondiff, primals, tangents) -> (output, output tangent)`, JAX's conventions. Int
and bool leaves get float zero tangents, and cotangents are ignored for them. The functions
may read module-level and closed-over values (`externals`); their graphs share the
equation's inputs. Mismatched structures, shapes or counts are `AdliteSyntaxError`s naming
the user function's definition (`definition_error`); `error(message, hint)` makes the call
site's. A call of the function inside its own rules (`fwd` calling `f`, a JAX idiom) is the
function's plain code (`_RULES` tracks the rules being compiled), a call inside the function
itself is refused as recursion.
"""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import Callable

from ..arguments import NeedStatic, Node, Static, leaf_types
from ..errors import AdliteSyntaxError
from ..ir.builder import Builder, const
from ..ir.core import Atom, Const, Graph, Type, Var
from ..ir.transform import inline
from . import externals, static_values
from .sequences import as_tuples
from .source import get_source
from .static_requirements import message
from .to_ir import build_program, cast

_RULES: contextvars.ContextVar[tuple] = contextvars.ContextVar("custom_rules", default=())


def float_type(t: Type) -> Type:
    """The type of a derivative of a value of type `t`."""
    return t if t.is_float else Type("f64", t.shape)


def definition_error(fn, message: str, hint: str = "") -> AdliteSyntaxError:
    """An error pointing at the `def` of the user's function `fn`."""
    filename, line, text = origin(fn)
    return AdliteSyntaxError(message, filename, line, len(text) - len(text.lstrip()),
                             text.strip(), hint)


def origin(fn) -> tuple[str, int, str]:
    """(file, line, text) of the `def` of `fn` (after its decorators)."""
    source = get_source(fn)
    lines = source.original_lines
    k = next((i for i, text in enumerate(lines) if text.lstrip().startswith(("def ", "async "))),
             0)
    return source.filename, source.first_line + k, lines[k].rstrip() if lines else ""


class _Built:
    """One user function compiled for the call: its graph, result tree, and the outer
    values its externals bind to (`externals.bind_graph`)."""

    def __init__(self, spec, fn, trees: list, frame: str) -> None:
        token = _RULES.set(_RULES.get() + ((id(spec), frame),))
        try:
            program = build_program(fn, trees)
        except NeedStatic as e:
            raise definition_error(fn, message("value", fn.__name__, f"needs the value of "
                                                     f"{', '.join(sorted(e.names))} when "
                                                     f"compiling ({e.error.message})"),
                                   "pass it as a compile-time value (nondiff_argnums)") from None
        except TypeError as e:
            raise definition_error(fn, f"{fn.__name__}: {e}") from None
        finally:
            _RULES.reset(token)
        if program.written:  # Python would change the caller's array: not followed here
            raise definition_error(fn, f"{fn.__name__}() writes into its argument "
                                       f"{program.written[0]}", "write into a copy: "
                                                                "y = x.copy(); y[i] = ...")
        self.graph, self.tree = program.graph, program.tree
        self.hidden = externals.bind_graph(self.graph)[1]

    def inline(self, b: Builder, own: list, hidden: dict[int, Atom]) -> list[Atom]:
        return inline(b, self.graph, list(own) + [hidden[id(h)] for h in self.hidden])


def lower_call(spec, b: Builder, args: list, kwargs: dict,
               error: Callable[[str, str], Exception]) -> tuple[list[Atom], object]:
    params = _bind(spec, args, kwargs, error)
    leaves: list[Atom] = []
    spans, trees = [], []
    for k, value in enumerate(params):
        start = len(leaves)
        trees.append(_tree(value, leaves, lambda m, k=k: error(
            f"argument {k} of {spec.__name__}: {m}", "pass numbers, arrays, tuples of them, "
            "or functions and other Python objects defined at module level")))
        spans.append((start, len(leaves)))
    frames = [frame for key, frame in _RULES.get() if key == id(spec)]
    if "fun" in frames:
        raise error(f"recursive call to {spec.__name__!r}", "write the recursion as a loop")
    primal = _Built(spec, spec.fun, trees, "fun")
    if frames:  # inside its own rules: the plain function
        hidden = {id(h): h for h in primal.hidden}
        return primal.inline(b, leaves, hidden), primal.tree
    rules = (spec.fwd, spec.bwd) if spec.kind == "vjp" else (spec.jvp_rule,)
    if any(rule is None for rule in rules):
        how = f"{spec.__name__}.defvjp(fwd, bwd)" if spec.kind == "vjp" else \
            f"@{spec.__name__}.defjvp on the rule"
        raise error(f"custom_{spec.kind} function {spec.__name__!r} has no derivative rule",
                    f"define it with {how} before calling it")
    call = _Call(spec, leaves, spans, trees, primal)
    outs = call.emit_vjp(b) if spec.kind == "vjp" else call.emit_jvp(b)
    return outs, primal.tree


def rebuild(tree, atoms) -> object:
    """The frontend value of result `tree` from its leaves (an iterator)."""
    if isinstance(tree, Type):
        return next(atoms)
    if isinstance(tree, Static):
        v = tree.value
        return const(v) if isinstance(v, bool | int | float) else v
    values = [rebuild(t, atoms) for t in tree.children]
    return dict(zip(tree.keys, values, strict=True)) if tree.kind == "dict" else tuple(values)


def _bind(spec, args: list, kwargs: dict, error) -> list:
    try:
        bound = inspect.signature(spec.fun).bind(*args, **kwargs)
    except TypeError as e:
        raise error(f"{spec.__name__}(): {e}", "") from None
    bound.apply_defaults()
    values = [as_tuples(v) for v in bound.arguments.values()]
    wrong = [k for k in spec.nondiff_argnums if not 0 <= k < len(values)]
    if wrong:
        raise error(f"nondiff_argnums {wrong} of {spec.__name__!r} are not positions of its "
                    f"{len(values)} parameter(s)", "count the parameters from 0")
    return [const(v) if isinstance(v, bool | int | float) else v for v in values]


def _tree(value, leaves: list, refuse: Callable[[str], Exception]):
    """The tree of one argument value, appending its runtime leaves to `leaves`."""
    if isinstance(value, Const) and not value.type.is_float:
        return Static(value.value)
    if isinstance(value, Var | Const):
        leaves.append(value)
        return value.type
    if isinstance(value, tuple):
        return Node("tuple", tuple(_tree(v, leaves, refuse) for v in value))
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise refuse("dict keys must be strings")
        return Node("dict", tuple(_tree(v, leaves, refuse) for v in value.values()),
                    tuple(value))
    if not static_values.is_static(value) or \
            type(value).__module__.startswith("adlite.compiler.frontend"):
        raise refuse(f"{static_values.describe(value)} cannot be passed to a function with a "
                     "custom derivative")
    return Static(value)


def _float_tree(tree):
    """The tree of the derivatives of values of `tree` (compile-time values get None)."""
    if isinstance(tree, Type):
        return float_type(tree)
    if isinstance(tree, Static):
        return Static(None)
    return Node(tree.kind, tuple(_float_tree(t) for t in tree.children), tree.keys)


def _is_none(tree) -> bool:
    return isinstance(tree, Static) and tree.value is None


class _Call:
    """The graphs of one call, over the equation's inputs: the argument leaves, then the
    outer values the user's functions read from outside (`hidden`)."""

    def __init__(self, spec, leaves: list, spans: list, trees: list, primal: _Built) -> None:
        self.spec, self.leaves, self.spans, self.trees = spec, leaves, spans, trees
        self.primal = primal
        self.nondiff = tuple(spec.nondiff_argnums)
        self.diff = [k for k in range(len(trees)) if k not in self.nondiff]
        self.out_types = leaf_types(primal.tree)

    def _inputs(self, built: list[_Built]) -> tuple[list[Atom], list]:
        """The equation's inputs and the outer hidden values among them, in order."""
        hidden: list[Atom] = []
        for one in built:
            hidden += [h for h in one.hidden if not any(h is x for x in hidden)]
        return self.leaves + hidden, hidden

    def _fresh(self, inputs: list[Atom], hidden: list) -> tuple[list[Var], dict]:
        base = [Var(a.type, getattr(a, "hint", "")) for a in inputs]
        n = len(self.leaves)
        return base, {id(h): v for h, v in zip(hidden, base[n:], strict=True)}

    def _leaves_of(self, base: list, positions) -> list[Var]:
        return [base[i] for k in positions for i in range(*self.spans[k])]

    def _graph(self, built: _Built, extra: list[Var], hidden: list, inputs: list,
               args: Callable[[list], list], finish: Callable[[Builder, list], list]) -> Graph:
        """`built` as a graph taking the equation's inputs (fresh vars), then `extra`:
        `args(those inputs)` are its arguments, `finish` makes its outputs from its results."""
        base, outer = self._fresh(inputs, hidden)
        b = Builder()
        results = built.inline(b, args(base), outer)
        return Graph(base + extra, b.eqns, finish(b, results), built.graph.name)

    def _primal_graph(self, inputs, hidden) -> Graph:
        return self._graph(self.primal, [], hidden, inputs, lambda base: base[:len(self.leaves)],
                           lambda b, results: results)

    def _checked_output(self, fn, tree, what: str) -> None:
        """`tree` (part of `fn`'s result) must have the primal output's structure."""
        got = leaf_types(tree)
        if [t.shape for t in got] != [t.shape for t in self.out_types] or \
                [t.is_float for t in got] != [t.is_float for t in self.out_types]:
            raise definition_error(fn, f"{fn.__name__} returns {what} of types "
                                       f"{_types(got)} where {self.spec.__name__} returns "
                                       f"{_types(self.out_types)}")

    # ---- custom_vjp ---------------------------------------------------------------------------

    def emit_vjp(self, b: Builder) -> list[Atom]:
        spec = self.spec
        fwd = _Built(spec, spec.fwd, self.trees, "rule")
        parts = _pair(fwd.tree)
        if parts is None:
            raise definition_error(spec.fwd, f"{spec.fwd.__name__} must return a pair "
                                              "(output, residuals)")
        self._checked_output(spec.fwd, parts[0], "an output")
        res_types = leaf_types(parts[1])
        ct_tree = _float_tree(self.primal.tree)
        bwd = _Built(spec, spec.bwd, [self.trees[k] for k in self.nondiff] + [parts[1], ct_tree],
                     "rule")
        cts = self._cotangents(bwd.tree)
        inputs, hidden = self._inputs([self.primal, fwd, bwd])
        n_out = len(self.out_types)
        fwd_graph = self._graph(
            fwd, [], hidden, inputs, lambda base: base[:len(self.leaves)],
            lambda fb, results: [cast(fb, a, t) for a, t in zip(results, self.out_types,
                                                                 strict=False)] + results[n_out:])
        res = [Var(t, "res") for t in res_types]
        bars = [Var(float_type(t), "ct") for t in self.out_types]
        wrt = [i for i, c in enumerate(cts) if c is not None]
        bwd_graph = self._graph(
            bwd, res + bars, hidden, inputs,
            lambda base: self._leaves_of(base, self.nondiff) + res + bars,
            lambda bb, results: [cast(bb, results[cts[i]], float_type(self.leaves[i].type))
                                 for i in wrt])
        return b.emit("custom_vjp", inputs, hint=spec.__name__,
                      graph=self._primal_graph(inputs, hidden), fwd=fwd_graph, bwd=bwd_graph,
                      wrt=tuple(wrt), n_leaves=len(self.leaves), name=spec.__name__,
                      origin=origin(spec.fun))

    def _cotangents(self, tree) -> list[int | None]:
        """Per argument leaf, the position among `bwd`'s result leaves of its cotangent
        (None: no cotangent)."""
        bwd = self.spec.bwd
        n = len(self.diff)
        if not (isinstance(tree, Node) and tree.kind in ("tuple", "list")) or \
                len(tree.children) != n:
            raise definition_error(bwd, f"{bwd.__name__} must return a tuple of {n} "
                                        f"cotangent(s), one per differentiable argument of "
                                        f"{self.spec.__name__}; it returns "
                                        f"{_describe_tree(tree)}")
        found: list[int | None] = [None] * len(self.leaves)
        offset = 0
        for k, child in zip(self.diff, tree.children, strict=True):
            start = self.spans[k][0]
            for j, position in enumerate(_match(child, self.trees[k], offset, bwd,
                                                f"the cotangent of argument {k}")):
                found[start + j] = position
            offset += len(leaf_types(child))
        return found

    # ---- custom_jvp ---------------------------------------------------------------------------

    def emit_jvp(self, b: Builder) -> list[Atom]:
        spec, rule_fn = self.spec, self.spec.jvp_rule
        primals = Node("tuple", tuple(self.trees[k] for k in self.diff))
        tangents = Node("tuple", tuple(_float_tree(self.trees[k]) for k in self.diff))
        rule = _Built(spec, rule_fn, [self.trees[k] for k in self.nondiff] + [primals, tangents],
                      "rule")
        parts = _pair(rule.tree)
        if parts is None:
            raise definition_error(rule_fn, f"{rule_fn.__name__} must return a pair "
                                            "(output, output tangent)")
        self._checked_output(rule_fn, parts[0], "an output")
        t_out = _match(parts[1], self.primal.tree, 0, rule_fn, "the output tangent")
        inputs, hidden = self._inputs([self.primal, rule])
        n_out = len(self.out_types)
        t_in = [Var(float_type(a.type), "t") for a in self.leaves]

        def finish(jb: Builder, results: list) -> list:
            outs = [cast(jb, a, t) for a, t in zip(results, self.out_types, strict=False)]
            tangent = results[n_out:]
            return outs + [jb.zeros(t) if k is None else cast(jb, tangent[k], t)
                           for k, t in zip(t_out, self.out_types, strict=True) if t.is_float]

        jvp_graph = self._graph(
            rule, t_in, hidden, inputs,
            lambda base: self._leaves_of(base, self.nondiff) + self._leaves_of(base, self.diff)
            + [t_in[i] for k in self.diff for i in range(*self.spans[k])], finish)
        return b.emit("custom_jvp", inputs, hint=spec.__name__,
                      graph=self._primal_graph(inputs, hidden), jvp=jvp_graph,
                      n_leaves=len(self.leaves), name=spec.__name__, origin=origin(spec.fun))


def _pair(tree):
    if isinstance(tree, Node) and tree.kind in ("tuple", "list") and len(tree.children) == 2:
        return tree.children
    return None


def _match(got, want, offset: int, fn, what: str) -> list[int | None]:
    """Per leaf of `want` (an argument's or output's tree), the position of its derivative
    among the leaves of the result `fn` returned (whose part `got` starts at `offset`), or
    None (None returned, or a leaf that is not a float)."""
    if _is_none(got):
        return [None] * len(leaf_types(want))
    if isinstance(want, Static):
        return []
    if isinstance(want, Type):
        if not want.is_float:
            return [None]
        if isinstance(got, Type) and got.is_float and got.shape == want.shape:
            return [offset]
        raise definition_error(fn, f"{fn.__name__}: {what} is {_describe_tree(got)} but "
                                   f"must be a float of the shape of {want}",
                               "return a float of that shape, or None for zero")
    if not (isinstance(got, Node) and got.kind in ("tuple", "list", "dict") and
            len(got.children) == len(want.children)):
        raise definition_error(fn, f"{fn.__name__}: {what} is {_describe_tree(got)} but must "
                                   f"have the structure of {_describe_tree(want)}")
    out = []
    for g, w in zip(got.children, want.children, strict=True):
        out += _match(g, w, offset, fn, what)
        offset += len(leaf_types(g))
    return out


def _types(types: list[Type]) -> str:
    return "(" + ", ".join(map(str, types)) + ")"


def _describe_tree(tree) -> str:
    if isinstance(tree, Type):
        return f"a {tree}" if tree.is_array else f"a number ({tree})"
    if isinstance(tree, Static):
        return repr(tree.value)
    return f"a {tree.kind} of {len(tree.children)}"
