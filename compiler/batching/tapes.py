"""A static simulation of the AD tapes while a program is batched, so that the values its
tape loads (`pop`) are known to be batched or not, and the per-example map visits the
examples in an order that keeps the tapes LIFOs.

The tapes are simulated in the order the interpreter emits equations (the reverse sweep
mirrors the forward sweep, so each load meets the entry of its store on top of its tape):
- a `push` batched by its rule records whether the value it stores is batched; the `pop`
  that loads it back (`load`) gets the same answer. So a value stored unbatched (the trip
  count of a loop that runs alike for every example) is loaded unbatched, and the reverse
  loop it drives runs alike too.
- a mapped equation (`visit`: a loop or branch run once per example) that stores on a tape
  leaves one entry there, with the order in which it visits the examples; the mapped
  equation that loads them takes that entry off and visits the examples in the reverse
  order (forwards when it loads nothing). Within an equation a load pairs with an earlier
  store of its own when there is one (each example's stores and loads pair up inside); only
  the loads before them reach what was stored outside (`_outside`).

`tapes()` opens the simulation of one batched program (`vmap` opens one per graph);
`trial()` runs a batching whose equations are thrown away (a loop's fixpoint over its
carries) and restores the simulation afterwards; `arms()` batches each arm of a branch from
the same state.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from ..ir.core import Eqn, walk_eqns

VALUE, MAPPED = "value", "mapped"


class Tapes:
    def __init__(self) -> None:
        self.stacks: dict[int, list[tuple[str, bool]]] = {}  # tape -> entries, bottom first

    def store(self, tape: int, batched: bool) -> None:
        self.stacks.setdefault(tape, []).append((VALUE, batched))

    def load(self, tape: int) -> bool:
        """Whether the value a `pop` loads from `tape` is batched (it is when the store is
        not known)."""
        stack = self.stacks.get(tape)
        if stack and stack[-1][0] == VALUE:
            return stack.pop()[1]
        return True

    def visit(self, eqn: Eqn) -> bool:
        """Whether the per-example map of `eqn` visits the examples backwards."""
        loads, stores = _outside(eqn)
        stored = [self.stacks[t].pop()[1] for t in sorted(loads)
                  if self.stacks.get(t) and self.stacks[t][-1][0] == MAPPED]
        backwards = not stored[-1] if stored else False
        for t in sorted(stores):
            self.stacks.setdefault(t, []).append((MAPPED, backwards))
        return backwards

    def copy(self) -> dict:
        return {t: list(s) for t, s in self.stacks.items()}


def _outside(eqn: Eqn) -> tuple[set[int], set[int]]:
    """(tapes that `eqn` loads from what was stored before it, tapes on which it leaves what
    it stores), from its tape operations in order: a load pairs with the last store of the
    same tape inside `eqn` not yet loaded, if any (a checkpointed reverse loop loads its
    snapshots from outside, then stores and loads a segment's residuals inside)."""
    depth: dict[int, int] = {}
    loads: set[int] = set()
    for e in (e for sub in eqn.subgraphs() for e in walk_eqns(sub)):
        if e.prim in ("push", "pop"):
            tape = e.params.get("tape", 0)
            if e.prim == "push":
                depth[tape] = depth.get(tape, 0) + 1
            elif depth.get(tape, 0):
                depth[tape] -= 1
            else:
                loads.add(tape)
    return loads, {t for t, d in depth.items() if d}


_current: contextvars.ContextVar[Tapes | None] = contextvars.ContextVar("tapes", default=None)


def current() -> Tapes:
    """The simulation open now (a fresh one outside `tapes()`)."""
    return _current.get() or Tapes()


@contextlib.contextmanager
def tapes() -> Iterator[Tapes]:
    token = _current.set(Tapes())
    try:
        yield _current.get()
    finally:
        _current.reset(token)


@contextlib.contextmanager
def trial() -> Iterator[None]:
    state = _current.get()
    saved = None if state is None else state.copy()
    try:
        yield
    finally:
        if state is not None:
            state.stacks = saved


def arms(n: int) -> Iterator[int]:
    """0..n-1, each arm batched from the state before the branch; the state after it is
    the last arm's (the arms of a branch store and load alike)."""
    state = _current.get()
    saved = None if state is None else state.copy()
    for k in range(n):
        if state is not None and k:
            state.stacks = {t: list(s) for t, s in saved.items()}
        yield k
