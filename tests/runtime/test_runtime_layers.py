"""The import structure of `runtime/` (the eager tape), checked from the source with `ast`
(`import_graph`: every import counts, at module level and inside functions, relative and
absolute, except those under `if TYPE_CHECKING:`).

Two properties:
- the module import graph has no cycle (the failure prints the cycles);
- nothing imports a module of a higher layer. Layers, lowest first:
    0  grad_mode, foreign   leaves: import nothing of the runtime
    1  graph         the backward graph's nodes and saved values (Tensor in annotations only)
    2  tensor        `Tensor` and its factories; its operators and methods run modules of
                     layers 4, 7, 8 and 9, which `__init__` binds there (`tensor.bind_above`)
       engine        running the backward graph
    3  primitive     what a primitive is: the table, which `functional.apply` looks names up in
    4  functional    the tensor functions: primitives applied with recording, and composites
                     (whose vocabulary, layer 5, `__init__` binds: `functional.bind_vocabulary`)
    5  vocabulary    the shared derivative formulas' vocabulary on tensors
    6  primitives    every primitive's rules, registered in that table
       complex_numbers   PyTorch's complex convention; real, imag, conj
    7  decompositions, linalg, special, convolution   more primitives and the functions built
       scipy_stats, special_ufuncs                   on them
       numpy_functions, sorting, fft     numpy's array functions on tensors
    8  numpy_protocol   numpy's protocols: `np.*` on tensors dispatched to layers 4 and 7
    9  autograd, custom, gradcheck, optim, dot   backpropagation's function forms, custom
                     functions, gradient checks, optimizers, graph drawing
       transforms    grad / elementwise_grad / jacobian of functions (autograd's)
       scipy         the subpackage mirroring scipy's API (imports scipy; `__init__` does
                     not import it)
   10  __init__      the API; imports the modules that register primitives, and binds
  Within one layer imports are free but acyclic.
"""

from __future__ import annotations

import subprocess
import sys

from ..support.import_graph import ImportGraph, layer_tests
from ..support.paths import ROOT

GRAPH = ImportGraph(ROOT / "runtime", "adlite.runtime")

LAYERS = {
    "grad_mode": 0, "foreign": 0,
    "graph": 1,
    "tensor": 2, "engine": 2,
    "primitive": 3,
    "functional": 4,
    "vocabulary": 5,
    "primitives": 6, "complex_numbers": 6,
    "decompositions": 7, "linalg": 7, "special": 7, "convolution": 7, "scipy_stats": 7,
    "special_ufuncs": 7,
    "numpy_functions": 7, "fft": 7,
    "sorting": 7,
    "numpy_protocol": 8,
    "autograd": 9, "custom": 9, "gradcheck": 9, "optim": 9, "dot": 9, "transforms": 9,
    "scipy": 9,
    "__init__": 10,
}


test_every_module_has_a_layer, test_no_import_cycles, test_imports_go_down_the_layers = \
    layer_tests(GRAPH, LAYERS)


def test_no_function_level_imports():
    """Every import of the runtime is at module level: none hides a dependency in a function
    (the layers above that lower modules run are bound by `__init__`, not imported)."""
    inside = [f"{name or '__init__'}: line {line}" for name in sorted(GRAPH.modules)
              for line in GRAPH.function_level_imports(name)]
    assert not inside, "\n".join(inside)


def test_the_layers_above_are_bound_whichever_module_is_imported_first():
    """`Tensor`'s operators and methods and `functional`'s composites run modules above
    them, which `__init__` binds; Python runs it before any module of the package, so they
    are bound, and the primitive table complete, whichever module a program imports first."""
    script = (
        "import sys, importlib\n"
        "first = importlib.import_module(sys.argv[1])\n"
        "from adlite.runtime import autograd, functional, numpy_protocol, sorting, vocabulary\n"
        "t = sys.modules['adlite.runtime.tensor']\n"
        "from adlite.runtime.primitive import PRIMITIVES as P\n"
        "print((t.F, t.sorting, t.numpy_protocol, t.autograd) ==\n"
        "      (functional, sorting, numpy_protocol, autograd),\n"
        "      functional._OPS is vocabulary.TENSOR_OPS,\n"
        "      {'add', 'eigh', 'solve', 'erf', 'index_put'} <= set(P))\n")
    for first in ("adlite.runtime.tensor", "adlite.runtime.functional",
                  "adlite.runtime.primitive", "adlite.runtime.graph"):
        done = subprocess.run([sys.executable, "-c", script, first], capture_output=True,
                              text=True, check=True)
        assert done.stdout.split() == ["True"] * 3, (first, done.stdout)
