"""Normalize a function's gast so that only structured control flow remains.

Post-conditions (the grammar `to_ir` accepts):
- statements are `name = expr`, `a, b = expr`, `if`, `while` (no `else`), bare expressions,
  and one final `return expr`;
- `for i in range(start, stop, step)` became a `while` whose hidden updates come first in
  the body (so `continue` is safe). With a constant step of 1 or -1 it counts a hidden
  counter up (down) to `stop`, which never passes int64's range. Otherwise it counts down
  the exact trip count `__range_len(start, stop, step)` (a hidden function, see
  HIDDEN_FUNCTIONS: ValueError for a zero step at run time, no overflow for any bounds) and
  steps the loop variable only while another trip follows, so the checked int arithmetic
  never computes a value past the last one. A constant zero step is refused here;
  `x op= y` became `x = x op y` (that Assign has `augmented = True`: on an array it writes
  in place);
- `break`, `continue` and early `return` became assignments to hidden boolean flags
  (`__brk1`, `__cnt1`, `__ret`); the statements they could skip are guarded by
  `if not flag:`; loops also test their flags. Early returns store their values in hidden
  variables (`__rv`, or `__rv0`, `__rv1`, ... for tuples), returned at the end.
Hidden names start with `__`. Unsupported statements raise `AdliteSyntaxError` at their line.
"""

from __future__ import annotations

import copy

import gast

from .. import gast_adapter as g
from ..primitives.ints import range_len
from .source import Source

HIDDEN_FUNCTIONS = {"__range_len": range_len}  # names the normalized code calls

UNSUPPORTED_STATEMENTS = {
    gast.Try: ("try/except", "exceptions are not supported in compiled code; check inputs "
                             "before calling the function"),
    gast.With: ("with statement", "move the context manager outside the compiled function"),
    gast.Raise: ("raise", "validate inputs before calling the compiled function"),
    gast.Assert: ("assert", "check the condition before calling the compiled function"),
    gast.Import: ("import", "import modules at module level; they are resolved when compiling"),
    gast.ImportFrom: ("import", "import at module level; names are resolved when compiling"),
    gast.FunctionDef: ("nested function definition",
                       "define helper functions at module level; calls to them are inlined"),
    gast.ClassDef: ("class definition", "define classes outside the compiled function"),
    gast.Global: ("global statement", "pass the value as an argument instead"),
    gast.Nonlocal: ("nonlocal statement", "pass the value as an argument instead"),
    gast.Delete: ("del statement", "remove the del; values are freed automatically"),
}


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
        if isinstance(s, gast.Return):
            return True
        if isinstance(s, gast.If) and _always_returns(s.body) and _always_returns(s.orelse):
            return True
    return False


class Normalizer:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.counter = 0
        self.arity = 1

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"__{base}{self.counter}"

    # ---- entry ----------------------------------------------------------------------------

    def function(self, fdef: gast.FunctionDef) -> gast.FunctionDef:
        body = [s for i, s in enumerate(fdef.body) if not (i == 0 and _is_docstring(s))]
        body = self.desugar(body)
        if not _always_returns(body):
            raise self.source.error(fdef, f"function {fdef.name!r} does not return a value on "
                                          "every path", "end the function with a return "
                                                        "statement")
        returns = [n for n in gast.walk(gast.Module(body=body, type_ignores=[]))
                   if isinstance(n, gast.Return)]
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
            if isinstance(s, gast.AugAssign):
                out.append(self.augmented(s))
            elif isinstance(s, gast.AnnAssign):
                if s.value is None or not isinstance(s.target, gast.Name):
                    raise self.source.error(s, "unsupported annotated assignment",
                                            "write `name = value`")
                out.append(g.assign(s.target.id, s.value, at=s))
            elif isinstance(s, gast.For):
                out.extend(self.for_range(s))
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
        """`x op= v` -> `x = x op v`; `x[i] op= v` -> `x[i] = x[i] op v`."""
        if isinstance(s.target, gast.Name):
            stmt = g.assign(s.target.id, g.binop(g.name(s.target.id, at=s), s.op, s.value,
                                                 at=s), at=s)
            stmt.augmented = True
            return stmt
        if isinstance(s.target, gast.Subscript):
            load = copy.deepcopy(s.target)
            load.ctx = gast.Load()
            value = g.binop(load, s.op, s.value, at=s)
            return gast.copy_location(gast.Assign(targets=[s.target], value=value,
                                                  type_comment=None), s)
        raise self.source.error(s, "unsupported augmented assignment target",
                                "assign to a variable or an array element")

    def for_range(self, s: gast.For) -> list:
        it = s.iter
        is_range = (isinstance(it, gast.Call) and isinstance(it.func, gast.Name)
                    and it.func.id == "range" and not it.keywords and 1 <= len(it.args) <= 3)
        if not is_range:
            raise self.source.error(it, "unsupported loop: only `for i in range(...)` is "
                                        "supported", "loop over an index: "
                                                     "`for i in range(len(xs))`")
        if s.orelse:
            raise self.source.error(s, "unsupported construct: for/else",
                                    "use a flag variable instead of else")
        if not isinstance(s.target, gast.Name):
            raise self.source.error(s.target, "unsupported loop target",
                                    "use a single name: `for i in range(n)`")
        args = list(it.args)
        start, stop, step = (g.const(0, at=it), args[0], g.const(1, at=it)) if len(args) == 1 \
            else (args[0], args[1], args[2] if len(args) == 3 else g.const(1, at=it))
        k, hi, st, n = self.fresh("k"), self.fresh("stop"), self.fresh("step"), self.fresh("n")
        bounds = [g.assign(k, start, at=s), g.assign(hi, stop, at=s)]  # range()'s order
        step_value = step.value if isinstance(step, gast.Constant) else None
        if isinstance(step_value, int) and step_value == 0:
            raise self.source.error(step, "range() arg 3 must not be zero",
                                    "use a nonzero step")
        if isinstance(step_value, int) and step_value in (1, -1):
            test = g.compare(g.name(k, at=s), gast.Lt() if step_value > 0 else gast.Gt(),
                             g.name(hi, at=s), at=s)
            body = [g.assign(s.target.id, g.name(k, at=s), at=s),
                    g.assign(k, g.binop(g.name(k, at=s), gast.Add(), step, at=s), at=s)]
            return bounds + [g.while_(test, body + self.desugar(s.body), at=s)]
        trips = g.call("__range_len", [g.name(v, at=s) for v in (k, hi, st)], at=it)
        zero = g.const(0, at=s)
        more = g.compare(g.name(n, at=s), gast.Gt(), zero, at=s)
        # __k = __k + __step * (__n > 0): no step after the last trip
        advance = g.binop(g.name(k, at=s), gast.Add(),
                          g.binop(g.name(st, at=s), gast.Mult(), more, at=s), at=s)
        body = [g.assign(s.target.id, g.name(k, at=s), at=s),
                g.assign(n, g.binop(g.name(n, at=s), gast.Sub(), g.const(1, at=s), at=s),
                         at=s),
                g.assign(k, advance, at=s)]
        test = g.compare(g.name(n, at=s), gast.Gt(), g.const(0, at=s), at=s)
        return bounds + [g.assign(st, step, at=s), g.assign(n, trips, at=s),
                         g.while_(test, body + self.desugar(s.body), at=s)]

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
        return before + [g.while_(test, body, at=s)]

    def store_return(self, s: gast.Return) -> list:
        if s.value is None:
            raise self.source.error(s, "return without a value", "return a number or a tuple")
        if self.arity == 1:
            return [g.assign("__rv", s.value, at=s)]
        return [g.assign(f"__rv{i}", e, at=s) for i, e in enumerate(s.value.elts)]


def _walk_same_loop_body(loop: gast.While, types):
    for stmt in loop.body:
        yield from _walk_same_loop(stmt, types)
