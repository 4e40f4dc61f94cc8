"""The import structure of `compiler/`, checked from the source with `ast` (`import_graph`:
every import counts, at module level and inside functions, relative and absolute, except
those under `if TYPE_CHECKING:`).

Two properties:
- the module import graph has no cycle (the failure prints the cycles);
- nothing imports a module of a higher layer. Layers, lowest first:
    0  errors, status, compile_once, gast_adapter   leaves: import nothing of the compiler
    1  ir            graphs, and what a primitive is: the table (`ir.primitive`), which the
                     IR's builder, verifier and evaluator look names up in
    2  primitives    every primitive's own rules, registered in that table
       arguments, log   call signatures, and the logging of compilations (which reads them)
    3  ad, passes    transformations consuming the table (`ad` also attaches the structural
                     AD rules of control flow to it; reverse mode runs `passes.dce`)
    4  backends      lowering graphs to Python source and to LLVM
    5  frontend      Python source -> IR
    6  pipeline      the named stages frontend -> optimize -> ad -> optimize -> lower
    7  api, aot, cli, custom, jacobian, __init__   the user-facing entry points (they choose
       stages)
       batching      `vmap`: batches the graphs the pipeline makes, compiled through `api`
       pickling, distributed   ship them to other processes
  Within one layer imports are free but acyclic; `ad` and `passes` share layer 3.
"""

from __future__ import annotations

import subprocess
import sys

from ..support.import_graph import ImportGraph, layer_tests
from ..support.paths import ROOT

GRAPH = ImportGraph(ROOT / "compiler", "adlite.compiler")

LAYERS = {
    "errors": 0, "status": 0, "compile_once": 0, "gast_adapter": 0, "tracebacks": 0,
    "transformation": 0,
    "ir": 1,
    "primitives": 2, "arguments": 2, "log": 2,
    "ad": 3, "passes": 3, "structured_calls": 3,
    "backends": 4,
    "frontend": 5,
    "pipeline": 6,
    "api": 7, "aot": 7, "cli": 7, "custom": 7, "__init__": 7,
    "jacobian": 7, "batching": 7, "pickling": 7, "distributed": 7,
}


test_every_module_has_a_layer, test_no_import_cycles, test_imports_go_down_the_layers = \
    layer_tests(GRAPH, LAYERS)


def test_the_checker_sees_function_level_relative_and_absolute_imports():
    """The parser is what the other tests rest on: an import inside a function, a relative
    `from . import x` and an absolute `adlite.compiler` import are all edges; one under
    `if TYPE_CHECKING:` (annotations only) is not."""
    inside = "def f():\n    pass\n    from ..primitives import PRIMITIVES\n"
    assert GRAPH.imports_in("ir.x", "ir", inside) == [("primitives", 3)]
    assert GRAPH.imports_in("ir.x", "ir", "from . import core\n") == [("ir.core", 1)]
    absolute = "import adlite.compiler.ir.core\nfrom adlite.compiler.passes import dce\n"
    assert GRAPH.imports_in("api", "", absolute) == [("ir.core", 1), ("passes.dce", 2)]
    typing = "if TYPE_CHECKING:\n    from ..api import grad\nelse:\n    from . import core\n"
    assert GRAPH.imports_in("ir.x", "ir", typing) == [("ir.core", 4)]


def test_the_table_is_complete_whichever_module_is_imported_first():
    """The IR layer never imports the rules, yet its table is full as soon as any compiler
    module is imported (`adlite.compiler/__init__` fills it): the rules of the primitives, the
    structural AD rules attached by `ad`, the LLVM lowerings attached by the backend (one for
    every primitive but those expanded or lowered before any backend sees the graph)."""
    script = (
        "import adlite.compiler.ir.builder\n"
        "from adlite.compiler.ir.primitive import PRIMITIVES as P\n"
        "from adlite.compiler.primitives.lists import LIST_PRIMITIVES\n"
        "structural = sorted(n for n, p in P.items() if p.structural)\n"
        "lists = [n for n in structural if n.startswith('list_')]\n"
        "print(sorted(set(structural) - set(lists)) == ['cond', 'pop', 'push', 'while'],\n"
        "      sorted(lists) == sorted(LIST_PRIMITIVES) and len(P) > 40,\n"
        "      all(P[n].jvp is not None for n in structural),\n"
        "      P['while'].ad_forward is not None and P['cond'].vjp is not None)\n"
        "from adlite.compiler.passes.complex_pairs import LOWERED\n"
        "from adlite.compiler.passes.custom_calls import EXPANDED\n"
        "print(sorted(n for n, p in P.items() if p.llvm is None) == sorted(EXPANDED + LOWERED))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["True"] * 5
