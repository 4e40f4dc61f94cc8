"""`if` statements and expressions, `while` loops and counted `for` loops: `ControlFlow`, a
mixin of `to_ir.FunctionConverter`.

Contract: an `if` whose test is known when compiling runs one arm. Otherwise it becomes a
`cond` equation whose outputs are the variables assigned in either arm (`branch`); `while`
becomes a `while` equation whose carries are the variables assigned in its body (`_loop`;
types are widened to a fixed point, e.g. `total = 0` then `total += x` makes `total` a float
carry). `if` outputs and `while` carries are the names whose values change, including
aliases never named in the block (one carry per object, see `aliasing.py`); aliasing that
cannot be followed is refused naming the line. Each block runs in a fresh builder on a copy
of the converter's `scope.Scope` (`_sub`), and the scopes the arms or the body leave are
merged here (joined types and objects) and by the Scope's operations (maybe-undefined and
poisoned names: `join_defined`, `join_poisoned`, `leave_loop`); `branch` and `_loop` are
the steps of these algorithms, a loop's state between them one `_Loop` value. A `for` loop (a
counted `while`, see normalize.py) whose body uses a Python list or tuple, or that cannot be
one `while` (a variable changes shape, a write through a row view: refusals marked
`unrollable`), is unrolled when its trip count is known when compiling (at most MAX_UNROLL
trips; otherwise refused naming the loop and why); after a `break`/`return` with a run-time
condition each later trip runs under an `if` on the loop's flags. After a loop whose trip
count is known to be positive, the variables its body assigns on every path are defined.
Compile-time values cross an `if` or a loop when every path binds the same value (refused
otherwise, naming the variable). A shape that an entry function's runtime scalar decides
asks the API to compile once per value of it (`entry_scalars`, `arguments.NeedStatic`).
The mixin uses the converter's builder `b`, `scope`, `source` and its expression and
aliasing methods.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from typing import NamedTuple

import gast

from .. import gast_adapter as g
from ..arguments import NeedStatic
from ..errors import AdliteSyntaxError
from ..ir.builder import Builder
from ..ir.core import BOOL, F64, I64, Atom, Const, Graph, Var
from ..ir.dims import is_symbolic
from ..ir.loops import While
from ..ir.transform import producers
from . import closures, known_values, runtime_lists, sequences, static_values
from .aliasing import LIVE, Ref, ambiguous, join, objects_of, private_objects, signature
from .operators import join_type
from .scope import Scope
from .selection_values import escape, involved
from .sequences import ListValue
from .static_requirements import refusal


class ControlFlow:
    """The converter's `if`, `while` and counted `for` loops (see the module doc); of the
    rest of the converter it uses `conversion_context.StatementContext`."""

    def stmt_if(self, s):
        test = self.truth(self.expr(s.test), s.test)
        if isinstance(test, Const):
            self.block(s.body if test.value else s.orelse)
            return
        self.branch(test, s.orelse, s.body, expression=False)

    def ifexp(self, node):
        test = self.truth(self.expr(node.test), node.test)
        if isinstance(test, Const):
            return self.expr_ref(node.body if test.value else node.orelse)
        return self.branch(test, [node.orelse], [node.body], expression=True)

    def stmt_while(self, s):
        """A `while` equation. A loop lowered from `for` (normalize.py marks it) is unrolled
        when its body uses a Python list or tuple, or cannot be one loop (a variable changes
        shape from one iteration to the next), provided that its trip count is known when
        compiling and at most MAX_UNROLL; otherwise the refusal names the loop and why."""
        if not hasattr(s, "counter"):
            return self._loop(s, None)
        count = self.expr(s.trips)  # names only: nothing emitted
        count = tuple(known_values.constant(self.b, c) for c in count) \
            if isinstance(count, tuple) else known_values.constant(self.b, count)
        sizes = frozenset().union(*(entry_scalars(self.b, c) for c in (
            count if isinstance(count, tuple) else (count,)) if isinstance(c, Var)))
        if isinstance(count, tuple):  # (low, high): a Python int, which never overflows
            trips = max(count[1].value - count[0].value, 0) \
                if all(isinstance(c, Const) for c in count) else None
        else:
            trips = max(count.value, 0) if isinstance(count, Const) else None
        iterated = {sub.value.id for stmt in s.body if getattr(stmt, "loop_prefix", False)
                    for sub in gast.walk(stmt) if getattr(sub, "in_range", False)}
        if any(isinstance(self.scope.get(n), ListValue) and self.scope.get(n).runtime is None
               for n in iterated) or sequences.mutated(self, s.body):
            if (trips is None and not sizes or trips is not None and _beyond(trips)) and \
                    self._lists_at_run_time(s.body):  # the lists it changes hold numbers
                return self._loop(s, trips)  # (a trip count from int arguments: per value)
            return self.unroll(s, trips, "its body changes or iterates over a Python list", sizes)
        try:
            return self._loop(s, trips)
        except AdliteSyntaxError as e:
            if not getattr(e, "unrollable", False):
                raise
            if trips is None or _beyond(trips):  # the user's construct, at its line
                hint = "loop over a range(n) with n known when compiling (at most " \
                    f"{MAX_UNROLL}): such a loop is unrolled"
                error = AdliteSyntaxError(e.message, e.filename, e.line, e.col, e.source_line,
                                          f"{e.hint}; or {hint}" if e.hint else hint)
                if trips is None and sizes:  # compile once per value of the entry's sizes
                    raise NeedStatic(sizes, error) from None
                raise error from None
            return self.unroll(s, trips, e.message, sizes)

    def _lists_at_run_time(self, body) -> bool:
        """Can the lists `body` changes live in buffers (runtime_lists.py): lists of numbers
        of one type, changed in place and not rebound?"""
        rebound = _rebound(body)
        for name in runtime_lists.mutated_names(body) + rebound:
            value = self.scope.get(name) if name in self.scope else None
            if isinstance(value, ListValue) and (name in rebound or not (
                    value.runtime is not None or runtime_lists.convertible(value))):
                return False
        return True

    def unroll(self, s, trips: int | None, reason: str, sizes=frozenset()) -> None:
        """Run the body of the counted loop `s` once per trip. After a `break` (or return)
        with a run-time condition, the rest of each trip is guarded by the loop's flags (the
        hidden item fetch and counter step run unguarded). A trip count computed from the
        entry's int parameters `sizes` asks the API to compile once per value of them."""
        if trips is None or _beyond(trips):
            raise self._unroll_refusal(s, trips, reason, sizes)
        prefix = [stmt for stmt in s.body if getattr(stmt, "loop_prefix", False)]
        fetched = [t.id for stmt in prefix for t in gast.walk(stmt.targets[0])
                   if isinstance(t, gast.Name) and t.id.startswith("__item")]
        iterated = {sub.value.id: self.scope.get(sub.value.id) for stmt in prefix
                    for sub in gast.walk(stmt.value) if getattr(sub, "in_range", False)
                    and isinstance(self.scope.get(sub.value.id), ListValue)}
        lengths = {name: len(lst.items) for name, lst in iterated.items()}
        for _trip in range(trips + 1):
            if any(len(lst.items) != lengths[n] for n, lst in iterated.items()):
                raise self.source.error(s, "the loop changes the length of the list it "
                                           "iterates over", "iterate over a copy: "
                                                            "`for x in list(xs)`")
            flags = self._trip_flags(s)
            if flags is None:  # the loop has ended
                for name in fetched:  # hidden, read only by the body
                    self.scope.unbind(name)
                return
            if flags:
                self._guarded_trip(s, flags)
            else:
                self.block(s.body)

    def _unroll_refusal(self, s, trips: int | None, reason: str, sizes) -> Exception:
        """The error refusing to unroll loop `s`, or NeedStatic asking for one compilation
        per value of the entry's int parameters `sizes` its trip count is computed from."""
        count = "only known at run time" if trips is None or is_symbolic(trips) else \
            f"{trips} (more than {MAX_UNROLL})"
        error = refusal(self.source, s, "unroll", f"this loop must be unrolled when compiling "
                                                  f"({reason}) but its trip count is {count}")
        return NeedStatic(sizes, error) if trips is None and sizes else error

    def _trip_flags(self, s) -> list | None:
        """The parts of the test of unrolled loop `s` known only at run time at this trip (a
        break or return flag); None when a part is false when compiling (the loop ends)."""
        flags = []
        for part in _conjuncts(s.test):
            value = self.truth(self.expr(part), part)
            if isinstance(value, Const) and not value.value:
                return None
            if not isinstance(value, Const):
                flags.append(part)
        return flags

    def _guarded_trip(self, s, flags: list) -> None:
        """One trip of unrolled loop `s` whose statements run under an if on the run-time
        `flags` (the hidden item fetch and counter step run unguarded)."""
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
        """A `while` equation, in three steps: run the body until the carries' types and the
        loop head's objects and poisoned views are stable (`_run_body`); build its cond and
        body graphs (`_loop_graphs`); bind its results (`_bind_loop_results`). A list of
        numbers the body changes moves into a buffer first (runtime_lists.py), also when the
        change comes from a function the body calls (found by running it: then again)."""
        while True:
            try:
                return self._loop_once(s, trips)
            except runtime_lists.NeedsBuffer as signal:
                if not runtime_lists.owns(self.scope, signal.lst):
                    raise
                runtime_lists.convert(self, signal.lst)

    def _loop_once(self, s, trips: int | None):
        self._freeze_rebound_views(s.body)
        runtime_lists.blocks(self, [s.test, *s.body])  # lists the body changes
        loop = _Loop.enter(self.scope, _assigned(s.body) + runtime_lists.tokens(self.scope))
        for _attempt in range(MAX_LOOP_ATTEMPTS):
            if self._run_body(s, loop):
                break
        else:
            raise unrollable(self.source.error(s, "could not infer the types of the loop "
                                                   "variables"))
        statics = self._static_loop_values(s, loop.assigned, loop.entry, loop.body_env)
        graphs = self._loop_graphs(s, loop)
        if graphs is None:  # the test is false at entry
            return
        init = [self.to_type(self.scope.get(n), loop.carry_types[n]) if n in self.scope
                else self.placeholder(loop.carry_types[n]) for n in loop.reps]
        outs = self.b.emit("while", [self.scope.get(n) for n in loop.consts] + init,
                           **While.params(*graphs, len(loop.consts)))
        self._bind_loop_results(loop, init, outs, trips)
        for n, v in statics.items():  # bound only in the body (no trip: undefined)
            self.scope.rebind(n, v)
            self.scope.mark_maybe_undefined(n)
        self._follow_containers(loop.carried)

    def _run_body(self, s, loop: _Loop) -> bool:
        """Run the loop body once from the head that `loop` knows so far; True when the
        types, objects and poisoned views it leaves are those of the head (a fixed point)."""
        loop.head_refs = {**self.scope.objects(), **loop.amb}
        loop.head_poison = {**self.scope.poisoned(), **loop.extra_poison}
        loop.carried = [n for n in loop.assigned if n in loop.carry_types] + \
            [n for n in loop.carry_types if n not in loop.assigned]
        loop.consts = [n for n in self._operands([s.test, *s.body], loop.head_refs)
                       if n not in loop.carried]
        loop.c_in = [Var(self.scope.get(n).type, n) for n in loop.consts]
        loop.k_in, loop.reps = _carry_vars(loop.carried, loop.carry_types, loop.head_refs)
        undefined_inside = {n for n in loop.carried if n not in loop.defined_before}

        def run():
            for n in undefined_inside:
                self.scope.mark_maybe_undefined(n)
            self.block(s.body)
            for n in loop.assigned:
                if self.scope.get(n) is LIVE and loop.entry.get(n) is not LIVE:
                    self.freeze(n)

        loop.arm = self._sub(loop.names, loop.inputs, run, loop.head_refs, loop.head_poison)
        loop.body_env = loop.arm.scope.snapshot()
        start = {**loop.entry, **dict(zip(loop.names, loop.inputs, strict=True))}
        widened = self._widened(s, loop.carry_types, loop.assigned, loop.entry, start,
                                loop.body_env)
        new_amb, traded = _new_ambiguities(loop.head_refs, loop.arm.scope.objects(), loop.entry,
                                           loop.amb)
        if traded is not None:  # `u, u_new = u_new, u`: which is which is unobservable
            new_amb, loop.private = {}, loop.private | traded
        new_poison = {n: line for n, line in loop.arm.scope.poisoned().items()
                      if n in loop.entry and n not in loop.head_poison}
        if widened == loop.carry_types and not new_amb and not new_poison:
            return True
        loop.carry_types = widened
        loop.amb.update(new_amb)
        loop.extra_poison.update(new_poison)
        return False

    def _loop_graphs(self, s, loop: _Loop) -> tuple[Graph, Graph] | None:
        """The (cond, body) graphs of the loop; None when its test is false at entry."""
        body_b, body_env = loop.arm.b, loop.body_env
        body_out = [self.to_type(body_env[n], loop.carry_types[n], body_b) for n in loop.reps]
        c_vars = loop.c_in + [loop.k_in[n] for n in loop.reps]
        body = Graph(c_vars, body_b.eqns, body_out, "body")
        copies = {id(v): Var(v.type, v.hint) for v in c_vars}
        test, cond_b, _ = self._sub(loop.names, [copies[id(v)] for v in loop.inputs],
                                    lambda: self.truth(self.expr(s.test), s.test),
                                    loop.head_refs, loop.head_poison)
        if isinstance(test, Const) and not test.value:
            return None
        if isinstance(test, Const):
            raise self.source.error(s.test, "the loop condition is always true, so the loop "
                                            "never ends", "add a condition or a break")
        return Graph([copies[id(v)] for v in c_vars], cond_b.eqns, [test], "cond"), body

    def _bind_loop_results(self, loop: _Loop, init: list, outs: list, trips: int | None) -> None:
        """After the loop: the carried names hold its results (or their value at entry, when
        the body never changes them); maybe undefined unless bound before the loop or on
        every path of a body that runs; the objects and poisoned views are the head's."""
        by_rep = dict(zip(loop.reps, outs, strict=True))
        for n, value in zip(loop.reps, init, strict=True):
            if loop.body_env.get(n) is loop.k_in[n] and n in self.scope:  # never changed
                by_rep[n] = value  # (e.g. an argument array only rebound: not written)
        for name in loop.carried:
            var = by_rep[next(r for r in loop.reps if loop.k_in[r] is loop.k_in[name])]
            if isinstance(var, Var):
                var.hint = var.hint or name
            self.scope.rebind(name, var)
            if name not in loop.defined_before and not (trips and loop.arm.scope.defined(name)):
                self.scope.mark_maybe_undefined(name)
        for n, r in loop.amb.items():
            loop.head_refs[n] = ambiguous(r, loop.arm.scope.ref(n))
        self.scope.leave_loop(loop.head_refs, loop.head_poison, loop.arm.scope, loop.entry,
                              loop.private)

    def branch(self, test, else_nodes, then_nodes, expression: bool):
        """A `cond` equation (`_branch_once`); a list of numbers an arm changes moves into a
        buffer first, as in `_loop`."""
        while True:
            try:
                return self._branch_once(test, else_nodes, then_nodes, expression)
            except runtime_lists.NeedsBuffer as signal:
                if not runtime_lists.owns(self.scope, signal.lst):
                    raise
                runtime_lists.convert(self, signal.lst)

    def _branch_once(self, test, else_nodes, then_nodes, expression: bool):
        """In steps: run each arm on the names it reads (`_operands`); find the names the if
        may change (`_changed`), join their objects (`_join_refs`) and types
        (`_cond_outputs`, one output per object); bind the outputs, join the definedness and
        poisoned views of the arms' scopes; containers follow the writes."""
        nodes = list(else_nodes) + list(then_nodes)
        runtime_lists.blocks(self, nodes)  # lists the arms change
        names = self._operands(nodes)
        arms = []
        for arm_nodes in (else_nodes, then_nodes):
            inputs = [Var(self.scope.get(n).type, n) for n in names]
            run = (lambda ns=arm_nodes: self.expr_ref(ns[0])) if expression else \
                (lambda ns=arm_nodes: self.block(ns))
            start = {**self.scope.snapshot(), **dict(zip(names, inputs, strict=True))}
            arms.append((inputs, start, self._sub(names, inputs, run)))
        if expression:
            return self._branch_expression(test, names, nodes, arms)
        candidates = self._changed(nodes, arms)
        joined, live = self._join_refs(candidates, arms)
        outs, out_types, groups = self._cond_outputs(test, candidates, joined, live, arms,
                                                     nodes[0])
        graphs = []
        for inputs, _, arm in arms:
            values = [self.to_type(arm.scope.get(n), t, arm.b) if n in arm.scope
                      else self.placeholder(t, arm.b)
                      for n, t in zip(outs, out_types, strict=True)]
            graphs.append(Graph(inputs, arm.b.eqns, values, "arm"))
        results = self.b.emit("cond", [test] + [self.scope.get(n) for n in names],
                              branches=tuple(graphs))
        for name in candidates:
            if name in groups or name in live:
                self._bind_output(name, LIVE if name in live else results[groups[name]],
                                  joined[name], arms)
        self.scope.join_poisoned(arm.scope for _, _, arm in arms)
        self._follow_containers(candidates)
        return results

    def _cond_outputs(self, test, candidates: list[str], joined: dict, live: set, arms,
                      node) -> tuple[list[str], list, dict]:
        """(the names whose values are outputs of the `cond`, their joined types, {name or
        object key: its output's position}): one output per object the arms bind; names
        holding compile-time values (`_join_static`) or live views are no outputs."""
        outs, out_types, groups = [], [], {}
        for name in candidates:
            if name in live or self._join_static(name, arms, node):
                continue
            vals = [arm.scope.get(name) for _, _, arm in arms]
            if any(v is not None and not isinstance(v, Var | Const) for v in vals):
                raise self.source.error(node, f"{name!r} holds a tuple, which cannot cross "
                                              "an if", "unpack it into separate variables")
            present = [v for v in vals if v is not None]
            if not present:
                continue
            try:
                t = present[0].type if len(present) == 1 else join_type(present[0].type,
                                                                        present[1].type)
            except TypeError as e:
                error = self.source.error(node, f"{name!r}: {e} in the two branches")
                flags = entry_scalars(self.b, test) if isinstance(test, Var) else None
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
        return outs, out_types, groups

    def _changed(self, nodes, arms) -> list[str]:
        """The names an if may change: those its arms assign, and those holding another value
        or object at the end of an arm (e.g. aliases of an array an arm writes)."""
        candidates = _assigned(nodes)
        for n, value in self.scope.snapshot().items():
            ref = self.scope.ref(n)
            if n in candidates or isinstance(value, tuple | dict | ListValue) and all(
                    arm.scope.ref(n) == ref for _, _, arm in arms):
                continue  # containers follow the arrays the arms write (_follow_containers)
            if any(arm.scope.get(n) is not start.get(n) or arm.scope.ref(n) != ref
                   for _, start, arm in arms):
                candidates.append(n)
        return candidates

    def _join_refs(self, candidates: list[str], arms) -> tuple[dict, set]:
        """({name: its object after the if}, the names that stay live views of one object):
        the other live views an arm leaves are read at its end."""
        old = objects_of(self.scope.objects().values())
        pairs: dict = {}
        joined, live = {}, set()
        for name in candidates:
            rs = [arm.scope.ref(name) for _, _, arm in arms]
            present = [r for (_, _, arm), r in zip(arms, rs, strict=True) if name in arm.scope]
            joined[name] = join(*rs, old, pairs) if len(present) == 2 else \
                (present[0] if present else None)
            if all(arm.scope.get(name) is LIVE for _, _, arm in arms) and rs[0] == rs[1]:
                live.add(name)
                continue
            for _, _, arm in arms:
                if arm.scope.get(name) is LIVE:
                    arm.scope.rebind(name, self._arm_view(arm, arm.scope.ref(name)))
        renamed = {o: new for key, new in pairs.items() if isinstance(key, tuple) for o in key}
        for name, r in joined.items():  # views of objects made in the arms see the joined one
            if isinstance(r, Ref) and r.objects() & renamed.keys():
                joined[name] = Ref(r.obj, r.view, r.frozen,
                                   r.maybe | {renamed[o] for o in r.objects() if o in renamed})
        return joined, live

    def _bind_output(self, name: str, value, ref, arms) -> None:
        """After an if: `name` holds `value` (an output of its `cond`, or LIVE) and the
        object `ref`; it is defined when every arm binds it, or was bound before."""
        if value is not LIVE:
            value.hint = value.hint or name
        self.scope.join_defined(name, [arm.scope for _, _, arm in arms])
        self.scope.rebind(name, value, ref if isinstance(ref, Ref | tuple) else None)

    def _branch_expression(self, test, names, nodes, arms):
        for _, start, arm in arms:
            if any(arm.scope.get(n) is not v for n, v in start.items()):
                raise self.source.error(nodes[0], "a conditional expression that writes into "
                                                  "an array", "use an if statement")
        values = [self.value(arm.result[0], nodes[0]) for _, _, arm in arms]
        try:
            t = join_type(values[0].type, values[1].type)
        except TypeError as e:
            raise self.source.error(nodes[0], f"conditional expression: {e}") from None
        graphs = [Graph(inp, arm.b.eqns, [self.to_type(v, t, arm.b)], "arm")
                  for (inp, _, arm), v in zip(arms, values, strict=True)]
        (out,) = self.b.emit("cond", [test] + [self.scope.get(n) for n in names],
                             branches=tuple(graphs))
        r0, r1 = (arm.result[1] for _, _, arm in arms)
        return out, (r0 if r0 == r1 else ambiguous(r0, r1) if r0 or r1 else None)

    def _join_static(self, name: str, arms, node) -> bool:
        """A compile-time value after an if: one value, the same on every path that binds it
        (no run-time choice). False when `name` holds numbers or arrays."""
        present = [arm.scope.get(name) for _, _, arm in arms if name in arm.scope]
        if not any(static_values.is_static(v) for v in present):
            return False
        if len(present) == 2 and not static_values.same(*present):
            if involved(present):
                raise escape(self, involved(present), node, "an `if` binding "
                             f"{_shown(name)} to different selections on its paths")
            then, other = (static_values.describe(v) for v in reversed(present))
            raise refusal(self.source, node, "object",
                          f"{_shown(name)} is a compile-time value bound differently on the two "
                          f"paths ({then} and {other})",
                          "bind it to the same value on both paths, or choose with numbers")
        self.scope.join_defined(name, [arm.scope for _, _, arm in arms])
        if self.scope.get(name) is not present[0] or name not in self.scope:
            self.scope.rebind(name, closures.after_block(self, present[0], self.scope.snapshot(),
                                                         self.line(node)))
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
                if involved(values):
                    raise unrollable(escape(self, involved(values), s,
                                            f"a loop rebinding {_shown(n)}"))
                before, inside = (static_values.describe(v) for v in values)
                raise refusal(self.source, s, "object",
                              f"{_shown(n)} is a compile-time value that the loop body binds "
                              f"differently ({before} before the loop, {inside} in it)",
                              "bind it before the loop only, or choose with numbers")
            if n not in entry:
                out[n] = closures.after_block(self, values[-1], entry, self.line(s))
        return out

    def _freeze_rebound_views(self, stmts) -> None:
        """Live views that a loop body rebinds, or whose base's names it all rebinds, keep
        their value at loop entry (frozen)."""
        rebound = set(_rebound(stmts))
        for n, ref in self.scope.objects().items():
            if self.scope.get(n) is not LIVE:
                continue
            bases = [m for m, r in self.scope.objects().items()
                     if isinstance(r, Ref) and r.plain and r.obj == ref.obj]
            if n in rebound or all(m in rebound for m in bases):
                self.freeze(n)

    def _widened(self, s, carry_types: dict, assigned: list[str], entry: dict, start: dict,
                 body_env: dict) -> dict:
        """The carries' types joined with those the body leaves (a name the body changes
        becomes a carry); a carry that changes shape is refused (unrollable)."""
        widened = dict(carry_types)
        changed = [n for n in entry if n not in widened and isinstance(entry[n], Var | Const)
                   and body_env.get(n) is not start[n]]
        for n in assigned + changed:
            if n in body_env and isinstance(body_env[n], Var | Const):
                t = body_env[n].type
                try:
                    widened[n] = t if n not in widened else join_type(widened[n], t)
                except TypeError as e:
                    raise unrollable(self.source.error(s, f"loop variable {n!r}: {e}")) \
                        from None
        return widened

    def _follow_containers(self, rebound: list[str]) -> None:
        """After an if or a loop: tuples and lists holding an array object that the block
        wrote (through the rebound names) hold its new value."""
        line = self.b.loc or 0
        for name in rebound:
            ref, value = self.scope.ref(name), self.scope.get(name)
            if isinstance(ref, Ref) and ref.plain and isinstance(value, Var):
                for n, r in self.scope.objects().items():
                    if isinstance(r, tuple):
                        self.scope.rebind(n, self.store_tuple(self.scope.get(n), r, ref.obj,
                                                               value, n, line))
                sequences.store_items(self, ref.obj, value, line)

    def _operands(self, nodes, refs: dict | None = None) -> list[str]:
        """Names whose current values the nodes read, may keep or may write through an alias
        (closed subgraph inputs); live views are read through their base's names."""
        refs = self.scope.objects() if refs is None else refs
        names = []
        for n in nodes:
            for sub in gast.walk(n):
                if isinstance(sub, gast.Name) and sub.id in self.scope and sub.id not in names:
                    names.append(sub.id)
        closures.operands(self, names, refs, nodes[0])  # what the closures they hold read
        names += [t for t in runtime_lists.tokens(self.scope) if t not in names]
        assigned = _assigned(nodes)
        for name in [n for n in names if isinstance(self.scope.get(n), ListValue)]:
            lst = self.scope.get(name)
            if lst.runtime is not None:  # its length is a block operand (`tokens`); a name
                continue  # rebound to another list is joined as a compile-time value is
            if name in assigned and runtime_lists.convertible(lst) and not lst.crossing:
                raise runtime_lists.NeedsBuffer(lst)  # `xs = f(xs)`: f may append to it
            if name in assigned:
                raise sequences.crossing_error(self, name, nodes[0])
            names += sequences.leaf_operands(self, name)  # read through a read-only copy
        for name in [n for n in names if isinstance(self.scope.get(n), tuple | dict)
                     and sequences.has_runtime_leaves(self.scope.get(n))]:
            if name in assigned:  # a counted loop unrolled rebinds it once per trip
                kind = "tuple" if isinstance(self.scope.get(name), tuple) else "dict"
                raise unrollable(refusal(
                    self.source, nodes[0], "list-change", f"{name!r} holds a {kind} of run-time "
                    "values, which is rebound inside an if or a loop",
                    "unpack it into separate variables"))
            names += sequences.leaf_operands(self, name)  # read through a read-only copy
        objs = objects_of(refs.get(n) for n in names)
        names += [n for n, r in refs.items() if n not in names and n in self.scope
                  and isinstance(r, Ref) and r.objects() & objs]
        return [n for n in names if isinstance(self.scope.get(n), Var)]

    def _sub(self, names: list[str], inputs: list[Var], run, refs=None, poisoned=None):
        """Run `run()` with a fresh builder and the given names bound to `inputs`."""
        saved = self.b, self.scope
        self.b = Builder(saved[0].loc)
        self.scope = self.scope.enter(dict(zip(names, inputs, strict=True)), refs, poisoned)
        lists = sequences.read_only_copies(self.scope, names)
        try:
            result = run()
            for name, value in lists.items():
                self.scope.rebind(name, value)
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


MAX_LOOP_ATTEMPTS = 8
MAX_UNROLL = 1000  # trips of a `for` loop unrolled when compiling


def _beyond(trips) -> bool:
    """A trip count too large to unroll: over MAX_UNROLL, or a run-time size (`ir.dims`)."""
    return is_symbolic(trips) or trips > MAX_UNROLL


ENTRY_SCALARS: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "entry_scalars", default=None)


class _Arm(NamedTuple):
    """What running a block in a fresh builder left: its result, builder and state."""
    result: object
    b: Builder
    scope: Scope


@dataclass
class _Loop:
    """What the conversion of a `while` loop knows: at entry (`enter`), then after each run
    of its body (`ControlFlow._run_body`), what its head holds and what the body left."""
    assigned: list[str]  # the names the body binds (see _assigned)
    entry: dict  # the scope's values before the loop
    defined_before: set[str]
    carry_types: dict  # carried name -> its type, widened until the body keeps it
    amb: dict = field(default_factory=dict)  # names whose object changes between iterations
    private: frozenset = frozenset()  # objects only traded among names by the body
    extra_poison: dict = field(default_factory=dict)  # views the body poisons
    head_refs: dict = field(default_factory=dict)  # the objects at the loop head
    head_poison: dict = field(default_factory=dict)  # the poisoned views at the loop head
    carried: list[str] = field(default_factory=list)
    consts: list[str] = field(default_factory=list)  # the operands the body does not change
    c_in: list[Var] = field(default_factory=list)  # their input vars
    k_in: dict = field(default_factory=dict)  # carried name -> its input var (one per object)
    reps: list[str] = field(default_factory=list)  # a name per carry
    arm: _Arm | None = None  # what the last run of the body left
    body_env: dict = field(default_factory=dict)  # the values it left

    @classmethod
    def enter(cls, scope: Scope, assigned: list[str]) -> _Loop:
        """At entry: the carries are the assigned names and their aliases (bound to an
        object that a write through an assigned name changes) holding numbers or arrays."""
        entry = scope.snapshot()
        written = objects_of(scope.ref(n) for n in assigned)
        aliases = [n for n, r in scope.objects().items() if isinstance(r, Ref) and r.plain
                   and r.obj in written]
        return cls(assigned, entry, {n for n in entry if scope.defined(n)},
                   {n: entry[n].type for n in assigned + aliases
                    if isinstance(entry.get(n), Var | Const)})

    @property
    def names(self) -> list[str]:
        """The names bound to the inputs of the cond and body graphs."""
        return self.consts + self.carried

    @property
    def inputs(self) -> list[Var]:
        """The input vars of the cond and body graphs, in the order of `names`."""
        return self.c_in + [self.k_in[n] for n in self.carried]


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


def _new_ambiguities(head_refs: dict, body_refs: dict, entry: dict, amb: dict):
    """The names bound before a loop (and not yet in `amb`) whose object differs after its
    body, as {name: ambiguous Ref}, and the objects the body only trades among them
    (`aliasing.private_objects`; None when it does more)."""
    old = objects_of(head_refs.values())
    known = {n for n in head_refs if n in entry}
    new_amb = {n: ambiguous(r, body_refs.get(n)) for n, r in head_refs.items()
               if n in known and n not in amb and isinstance(r, Ref)
               and signature(n, head_refs, old, known) !=
               (signature(n, body_refs, old, known) if isinstance(body_refs.get(n), Ref)
                else None)}
    return new_amb, private_objects(set(new_amb), head_refs, body_refs, known, old)


def _shown(name: str) -> str:
    """A variable as the user knows it (early returns store their value in hidden names)."""
    return "the returned value" if name.startswith("__rv") else repr(name)


def unrollable(error: AdliteSyntaxError) -> AdliteSyntaxError:
    """Mark a refusal of a `while` equation that unrolling a counted loop avoids."""
    error.unrollable = True
    return error


def _conjuncts(test) -> list:
    if isinstance(test, gast.BoolOp) and isinstance(test.op, gast.And):
        return list(test.values)
    return [test]


def _rebound(nodes) -> list[str]:
    return [sub.id for n in nodes for sub in gast.walk(n)
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Store)]


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


def entry_scalars(b: Builder, value: Var) -> frozenset[str]:
    """The entry function's runtime int, bool and float parameters `value` is computed from in
    builder `b`: the entry's own input vars, or inputs of the if/loop body being built named
    like one."""
    scalars = ENTRY_SCALARS.get() or {}
    names = set(scalars.values())
    defining = producers(b.eqns)
    found, seen, todo = set(), set(), [value]
    while todo:
        v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        eqn = defining.get(id(v))
        if eqn is not None:
            todo += [a for a in eqn.inputs if isinstance(a, Var)]
        elif v in scalars:
            found.add(scalars[v])
        elif v.type in (I64, BOOL, F64) and v.hint in names:
            found.add(v.hint)
    return frozenset(found)
