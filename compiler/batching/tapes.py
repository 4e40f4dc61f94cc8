"""The order in which the per-example map visits the examples, so that AD tapes stay LIFOs.

A mapped equation that stores values on a tape (`push` inside its loop or branch) leaves
one segment per example there, in the order it visited them; the equation that loads them
back (`pop`) must visit the examples in the reverse order. `Orders` simulates the tapes
statically, in the order the interpreter emits equations (the reverse sweep mirrors the
forward sweep, so each loading equation meets the segment of its storing equation on top
of its tape): `visit(eqn)` takes the segments `eqn` consumes off its tapes, returns whether
to visit the examples backwards (the reverse of their order, forwards when it consumes
none), and puts the segments it leaves on its tapes. A tape that an equation both stores
on and loads from is its own business (each example's stores and loads pair up inside).

`orders()` opens the simulation of one batched program (`vmap` opens one per graph);
`trial()` runs a batching whose equations are thrown away (a loop's fixpoint over its
carries) without touching the simulation.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from ..ir.core import Eqn, walk_eqns


class Orders:
    def __init__(self) -> None:
        self.tapes: dict[int, list[bool]] = {}  # tape -> the orders of its segments (True:
        # backwards), bottom first

    def visit(self, eqn: Eqn) -> bool:
        stores, loads = set(), set()
        for e in (e for sub in eqn.subgraphs() for e in walk_eqns(sub)):
            if e.prim in ("push", "pop"):
                (stores if e.prim == "push" else loads).add(e.params.get("tape", 0))
        stored = [self.tapes[t].pop() for t in sorted(loads - stores) if self.tapes.get(t)]
        backwards = not stored[-1] if stored else False
        for t in sorted(stores - loads):
            self.tapes.setdefault(t, []).append(backwards)
        return backwards


_current: contextvars.ContextVar[Orders | None] = contextvars.ContextVar("orders",
                                                                           default=None)


def current() -> Orders:
    """The simulation open now (a fresh one outside `orders()`)."""
    return _current.get() or Orders()


@contextlib.contextmanager
def orders() -> Iterator[Orders]:
    token = _current.set(Orders())
    try:
        yield _current.get()
    finally:
        _current.reset(token)


@contextlib.contextmanager
def trial() -> Iterator[None]:
    state = _current.get()
    saved = None if state is None else {t: list(s) for t, s in state.tapes.items()}
    try:
        yield
    finally:
        if state is not None:
            state.tapes = saved
