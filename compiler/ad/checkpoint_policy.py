"""How much a reverse-mode loop may keep on the tape: the `checkpoint=` argument of `grad`,
`value_and_grad`, `vjp` and `hessian`, and the `ADLITE_TAPE_BUDGET` environment variable.

Contract: `policy(value)` turns the argument into a `Checkpoint` (or None: never checkpoint)
and raises, naming the argument, on a value it cannot take:
- `False`: never checkpoint; every loop keeps its whole tape (the tape grows with the trip
  count);
- `None` (the default) or `True`: automatic. A loop records the ordinary tape while it holds
  less than half of `ADLITE_TAPE_BUDGET` (bytes, default 512 MiB; a number or a string such
  as "64MB", "1.5GiB"), then continues checkpointed in segments whose tapes hold at most
  the other half;
- a string such as "64MB" (or a float: bytes): a budget; the loop is checkpointed from its
  first step, in segments whose tape holds at most half the budget (the snapshots, one per
  segment, take the rest);
- an int k >= 1: a snapshot every k steps.
A budget too small for one snapshot of a loop's carries and one step of its tape is refused
when that loop is compiled (`Checkpoint.too_small`), naming the argument.

The default of 512 MiB keeps the reverse sweep of loops up to 16M scalar steps (W2 stores
16 B per step) as fast as without checkpointing (only the trip count is compared), and
bounds a loop's tape at a size any machine that runs LLVM has to spare.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

DEFAULT_BUDGET = 512 * 2**20
ENV = "ADLITE_TAPE_BUDGET"
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([a-z]*)\s*")


@dataclass(frozen=True)
class Checkpoint:
    """`budget`: bytes a loop's tape may hold (None with `every`); `every`: steps between
    snapshots; `auto`: record the ordinary tape first (half the budget), checkpoint past
    it; `source`: the argument it came from, for errors."""

    budget: int | None = None
    every: int | None = None
    auto: bool = False
    source: str = "checkpoint"

    def too_small(self, snapshot: int, step: int) -> ValueError:
        """The error for a budget below one snapshot (`snapshot` bytes) plus one step of
        tape (`step` bytes)."""
        return ValueError(
            f"{self.source}: a budget of {self.budget} bytes is too small for one snapshot of "
            f"a loop ({snapshot} bytes of loop variables) and one step of its tape ({step} "
            f"bytes); give at least {snapshot + step} bytes, or checkpoint=False")


def parse_bytes(text: str | float, source: str) -> int:
    """A size in bytes from `text` ("64MB", "1.5 GiB", "1e6", 4096)."""
    if isinstance(text, float | int) and not isinstance(text, bool):
        value = float(text)
    else:
        match = _SIZE.fullmatch(str(text).lower())
        if match is None or match.group(2) not in _UNITS:
            raise ValueError(f"{source}: cannot read {text!r} as a size in bytes (e.g. '64MB', "
                             "'1.5GiB', '1e8')")
        value = float(match.group(1)) * _UNITS[match.group(2)]
    if not value >= 1:
        raise ValueError(f"{source}: a budget must be at least 1 byte, got {text!r}")
    return int(value)


def policy(value: object = None) -> Checkpoint | None:
    """The checkpointing policy the argument `checkpoint=value` asks for (see the module)."""
    if value is False:
        return None
    if value is None or value is True:
        raw = os.environ.get(ENV, "").strip()
        budget = parse_bytes(raw, ENV) if raw else DEFAULT_BUDGET
        return Checkpoint(budget=budget, auto=True, source=ENV)
    if isinstance(value, Checkpoint):
        return value
    if isinstance(value, int):
        if value < 1:
            raise ValueError(f"checkpoint={value}: the steps between snapshots must be at "
                             "least 1")
        return Checkpoint(every=value, source=f"checkpoint={value}")
    if isinstance(value, str | float):
        return Checkpoint(budget=parse_bytes(value, f"checkpoint={value!r}"),
                          source=f"checkpoint={value!r}")
    raise TypeError(f"checkpoint={value!r}: expected False, True, None, an int (steps between "
                    f"snapshots) or a size in bytes such as '64MB', not {type(value).__name__}")
