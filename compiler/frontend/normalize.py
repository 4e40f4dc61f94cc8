"""Normalize a function's gast so that only structured control flow remains.

Post-conditions (the grammar `to_ir` accepts):
- statements are `name = expr`, `a, b = expr`, `if`, `while` (no `else`), bare expressions,
  `assert`, `raise` (the last statement of its block, see `statements.end_at_raises`) and one
  final `return expr` (a function may also end by raising; a bare `return` returns None;
  a function without any `return value` returns None at its end);
- nested `def name(...)` became `name = NestedDef` and every `lambda` a `NestedDef`
  expression: the definition, its default values and the free names its body reads (only
  those are walked; the nested body is normalized when it is called, see closures.py);
- parameters may have defaults, `*args` and keyword-only parameters; `**kwargs` is refused;
- every `for` became a counted `while` whose hidden updates come first in the body (so
  `continue` is safe), marked for `to_ir` (`counter`: the part of its test that counts,
  `trips`: its trip count at entry, `loop_prefix` on the hidden fetch and step statements;
  see `_counted`), which may unroll it. `for i in range(start, stop, step)`: with a
  constant step of 1 or -1 it counts a hidden counter up (down) to `stop` (both checked to
  be ints by `__range_bound`), which never passes int64's range. Otherwise it counts down
  the exact trip count
  `__range_len(start, stop, step)` (a hidden function, see HIDDEN_FUNCTIONS: ValueError for
  a zero step at run time, no overflow for any bounds) and steps the loop variable only
  while another trip follows, so the checked int arithmetic never computes a value past the
  last one. A constant zero step is refused here. Any other iterable (an array: its first
  axis; a list, tuple or stored range; `enumerate`, `zip` (shortest, or `strict=True`),
  `reversed` of them, nested) is evaluated once into hidden names before the loop, its
  trip count is `__len(seq)` (`__min` / `__zip_strict` of them for zip), and each trip
  first fetches `seq[k]` into hidden `__item` names shaped like the target, then binds
  the target from them;
- list comprehensions and generator expressions became loops before their statement
  (`comprehensions.py`);
- `x op= y` became `x = x op y` (that Assign has `augmented = True`: on an array it writes
  in place);
- `break`, `continue` and early `return` became assignments to hidden boolean flags
  (`__brk1`, `__cnt1`, `__ret`); the statements they could skip are guarded by
  `if not flag:`; loops also test their flags. Early returns store their values in hidden
  variables (`__rv`, or `__rv0`, `__rv1`, ... for tuples), returned at the end.
Hidden names start with `__`. Unsupported statements raise `AdliteSyntaxError` at their line.
"""

from __future__ import annotations

import builtins
import copy

import gast

from .. import gast_adapter as g
from ..primitives.ints import range_len
from .compile_time_sequences import dict_with
from .comprehensions import COMPREHENSIONS, DICT_WITH, hoist
from .library.python_builtins import range_bound
from .sequences import iteration_length, zip_strict_length
from .source import Source
from .statements import end_at_raises

# names the normalized code calls (never shadowed by the user's names)
HIDDEN_FUNCTIONS = {"__range_len": range_len, "__range_bound": range_bound,
                    "__len": iteration_length, "__min": builtins.min,
                    "__zip_strict": zip_strict_length, DICT_WITH: dict_with}

UNSUPPORTED_STATEMENTS = {
    gast.Try: ("try statement (try/except/finally)",
               "compiled code cannot catch exceptions (it raises them by ending the call): "
               "test the condition with `if` before the operation that would raise, or call "
               "the compiled function inside try/except"),
    gast.With: ("with statement", "move the context manager outside the compiled function"),
    gast.Import: ("import", "import modules at module level; they are resolved when compiling"),
    gast.ImportFrom: ("import", "import at module level; names are resolved when compiling"),
    gast.ClassDef: ("class definition", "define classes outside the compiled function"),
    gast.Global: ("global statement", "pass the value as an argument instead"),
    gast.Nonlocal: ("nonlocal statement in a function defined outside compiled code",
                    "pass the value as an argument and return the new value; `nonlocal` "
                    "compiles in functions nested in a compiled function"),
    gast.Delete: ("del statement", "remove the del; values are freed automatically"),
}


class NestedDef(gast.AST):
    """A nested `def` or `lambda` (as an expression): `fdef` is the function (a lambda is
    `def <lambda>(...): return body`), `defaults` the default values (evaluated where the
    definition stands, for parameters `default_names`) and `free` Names loading the
    variables its body reads from the enclosing function. Only `defaults` and `free` are
    walked, so the enclosing function's passes never see the nested body."""
    _fields = ("defaults", "free")

    def __init__(self, fdef: gast.FunctionDef, at) -> None:
        super().__init__()
        args = fdef.args
        positional = args.posonlyargs + args.args
        self.fdef = fdef
        self.default_names = [a.id for a in positional[len(positional) - len(args.defaults):]] \
            + [a.id for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
               if d is not None]
        self.defaults = list(args.defaults) + [d for d in args.kw_defaults if d is not None]
        self.free = [g.name(n, at=at) for n in free_names(fdef)]
        self.rebinds = nonlocal_names(fdef)
        gast.copy_location(self, at)


def _own_statements(fdef: gast.FunctionDef):
    """The nodes of a function's body, not those of the functions nested in it."""
    stack = list(fdef.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, gast.FunctionDef | gast.Lambda):
            stack.extend(gast.iter_child_nodes(node))


def nonlocal_names(fdef: gast.FunctionDef) -> list[str]:
    """The names a function declares `nonlocal` (it rebinds its enclosing function's
    variables: see closures.py)."""
    return list(dict.fromkeys(n for node in _own_statements(fdef)
                              if isinstance(node, gast.Nonlocal) for n in node.names))


def without_nonlocal(fdef: gast.FunctionDef) -> gast.FunctionDef:
    """`fdef` with its own `nonlocal` statements removed (a `pass` where one was alone)."""
    for node in _own_statements(fdef):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and any(isinstance(s, gast.Nonlocal) for s in stmts):
                kept = [s for s in stmts if not isinstance(s, gast.Nonlocal)]
                setattr(node, field, kept or [gast.Pass()])
    kept = [s for s in fdef.body if not isinstance(s, gast.Nonlocal)]
    fdef.body = kept or [gast.Pass()]
    return fdef


def free_names(fdef: gast.FunctionDef) -> list[str]:
    """Names a function's body reads and does not bind (its parameters, assignments and
    nested definitions are its own; a nested function's free names are read through it),
    and those it declares `nonlocal`: read from the enclosing scope when it is called."""
    a = fdef.args
    bound = {p.id for p in a.posonlyargs + a.args + a.kwonlyargs}
    bound |= {p.id for p in (a.vararg, a.kwarg) if p is not None}
    rebound = set(nonlocal_names(fdef))
    loaded = list(rebound)
    stack = list(reversed(fdef.body))
    while stack:
        node = stack.pop()
        if isinstance(node, gast.FunctionDef | gast.Lambda):
            inner = node if isinstance(node, gast.FunctionDef) else lambda_def(node)
            if isinstance(node, gast.FunctionDef):
                bound.add(node.name)
            loaded.extend(free_names(inner))
            stack.extend(reversed(inner.args.defaults + [d for d in inner.args.kw_defaults
                                                         if d is not None]))
            continue
        if isinstance(node, gast.Name):
            (loaded.append if isinstance(node.ctx, gast.Load) else bound.add)(node.id)
        stack.extend(reversed(list(gast.iter_child_nodes(node))))
    return list(dict.fromkeys(n for n in loaded if n not in bound or n in rebound))


class _Hoist(gast.NodeTransformer):
    """Nested `def name(...)` -> `name = NestedDef` (decorated: `name = d(NestedDef)`, the
    decorators called in compiled code), `lambda` -> NestedDef (bodies are normalized when
    they are called)."""

    def __init__(self, source: Source) -> None:
        self.source = source

    def visit_FunctionDef(self, node):  # noqa: N802 - NodeTransformer's naming
        decorators, node.decorator_list = node.decorator_list, []
        value = NestedDef(node, node)
        for decorator in reversed(decorators):  # `@d def f` is `f = d(f)`, innermost first
            value = g.call_value(decorator, [value], at=decorator)
        return g.assign(node.name, value, at=node)

    def visit_Lambda(self, node):  # noqa: N802
        return NestedDef(lambda_def(node), node)


def lambda_def(node: gast.Lambda) -> gast.FunctionDef:
    """`lambda args: body` as `def <lambda>(args): return body`."""
    return g.function_def("<lambda>", node.args, [g.return_(node.body, at=node)], at=node)


def _returns(body) -> list:
    return [n for n in gast.walk(gast.Module(body=body, type_ignores=[]))
            if isinstance(n, gast.Return)]


def _is_none(node) -> bool:
    return isinstance(node, gast.Constant) and node.value is None


def _is_docstring(stmt) -> bool:
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant) and \
        isinstance(stmt.value.value, str)


def _walk_same_loop(node, types):
    """Nodes of `types` inside `node`, not descending into nested loops."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, types):
            yield n
        for child in gast.iter_child_nodes(n):
            if not isinstance(child, gast.While | gast.For):
                stack.append(child)


def _contains(node, types) -> bool:
    return any(isinstance(n, types) for n in gast.walk(node))


def _always_returns(stmts) -> bool:
    for s in stmts:
        if isinstance(s, gast.Return | gast.Raise):
            return True
        if isinstance(s, gast.If) and _always_returns(s.body) and _always_returns(s.orelse):
            return True
    return False


class Normalizer:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.counter = 0
        self.arity = 1
        self.comprehensions = True  # whether the function may hold any (`function` finds out)

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"__{base}{self.counter}"

    # ---- entry ----------------------------------------------------------------------------

    def function(self, fdef: gast.FunctionDef) -> gast.FunctionDef:
        body = [s for i, s in enumerate(fdef.body) if not (i == 0 and _is_docstring(s))]
        present = {type(n) for s in body for n in gast.walk(s)}  # to skip the walks not needed
        self.comprehensions = not present.isdisjoint(COMPREHENSIONS)
        if not present.isdisjoint((gast.FunctionDef, gast.Lambda)):
            body = [_Hoist(self.source).visit(s) for s in body]
        body = self.desugar(end_at_raises(body))
        returns = _returns(body)
        for r in returns:
            r.value = r.value or g.const(None, at=r)  # a bare `return` returns None
        if all(_is_none(r.value) for r in returns) and not _always_returns(body):
            body.append(g.return_(g.const(None, at=fdef), at=fdef))  # a procedure
            returns = _returns(body)
        if not _always_returns(body):
            raise self.source.error(fdef, f"function {fdef.name!r} does not return a value on "
                                          "every path", "end the function with a return "
                                                        "statement")
        arities = {len(r.value.elts) if isinstance(r.value, gast.Tuple) else 1 for r in returns}
        if len(arities) > 1:
            raise self.source.error(returns[-1], "return statements return different numbers "
                                                 "of values", "return the same tuple shape "
                                                              "everywhere")
        if len(returns) == 1 and body[-1] is returns[0]:
            fdef.body = self.lower(body[:-1], None) + [body[-1]]
            return fdef
        self.arity = arities.pop()
        lowered = [g.assign("__ret", g.const(False), at=fdef)] + self.lower(body, None)
        names = ["__rv"] if self.arity == 1 else [f"__rv{i}" for i in range(self.arity)]
        value = g.name(names[0]) if self.arity == 1 else g.tuple_(map(g.name, names))
        fdef.body = lowered + [g.return_(value, at=returns[-1])]
        return fdef

    # ---- for -> while, augmented assignment, unsupported statements -------------------------

    def desugar(self, stmts) -> list:
        out = []
        for s in stmts:
            kind = UNSUPPORTED_STATEMENTS.get(type(s))
            if kind:
                raise self.source.error(s, f"unsupported construct: {kind[0]}", kind[1])
            before = hoist(s, self.fresh, self.source) if self.comprehensions else []
            if before:
                out.extend(self.desugar(before))
            if isinstance(s, gast.AugAssign):
                out.append(self.augmented(s))
            elif isinstance(s, gast.AnnAssign):
                if s.value is None or not isinstance(s.target, gast.Name):
                    raise self.source.error(s, "unsupported annotated assignment",
                                            "write `name = value`")
                out.append(g.assign(s.target.id, s.value, at=s))
            elif isinstance(s, gast.For):
                out.extend(self.for_loop(s))
            elif isinstance(s, gast.While):
                if s.orelse:
                    raise self.source.error(s, "unsupported construct: while/else",
                                            "use a flag variable instead of else")
                s.body = self.desugar(s.body)
                out.append(s)
            elif isinstance(s, gast.If):
                s.body, s.orelse = self.desugar(s.body), self.desugar(s.orelse)
                out.append(s)
            elif isinstance(s, gast.Expr) and _is_docstring(s):
                continue
            else:
                out.append(s)
        return out

    def augmented(self, s: gast.AugAssign):
        """`x op= v` -> `x = x op v`; `x[i] op= v` -> `x[i] = x[i] op v`; `o.a op= v` ->
        `o.a = o.a op v` (marked `augmented`, as for a name)."""
        if isinstance(s.target, gast.Name):
            stmt = g.assign(s.target.id, g.binop(g.name(s.target.id, at=s), s.op, s.value,
                                                 at=s), at=s)
            stmt.augmented = True
            return stmt
        if isinstance(s.target, gast.Subscript):
            s.target.augmented = True  # masks.py: `x[mask] op= v` reads and writes x[mask]
            load = copy.deepcopy(s.target)
            load.ctx = gast.Load()
            value = g.binop(load, s.op, s.value, at=s)
            return gast.copy_location(gast.Assign(targets=[s.target], value=value,
                                                  type_comment=None), s)
        if isinstance(s.target, gast.Attribute):  # `self.s += v`: see to_ir.in_place
            load = copy.deepcopy(s.target)
            load.ctx = gast.Load()
            stmt = gast.copy_location(gast.Assign(targets=[s.target], value=g.binop(
                load, s.op, s.value, at=s), type_comment=None), s)
            stmt.augmented = True
            return stmt
        raise self.source.error(s, "unsupported augmented assignment target",
                                "assign to a variable or an array element")

    def for_loop(self, s: gast.For) -> list:
        """`for target in iterable` -> a counted `while` (see the module docstring)."""
        if s.orelse:
            raise self.source.error(s, "unsupported construct: for/else",
                                    "use a flag variable instead of else")
        if _builtin_call(s.iter, "range", 1, 3) and isinstance(s.target, gast.Name):
            return self.for_range(s)
        setup: list = []
        length, item = self.iteration(s.iter, setup, s)
        n, k = self.fresh("n"), self.fresh("k")
        setup += [g.assign(n, length, at=s), g.assign(k, g.const(0, at=s), at=s)]
        test = g.compare(g.name(k, at=s), gast.Lt(), g.name(n, at=s), at=s)
        fetch = g.assign_to(self.hidden_target(s.target, True), item(lambda: g.name(k, at=s)),
                            at=s)
        step = g.assign(k, g.binop(g.name(k, at=s), gast.Add(), g.const(1, at=s), at=s), at=s)
        bind = g.assign_to(s.target, self.hidden_target(fetch.targets[0], False), at=s)
        loop = g.while_(test, [fetch, step, bind] + self.desugar(s.body), at=s)
        return setup + [_counted(loop, test, g.name(n, at=s), fetch, step)]

    def hidden_target(self, target, store: bool):
        """A target of hidden `__item` names shaped like `target` (store: new names for the
        loop's target; else the same names read back): a tuple item is unpacked into
        numbers and arrays before the user's target is bound."""
        if isinstance(target, gast.Tuple | gast.List):
            node = g.tuple_([self.hidden_target(t, store) for t in target.elts], at=target)
            node.ctx = gast.Store() if store else gast.Load()
            return node
        if isinstance(target, gast.Starred):
            raise self.source.error(target, "starred loop target", "unpack by position")
        return g.name(self.fresh("item") if store else target.id, store=store, at=target)

    def iteration(self, it, setup: list, s):
        """(trip count expression, item) of iterating `it`: `item(k)` is the expression of the
        item at the index `k()` builds; hidden variables evaluated once before the loop are
        appended to `setup`."""
        strict = _zip_strict(it)
        if strict is not None:
            it.keywords = []
        elif isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.keywords and \
                it.func.id in ("enumerate", "zip", "reversed"):
            raise self.source.error(it, f"keyword arguments of {it.func.id}()",
                                    "pass the arguments by position (zip: strict=True or "
                                    "strict=False)")
        if _builtin_call(it, "enumerate", 1, 2):
            length, inner = self.iteration(it.args[0], setup, s)
            start = None
            if len(it.args) == 2:
                start = self.fresh("start")
                setup.append(g.assign(start, it.args[1], at=s))
            return length, lambda k: g.tuple_(
                [g.binop(g.name(start, at=s), gast.Add(), k(), at=s) if start else k(),
                 inner(k)], at=s)
        if _builtin_call(it, "zip", 1, None):
            parts = [self.iteration(a, setup, s) for a in it.args]
            length = parts[0][0] if len(parts) == 1 else \
                g.call("__zip_strict" if strict else "__min", [p[0] for p in parts], at=it)
            return length, lambda k: g.tuple_([inner(k) for _, inner in parts], at=s)
        if _builtin_call(it, "reversed", 1, 1):
            if _builtin_call(it.args[0], "enumerate", 1, 2) or \
                    _builtin_call(it.args[0], "zip", 1, None):
                raise self.source.error(it, f"'{it.args[0].func.id}' object is not reversible",
                                        "reverse the sequences inside it instead")
            length, inner = self.iteration(it.args[0], setup, s)
            m = self.fresh("len")
            setup.append(g.assign(m, length, at=s))
            return g.name(m, at=s), lambda k: inner(lambda: g.binop(
                g.binop(g.name(m, at=s), gast.Sub(), g.const(1, at=s), at=s), gast.Sub(), k(),
                at=s))
        seq, m = self.fresh("seq"), self.fresh("len")
        length = g.call("__len", [g.name(seq, at=s)], at=s)
        length.origin = getattr(s, "origin", "for loop")  # names the loop in errors
        setup += [g.assign(seq, it, at=s), g.assign(m, length, at=s)]
        return g.name(m, at=s), lambda k: _fetch(g.name(seq, at=s), k, s)

    def for_range(self, s: gast.For) -> list:
        it = s.iter
        args = list(it.args)
        start, stop, step = (g.const(0, at=it), args[0], g.const(1, at=it)) if len(args) == 1 \
            else (args[0], args[1], args[2] if len(args) == 3 else g.const(1, at=it))
        k, hi, st, n = self.fresh("k"), self.fresh("stop"), self.fresh("step"), self.fresh("n")
        step_value = step.value if isinstance(step, gast.Constant) else None
        if isinstance(step_value, int) and step_value == 0:
            raise self.source.error(step, "range() arg 3 must not be zero",
                                    "use a nonzero step")
        by_one = isinstance(step_value, int) and step_value in (1, -1)
        # range()'s order; counted by one, the bounds are checked here (else by __range_len)
        bounds = [g.assign(name, g.call("__range_bound", [value], at=it) if by_one else value,
                           at=s) for name, value in ((k, start), (hi, stop))]
        if by_one:
            up = step_value > 0
            test = g.compare(g.name(k, at=s), gast.Lt() if up else gast.Gt(),
                             g.name(hi, at=s), at=s)
            advance = g.assign(k, g.binop(g.name(k, at=s), gast.Add(), step, at=s), at=s)
            body = [g.assign(s.target.id, g.name(k, at=s), at=s), advance]
            low, high = (k, hi) if up else (hi, k)
            trips = g.tuple_([g.name(low, at=s), g.name(high, at=s)], at=s)  # high - low
            loop = g.while_(test, body + self.desugar(s.body), at=s)
            return bounds + [_counted(loop, test, trips, advance)]
        trips = g.call("__range_len", [g.name(v, at=s) for v in (k, hi, st)], at=it)
        zero = g.const(0, at=s)
        more = g.compare(g.name(n, at=s), gast.Gt(), zero, at=s)
        # __k = __k + __step * (__n > 0): no step after the last trip
        advance = g.binop(g.name(k, at=s), gast.Add(),
                          g.binop(g.name(st, at=s), gast.Mult(), more, at=s), at=s)
        count = g.assign(n, g.binop(g.name(n, at=s), gast.Sub(), g.const(1, at=s), at=s), at=s)
        step_k = g.assign(k, advance, at=s)
        body = [g.assign(s.target.id, g.name(k, at=s), at=s), count, step_k]
        test = g.compare(g.name(n, at=s), gast.Gt(), g.const(0, at=s), at=s)
        loop = g.while_(test, body + self.desugar(s.body), at=s)
        return bounds + [g.assign(st, step, at=s), g.assign(n, trips, at=s),
                         _counted(loop, test, g.name(n, at=s), count, step_k)]

    # ---- break / continue / return -> flags -------------------------------------------------

    def lower(self, stmts, loop: tuple[str | None, str | None] | None) -> list:
        out = []
        for idx, s in enumerate(stmts):
            if isinstance(s, gast.Return):
                out.extend(self.store_return(s))
                out.append(g.assign("__ret", g.const(True, at=s), at=s))
                return out
            if isinstance(s, gast.Break | gast.Continue):
                flag = loop[0] if isinstance(s, gast.Break) else loop[1]
                out.append(g.assign(flag, g.const(True, at=s), at=s))
                return out
            flags = self.flags_set_by(s, loop)  # before lowering removes the jumps
            if isinstance(s, gast.If):
                s.body, s.orelse = self.lower(s.body, loop), self.lower(s.orelse, loop)
                out.append(s)
            elif isinstance(s, gast.While):
                out.extend(self.lower_loop(s))
            else:
                out.append(s)
            rest = stmts[idx + 1:]
            if flags and rest:
                guard = g.not_(g.or_(*map(g.name, flags)) if len(flags) > 1
                               else g.name(flags[0]), at=rest[0])
                out.append(g.if_(guard, self.lower(rest, loop), at=rest[0]))
                return out
        return out

    def flags_set_by(self, s, loop) -> list[str]:
        flags = ["__ret"] if _contains(s, gast.Return) else []
        if isinstance(s, gast.While):  # its break/continue belong to it
            return flags
        if loop and loop[0] and any(True for _ in _walk_same_loop(s, gast.Break)):
            flags.append(loop[0])
        if loop and loop[1] and any(True for _ in _walk_same_loop(s, gast.Continue)):
            flags.append(loop[1])
        return flags

    def lower_loop(self, s: gast.While) -> list:
        brk = self.fresh("brk") if any(True for _ in _walk_same_loop_body(s, gast.Break)) \
            else None
        cnt = self.fresh("cnt") if any(True for _ in _walk_same_loop_body(s, gast.Continue)) \
            else None
        returns = _contains(s, gast.Return)
        test = g.and_(g.not_(g.name(brk, at=s), at=s) if brk else None,
                      g.not_(g.name("__ret", at=s), at=s) if returns else None, s.test, at=s)
        body = ([g.assign(cnt, g.const(False, at=s), at=s)] if cnt else []) + \
            self.lower(s.body, (brk, cnt))
        before = [g.assign(brk, g.const(False, at=s), at=s)] if brk else []
        loop = g.while_(test, body, at=s)
        if hasattr(s, "counter"):
            _counted(loop, s.counter, s.trips)
        return before + [loop]

    def store_return(self, s: gast.Return) -> list:
        if self.arity == 1:
            return [g.assign("__rv", s.value, at=s)]
        return [g.assign(f"__rv{i}", e, at=s) for i, e in enumerate(s.value.elts)]


def _walk_same_loop_body(loop: gast.While, types):
    for stmt in loop.body:
        yield from _walk_same_loop(stmt, types)


def _builtin_call(node, name: str, low: int, high: int | None) -> bool:
    """Is `node` a call `name(...)` with low..high positional arguments (high None: any)?"""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
        node.func.id == name and not node.keywords and \
        low <= len(node.args) <= (len(node.args) if high is None else high) and \
        not any(isinstance(a, gast.Starred) for a in node.args)


def _zip_strict(node) -> bool | None:
    """The constant `strict=` of a `zip(...)` call (None: not such a call)."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id == "zip" and len(node.keywords) == 1 and \
            node.keywords[0].arg == "strict" and isinstance(node.keywords[0].value, gast.Constant):
        return bool(node.keywords[0].value.value)
    return None


def _fetch(seq, k, at):
    """`seq[k()]` at a hidden index (always in range: to_ir may index a range with it)."""
    node = g.subscript(seq, k(), at=at)
    node.in_range = True
    return node


def _counted(loop: gast.While, counter, trips, *prefix) -> gast.While:
    """Mark a loop lowered from `for`: `counter` is the part of its test that counts the
    trips, `trips` the trip count at loop entry (a name, or a tuple `(low, high)` of names
    whose difference it is: to_ir computes it exactly), `prefix` the hidden statements
    that fetch the item and advance the counter (to_ir runs them unguarded when it unrolls
    the loop after a `break` with a run-time condition)."""
    loop.counter, loop.trips = counter, trips
    for stmt in prefix:
        stmt.loop_prefix = True
    return loop
