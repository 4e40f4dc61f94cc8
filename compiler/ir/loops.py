"""The layout of a `while` equation, decoded in one place.

Contract: a `while` equation's inputs are `consts + carries`, split at `params["n_consts"]`;
`params["cond"]` and `params["body"]` are graphs of the same inputs (`cond` returns one bool,
`body` the next carries); its outputs are the final carries. `While(eqn)` reads those parts
(`n_consts`, `consts`, `carries`, `cond`, `body`), `While.params(cond, body, n_consts)` makes
the params of a new loop, `While(eqn).drop_consts(positions)` removes consts nothing reads
(from the equation and both graphs) and `While(eqn).add_consts(values)` appends consts (the
caller gives both graphs their inputs).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .core import Atom, Eqn, Graph


@dataclass(frozen=True)
class While:
    """A view of the `while` equation `eqn`."""

    eqn: Eqn

    @staticmethod
    def params(cond: Graph | None, body: Graph | None, n_consts: int) -> dict:
        """The params of a `while` (cond and body may be set later, by AD)."""
        return {"cond": cond, "body": body, "n_consts": n_consts}

    @property
    def n_consts(self) -> int:
        return self.eqn.params["n_consts"]

    @property
    def consts(self) -> list[Atom]:
        return self.eqn.inputs[:self.n_consts]

    @property
    def carries(self) -> list[Atom]:
        return self.eqn.inputs[self.n_consts:]

    @property
    def cond(self) -> Graph:
        return self.eqn.params["cond"]

    @property
    def body(self) -> Graph:
        return self.eqn.params["body"]

    def add_consts(self, values: list[Atom]) -> None:
        """Append `values` to the consts of the loop (after the others)."""
        at = self.n_consts
        self.eqn.inputs[at:at] = values
        self.eqn.params["n_consts"] += len(values)

    def drop_consts(self, positions: Iterable[int]) -> None:
        """Remove the consts at `positions` from the loop and from its two graphs."""
        dead = set(positions)
        for g in (self.cond, self.body):
            g.inputs = [v for k, v in enumerate(g.inputs) if k not in dead]
        self.eqn.inputs = [a for k, a in enumerate(self.eqn.inputs) if k not in dead]
        self.eqn.params["n_consts"] -= len(dead)
