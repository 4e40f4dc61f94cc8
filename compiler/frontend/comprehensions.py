"""List comprehensions and generator expressions -> loops that the rest of the frontend knows.

Contract: `hoist(stmt, fresh, source)` rewrites, in place, the comprehensions that statement
`stmt` evaluates (not those of the statements nested in its body) into hidden names, and
returns the statements that compute them, to run just before `stmt`:
- `[elt for t1 in it1 if c1 for t2 in it2 ...]` (and a generator expression anywhere else)
  becomes `__lcN = []` then nested `for`/`if` statements ending in `__lcN.append(elt)`;
- `{key: value for ...}` becomes `__dcN = {}` then the loops ending in
  `__dcN = __dict_with(__dcN, key, value)` (string keys, as compiled code's dicts have);
- `sum(elt for ... )` becomes `__sumN = 0` then the loops ending in `__sumN = __sumN + elt`
  (no list: a loop over the rows of an array stays a loop);
- the comprehension's own variables are renamed to hidden names, so they do not leak into
  the function's variables (Python 3 gives a comprehension its own scope).
A comprehension in a `while` condition, in a conditional expression or `and`/`or` (evaluated
only on some paths), or in a lambda is refused with an `AdliteSyntaxError`.
"""

from __future__ import annotations

import gast

from .. import gast_adapter as g

COMPREHENSIONS = (gast.ListComp, gast.GeneratorExp, gast.DictComp)
DICT_WITH = "__dict_with"  # the hidden function adding an item to a dict (normalize.py)


def hoist(stmt, fresh, source) -> list:
    """The statements computing the comprehensions `stmt` evaluates (now hidden names)."""
    if isinstance(stmt, gast.While):
        _refuse_inside(stmt.test, source, "a while condition",
                       "compute the list before the loop and at the end of its body")
        return []
    hoister = _Hoister(fresh, source)
    if isinstance(stmt, gast.If):
        stmt.test = hoister.visit(stmt.test)
    elif isinstance(stmt, gast.For):
        stmt.iter = hoister.visit(stmt.iter)
    elif not isinstance(stmt, gast.FunctionDef | gast.ClassDef):
        hoister.visit(stmt)
    return hoister.before


def _refuse_inside(node, source, where: str, hint: str) -> None:
    for sub in gast.walk(node):
        if isinstance(sub, COMPREHENSIONS):
            raise source.error(sub, f"unsupported construct: a comprehension in {where}", hint)


class _Hoister(gast.NodeTransformer):
    def __init__(self, fresh, source) -> None:
        self.fresh, self.source, self.before = fresh, source, []

    def visit_Lambda(self, node):
        return node  # its body runs when called (not supported here; refused elsewhere)

    def visit_SetComp(self, node):
        return node  # refused whole by the converter (nothing hoisted out of its scope)

    def visit_IfExp(self, node):
        for part in (node.body, node.orelse):
            _refuse_inside(part, self.source, "a conditional expression",
                           "compute the list in a separate statement before")
        node.test = self.visit(node.test)
        return node

    def visit_BoolOp(self, node):
        for part in node.values[1:]:
            _refuse_inside(part, self.source, "an `and`/`or` operand",
                           "compute the list in a separate statement before")
        node.values[0] = self.visit(node.values[0])
        return node

    def visit_Call(self, node):
        if isinstance(node.func, gast.Name) and node.func.id == "sum" and not node.keywords \
                and len(node.args) == 1 and isinstance(node.args[0], gast.GeneratorExp):
            total = self.fresh("sum")
            comp = node.args[0]
            self.before.append(g.assign(total, g.const(0, at=node), at=node))
            add = g.binop(g.name(total, at=comp), gast.Add(), comp.elt, at=comp)
            self.before.extend(self.loops(comp, g.assign(total, add, at=comp)))
            return g.name(total, at=node)
        return self.generic_visit(node)

    def visit_ListComp(self, node):
        result = self.fresh("lc")
        self.before.append(g.assign(result, g.list_([], at=node), at=node))
        self.before.extend(self.loops(node, g.method_call(result, "append", [node.elt],
                                                          at=node.elt)))
        return g.name(result, at=node)

    visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        """`{k: v for ...}`: `__dcN = {}`, then the loops rebinding it to a copy with the
        item added (a new dict no other name sees)."""
        result = self.fresh("dc")
        self.before.append(g.assign(result, g.dict_([], [], at=node), at=node))
        added = g.call(DICT_WITH, [g.name(result, at=node), node.key, node.value], at=node)
        self.before.extend(self.loops(node, g.assign(result, added, at=node)))
        return g.name(result, at=node)

    def loops(self, comp, innermost) -> list:
        """The nested for/if statements of `comp`'s generators around `innermost`, its own
        variables renamed to hidden names (the first iterable is evaluated outside)."""
        for gen in comp.generators:
            if getattr(gen, "is_async", 0):
                raise self.source.error(comp, "unsupported construct: async comprehension")
        renamed = {}
        for gen in comp.generators:
            for sub in gast.walk(gen.target):
                if isinstance(sub, gast.Name):
                    renamed.setdefault(sub.id, self.fresh("c_" + sub.id))
        scoped = [innermost] + [gen.target for gen in comp.generators] + \
            [c for gen in comp.generators for c in gen.ifs] + \
            [gen.iter for gen in comp.generators[1:]]
        for node in scoped:
            for sub in gast.walk(node):
                if isinstance(sub, gast.Name) and sub.id in renamed:
                    sub.id = renamed[sub.id]
        body = [innermost]
        for gen in reversed(comp.generators):
            if gen.ifs:
                body = [g.if_(g.and_(*gen.ifs, at=gen.ifs[0]), body, at=gen.ifs[0])]
            body = [g.for_(gen.target, gen.iter, body, at=comp)]
            body[0].origin = "list comprehension" if isinstance(comp, gast.ListComp) \
                else "generator expression"
        return body
