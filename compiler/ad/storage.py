"""What the forward loop of a reverse-mode `while` stores on the tape per iteration, and how the
reverse loop gets every other value its body's backward equations read.

Contract: `plan_storage(lin, n)`, for the linearized body `lin` of a `while` with `n` consts
(`lin.fwd: consts + carries -> new carries + residuals`), sorts each residual into one kind:
- const: a const of the loop, read directly;
- invariant: computed from the consts alone by pure equations (no effect, no tape traffic):
  the backward sweep computes it once, before the reverse loop and only when the forward loop
  ran (`hoist`), and the reverse loop reads it as a const;
- counter: an int carry advanced by a loop-invariant step (`i + c`, `i - c`): the reverse
  loop recovers it from the value the next iteration started with (exact in int arithmetic);
- chained: a carry's new value, when the carry's old value is available in reverse (stored
  or a counter): it is the value the next iteration started with, which the reverse loop got
  in its previous iteration (the loop's result in its first one);
- recomputed: computed by a cheap equation (the table's `cost`: a few scalar operations, or one
  elementwise operation for an array, slices by constants free) from values available in
  reverse: the reverse loop computes it again (bit for bit the same value);
- stored: the rest, each value once (`Storage.stored`, in store order). An array carry is
  stored even when no derivative reads it, when that lets the arrays made from it be
  recomputed for at most an eighth more bytes (`_worth`): pushing the carry costs a pointer,
  where a residual of its own is a pass of the forward loop.
The reverse loop carries, per chained or counter carry, the value the next iteration started
with (`Storage.next_carries`); `Storage.reverse_values` emits the loads and recomputations
of one reverse iteration. `tape_bytes_per_iteration(graph)` measures the result: the bytes
each loop of a graph stores per iteration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

from ..ir.builder import Builder
from ..ir.core import BOOL, Atom, Const, Eqn, Graph, Type, Var, walk_eqns
from ..ir.dims import is_symbolic
from ..ir.index import has_runtime_index
from ..ir.primitive import ARITHMETIC, PRIMITIVES
from ..ir.transform import clone, inline

# scalar equations cheaper to run again than a store and a load: the table's `cost`, and int
# `//` and `%` by a constant (the division becomes a multiplication); arrays: ARITHMETIC only
BY_CONSTANT = {"mod", "floordiv"}
SCALAR_BUDGET = 6  # equations run again for one scalar value, at most
CHECKPOINT_LOOPS = "checkpoint_"  # names the bodies of the loops `checkpoint` adds start with


def _pure(eqn: Eqn) -> bool:
    """Equations that compute a value and nothing else: no effect, no tape traffic."""
    return not PRIMITIVES[eqn.prim].effectful and not any(
        e.prim in ("push", "pop") or PRIMITIVES[e.prim].effectful
        for sub in eqn.subgraphs() for e in walk_eqns(sub))


def _step(eqn: Eqn | None, carry: Var, loop_consts: set[int]) -> tuple[str, Atom] | None:
    """(`add` or `sub`, c) when `eqn` computes `carry + c` or `carry - c` (ints) with c loop
    invariant; the inverse operation recovers `carry` from the result."""
    if eqn is None or carry.type.is_float or carry.type.is_array or \
            eqn.prim not in ("add", "sub"):
        return None
    x, y = eqn.inputs
    invariant = {id(a) for a in (x, y) if isinstance(a, Const) or id(a) in loop_consts}
    if x is carry and id(y) in invariant:
        return ("sub" if eqn.prim == "add" else "add", y)
    if eqn.prim == "add" and y is carry and id(x) in invariant:
        return ("sub", x)
    return None


@dataclass
class Storage:
    """How each residual of a loop body reaches the reverse loop (see the module)."""

    lin_inputs: list[Var]
    n: int
    stored: list[Var] = field(default_factory=list)
    invariant: list[Var] = field(default_factory=list)
    hoisted_eqns: list[Eqn] = field(default_factory=list)
    # carry position -> ("chain", None) or (inverse op, step): see `next_carries`
    next_carries: dict[int, tuple[str, Atom | None]] = field(default_factory=dict)
    chained: dict[int, int] = field(default_factory=dict)  # residual id -> carry position
    recomputed: list[Eqn] = field(default_factory=list)

    def hoist(self, b: Builder, ran: Atom, consts: list[Atom]) -> list[Atom]:
        """The invariant residuals, computed from the loop's `consts` by `b` when `ran` (the
        forward loop ran at least once, so they raise nothing it did not), else placeholders."""
        if not self.invariant:
            return []
        taken = clone(Graph(self.lin_inputs[:self.n], self.hoisted_eqns, self.invariant,
                            "invariants"))
        zb = Builder(b.loc)
        untaken = Graph([Var(v.type, v.hint) for v in taken.inputs], zb.eqns,
                        [_placeholder(zb, v.type) for v in self.invariant], "invariants")
        values = b.emit("cond", [ran] + list(consts), branches=(untaken, taken))
        for value, v in zip(values, self.invariant, strict=True):
            value.hint = v.hint
        return values

    def reverse_values(self, b: Builder, consts: list[Atom], hoisted: list[Atom],
                       nexts: dict[int, Atom], tape: int) -> tuple[dict[int, Atom], dict]:
        """Emit, at the start of a reverse iteration, the loads of the stored values (in reverse
        store order) and the recomputations. `nexts`: carry position -> the value that carry
        had when the next forward iteration started. Returns (lin var id -> its value, carry
        position -> the value that carry had when this iteration started)."""
        env: dict[int, Atom] = {id(v): a for v, a in zip(self.lin_inputs, consts, strict=False)}
        env.update((id(v), a) for v, a in zip(self.invariant, hoisted, strict=True))
        for r in reversed(self.stored):
            env[id(r)] = b.op("pop", type=r.type, hint=r.hint, tape=tape)
        carries = self.lin_inputs[self.n:]
        for j, (op, step) in self.next_carries.items():
            if op != "chain":
                step = step if isinstance(step, Const) else env[id(step)]
                env[id(carries[j])] = b.op(op, nexts[j], step, hint=carries[j].hint)
        for rid, j in self.chained.items():
            env[rid] = nexts[j]
        for eqn in self.recomputed:
            outs = b.emit(eqn.prim, [a if isinstance(a, Const) else env[id(a)]
                                     for a in eqn.inputs], eqn.outputs[0].hint, **eqn.params)
            env.update((id(o), v) for o, v in zip(eqn.outputs, outs, strict=True))
        starts = {j: env[id(carries[j])] for j in self.next_carries}
        return env, starts


def _zero(t: Type):
    return False if t.dtype == BOOL.dtype else 0.0 if t.is_float else 0


def _placeholder(b: Builder, t: Type) -> Atom:
    """A value of type `t` (zero) for a branch whose values are never read."""
    if not t.is_array:
        return Const(_zero(t), t)
    return b.full(Const(_zero(t), t.scalar), shape=t.shape, dtype=t.scalar)


def _budget(eqn: Eqn) -> int:
    return 1 if eqn.outputs[0].type.is_array else SCALAR_BUDGET


def _view(eqn: Eqn) -> bool:
    """A slice of an array by constants: a view, which costs nothing to take again (the
    backends read through it)."""
    return eqn.prim == "index" and eqn.outputs[0].type.is_array and \
        not has_runtime_index(eqn.params["spec"])


def _worth(trial: list[Var], base: list[Var]) -> bool:
    """Whether storing `trial` (with a carry's old value) beats storing `base`: at most an
    eighth more bytes. A carry is a buffer the forward loop makes anyway (pushing it costs a
    pointer), where a residual array of its own is computed into a buffer of its own; so a
    little more memory for fewer passes. Sizes known only at run time: not worth it."""
    sizes = [sum(stored_bytes(v.type) for v in {id(v): v for v in vs}.values())
             for vs in (trial, base)]
    if any(is_symbolic(size) for size in sizes):
        return False
    return sizes[0] <= sizes[1] + sizes[1] // 8


def _cheap(eqn: Eqn) -> bool:
    if len(eqn.outputs) != 1 or eqn.subgraphs() or not _pure(eqn):
        return False
    cost = PRIMITIVES[eqn.prim].cost
    if eqn.outputs[0].type.is_array:
        return cost == ARITHMETIC or _view(eqn)
    return cost != 0 or eqn.prim in BY_CONSTANT and \
        isinstance(eqn.inputs[1], Const) and not eqn.outputs[0].type.is_float


def plan_storage(lin, n: int) -> Storage:
    """Sort the residuals of the linearized loop body `lin` (`n` consts; see the module)."""
    g: Graph = lin.fwd
    inputs = g.inputs
    carries = inputs[n:]
    new_values = g.outputs[:len(g.outputs) - len(lin.residuals)]
    residual = {id(r) for r in lin.residuals}

    invariant = {id(v) for v in inputs[:n]}
    defining: dict[int, Eqn] = {}
    for eqn in g.eqns:
        defining.update((id(o), eqn) for o in eqn.outputs)
        if _pure(eqn) and all(isinstance(a, Const) or id(a) in invariant for a in eqn.inputs):
            invariant.update(id(o) for o in eqn.outputs)

    # values available in reverse -> the equations run again to get them
    cost: dict[int, frozenset] = dict.fromkeys(invariant, frozenset())
    counters = {}
    for j, (carry, new) in enumerate(zip(carries, new_values, strict=True)):
        step = _step(defining.get(id(new)) if isinstance(new, Var) else None, carry, invariant)
        if step is not None:
            counters[j] = step
            cost[id(carry)] = frozenset()
    stored = [carry for carry in carries if id(carry) in residual and id(carry) not in cost]
    sort = _Sort(g, carries, new_values, residual, invariant, defining)
    sorted_ = sort(cost, stored)
    for carry in carries:  # a carry whose old value gives residual arrays again, stored
        if id(carry) not in cost and not any(carry is v for v in stored) and \
                carry.type.is_array and carry.type.is_float:
            trial = sort(cost, stored + [carry])
            if _worth(trial[0], sorted_[0]):
                stored, sorted_ = stored + [carry], trial
    s = Storage(list(inputs), n)
    s.stored, s.chained, cost, recomputable = sorted_
    wanted = [r for r in lin.residuals if id(r) not in invariant and id(r) not in s.chained
              and not any(r is v for v in s.stored) and not any(r is c for c in carries)]
    s.recomputed = _needed(recomputable, wanted)
    read = {id(a) for e in s.recomputed for a in e.inputs} | residual
    s.next_carries = {j: step for j, step in counters.items() if id(carries[j]) in read or
                      j in s.chained.values()}
    s.next_carries.update((j, ("chain", None)) for j in s.chained.values()
                          if j not in counters)
    uses = [a for e in s.recomputed for a in e.inputs] + \
        [step for op, step in s.next_carries.values() if op != "chain"]
    hoisted = {id(a) for a in uses if isinstance(a, Var)} | residual
    s.invariant = [v for e in g.eqns for v in e.outputs
                   if id(v) in invariant and id(v) in hoisted]
    s.hoisted_eqns = _needed(g.eqns, s.invariant)
    return s


@dataclass
class _Sort:
    """The body's residuals sorted for a choice of stored carries: `(stored, chained, cost,
    recomputable)` (see `plan_storage`)."""

    g: Graph
    carries: list[Var]
    new_values: list[Atom]
    residual: set[int]
    invariant: set[int]
    defining: dict[int, Eqn]

    def __post_init__(self) -> None:
        self.new_of = {id(v): j for j, v in enumerate(self.new_values)
                       if isinstance(v, Var) and id(v) in self.defining}
        self.views = {id(e) for e in self.g.eqns if _view(e)}

    def __call__(self, available: dict, stored_carries: list[Var]) -> tuple:
        cost = dict(available)
        cost.update((id(c), frozenset()) for c in stored_carries)
        stored, chained, recomputable = list(stored_carries), {}, []
        carries, residual, new_of, views = self.carries, self.residual, self.new_of, self.views
        for eqn in self.g.eqns:
            if all(id(o) in self.invariant for o in eqn.outputs):
                continue
            chain = [new_of.get(id(o)) for o in eqn.outputs]
            chain = [j if j is not None and id(o) in residual and id(carries[j]) in cost
                     else None for o, j in zip(eqn.outputs, chain, strict=True)]
            ins = [a for a in eqn.inputs if isinstance(a, Var)]
            if chain == [None] and _cheap(eqn) and all(id(a) in cost for a in ins):
                needs = frozenset({id(eqn)}).union(*(cost[id(a)] for a in ins))
                if len(needs - views) <= _budget(eqn):
                    cost[id(eqn.outputs[0])] = needs
                    recomputable.append(eqn)
                    continue
            for o, j in zip(eqn.outputs, chain, strict=True):
                if j is not None:
                    chained[id(o)] = j
                elif id(o) in residual:
                    stored.append(o)
                else:
                    continue
                cost[id(o)] = frozenset()
        return stored, chained, cost, recomputable


def _needed(eqns: list[Eqn], targets: list[Var]) -> list[Eqn]:
    """The equations among `eqns` (in order) that `targets` depend on."""
    want = {id(t) for t in targets}
    kept = []
    for eqn in reversed(eqns):
        if any(id(o) in want for o in eqn.outputs):
            kept.append(eqn)
            want.update(id(a) for a in eqn.inputs if isinstance(a, Var))
    return kept[::-1]


def forward_body(lin, storage: Storage, b: Builder, inputs: list[Var], tape: int) -> list[Atom]:
    """The linearized body inlined into `b` on `inputs`, storing `storage.stored` (each atom
    once); returns the new carries."""
    results = inline(b, lin.fwd, inputs)
    n_out = len(results) - len(lin.residuals)
    value_of = {id(v): a for v, a in zip(lin.fwd.inputs, inputs, strict=True)}  # carries
    value_of.update((id(r), a) for r, a in zip(lin.residuals, results[n_out:], strict=True))
    seen: set[int] = set()
    for r in storage.stored:
        atom = value_of[id(r)]
        if id(atom) not in seen:
            seen.add(id(atom))
            b.emit("push", [atom], tape=tape)
    return results[:n_out]


def stored_bytes(t: Type) -> int:
    """Bytes one store of a value of type `t` keeps: an 8-byte tape slot (f32, ints and bools
    are widened to it; an array's slot holds its pointer) plus an array's buffer."""
    return 8 + (t.dtype.itemsize * prod(t.shape) if t.is_array else 0)


def tape_bytes_per_iteration(graph: Graph) -> list[int]:
    """For each `while` of `graph` (at any depth, in program order) that stores values on the
    tape, the bytes one of its iterations stores itself (not counting the loops it contains);
    checkpointing's own loops (snapshots, recomputation) and the loops in them are not
    counted."""
    found = []
    for eqn in graph.eqns:
        if eqn.prim == "while" and eqn.params["body"].name.startswith(CHECKPOINT_LOOPS):
            continue
        if eqn.prim == "while":
            found += [own for own in [_own_bytes(eqn.params["body"])] if own]
        for sub in eqn.subgraphs():
            found += tape_bytes_per_iteration(sub)
    return found


def _own_bytes(body: Graph) -> int:
    """Bytes `body` stores, its branches included (the larger arm), its loops not."""
    total = 0
    for eqn in body.eqns:
        if eqn.prim == "push":
            total += stored_bytes(eqn.inputs[0].type)
        elif eqn.prim == "cond":
            total += max(_own_bytes(arm) for arm in eqn.params["branches"])
    return total
