"""The optimisation pipeline: a flat list of named passes, run to a fixpoint.

`optimize(graph)` runs PIPELINE (simplify, fold, cse, dce) until nothing changes (at most
MAX_ROUNDS rounds). Set `ADLITE_DUMP=fold,dce` (or `all`) to print the IR after those passes;
set `ADLITE_VERIFY=1` to run the verifier after every pass (the tests do).
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

PIPELINE = [("simplify", simplify), ("fold", fold_constants), ("cse", cse), ("dce", dce)]
MAX_ROUNDS = 6


def run_pass(name: str, fn, graph: Graph) -> bool:
    changed = fn(graph)
    dump = os.environ.get("ADLITE_DUMP", "")
    if dump and (dump == "all" or name in dump.split(",")):
        print(f"--- after {name} ({'changed' if changed else 'unchanged'}) ---", file=sys.stderr)
        print(print_graph(graph), file=sys.stderr)
    if os.environ.get("ADLITE_VERIFY"):
        verify(graph)
    return changed


def optimize(graph: Graph) -> Graph:
    """Optimise `graph` in place and return it."""
    for _ in range(MAX_ROUNDS):
        changed = False
        for name, fn in PIPELINE:
            changed |= run_pass(name, fn, graph)
        if not changed:
            break
    return graph
