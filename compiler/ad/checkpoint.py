"""Checkpointed reverse mode of `while`: a loop's tape bounded whatever its trip count.

The ordinary reverse mode of a loop (`control.while_ad_forward`) stores the residuals of
every iteration on the tape, so its memory grows with the trip count. A `Segmented` loop
stores instead, every `S` iterations, a snapshot of the loop's carries (all of them, ints
and bools included) and the step it was taken at:

    forward sweep:  [prefix: the ordinary taped loop while trips < T]          (auto only)
                    segments: while cond:  push carries, push step
                                           up to S iterations of the plain body
    backward sweep: while segments remain (last first):
                        pop step, carries; length = end - step
                        recompute: `length` iterations of the taped body from the snapshot
                                   (the ordinary forward body, without prints and checks)
                        adjoint:   `length` iterations of the ordinary adjoint body
                    [prefix: the ordinary adjoint loop over its T iterations]  (auto only)

The recomputation and the adjoint are the ordinary loop's (same equations, same order, the
cotangents accumulated from the last iteration to the first), so the results are those of
the unbounded tape bit for bit. Each step runs twice forward (once plain, once recording),
and the tape holds one segment's residuals at a time plus one snapshot per segment: with a
budget B and b bytes stored per step, S = B / 2b; W2 at 1e8 steps and B = 64 MB keeps 4 MB
of tape and 48 snapshots. This two-level scheme is online (the trip count need not be known
when the loop starts: `while` loops are checkpointed like `for` loops); its snapshots grow
like N / S, a few bytes per million steps for scalar loops. Binomial (revolve) schedules,
which bound the snapshots too at logarithmic recomputation cost, are not implemented.

Which loops: those of a differentiation whose `TapePlan` has a policy (`checkpoint_policy`),
whose body and condition touch no tape (adjoint code differentiated again keeps the
ordinary scheme) and whose condition has no effect (it is evaluated once more per segment).
Loops the policy leaves unbounded (`checkpoint=False`) keep the ordinary scheme, and so do,
in the automatic mode, loops nested inside `AUTO_NESTING` checkpointed loops (each
checkpointed level holds its body three times, as the plain, the taped and the recomputed
loop: checkpointing every level of deep nests grew the code, and the compile time, 2.5-5x
per level; the tapes of the deeper loops then live within one segment of the loops around
them). In the
automatic mode, the prefix records the ordinary tape while it holds less than half the
budget, so loops that fit run exactly as without checkpointing, apart from one more
evaluation of the condition; a loop whose trip count is known when compiling
(`static_trips`: `for i in range(constant)`) and whose tape surely fits (every value of its
body stored) keeps the ordinary scheme, so its code is not duplicated. The bytes per step
are the loop's own stores (`storage.stored`); loops nested in the body bound their own
tapes, so an outer loop's segments may hold more than the budget says.
Reverse over reverse: the outer differentiation keeps the ordinary scheme for these loops
(they touch the tape); its sums run in another order than over the unbounded tape (equal
to rounding, not bit for bit).
"""

from __future__ import annotations

from ..ir.builder import Builder
from ..ir.core import I64, Atom, Const, Eqn, Graph, Var, walk_eqns
from ..ir.dims import DimLike, DimUndecided, is_symbolic
from ..ir.loops import While
from ..ir.primitive import PRIMITIVES
from ..ir.transform import clone, inline
from ..primitives.effects import without_effects
from .checkpoint_policy import Checkpoint
from .reverse import TapePlan, tapes_in
from .storage import CHECKPOINT_LOOPS, Storage, stored_bytes

UNBOUNDED = 2**62  # a trip count no loop reaches
# automatic mode: loops nested in this many checkpointed loops keep the ordinary scheme (each
# checkpointed level copies its body three times: nesting would grow the code exponentially)
AUTO_NESTING = 2


def _fresh(atoms) -> list[Var]:
    return [Var(a.type, getattr(a, "hint", "")) for a in atoms]


def applies(eqn: Eqn, plan: TapePlan) -> bool:
    """Whether the reverse mode of the `while` `eqn` is checkpointed (see the module)."""
    cond, body = eqn.params["cond"], eqn.params["body"]
    policy = plan.checkpoint
    if policy is None or tapes_in(body) or tapes_in(cond) or \
            any(PRIMITIVES[e.prim].effectful for e in walk_eqns(cond)):
        return False
    if policy.auto and plan.segmented_around >= AUTO_NESTING:
        return False
    trips = static_trips(eqn)
    # automatic: a loop whose tape surely fits keeps the ordinary scheme (less code to
    # compile); at most every value of its body is stored
    return not (policy.auto and trips is not None and
                _surely(lambda: trips * _body_bytes(body) <= policy.budget // 2))


def _surely(test) -> bool:
    """`test()`, False where it asks about a run-time size (`ir.dims`) it cannot decide."""
    try:
        return test()
    except DimUndecided:
        return False


def _body_bytes(body: Graph) -> int:
    return sum(stored_bytes(v.type) for e in walk_eqns(body) for v in e.outputs) + \
        sum(stored_bytes(v.type) for v in body.inputs)


def _int_const(atom, eqn: Eqn, graph: Graph) -> int | None:
    """The value of `atom`, an input of `graph` (the loop `eqn`'s condition or body) or a
    constant, when it is an int known when compiling."""
    if isinstance(atom, Const):
        value = atom.value
    elif any(atom is v for v in graph.inputs[:While(eqn).n_consts]):
        outer = eqn.inputs[[id(v) for v in graph.inputs].index(id(atom))]
        value = outer.value if isinstance(outer, Const) else None
    else:
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def static_trips(eqn: Eqn) -> int | None:
    """The trip count of the `while` `eqn` when it is known when compiling: the condition
    is `counter < bound` with a constant bound, the counter starts at a constant and each
    iteration adds a positive constant to it (`for i in range(constant)`)."""
    loop = While(eqn)
    n, cond, body = loop.n_consts, loop.cond, loop.body
    if len(cond.eqns) != 1 or cond.eqns[0].prim != "lt" or \
            cond.outputs[0] is not cond.eqns[0].outputs[0]:
        return None
    counter, bound = cond.eqns[0].inputs
    bound = _int_const(bound, eqn, cond)
    positions = [j for j, v in enumerate(cond.inputs[n:]) if v is counter]
    if bound is None or not positions:
        return None
    j = positions[0]
    start, new = eqn.inputs[n + j], body.outputs[j]
    step = next((e for e in body.eqns if e.outputs and e.outputs[0] is new), None)
    if not isinstance(start, Const) or step is None or step.prim != "add" or \
            step.inputs[0] is not body.inputs[n + j]:
        return None
    delta = _int_const(step.inputs[1], eqn, body)
    if not isinstance(start.value, int) or delta is None or delta <= 0:
        return None
    return max(0, -(-(bound - start.value) // delta))


class Steps:
    """A number of loop steps: `per` steps, or as many as `budget` bytes hold at `per` bytes
    a step (at least one), computed when the code runs where `per` is a run-time size."""

    def __init__(self, per: DimLike, budget: int | None = None) -> None:
        self.per, self.budget = per, budget

    def atom(self, b: Builder) -> Atom:
        if self.budget is None:
            return Const(self.per, I64)
        if not is_symbolic(self.per):
            return Const(max(1, self.budget // self.per), I64)
        return b.maximum(b.floordiv(Const(self.budget, I64), Const(self.per, I64)),
                         Const(1, I64))


def _cond_and(cond: Graph, bound: Steps | None) -> Graph:
    """`cond` taking one more input, a count k, after its own, and-ed with `k < bound`
    (unless `bound` is None)."""
    b = Builder()
    inputs, k = _fresh(cond.inputs), Var(I64, "k")
    (holds,) = inline(b, cond, inputs)
    if bound is not None:
        holds = b.and_(b.lt(k, bound.atom(b)), holds)
    return Graph(inputs + [k], b.eqns, [holds], cond.name)


def _counting(graph: Graph, n: int, extra_consts: int, name: str) -> Graph:
    """A loop body running `graph` (a body taking `consts + carries + [count]`) with
    `extra_consts` more consts after its own, which it does not read."""
    b = Builder()
    inputs = _fresh(graph.inputs)
    extra = [Var(I64, "k") for _ in range(extra_consts)]
    outputs = inline(b, graph, inputs)
    return Graph(inputs[:n] + extra + inputs[n:], b.eqns, outputs, name)


class Segmented:
    """The forward sweep of one checkpointed loop (emitted by `__init__`, completed by
    `complete` once the taped body is known) and its backward sweep (`reverse`)."""

    def __init__(self, fb: Builder, eqn: Eqn, trips: Var, plan: TapePlan) -> None:
        self.eqn, self.policy, self.tape, self.trips = eqn, plan.checkpoint, plan.snapshots, trips
        loop = While(eqn)
        n = self.n = loop.n_consts
        cond = loop.cond
        consts, carries = list(loop.consts), list(loop.carries)
        self.prefix = None
        if self.policy.auto:  # the ordinary taped loop first, while its tape fits
            self.prefix_out = _fresh(eqn.outputs)
            self.prefix = Eqn("while", consts + carries + [Const(0, I64)],
                              self.prefix_out + [Var(I64, "trips")],
                              While.params(None, None, n), eqn.loc)
            fb.eqns.append(self.prefix)
            carries = self.prefix_out
        self.segments = Eqn("while", consts + carries + [Const(0, I64)],
                            list(eqn.outputs) + [Var(I64, "trips") if self.prefix else trips],
                            While.params(_cond_and(cond, None), None, n),
                            eqn.loc)
        fb.eqns.append(self.segments)
        if self.prefix is not None:
            fb.eqns.append(Eqn("add", [self.prefix.outputs[-1], self.segments.outputs[-1]],
                               [trips], {}, eqn.loc))

    def complete(self, taped: Graph, storage: Storage) -> None:
        """Set the bodies: `taped` is the ordinary forward body (`consts + carries + [count]
        -> new carries + [count + 1]`, storing `storage.stored`)."""
        step = sum(stored_bytes(v.type) for v in {id(v): v for v in storage.stored}.values())
        carries = self.eqn.outputs
        snapshot = sum(stored_bytes(v.type) for v in carries) + 8
        length, self.bound = self._schedule(self.policy, snapshot,
                                            step if is_symbolic(step) else max(step, 8))
        self.taped = taped
        if self.prefix is not None:
            self.prefix.params["body"] = taped
            self.prefix.params["cond"] = _cond_and(self.eqn.params["cond"], self.bound)
        self.segments.params["body"] = self._segment_body(length)

    @staticmethod
    def _schedule(policy: Checkpoint, snapshot: DimLike, step: DimLike
                  ) -> tuple[Steps, Steps | None]:
        """(steps per segment, steps of the taped prefix: None without one) for a loop whose
        snapshot takes `snapshot` bytes and whose step stores `step` bytes (run-time sizes
        where arrays have them: the budget is then not checked when compiling)."""
        if policy.every is not None:
            return Steps(policy.every), None
        if _surely(lambda: policy.budget < snapshot + step):
            raise policy.too_small(snapshot, step)
        half = Steps(step, policy.budget // 2)
        return half, half if policy.auto else None

    def _segment_body(self, length: Steps) -> Graph:
        """One segment of the forward sweep: store the snapshot, then run up to `length`
        iterations of the plain body while the condition holds."""
        eqn, n = self.eqn, self.n
        cond, body = eqn.params["cond"], eqn.params["body"]
        b = Builder(eqn.loc)
        inputs, at = _fresh(body.inputs), Var(I64, "step")
        for v in inputs[n:] + [at]:
            b.emit("push", [v], tape=self.tape)
        ib = Builder(eqn.loc)
        i_inputs, count = _fresh(body.inputs), Var(I64, "k")
        plain = inline(ib, body, i_inputs)
        inner_body = Graph(i_inputs + [count], ib.eqns, plain + [ib.add(count, 1)], body.name)
        inner_cond = _cond_and(cond, length)
        outs = b.emit("while", inputs + [Const(0, I64)],
                      **While.params(inner_cond, inner_body, n))
        return Graph(inputs + [at], b.eqns, outs[:-1] + [b.add(at, outs[-1])],
                     CHECKPOINT_LOOPS + "segments")

    def reverse(self, bb: Builder, consts: list, hoisted: list, state: list,
                nexts: list[int], adjoint) -> list:
        """The backward sweep: from the adjoint state `state` after the loop to the state
        before it. `adjoint(b, consts, hoisted, state, last, count)` emits the ordinary
        adjoint loop over `count` iterations that ended with the carries `last` (those at
        positions `nexts`)."""
        eqn, n = self.eqn, self.n
        b = Builder(eqn.loc)
        s_consts, s_hoisted, s_state = _fresh(consts), _fresh(hoisted), _fresh(state)
        end = Var(I64, "end")
        at = b.op("pop", type=I64, hint="step", tape=self.tape)
        snapshot = [b.op("pop", type=v.type, hint=v.hint, tape=self.tape)
                    for v in reversed(eqn.outputs)][::-1]
        length = b.sub(end, at)
        recompute = clone(self.taped)
        without_effects(recompute)  # prints and checks ran in the forward sweep
        ends = b.emit("while", s_consts + [length] + snapshot + [Const(0, I64)],
                      **While.params(_counted(recompute, n),
                                     _counting(recompute, n, 1, CHECKPOINT_LOOPS + "recompute"),
                                     n + 1))
        new_state = adjoint(b, s_consts, s_hoisted, s_state, [ends[j] for j in nexts], length)
        seg_inputs = s_consts + s_hoisted + s_state + [end]
        c_inputs = _fresh(seg_inputs)
        cb = Builder(eqn.loc)
        # the prefix ran min(trips, bound) iterations (when its condition stopped it, the
        # segments' condition, the same, stopped them at once): only `trips` is kept
        bound = None if self.prefix is None else self.bound.atom(bb)
        in_prefix = None if bound is None else \
            bb.select(bb.lt(self.trips, bound), self.trips, bound)
        in_segments = self.trips if in_prefix is None else bb.sub(self.trips, in_prefix)
        outs = bb.emit("while", consts + hoisted + state + [in_segments],
                       **While.params(
                           Graph(c_inputs, cb.eqns, [cb.gt(c_inputs[-1], 0)], "segments"),
                           Graph(seg_inputs, b.eqns, new_state + [at], "segments_bar"),
                           len(consts) + len(hoisted)))
        state = outs[:len(state)]
        if self.prefix is None:
            return state
        return adjoint(bb, consts, hoisted, state, [self.prefix_out[j] for j in nexts],
                       in_prefix)


def _counted(taped: Graph, n: int) -> Graph:
    """The condition of the recomputation: `count < length` (`length` the const after the
    loop's own consts)."""
    b = Builder()
    inputs = _fresh(taped.inputs)
    length = Var(I64, "length")
    return Graph(inputs[:n] + [length] + inputs[n:], b.eqns, [b.lt(inputs[-1], length)],
                 "recompute")
