"""The optimisation passes: a flat list of named passes, run to a fixpoint.

`optimize(graph)` runs PIPELINE (simplify, fold, cse, dce, and `tape` / `records`: the
pruning of unread tape stores, `tape.py`) in turn until every pass has run once since the
last change (at most MAX_ROUNDS rounds); it is the
`optimize` stage of the compilation pipeline (`pipeline.py`), whose `ad` stage also runs the
`scatter` pass (`scatter.py`) through `run_pass`. Set `ADLITE_DUMP=fold,dce` (or `all`; stage
names too, see `pipeline.py`) to print the IR after those passes; set `ADLITE_VERIFY=1` to run
the verifier after every pass (the tests do).
"""

from __future__ import annotations

import os
import sys

from ..ir.core import Graph
from ..ir.printer import print_graph
from ..ir.verify import verify
from .cse import cse
from .dce import dce
from .simplify import fold_constants, simplify
from .tape import prune_unread_records, prune_unread_stores

PIPELINE = [("simplify", simplify), ("fold", fold_constants), ("cse", cse), ("dce", dce),
            ("tape", prune_unread_stores), ("records", prune_unread_records)]
MAX_ROUNDS = 6


def dump_requested(name: str) -> bool:
    """Whether `ADLITE_DUMP` asks for the IR after the pass or stage `name`."""
    dump = os.environ.get("ADLITE_DUMP", "")
    return bool(dump) and (dump == "all" or name in dump.split(","))


def run_pass(name: str, fn, graph: Graph) -> bool:
    changed = fn(graph)
    if dump_requested(name):
        print(f"--- after {name} ({'changed' if changed else 'unchanged'}) ---", file=sys.stderr)
        print(print_graph(graph), file=sys.stderr)
    if os.environ.get("ADLITE_VERIFY"):
        verify(graph)
    return changed


def optimize(graph: Graph) -> Graph:
    """Optimise `graph` in place and return it: the passes run in turn until each has run
    once since the last change (a fixpoint; at most MAX_ROUNDS times the pipeline)."""
    unchanged = 0
    for _ in range(MAX_ROUNDS):
        for name, fn in PIPELINE:
            if unchanged == len(PIPELINE):
                return graph
            unchanged = 0 if run_pass(name, fn, graph) else unchanged + 1
    return graph
